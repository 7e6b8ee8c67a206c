/*
 * test_js_executor.c — the JavaScript plan executor (exec/js_plan.h) with a backend that holds
 * its answers until waited for: calls of a Promise.all are all in flight before the first is
 * waited for, a caught failure is reported beside the value (issue 16 §2), a throw is a
 * structured failure with its line and the calls made, the output guard strips or refuses
 * blocked keys at any depth and case, the result cap truncates with its flag, and a plan
 * without an mcp backend has no `mcp`.
 */
#include "exec/js_plan.h"
#include "unit.h"

#include <string.h>

typedef struct fake {
    int started, waited, max_in_flight, in_flight;
    const char *fail_path; /* answered 500 */
} fake;

static sluice_status f_start(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, uint64_t *ticket, sluice_error *err)
{
    (void)arena;
    (void)err;
    fake *f = ctx;
    *ticket = (uint64_t)call->index * 1000 + 7; /* the backend's own numbering */
    f->started++;
    if (++f->in_flight > f->max_in_flight)
        f->max_in_flight = f->in_flight;
    const char *path = json_string_value(json_array_get(call->args, 0));
    if (f->fail_path != NULL && path != NULL && strcmp(path, f->fail_path) == 0)
        *ticket |= 1u << 30;
    return SLUICE_OK;
}

static sluice_status
f_wait(void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err)
{
    fake *f = ctx;
    f->waited++;
    f->in_flight--;
    if (ticket & (1u << 30))
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "upstream answered 500");
    *result = json_pack("{s:I, s:s, s:{s:s, s:i}}", "n", (json_int_t)(ticket / 1000), "name", "x",
                        "nested", "SSN", "123", "ok", 1);
    return SLUICE_OK;
}

static json_t *f_describe(void *ctx, uint64_t ticket)
{
    (void)ctx;
    return json_pack("{s:i}", "status", (ticket & (1u << 30)) ? 500 : 200);
}

static sluice_status go(sluice_arena *a,
                        const char *code,
                        fake *f,
                        sluice_exec_limits lim,
                        bool refuse,
                        sluice_exec_result *r,
                        sluice_error *err)
{
    static const char *blocked_items[] = { "ssn" };
    static const sluice_strlist blocked = { blocked_items, 1 };
    sluice_js_plan p = {
        .code = code,
        .code_len = strlen(code),
        .limits = lim,
        .api = { .start = f_start, .wait = f_wait, .describe = f_describe, .ctx = f },
        .blocked = { &blocked, NULL },
        .refuse_blocked = refuse,
    };
    return sluice_js_plan_execute(a, &p, r, err);
}

static void test_js_executor_fan_out_is_in_flight_at_once(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    fake f = { 0 };
    sluice_exec_result r;
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_api_calls = 11 };
    assert_int_equal(go(a,
                        "const ids = [1,2,3,4,5,6,7,8,9,10];\n"
                        "const us = await Promise.all(ids.map(i => api.get(`/users/${i}`)));\n"
                        "return us.map(u => u.n)",
                        &f, lim, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(f.started, 10);
    assert_int_equal(f.waited, 10);
    assert_int_equal(f.max_in_flight, 10); /* all ten started before any answer was awaited */
    char *text = json_dumps(r.value, JSON_COMPACT);
    assert_string_equal(text, "[0,1,2,3,4,5,6,7,8,9]");
    free(text);
    assert_int_equal(json_array_size(r.calls), 10);
    assert_int_equal(json_array_size(r.failed_calls), 0);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(r.calls, 3), "status")),
                     200);
    sluice_arena_free(a);
}

static void test_js_executor_caught_failure_is_reported_beside_value(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    fake f = { .fail_path = "/budgets" };
    sluice_exec_result r;
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_api_calls = 5 };
    assert_int_equal(go(a, "try { return await api.get('/budgets') } catch (e) { return [] }", &f,
                        lim, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(json_array_size(r.value), 0);
    assert_int_equal(json_array_size(r.failed_calls), 1);
    const json_t *fc = json_array_get(r.failed_calls, 0);
    assert_string_equal(json_string_value(json_object_get(fc, "target")), "/budgets");
    assert_int_equal(json_integer_value(json_object_get(fc, "status")), 500);
    assert_non_null(strstr(json_string_value(json_object_get(fc, "error")), "500"));
    sluice_arena_free(a);
}

static void test_js_executor_throw_is_structured_failure(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    fake f = { .fail_path = "/users/2" };
    sluice_exec_result r;
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_api_calls = 5 };
    assert_int_equal(
        go(a,
           "const u = await api.get('/users/1');\nconst v = await api.get('/users/2');\nreturn v",
           &f, lim, false, &r, &err),
        SLUICE_E_ENGINE);
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.message, "line 2"));
    assert_non_null(strstr(err.message, "2 calls made"));
    assert_non_null(strstr(err.message, "#1 api.get /users/2 failed 500"));
    assert_int_equal(json_array_size(r.calls), 2);
    /* a limit: named, with the calls made */
    assert_int_equal(go(a, "while (true) { await api.get('/users/1') }", &f, lim, false, &r, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.key, "max_api_calls");
    assert_non_null(strstr(err.message, "5 calls made"));
    sluice_arena_free(a);
}

static void test_js_executor_output_guard_and_cap(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    fake f = { 0 };
    sluice_exec_result r;
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_api_calls = 5 };
    const char *code = "const u = await api.get('/users/1');\nreturn [{ Ssn: 1, a: u }]";
    assert_int_equal(go(a, code, &f, lim, false, &r, &err), SLUICE_OK);
    char *text = json_dumps(r.value, JSON_COMPACT | JSON_SORT_KEYS);
    assert_null(strstr(text, "SSN"));
    assert_null(strstr(text, "Ssn"));
    assert_non_null(strstr(text, "\"ok\":1"));
    free(text);
    /* refused: the value read from the blocked field (taint) or the key naming one */
    assert_int_equal(go(a, code, &f, lim, true, &r, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "blocked field"));
    lim.max_bytes = 1024;
    assert_int_equal(go(a, "const xs = [];\nfor (let i = 0; i < 500; i++) xs.push(i);\nreturn xs",
                        &f, lim, false, &r, &err),
                     SLUICE_OK);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_bytes");
    assert_true(r.bytes <= 1024);
    assert_int_equal(json_integer_value(json_array_get(r.value, 0)), 0);
    assert_int_equal(go(a, "return 'x'.repeat(1500)", &f, lim, false, &r, &err), SLUICE_OK);
    assert_true(r.truncated);
    assert_true(json_is_string(r.value) && r.bytes <= 1024);
    sluice_arena_free(a);
}

static void test_js_executor_no_mcp_backend_no_mcp(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    fake f = { 0 };
    sluice_exec_result r;
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_api_calls = 5 };
    assert_int_equal(go(a, "return typeof mcp", &f, lim, false, &r, &err), SLUICE_OK);
    assert_string_equal(json_string_value(r.value), "undefined");
    assert_int_equal(f.started, 0);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_executor_fan_out_is_in_flight_at_once),
        cmocka_unit_test(test_js_executor_caught_failure_is_reported_beside_value),
        cmocka_unit_test(test_js_executor_throw_is_structured_failure),
        cmocka_unit_test(test_js_executor_output_guard_and_cap),
        cmocka_unit_test(test_js_executor_no_mcp_backend_no_mcp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
