/*
 * http.h — the MCP Streamable HTTP transport (2025-11-25) on libmicrohttpd.
 *
 * Owns: one endpoint (default /mcp; "" serves no MCP endpoint: an admin-only listener) taking POST
 * (one JSON-RPC message; the answer as JSON or as an SSE stream per the Accept header; 202 for
 * notifications and responses), GET (an SSE stream for messages not tied to a request) and DELETE
 * (ends the session); Mcp-Session-Id issued at initialize (32 random bytes, hex) and required after
 * (400 missing, 404 unknown or expired); MCP-Protocol-Version checked against the supported set
 * (400); Origin checked against an allowlist and Host against DNS rebinding (403); body size limit
 * (413); idle session expiry and a session cap; per-request authentication through a
 * sluice_authenticator (401 with its WWW-Authenticate), sessions bound to the identity that created
 * them.
 * The same endpoint serves MCP 2026-07-28 (transport/http_stateless.h), chosen per POST by what
 * the client sends: no session, no Mcp-Session-Id, the headers checked against the body (400
 * -32020), each request authenticated on its own; GET and DELETE under it are 405.
 * One thread per connection, so long SSE streams and blocking handlers never starve others.
 * Does not own: the protocol (mcp/), how identities are proven (auth/).
 */
#ifndef SLUICE_TRANSPORT_HTTP_H
#define SLUICE_TRANSPORT_HTTP_H

#include "auth/identity.h"
#include "core/arena.h"
#include "core/error.h"
#include "mcp/server.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_http_server sluice_http_server;

/* Serves GET requests on paths other than the MCP endpoint (e.g. the OAuth protected resource
 * metadata under /.well-known/). Returns a JSON body allocated in arena, or NULL for 404. These
 * paths are public: Host is checked, authentication is not. */
typedef const char *(*sluice_http_get_fn)(void *ctx, const char *path, sluice_arena *arena);

/* Serves POST requests on paths other than the MCP endpoint (the admin approval endpoint). Gets
 * the Authorization header and the whole body (at most max_body_bytes, else 413); returns the
 * HTTP status, or 0 for 404, with *out_body (JSON in arena) and *www_authenticate (a challenge
 * for 401, else NULL). Host and Origin are checked; MCP authentication is not: the handler
 * checks its own credential. */
typedef int (*sluice_http_post_fn)(void *ctx,
                                   const char *path,
                                   const char *authorization,
                                   const char *body,
                                   size_t len,
                                   sluice_arena *arena,
                                   const char **out_body,
                                   const char **www_authenticate);

typedef struct sluice_http_options {
    const char *bind_address;           /* default "127.0.0.1" (IPv6 literals allowed) */
    uint16_t port;                      /* 0 picks a free port (see sluice_http_port) */
    const char *path;                   /* default "/mcp" */
    const char *const *allowed_origins; /* exact "scheme://host[:port]"; none: loopback */
    size_t allowed_origin_count;
    const char *const *allowed_hosts; /* "host" (any port) or "host:port"; none: loopback */
    size_t allowed_host_count;
    size_t max_body_bytes;            /* default 1 MiB */
    size_t max_sessions;              /* default 256 */
    int64_t session_idle_seconds;     /* default 1800 */
    const char *resource_url;         /* canonical MCP URL for authenticators; default
                                         http://<bind>:<port><path> */
    bool prefer_json;                 /* JSON answers even when SSE is acceptable (then
                                         progress/logs/elicitation need the GET stream) */
    const sluice_identity *anonymous; /* identity when no authenticator is set; NULL =
                                         {"anonymous", method "none"} */
    sluice_http_get_fn get_handler;   /* optional, see above */
    void *get_ctx;
    sluice_http_post_fn post_handler; /* optional, see above */
    void *post_ctx;
    struct sluice_http_admin *admin; /* optional: /metrics, /healthz, /readyz, /admin/ (GET) */
} sluice_http_options;

/* Starts serving in background threads. auth may be NULL (no authentication: bind to loopback
 * only). server, auth and the option strings must outlive the returned handle. Errors:
 * SLUICE_E_IO (cannot bind), SLUICE_E_INVALID (bad bind address); err->message is fixed text. */
sluice_status sluice_http_start(sluice_mcp_server *server,
                                const sluice_http_options *options,
                                sluice_authenticator *auth,
                                sluice_http_server **out,
                                sluice_error *err);

/* The port actually bound (useful with port 0). */
uint16_t sluice_http_port(const sluice_http_server *http);

/* Live sessions right now (tests, metrics). */
size_t sluice_http_session_count(sluice_http_server *http);

/* Graceful stop, first half: from now on new MCP requests are refused (503, a JSON-RPC error
 * saying the server is shutting down); waits up to wait_ms for the requests already admitted to
 * complete (their answers sent). Returns how many are still running (0: drained). Call it again
 * to wait longer; sluice_http_stop then cancels whatever is left. NULL: returns 0. */
int sluice_http_drain(sluice_http_server *http, int wait_ms);

/* Ends every stream and session, stops the threads, frees. NULL does nothing. */
void sluice_http_stop(sluice_http_server *http);

/* Blocking form: start, serve until *stop becomes nonzero (a signal handler sets it), stop. */
sluice_status sluice_http_serve(sluice_mcp_server *server,
                                const sluice_http_options *options,
                                sluice_authenticator *auth,
                                volatile sig_atomic_t *stop,
                                sluice_error *err);

#endif
