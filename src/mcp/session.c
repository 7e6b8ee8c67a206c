/*
 * session.c — one MCP conversation: lifecycle, frame intake, cancellation, answer routing.
 *
 * Owns: initialize and version negotiation, refusing anything but ping before it (a stateless
 * 2026-07-28 request needs no initialize: mcp/stateless.h checks its envelope and it runs with
 * its own _meta capabilities and log level), turning each
 * request into a call with its own arena (recycled for calls run on the feeding thread) and
 * running it inline or queueing it on the worker pool, notifications from the client
 * (initialized, cancelled), routing the client's answers to server->client requests back to the
 * handler waiting for them, running the session attach/close hooks, and tearing down (drain or
 * cancel, then wait).
 * Does not own: method semantics (methods.c), what handlers may do (call.c), transports.
 */
#include "core/limits.h"
#include "core/log.h"
#include "core/request.h"
#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"
#include "mcp/server.h"
#include "mcp/server_impl.h"
#include "mcp/stateless.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sluice_identity anonymous = { "anonymous", NULL, 0, "none" };

/* ---- lifetime ----------------------------------------------------------------------------------
 */

/* Runs the server's attach hooks in order; stops at the first refusal (the ones attached so far
 * are closed by sluice_mcp_session_free). */
static sluice_status attach_hooks(sluice_mcp_session *s)
{
    const sluice_mcp_server *server = s->server;
    for (size_t i = 0; i < server->session_hook_count; i++) {
        const sluice_mcp_session_hooks *h = &server->session_hooks[i];
        void *state = NULL;
        sluice_status st = h->attach(h->ctx, s->session_id, &s->identity, &state);
        if (st != SLUICE_OK)
            return st;
        s->hook_state[i] = state;
        s->hooks_attached = i + 1;
    }
    return SLUICE_OK;
}

/* Runs the close hooks of the attached registrations, last attached first. */
static void close_hooks(sluice_mcp_session *s)
{
    for (size_t i = s->hooks_attached; i > 0; i--) {
        const sluice_mcp_session_hooks *h = &s->server->session_hooks[i - 1];
        if (h->close != NULL)
            h->close(h->ctx, s->session_id, s->hook_state[i - 1]);
    }
    s->hooks_attached = 0;
}

static sluice_status session_new(sluice_mcp_server *server,
                                 const sluice_identity *identity,
                                 const char *session_id,
                                 sluice_mcp_sink sink,
                                 bool hooks,
                                 sluice_mcp_session **out);

sluice_status sluice_mcp_session_new(sluice_mcp_server *server,
                                     const sluice_identity *identity,
                                     const char *session_id,
                                     sluice_mcp_sink sink,
                                     sluice_mcp_session **out)
{
    return session_new(server, identity, session_id, sink, true, out);
}

sluice_status sluice_mcp_session_new_stateless(sluice_mcp_server *server,
                                               const sluice_identity *identity,
                                               sluice_mcp_sink sink,
                                               sluice_mcp_session **out)
{
    return session_new(server, identity, "", sink, false, out);
}

static sluice_status session_new(sluice_mcp_server *server,
                                 const sluice_identity *identity,
                                 const char *session_id,
                                 sluice_mcp_sink sink,
                                 bool hooks,
                                 sluice_mcp_session **out)
{
    sluice_mcp_session *s = calloc(1, sizeof *s);
    sluice_arena *arena = sluice_arena_new();
    if (s == NULL || arena == NULL) {
        free(s);
        sluice_arena_free(arena);
        return SLUICE_E_NOMEM;
    }
    s->server = server;
    s->arena = arena;
    s->sink = sink;
    s->protocol = "";
    s->identity = anonymous;
    s->session_id = sluice_arena_strdup(arena, session_id != NULL ? session_id : "");
    if (s->session_id == NULL ||
        (identity != NULL && sluice_identity_copy(arena, identity, &s->identity) != SLUICE_OK)) {
        sluice_arena_free(arena);
        free(s);
        return SLUICE_E_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    sluice_status st = hooks ? attach_hooks(s) : SLUICE_OK;
    if (st != SLUICE_OK) {
        sluice_mcp_session_free(s);
        return st;
    }
    *out = s;
    return SLUICE_OK;
}

static void wait_idle_locked(sluice_mcp_session *s)
{
    while (s->inflight_count > 0)
        pthread_cond_wait(&s->cond, &s->lock);
}

void sluice_mcp_session_drain(sluice_mcp_session *session)
{
    pthread_mutex_lock(&session->lock);
    session->input_closed = true;
    pthread_cond_broadcast(&session->cond);
    wait_idle_locked(session);
    pthread_mutex_unlock(&session->lock);
}

void sluice_mcp_session_free(sluice_mcp_session *session)
{
    if (session == NULL)
        return;
    pthread_mutex_lock(&session->lock);
    session->input_closed = true;
    pthread_cond_broadcast(&session->cond);
    /* Cancel one call at a time: its hooks run unlocked, and the call stays alive until they
     * are done (call_run waits on hooks_running), so restarting the scan is safe. */
    for (sluice_mcp_call *c = session->inflight; c != NULL;) {
        cancel_hook *hooks = sluice_mcp_call_cancel_locked(c);
        if (hooks == NULL) {
            c = c->next_inflight;
            continue;
        }
        pthread_mutex_unlock(&session->lock);
        sluice_mcp_run_hooks(c, hooks);
        pthread_mutex_lock(&session->lock);
        c = session->inflight;
    }
    wait_idle_locked(session);
    pthread_mutex_unlock(&session->lock);
    close_hooks(session); /* no call is left that could still use the hooks' state */
    sluice_arena_free(session->spare_arena);
    json_decref(session->client_caps);
    pthread_mutex_destroy(&session->lock);
    pthread_cond_destroy(&session->cond);
    sluice_arena_free(session->arena);
    free(session);
}

const char *sluice_mcp_session_protocol(const sluice_mcp_session *session)
{
    return session->protocol;
}

bool sluice_mcp_session_initialized(const sluice_mcp_session *session)
{
    return session->initialized;
}

void sluice_mcp_session_emit(sluice_mcp_session *session, json_t *msg, const json_t *related)
{
    if (msg == NULL)
        return;
    if (session->sink.send == NULL) {
        json_decref(msg);
        return;
    }
    session->sink.send(session->sink.ctx, msg, related);
}

static void answer_error(sluice_mcp_session *s, const json_t *id, int code, const char *message)
{
    sluice_mcp_session_emit(s, sluice_jsonrpc_error(id, code, message, NULL), id);
}

/* ---- cancellation ------------------------------------------------------------------------------
 */

cancel_hook *sluice_mcp_call_cancel_locked(sluice_mcp_call *call)
{
    if (call->finished || atomic_exchange(&call->cancelled, true))
        return NULL;
    cancel_hook *hooks = call->hooks;
    call->hooks = NULL;
    if (hooks != NULL)
        call->hooks_running++;
    return hooks;
}

void sluice_mcp_run_hooks(sluice_mcp_call *call, cancel_hook *hooks)
{
    if (hooks == NULL)
        return;
    for (cancel_hook *h = hooks; h != NULL; h = h->next)
        h->fn(h->data);
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    call->hooks_running--;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static sluice_mcp_call *find_inflight_locked(sluice_mcp_session *s, const json_t *id)
{
    for (sluice_mcp_call *c = s->inflight; c != NULL; c = c->next_inflight)
        if (json_equal(c->id, (json_t *)id))
            return c;
    return NULL;
}

void sluice_mcp_session_cancel_request(sluice_mcp_session *s, const json_t *id)
{
    if (s == NULL || (!json_is_string(id) && !json_is_integer(id)))
        return;
    pthread_mutex_lock(&s->lock);
    sluice_mcp_call *call = find_inflight_locked(s, id);
    cancel_hook *hooks = call != NULL ? sluice_mcp_call_cancel_locked(call) : NULL;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    sluice_mcp_run_hooks(call, hooks);
}

/* notifications/cancelled {requestId, reason?}: unknown or finished ids are ignored. */
static void on_cancelled(sluice_mcp_session *s, const json_t *params)
{
    sluice_mcp_session_cancel_request(s, json_object_get(params, "requestId"));
}

/* ---- initialize and ping (answered inline, in frame order) -------------------------------------
 */

static const char *negotiate(const char *requested)
{
    const char *known = sluice_mcp_protocol_find(requested);
    return known != NULL ? known : sluice_mcp_protocols[0];
}

static json_t *initialize_result(const sluice_mcp_server *server, const char *protocol)
{
    json_t *caps = json_pack("{s:{s:b}, s:{s:b}, s:{s:b, s:b}, s:{}, s:{}}", "tools", "listChanged",
                             0, "prompts", "listChanged", 0, "resources", "subscribe", 1,
                             "listChanged", 0, "logging", "completions");
    json_t *info = json_pack("{s:s, s:s}", "name", server->name, "version", server->version);
    json_t *result = json_pack("{s:s, s:o, s:o}", "protocolVersion", protocol, "capabilities", caps,
                               "serverInfo", info);
    if (result != NULL && server->instructions != NULL)
        json_object_set_new(result, "instructions", json_string(server->instructions));
    return result;
}

static void on_initialize(sluice_mcp_session *s, const json_t *id, const json_t *params)
{
    const json_t *version = json_object_get(params, "protocolVersion");
    const json_t *caps = json_object_get(params, "capabilities");
    if (!json_is_string(version)) {
        answer_error(s, id, SLUICE_JSONRPC_INVALID_PARAMS,
                     "initialize needs 'params.protocolVersion' (a string such as "
                     "\"" SLUICE_MCP_LATEST_PROTOCOL "\")");
        return;
    }
    if (caps != NULL && !json_is_object(caps)) {
        answer_error(s, id, SLUICE_JSONRPC_INVALID_PARAMS,
                     "'params.capabilities' must be an object");
        return;
    }
    const char *protocol = negotiate(json_string_value(version));
    pthread_mutex_lock(&s->lock);
    bool again = s->initialized;
    if (!again) {
        s->client_caps = caps != NULL ? json_deep_copy(caps) : json_object();
        s->protocol = protocol;
        s->initialized = true;
    }
    pthread_mutex_unlock(&s->lock);
    if (again) {
        answer_error(s, id, SLUICE_JSONRPC_INVALID_REQUEST,
                     "the session is already initialized; start a new session to initialize "
                     "again");
        return;
    }
    sluice_mcp_session_emit(s, sluice_jsonrpc_result(id, initialize_result(s->server, protocol)),
                            id);
}

/* ---- requests ----------------------------------------------------------------------------------
 */

/* A call's arena: the session's spare for a call run on the reader (the caller holds s->lock),
 * else a new one. */
static sluice_arena *call_arena_locked(sluice_mcp_session *s, bool on_reader)
{
    if (on_reader && s->spare_arena != NULL) {
        sluice_arena *arena = s->spare_arena;
        s->spare_arena = NULL;
        return arena;
    }
    return sluice_arena_new();
}

/* Builds the call for a request (caller holds s->lock); NULL when out of memory. */
static sluice_mcp_call *call_new(sluice_mcp_session *s,
                                 const sluice_jsonrpc_frame *frame,
                                 const sluice_identity *identity,
                                 bool on_reader,
                                 bool stateless)
{
    sluice_arena *arena = call_arena_locked(s, on_reader);
    sluice_mcp_call *call = arena != NULL ? sluice_arena_calloc(arena, 1, sizeof *call) : NULL;
    if (call == NULL) {
        sluice_arena_free(arena);
        return NULL;
    }
    call->on_reader = on_reader;
    call->session = s;
    call->arena = arena;
    call->method = sluice_arena_strdup(arena, frame->method);
    call->identity = s->identity;
    if (call->method == NULL ||
        (identity != NULL && sluice_identity_copy(arena, identity, &call->identity) != SLUICE_OK)) {
        sluice_arena_free(arena);
        return NULL;
    }
    atomic_init(&call->cancelled, false);
    /* A worker gets deep copies: the frame's root is freed on the feed thread while the worker
     * runs, and jansson's reference counts give no ordering between threads. A call run on the
     * feeding thread ends before the frame is freed, so it borrows (copies were a tenth of a
     * round trip). */
    call->id = on_reader ? json_incref(frame->id) : json_deep_copy(frame->id);
    if (frame->params == NULL)
        call->params = json_object();
    else
        call->params = on_reader ? json_incref(frame->params) : json_deep_copy(frame->params);
    json_t *meta = json_object_get(call->params, "_meta");
    json_t *token = json_object_get(meta, "progressToken");
    if (json_is_string(token) || json_is_integer(token))
        call->progress_token = json_incref(token);
    call->stateless = stateless;
    if (stateless) { /* the envelope was checked: both fields are there and well typed */
        call->client_caps = json_incref(json_object_get(meta, SLUICE_MCP_META_CLIENT_CAPS));
        call->log_level = sluice_mcp_log_level_index(
            json_string_value(json_object_get(meta, SLUICE_MCP_META_LOG_LEVEL)));
    }
    return call;
}

/* Drops the call's values; returns its arena (where the call itself lives) for the caller to
 * free or recycle. */
static sluice_arena *call_release(sluice_mcp_call *call)
{
    json_decref(call->id);
    json_decref(call->params);
    json_decref(call->progress_token);
    json_decref(call->client_caps);
    json_decref(call->fail_data);
    return call->arena;
}

/* Keeps a finished reader call's arena as the session's spare (the feeding thread may touch the
 * session: the transport keeps it alive while it feeds). */
static void recycle_arena(sluice_mcp_session *s, sluice_arena *arena)
{
    sluice_arena_reset(arena);
    pthread_mutex_lock(&s->lock);
    if (s->spare_arena == NULL) {
        s->spare_arena = arena;
        arena = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    sluice_arena_free(arena);
}

/* Requests that cannot block run on the feeding thread: handing them to a worker costs a thread
 * wake-up, which on a loaded machine is milliseconds of tail latency. Prompt and resource
 * handlers, and tools not registered inline_ok, may take long or wait for the client, and the
 * reader must stay free for notifications/cancelled and the client's answers. */
static bool cannot_block(const sluice_mcp_server *server, const sluice_jsonrpc_frame *frame)
{
    const char *m = frame->method;
    if (strcmp(m, "prompts/get") == 0 || strcmp(m, "resources/read") == 0)
        return false;
    if (strcmp(m, "tools/call") != 0)
        return true;
    const char *name = json_string_value(json_object_get(frame->params, "name"));
    const tool_entry *tool = name != NULL ? sluice_mcp_find_tool(server, name) : NULL;
    return tool != NULL && tool->def.inline_ok;
}

static sluice_arena *run_call(sluice_mcp_call *call);

/* A stateless request answered without a call: a refused envelope, or server/discover (it
 * reads only the registry). True when answered. */
static bool answer_stateless_inline(sluice_mcp_session *s, const sluice_jsonrpc_frame *frame)
{
    json_t *msg = NULL;
    bool ok = sluice_mcp_stateless_check(frame->id, frame->method, frame->params, &msg);
    if (ok && strcmp(frame->method, "server/discover") != 0)
        return false;
    if (ok) {
        json_t *result = sluice_mcp_discover_result(s->server);
        msg = result != NULL ? sluice_jsonrpc_result(frame->id, result) : NULL;
    }
    if (msg == NULL)
        answer_error(s, frame->id, SLUICE_JSONRPC_INTERNAL_ERROR, "out of memory");
    else
        sluice_mcp_session_emit(s, msg, frame->id);
    return true;
}

/* Whether a request that cannot block runs on the feeding thread (caller holds s->lock): only
 * with nothing in flight, so a cheap call never queues behind, nor delays, others. */
static bool runs_on_reader(const sluice_mcp_session *s, bool inline_ok)
{
    return s->inflight_count == 0 && inline_ok;
}

static void on_request(sluice_mcp_session *s,
                       const sluice_jsonrpc_frame *frame,
                       const sluice_identity *identity)
{
    const char *method = frame->method;
    bool stateless = sluice_mcp_stateless_request(method, frame->params);
    if (stateless) {
        if (answer_stateless_inline(s, frame))
            return;
    } else if (strcmp(method, "initialize") == 0) {
        on_initialize(s, frame->id, frame->params);
        return;
    } else if (strcmp(method, "ping") == 0) {
        sluice_mcp_session_emit(s, sluice_jsonrpc_result(frame->id, json_object()), frame->id);
        return;
    }
    sluice_mcp_call *call = NULL;
    const char *refusal = NULL;
    int code = SLUICE_JSONRPC_INVALID_REQUEST;
    char message[256];
    bool inline_ok = cannot_block(s->server, frame); /* a registry lookup: outside the lock */
    pthread_mutex_lock(&s->lock);
    if (!stateless && !s->initialized) {
        snprintf(message, sizeof message,
                 "the session is not initialized: send 'initialize' before '%.64s'", method);
        refusal = message;
    } else if (find_inflight_locked(s, frame->id) != NULL) {
        refusal = "this request id is already in use by a request in flight; use a new id";
    } else if (s->inflight_count >= SLUICE_LIMIT_INFLIGHT_PER_SESSION) {
        snprintf(message, sizeof message, "too many requests in flight (limit is %u); retry later",
                 SLUICE_LIMIT_INFLIGHT_PER_SESSION);
        refusal = message;
        code = SLUICE_JSONRPC_SERVER_BUSY;
    } else if ((call = call_new(s, frame, identity, runs_on_reader(s, inline_ok), stateless)) ==
               NULL) {
        refusal = "out of memory";
        code = SLUICE_JSONRPC_INTERNAL_ERROR;
    } else {
        call->next_inflight = s->inflight;
        s->inflight = call;
        s->inflight_count++;
    }
    pthread_mutex_unlock(&s->lock);
    if (refusal != NULL) {
        answer_error(s, frame->id, code, refusal);
        return;
    }
    if (call->on_reader)
        recycle_arena(s, run_call(call));
    else
        sluice_mcp_pool_submit(s->server, call);
}

void sluice_mcp_call_run(sluice_mcp_call *call)
{
    sluice_arena_free(run_call(call));
}

/* Runs call, answers it (unless cancelled), unlinks it; returns its arena to free or recycle. */
static sluice_arena *run_call(sluice_mcp_call *call)
{
    sluice_mcp_session *s = call->session;
    json_t *result = NULL;
    rpc_error e = { SLUICE_JSONRPC_INTERNAL_ERROR, "internal error", NULL };
    sluice_request rq;
    sluice_mcp_observe_begin(&rq, call);
    if (!atomic_load(&call->cancelled))
        result = sluice_mcp_dispatch(call, &e);
    if (call->fail_code != 0) { /* sluice_mcp_call_fail: a protocol error, not the result */
        json_decref(result);
        result = NULL;
        e = (rpc_error){ call->fail_code, call->fail_message, call->fail_data };
        call->fail_data = NULL;
    }
    if (result != NULL && call->stateless)
        sluice_mcp_stateless_decorate(s->server, call->method, result);
    sluice_mcp_observe_end(&rq, result, e.code);
    pthread_mutex_lock(&s->lock);
    bool answer = !atomic_load(&call->cancelled);
    call->finished = true;
    pthread_mutex_unlock(&s->lock);
    if (answer) {
        json_t *msg = result != NULL ? sluice_jsonrpc_result(call->id, result)
                                     : sluice_jsonrpc_error(call->id, e.code, e.message, e.data);
        sluice_mcp_session_emit(s, msg, call->id);
    } else {
        json_decref(result);
        json_decref(e.data);
    }
    pthread_mutex_lock(&s->lock);
    /* Hooks being run by a canceller live in this call's arena and use what it points to. */
    while (call->hooks_running > 0)
        pthread_cond_wait(&s->cond, &s->lock);
    for (sluice_mcp_call **p = &s->inflight; *p != NULL; p = &(*p)->next_inflight) {
        if (*p == call) {
            *p = call->next_inflight;
            break;
        }
    }
    s->inflight_count--;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return call_release(call);
}

/* ---- responses from the client -----------------------------------------------------------------
 */

static void on_response(sluice_mcp_session *s, const sluice_jsonrpc_frame *frame)
{
    if (frame->id == NULL)
        return; /* an error about something we could not identify: nothing waits for it */
    pthread_mutex_lock(&s->lock);
    pending_request *p = s->pending;
    while (p != NULL && (p->done || !json_equal(p->id, frame->id)))
        p = p->next;
    if (p != NULL) {
        p->result = frame->result != NULL ? json_deep_copy(frame->result) : NULL; /* see call_new */
        p->error = frame->error != NULL ? json_deep_copy(frame->error) : NULL;
        p->done = true;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    if (p == NULL)
        sluice_log(SLUICE_LOG_DEBUG, "mcp: ignoring a response to no pending request");
}

/* ---- intake ------------------------------------------------------------------------------------
 */

static void on_notification(sluice_mcp_session *s, const sluice_jsonrpc_frame *frame)
{
    if (strcmp(frame->method, "notifications/cancelled") == 0) {
        on_cancelled(s, frame->params);
    } else if (strcmp(frame->method, "notifications/initialized") == 0) {
        pthread_mutex_lock(&s->lock);
        s->client_ready = s->initialized;
        pthread_mutex_unlock(&s->lock);
    }
    /* Anything else (roots/list_changed, progress, unknown) needs no action from us. */
}

sluice_status sluice_mcp_session_feed_value(sluice_mcp_session *session,
                                            json_t *msg,
                                            const sluice_identity *identity,
                                            char *out_kind)
{
    sluice_jsonrpc_frame frame;
    sluice_jsonrpc_classify(msg, &frame);
    if (out_kind != NULL)
        *out_kind = (char)frame.kind;
    switch (frame.kind) {
    case SLUICE_JSONRPC_REQUEST:
        on_request(session, &frame, identity);
        return SLUICE_OK;
    case SLUICE_JSONRPC_NOTIFICATION:
        on_notification(session, &frame);
        return SLUICE_OK;
    case SLUICE_JSONRPC_RESPONSE:
        on_response(session, &frame);
        return SLUICE_OK;
    case SLUICE_JSONRPC_INVALID:
        break;
    }
    sluice_mcp_session_emit(
        session, sluice_jsonrpc_error(frame.id, frame.error_code, frame.message, NULL), NULL);
    return SLUICE_E_INVALID;
}

sluice_status sluice_mcp_session_feed(sluice_mcp_session *session,
                                      const char *frame,
                                      size_t len,
                                      const sluice_identity *identity,
                                      char *out_kind)
{
    char message[256];
    json_t *msg = NULL;
    sluice_status st = sluice_jsonrpc_parse(frame, len, 0, &msg, message, sizeof message);
    if (st != SLUICE_OK) {
        if (out_kind != NULL)
            *out_kind = SLUICE_JSONRPC_INVALID;
        int code =
            st == SLUICE_E_LIMIT ? SLUICE_JSONRPC_INVALID_REQUEST : SLUICE_JSONRPC_PARSE_ERROR;
        json_t *id = sluice_jsonrpc_recover_id(frame, len); /* so the client can match it */
        sluice_mcp_session_emit(session, sluice_jsonrpc_error(id, code, message, NULL), NULL);
        json_decref(id);
        return SLUICE_E_INVALID;
    }
    st = sluice_mcp_session_feed_value(session, msg, identity, out_kind);
    json_decref(msg);
    return st;
}
