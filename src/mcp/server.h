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
 */
#ifndef SLUICE_MCP_SERVER_H
#define SLUICE_MCP_SERVER_H

#include "auth/identity.h"
#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_mcp_server sluice_mcp_server;
typedef struct sluice_mcp_session sluice_mcp_session;
typedef struct sluice_mcp_call sluice_mcp_call;

/* ---- registries --------------------------------------------------------------------------- */

/* A tool handler fills *out_result with a CallToolResult object ({content, structuredContent?,
 * isError?}). Returning non-OK makes the core answer a tool result with isError:true and the
 * error message (never a protocol error): tool failures are results, as 2025-11-25 asks. */
typedef sluice_status (*sluice_mcp_tool_fn)(sluice_mcp_call *call,
                                            json_t *arguments,
                                            json_t **out_result,
                                            sluice_error *err,
                                            void *userdata);

/* Told when a call's arguments fail the tool's input schema, before the core answers it with
 * an isError result carrying message; the tool never runs. For a tool whose every refusal must
 * leave a trace (execute_code's denial record). arguments may be any JSON value. */
typedef void (*sluice_mcp_tool_rejected_fn)(sluice_mcp_call *call,
                                            const json_t *arguments,
                                            const char *message,
                                            void *userdata);

typedef struct sluice_mcp_tool {
    const char *name;
    const char *title; /* optional */
    const char *description;
    json_t *input_schema;  /* stolen; root type "object" */
    json_t *output_schema; /* stolen; optional */
    json_t *annotations;   /* stolen; optional */
    sluice_mcp_tool_fn fn;
    void *userdata;
    sluice_mcp_tool_rejected_fn on_rejected; /* optional */
    /* The handler is quick and never waits (no I/O, no sluice_mcp_call_request, which fails for
     * it with SLUICE_E_INVALID): it may run on the transport's reader thread, which reads
     * nothing else meanwhile (on stdio not even notifications/cancelled). Default false. */
    bool inline_ok;
} sluice_mcp_tool;

/* Fills *out_result with a GetPromptResult ({description?, messages}). SLUICE_E_INVALID becomes
 * JSON-RPC -32602 (missing argument), anything else -32603. */
typedef sluice_status (*sluice_mcp_prompt_fn)(sluice_mcp_call *call,
                                              json_t *arguments,
                                              json_t **out_result,
                                              sluice_error *err,
                                              void *userdata);

typedef struct sluice_mcp_prompt {
    const char *name;
    const char *title;
    const char *description;
    json_t *arguments; /* stolen; array of {name, description?, required?} or NULL */
    sluice_mcp_prompt_fn fn;
    void *userdata;
} sluice_mcp_prompt;

/* Fills *out_contents with the ReadResourceResult "contents" array for uri. SLUICE_E_NOT_FOUND
 * becomes -32002 with data {uri}. Used for both fixed resources and templates. */
typedef sluice_status (*sluice_mcp_resource_fn)(sluice_mcp_call *call,
                                                const char *uri,
                                                json_t **out_contents,
                                                sluice_error *err,
                                                void *userdata);

typedef struct sluice_mcp_resource {
    const char *uri; /* for templates: the RFC 6570 uriTemplate ("test://t/{id}/data") */
    const char *name;
    const char *title;
    const char *description;
    const char *mime_type;
    bool is_template;
    bool subscribable;
    sluice_mcp_resource_fn fn;
    void *userdata;
} sluice_mcp_resource;

/* ---- server ------------------------------------------------------------------------------- */

typedef struct sluice_mcp_server_options {
    const char *name;         /* serverInfo.name */
    const char *version;      /* serverInfo.version */
    const char *instructions; /* optional */
    size_t worker_threads;    /* handlers run here; default 4 */
    int request_timeout_ms;   /* server->client requests; default 60000 */
    size_t page_size;         /* items per list page; default SLUICE_LIMIT_PAGE_SIZE */
} sluice_mcp_server_options;

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

/* Tools that come and go while the server runs (saved programs, promoted and demoted by an
 * administrator in another process), beside the fixed registry. list appends this call's
 * caller's tools ({name, description, inputSchema, ...}, MCP Tool objects) to items for
 * tools/list: they follow the registered tools on the last page. call answers a tools/call of
 * a name no registered tool has, as a tool handler does, and validates the arguments itself;
 * SLUICE_E_NOT_FOUND (err unset) means it has no tool by that name, and the core answers
 * "unknown tool". Both run on worker threads and may do I/O. */
typedef struct sluice_mcp_tool_provider {
    sluice_status (*list)(sluice_mcp_call *call, json_t *items, void *userdata);
    sluice_status (*call)(sluice_mcp_call *call,
                          const char *name,
                          json_t *arguments,
                          json_t **out_result,
                          sluice_error *err,
                          void *userdata);
    void *userdata;
} sluice_mcp_tool_provider;

/* Sets the one provider (copied) before the server serves. SLUICE_E_INVALID when one is set
 * already or a function is missing. */
sluice_status sluice_mcp_server_set_tool_provider(sluice_mcp_server *server,
                                                  const sluice_mcp_tool_provider *provider,
                                                  sluice_error *err);

/* ---- session lifecycle hooks ----------------------------------------------------------------- */

/* Lets a layer above keep per-session state (query mode's backend per MCP session) without the
 * transports knowing: attach runs when a transport creates a session (stdio: once per process;
 * HTTP: at initialize), close when it ends (stdio EOF, HTTP DELETE, idle expiry, shutdown),
 * after every call of the session has finished, so no handler still sees the state. Both run
 * on the transport's thread, never under a core lock. */
typedef struct sluice_mcp_session_hooks {
    /* May set *state (NULL by default), later read by handlers through
     * sluice_mcp_call_session_state and handed to close. Non-OK refuses the session:
     * sluice_mcp_session_new fails with that status (hooks attached before get their close). */
    sluice_status (*attach)(void *ctx,
                            const char *session_id,
                            const sluice_identity *identity,
                            void **state);
    /* Must release what attach set up; cannot fail. NULL when there is nothing to release. */
    void (*close)(void *ctx, const char *session_id, void *state);
    void *ctx;
} sluice_mcp_session_hooks;

/* Registers hooks (copied) before the server serves; *out_slot (may be NULL) names them for
 * sluice_mcp_call_session_state. At most SLUICE_MCP_MAX_SESSION_HOOKS registrations
 * (SLUICE_E_LIMIT); attach must not be NULL (SLUICE_E_INVALID). Hooks run in registration
 * order on attach and in reverse order on close. */
#define SLUICE_MCP_MAX_SESSION_HOOKS 8u
sluice_status sluice_mcp_server_add_session_hooks(sluice_mcp_server *server,
                                                  const sluice_mcp_session_hooks *hooks,
                                                  size_t *out_slot,
                                                  sluice_error *err);

/* ---- sessions (used by the transports) ------------------------------------------------------ */

/* Where a session's outgoing messages go. The transport decides the stream: for HTTP, messages
 * related to an in-flight request (progress, logs, elicitation, the response) go on that
 * request's SSE stream, others on the GET stream. related_request_id is NULL for unrelated ones.
 * send() takes ownership of msg. Must be thread-safe. */
typedef struct sluice_mcp_sink {
    void (*send)(void *ctx, json_t *msg, const json_t *related_request_id);
    void *ctx;
} sluice_mcp_sink;

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
