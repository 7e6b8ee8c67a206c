/*
 * test_js_oom.c — the javascript front end and the plan executor's deciding parts under
 * allocation failure: every allocation point (arena, sluice_buf, jansson) is failed in turn.
 * A plan that must be refused is never allowed; an allowed verdict has exactly the facts of a
 * run without faults (operations, action, call bound, the retried-write flag, risk); the
 * output guard never returns a clean result that still holds a blocked key.
 */
#include "codemode/risk.h"
#include "exec/js_plan.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "oom_sweep.h"
#include "unit.h"

#define _GNU_SOURCE 1
#include <string.h>

static const char ops_document[] =
    "{\"operations\":["
    "{\"id\":\"listForecasts\",\"method\":\"POST\",\"path\":\"/budgets/listForecasts\","
    "\"action\":\"read\",\"idempotent\":false},"
    "{\"id\":\"getUser\",\"method\":\"GET\",\"path\":\"/users/{id}\",\"action\":\"read\","
    "\"idempotent\":true,\"query\":[\"fields\"]},"
    "{\"id\":\"getFile\",\"method\":\"GET\",\"path\":\"/files/{path}\",\"action\":\"read\","
    "\"idempotent\":true,\"spanning\":2},"
    "{\"id\":\"createBudget\",\"method\":\"POST\",\"path\":\"/budgets\",\"action\":\"write\","
    "\"idempotent\":false},"
    "{\"id\":\"deleteBudget\",\"method\":\"DELETE\",\"path\":\"/budgets/{id}\",\"action\":"
    "\"delete\",\"idempotent\":true}]}";

static const char seed_plan[] =
    "const budgets = await api.post(\"/budgets/listForecasts\", { month: args.month });\n"
    "const top = budgets.items\n"
    "  .filter(b => b.forecast > b.limit)\n"
    "  .sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit))\n"
    "  .slice(0, 10);\n"
    "const owners = await Promise.all(top.map(item => api.get(`/users/${item.ownerId}`)));\n"
    "return top.map((item, i) => ({ budget: item.name, owner: owners[i].name }));\n";

typedef struct js_case {
    const char *code;
    int64_t max_calls;
    bool writes;
    bool sdk; /* pmcp's SDK mode: sdk_operations lists every operation of the document */
    oom_outcome expect;
    sluice_codefacts *baseline;
} js_case;

static bool same_list(const sluice_codefacts_list *a, const sluice_codefacts_list *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->items[i], b->items[i]) != 0)
            return false;
    return true;
}

static bool same_facts(const sluice_codefacts *f, const sluice_codefacts *b)
{
    const sluice_js_facts *x = f->ext, *y = b->ext;
    const sluice_frontend *fe = sluice_js_frontend();
    return strcmp(f->code_hash, b->code_hash) == 0 && f->action == b->action &&
           f->call_count == b->call_count && same_list(&f->operations, &b->operations) &&
           same_list(&f->resources_read, &b->resources_read) &&
           same_list(&f->resources_written, &b->resources_written) && x != NULL && y != NULL &&
           x->call_bound == y->call_bound && strcmp(x->bound_why, y->bound_why) == 0 &&
           x->retries_write == y->retries_write &&
           sluice_risk_assess(fe, f, NULL) == sluice_risk_assess(fe, b, NULL);
}

static oom_outcome analyze_once(js_case *c, sluice_arena *arena, sluice_codefacts **keep)
{
    static const char *sdk_ops[] = { "listForecasts", "getUser", "getFile", "createBudget",
                                     "deleteBudget" };
    sluice_config_code_mode cm = { .max_api_calls = c->max_calls,
                                   .openapi_reads_enabled = true,
                                   .openapi_allow_writes = c->writes };
    if (c->sdk)
        cm.sdk_operations = (sluice_strlist){ sdk_ops, sizeof sdk_ops / sizeof sdk_ops[0] };
    sluice_schema schema = { .document = ops_document, .document_len = strlen(ops_document) };
    sluice_frontend_context ctx = { .code_mode = &cm,
                                    .schema = &schema,
                                    .engine = SLUICE_ENGINE_OPENAPI };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    sluice_status st =
        sluice_js_frontend()->analyze(arena, c->code, strlen(c->code), NULL, &ctx, &f, &err);
    if (st != SLUICE_OK)
        return OOM_FAILED;
    if (sluice_codefacts_refused(f))
        return f->violation_count > 0 || f->incomplete ? OOM_REFUSED : OOM_WRONG;
    if (keep != NULL) {
        *keep = f;
        return OOM_ALLOWED;
    }
    return same_facts(f, c->baseline) ? OOM_ALLOWED : OOM_WRONG;
}

static oom_outcome run_case(void *ctx)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    oom_outcome o = analyze_once(ctx, arena, NULL);
    sluice_arena_free(arena);
    return o;
}

static void
sweep_mode(const char *code, int64_t max_calls, bool writes, bool sdk, oom_outcome expect)
{
    sluice_arena *keep = sluice_arena_new();
    js_case c = {
        .code = code, .max_calls = max_calls, .writes = writes, .sdk = sdk, .expect = expect
    };
    assert_int_equal(analyze_once(&c, keep, &c.baseline), expect);
    /* a refusal under a fault is safe (closed); an allowed verdict must be the right one */
    long points = oom_sweep(code, run_case, &c, expect,
                            OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points\n", points);
    assert_true(points > 10);
    sluice_arena_free(keep);
}

static void sweep(const char *code, int64_t max_calls, bool writes, oom_outcome expect)
{
    sweep_mode(code, max_calls, writes, false, expect);
}

/* pmcp's SDK form (sdk_operations): the call resolved by id, its request composed into the
 * path form's template and judged as it is; never allowed after a fault when it must be
 * refused, and allowed only with the facts of a run without faults */
static void test_js_oom_sdk_calls(void **state)
{
    (void)state;
    sweep_mode("const u = await api.getUser({ id: args.id, fields: \"name\" });\n"
               "const f = await api.getFile({ path: \"docs/a.md\" });\n"
               "return { name: u.name, size: f.size };",
               10, false, true, OOM_ALLOWED);
    sweep_mode("return await api.getUser({ id: \"u1\", feilds: \"name\" })", 10, false, true,
               OOM_REFUSED);
    sweep_mode("return await api.getUsr({ id: \"u1\" })", 10, false, true, OOM_REFUSED);
    sweep_mode("return await api.deleteBudget({ id: args.id })", 10, true, true, OOM_REFUSED);
    sweep_mode("return await api.get(\"/users/u1\")", 10, false, true, OOM_REFUSED);
}

static void test_js_oom_seed_plan_allowed_only_with_its_facts(void **state)
{
    (void)state;
    sweep(seed_plan, 11, false, OOM_ALLOWED);
}

static void test_js_oom_seed_plan_over_the_limit_never_allowed(void **state)
{
    (void)state;
    sweep(seed_plan, 10, false, OOM_REFUSED);
}

static void test_js_oom_delete_and_unknown_operation_never_allowed(void **state)
{
    (void)state;
    sweep("return await api.delete(`/budgets/${args.id}`)", 10, true, OOM_REFUSED);
    sweep("return await api.get(\"/admin/keys\")", 10, true, OOM_REFUSED);
}

/* what validate knows the run refuses (a query key the operation lacks, a path segment the
 * run's rule refuses) is refused under every fault; the right call keeps its facts */
static void test_js_oom_query_and_path_truths_never_allowed(void **state)
{
    (void)state;
    sweep("return await api.get(`/users/${args.id}`, { feilds: \"name\" })", 10, false,
          OOM_REFUSED);
    sweep("return await api.get(\"/files/docs/%2e%2e/x\")", 10, false, OOM_REFUSED);
    sweep("return await api.get(\"/files/docs/README.md\", { })", 10, false, OOM_ALLOWED);
    sweep("return await api.get(`/users/${args.id}`, { fields: \"name\" })", 10, false,
          OOM_ALLOWED);
}

static void test_js_oom_retried_write_keeps_its_high_risk(void **state)
{
    (void)state;
    /* allowed (writes are on), but a dropped retries_write would lower the risk */
    sweep("try { return await api.post(\"/budgets\", { n: 1 }) }\n"
          "catch (e) { return await api.post(\"/budgets\", { n: 1 }) }",
          10, true, OOM_ALLOWED);
}

/* --- the output guard ---------------------------------------------------------------------- */

static oom_outcome guard_once(void *ctx)
{
    (void)ctx;
    static const char *blocked_items[] = { "ssn" };
    static const sluice_strlist blocked = { blocked_items, 1 };
    const sluice_strlist *lists[2] = { &blocked, NULL };
    sluice_arena *arena = sluice_arena_new();
    json_t *v =
        json_loads("[{\"a\":{\"SSN\":1,\"b\":[{\"ssn\":2},{\"x\":3}]}},{\"Ssn\":4}]", 0, NULL);
    if (arena == NULL || v == NULL) {
        json_decref(v);
        sluice_arena_free(arena);
        return OOM_FAILED;
    }
    size_t stripped = 0;
    const char *hit = NULL;
    sluice_error err = { 0 };
    sluice_status st = sluice_js_guard_blocked(arena, v, lists, false, &stripped, &hit, &err);
    char *text = st == SLUICE_OK ? json_dumps(v, JSON_COMPACT) : NULL;
    oom_outcome o = st != SLUICE_OK ? OOM_FAILED
                    : text == NULL  ? OOM_FAILED
                    : strcasestr(text, "ssn") == NULL && strstr(text, "\"x\":3") != NULL
                        ? OOM_ALLOWED
                        : OOM_WRONG;
    free(text);
    json_decref(v);
    sluice_arena_free(arena);
    return o;
}

static void test_js_oom_output_guard_never_leaks(void **state)
{
    (void)state;
    long points = oom_sweep("guard", guard_once, NULL, OOM_ALLOWED,
                            OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED));
    assert_true(points > 3);
}

static int setup(void **state)
{
    (void)state;
    oom_count_jansson();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_oom_seed_plan_allowed_only_with_its_facts),
        cmocka_unit_test(test_js_oom_sdk_calls),
        cmocka_unit_test(test_js_oom_seed_plan_over_the_limit_never_allowed),
        cmocka_unit_test(test_js_oom_delete_and_unknown_operation_never_allowed),
        cmocka_unit_test(test_js_oom_query_and_path_truths_never_allowed),
        cmocka_unit_test(test_js_oom_retried_write_keeps_its_high_risk),
        cmocka_unit_test(test_js_oom_output_guard_never_leaks),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
