/*
 * server_impl.h — private structures shared by server.c, session.c, call.c, methods.c,
 * observe.c and stateless.c.
 *
 * Owns: the layout of the server, session, call and pending server->client request, and the
 * locking rules below. Nothing outside src/mcp includes this file. It includes the server's
 * types (mcp/types.h), not its API (mcp/server.h), so the files that implement server.h may
 * include it without a circle.
 *
 * Locking: session->lock guards every mutable session field and each call's flags, hooks and
 * progress state. The core never holds session->lock while calling the sink or a cancel hook
 * (either may take the transport's own locks or call back into the session).
 * server->queue_lock guards only the job queue.
 */
#ifndef SLUICE_MCP_SERVER_IMPL_H
#define SLUICE_MCP_SERVER_IMPL_H

#include "core/arena.h"
#include "mcp/protocol.h"
#include "mcp/types.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct tool_entry {
    sluice_mcp_tool def; /* strings point into server->arena */
} tool_entry;

typedef struct prompt_entry {
    sluice_mcp_prompt def;
} prompt_entry;

typedef struct resource_entry {
    sluice_mcp_resource def;
} resource_entry;

struct sluice_mcp_server {
    sluice_arena *arena; /* registered names and texts; registration-time error messages */
    const char *name;
    const char *version;
    const char *instructions;
    int request_timeout_ms;
    size_t page_size;
    tool_entry *tools;
    size_t tool_count, tool_cap;
    prompt_entry *prompts;
    size_t prompt_count, prompt_cap;
    resource_entry *resources;
    size_t resource_count, resource_cap;
    sluice_mcp_tool_provider provider; /* provider.list == NULL: none */
    /* worker pool */
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_cond;
    sluice_mcp_call *queue_head, *queue_tail;
    bool stopping;
    pthread_t *workers;
    size_t worker_count;
    sluice_mcp_session_hooks session_hooks[SLUICE_MCP_MAX_SESSION_HOOKS];
    size_t session_hook_count;
};

typedef struct cancel_hook {
    void (*fn)(void *);
    void *data;
    struct cancel_hook *next;
} cancel_hook;

struct sluice_mcp_call {
    sluice_mcp_session *session;
    sluice_arena *arena;
    json_t *id;     /* the request id (own reference) */
    json_t *params; /* own reference; an empty object when the request had none */
    const char *method;
    sluice_identity identity;
    json_t *progress_token; /* own reference or NULL */
    double last_progress;
    bool sent_progress;
    atomic_bool cancelled;
    bool finished;  /* the response was committed; nothing related may follow it */
    bool on_reader; /* runs on the feeding thread: it must not wait for the client */
    cancel_hook *hooks;
    int hooks_running; /* cancellers running this call's hooks right now */
    /* A 2026-07-28 request (mcp/stateless.h): the capabilities and log level are this request's
     * own, never the session's, and no server->client request can be sent. */
    bool stateless;
    json_t *client_caps; /* stateless: params._meta clientCapabilities (own reference) */
    int log_level;       /* stateless: index of _meta logLevel; -1 sends no notifications/message */
    /* sluice_mcp_call_fail: answer with this JSON-RPC error instead of the handler's result. */
    int fail_code;            /* 0 = not failed */
    const char *fail_message; /* in the call arena */
    json_t *fail_data;        /* own reference or NULL */
    sluice_mcp_call *next_inflight;
    sluice_mcp_call *next_queued;
};

/* A server->client request waiting for its answer (lives on the waiting handler's stack). */
typedef struct pending_request {
    json_t *id;
    json_t *result; /* own reference once answered */
    json_t *error;
    bool done;
    struct pending_request *next;
} pending_request;

struct sluice_mcp_session {
    sluice_mcp_server *server;
    sluice_arena *arena; /* identity and session id */
    sluice_identity identity;
    const char *session_id;
    sluice_mcp_sink sink;
    pthread_mutex_t lock;
    pthread_cond_t cond;  /* broadcast on: call finished, answer arrived, cancel, close */
    const char *protocol; /* "" until initialize succeeded; then a static string */
    bool initialized;
    bool client_ready; /* notifications/initialized seen */
    json_t *client_caps;
    int log_level; /* mcp/log_level.h index; 0 (debug) until logging/setLevel */
    sluice_mcp_call *inflight;
    size_t inflight_count;
    pending_request *pending;
    unsigned long next_request_id;
    bool input_closed; /* no answer can arrive any more (EOF, session ending) */
    /* A reset arena kept for the next call run on the feeding thread (arena_new and its 8 KiB
     * block were a tenth of a round trip); NULL while one such call holds it. */
    sluice_arena *spare_arena;
    void *hook_state[SLUICE_MCP_MAX_SESSION_HOOKS]; /* what each attach hook set */
    size_t hooks_attached;                          /* attach hooks that succeeded */
};

/* ---- server.c ---------------------------------------------------------------------------------
 */
void sluice_mcp_pool_submit(sluice_mcp_server *server, sluice_mcp_call *call);
const tool_entry *sluice_mcp_find_tool(const sluice_mcp_server *server, const char *name);
const prompt_entry *sluice_mcp_find_prompt(const sluice_mcp_server *server, const char *name);
/* An exact resource, else the first template that matches uri; NULL when none. */
const resource_entry *sluice_mcp_find_resource(const sluice_mcp_server *server, const char *uri);
/* True when uri matches an RFC 6570 level-1 template ({var} = one or more chars but '/'). */
bool sluice_mcp_template_match(const char *tmpl, const char *uri);

/* ---- session.c --------------------------------------------------------------------------------
 */
/* Delivers msg (stolen) through the sink; must be called without session->lock held. */
void sluice_mcp_session_emit(sluice_mcp_session *session, json_t *msg, const json_t *related);
/* Runs one call (on a worker, or on the feeding thread when call->on_reader), answers it (unless
 * cancelled) and releases it. */
void sluice_mcp_call_run(sluice_mcp_call *call);
/* Marks call cancelled and detaches its hooks (counting them in hooks_running); the caller holds
 * session->lock and, after unlocking, passes them to sluice_mcp_run_hooks. */
cancel_hook *sluice_mcp_call_cancel_locked(sluice_mcp_call *call);
/* Runs hooks detached from call (NULL does nothing), then releases the call's hooks_running. */
void sluice_mcp_run_hooks(sluice_mcp_call *call, cancel_hook *hooks);
/* ---- observe.c: the request log line and metrics of one call ---------------------------------
 */
struct sluice_request;
void sluice_mcp_observe_begin(struct sluice_request *rq, const sluice_mcp_call *call);
void sluice_mcp_observe_end(struct sluice_request *rq, const json_t *result, int error_code);

/* ---- methods.c --------------------------------------------------------------------------------
 */
/* A JSON-RPC error answer being built by a method; message lives in the call arena. */
typedef struct rpc_error {
    int code;
    const char *message;
    json_t *data; /* own reference or NULL */
} rpc_error;

/* Runs a method other than initialize and ping. Returns the result object (new reference) or
 * NULL with *e filled. */
json_t *sluice_mcp_dispatch(sluice_mcp_call *call, rpc_error *e);

#endif
