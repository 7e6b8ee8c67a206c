/*
 * log_level.h — the MCP logging levels: the one table of their names.
 *
 * Owns: the eight levels MCP takes from syslog (RFC 5424), in order of severity, the lookup of
 * a name, and their list as error messages print it. logging/setLevel (methods.c), a stateless
 * request's _meta logLevel (stateless.c checks it, session.c keeps it) and notifications/message
 * (call.c) all read this table, so the levels are spelled once.
 * Does not own: which level a session or a request has set (server_impl.h keeps it), nor
 * sluice's own log (core/log.h).
 */
#ifndef SLUICE_MCP_LOG_LEVEL_H
#define SLUICE_MCP_LOG_LEVEL_H

/* The level names for a message telling the client what it may send. */
#define SLUICE_MCP_LOG_LEVEL_NAMES \
    "debug, info, notice, warning, error, critical, alert or emergency"

/* Index of a level name (0 = debug .. 7 = emergency), -1 when unknown or NULL. */
int sluice_mcp_log_level_index(const char *level);

#endif
