/*
 * log.h — operator log on stderr (never stdout: stdout belongs to the stdio transport).
 *
 * Owns: levels, a threshold, one line per event with time and level, and bounded escaping of
 * client-supplied text. Does not own: MCP log notifications to the client (mcp/server.c).
 */
#ifndef SLUICE_CORE_LOG_H
#define SLUICE_CORE_LOG_H

#include <stddef.h>

typedef enum sluice_log_level {
    SLUICE_LOG_DEBUG = 0,
    SLUICE_LOG_INFO = 1,
    SLUICE_LOG_WARN = 2,
    SLUICE_LOG_ERROR = 3,
    SLUICE_LOG_OFF = 4,
} sluice_log_level;

void sluice_log_set_level(sluice_log_level level);
int sluice_log_enabled(sluice_log_level level);

void sluice_log(sluice_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes a bounded, escaped sample of untrusted bytes (first and last 64) into out (cap bytes). */
void sluice_log_sample(char *out, size_t cap, const char *data, size_t len);

#endif
