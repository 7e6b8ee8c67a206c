/*
 * test_mcp_server.c — the MCP core through a session fed frame by frame, with a capture sink:
 * lifecycle, pagination, validation, cancellation, progress, logging and server->client
 * requests (answered, refused for a missing capability, timed out).
 */
#include "mcp/server.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- capture sink ------------------------------------------------------------------------------
 */

#define MAX_CAPTURED 256

typedef struct capture {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *msgs[MAX_CAPTURED];
    json_t *related[MAX_CAPTURED];
    size_t count;
} capture;

static void capture_send(void *ctx, json_t *msg, const json_t *related)
{
    capture *c = ctx;
    pthread_mutex_lock(&c->lock);
    if (c->count < MAX_CAPTURED) {
        c->related[c->count] = related != NULL ? json_deep_copy(related) : NULL;
        c->msgs[c->count++] = msg;
    } else {
        json_decref(msg);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void capture_clear(capture *c)
{
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->count; i++) {
        json_decref(c->msgs[i]);
        json_decref(c->related[i]);
    }
    c->count = 0;
    pthread_mutex_unlock(&c->lock);
}

typedef bool (*match_fn)(const json_t *msg, const void *arg);

/* Waits up to ms for a captured message that matches; returns a new reference or NULL. */
static json_t *capture_wait(capture *c, match_fn match, const void *arg, int ms, json_t **related)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += ms / 1000;
    deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    json_t *found = NULL;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        for (size_t i = 0; i < c->count && found == NULL; i++) {
            if (match(c->msgs[i], arg)) {
                found = json_incref(c->msgs[i]);
                if (related != NULL)
                    *related = c->related[i] != NULL ? json_incref(c->related[i]) : NULL;
            }
        }
        if (found != NULL || pthread_cond_timedwait(&c->cond, &c->lock, &deadline) != 0)
            break;
    }
    pthread_mutex_unlock(&c->lock);
    return found;
}

static bool has_id(const json_t *msg, const void *arg)
{
    const json_t *id = json_object_get(msg, "id");
    return json_object_get(msg, "method") == NULL && json_is_integer(id) &&
           json_integer_value(id) == *(const int *)arg;
}

static bool has_method(const json_t *msg, const void *arg)
{
    const char *m = json_string_value(json_object_get(msg, "method"));
    return m != NULL && strcmp(m, arg) == 0;
}

static bool any_message(const json_t *msg, const void *arg)
{
    (void)msg;
    (void)arg;
    return true;
}

/* ---- fixture -----------------------------------------------------------------------------------
 */

typedef struct fixture {
    sluice_mcp_server *server;
    sluice_mcp_session *session;
    capture cap;
} fixture;

static atomic_int echo_calls;
static atomic_int cancel_hooks_run;
static atomic_bool slow_saw_cancel;

static sluice_status
echo_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)err;
    (void)ud;
    atomic_fetch_add(&echo_calls, 1);
    *out = json_pack("{s:[{s:s, s:O}]}", "content", "type", "text", "text",
                     json_object_get(args, "message"));
    return SLUICE_OK;
}

static sluice_status
failing_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)out;
    (void)ud;
    return sluice_error_set(err, sluice_mcp_call_arena(call), SLUICE_E_DENIED,
                            "policy denies this for user '%s'",
                            sluice_mcp_call_identity(call)->user_id);
}

static sluice_status
structured_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)args;
    (void)err;
    (void)ud;
    *out = json_pack("{s:{s:i}}", "structuredContent", "rows", 3);
    return SLUICE_OK;
}

static void count_hook(void *data)
{
    (void)data;
    atomic_fetch_add(&cancel_hooks_run, 1);
}

/* Runs until cancelled (at most 5 s), logging and reporting progress on the way. */
static sluice_status
slow_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)err;
    (void)ud;
    sluice_mcp_call_on_cancel(call, count_hook, NULL);
    sluice_mcp_call_progress(call, 0, 100, "started");
    sluice_mcp_call_progress(call, 0, 100, "stale value is dropped");
    sluice_mcp_call_log(call, "info", "slow", json_string("info line"));
    sluice_mcp_call_log(call, "error", "slow", json_string("error line"));
    sluice_mcp_call_progress(call, 50, 100, NULL);
    for (int i = 0; i < 500 && !sluice_mcp_call_cancelled(call); i++)
        usleep(10000);
    atomic_store(&slow_saw_cancel, sluice_mcp_call_cancelled(call));
    *out = json_pack("{s:[]}", "content");
    return SLUICE_OK;
}

static atomic_bool hook_finished;
static atomic_bool handler_saw_hook_finished;

/* A cancel hook that takes a while, like interrupting an engine. */
static void slow_hook(void *data)
{
    (void)data;
    usleep(100 * 1000);
    atomic_store(&hook_finished, true);
}

/* Waits for cancellation, then unregisters hooks before "closing the engine" they use. */
static sluice_status
hooked_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)err;
    (void)ud;
    sluice_mcp_call_on_cancel(call, slow_hook, NULL);
    for (int i = 0; i < 500 && !sluice_mcp_call_cancelled(call); i++)
        usleep(10000);
    sluice_mcp_call_clear_cancel_hooks(call);
    atomic_store(&handler_saw_hook_finished, atomic_load(&hook_finished));
    *out = json_pack("{s:[]}", "content");
    return SLUICE_OK;
}

static sluice_status
elicit_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)ud;
    json_t *params = json_pack("{s:s, s:{s:s, s:{}}}", "message", "who?", "requestedSchema", "type",
                               "object", "properties");
    json_t *answer = NULL;
    sluice_status st = sluice_mcp_call_request(call, "elicitation/create", params, 0, &answer, err);
    if (st != SLUICE_OK)
        return st;
    *out = json_pack("{s:[{s:s, s:O}]}", "content", "type", "text", "text",
                     json_object_get(answer, "action"));
    json_decref(answer);
    return SLUICE_OK;
}

static sluice_status
simple_prompt(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)err;
    (void)ud;
    const char *a = json_string_value(json_object_get(args, "arg1"));
    *out = json_pack("{s:[{s:s, s:{s:s, s:s}}]}", "messages", "role", "user", "content", "type",
                     "text", "text", a != NULL ? a : "none");
    return SLUICE_OK;
}

static sluice_status
read_resource(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)err;
    (void)ud;
    if (strstr(uri, "/missing/") != NULL)
        return SLUICE_E_NOT_FOUND;
    *out = json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", "text/plain", "text", "hello");
    return SLUICE_OK;
}

static pthread_t where_thread;

/* Records the thread it ran on: inline_ok tools run on the feeding thread when nothing else is
 * in flight, every other tool on a worker. */
static sluice_status
where_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)args;
    (void)err;
    (void)ud;
    where_thread = pthread_self();
    *out = json_pack("{s:[]}", "content");
    return SLUICE_OK;
}

static void add_tool_flagged(sluice_mcp_server *s,
                             const char *name,
                             const char *schema,
                             sluice_mcp_tool_fn fn,
                             bool inline_ok)
{
    sluice_mcp_tool t = { 0 };
    t.name = name;
    t.description = "test tool";
    t.input_schema = schema != NULL ? json_loads(schema, 0, NULL) : NULL;
    t.fn = fn;
    t.inline_ok = inline_ok;
    sluice_error err;
    assert_int_equal(sluice_mcp_server_add_tool(s, &t, &err), SLUICE_OK);
}

static void
add_tool(sluice_mcp_server *s, const char *name, const char *schema, sluice_mcp_tool_fn fn)
{
    add_tool_flagged(s, name, schema, fn, false);
}

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.cap.lock, NULL);
    pthread_cond_init(&f.cap.cond, NULL);
    sluice_mcp_server_options o = { .name = "test",
                                    .version = "1.2.3",
                                    .worker_threads = 3,
                                    .request_timeout_ms = 300,
                                    .page_size = 2 };
    sluice_error err;
    if (sluice_mcp_server_new(&o, &f.server, &err) != SLUICE_OK)
        return 1;
    add_tool(f.server, "echo",
             "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},"
             "\"required\":[\"message\"],\"additionalProperties\":false}",
             echo_tool);
    add_tool(f.server, "fail", NULL, failing_tool);
    add_tool(f.server, "structured", NULL, structured_tool);
    add_tool(f.server, "slow", NULL, slow_tool);
    add_tool(f.server, "elicit", NULL, elicit_tool);
    add_tool(f.server, "hooked", NULL, hooked_tool);
    add_tool_flagged(f.server, "where_inline", NULL, where_tool, true);
    add_tool(f.server, "where_pooled", NULL, where_tool);
    add_tool_flagged(f.server, "elicit_inline", NULL, elicit_tool, true);
    sluice_mcp_prompt p = { .name = "greet",
                            .description = "d",
                            .arguments =
                                json_loads("[{\"name\":\"arg1\",\"required\":true}]", 0, NULL),
                            .fn = simple_prompt };
    assert_int_equal(sluice_mcp_server_add_prompt(f.server, &p, &err), SLUICE_OK);
    sluice_mcp_resource r = {
        .uri = "test://static", .name = "static", .mime_type = "text/plain", .fn = read_resource
    };
    assert_int_equal(sluice_mcp_server_add_resource(f.server, &r, &err), SLUICE_OK);
    sluice_mcp_resource t = {
        .uri = "test://t/{id}/data", .name = "tmpl", .is_template = true, .fn = read_resource
    };
    assert_int_equal(sluice_mcp_server_add_resource(f.server, &t, &err), SLUICE_OK);
    sluice_identity who = { "alice", NULL, 0, "api-key" };
    sluice_mcp_sink sink = { capture_send, &f.cap };
    if (sluice_mcp_session_new(f.server, &who, "sess-1", sink, &f.session) != SLUICE_OK)
        return 1;
    atomic_store(&echo_calls, 0);
    atomic_store(&cancel_hooks_run, 0);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_mcp_session_free(f->session);
    sluice_mcp_server_free(f->server);
    capture_clear(&f->cap);
    return 0;
}

static sluice_status feed(fixture *f, const char *text, char *kind)
{
    return sluice_mcp_session_feed(f->session, text, strlen(text), NULL, kind);
}

/* Sends a request with integer id and waits for its response (a new reference). */
static json_t *request(fixture *f, int id, const char *method, const char *params)
{
    char frame[2048];
    snprintf(frame, sizeof frame, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\"%s%s}", id,
             method, params != NULL ? ",\"params\":" : "", params != NULL ? params : "");
    char kind = 0;
    assert_int_equal(feed(f, frame, &kind), SLUICE_OK);
    assert_int_equal(kind, 'q');
    json_t *r = capture_wait(&f->cap, has_id, &id, 3000, NULL);
    assert_non_null(r);
    return r;
}

static void initialize(fixture *f, const char *caps)
{
    char params[512];
    snprintf(params, sizeof params,
             "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":%s,\"clientInfo\":{\"name\":"
             "\"t\",\"version\":\"1\"}}",
             caps);
    json_t *r = request(f, 1, "initialize", params);
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
    char kind;
    assert_int_equal(
        feed(f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &kind),
        SLUICE_OK);
    assert_int_equal(kind, 'n');
}

static long error_code(const json_t *r)
{
    return (long)json_integer_value(json_object_get(json_object_get(r, "error"), "code"));
}

static const char *error_message(const json_t *r)
{
    return json_string_value(json_object_get(json_object_get(r, "error"), "message"));
}

static const char *first_text(const json_t *r)
{
    const json_t *content = json_object_get(json_object_get(r, "result"), "content");
    return json_string_value(json_object_get(json_array_get(content, 0), "text"));
}

static bool is_error_result(const json_t *r)
{
    return json_is_true(json_object_get(json_object_get(r, "result"), "isError"));
}

/* ---- lifecycle ---------------------------------------------------------------------------------
 */

static void test_mcp_initialize_negotiates_version(void **state)
{
    fixture *f = *state;
    json_t *r = request(f, 1, "initialize",
                        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
                        "{\"name\":\"c\",\"version\":\"1\"}}");
    json_t *result = json_object_get(r, "result");
    assert_string_equal(json_string_value(json_object_get(result, "protocolVersion")),
                        "2025-06-18");
    json_t *caps = json_object_get(result, "capabilities");
    assert_non_null(json_object_get(caps, "tools"));
    assert_non_null(json_object_get(caps, "prompts"));
    assert_true(json_is_true(json_object_get(json_object_get(caps, "resources"), "subscribe")));
    assert_non_null(json_object_get(caps, "logging"));
    assert_non_null(json_object_get(caps, "completions"));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(result, "serverInfo"), "name")), "test");
    assert_string_equal(sluice_mcp_session_protocol(f->session), "2025-06-18");
    json_decref(r);
    /* A second initialize is refused. */
    r = request(f, 2, "initialize", "{\"protocolVersion\":\"2025-11-25\"}");
    assert_int_equal(error_code(r), -32600);
    json_decref(r);
}

static void test_mcp_unknown_version_gets_latest(void **state)
{
    fixture *f = *state;
    json_t *r = request(f, 1, "initialize", "{\"protocolVersion\":\"1.0.0\",\"capabilities\":{}}");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(r, "result"), "protocolVersion")),
        "2025-11-25");
    json_decref(r);
}

static void test_mcp_refuses_requests_before_initialize(void **state)
{
    fixture *f = *state;
    json_t *r = request(f, 5, "tools/list", NULL);
    assert_int_equal(error_code(r), -32600);
    assert_string_equal(error_message(r),
                        "the session is not initialized: send 'initialize' before 'tools/list'");
    json_decref(r);
    r = request(f, 6, "ping", NULL); /* ping is allowed at any time */
    assert_true(json_is_object(json_object_get(r, "result")));
    json_decref(r);
    assert_false(sluice_mcp_session_initialized(f->session));
}

static void test_mcp_invalid_frames_are_answered(void **state)
{
    fixture *f = *state;
    char kind = 0;
    assert_int_equal(feed(f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", &kind),
                     SLUICE_E_INVALID);
    assert_int_equal(kind, 'x');
    json_t *r = capture_wait(&f->cap, any_message, NULL, 1000, NULL);
    assert_int_equal(error_code(r), -32600);
    assert_string_equal(error_message(r), "'id' must be a string or an integer, got null");
    assert_true(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    capture_clear(&f->cap);
    assert_int_equal(feed(f, "{not json", &kind), SLUICE_E_INVALID);
    r = capture_wait(&f->cap, any_message, NULL, 1000, NULL);
    assert_int_equal(error_code(r), -32700);
    json_decref(r);
}

static void test_mcp_unknown_method(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "tools/explode", NULL);
    assert_int_equal(error_code(r), -32601);
    assert_string_equal(error_message(r), "method 'tools/explode' not found");
    json_decref(r);
}

/* ---- registries --------------------------------------------------------------------------------
 */

static void test_mcp_tools_list_paginates(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    const char *expected[] = { "echo",   "fail",         "structured",   "slow",         "elicit",
                               "hooked", "where_inline", "where_pooled", "elicit_inline" };
    size_t seen = 0;
    char params[256] = "{}";
    for (int id = 10; id < 20; id++) {
        json_t *r = request(f, id, "tools/list", params);
        json_t *result = json_object_get(r, "result");
        json_t *tools = json_object_get(result, "tools");
        assert_true(json_array_size(tools) <= 2);
        for (size_t i = 0; i < json_array_size(tools); i++) {
            json_t *t = json_array_get(tools, i);
            assert_string_equal(json_string_value(json_object_get(t, "name")), expected[seen++]);
            assert_non_null(json_object_get(t, "inputSchema"));
            assert_non_null(json_object_get(t, "description"));
        }
        const char *next = json_string_value(json_object_get(result, "nextCursor"));
        if (next == NULL) {
            json_decref(r);
            break;
        }
        snprintf(params, sizeof params, "{\"cursor\":\"%s\"}", next);
        json_decref(r);
    }
    assert_int_equal(seen, sizeof expected / sizeof expected[0]);
}

static void test_mcp_invalid_cursor(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "tools/list", "{\"cursor\":\"bm9wZQ\"}");
    assert_int_equal(error_code(r), -32602);
    assert_string_equal(error_message(r), "invalid cursor: pass the nextCursor value from a "
                                          "previous tools/list response unchanged");
    json_decref(r);
    /* A cursor minted for another list does not work here. */
    r = request(f, 3, "tools/list", "{}");
    const char *next =
        json_string_value(json_object_get(json_object_get(r, "result"), "nextCursor"));
    char params[256];
    snprintf(params, sizeof params, "{\"cursor\":\"%s\"}", next);
    json_t *r2 = request(f, 4, "prompts/list", params);
    assert_int_equal(error_code(r2), -32602);
    json_decref(r2);
    json_decref(r);
}

static void test_mcp_tool_arguments_validated_before_handler(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"message\":42}}");
    assert_true(is_error_result(r));
    assert_string_equal(first_text(r), "arguments.message: expected string, got number");
    json_decref(r);
    r = request(f, 3, "tools/call", "{\"name\":\"echo\"}");
    assert_true(is_error_result(r));
    assert_string_equal(first_text(r), "arguments: missing required property 'message'");
    json_decref(r);
    assert_int_equal(atomic_load(&echo_calls), 0);
    r = request(f, 4, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}");
    assert_false(is_error_result(r));
    assert_string_equal(first_text(r), "hi");
    assert_int_equal(atomic_load(&echo_calls), 1);
    json_decref(r);
}

static void test_mcp_unknown_tool_and_failures(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "tools/call", "{\"name\":\"nope\"}");
    assert_int_equal(error_code(r), -32602);
    assert_string_equal(error_message(r), "unknown tool 'nope'");
    json_decref(r);
    r = request(f, 3, "tools/call", "{\"name\":\"fail\",\"arguments\":{}}");
    assert_true(is_error_result(r));
    assert_string_equal(first_text(r), "policy denies this for user 'alice'");
    json_decref(r);
    r = request(f, 4, "tools/call", "{\"name\":\"structured\"}");
    assert_string_equal(first_text(r), "{\"rows\":3}");
    json_decref(r);
}

static void test_mcp_prompts(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "prompts/get", "{\"name\":\"greet\"}");
    assert_int_equal(error_code(r), -32602);
    assert_string_equal(error_message(r), "missing required argument 'arg1' for prompt 'greet'");
    json_decref(r);
    r = request(f, 3, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"arg1\":\"yo\"}}");
    json_t *msg = json_array_get(json_object_get(json_object_get(r, "result"), "messages"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(msg, "content"), "text")),
                        "yo");
    json_decref(r);
    r = request(f, 4, "prompts/get", "{\"name\":\"nope\"}");
    assert_int_equal(error_code(r), -32602);
    json_decref(r);
}

static void test_mcp_resources(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "resources/list", NULL);
    json_t *list = json_object_get(json_object_get(r, "result"), "resources");
    assert_int_equal(json_array_size(list), 1);
    json_decref(r);
    r = request(f, 3, "resources/templates/list", NULL);
    list = json_object_get(json_object_get(r, "result"), "resourceTemplates");
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "uriTemplate")),
                        "test://t/{id}/data");
    json_decref(r);
    r = request(f, 4, "resources/read", "{\"uri\":\"test://t/123/data\"}");
    json_t *c = json_array_get(json_object_get(json_object_get(r, "result"), "contents"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "uri")), "test://t/123/data");
    json_decref(r);
    r = request(f, 5, "resources/read", "{\"uri\":\"test://t/1/2/data\"}");
    assert_int_equal(error_code(r), -32002);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(r, "error"), "data"), "uri")),
                        "test://t/1/2/data");
    json_decref(r);
    r = request(f, 6, "resources/read", "{\"uri\":\"test://t/missing/data\"}");
    assert_int_equal(error_code(r), -32002);
    json_decref(r);
    r = request(f, 7, "resources/subscribe", "{\"uri\":\"test://static\"}");
    assert_int_equal(json_object_size(json_object_get(r, "result")), 0);
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
    r = request(f, 8, "resources/unsubscribe", "{\"uri\":\"test://static\"}");
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
}

static void test_mcp_completion_and_log_level(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "completion/complete",
                        "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{"
                        "\"name\":\"arg1\",\"value\":\"a\"}}");
    json_t *values =
        json_object_get(json_object_get(json_object_get(r, "result"), "completion"), "values");
    assert_true(json_is_array(values));
    json_decref(r);
    r = request(f, 3, "completion/complete",
                "{\"ref\":{\"type\":\"ref/other\"},\"argument\":{"
                "\"name\":\"a\",\"value\":\"\"}}");
    assert_int_equal(error_code(r), -32602);
    json_decref(r);
    r = request(f, 4, "logging/setLevel", "{\"level\":\"loud\"}");
    assert_int_equal(error_code(r), -32602);
    json_decref(r);
    r = request(f, 5, "logging/setLevel", "{\"level\":\"warning\"}");
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
}

/* ---- progress, logging, cancellation -----------------------------------------------------------
 */

static bool is_log(const json_t *msg, const void *level)
{
    return has_method(msg, "notifications/message") &&
           strcmp(json_string_value(json_object_get(json_object_get(msg, "params"), "level")),
                  level) == 0;
}

static void test_mcp_progress_logs_and_cancellation(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "logging/setLevel", "{\"level\":\"warning\"}");
    json_decref(r);
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
         "\"_meta\":{\"progressToken\":\"tok\"}}}",
         NULL);
    json_t *related = NULL;
    json_t *err_log = capture_wait(&f->cap, is_log, "error", 3000, &related);
    assert_non_null(err_log);
    assert_int_equal(json_integer_value(related), 3); /* tied to its request */
    json_decref(related);
    json_decref(err_log);
    /* Progress: 0 then 50, the stale second 0 dropped; the token echoed. */
    size_t progress = 0;
    pthread_mutex_lock(&f->cap.lock);
    for (size_t i = 0; i < f->cap.count; i++) {
        if (!has_method(f->cap.msgs[i], "notifications/progress"))
            continue;
        json_t *p = json_object_get(f->cap.msgs[i], "params");
        assert_string_equal(json_string_value(json_object_get(p, "progressToken")), "tok");
        progress++;
    }
    pthread_mutex_unlock(&f->cap.lock);
    json_t *p50 = capture_wait(&f->cap, has_method, "notifications/progress", 100, NULL);
    json_decref(p50);
    assert_true(progress >= 1 && progress <= 2);
    assert_null(capture_wait(&f->cap, is_log, "info", 50, NULL)); /* below the level */
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3,"
         "\"reason\":\"user\"}}",
         NULL);
    /* The handler sees the flag, the hook ran, and no response is ever sent. */
    for (int i = 0; i < 300 && !atomic_load(&slow_saw_cancel); i++)
        usleep(10000);
    assert_true(atomic_load(&slow_saw_cancel));
    assert_int_equal(atomic_load(&cancel_hooks_run), 1);
    int id = 3;
    assert_null(capture_wait(&f->cap, has_id, &id, 300, NULL));
    r = request(f, 4, "ping", NULL);
    json_decref(r);
}

static void test_mcp_no_progress_without_token(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"slow\"}}",
         NULL);
    json_t *log = capture_wait(&f->cap, is_log, "error", 3000, NULL);
    json_decref(log);
    assert_null(capture_wait(&f->cap, has_method, "notifications/progress", 50, NULL));
    /* Freeing the session cancels the call in flight (teardown would hang otherwise). */
}

static void test_mcp_duplicate_inflight_id_refused(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"slow\"}}",
         NULL);
    json_t *r = request(f, 3, "tools/list", NULL);
    assert_int_equal(error_code(r), -32600);
    json_decref(r);
}

static void test_mcp_clear_cancel_hooks_waits_for_running_hook(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    atomic_store(&hook_finished, false);
    atomic_store(&handler_saw_hook_finished, false);
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"hooked\"}}",
         NULL);
    usleep(50 * 1000); /* let the handler register its hook */
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
         "\"requestId\":3}}",
         NULL);
    /* feed returns once the hook ran; by then the handler has waited for it too. */
    for (int i = 0; i < 300 && !atomic_load(&handler_saw_hook_finished); i++)
        usleep(10000);
    assert_true(atomic_load(&hook_finished));
    assert_true(atomic_load(&handler_saw_hook_finished));
}

/* ---- inline_ok: cheap calls skip the worker pool ------------------------------------------------
 */

static bool ran_on_this_thread(fixture *f, int id, const char *tool)
{
    char params[128];
    snprintf(params, sizeof params, "{\"name\":\"%s\"}", tool);
    where_thread = (pthread_t)0;
    json_t *r = request(f, id, "tools/call", params);
    assert_false(is_error_result(r));
    json_decref(r);
    return pthread_equal(where_thread, pthread_self()) != 0;
}

static void test_mcp_inline_ok_tool_runs_on_feeding_thread(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    assert_true(ran_on_this_thread(f, 2, "where_inline"));
    assert_false(ran_on_this_thread(f, 3, "where_pooled")); /* not flagged: a worker runs it */
}

static void test_mcp_inline_ok_tool_goes_to_pool_while_busy(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    atomic_store(&slow_saw_cancel, false);
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"slow\"}}",
         NULL);
    /* A call is in flight: the cheap one must not run on the reader, so it queues on a worker. */
    assert_false(ran_on_this_thread(f, 3, "where_inline"));
    /* Cancel only once the slow handler runs: a call cancelled while still queued never starts
     * its handler, and on a loaded machine the worker may not have reached it yet. */
    json_t *started = capture_wait(&f->cap, is_log, "info", 3000, NULL);
    assert_non_null(started);
    json_decref(started);
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
         "\"requestId\":2}}",
         NULL);
    for (int i = 0; i < 300 && !atomic_load(&slow_saw_cancel); i++)
        usleep(10000);
    assert_true(atomic_load(&slow_saw_cancel)); /* cancellation still reaches the slow call */
    /* Once the cancelled call has left (just after its handler returns), back on the reader. */
    bool inline_again = false;
    for (int id = 4; id < 200 && !inline_again; id++) {
        inline_again = ran_on_this_thread(f, id, "where_inline");
        if (!inline_again)
            usleep(10000);
    }
    assert_true(inline_again);
}

static void test_mcp_inline_ok_tool_cannot_ask_client(void **state)
{
    fixture *f = *state;
    initialize(f, "{\"elicitation\":{}}");
    /* On stdio the answer would have to be read by the thread running the tool: refused at once
     * instead of hanging until the request timeout. */
    json_t *r = request(f, 2, "tools/call", "{\"name\":\"elicit_inline\"}");
    assert_true(is_error_result(r));
    assert_non_null(strstr(first_text(r), "inline_ok"));
    json_decref(r);
    assert_null(capture_wait(&f->cap, has_method, "elicitation/create", 50, NULL));
}

/* ---- server -> client requests -----------------------------------------------------------------
 */

static void test_mcp_elicitation_round_trip(void **state)
{
    fixture *f = *state;
    initialize(f, "{\"elicitation\":{}}");
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"elicit\"}}",
         NULL);
    json_t *related = NULL;
    json_t *req = capture_wait(&f->cap, has_method, "elicitation/create", 3000, &related);
    assert_non_null(req);
    assert_int_equal(json_integer_value(related), 2);
    json_t *sid = json_object_get(req, "id");
    assert_true(json_is_string(sid));
    char answer[256];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"accept\","
             "\"content\":{}}}",
             json_string_value(sid));
    char kind;
    assert_int_equal(feed(f, answer, &kind), SLUICE_OK);
    assert_int_equal(kind, 'r');
    int id = 2;
    json_t *r = capture_wait(&f->cap, has_id, &id, 3000, NULL);
    assert_string_equal(first_text(r), "accept");
    json_decref(r);
    json_decref(req);
    json_decref(related);
}

static void test_mcp_elicitation_needs_capability(void **state)
{
    fixture *f = *state;
    initialize(f, "{}");
    json_t *r = request(f, 2, "tools/call", "{\"name\":\"elicit\"}");
    assert_true(is_error_result(r));
    assert_string_equal(first_text(r), "the client did not declare the 'elicitation' capability "
                                       "in initialize, so sluice cannot send it "
                                       "elicitation/create");
    json_decref(r);
}

static void test_mcp_elicitation_times_out(void **state)
{
    fixture *f = *state;
    initialize(f, "{\"elicitation\":{}}");
    json_t *r = request(f, 2, "tools/call", "{\"name\":\"elicit\"}");
    assert_true(is_error_result(r));
    assert_string_equal(first_text(r),
                        "the client did not answer elicitation/create within 300 ms");
    json_decref(r);
    json_t *c = capture_wait(&f->cap, has_method, "notifications/cancelled", 100, NULL);
    assert_non_null(c);
    json_decref(c);
}

static void test_mcp_client_error_answer_is_denied(void **state)
{
    fixture *f = *state;
    initialize(f, "{\"elicitation\":{}}");
    feed(f,
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"elicit\"}}",
         NULL);
    json_t *req = capture_wait(&f->cap, has_method, "elicitation/create", 3000, NULL);
    char answer[256];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"error\":{\"code\":-1,\"message\":\"nope\"}}",
             json_string_value(json_object_get(req, "id")));
    feed(f, answer, NULL);
    int id = 2;
    json_t *r = capture_wait(&f->cap, has_id, &id, 3000, NULL);
    assert_string_equal(first_text(r),
                        "the client answered elicitation/create with error -1: nope");
    json_decref(r);
    json_decref(req);
}

/* ---- registration ------------------------------------------------------------------------------
 */

static void test_mcp_registration_fails_closed(void **state)
{
    fixture *f = *state;
    sluice_error err;
    sluice_mcp_tool t = { .name = "bad", .description = "d", .fn = echo_tool };
    t.input_schema =
        json_loads("{\"type\":\"object\",\"properties\":{\"a\":{\"pattern\":\"x\"}}}", 0, NULL);
    assert_int_equal(sluice_mcp_server_add_tool(f->server, &t, &err), SLUICE_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "tool 'bad': inputSchema.properties.a.pattern"));
    t.input_schema = json_loads("{\"type\":\"string\"}", 0, NULL);
    assert_int_equal(sluice_mcp_server_add_tool(f->server, &t, &err), SLUICE_E_INVALID);
    t.name = "echo";
    t.input_schema = NULL;
    assert_int_equal(sluice_mcp_server_add_tool(f->server, &t, &err), SLUICE_E_INVALID);
    assert_string_equal(err.message, "tool 'echo' is already registered");
    t.name = "has space";
    assert_int_equal(sluice_mcp_server_add_tool(f->server, &t, &err), SLUICE_E_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mcp_initialize_negotiates_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_unknown_version_gets_latest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_refuses_requests_before_initialize, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mcp_invalid_frames_are_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_unknown_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_tools_list_paginates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_invalid_cursor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_tool_arguments_validated_before_handler, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mcp_unknown_tool_and_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_prompts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_completion_and_log_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_progress_logs_and_cancellation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_no_progress_without_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_duplicate_inflight_id_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_clear_cancel_hooks_waits_for_running_hook, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mcp_inline_ok_tool_runs_on_feeding_thread, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mcp_inline_ok_tool_goes_to_pool_while_busy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mcp_inline_ok_tool_cannot_ask_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_elicitation_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_elicitation_needs_capability, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_elicitation_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_client_error_answer_is_denied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mcp_registration_fails_closed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
