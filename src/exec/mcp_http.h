/*
 * mcp_http.h — the Streamable HTTP transport of sluice's MCP client: a downstream MCP server
 * reached at a URL from config ([[code_mode.mcp_servers]] url), one JSON-RPC message per POST.
 *
 * Owns: the POST (Accept: application/json, text/event-stream; MCP-Protocol-Version; the
 * Mcp-Session-Id the server returned from initialize, carried on every later request), reading
 * the answer as JSON or as an SSE stream up to the event carrying the response id, the bounds
 * (deadline, byte budget, cancellation), the server-side bearer credential (token_env /
 * token_file, read at start; never the caller's), TLS verification always on, redirects off.
 * Does not own: the handshake and which methods follow (sluice_mcp_handshake, exec/mcp_client.c).
 * Not thread-safe: one exchange at a time per connection (the caller locks).
 */
#ifndef SLUICE_EXEC_MCP_HTTP_H
#define SLUICE_EXEC_MCP_HTTP_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/mcp_stdio.h"

#include <jansson.h>

typedef struct sluice_mcp_http sluice_mcp_http;

/* Prepares the connection to cfg->url and reads the credential. Errors, naming the server and
 * the setting (in err_arena): SLUICE_E_CONFIG (token_env not set or empty, a credential with
 * control characters or an empty token_file), SLUICE_E_IO (token_file unreadable),
 * SLUICE_E_NOMEM. Nothing is sent until the handshake. */
sluice_status sluice_mcp_http_start(sluice_mcp_http **out,
                                    const sluice_config_mcp_server *cfg,
                                    sluice_arena *err_arena,
                                    sluice_error *err);

/* The transport over h (request / notify / detail), for sluice_mcp_handshake and the client. */
sluice_mcp_transport sluice_mcp_http_transport(sluice_mcp_http *h);

/* Frees h (NULL is a no-op). */
void sluice_mcp_http_stop(sluice_mcp_http *h);

#endif
