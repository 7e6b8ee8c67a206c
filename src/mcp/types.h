/*
 * types.h — the MCP server's public types: the handles, the tool, prompt and resource
 * definitions and their handler signatures, the server options, the tool provider, the session
 * hooks and the sink.
 *
 * Owns: the types only. They sit below the server's API (server.h, which includes this file, so
 * its users see no change) and below its private layout (server_impl.h), so the files that
 * implement the server read the layout without the layout including the API: server.c,
 * session.c and call.c implement server.h and include both; methods.c, observe.c and
 * stateless.c read the layout and never call back through server.h.
 * Does not own: any function (server.h declares the API, server_impl.h the internal calls).
 */
#ifndef SLUICE_MCP_TYPES_H
#define SLUICE_MCP_TYPES_H

#include "auth/identity.h"
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

/* At most this many sluice_mcp_server_add_session_hooks registrations per server. */
#define SLUICE_MCP_MAX_SESSION_HOOKS 8u

/* ---- sessions ----------------------------------------------------------------------------- */

/* Where a session's outgoing messages go. The transport decides the stream: for HTTP, messages
 * related to an in-flight request (progress, logs, elicitation, the response) go on that
 * request's SSE stream, others on the GET stream. related_request_id is NULL for unrelated ones.
 * send() takes ownership of msg. Must be thread-safe. */
typedef struct sluice_mcp_sink {
    void (*send)(void *ctx, json_t *msg, const json_t *related_request_id);
    void *ctx;
} sluice_mcp_sink;

#endif
