/*
 * buf.c — bounded string builder (see buf.h).
 */
#include "core/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sluice_buf_init(sluice_buf *buf, sluice_arena *arena, size_t max)
{
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->max = max == 0 ? SIZE_MAX / 2 : max;
    buf->arena = arena;
    buf->status = SLUICE_OK;
}

static bool grow(sluice_buf *buf, size_t extra)
{
    size_t need;
    if (__builtin_add_overflow(buf->len, extra, &need) || need > buf->max) {
        buf->status = SLUICE_E_LIMIT;
        return false;
    }
    if (need + 1 <= buf->cap)
        return true;
    size_t cap = buf->cap < 64 ? 64 : buf->cap;
    while (cap < need + 1)
        cap = cap > SIZE_MAX / 2 ? need + 1 : cap * 2;
    char *fresh;
    if (buf->arena != NULL) {
        fresh = sluice_arena_alloc(buf->arena, cap);
        if (fresh != NULL && buf->len > 0)
            memcpy(fresh, buf->data, buf->len);
    } else {
        fresh = sluice_arena_fault_point() ? NULL : realloc(buf->data, cap);
    }
    if (fresh == NULL) {
        buf->status = SLUICE_E_NOMEM;
        return false;
    }
    buf->data = fresh;
    buf->cap = cap;
    return true;
}

void sluice_buf_reserve(sluice_buf *buf, size_t n)
{
    if (buf->status == SLUICE_OK)
        (void)grow(buf, n < buf->max - buf->len ? n : buf->max - buf->len);
}

/* Whether len more bytes and the NUL fit the room there is, within the maximum: nearly every
 * append (JSON writers put a byte at a time), which then skips grow's overflow checks. */
static bool fits(const sluice_buf *buf, size_t len)
{
    return len < buf->cap - buf->len && buf->len + len <= buf->max;
}

void sluice_buf_append(sluice_buf *buf, const void *data, size_t len)
{
    if (buf->status != SLUICE_OK || (!fits(buf, len) && !grow(buf, len)))
        return;
    if (len > 0)
        memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void sluice_buf_puts(sluice_buf *buf, const char *s)
{
    sluice_buf_append(buf, s, strlen(s));
}

void sluice_buf_putc(sluice_buf *buf, char c)
{
    if (buf->status != SLUICE_OK || (!fits(buf, 1) && !grow(buf, 1)))
        return;
    buf->data[buf->len++] = c;
    buf->data[buf->len] = '\0';
}

void sluice_buf_vprintf(sluice_buf *buf, const char *fmt, va_list ap)
{
    if (buf->status != SLUICE_OK)
        return;
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) {
        buf->status = SLUICE_E_INVALID;
        return;
    }
    if (!grow(buf, (size_t)n))
        return;
    vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
    buf->len += (size_t)n;
}

void sluice_buf_printf(sluice_buf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_buf_vprintf(buf, fmt, ap);
    va_end(ap);
}

void sluice_buf_json_string(sluice_buf *buf, const char *s, size_t len)
{
    /* jansson's compact escapes (dump.c: \b \f named, other controls as upper-case \u00XX),
     * so text written here and text jansson writes for the same value are the same bytes */
    static const char hex[] = "0123456789ABCDEF";
    sluice_buf_putc(buf, '"');
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        sluice_buf_append(buf, s + run, i - run);
        run = i + 1;
        const char *named = c == '"'    ? "\\\""
                            : c == '\\' ? "\\\\"
                            : c == '\b' ? "\\b"
                            : c == '\f' ? "\\f"
                            : c == '\n' ? "\\n"
                            : c == '\r' ? "\\r"
                            : c == '\t' ? "\\t"
                                        : NULL;
        if (named != NULL) {
            sluice_buf_append(buf, named, 2);
        } else {
            char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            sluice_buf_append(buf, esc, sizeof esc);
        }
    }
    sluice_buf_append(buf, s + run, len - run);
    sluice_buf_putc(buf, '"');
}

const char *sluice_buf_cstr(const sluice_buf *buf)
{
    return buf->data == NULL ? "" : buf->data;
}

sluice_status sluice_buf_status(const sluice_buf *buf)
{
    return buf->status;
}

void sluice_buf_dispose(sluice_buf *buf)
{
    if (buf->arena == NULL)
        free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}
