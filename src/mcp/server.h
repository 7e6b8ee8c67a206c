/*
 * server.h — the MCP server core: lifecycle, registries, dispatch, and the per-call context.
 *
 * Owns: initialize / version negotiation (the revisions in mcp/protocol.h), capabilities,
 * ping, tools/prompts/resources registries with cursor pagination, argument validation against
 * each tool's inputSchema before the handler runs, logging/setLevel and log notifications,
 * progress notifications, cancellation (notifications/cancelled really stops the call), and
 * server-initiated requests (elicitation/create, sampling/createMessage, roots/list) whose
 * responses are routed back to the waiting handler, with a timeout.
 * Does not own: bytes on the wire (transport/stdio.c, transport/http.c turn frames into calls
 * to sluice_mcp_session_* and deliver what the session emits), nor what any tool does.
 *
 * Threads: handlers run on worker threads; a session serves many calls at once. A request that
 * cannot block (anything but tools/call, prompts/get and resources/read, and tools/call of a tool
 * registered inline_ok) runs on the feeding thread instead when the session has no call in
 * flight, which saves a thread hand-off per call; such a call borrows the frame's values and a
 * recycled arena instead of copying. Everything a handler allocates goes in its call arena,
 * freed (or reset) after the response is written.
 * Ownership of jansson values: the *_add functions take ownership of the json_t they are given
 * (they steal the reference); a handler's *out_result is owned by the core after return.
 * The types these functions take (the handles, definitions, handler signatures, options,
 * provider, session hooks and sink) are in mcp/types.h, which this header includes.
 */
#ifndef SLUICE_MCP_SERVER_H
#define SLUICE_MCP_SERVER_H

#include "auth/identity.h"
#include "core/arena.h"
#include "core/error.h"
#include "mcp/types.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- server ------------------------------------------------------------------------------- */

sluice_status sluice_mcp_server_new(const sluice_mcp_server_options *options,
                                    sluice_mcp_server **out,
                                    sluice_error *err);
void sluice_mcp_server_free(sluice_mcp_server *server);

/* Registration happens before the server serves; names must be unique (SLUICE_E_INVALID). */
sluice_status sluice_mcp_server_add_tool(sluice_mcp_server *server,
                                         const sluice_mcp_tool *tool,
                                         sluice_error *err);
sluice_status sluice_mcp_server_add_prompt(sluice_mcp_server *server,
                                           const sluice_mcp_prompt *prompt,
                                           sluice_error *err);
sluice_status sluice_mcp_server_add_resource(sluice_mcp_server *server,
                                             const sluice_mcp_resource *resource,
                                             sluice_error *err);

/* Sets the one provider (copied; mcp/types.h says what it serves) before the server serves.
 * SLUICE_E_INVALID when one is set already or a function is missing. */
sluice_status sluice_mcp_server_set_tool_provider(sluice_mcp_server *server,
                                                  const sluice_mcp_tool_provider *provider,
                                                  sluice_error *err);

/* ---- session lifecycle hooks ----------------------------------------------------------------- */

/* Registers hooks (copied) before the server serves; *out_slot (may be NULL) names them for
 * sluice_mcp_call_session_state. At most SLUICE_MCP_MAX_SESSION_HOOKS registrations
 * (SLUICE_E_LIMIT); attach must not be NULL (SLUICE_E_INVALID). Hooks run in registration
 * order on attach and in reverse order on close. */
sluice_status sluice_mcp_server_add_session_hooks(sluice_mcp_server *server,
                                                  const sluice_mcp_session_hooks *hooks,
                                                  size_t *out_slot,
                                                  sluice_error *err);

/* ---- sessions (used by the transports) ------------------------------------------------------ */

/* Creates a session and runs the attach hooks. SLUICE_E_NOMEM, or the status of a refusing
 * attach hook; nothing is left allocated then. */
sluice_status sluice_mcp_session_new(sluice_mcp_server *server,
                                     const sluice_identity *identity,
                                     const char *session_id,
                                     sluice_mcp_sink sink,
                                     sluice_mcp_session **out);
/* A session for stateless (2026-07-28) requests only, e.g. one per HTTP request: no attach
 * hooks run (there is no session to keep state for; sluice_mcp_call_session_state is NULL) and
 * its id is "". It still serves handshake requests if fed some; the HTTP transport does not.
 * SLUICE_E_NOMEM. */
sluice_status sluice_mcp_session_new_stateless(sluice_mcp_server *server,
                                               const sluice_identity *identity,
                                               sluice_mcp_sink sink,
                                               sluice_mcp_session **out);

/* Cancels in-flight calls, waits for them, runs the close hooks, frees. */
void sluice_mcp_session_free(sluice_mcp_session *session);

/* Feeds one raw frame (a JSON-RPC message). Malformed frames are answered with the right
 * JSON-RPC error through the sink. Requests are dispatched to worker threads (cheap ones may be
 * answered before this returns, see Threads above); notifications and responses are handled
 * inline. Returns SLUICE_E_INVALID when the frame was not acceptable
 * (the HTTP transport then answers 400), SLUICE_OK otherwise. *out_kind tells the transport
 * what it was: 'q' request, 'n' notification, 'r' response, 'x' invalid. */
sluice_status sluice_mcp_session_feed(sluice_mcp_session *session,
                                      const char *frame,
                                      size_t len,
                                      const sluice_identity *identity,
                                      char *out_kind);

/* As sluice_mcp_session_feed, for a frame the transport already parsed (the HTTP transport
 * classifies each body itself to pick its status code). msg is borrowed. */
sluice_status sluice_mcp_session_feed_value(sluice_mcp_session *session,
                                            json_t *msg,
                                            const sluice_identity *identity,
                                            char *out_kind);

/* The input side is gone (stdio EOF): server->client requests fail at once with SLUICE_E_IO, and
 * this waits until every in-flight call has answered. Call before sluice_mcp_session_free to
 * finish work instead of cancelling it. */
void sluice_mcp_session_drain(sluice_mcp_session *session);

/* Cancels the in-flight call with JSON-RPC id (as notifications/cancelled would): the transport
 * calls it when the client that sent the request went away. Unknown or finished ids, and NULL,
 * are ignored. */
void sluice_mcp_session_cancel_request(sluice_mcp_session *session, const json_t *id);

/* Negotiated protocol version ("" before initialize). */
const char *sluice_mcp_session_protocol(const sluice_mcp_session *session);
bool sluice_mcp_session_initialized(const sluice_mcp_session *session);

/* ---- inside a handler ------------------------------------------------------------------------ */

sluice_arena *sluice_mcp_call_arena(sluice_mcp_call *call);
const sluice_identity *sluice_mcp_call_identity(const sluice_mcp_call *call);
const char *sluice_mcp_call_session_id(const sluice_mcp_call *call);
/* The state the attach hook registered as slot set for this call's session (NULL when none or
 * for an unknown slot). */
void *sluice_mcp_call_session_state(const sluice_mcp_call *call, size_t slot);
/* The client's declared capabilities: from initialize, or for a stateless request from its own
 * _meta (may be an empty object; NULL before initialize). */
const json_t *sluice_mcp_call_client_capabilities(const sluice_mcp_call *call);

/* ---- stateless requests (2026-07-28) and multi round-trip results ------------------------------
 * A stateless request has no session: sluice_mcp_call_session_id is "" and
 * sluice_mcp_call_request fails (SLUICE_E_UNSUPPORTED). A handler that needs the client's input
 * returns sluice_mcp_input_required(...) as its result instead; the client retries the same
 * request with params.inputResponses and the echoed params.requestState. requestState comes
 * back from the client: a handler that trusts it must verify its integrity (a MAC) first. */
bool sluice_mcp_call_stateless(const sluice_mcp_call *call);
/* params.inputResponses when it is an object, else NULL (also for handshake requests). */
const json_t *sluice_mcp_call_input_responses(const sluice_mcp_call *call);
/* params.requestState when it is a string, else NULL. */
const char *sluice_mcp_call_request_state(const sluice_mcp_call *call);
/* An InputRequiredResult {resultType:"input_required", inputRequests?, requestState?};
 * input_requests (an object of {method, params}) is stolen and may be NULL, request_state may
 * be NULL, but not both. NULL when out of memory or both are missing. Tool and prompt handlers
 * may return it (the revision allows it on tools/call, prompts/get and resources/read); the core
 * passes it through unchanged but for resultType's siblings in _meta. */
json_t *sluice_mcp_input_required(json_t *input_requests, const char *request_state);
/* Makes the call answer with the JSON-RPC error {code, message, data} instead of whatever the
 * handler returns (for errors the protocol defines as errors, not tool results: -32021
 * MissingRequiredClientCapability, -32602 for a tampered requestState). data is stolen, may be
 * NULL. The first failure wins. */
void sluice_mcp_call_fail(sluice_mcp_call *call, int code, const char *message, json_t *data);
bool sluice_mcp_call_cancelled(const sluice_mcp_call *call);

/* Registers fn(data) to run (on another thread) the moment the call is cancelled; used to
 * interrupt a database engine. Runs at once if the call is already cancelled. */
void sluice_mcp_call_on_cancel(sluice_mcp_call *call, void (*fn)(void *), void *data);

/* Unregisters every hook and waits until none is running, so the handler may then free what the
 * hooks use (close the engine connection a hook interrupts). The core also waits for running
 * hooks before it frees the call. */
void sluice_mcp_call_clear_cancel_hooks(sluice_mcp_call *call);

/* notifications/progress, only when the client sent a progressToken (else a no-op). */
void sluice_mcp_call_progress(sluice_mcp_call *call,
                              double progress,
                              double total,
                              const char *message);

/* notifications/message at level ("info", ...), if at or above the session's level. data is
 * stolen (like the *_add functions); an unknown level drops the message. */
void sluice_mcp_call_log(sluice_mcp_call *call,
                         const char *level,
                         const char *logger,
                         json_t *data);

/* Sends a server->client request (elicitation/create, sampling/createMessage, roots/list) and
 * waits for the response. *out_result is the result object (owned by the caller); a JSON-RPC
 * error from the client is SLUICE_E_DENIED with its message; no answer within timeout_ms
 * (<= 0: the server default) is SLUICE_E_TIMEOUT; cancellation is SLUICE_E_CANCELLED. */
sluice_status sluice_mcp_call_request(sluice_mcp_call *call,
                                      const char *method,
                                      json_t *params,
                                      int timeout_ms,
                                      json_t **out_result,
                                      sluice_error *err);

#endif
