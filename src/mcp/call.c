/*
 * call.c — what a handler can do during one call: its arena and caller, cancellation hooks,
 * progress and log notifications, and requests to the client (elicitation, sampling, roots)
 * that wait for the answer.
 *
 * Owns: the capability check before a server->client request (we never ask a client for
 * something it did not declare), server-generated request ids, the wait with timeout and
 * cancellation, and notifications/cancelled to the client when we give up on an answer.
 * Does not own: routing the answer back (session.c matches it to the waiting request).
 */
#include "core/clock.h"
#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"
#include "mcp/server.h"
#include "mcp/server_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

sluice_arena *sluice_mcp_call_arena(sluice_mcp_call *call)
{
    return call->arena;
}

const sluice_identity *sluice_mcp_call_identity(const sluice_mcp_call *call)
{
    return &call->identity;
}

const char *sluice_mcp_call_session_id(const sluice_mcp_call *call)
{
    return call->stateless ? "" : call->session->session_id; /* a stateless request has none */
}

void *sluice_mcp_call_session_state(const sluice_mcp_call *call, size_t slot)
{
    const sluice_mcp_session *s = call->session;
    return slot < s->hooks_attached ? s->hook_state[slot] : NULL; /* set before any call */
}

const json_t *sluice_mcp_call_client_capabilities(const sluice_mcp_call *call)
{
    if (call->stateless)
        return call->client_caps;
    return call->session->client_caps; /* written once, before any call exists */
}

bool sluice_mcp_call_stateless(const sluice_mcp_call *call)
{
    return call->stateless;
}

const json_t *sluice_mcp_call_input_responses(const sluice_mcp_call *call)
{
    const json_t *v = json_object_get(call->params, "inputResponses");
    return json_is_object(v) ? v : NULL;
}

const char *sluice_mcp_call_request_state(const sluice_mcp_call *call)
{
    return json_string_value(json_object_get(call->params, "requestState"));
}

json_t *sluice_mcp_input_required(json_t *input_requests, const char *request_state)
{
    json_t *result = NULL;
    if (input_requests != NULL || request_state != NULL)
        result = json_pack("{s:s}", "resultType", "input_required");
    if (result != NULL && input_requests != NULL)
        json_object_set(result, "inputRequests", input_requests);
    if (result != NULL && request_state != NULL)
        json_object_set_new(result, "requestState", json_string(request_state));
    json_decref(input_requests);
    return result;
}

void sluice_mcp_call_fail(sluice_mcp_call *call, int code, const char *message, json_t *data)
{
    if (call->fail_code != 0 || code == 0) {
        json_decref(data);
        return;
    }
    const char *copy = sluice_arena_strdup(call->arena, message != NULL ? message : "");
    call->fail_code = code;
    call->fail_message = copy != NULL ? copy : "out of memory";
    call->fail_data = data;
}

bool sluice_mcp_call_cancelled(const sluice_mcp_call *call)
{
    return atomic_load(&((sluice_mcp_call *)call)->cancelled);
}

void sluice_mcp_call_on_cancel(sluice_mcp_call *call, void (*fn)(void *), void *data)
{
    cancel_hook *hook = sluice_arena_alloc(call->arena, sizeof *hook);
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    bool now = atomic_load(&call->cancelled);
    if (!now && hook != NULL) {
        hook->fn = fn;
        hook->data = data;
        hook->next = call->hooks;
        call->hooks = hook;
    }
    pthread_mutex_unlock(&s->lock);
    if (now)
        fn(data);
}

void sluice_mcp_call_clear_cancel_hooks(sluice_mcp_call *call)
{
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    call->hooks = NULL;
    while (call->hooks_running > 0)
        pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

/* Emits a notification tied to call, unless the call is over (finished or cancelled). */
static void notify(sluice_mcp_call *call, const char *method, json_t *params)
{
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    bool live = !call->finished && !atomic_load(&call->cancelled);
    pthread_mutex_unlock(&s->lock);
    if (!live) {
        json_decref(params);
        return;
    }
    sluice_mcp_session_emit(s, sluice_jsonrpc_notification(method, params), call->id);
}

void sluice_mcp_call_progress(sluice_mcp_call *call,
                              double progress,
                              double total,
                              const char *message)
{
    if (call->progress_token == NULL)
        return;
    /* The spec requires progress to increase strictly; a handler's stale value is dropped. */
    if (call->sent_progress && !(progress > call->last_progress))
        return;
    call->sent_progress = true;
    call->last_progress = progress;
    json_t *params =
        json_pack("{s:O, s:f}", "progressToken", call->progress_token, "progress", progress);
    if (params != NULL && total > 0)
        json_object_set_new(params, "total", json_real(total));
    if (params != NULL && message != NULL)
        json_object_set_new(params, "message", json_string(message));
    notify(call, "notifications/progress", params);
}

void sluice_mcp_call_log(sluice_mcp_call *call, const char *level, const char *logger, json_t *data)
{
    int index = sluice_mcp_log_level_index(level);
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    /* A stateless request gets log messages only when its _meta asked for a level. */
    int floor = call->stateless ? call->log_level : s->log_level;
    bool wanted = index >= 0 && floor >= 0 && index >= floor;
    pthread_mutex_unlock(&s->lock);
    if (!wanted) {
        json_decref(data);
        return;
    }
    json_t *params =
        json_pack("{s:s, s:o}", "level", level, "data", data != NULL ? data : json_null());
    if (params != NULL && logger != NULL)
        json_object_set_new(params, "logger", json_string(logger));
    notify(call, "notifications/message", params);
}

/* The client capability a server->client method needs, or NULL when none is needed. */
static sluice_status
check_capability(sluice_mcp_call *call, const char *method, const json_t *params, sluice_error *err)
{
    const json_t *caps = sluice_mcp_call_client_capabilities(call);
    const char *need = NULL;
    if (strcmp(method, "elicitation/create") == 0)
        need = "elicitation";
    else if (strcmp(method, "sampling/createMessage") == 0)
        need = "sampling";
    else if (strcmp(method, "roots/list") == 0)
        need = "roots";
    if (need == NULL)
        return SLUICE_OK;
    const json_t *cap = json_object_get(caps, need);
    if (cap == NULL)
        return sluice_error_set(err, call->arena, SLUICE_E_UNSUPPORTED,
                                "the client did not declare the '%s' capability in initialize, "
                                "so sluice cannot send it %s",
                                need, method);
    const char *mode = json_string_value(json_object_get(params, "mode"));
    if (strcmp(need, "elicitation") == 0 && mode != NULL && strcmp(mode, "url") == 0 &&
        json_object_get(cap, "url") == NULL)
        return sluice_error_set(err, call->arena, SLUICE_E_UNSUPPORTED,
                                "the client did not declare URL-mode elicitation "
                                "(capabilities.elicitation.url), so sluice cannot send it a URL "
                                "elicitation");
    return SLUICE_OK;
}

static void unlink_pending_locked(sluice_mcp_session *s, pending_request *p)
{
    for (pending_request **pp = &s->pending; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

/* Tells the client we stopped waiting for the answer to id. */
static void cancel_request(sluice_mcp_call *call, const json_t *id, const char *reason)
{
    json_t *params = json_pack("{s:O, s:s}", "requestId", id, "reason", reason);
    sluice_mcp_session_emit(
        call->session, sluice_jsonrpc_notification("notifications/cancelled", params), call->id);
}

/* Whether this call may send method to the client at all. */
static sluice_status
request_allowed(sluice_mcp_call *call, const char *method, const json_t *params, sluice_error *err)
{
    if (call->stateless) /* 2026-07-28 has no server->client requests on any stream */
        return sluice_error_set(err, call->arena, SLUICE_E_UNSUPPORTED,
                                "MCP 2026-07-28 sends no '%s' to the client: the tool must "
                                "return an input_required result instead",
                                method != NULL ? method : "");
    if (call->on_reader) /* on stdio the answer would be read by this very thread: deadlock */
        return sluice_error_set(err, call->arena, SLUICE_E_INVALID,
                                "a tool registered inline_ok cannot send '%s' to the client; "
                                "register it without inline_ok",
                                method != NULL ? method : "");
    return check_capability(call, method, params, err);
}

/* Gives p the session's next request id and lists it as waiting for its answer; refused when
 * the call is cancelled or no answer can arrive any more. */
static sluice_status register_pending(sluice_mcp_call *call, pending_request *p, sluice_error *err)
{
    sluice_mcp_session *s = call->session;
    pthread_mutex_lock(&s->lock);
    if (atomic_load(&call->cancelled) || s->input_closed) {
        bool cancelled = atomic_load(&call->cancelled);
        pthread_mutex_unlock(&s->lock);
        return cancelled ? sluice_error_set(err, call->arena, SLUICE_E_CANCELLED,
                                            "the call was cancelled")
                         : sluice_error_set(err, call->arena, SLUICE_E_IO,
                                            "the client connection is closed");
    }
    char id_text[32];
    snprintf(id_text, sizeof id_text, "sluice-%lu", ++s->next_request_id);
    p->id = json_string(id_text);
    p->next = s->pending;
    s->pending = p;
    pthread_mutex_unlock(&s->lock);
    return SLUICE_OK;
}

typedef enum { WAIT_ANSWERED, WAIT_CANCELLED, WAIT_CLOSED, WAIT_TIMED_OUT } wait_end;

/* Waits for the answer to p until the call is cancelled, the input closes or timeout_ms pass,
 * then takes p off the waiting list. */
static wait_end wait_answer(sluice_mcp_call *call, pending_request *p, int timeout_ms)
{
    sluice_mcp_session *s = call->session;
    struct timespec deadline = sluice_clock_deadline_after(timeout_ms);
    bool timed_out = false;
    pthread_mutex_lock(&s->lock);
    while (!p->done && !atomic_load(&call->cancelled) && !s->input_closed && !timed_out)
        timed_out = pthread_cond_timedwait(&s->cond, &s->lock, &deadline) == ETIMEDOUT;
    unlink_pending_locked(s, p);
    wait_end end = p->done                         ? WAIT_ANSWERED
                   : atomic_load(&call->cancelled) ? WAIT_CANCELLED
                   : s->input_closed               ? WAIT_CLOSED
                                                   : WAIT_TIMED_OUT;
    pthread_mutex_unlock(&s->lock);
    return end;
}

sluice_status sluice_mcp_call_request(sluice_mcp_call *call,
                                      const char *method,
                                      json_t *params,
                                      int timeout_ms,
                                      json_t **out_result,
                                      sluice_error *err)
{
    pending_request p = { 0 };
    sluice_status st = request_allowed(call, method, params, err);
    if (st == SLUICE_OK)
        st = register_pending(call, &p, err);
    if (st != SLUICE_OK) {
        json_decref(params);
        return st;
    }
    if (timeout_ms <= 0)
        timeout_ms = call->session->server->request_timeout_ms;
    sluice_mcp_session_emit(call->session, sluice_jsonrpc_request(p.id, method, params), call->id);

    switch (wait_answer(call, &p, timeout_ms)) {
    case WAIT_ANSWERED:
        if (p.result != NULL) {
            *out_result = p.result;
            break;
        }
        st = sluice_error_set(err, call->arena, SLUICE_E_DENIED,
                              "the client answered %s with error %lld: %s", method,
                              (long long)json_integer_value(json_object_get(p.error, "code")),
                              json_string_value(json_object_get(p.error, "message")));
        break;
    case WAIT_CANCELLED:
        cancel_request(call, p.id, "the tool call was cancelled");
        st = sluice_error_set(err, call->arena, SLUICE_E_CANCELLED, "the call was cancelled");
        break;
    case WAIT_CLOSED:
        st = sluice_error_set(err, call->arena, SLUICE_E_IO,
                              "the client connection closed before it answered %s", method);
        break;
    case WAIT_TIMED_OUT:
        cancel_request(call, p.id, "timed out");
        st = sluice_error_set(err, call->arena, SLUICE_E_TIMEOUT,
                              "the client did not answer %s within %d ms", method, timeout_ms);
        break;
    }
    json_decref(p.error);
    json_decref(p.id);
    return st;
}
