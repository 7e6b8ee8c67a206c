/*
 * log.c — operator log on stderr (see log.h).
 */
#include "core/log.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/fdio.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_BYTES 2048u

extern atomic_int sluice_log_threshold;     /* globals.c */
extern atomic_int sluice_log_format_global; /* globals.c */

void sluice_log_set_format(sluice_log_format format)
{
    atomic_store(&sluice_log_format_global, (int)format);
}

sluice_log_format sluice_log_get_format(void)
{
    return (sluice_log_format)atomic_load(&sluice_log_format_global);
}

void sluice_log_timestamp(char out[SLUICE_CLOCK_UTC_TEXT])
{
    sluice_clock_utc_text_ms(sluice_clock_now_ms(NULL), out);
}

void sluice_log_line(const char *line, size_t len)
{
    char stack[LINE_BYTES + 2];
    if (len > LINE_BYTES * 8) /* a structured event never needs more: cut, still one line */
        len = LINE_BYTES * 8;
    if (len <= LINE_BYTES) {
        memcpy(stack, line, len);
        stack[len] = '\n';
        (void)sluice_write_all(STDERR_FILENO, stack, len + 1);
        return;
    }
    /* rare: long lines go out as two writes under stdio's lock */
    flockfile(stderr);
    fwrite(line, 1, len, stderr);
    fputc('\n', stderr);
    fflush(stderr);
    funlockfile(stderr);
}

void sluice_log_set_level(sluice_log_level level)
{
    atomic_store(&sluice_log_threshold, (int)level);
}

int sluice_log_enabled(sluice_log_level level)
{
    return (int)level >= atomic_load(&sluice_log_threshold);
}

void sluice_log(sluice_log_level level, const char *fmt, ...)
{
    static const char *const names[] = { "debug", "info", "warn", "error" };
    if (!sluice_log_enabled(level) || level >= SLUICE_LOG_OFF)
        return;
    char stamp[SLUICE_CLOCK_UTC_TEXT];
    sluice_log_timestamp(stamp);
    char line[LINE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (sluice_log_get_format() == SLUICE_LOG_JSON) {
        sluice_buf b;
        sluice_buf_init(&b, NULL, 0);
        sluice_buf_printf(&b, "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":", stamp, names[level]);
        sluice_buf_json_string(&b, line, strlen(line));
        sluice_buf_putc(&b, '}');
        if (sluice_buf_status(&b) == SLUICE_OK)
            sluice_log_line(b.data, b.len);
        sluice_buf_dispose(&b);
        if (sluice_buf_status(&b) == SLUICE_OK)
            return; /* else out of memory: the text line below still says it */
    }
    fprintf(stderr, "%s sluice %s: %s\n", stamp, names[level], line);
}

static size_t escape_into(char *out, size_t cap, size_t at, const char *data, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < len && at + 5 < cap; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[at++] = (char)c;
        } else {
            out[at++] = '\\';
            out[at++] = 'x';
            out[at++] = hex[c >> 4];
            out[at++] = hex[c & 15];
        }
    }
    return at;
}

void sluice_log_sample(char *out, size_t cap, const char *data, size_t len)
{
    if (cap == 0)
        return;
    size_t at = 0;
    if (len <= 128) {
        at = escape_into(out, cap, at, data, len);
    } else {
        at = escape_into(out, cap, at, data, 64);
        at = escape_into(out, cap, at, "...", 3);
        at = escape_into(out, cap, at, data + len - 64, 64);
    }
    out[at < cap ? at : cap - 1] = '\0';
}
