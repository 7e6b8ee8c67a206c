/*
 * test_http.c — Streamable HTTP in-process on an ephemeral 127.0.0.1 port, driven with libcurl:
 * status codes for every refusal (Origin, Host, session, protocol version, size, JSON, media
 * types), 202 for notifications, JSON and SSE answers, DELETE, concurrency, a server->client
 * request on the POST's SSE stream, authentication and session binding, expiry and the cap.
 */
#include "transport/http.h"
#include "unit.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- fixture server -----------------------------------------------------------------------------
 */

static sluice_status
echo_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)err;
    (void)ud;
    const char *who = sluice_mcp_call_identity(call)->user_id;
    json_t *m = json_object_get(args, "message");
    *out =
        json_pack("{s:[{s:s, s:s}], s:{s:s}}", "content", "type", "text", "text",
                  json_is_string(m) ? json_string_value(m) : "", "structuredContent", "user", who);
    return SLUICE_OK;
}

/* How many slow calls ran at once, at most. */
static atomic_int slow_running;
static atomic_int slow_peak;

static sluice_status
slow_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)err;
    (void)ud;
    sluice_mcp_call_progress(call, 1, 2, "half");
    int now = atomic_fetch_add(&slow_running, 1) + 1;
    for (int seen = atomic_load(&slow_peak); now > seen;)
        if (atomic_compare_exchange_weak(&slow_peak, &seen, now))
            break;
    usleep(300 * 1000);
    atomic_fetch_sub(&slow_running, 1);
    *out = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", "slept");
    return SLUICE_OK;
}

/* Runs until cancelled (5 s at most); cancel_seen says whether the cancel reached it. */
static atomic_bool cancel_seen, waiting_started;

static sluice_status
until_cancelled_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)err;
    (void)ud;
    atomic_store(&waiting_started, true);
    for (int i = 0; i < 500 && !sluice_mcp_call_cancelled(call); i++)
        usleep(10 * 1000);
    atomic_store(&cancel_seen, sluice_mcp_call_cancelled(call));
    *out = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", "done");
    return SLUICE_OK;
}

static sluice_status
elicit_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)ud;
    json_t *answer = NULL;
    json_t *params = json_pack("{s:s, s:{s:s, s:{}}}", "message", "name?", "requestedSchema",
                               "type", "object", "properties");
    sluice_status st =
        sluice_mcp_call_request(call, "elicitation/create", params, 3000, &answer, err);
    if (st != SLUICE_OK)
        return st;
    *out = json_pack("{s:[{s:s, s:O}]}", "content", "type", "text", "text",
                     json_object_get(answer, "action"));
    json_decref(answer);
    return SLUICE_OK;
}

/* A test authenticator: "Bearer alice-key" is alice, "Bearer bob-key" is bob. */
static sluice_status fake_auth(const sluice_authenticator *self,
                               sluice_arena *arena,
                               const sluice_auth_request *rq,
                               sluice_identity *out,
                               sluice_auth_failure *failure)
{
    (void)self;
    const char *a = rq->authorization;
    const char *user = NULL;
    if (a != NULL && strcmp(a, "Bearer alice-key") == 0)
        user = "alice";
    else if (a != NULL && strcmp(a, "Bearer bob-key") == 0)
        user = "bob";
    if (user == NULL) {
        failure->www_authenticate = "Bearer realm=\"sluice\"";
        failure->message = "invalid or missing API key";
        return SLUICE_E_AUTH;
    }
    out->user_id = sluice_arena_strdup(arena, user);
    out->groups = NULL;
    out->group_count = 0;
    out->method = "api-key";
    return SLUICE_OK;
}

/* Session hooks: what the MCP core reported about HTTP sessions. */
static atomic_int hooks_attached, hooks_closed;
static atomic_bool hooks_refuse;
static char hooks_last_attached[129], hooks_last_closed[129];
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;

static sluice_status
hook_attach(void *ctx, const char *session_id, const sluice_identity *who, void **state)
{
    (void)ctx, (void)who, (void)state;
    if (atomic_load(&hooks_refuse))
        return SLUICE_E_DENIED;
    pthread_mutex_lock(&hooks_lock);
    snprintf(hooks_last_attached, sizeof hooks_last_attached, "%s", session_id);
    pthread_mutex_unlock(&hooks_lock);
    atomic_fetch_add(&hooks_attached, 1);
    return SLUICE_OK;
}

static void hook_close(void *ctx, const char *session_id, void *state)
{
    (void)ctx, (void)state;
    pthread_mutex_lock(&hooks_lock);
    snprintf(hooks_last_closed, sizeof hooks_last_closed, "%s", session_id);
    pthread_mutex_unlock(&hooks_lock);
    atomic_fetch_add(&hooks_closed, 1);
}

typedef struct fixture {
    sluice_mcp_server *server;
    sluice_http_server *http;
    sluice_authenticator auth;
    char url[128];
    uint16_t port;
} fixture;

static fixture *start(sluice_http_options *o, bool with_auth)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    sluice_mcp_server_options so = { .name = "http-test", .worker_threads = 6 };
    assert_int_equal(sluice_mcp_server_new(&so, &f.server, NULL), SLUICE_OK);
    sluice_mcp_tool tools[] = {
        { .name = "echo",
          .description = "d",
          .input_schema = json_pack("{s:s, s:{s:{s:s}}}", "type", "object", "properties", "message",
                                    "type", "string"),
          .fn = echo_tool },
        { .name = "slow", .description = "d", .fn = slow_tool },
        { .name = "elicit", .description = "d", .fn = elicit_tool },
        { .name = "until_cancelled", .description = "d", .fn = until_cancelled_tool },
        { .name = "quick",
          .description = "d",
          .input_schema = json_pack("{s:s, s:{s:{s:s}}}", "type", "object", "properties", "message",
                                    "type", "string"),
          .fn = echo_tool,
          .inline_ok = true },
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(sluice_mcp_server_add_tool(f.server, &tools[i], NULL), SLUICE_OK);
    sluice_mcp_session_hooks hooks = { hook_attach, hook_close, NULL };
    assert_int_equal(sluice_mcp_server_add_session_hooks(f.server, &hooks, NULL, NULL), SLUICE_OK);
    atomic_store(&hooks_attached, 0);
    atomic_store(&hooks_closed, 0);
    atomic_store(&hooks_refuse, false);
    f.auth.authenticate = fake_auth;
    o->max_body_bytes = o->max_body_bytes > 0 ? o->max_body_bytes : 4096;
    assert_int_equal(sluice_http_start(f.server, o, with_auth ? &f.auth : NULL, &f.http, NULL),
                     SLUICE_OK);
    f.port = sluice_http_port(f.http);
    assert_true(f.port > 0);
    snprintf(f.url, sizeof f.url, "http://127.0.0.1:%u/mcp", (unsigned)f.port);
    return &f;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_http_stop(f->http);
    sluice_mcp_server_free(f->server);
    return 0;
}

static int setup_plain(void **state)
{
    sluice_http_options o = { 0 };
    *state = start(&o, false);
    return 0;
}

static int setup_auth(void **state)
{
    sluice_http_options o = { 0 };
    *state = start(&o, true);
    return 0;
}

static int setup_short_lived(void **state)
{
    sluice_http_options o = { .session_idle_seconds = 1, .max_sessions = 2 };
    *state = start(&o, false);
    return 0;
}

/* ---- a tiny curl client -------------------------------------------------------------------------
 */

typedef struct reply {
    long status;
    char body[65536];
    size_t len;
    char session[129];
    char content_type[128];
    char www_authenticate[256];
    char content_length[32];
    char transfer_encoding[32];
    pthread_mutex_t *watch_lock; /* set when another thread reads body while it grows */
} reply;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    reply *r = ud;
    size_t len = size * n;
    if (r->watch_lock != NULL)
        pthread_mutex_lock(r->watch_lock);
    size_t room = sizeof r->body - 1 - r->len;
    size_t take = len < room ? len : room;
    memcpy(r->body + r->len, data, take);
    r->len += take;
    r->body[r->len] = '\0';
    if (r->watch_lock != NULL)
        pthread_mutex_unlock(r->watch_lock);
    return len;
}

static void copy_header_value(char *dst, size_t cap, const char *line, size_t len, size_t skip)
{
    size_t start = skip;
    while (start < len && line[start] == ' ')
        start++;
    size_t end = len;
    while (end > start && (line[end - 1] == '\r' || line[end - 1] == '\n'))
        end--;
    size_t n = end - start < cap - 1 ? end - start : cap - 1;
    memcpy(dst, line + start, n);
    dst[n] = '\0';
}

static size_t on_header(char *line, size_t size, size_t n, void *ud)
{
    reply *r = ud;
    size_t len = size * n;
    if (len > 15 && strncasecmp(line, "mcp-session-id:", 15) == 0)
        copy_header_value(r->session, sizeof r->session, line, len, 15);
    else if (len > 13 && strncasecmp(line, "content-type:", 13) == 0)
        copy_header_value(r->content_type, sizeof r->content_type, line, len, 13);
    else if (len > 17 && strncasecmp(line, "www-authenticate:", 17) == 0)
        copy_header_value(r->www_authenticate, sizeof r->www_authenticate, line, len, 17);
    else if (len > 15 && strncasecmp(line, "content-length:", 15) == 0)
        copy_header_value(r->content_length, sizeof r->content_length, line, len, 15);
    else if (len > 18 && strncasecmp(line, "transfer-encoding:", 18) == 0)
        copy_header_value(r->transfer_encoding, sizeof r->transfer_encoding, line, len, 18);
    return len;
}

/* Performs one request, giving up after timeout_ms; returns curl's result. extra:
 * NULL-terminated header lines. */
static CURLcode perform_within(const fixture *f,
                               const char *method,
                               const char *body,
                               const char *const *extra,
                               reply *r,
                               long timeout_ms)
{
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = NULL;
    for (size_t i = 0; extra != NULL && extra[i] != NULL; i++)
        headers = curl_slist_append(headers, extra[i]);
    curl_easy_setopt(curl, CURLOPT_URL, f->url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    if (body != NULL) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc;
}

/* Performs one request (20 s at most), which must complete. */
static void
perform(const fixture *f, const char *method, const char *body, const char *const *extra, reply *r)
{
    assert_int_equal(perform_within(f, method, body, extra, r, 20000L), CURLE_OK);
}

static const char *init_body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{"
                               "\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":"
                               "\"1\"}}}";

#define JSON_ONLY "Accept: application/json"
#define BOTH      "Accept: application/json, text/event-stream"
#define CT_JSON   "Content-Type: application/json"

/* Initializes a session; returns its id in sid (129 bytes). */
static void open_session(const fixture *f, const char *auth_header, char *sid)
{
    const char *h[] = { JSON_ONLY, CT_JSON, auth_header, NULL };
    reply r = { 0 };
    perform(f, "POST", init_body, h, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(strlen(r.session), 64);
    memcpy(sid, r.session, sizeof r.session);
    char sid_header[160];
    snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s", sid);
    const char *h2[] = { JSON_ONLY, CT_JSON, sid_header, auth_header, NULL };
    reply n = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", h2, &n);
    assert_int_equal(n.status, 202);
}

/* open_session, and the Mcp-Session-Id header line for it in sid_header (160 bytes). */
static void open_session_header(const fixture *f, char *sid, char *sid_header)
{
    open_session(f, NULL, sid);
    snprintf(sid_header, 160, "Mcp-Session-Id: %s", sid);
}

/* POSTs body on the session of sid_header accepting SSE; asserts a 200 SSE answer. */
static void post_sse(const fixture *f, const char *sid_header, const char *body, reply *r)
{
    const char *sse[] = { BOTH, CT_JSON, sid_header, NULL };
    perform(f, "POST", body, sse, r);
    assert_int_equal(r->status, 200);
    assert_string_equal(r->content_type, "text/event-stream");
}

static long rpc_code(const reply *r)
{
    json_t *v = json_loads(r->body, 0, NULL);
    long code = (long)json_integer_value(json_object_get(json_object_get(v, "error"), "code"));
    json_decref(v);
    return code;
}

/* ---- tests --------------------------------------------------------------------------------------
 */

static void test_http_initialize_issues_session(void **state)
{
    fixture *f = *state;
    const char *h[] = { JSON_ONLY, CT_JSON, NULL };
    reply r = { 0 };
    perform(f, "POST", init_body, h, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(strlen(r.session), 64);
    assert_int_equal(strspn(r.session, "0123456789abcdef"), 64);
    assert_string_equal(r.content_type, "application/json");
    json_t *v = json_loads(r.body, 0, NULL);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(v, "result"), "protocolVersion")),
        "2025-11-25");
    json_decref(v);
    assert_int_equal(sluice_http_session_count(f->http), 1);
    reply r2 = { 0 };
    perform(f, "POST", init_body, h, &r2);
    assert_string_not_equal(r.session, r2.session);
}

static void test_http_rejects_bad_origin_and_host(void **state)
{
    fixture *f = *state;
    const char *bad_origin[] = { JSON_ONLY, CT_JSON, "Origin: http://evil.example.com", NULL };
    reply r = { 0 };
    perform(f, "POST", init_body, bad_origin, &r);
    assert_int_equal(r.status, 403);
    assert_int_equal(rpc_code(&r), -32600);
    const char *bad_host[] = { JSON_ONLY, CT_JSON, "Host: evil.example.com", NULL };
    reply r2 = { 0 };
    perform(f, "POST", init_body, bad_host, &r2);
    assert_int_equal(r2.status, 403);
    const char *lookalike[] = { JSON_ONLY, CT_JSON, "Origin: http://localhost.evil.com", NULL };
    reply r3 = { 0 };
    perform(f, "POST", init_body, lookalike, &r3);
    assert_int_equal(r3.status, 403);
    char origin[96], host[96];
    snprintf(origin, sizeof origin, "Origin: http://localhost:%u", (unsigned)f->port);
    snprintf(host, sizeof host, "Host: localhost:%u", (unsigned)f->port);
    const char *good[] = { JSON_ONLY, CT_JSON, origin, host, NULL };
    reply r4 = { 0 };
    perform(f, "POST", init_body, good, &r4);
    assert_int_equal(r4.status, 200);
    const char *v6[] = { JSON_ONLY, CT_JSON, "Host: [::1]:8080", "Origin: http://[::1]:8080",
                         NULL };
    reply r5 = { 0 };
    perform(f, "POST", init_body, v6, &r5);
    assert_int_equal(r5.status, 200);
}

static void test_http_session_header_rules(void **state)
{
    fixture *f = *state;
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    const char *none[] = { JSON_ONLY, CT_JSON, NULL };
    reply r = { 0 };
    perform(f, "POST", ping, none, &r);
    assert_int_equal(r.status, 400);
    const char *unknown[] = { JSON_ONLY, CT_JSON,
                              "Mcp-Session-Id: "
                              "00000000000000000000000000000000000000000000000000000000000000000",
                              NULL };
    reply r2 = { 0 };
    perform(f, "POST", ping, unknown, &r2);
    assert_int_equal(r2.status, 404);
    const char *short_id[] = { JSON_ONLY, CT_JSON, "Mcp-Session-Id: abc", NULL };
    reply r3 = { 0 };
    perform(f, "POST", ping, short_id, &r3);
    assert_int_equal(r3.status, 404);
}

static void test_http_protocol_version_header(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
    const char *bad[] = { JSON_ONLY, CT_JSON, sid_header, "MCP-Protocol-Version: 1999-01-01",
                          NULL };
    reply r = { 0 };
    perform(f, "POST", ping, bad, &r);
    assert_int_equal(r.status, 400);
    /* Any supported version is fine, not only the negotiated one (the conformance suite sends
     * 2025-03-26 on raw follow-ups). */
    const char *old[] = { JSON_ONLY, CT_JSON, sid_header, "MCP-Protocol-Version: 2025-03-26",
                          NULL };
    reply r2 = { 0 };
    perform(f, "POST", ping, old, &r2);
    assert_int_equal(r2.status, 200);
}

static void test_http_body_and_media_rules(void **state)
{
    fixture *f = *state;
    char big[6000];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[0] = '{';
    big[sizeof big - 2] = '}';
    const char *h[] = { JSON_ONLY, CT_JSON, NULL };
    reply r = { 0 };
    perform(f, "POST", big, h, &r);
    assert_int_equal(r.status, 413);
    assert_int_equal(rpc_code(&r), -32600);
    reply r2 = { 0 };
    perform(f, "POST", "{\"jsonrpc\":", h, &r2);
    assert_int_equal(r2.status, 400);
    assert_int_equal(rpc_code(&r2), -32700);
    const char *html[] = { "Accept: text/html", CT_JSON, NULL };
    reply r3 = { 0 };
    perform(f, "POST", init_body, html, &r3);
    assert_int_equal(r3.status, 406);
    const char *text[] = { JSON_ONLY, "Content-Type: text/plain", NULL };
    reply r4 = { 0 };
    perform(f, "POST", init_body, text, &r4);
    assert_int_equal(r4.status, 415);
    reply r5 = { 0 };
    perform(f, "PUT", init_body, h, &r5);
    assert_int_equal(r5.status, 405);
    reply r6 = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", h, &r6);
    assert_int_equal(r6.status, 400);
    assert_int_equal(rpc_code(&r6), -32600);
}

static void test_http_notifications_get_202_and_sse_answers(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    reply r = { 0 };
    post_sse(f, sid_header,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"slow\",\"_meta\":{\"progressToken\":\"p\"}}}",
             &r);
    /* progress first, then the response, each one SSE event */
    const char *progress = strstr(r.body, "notifications/progress");
    const char *answer = strstr(r.body, "\"id\":7,\"result\"");
    assert_non_null(progress);
    assert_non_null(answer);
    assert_true(progress < answer);
    assert_non_null(strstr(r.body, "event: message\ndata: {"));
    const char *json[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r2 = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", json, &r2);
    assert_string_equal(r2.body, "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}");
}

static void test_http_delete_ends_session(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r = { 0 };
    perform(f, "DELETE", NULL, h, &r);
    assert_int_equal(r.status, 200);
    reply r2 = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", h, &r2);
    assert_int_equal(r2.status, 404);
    assert_int_equal(sluice_http_session_count(f->http), 0);
}

/* A call answered while it is fed goes out as one SSE buffer with a Content-Length; one that
 * answers later streams (chunked). Both carry the same events. */
static void test_http_inline_answer_is_one_sse_buffer(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    reply r = { 0 };
    post_sse(f, sid_header,
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"quick\",\"arguments\":{\"message\":\"hi\\n\\u0001\"}}}",
             &r);
    assert_string_equal(r.transfer_encoding, "");
    assert_int_equal(strtoul(r.content_length, NULL, 10), r.len);
    const char *prefix = "event: message\ndata: ";
    assert_memory_equal(r.body, prefix, strlen(prefix));
    assert_string_equal(r.body + r.len - 2, "\n\n");
    json_t *v = json_loadb(r.body + strlen(prefix), r.len - strlen(prefix) - 2, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(v, "id")), 9);
    const json_t *content = json_object_get(json_object_get(v, "result"), "content");
    assert_string_equal(json_string_value(json_object_get(json_array_get(content, 0), "text")),
                        "hi\n\x01");
    json_decref(v);
    reply pooled = { 0 };
    post_sse(f, sid_header,
             "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"echo\",\"arguments\":{\"message\":\"hi\"}}}",
             &pooled);
    assert_non_null(strstr(pooled.body, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":10,"));
}

/* Answers ping on the session in sid_header with the HTTP status. */
static long ping_status(const fixture *f, const char *sid_header)
{
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", h, &r);
    return r.status;
}

/* The table hashes ids into buckets: every one of many sessions is still found by its own id,
 * and an id one character off, or of another length, by none. */
static void test_http_many_sessions_each_found_by_its_id(void **state)
{
    fixture *f = *state;
    enum { N = 40 };
    static char sids[N][129];
    char header[200];
    for (int i = 0; i < N; i++)
        open_session(f, NULL, sids[i]);
    assert_int_equal(sluice_http_session_count(f->http), N);
    for (int i = 0; i < N; i++) {
        snprintf(header, sizeof header, "Mcp-Session-Id: %s", sids[i]);
        assert_int_equal(ping_status(f, header), 200);
        char wrong[129];
        memcpy(wrong, sids[i], sizeof wrong);
        wrong[63] = wrong[63] == 'a' ? 'b' : 'a';
        snprintf(header, sizeof header, "Mcp-Session-Id: %s", wrong);
        assert_int_equal(ping_status(f, header), 404);
    }
    snprintf(header, sizeof header, "Mcp-Session-Id: %.63s", sids[0]);
    assert_int_equal(ping_status(f, header), 404);
    snprintf(header, sizeof header, "Mcp-Session-Id: %s0", sids[0]);
    assert_int_equal(ping_status(f, header), 404);
}

/* The MCP core's session hooks see HTTP sessions come and go, with their ids. */
static void test_http_session_hooks_follow_sessions(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session(f, NULL, sid);
    assert_int_equal(atomic_load(&hooks_attached), 1);
    assert_string_equal(hooks_last_attached, sid);
    assert_int_equal(atomic_load(&hooks_closed), 0);
    snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s", sid);
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r = { 0 };
    perform(f, "DELETE", NULL, h, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(atomic_load(&hooks_closed), 1);
    assert_string_equal(hooks_last_closed, sid);
    /* A refusing attach hook refuses the session: no id, nothing in the table. */
    atomic_store(&hooks_refuse, true);
    const char *init[] = { JSON_ONLY, CT_JSON, NULL };
    reply refused = { 0 };
    perform(f, "POST", init_body, init, &refused);
    assert_int_equal(refused.status, 500);
    assert_string_equal(refused.session, "");
    assert_non_null(strstr(refused.body, "refused by the server"));
    assert_int_equal(sluice_http_session_count(f->http), 0);
    atomic_store(&hooks_refuse, false);
    char other[129];
    open_session(f, NULL, other); /* closed by sluice_http_stop in teardown */
    assert_int_equal(atomic_load(&hooks_attached), 2);
}

typedef struct worker_arg {
    const fixture *f;
    const char *sid_header;
    int id;
    reply r;
} worker_arg;

static void *slow_call(void *p)
{
    worker_arg *a = p;
    char body[160];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"slow\"}}",
             a->id);
    const char *h[] = { JSON_ONLY, CT_JSON, a->sid_header, NULL };
    perform(a->f, "POST", body, h, &a->r);
    return NULL;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_http_concurrent_requests(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    enum { N = 5 };
    worker_arg args[N];
    pthread_t threads[N];
    atomic_store(&slow_peak, 0);
    double t0 = now_seconds();
    for (int i = 0; i < N; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i] = (worker_arg){ .f = f, .sid_header = sid_header, .id = 100 + i };
        pthread_create(&threads[i], NULL, slow_call, &args[i]);
    }
    for (int i = 0; i < N; i++)
        pthread_join(threads[i], NULL);
    double elapsed = now_seconds() - t0;
    for (int i = 0; i < N; i++) {
        assert_int_equal(args[i].r.status, 200);
        assert_non_null(strstr(args[i].r.body, "slept"));
    }
    /* The calls overlapped: one blocked request does not hold up the others. */
    assert_true(atomic_load(&slow_peak) >= 3);
    fprintf(stderr, "5 concurrent 300 ms calls took %.2f s (peak %d at once)\n", elapsed,
            atomic_load(&slow_peak));
}

static bool wait_flag(atomic_bool *flag, int ms)
{
    for (int i = 0; i < ms / 10 && !atomic_load(flag); i++)
        usleep(10 * 1000);
    return atomic_load(flag);
}

/* A client that closes its connection while its call runs (curl gives up after 300 ms) has the
 * call cancelled, answered as JSON and as SSE alike. */
static void test_http_client_gone_cancels_its_call(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    const char *accepts[] = { JSON_ONLY, "Accept: text/event-stream" };
    for (size_t i = 0; i < 2; i++) {
        atomic_store(&cancel_seen, false);
        atomic_store(&waiting_started, false);
        const char *h[] = { accepts[i], CT_JSON, sid_header, NULL };
        reply r;
        memset(&r, 0, sizeof r);
        CURLcode rc = perform_within(f, "POST",
                                     "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
                                     "\"params\":{\"name\":\"until_cancelled\"}}",
                                     h, &r, 300L);
        assert_int_equal(rc, CURLE_OPERATION_TIMEDOUT);
        assert_true(atomic_load(&waiting_started));
        /* the peer check runs every SLUICE_HTTP_PEER_CHECK_MS; the tool would wait 5 s */
        assert_true(wait_flag(&cancel_seen, 3000));
    }
}

/* Draining: the request already running answers; a new one is refused with 503 and a JSON-RPC
 * error that says why; once the running one answered, nothing is left. */
static void test_http_drain_answers_running_then_refuses(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    atomic_store(&slow_running, 0);
    worker_arg a = { .f = f, .sid_header = sid_header, .id = 5 };
    pthread_t t;
    pthread_create(&t, NULL, slow_call, &a); /* answered as JSON */
    for (int i = 0; i < 200 && atomic_load(&slow_running) == 0; i++)
        usleep(5 * 1000);
    assert_int_equal(atomic_load(&slow_running), 1);
    assert_int_equal(sluice_http_drain(f->http, 0), 1);
    reply r;
    memset(&r, 0, sizeof r);
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}", h, &r);
    assert_int_equal(r.status, 503);
    assert_int_equal(rpc_code(&r), -32000);
    assert_non_null(strstr(r.body, "shutting down"));
    assert_int_equal(sluice_http_drain(f->http, 5000), 0);
    pthread_join(t, NULL);
    assert_int_equal(a.r.status, 200);
    assert_non_null(strstr(a.r.body, "slept"));
}

typedef struct stream_arg {
    const fixture *f;
    const char *sid_header;
    pthread_mutex_t lock;
    reply r;
} stream_arg;

static void *elicit_call(void *p)
{
    stream_arg *a = p;
    const char *h[] = { BOTH, CT_JSON, a->sid_header, NULL };
    perform(a->f, "POST",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
            "\"elicit\"}}",
            h, &a->r);
    return NULL;
}

static void test_http_server_request_on_post_stream(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    static stream_arg a;
    memset(&a, 0, sizeof a);
    a.f = f;
    a.sid_header = sid_header;
    pthread_mutex_init(&a.lock, NULL);
    a.r.watch_lock = &a.lock;
    pthread_t t;
    pthread_create(&t, NULL, elicit_call, &a);
    char request_id[64] = "";
    for (int i = 0; i < 300 && request_id[0] == '\0'; i++) {
        pthread_mutex_lock(&a.lock);
        const char *data = strstr(a.r.body, "data: ");
        const char *line_end = data != NULL ? strchr(data, '\n') : NULL;
        if (data != NULL && line_end != NULL && strstr(data, "elicitation/create") != NULL) {
            char line[4096];
            size_t n = (size_t)(line_end - data - 6);
            memcpy(line, data + 6, n);
            line[n] = '\0';
            json_t *req = json_loads(line, 0, NULL);
            snprintf(request_id, sizeof request_id, "%s",
                     json_string_value(json_object_get(req, "id")));
            json_decref(req);
        }
        pthread_mutex_unlock(&a.lock);
        usleep(10000);
    }
    assert_true(request_id[0] != '\0');
    char answer[256];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"accept\",\"content\":"
             "{}}}",
             request_id);
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r = { 0 };
    perform(f, "POST", answer, h, &r);
    assert_int_equal(r.status, 202);
    pthread_join(t, NULL);
    assert_non_null(strstr(a.r.body, "\"text\":\"accept\""));
    pthread_mutex_destroy(&a.lock);
}

static void *get_stream(void *p)
{
    stream_arg *a = p;
    const char *h[] = { "Accept: text/event-stream", a->sid_header, NULL };
    perform(a->f, "GET", NULL, h, &a->r);
    return NULL;
}

static void *elicit_json(void *p)
{
    stream_arg *a = p;
    const char *h[] = { JSON_ONLY, CT_JSON, a->sid_header, NULL };
    perform(a->f, "POST",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
            "\"elicit\"}}",
            h, &a->r);
    return NULL;
}

/* A JSON-mode POST cannot carry the elicitation request, so it goes on the GET stream; a second
 * GET is refused; DELETE ends the stream. */
static void test_http_get_stream_carries_unrelated_messages(void **state)
{
    fixture *f = *state;
    char sid[129], sid_header[160];
    open_session_header(f, sid, sid_header);
    static stream_arg get, post;
    memset(&get, 0, sizeof get);
    memset(&post, 0, sizeof post);
    get.f = post.f = f;
    get.sid_header = post.sid_header = sid_header;
    pthread_mutex_init(&get.lock, NULL);
    get.r.watch_lock = &get.lock;
    pthread_t tg, tp;
    pthread_create(&tg, NULL, get_stream, &get);
    usleep(200 * 1000);
    const char *again[] = { "Accept: text/event-stream", sid_header, NULL };
    reply r = { 0 };
    perform(f, "GET", NULL, again, &r);
    assert_int_equal(r.status, 409);
    const char *no_sse[] = { JSON_ONLY, sid_header, NULL };
    reply r2 = { 0 };
    perform(f, "GET", NULL, no_sse, &r2);
    assert_int_equal(r2.status, 406);
    pthread_create(&tp, NULL, elicit_json, &post);
    char request_id[64] = "";
    for (int i = 0; i < 300 && request_id[0] == '\0'; i++) {
        pthread_mutex_lock(&get.lock);
        const char *at = strstr(get.r.body, "\"id\":\"sluice-");
        if (at != NULL && strstr(get.r.body, "elicitation/create") != NULL)
            sscanf(at, "\"id\":\"%63[^\"]", request_id);
        pthread_mutex_unlock(&get.lock);
        usleep(10000);
    }
    assert_true(request_id[0] != '\0');
    char answer[256];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"decline\"}}", request_id);
    const char *h[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r3 = { 0 };
    perform(f, "POST", answer, h, &r3);
    assert_int_equal(r3.status, 202);
    pthread_join(tp, NULL);
    assert_int_equal(post.r.status, 200);
    assert_non_null(strstr(post.r.body, "\"text\":\"decline\""));
    reply r4 = { 0 };
    perform(f, "DELETE", NULL, h, &r4);
    assert_int_equal(r4.status, 200);
    pthread_join(tg, NULL); /* the GET stream ended with the session */
    assert_int_equal(get.r.status, 200);
    assert_string_equal(get.r.content_type, "text/event-stream");
    pthread_mutex_destroy(&get.lock);
}

static void test_http_authentication_and_binding(void **state)
{
    fixture *f = *state;
    const char *none[] = { JSON_ONLY, CT_JSON, NULL };
    reply r = { 0 };
    perform(f, "POST", init_body, none, &r);
    assert_int_equal(r.status, 401);
    assert_string_equal(r.www_authenticate, "Bearer realm=\"sluice\"");
    char sid[129], sid_header[160];
    open_session(f, "Authorization: Bearer alice-key", sid);
    snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s", sid);
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"echo\",\"arguments\":{\"message\":\"x\"}}}";
    const char *alice[] = { JSON_ONLY, CT_JSON, sid_header, "Authorization: Bearer alice-key",
                            NULL };
    reply r2 = { 0 };
    perform(f, "POST", call, alice, &r2);
    assert_int_equal(r2.status, 200);
    assert_non_null(strstr(r2.body, "\"user\":\"alice\""));
    /* Bob holding alice's session id gets nothing. */
    const char *bob[] = { JSON_ONLY, CT_JSON, sid_header, "Authorization: Bearer bob-key", NULL };
    reply r3 = { 0 };
    perform(f, "POST", call, bob, &r3);
    assert_int_equal(r3.status, 404);
    const char *nokey[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r4 = { 0 };
    perform(f, "POST", call, nokey, &r4);
    assert_int_equal(r4.status, 401);
}

static void test_http_idle_expiry_and_session_cap(void **state)
{
    fixture *f = *state;
    char a[129], b[129];
    open_session(f, NULL, a);
    open_session(f, NULL, b);
    const char *h[] = { JSON_ONLY, CT_JSON, NULL };
    reply r = { 0 };
    perform(f, "POST", init_body, h, &r);
    assert_int_equal(r.status, 503);
    sleep(2);
    char sid_header[160];
    snprintf(sid_header, sizeof sid_header, "Mcp-Session-Id: %s", a);
    const char *h2[] = { JSON_ONLY, CT_JSON, sid_header, NULL };
    reply r2 = { 0 };
    perform(f, "POST", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", h2, &r2);
    assert_int_equal(r2.status, 404);
    /* the one refused at the cap (attached, then closed at once) and both expired ones */
    assert_int_equal(atomic_load(&hooks_closed), 3);
    reply r3 = { 0 };
    perform(f, "POST", init_body, h, &r3);
    assert_int_equal(r3.status, 200);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_http_initialize_issues_session, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_rejects_bad_origin_and_host, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_session_header_rules, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_protocol_version_header, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_body_and_media_rules, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_notifications_get_202_and_sse_answers,
                                        setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_delete_ends_session, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_inline_answer_is_one_sse_buffer, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_session_hooks_follow_sessions, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_many_sessions_each_found_by_its_id, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_concurrent_requests, setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_client_gone_cancels_its_call, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_drain_answers_running_then_refuses, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_server_request_on_post_stream, setup_plain,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_http_get_stream_carries_unrelated_messages,
                                        setup_plain, teardown),
        cmocka_unit_test_setup_teardown(test_http_authentication_and_binding, setup_auth, teardown),
        cmocka_unit_test_setup_teardown(test_http_idle_expiry_and_session_cap, setup_short_lived,
                                        teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return failed;
}
