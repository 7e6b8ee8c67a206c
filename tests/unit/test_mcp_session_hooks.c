/*
 * test_mcp_session_hooks.c — the MCP core's session attach/close hooks: called with the session
 * id and identity, state visible to handlers on the reader and on workers, close after the last
 * call finished, a refusing attach fails the session and closes the hooks attached before it,
 * registration limits.
 */
#include "mcp/server.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- a sink that keeps the last response --------------------------------------------------------
 */

typedef struct last_msg {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *msg;
} last_msg;

static void keep_last(void *ctx, json_t *msg, const json_t *related)
{
    (void)related;
    last_msg *l = ctx;
    pthread_mutex_lock(&l->lock);
    json_decref(l->msg);
    l->msg = msg;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

/* Waits up to 3 s for the response with integer id; a new reference or NULL. */
static json_t *await_id(last_msg *l, json_int_t id)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 3;
    pthread_mutex_lock(&l->lock);
    while (l->msg == NULL || json_integer_value(json_object_get(l->msg, "id")) != id)
        if (pthread_cond_timedwait(&l->cond, &l->lock, &deadline) != 0)
            break;
    json_t *found = l->msg != NULL && json_integer_value(json_object_get(l->msg, "id")) == id
                        ? json_incref(l->msg)
                        : NULL;
    pthread_mutex_unlock(&l->lock);
    return found;
}

/* ---- hooks that record what they saw ----------------------------------------------------------
 */

typedef struct recorder {
    const char *name; /* what attach stores as state */
    sluice_status verdict;
    atomic_int attached, closed;
    char attach_session[64], attach_user[64], close_session[64];
    void *close_state;
    atomic_bool *tool_done; /* when set: close records whether the tool had finished */
    bool close_saw_tool_done;
} recorder;

static sluice_status
record_attach(void *ctx, const char *session_id, const sluice_identity *who, void **state)
{
    recorder *r = ctx;
    atomic_fetch_add(&r->attached, 1);
    snprintf(r->attach_session, sizeof r->attach_session, "%s", session_id);
    snprintf(r->attach_user, sizeof r->attach_user, "%s", who->user_id);
    if (r->verdict != SLUICE_OK)
        return r->verdict;
    *state = (void *)r->name;
    return SLUICE_OK;
}

static void record_close(void *ctx, const char *session_id, void *state)
{
    recorder *r = ctx;
    atomic_fetch_add(&r->closed, 1);
    snprintf(r->close_session, sizeof r->close_session, "%s", session_id);
    r->close_state = state;
    if (r->tool_done != NULL)
        r->close_saw_tool_done = atomic_load(r->tool_done);
}

/* ---- tools ------------------------------------------------------------------------------------
 */

static size_t hook_slot; /* the slot of the first registration, read by the tools */
static atomic_bool wait_started, wait_done;

/* Answers with the state of hook_slot as text. */
static sluice_status
state_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    const char *state = sluice_mcp_call_session_state(call, hook_slot);
    const char *unknown = sluice_mcp_call_session_state(call, SLUICE_MCP_MAX_SESSION_HOOKS);
    *out = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text",
                     state != NULL && unknown == NULL ? state : "(none)");
    return SLUICE_OK;
}

/* Runs until the session cancels it (at most 5 s), then finishes. */
static sluice_status
wait_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    atomic_store(&wait_started, true);
    for (int i = 0; i < 5000 && !sluice_mcp_call_cancelled(call); i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    *out = json_pack("{s:[]}", "content");
    atomic_store(&wait_done, true);
    return SLUICE_OK;
}

static void add_tool(sluice_mcp_server *s, const char *name, sluice_mcp_tool_fn fn, bool inline_ok)
{
    sluice_mcp_tool t = { .name = name, .description = "t", .fn = fn, .inline_ok = inline_ok };
    sluice_error err;
    assert_int_equal(sluice_mcp_server_add_tool(s, &t, &err), SLUICE_OK);
}

static sluice_mcp_server *new_server(void)
{
    sluice_mcp_server_options o = { .name = "hooks", .version = "1", .worker_threads = 2 };
    sluice_mcp_server *s = NULL;
    sluice_error err;
    assert_int_equal(sluice_mcp_server_new(&o, &s, &err), SLUICE_OK);
    add_tool(s, "state_inline", state_tool, true);
    add_tool(s, "state_pooled", state_tool, false);
    add_tool(s, "wait", wait_tool, false);
    return s;
}

static void add_hooks(sluice_mcp_server *s, recorder *r, size_t *slot)
{
    sluice_mcp_session_hooks h = { record_attach, record_close, r };
    sluice_error err;
    assert_int_equal(sluice_mcp_server_add_session_hooks(s, &h, slot, &err), SLUICE_OK);
}

static void feed(sluice_mcp_session *s, const char *frame)
{
    assert_int_equal(sluice_mcp_session_feed(s, frame, strlen(frame), NULL, NULL), SLUICE_OK);
}

static void initialize(sluice_mcp_session *s, last_msg *l)
{
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
            "\"t\",\"version\":\"1\"}}}");
    json_t *r = await_id(l, 1);
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
}

static const char *text_of(const json_t *r)
{
    const json_t *content = json_object_get(json_object_get(r, "result"), "content");
    return json_string_value(json_object_get(json_array_get(content, 0), "text"));
}

/* Calls tool with request id and checks that its text is want. */
static void
expect_state(sluice_mcp_session *s, last_msg *l, int id, const char *tool, const char *want)
{
    char frame[256];
    snprintf(frame, sizeof frame,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"%s\",\"arguments\":{}}}",
             id, tool);
    feed(s, frame);
    json_t *r = await_id(l, id);
    assert_non_null(r);
    assert_string_equal(text_of(r), want);
    json_decref(r);
}

static void last_msg_init(last_msg *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->cond, NULL);
}

static void last_msg_done(last_msg *l)
{
    json_decref(l->msg);
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->cond);
}

/* sluice_mcp_session_new for the anonymous caller with l as the sink; returns its status. */
static sluice_status
open_session(sluice_mcp_server *server, const char *id, last_msg *l, sluice_mcp_session **out)
{
    last_msg_init(l);
    *out = NULL;
    return sluice_mcp_session_new(server, NULL, id, (sluice_mcp_sink){ keep_last, l }, out);
}

/* ---- tests ------------------------------------------------------------------------------------
 */

static void test_hooks_see_the_session_and_handlers_see_the_state(void **state)
{
    (void)state;
    sluice_mcp_server *server = new_server();
    recorder first = { .name = "first-state" }, second = { .name = "second-state" };
    size_t second_slot = 99;
    add_hooks(server, &first, &hook_slot);
    add_hooks(server, &second, &second_slot);
    assert_int_equal(hook_slot, 0);
    assert_int_equal(second_slot, 1);
    last_msg l;
    last_msg_init(&l);
    sluice_identity who = { "alice", NULL, 0, "api-key" };
    sluice_mcp_session *s = NULL;
    assert_int_equal(
        sluice_mcp_session_new(server, &who, "sess-42", (sluice_mcp_sink){ keep_last, &l }, &s),
        SLUICE_OK);
    assert_int_equal(atomic_load(&first.attached), 1);
    assert_int_equal(atomic_load(&second.attached), 1);
    assert_string_equal(first.attach_session, "sess-42");
    assert_string_equal(first.attach_user, "alice");
    assert_int_equal(atomic_load(&first.closed), 0);
    initialize(s, &l);
    expect_state(s, &l, 2, "state_inline", "first-state"); /* on the feeding thread */
    expect_state(s, &l, 3, "state_pooled", "first-state"); /* on a worker */
    sluice_mcp_session_free(s);
    assert_int_equal(atomic_load(&first.closed), 1);
    assert_int_equal(atomic_load(&second.closed), 1);
    assert_string_equal(first.close_session, "sess-42");
    assert_ptr_equal(first.close_state, first.name);
    assert_ptr_equal(second.close_state, second.name);
    sluice_mcp_server_free(server);
    last_msg_done(&l);
}

static void test_close_runs_after_the_last_call_finished(void **state)
{
    (void)state;
    sluice_mcp_server *server = new_server();
    recorder r = { .name = "s", .tool_done = &wait_done };
    add_hooks(server, &r, &hook_slot);
    atomic_store(&wait_started, false);
    atomic_store(&wait_done, false);
    last_msg l;
    sluice_mcp_session *s = NULL;
    assert_int_equal(open_session(server, "sess-w", &l, &s), SLUICE_OK);
    initialize(s, &l);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
            "\"wait\",\"arguments\":{}}}");
    for (int i = 0; i < 3000 && !atomic_load(&wait_started); i++) {
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    assert_true(atomic_load(&wait_started));
    sluice_mcp_session_free(s); /* cancels the call, waits for it, then closes the hooks */
    assert_int_equal(atomic_load(&r.closed), 1);
    assert_true(r.close_saw_tool_done);
    assert_string_equal(r.attach_user, "anonymous");
    sluice_mcp_server_free(server);
    last_msg_done(&l);
}

static void test_refusing_attach_fails_the_session(void **state)
{
    (void)state;
    sluice_mcp_server *server = new_server();
    recorder ok = { .name = "ok" }, no = { .name = "no", .verdict = SLUICE_E_DENIED },
             never = { .name = "never" };
    add_hooks(server, &ok, NULL);
    add_hooks(server, &no, NULL);
    add_hooks(server, &never, NULL);
    last_msg l;
    sluice_mcp_session *s = NULL;
    assert_int_equal(open_session(server, "sess-x", &l, &s), SLUICE_E_DENIED);
    assert_null(s);
    assert_int_equal(atomic_load(&ok.attached), 1);
    assert_int_equal(atomic_load(&ok.closed), 1); /* attached before the refusal: released */
    assert_int_equal(atomic_load(&no.closed), 0);
    assert_int_equal(atomic_load(&never.attached), 0);
    assert_int_equal(atomic_load(&never.closed), 0);
    sluice_mcp_server_free(server);
    last_msg_done(&l);
}

static void test_registration_limits(void **state)
{
    (void)state;
    sluice_mcp_server *server = new_server();
    sluice_error err;
    sluice_mcp_session_hooks no_attach = { NULL, record_close, NULL };
    assert_int_equal(sluice_mcp_server_add_session_hooks(server, &no_attach, NULL, &err),
                     SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "attach"));
    recorder r = { .name = "r" };
    sluice_mcp_session_hooks h = { record_attach, NULL, &r }; /* close is optional */
    for (size_t i = 0; i < SLUICE_MCP_MAX_SESSION_HOOKS; i++)
        assert_int_equal(sluice_mcp_server_add_session_hooks(server, &h, NULL, &err), SLUICE_OK);
    assert_int_equal(sluice_mcp_server_add_session_hooks(server, &h, NULL, &err), SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "limit is"));
    sluice_mcp_session *s = NULL;
    assert_int_equal(
        sluice_mcp_session_new(server, NULL, "sess-n", (sluice_mcp_sink){ NULL, NULL }, &s),
        SLUICE_OK);
    assert_int_equal(atomic_load(&r.attached), (int)SLUICE_MCP_MAX_SESSION_HOOKS);
    sluice_mcp_session_free(s); /* no close function: nothing to call, nothing to crash */
    sluice_mcp_server_free(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_see_the_session_and_handlers_see_the_state),
        cmocka_unit_test(test_close_runs_after_the_last_call_finished),
        cmocka_unit_test(test_refusing_attach_fails_the_session),
        cmocka_unit_test(test_registration_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
