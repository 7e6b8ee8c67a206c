/*
 * test_js_plan.c — the JavaScript plan language: refusals with line and column, the front end's
 * canonical hash and call bound (issue 16: seed 000's plan is 11 calls, refused under
 * max_api_calls = 10 naming the bound), and the interpreter's limits, each hit once and named.
 */
#include "exec/js/interp.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "syntax/js/parse.h"
#include "unit.h"

#include <string.h>

static const char seed_plan[] =
    "const budgets = await api.post(\"/budgets/listForecasts\", { month: args.month });\n"
    "const top = budgets.items\n"
    "  .filter(b => b.forecast > b.limit)\n"
    "  .sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit))\n"
    "  .slice(0, 10);\n"
    "const owners = await Promise.all(top.map(item => api.get(`/users/${item.ownerId}`)));\n"
    "return top.map((item, i) => ({ budget: item.name, owner: owners[i].name }));\n";

static sluice_codefacts *analyze(sluice_arena *a, const char *code, int64_t max_calls)
{
    static sluice_config_code_mode cm;
    memset(&cm, 0, sizeof cm);
    cm.max_api_calls = max_calls;
    cm.openapi_reads_enabled = true;
    cm.openapi_allow_writes = true;
    sluice_frontend_context ctx = { .code_mode = &cm };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    const sluice_frontend *fe = sluice_lang_find("javascript");
    assert_non_null(fe);
    assert_int_equal(fe->analyze(a, code, strlen(code), NULL, &ctx, &f, &err), SLUICE_OK);
    return f;
}

static void test_js_seed_plan_bound_is_eleven(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = analyze(a, seed_plan, 10);
    const sluice_codefacts_violation *v = facts_violation(f, "max_api_calls");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "11 upstream calls"));
    assert_non_null(strstr(v->message, "max_api_calls = 10"));
    assert_non_null(strstr(v->message, ".slice(0, 10) at line 5"));
    /* the honest limit lets it through */
    f = analyze(a, seed_plan, 11);
    assert_null(facts_violation(f, "max_api_calls"));
    assert_false(sluice_codefacts_refused(f));
    assert_true(sluice_codefacts_list_has(&f->operations, "GET /users/{}"));
    assert_true(sluice_codefacts_list_has(&f->operations, "POST /budgets/listForecasts"));
    sluice_arena_free(a);
}

static void test_js_hash_ignores_layout_not_literals(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const char *x = analyze(a, "return [1, 'a'] // c", 50)->code_hash;
    const char *y = analyze(a, "return  [ 1 ,\n /* c */ \"a\" ]", 50)->code_hash;
    const char *z = analyze(a, "return [2, 'a']", 50)->code_hash;
    assert_string_equal(x, y);
    assert_string_not_equal(x, z);
    sluice_arena_free(a);
}

static void test_js_refusals_name_construct_and_line(void **state)
{
    (void)state;
    static const struct {
        const char *code, *rule, *needle;
        size_t line;
    } cases[] = {
        { "const a = 1;\nreturn eval('a')", "js_refused", "'eval'", 2 },
        { "return ({}).constructor", "js_refused", "'constructor'", 1 },
        { "const o = {};\n\nreturn o.__proto__", "js_refused", "'__proto__'", 3 },
        { "class A {}", "js_refused", "a class", 1 },
        { "return this", "js_refused", "'this'", 1 },
        { "import x from 'y'", "js_refused", "'import'", 1 },
        { "return { get x() { return 1 } }", "js_refused", "a getter", 1 },
        { "return new Function('x')", "js_refused", "'Function'", 1 },
        { "const f = api.get;\nreturn f('/x')", "js_refused", "called directly", 1 },
        { "return api.get('/a/' + args.id)", "js_dynamic_path", "computed", 1 },
        { "return 1 +", "syntax_error", "expected an expression", 1 },
        { "return a ?? b || c", "syntax_error", "cannot be mixed", 1 },
    };
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_codefacts *f = analyze(a, cases[i].code, 50);
        const sluice_codefacts_violation *v = facts_violation(f, cases[i].rule);
        if (v == NULL || strstr(v->message, cases[i].needle) == NULL || v->line != cases[i].line)
            fail_msg("case %zu (%s): %s", i, cases[i].code,
                     f->violation_count ? f->violations[0].message : "no violation");
    }
    sluice_arena_free(a);
}

static sluice_status counting_api(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err)
{
    (void)arena;
    (void)err;
    (*(int *)ctx)++;
    *result = json_pack("{s:I}", "n", (json_int_t)call->index);
    return SLUICE_OK;
}

/* The path parts of every call, "|"-joined, one call per line ("-" for a computed path). */
static char seen_parts[512];

static sluice_status parts_api(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err)
{
    (void)ctx;
    (void)arena;
    (void)err;
    size_t n = strlen(seen_parts);
    if (call->path_part_count == 0)
        n += (size_t)snprintf(seen_parts + n, sizeof seen_parts - n, "-");
    for (size_t i = 0; i < call->path_part_count; i++)
        n += (size_t)snprintf(seen_parts + n, sizeof seen_parts - n, "%s%s", i > 0 ? "|" : "",
                              call->path_parts[i]);
    snprintf(seen_parts + n, sizeof seen_parts - n, "\n");
    *result = json_pack("{s:s}", "id", "u1/x");
    return SLUICE_OK;
}

/* An api call's path reaches the host as written, part by part, so the host can fill each
 * ${...} value into its own parameter (exec/openapi_match.h): templates, literals folded with
 * +, nested calls in a hole; a path not written so (a variable, a call through another
 * function) arrives with no parts, and the OpenAPI host refuses it. */
static void test_js_api_path_reaches_the_host_part_by_part(void **state)
{
    (void)state;
    static const struct {
        const char *code, *parts;
    } cases[] = {
        { "return await api.get(`/users/${args.id}/orders`)", "/users/|u1/x|/orders\n" },
        { "return await api.get('/users/u1')", "/users/u1\n" },
        { "return await api.get('/users/' + `${1 + 1}` + '/x')", "/users/|2|/x\n" },
        { "return await api.get(`/a/${(await api.get('/b')).id}/c/${[1, 2]}`)",
          "/b\n/a/|u1/x|/c/|1,2|\n" },
        { "const p = '/users/u1'; return await api.get(p)", "-\n" },
        { "return await api.get(`/u/${args.id}` + args.id)", "-\n" },
        { "return await ['/users/u1'].map(p => api.get(p))[0]", "-\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        sluice_js_program prog;
        sluice_error err = { 0 };
        sluice_js_run_result r;
        assert_int_equal(sluice_js_parse(a, cases[i].code, strlen(cases[i].code), &prog, &err),
                         SLUICE_OK);
        json_t *args = json_pack("{s:s}", "id", "u1/x");
        sluice_js_run_options o = { .limits = { .max_api_calls = 5 }, .args = args };
        o.host.call = parts_api;
        o.host.has_api = true;
        seen_parts[0] = '\0';
        sluice_status st = sluice_js_run(a, &prog, &o, &r, &err);
        json_decref(args);
        if (st != SLUICE_OK || strcmp(seen_parts, cases[i].parts) != 0)
            fail_msg("%s\n  -> %s (%s)", cases[i].code, seen_parts, err.message);
        sluice_arena_free(a);
    }
}

/* Runs code; returns the status, with *r filled. */
static sluice_status run(sluice_arena *a,
                         const char *code,
                         sluice_exec_limits lim,
                         int *calls,
                         sluice_js_run_result *r,
                         sluice_error *err)
{
    sluice_js_program prog;
    assert_int_equal(sluice_js_parse(a, code, strlen(code), &prog, err), SLUICE_OK);
    sluice_js_run_options o = { .limits = lim };
    o.host.call = counting_api;
    o.host.ctx = calls;
    o.host.has_api = true;
    return sluice_js_run(a, &prog, &o, r, err);
}

static void test_js_every_limit_stops_the_plan_and_is_named(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r;
    sluice_error err = { 0 };
    int calls = 0;
    sluice_exec_limits lim = { .max_api_calls = 11, .max_loop_iterations = 50 };
    /* every call counts, including those inside Promise.all; the 12th is never made */
    const char *fan = "const xs = Array.from({length: 20}, (_, i) => i);\n"
                      "try { return await Promise.all(xs.map(i => api.get(`/u/${i}`))); }\n"
                      "catch (e) { return 'swallowed'; }";
    assert_int_equal(run(a, fan, lim, &calls, &r, &err), SLUICE_E_LIMIT);
    assert_string_equal(err.key, "max_api_calls");
    assert_int_equal(calls, 11);
    assert_int_equal(r.api_calls, 11);
    calls = 0;
    assert_int_equal(run(a, "let i = 0; while (true) { i++ }", lim, &calls, &r, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.key, "max_loop_iterations");
    lim.max_memory_bytes = 8u * 1024u * 1024u;
    assert_int_equal(run(a,
                         "let s = 'x'; for (const i of [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
                         "16,17,18,19,20,21,22,23,24,25,26,27,28]) s = s + s; return s.length",
                         lim, &calls, &r, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.key, "max_memory_bytes");
    lim.max_steps = 5000;
    assert_int_equal(run(a, "const f = (n) => n <= 0 ? 0 : 1 + f(n - 1); return f(100000)", lim,
                         &calls, &r, &err),
                     SLUICE_E_LIMIT);
    assert_true(strcmp(err.key, "max_call_depth") == 0 || strcmp(err.key, "max_steps") == 0);
    /* prototype access computed at run time is refused too */
    assert_int_equal(
        run(a, "const k = ['__pro', 'to__'].join(''); return ({})[k]", lim, &calls, &r, &err),
        SLUICE_E_DENIED);
    sluice_arena_free(a);
}

static void test_js_result_is_json_of_the_return_value(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r;
    sluice_error err = { 0 };
    int calls = 0;
    sluice_exec_limits lim = { .max_api_calls = 5 };
    assert_int_equal(run(a,
                         "const u = await api.get('/users/1'); return {n: u.n, z: -0, "
                         "f: 0.1 + 0.2, big: 1e21, nan: NaN}",
                         lim, &calls, &r, &err),
                     SLUICE_OK);
    assert_false(r.threw);
    assert_string_equal(r.json, "{\"n\":0,\"z\":0,\"f\":0.30000000000000004,\"big\":1e+21,"
                                "\"nan\":null}");
    assert_int_equal(run(a, "null.x", lim, &calls, &r, &err), SLUICE_OK);
    assert_true(r.threw);
    assert_string_equal(r.error_name, "TypeError");
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_seed_plan_bound_is_eleven),
        cmocka_unit_test(test_js_api_path_reaches_the_host_part_by_part),
        cmocka_unit_test(test_js_hash_ignores_layout_not_literals),
        cmocka_unit_test(test_js_refusals_name_construct_and_line),
        cmocka_unit_test(test_js_every_limit_stops_the_plan_and_is_named),
        cmocka_unit_test(test_js_result_is_json_of_the_return_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
