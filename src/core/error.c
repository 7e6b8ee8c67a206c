/*
 * error.c — error values and their caret rendering (see error.h).
 */
#include "core/error.h"

#include "core/buf.h"

#include <stdarg.h>
#include <string.h>

static const char *const status_names[] = {
    [SLUICE_OK] = "ok",
    [SLUICE_E_NOMEM] = "nomem",
    [SLUICE_E_INVALID] = "invalid",
    [SLUICE_E_LIMIT] = "limit",
    [SLUICE_E_IO] = "io",
    [SLUICE_E_NOT_FOUND] = "not_found",
    [SLUICE_E_DENIED] = "denied",
    [SLUICE_E_UNSUPPORTED] = "unsupported",
    [SLUICE_E_INTERNAL] = "internal",
    [SLUICE_E_TIMEOUT] = "timeout",
    [SLUICE_E_CANCELLED] = "cancelled",
    [SLUICE_E_CONFIG] = "config",
    [SLUICE_E_TOKEN] = "token",
    [SLUICE_E_ENGINE] = "engine",
    [SLUICE_E_AUTH] = "auth",
};

const char *sluice_status_name(sluice_status status)
{
    if ((unsigned)status > SLUICE_STATUS_MAX || status_names[status] == NULL)
        return "unknown";
    return status_names[status];
}

void sluice_error_clear(sluice_error *err)
{
    if (err != NULL)
        memset(err, 0, sizeof(*err));
}

sluice_status sluice_error_fixed(sluice_error *err, sluice_status status, const char *message)
{
    if (err != NULL) {
        sluice_error_clear(err);
        err->status = status;
        err->message = message;
    }
    return status;
}

__attribute__((format(printf, 4, 0))) static sluice_status set_message(
    sluice_error *err, sluice_arena *arena, sluice_status status, const char *fmt, va_list ap)
{
    if (err == NULL)
        return status;
    err->status = status;
    char *msg = arena != NULL ? sluice_arena_vprintf(arena, fmt, ap) : NULL;
    err->message = msg != NULL ? msg : "out of memory while reporting an error";
    return status;
}

sluice_status
sluice_error_set(sluice_error *err, sluice_arena *arena, sluice_status status, const char *fmt, ...)
{
    if (err == NULL)
        return status;
    sluice_error_clear(err);
    va_list ap;
    va_start(ap, fmt);
    set_message(err, arena, status, fmt, ap);
    va_end(ap);
    return status;
}

sluice_status sluice_error_at(sluice_error *err,
                              sluice_arena *arena,
                              sluice_status status,
                              const char *source,
                              size_t line,
                              size_t column,
                              const char *fmt,
                              ...)
{
    if (err == NULL)
        return status;
    sluice_error_clear(err);
    va_list ap;
    va_start(ap, fmt);
    set_message(err, arena, status, fmt, ap);
    va_end(ap);
    err->source = source;
    err->line = line;
    err->column = column;
    return status;
}

void sluice_error_hint(sluice_error *err, sluice_arena *arena, const char *fmt, ...)
{
    if (err == NULL || arena == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    err->hint = sluice_arena_vprintf(arena, fmt, ap);
    va_end(ap);
}

void sluice_error_locate(
    const char *text, size_t text_len, size_t offset, size_t *out_line, size_t *out_column)
{
    size_t line = 1, column = 1;
    if (offset > text_len)
        offset = text_len;
    for (size_t i = 0; i < offset; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            column++; /* count characters, not UTF-8 continuation bytes */
        }
    }
    *out_line = line;
    *out_column = column;
}

/* Appends line number `line` of text, with control bytes shown as spaces. */
static void append_source_line(sluice_buf *b, const char *text, size_t text_len, size_t line)
{
    size_t i = 0, at = 1;
    while (i < text_len && at < line) {
        if (text[i++] == '\n')
            at++;
    }
    size_t end = i;
    while (end < text_len && text[end] != '\n' && end - i < 200)
        end++;
    for (size_t k = i; k < end; k++) {
        unsigned char c = (unsigned char)text[k];
        sluice_buf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
    }
    sluice_buf_putc(b, '\n');
}

char *
sluice_error_render(sluice_arena *arena, const sluice_error *err, const char *text, size_t text_len)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 8192);
    if (err->source != NULL)
        sluice_buf_printf(&b, "%s:", err->source);
    if (err->line > 0)
        sluice_buf_printf(&b, "%zu:%zu:", err->line, err->column);
    if (b.len > 0)
        sluice_buf_putc(&b, ' ');
    sluice_buf_puts(&b, err->message != NULL ? err->message : sluice_status_name(err->status));
    sluice_buf_putc(&b, '\n');
    if (text != NULL && err->line > 0) {
        append_source_line(&b, text, text_len, err->line);
        for (size_t c = 1; c < err->column && c < 200; c++)
            sluice_buf_putc(&b, ' ');
        sluice_buf_puts(&b, "^\n");
    }
    if (err->hint != NULL)
        sluice_buf_printf(&b, "hint: %s\n", err->hint);
    return sluice_buf_status(&b) == SLUICE_OK ? b.data : (char *)err->message;
}
