/*
 * test_js_mcp.c — mcp.call in JavaScript plans, against a real downstream server (the official
 * SDK, tests/jsmcp/mcp_downstream.mjs): resolved at validate (server and tool literal and listed,
 * allowed_tools, the action from annotations, writes and deletes refused by default, literal
 * arguments against the inputSchema, a schema sluice cannot enforce, the call bound under
 * max_api_calls), and re-checked at run time (an unvalidated tool refused, computed arguments
 * validated, idempotency keys in _meta that make a retried write apply once, blocked fields
 * stripped, a hanging or dying downstream a catchable error the plan's failed calls show).
 */
#include "exec/js/interp.h"
#include "exec/mcp_plan.h"
#include "exec/schema.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "syntax/js/parse.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char applied_path[64];
static const char *downstream[3] = { "node", SLUICE_SOURCE_DIR "/tests/jsmcp/mcp_downstream.mjs",
                                     applied_path };
static const char *allowed[] = { "list_budgets", "get_owner", "set_note", "delete_budget",
                                 "hang",         "die",       "boom",     "patterned" };
static const char *ssn[] = { "ssn" };

static sluice_config_mcp_server srv;
static sluice_config_code_mode cm;
static sluice_mcp_servers *servers; /* allow_writes = false */
static sluice_mcp_servers *writers; /* the same server with allow_writes = true */
static sluice_mcp_servers *active;
static const char *catalog;
static sluice_arena *suite_arena;

static int setup(void **state)
{
    (void)state;
    snprintf(applied_path, sizeof applied_path, "/tmp/sluice_js_mcp_%ld.jsonl", (long)getpid());
    unlink(applied_path);
    srv = (sluice_config_mcp_server){
        .name = "budgets",
        .command = { downstream, 3 },
        .allowed_tools = { allowed, sizeof allowed / sizeof allowed[0] },
        .timeout_seconds = 1,
        .startup_timeout_seconds = 20,
        .max_response_bytes = 1024 * 1024,
    };
    cm = (sluice_config_code_mode){ .max_api_calls = 10,
                                    .openapi_reads_enabled = true,
                                    .mcp_servers = &srv,
                                    .mcp_server_count = 1,
                                    .openapi_internal_blocked_fields = { ssn, 1 } };
    suite_arena = sluice_arena_new();
    sluice_error err = { 0 };
    if (sluice_mcp_servers_open(&cm, &servers, suite_arena, &err) != SLUICE_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return -1;
    }
    srv.allow_writes = true; /* the set keeps a copy of the configuration */
    if (sluice_mcp_servers_open(&cm, &writers, suite_arena, &err) != SLUICE_OK)
        return -1;
    srv.allow_writes = false;
    active = servers;
    catalog = sluice_mcp_servers_catalog(servers, suite_arena);
    return catalog != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sluice_mcp_servers_close(servers);
    sluice_mcp_servers_close(writers);
    sluice_arena_free(suite_arena);
    unlink(applied_path);
    return 0;
}

/* Writes allowed at validate (the config) and at run time (the set opened with them). */
static void writes(bool on)
{
    srv.allow_writes = on;
    active = on ? writers : servers;
}

static sluice_codefacts *analyze(sluice_arena *a, const char *code)
{
    sluice_schema schema = { .mcp_tools = catalog };
    sluice_frontend_context ctx = { .code_mode = &cm, .schema = &schema };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    const sluice_frontend *fe = sluice_lang_find("javascript");
    assert_int_equal(fe->analyze(a, code, strlen(code), NULL, &ctx, &f, &err), SLUICE_OK);
    return f;
}

static const char composition[] =
    "const { items } = await mcp.call(\"budgets\", \"list_budgets\", { month: \"2026-11\" });\n"
    "const over = items.filter(b => b.forecast > b.limit).slice(0, 3);\n"
    "const owners = await Promise.all(over.map(b => mcp.call(\"budgets\", \"get_owner\", "
    "{ id: b.ownerId })));\n"
    "return over.map((b, i) => ({ budget: b.name, over: b.forecast - b.limit, owner: "
    "owners[i].name, ssn: owners[i].ssn ?? null }));\n";

static void test_composition_resolves_as_reads(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = analyze(a, composition);
    assert_int_equal(f->violation_count, 0);
    assert_int_equal(f->action, SLUICE_ACTION_READ);
    assert_int_equal(f->operations.count, 2);
    assert_string_equal(f->operations.items[0], "mcp:budgets/list_budgets");
    assert_string_equal(f->operations.items[1], "mcp:budgets/get_owner");
    const sluice_js_facts *x = f->ext;
    assert_int_equal(x->call_bound, 4); /* 1 + 3 from .slice(0, 3) */
    assert_int_equal(x->read_calls, 2);
    /* Cedar sees the downstream tools as calledOperations */
    json_t *ctx = sluice_codefacts_cedar_context(f);
    char *text = json_dumps(ctx, JSON_COMPACT);
    assert_non_null(strstr(text, "\"calledOperations\":[\"mcp:budgets/list_budgets\","
                                 "\"mcp:budgets/get_owner\"]"));
    free(text);
    json_decref(ctx);
    sluice_arena_free(a);
}

static void test_refusals_at_validate(void **state)
{
    (void)state;
    static const struct {
        const char *code, *rule, *says;
    } cases[] = {
        { "return await mcp.call(\"budgets\", \"set_note\", { id: \"b1\", note: \"n\" });",
          "allow_writes", "writes (no read-only annotation)" },
        { "return await mcp.call(\"budgets\", \"delete_budget\", { id: \"b1\" });", "allow_deletes",
          "deletes (destructiveHint)" },
        { "return await mcp.call(\"budgets\", \"huge\", {});", "allowed_tools",
          "mcp:budgets/huge at line 1 is not in the server's allowed_tools" },
        { "return await mcp.call(\"budgets\", \"no_such\", {});", "mcp_tool",
          "names the tool 'no_such', which the server 'budgets' does not list" },
        { "return await mcp.call(\"billing\", \"x\", {});", "mcp_servers",
          "names the server 'billing', which is not in [[code_mode.mcp_servers]]" },
        { "const t = \"get_owner\"; return await mcp.call(\"budgets\", t, {});", "js_dynamic_path",
          "must name its server and tool with string literals" },
        { "return await mcp.call(\"budgets\", \"get_owner\", { id: 5 });", "mcp_arguments",
          "args.id: expected string" },
        { "return await mcp.call(\"budgets\", \"get_owner\");", "mcp_arguments", "id" },
        { "return await mcp.call(\"budgets\", \"patterned\", { code: \"AB\" });", "mcp_tool_schema",
          "sluice cannot enforce its inputSchema" },
        { "const ids = [1,2,3,4,5,6,7,8,9,10,11];\n"
          "return await Promise.all(ids.map(i => mcp.call(\"budgets\", \"get_owner\", "
          "{ id: `u${i}` })));",
          "max_api_calls", "11 from an array literal" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *a = sluice_arena_new();
        sluice_codefacts *f = analyze(a, cases[i].code);
        const sluice_codefacts_violation *v = facts_violation(f, cases[i].rule);
        if (v == NULL || strstr(v->message, cases[i].says) == NULL)
            fail_msg("case %zu: want %s (%s), got %s: %s", i, cases[i].rule, cases[i].says,
                     f->violation_count > 0 ? f->violations[0].rule : "none",
                     f->violation_count > 0 ? f->violations[0].message : "");
        sluice_arena_free(a);
    }
    /* computed arguments wait for the run */
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = analyze(a, "return await mcp.call(\"budgets\", \"get_owner\", { id: "
                                     "args.owner });");
    assert_int_equal(f->violation_count, 0);
    sluice_arena_free(a);
}

static void test_writes_allowed_by_the_server(void **state)
{
    (void)state;
    writes(true);
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = analyze(
        a, "return await mcp.call(\"budgets\", \"set_note\", { id: \"b1\", note: \"n\" });");
    assert_int_equal(f->violation_count, 0);
    assert_int_equal(f->action, SLUICE_ACTION_WRITE);
    assert_string_equal(f->resources_written.items[0], "mcp:budgets/set_note");
    /* a write in a catch block may repeat a write that reached the downstream */
    f = analyze(a, "try { await mcp.call(\"budgets\", \"get_owner\", { id: \"u1\" }); } catch (e) "
                   "{ await mcp.call(\"budgets\", \"set_note\", { id: \"b1\", note: \"n\" }); }");
    assert_true(((const sluice_js_facts *)f->ext)->retries_write);
    writes(false);
    sluice_arena_free(a);
}

/* Runs code with the mcp host; validated is the operations list the analysis found. */
static sluice_status run(sluice_arena *a,
                         const char *code,
                         const char *token_id,
                         bool use_analysis,
                         sluice_js_run_result *out,
                         sluice_error *err)
{
    sluice_codefacts *f = analyze(a, code);
    static const char *none[] = { "mcp:budgets/list_budgets" };
    sluice_strlist validated = { none, 1 };
    if (use_analysis)
        validated = (sluice_strlist){ f->operations.items, f->operations.count };
    sluice_mcp_host host = { .servers = active,
                             .run = { .validated = &validated, .token_id = token_id } };
    sluice_js_program prog;
    assert_int_equal(sluice_js_parse(a, code, strlen(code), &prog, err), SLUICE_OK);
    sluice_js_run_options o = {
        .limits = { .max_api_calls = 10, .max_loop_iterations = 1000 },
        .host = { .call = sluice_mcp_host_call, .ctx = &host, .has_mcp = true },
    };
    return sluice_js_run(a, &prog, &o, out, err);
}

static void test_composition_runs(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    assert_int_equal(run(a, composition, "tok-1", true, &r, &err), SLUICE_OK);
    assert_false(r.threw);
    /* what the test computes from the downstream's own data: forecast over limit, in order */
    assert_string_equal(r.json, "[{\"budget\":\"Compute\",\"over\":250,\"owner\":\"Ada\","
                                "\"ssn\":null},{\"budget\":\"Network\",\"over\":110,\"owner\":"
                                "\"Ada\",\"ssn\":null}]");
    assert_int_equal(r.api_calls, 3);
    sluice_arena_free(a);
}

static void test_run_time_rechecks(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    /* the plan names get_owner but the validated set holds only list_budgets */
    assert_int_equal(run(a, "return await mcp.call(\"budgets\", \"get_owner\", { id: \"u1\" });",
                         "t", false, &r, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "was not validated with the plan"));
    /* computed arguments checked against the inputSchema before the call */
    memset(&r, 0, sizeof r);
    sluice_error_clear(&err);
    assert_int_equal(run(a,
                         "const id = 1 + 1; return await mcp.call(\"budgets\", \"get_owner\", "
                         "{ id });",
                         "t", true, &r, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "args.id: expected string"));
    /* a write the server does not allow, even if validation were bypassed */
    memset(&r, 0, sizeof r);
    sluice_error_clear(&err);
    assert_int_equal(run(a,
                         "return await mcp.call(\"budgets\", \"set_note\", { id: \"b1\", note: "
                         "\"n\" });",
                         "t", true, &r, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "allow_writes = false"));
    sluice_arena_free(a);
}

static size_t applied_lines(void)
{
    FILE *fp = fopen(applied_path, "r");
    if (fp == NULL)
        return 0;
    size_t n = 0;
    for (int c; (c = fgetc(fp)) != EOF;)
        n += c == '\n';
    fclose(fp);
    return n;
}

static void test_idempotency_keys(void **state)
{
    (void)state;
    writes(true);
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    const char *plan = "const a = await mcp.call(\"budgets\", \"set_note\", { id: \"b1\", note: "
                       "\"x\" });\n"
                       "const b = await mcp.call(\"budgets\", \"set_note\", { id: \"b2\", note: "
                       "\"y\" });\n"
                       "return [a.key, b.key];";
    size_t before = applied_lines();
    assert_int_equal(run(a, plan, "tok-7", true, &r, &err), SLUICE_OK);
    json_t *keys = json_loads(r.json, 0, NULL);
    const char *k0 = json_string_value(json_array_get(keys, 0));
    const char *k1 = json_string_value(json_array_get(keys, 1));
    assert_non_null(k0);
    assert_int_equal(strlen(k0), 32);
    assert_string_not_equal(k0, k1); /* distinct between calls */
    assert_int_equal(applied_lines(), before + 2);
    /* the same run again (a retry under the same token): same keys, nothing applied twice */
    sluice_js_run_result r2 = { 0 };
    assert_int_equal(run(a, plan, "tok-7", true, &r2, &err), SLUICE_OK);
    assert_string_equal(r2.json, r.json);
    assert_int_equal(applied_lines(), before + 2);
    /* another token: other keys */
    sluice_js_run_result r3 = { 0 };
    assert_int_equal(run(a, plan, "tok-8", true, &r3, &err), SLUICE_OK);
    assert_string_not_equal(r3.json, r.json);
    assert_int_equal(applied_lines(), before + 4);
    /* a retry of the same call inside one run repeats its key: applied once */
    sluice_js_run_result r4 = { 0 };
    assert_int_equal(run(a,
                         "const x = await mcp.call(\"budgets\", \"set_note\", { id: \"b3\", "
                         "note: \"r\" });\n"
                         "const y = await mcp.call(\"budgets\", \"set_note\", { note: \"r\", "
                         "id: \"b3\" });\n"
                         "return x.key === y.key;",
                         "tok-9", true, &r4, &err),
                     SLUICE_OK);
    assert_string_equal(r4.json, "true");
    assert_int_equal(applied_lines(), before + 5);
    json_decref(keys);
    writes(false);
    sluice_arena_free(a);
}

static void test_blocked_fields_stripped(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    assert_int_equal(run(a,
                         "const o = await mcp.call(\"budgets\", \"get_owner\", { id: \"u3\" });\n"
                         "return { keys: Object.keys(o), ssn: o.ssn ?? \"gone\" };",
                         "t", true, &r, &err),
                     SLUICE_OK);
    assert_string_equal(r.json, "{\"keys\":[\"id\",\"name\",\"team\",\"email\"],\"ssn\":\"gone\"}");
    sluice_arena_free(a);
}

static void test_downstream_failures_are_caught_and_shown(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    const char *lit =
        "const out = [];\n"
        "try { await mcp.call(\"budgets\", \"hang\", {}); } catch (e) { "
        "out.push(e.message); }\n"
        "try { await mcp.call(\"budgets\", \"die\", {}); } catch (e) { "
        "out.push(e.message); }\n"
        "try { await mcp.call(\"budgets\", \"boom\", {}); } catch (e) { "
        "out.push(e.message); }\n"
        "out.push((await mcp.call(\"budgets\", \"get_owner\", { id: \"u1\" })).name);\n"
        "return out;";
    assert_int_equal(run(a, lit, "t", true, &r, &err), SLUICE_OK);
    json_t *out = json_loads(r.json, 0, NULL);
    assert_int_equal(json_array_size(out), 4);
    assert_non_null(strstr(json_string_value(json_array_get(out, 0)),
                           "mcp server 'budgets' did not answer in time during tools/call "
                           "'hang' (timeout_seconds)"));
    assert_non_null(strstr(json_string_value(json_array_get(out, 1)),
                           "mcp server 'budgets' exited or could not be reached during "
                           "tools/call 'die'"));
    /* ssn is blocked here: the server's text is filtered (a word it may not know is hidden) */
    assert_non_null(strstr(json_string_value(json_array_get(out, 2)),
                           "tool 'boom' failed: the \xe2\x80\xa6 API is down"));
    assert_string_equal(json_string_value(json_array_get(out, 3)), "Ada"); /* restarted */
    assert_int_equal(r.failed_count, 3);                                   /* never silent */
    assert_non_null(strstr(r.failed[0].message, "hang"));
    json_decref(out);
    sluice_arena_free(a);
}

/* Through the plan executor (exec/js_plan.c) with the mcp backend plugged into its slot: the
 * composition's answer, every call recorded with its operation and action, a write's
 * idempotency key in its record, a refused call stopping the plan with the calls made. */
static void test_through_the_plan_executor(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f = analyze(a, composition);
    sluice_strlist validated = { f->operations.items, f->operations.count };
    sluice_mcp_host host = { .servers = active,
                             .run = { .validated = &validated, .token_id = "x" } };
    sluice_js_plan p = { .code = composition,
                         .code_len = strlen(composition),
                         .limits = { .max_api_calls = 10, .max_loop_iterations = 1000 } };
    assert_int_equal(sluice_mcp_plan_backend(&host, a, &p.mcp), SLUICE_OK);
    sluice_exec_result r = { 0 };
    sluice_error err = { 0 };
    assert_int_equal(sluice_js_plan_execute(a, &p, &r, &err), SLUICE_OK);
    char *got = json_dumps(r.value, JSON_COMPACT);
    assert_string_equal(got, "[{\"budget\":\"Compute\",\"over\":250,\"owner\":\"Ada\","
                             "\"ssn\":null},{\"budget\":\"Network\",\"over\":110,\"owner\":"
                             "\"Ada\",\"ssn\":null}]");
    free(got);
    assert_int_equal(json_array_size(r.calls), 3);
    const json_t *c1 = json_array_get(r.calls, 1);
    assert_string_equal(json_string_value(json_object_get(c1, "operation")),
                        "mcp:budgets/get_owner");
    assert_string_equal(json_string_value(json_object_get(c1, "action")), "read");
    assert_string_equal(json_string_value(json_object_get(c1, "outcome")), "ok");
    assert_int_equal(json_integer_value(json_object_get(c1, "stripped")), 1); /* ssn */

    /* a write: its key is in the record; a tool the plan did not validate stops it */
    writes(true);
    const char *plan = "await mcp.call(\"budgets\", \"set_note\", { id: \"b4\", note: \"z\" });\n"
                       "return await mcp.call(\"budgets\", \"get_owner\", { id: \"u1\" });";
    const char *only[] = { "mcp:budgets/set_note" };
    validated = (sluice_strlist){ only, 1 };
    host.run.token_id = "tok-9";
    host.servers = active;
    sluice_js_plan w = { .code = plan,
                         .code_len = strlen(plan),
                         .limits = { .max_api_calls = 10, .max_loop_iterations = 1000 } };
    assert_int_equal(sluice_mcp_plan_backend(&host, a, &w.mcp), SLUICE_OK);
    memset(&r, 0, sizeof r);
    sluice_error_clear(&err);
    assert_int_equal(sluice_js_plan_execute(a, &w, &r, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "was not validated with the plan"));
    assert_int_equal(json_array_size(r.calls), 2);
    const json_t *c0 = json_array_get(r.calls, 0);
    assert_int_equal(strlen(json_string_value(json_object_get(c0, "idempotency_key"))), 32);
    assert_string_equal(json_string_value(json_object_get(json_array_get(r.calls, 1), "outcome")),
                        "refused");
    writes(false);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_composition_resolves_as_reads),
        cmocka_unit_test(test_refusals_at_validate),
        cmocka_unit_test(test_writes_allowed_by_the_server),
        cmocka_unit_test(test_composition_runs),
        cmocka_unit_test(test_run_time_rechecks),
        cmocka_unit_test(test_idempotency_keys),
        cmocka_unit_test(test_blocked_fields_stripped),
        cmocka_unit_test(test_downstream_failures_are_caught_and_shown),
        cmocka_unit_test(test_through_the_plan_executor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
