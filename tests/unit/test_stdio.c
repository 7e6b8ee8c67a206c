/*
 * test_stdio.c — the stdio transport over pipes: framing, oversized lines, cancellation while a
 * call runs, and a clean exit on EOF only after in-flight calls have answered.
 */
#include "transport/stdio.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct harness {
    sluice_mcp_server *server;
    int to_server[2];   /* we write [1], the server reads [0] */
    int from_server[2]; /* the server writes [1], we read [0] */
    pthread_t thread;
    sluice_status result;
    FILE *out; /* buffered reader on from_server[0] */
    bool joined;
} harness;

static atomic_bool slow_cancelled;
static atomic_bool slow_started;

static sluice_status
slow_tool(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args;
    (void)err;
    int ms = *(int *)ud;
    atomic_store(&slow_started, true);
    for (int i = 0; i < ms / 10 && !sluice_mcp_call_cancelled(call); i++)
        usleep(10000);
    atomic_store(&slow_cancelled, sluice_mcp_call_cancelled(call));
    *out = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", "done");
    return SLUICE_OK;
}

static int long_ms = 5000;
static int short_ms = 200;

static void *serve_thread(void *arg)
{
    harness *h = arg;
    sluice_stdio_options o = { h->to_server[0], h->from_server[1], 512 };
    sluice_identity who = { "local", NULL, 0, "stdio-config" };
    h->result = sluice_stdio_serve_fds(h->server, &who, &o, NULL);
    close(h->from_server[1]);
    return NULL;
}

static int setup(void **state)
{
    static harness h;
    memset(&h, 0, sizeof h);
    sluice_mcp_server_options o = { .name = "stdio-test", .worker_threads = 2 };
    if (sluice_mcp_server_new(&o, &h.server, NULL) != SLUICE_OK)
        return 1;
    sluice_mcp_tool slow = {
        .name = "slow", .description = "d", .fn = slow_tool, .userdata = &long_ms
    };
    sluice_mcp_tool quick = {
        .name = "quick", .description = "d", .fn = slow_tool, .userdata = &short_ms
    };
    if (sluice_mcp_server_add_tool(h.server, &slow, NULL) != SLUICE_OK ||
        sluice_mcp_server_add_tool(h.server, &quick, NULL) != SLUICE_OK)
        return 1;
    if (pipe(h.to_server) != 0 || pipe(h.from_server) != 0)
        return 1;
    h.out = fdopen(h.from_server[0], "r");
    pthread_create(&h.thread, NULL, serve_thread, &h);
    atomic_store(&slow_cancelled, false);
    atomic_store(&slow_started, false);
    *state = &h;
    return 0;
}

static int teardown(void **state)
{
    harness *h = *state;
    if (h->to_server[1] >= 0)
        close(h->to_server[1]);
    if (!h->joined)
        pthread_join(h->thread, NULL);
    fclose(h->out);
    close(h->to_server[0]);
    sluice_mcp_server_free(h->server);
    return 0;
}

static void send_line(harness *h, const char *line)
{
    size_t len = strlen(line);
    assert_int_equal(write(h->to_server[1], line, len), (ssize_t)len);
    assert_int_equal(write(h->to_server[1], "\n", 1), 1);
}

/* Reads one line from the server and parses it (a new reference; NULL on EOF). */
static json_t *read_message(harness *h)
{
    char line[8192];
    if (fgets(line, sizeof line, h->out) == NULL)
        return NULL;
    assert_non_null(strchr(line, '\n')); /* one message per line */
    json_t *msg = json_loads(line, 0, NULL);
    assert_non_null(msg);
    return msg;
}

static void initialize(harness *h)
{
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                 "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}");
    json_t *r = read_message(h);
    assert_non_null(json_object_get(r, "result"));
    json_decref(r);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void test_stdio_round_trip_and_eof(void **state)
{
    harness *h = *state;
    initialize(h);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r");
    json_t *r = read_message(h);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 2);
    json_decref(r);
    close(h->to_server[1]);
    h->to_server[1] = -1;
    assert_null(read_message(h)); /* EOF on our side: the server exited */
    pthread_join(h->thread, NULL);
    h->joined = true;
    assert_int_equal(h->result, SLUICE_OK);
}

static void test_stdio_oversized_line_is_an_error_not_a_crash(void **state)
{
    harness *h = *state;
    initialize(h);
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    send_line(h, big);
    json_t *r = read_message(h);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "error"), "code")),
                     -32600);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r, "error"), "message")),
                        "message too large: 1999 bytes (limit is 512)");
    json_decref(r);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    r = read_message(h);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 3);
    json_decref(r);
}

static void test_stdio_cancellation_while_call_runs(void **state)
{
    harness *h = *state;
    initialize(h);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"slow\"}}");
    /* The reader is not blocked by the running call: a ping is answered meanwhile. */
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
    json_t *r = read_message(h);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 6);
    json_decref(r);
    for (int i = 0; i < 500 && !atomic_load(&slow_started); i++)
        usleep(10000);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                 "\"requestId\":5}}");
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
    r = read_message(h);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
    json_decref(r);
    close(h->to_server[1]);
    h->to_server[1] = -1;
    assert_null(read_message(h)); /* no response for the cancelled call */
    assert_true(atomic_load(&slow_cancelled));
}

static void test_stdio_eof_waits_for_inflight_calls(void **state)
{
    harness *h = *state;
    initialize(h);
    send_line(h, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"quick\"}}");
    close(h->to_server[1]);
    h->to_server[1] = -1;
    json_t *r = read_message(h);
    assert_non_null(r);
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 8);
    assert_false(atomic_load(&slow_cancelled));
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stdio_round_trip_and_eof, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdio_oversized_line_is_an_error_not_a_crash, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stdio_cancellation_while_call_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdio_eof_waits_for_inflight_calls, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
