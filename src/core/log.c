/*
 * log.c — operator log on stderr (see log.h).
 */
#include "core/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

extern atomic_int sluice_log_threshold; /* globals.c */

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
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
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
