/*
 * log.h — operator log on stderr (never stdout: stdout belongs to the stdio transport).
 *
 * Owns: levels, a threshold, the line format (text, or one JSON object per line when
 * [server] log_format = "json"), one line per event with time and level, and bounded escaping
 * of client-supplied text. Does not own: MCP log notifications to the client (mcp/server.c).
 */
#ifndef SLUICE_CORE_LOG_H
#define SLUICE_CORE_LOG_H

#include "core/clock.h"

#include <stddef.h>

typedef enum sluice_log_level {
    SLUICE_LOG_DEBUG = 0,
    SLUICE_LOG_INFO = 1,
    SLUICE_LOG_WARN = 2,
    SLUICE_LOG_ERROR = 3,
    SLUICE_LOG_OFF = 4,
} sluice_log_level;

typedef enum sluice_log_format {
    SLUICE_LOG_TEXT = 0, /* "2026-08-20T12:34:56Z sluice info: message" */
    SLUICE_LOG_JSON = 1, /* {"time":"...","level":"info","msg":"message"} */
} sluice_log_format;

void sluice_log_set_level(sluice_log_level level);
void sluice_log_set_format(sluice_log_format format);
sluice_log_format sluice_log_get_format(void);
int sluice_log_enabled(sluice_log_level level);

void sluice_log(sluice_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes one finished line (a newline is added) to stderr in a single write, so lines of
 * concurrent threads never interleave. For structured events built by the caller. */
void sluice_log_line(const char *line, size_t len);

/* The time as the log writes it ("2026-08-20T12:34:56.789Z") into out. */
void sluice_log_timestamp(char out[SLUICE_CLOCK_UTC_TEXT]);

/* Writes a bounded, escaped sample of untrusted bytes (first and last 64) into out (cap bytes). */
void sluice_log_sample(char *out, size_t cap, const char *data, size_t len);

#endif
