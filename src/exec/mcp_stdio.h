/*
 * mcp_stdio.h — the stdio transport of sluice's MCP client: a downstream MCP server started
 * from an argv in config, newline-delimited JSON-RPC over one socket pair.
 *
 * Owns: spawning (posix_spawnp, argv from config only), request ids and matching a response to
 * its request within a deadline, a byte budget and a cancellation flag, the handshake
 * (initialize, notifications/initialized), and stopping the child (SIGTERM, then SIGKILL after
 * SLUICE_LIMIT_MCP_CLIENT_STOP_MS).
 * Does not own: which methods follow (exec/mcp_client.c: tools/list, tools/call; query mode's
 * kind = "mcp" sources: one tools/call) or what their results mean.
 * Not thread-safe: one exchange at a time per connection (the caller locks).
 */
#ifndef SLUICE_EXEC_MCP_STDIO_H
#define SLUICE_EXEC_MCP_STDIO_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The protocol revision our client speaks (initialize; MCP-Protocol-Version over HTTP). */
#define SLUICE_MCP_CLIENT_PROTOCOL "2025-06-18"

typedef struct sluice_mcp_stdio {
    int fd; /* the child's stdin and stdout; -1 when stopped */
    pid_t pid;
    json_int_t next_id; /* the last request id used */
    char *in;           /* bytes read and not yet split into lines (malloc) */
    size_t in_len, in_cap;
} sluice_mcp_stdio;

/* The monotonic clock in milliseconds (deadlines of the exchange). */

/* Starts argv[0] (searched in PATH) with argv[0..argc). SLUICE_E_IO with errno set when the
 * socket pair or the spawn fails; SLUICE_E_NOMEM. c is stopped on failure. */
sluice_status sluice_mcp_stdio_start(sluice_mcp_stdio *c, const char *const *argv, size_t argc);

/* Sends msg as one line and releases it (also on failure). SLUICE_E_IO when the server is gone;
 * SLUICE_E_NOMEM. */
sluice_status sluice_mcp_stdio_send(sluice_mcp_stdio *c, json_t *msg);

/* The bounds of one exchange: a deadline (monotonic ms), the bytes still allowed (what is read
 * is subtracted) and a cancellation flag checked every 50 ms (NULL: none). */
typedef struct sluice_mcp_bounds {
    int64_t deadline_ms;
    size_t budget;
    atomic_bool *cancelled;
} sluice_mcp_bounds;

/* A transport the handshake and the client drive without caring which it is (stdio here,
 * Streamable HTTP in exec/mcp_http.c). request is as sluice_mcp_stdio_request; notify sends a
 * message without an id and releases it; detail is what the last failure was, in words ("answered
 * HTTP 401 ..."), or NULL when the status says it all. */
typedef struct sluice_mcp_transport {
    void *self;
    sluice_status (*request)(void *self,
                             const char *method,
                             json_t *params,
                             sluice_mcp_bounds *b,
                             sluice_arena *arena,
                             json_t **response);
    sluice_status (*notify)(void *self, json_t *msg, sluice_mcp_bounds *b);
    const char *(*detail)(void *self);
} sluice_mcp_transport;

/* The JSON-RPC request id(method, params) (params stolen; NULL: {}), or NULL when out of
 * memory. Shared by both transports so both frame a request alike. */
json_t *sluice_mcp_request_message(json_int_t id, const char *method, json_t *params);

/* Whether m is the response to request id (not a request or notification of the server's). */
bool sluice_mcp_is_response(const json_t *m, json_int_t id);

/* The transport over a started stdio connection. */
sluice_mcp_transport sluice_mcp_stdio_transport(sluice_mcp_stdio *c);

/* Sends method(params) with the next id and reads until the response with that id (the
 * server's notifications, requests and other ids are skipped). params is stolen (NULL: {}). On
 * SLUICE_OK *response is the whole message (a new reference: result or error). Errors:
 * SLUICE_E_TIMEOUT, SLUICE_E_CANCELLED, SLUICE_E_LIMIT (the budget is spent), SLUICE_E_IO (the
 * server exited), SLUICE_E_NOMEM. */
sluice_status sluice_mcp_stdio_request(sluice_mcp_stdio *c,
                                       const char *method,
                                       json_t *params,
                                       sluice_mcp_bounds *b,
                                       sluice_arena *arena,
                                       json_t **response);

/* The JSON-RPC error message of a response, or NULL when it has a result object. */
const char *sluice_mcp_stdio_rpc_error(const json_t *response);

/* initialize (as client_name) and notifications/initialized over t. *refused is the server's
 * error message when it answered initialize with one (then SLUICE_E_IO), else NULL. Other errors
 * as t's request. */
sluice_status sluice_mcp_handshake(const sluice_mcp_transport *t,
                                   const char *client_name,
                                   sluice_mcp_bounds *b,
                                   sluice_arena *arena,
                                   const char **refused);

/* sluice_mcp_handshake over the stdio connection c. */
sluice_status sluice_mcp_stdio_handshake(sluice_mcp_stdio *c,
                                         const char *client_name,
                                         sluice_mcp_bounds *b,
                                         sluice_arena *arena,
                                         const char **refused);

/* Closes the pipe and reaps the child (SIGTERM, SIGKILL after SLUICE_LIMIT_MCP_CLIENT_STOP_MS).
 * Safe on a stopped or never-started connection (fd -1). */
void sluice_mcp_stdio_stop(sluice_mcp_stdio *c);

#endif
