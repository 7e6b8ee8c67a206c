/*
 * test_js_sdk.c — pmcp's SDK mode in the javascript front end (sdk_operations): a plan calls
 * api.<operationId>(args), the operation is found by its id, its request composed into the
 * path form's template and judged by the same class policy (modes, allowlists, blocked paths,
 * action_tags / catalog classes through the operations document); args checked against the
 * operation's parameters; every way around the call form (computed names, aliases, the path
 * form, prototype names) refused; the config rule of the entries.
 */
#include "config/checks.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "unit.h"

#include <string.h>

static const char ops_document[] =
    "{\"operations\":["
    "{\"id\":\"listForecasts\",\"method\":\"POST\",\"path\":\"/budgets/listForecasts\","
    "\"action\":\"read\",\"idempotent\":false},"
    "{\"id\":\"getUser\",\"method\":\"GET\",\"path\":\"/users/{id}\",\"action\":\"read\","
    "\"idempotent\":true,\"query\":[\"fields\"]},"
    "{\"id\":\"getMe\",\"method\":\"GET\",\"path\":\"/users/me\",\"action\":\"read\","
    "\"idempotent\":true},"
    "{\"id\":\"update_budget_note\",\"method\":\"PATCH\",\"path\":\"/budgets/{id}/note\","
    "\"action\":\"write\",\"idempotent\":false},"
    "{\"id\":\"createBudget\",\"method\":\"POST\",\"path\":\"/budgets\",\"action\":\"admin\","
    "\"idempotent\":false},"
    "{\"id\":\"deleteBudget\",\"method\":\"DELETE\",\"path\":\"/budgets/{id}\",\"action\":"
    "\"delete\",\"idempotent\":true}]}";

static const char *sdk_ops[] = { "getUser",      "listForecasts", "update_budget_note",
                                 "createBudget", "deleteBudget",  "getMe" };

static sluice_config_code_mode sdk_mode(void)
{
    sluice_config_code_mode cm = { 0 };
    cm.openapi_reads_enabled = true;
    cm.max_api_calls = 50;
    cm.sdk_operations = (sluice_strlist){ sdk_ops, sizeof sdk_ops / sizeof sdk_ops[0] };
    return cm;
}

static sluice_codefacts *analyze(sluice_arena *a, const sluice_config_code_mode *cm, const char *c)
{
    sluice_schema schema = { .document = ops_document, .document_len = strlen(ops_document) };
    sluice_frontend_context ctx = { .code_mode = cm,
                                    .schema = &schema,
                                    .engine = SLUICE_ENGINE_OPENAPI };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_js_frontend()->analyze(a, c, strlen(c), NULL, &ctx, &f, &err),
                     SLUICE_OK);
    return f;
}

static void test_sdk_call_resolves_by_id_as_the_path_form(void **state)
{
    (void)state;
    sluice_config_code_mode cm = sdk_mode();
    sluice_arena *a = sluice_arena_new();
    sluice_codefacts *f =
        analyze(a, &cm,
                "const u = await api.getUser({ id: args.id, fields: \"name\" });\n"
                "return { name: u.name };");
    assert_false(sluice_codefacts_refused(f));
    assert_int_equal(f->operations.count, 1);
    assert_string_equal(f->operations.items[0], "getUser");
    assert_string_equal(f->resources_read.items[0], "/users/{}");
    assert_int_equal(f->action, SLUICE_ACTION_READ);
    assert_int_equal(f->call_count, 1);
    /* a literal fills its parameter as a literal segment, and never re-matches /users/me: the
     * operation is the one named */
    f = analyze(a, &cm, "const u = await api.getUser({ id: \"me\" });\nreturn { n: u.name };");
    assert_false(sluice_codefacts_refused(f));
    assert_string_equal(f->operations.items[0], "getUser");
    assert_string_equal(f->resources_read.items[0], "/users/me");
    f = analyze(a, &cm, "const u = await api.getUser({ id: 7 });\nreturn { n: u.name };");
    assert_string_equal(f->resources_read.items[0], "/users/7");
    /* no argument for an operation without parameters; a write's body as `body` */
    cm.openapi_allow_writes = true;
    f = analyze(a, &cm,
                "await api.getMe();\n"
                "await api.update_budget_note({ id: args.id, body: { note: \"x\" } });\n"
                "return { ok: true };");
    assert_false(sluice_codefacts_refused(f));
    assert_int_equal(f->action, SLUICE_ACTION_WRITE);
    assert_string_equal(f->resources_written.items[0], "/budgets/{}/note");
    /* the call bound counts SDK calls as the path form's */
    f = analyze(a, &cm,
                "const ids = [\"a\", \"b\", \"c\"];\n"
                "const us = await Promise.all(ids.map(id => api.getUser({ id })));\n"
                "return { n: us.length };");
    assert_false(sluice_codefacts_refused(f));
    const sluice_js_facts *x = f->ext;
    assert_int_equal(x->call_bound, 3);
    sluice_arena_free(a);
}

static void test_sdk_unknown_names_and_the_path_form_refused(void **state)
{
    (void)state;
    sluice_config_code_mode cm = sdk_mode();
    sluice_arena *a = sluice_arena_new();
    const sluice_codefacts_violation *v = facts_violation(
        analyze(a, &cm, "await api.getUsr({ id: \"1\" });\nreturn 1;"), "sdk_operations");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "api.getUsr at line 1 is not one of this server's "
                                       "sdk_operations; did you mean 'getUser'?"));
    /* in the spec but not listed: refused as unknown */
    cm.sdk_operations.count = 1;
    assert_non_null(facts_violation(
        analyze(a, &cm, "await api.deleteBudget({ id: \"b1\" });\nreturn 1;"), "sdk_operations"));
    cm = sdk_mode();
    /* SDK mode replaces the path form, as in pmcp */
    v = facts_violation(analyze(a, &cm, "await api.get(\"/users/1\");\nreturn 1;"),
                        "sdk_operations");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "by name (sdk_operations), not by path"));
    /* a listed id that no operation has (the config names a spec of another backend) */
    static const char *ghost[] = { "getGhost" };
    cm.sdk_operations = (sluice_strlist){ ghost, 1 };
    assert_non_null(facts_violation(analyze(a, &cm, "await api.getGhost({});\nreturn 1;"),
                                    "openapi_operation"));
    /* no spec at all: nothing resolves, nothing is allowed */
    sluice_frontend_context bare = { .code_mode = &cm };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    const char *c = "await api.getGhost({});\nreturn 1;";
    assert_int_equal(sluice_js_frontend()->analyze(a, c, strlen(c), NULL, &bare, &f, &err),
                     SLUICE_OK);
    assert_true(sluice_codefacts_refused(f));
    sluice_arena_free(a);
}

static void test_sdk_args_checked_against_the_parameters(void **state)
{
    (void)state;
    sluice_config_code_mode cm = sdk_mode();
    cm.openapi_allow_writes = true;
    sluice_arena *a = sluice_arena_new();
    const sluice_codefacts_violation *v = facts_violation(
        analyze(a, &cm, "await api.getUser({ id: \"1\", feilds: \"x\" });\nreturn 1;"),
        "openapi_parameter");
    assert_non_null(v);
    assert_string_equal(v->message,
                        "'feilds' at line 1 is not a parameter of getUser; did you mean 'fields'?");
    v = facts_violation(analyze(a, &cm, "await api.getUser({ fields: \"x\" });\nreturn 1;"),
                        "openapi_parameter");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "needs the path parameter 'id'"));
    v = facts_violation(
        analyze(a, &cm, "await api.getUser({ id: \"1\" }, { fields: \"x\" });\nreturn 1;"),
        "openapi_parameter");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "takes one argument"));
    /* a body on a read, a query key on a write: not parameters of those */
    assert_non_null(
        facts_violation(analyze(a, &cm, "await api.getUser({ id: \"1\", body: {} });\nreturn 1;"),
                        "openapi_parameter"));
    assert_non_null(facts_violation(
        analyze(a, &cm, "await api.update_budget_note({ id: \"1\", note: \"x\" });\nreturn 1;"),
        "openapi_parameter"));
    /* a literal the run's path rule refuses */
    v = facts_violation(analyze(a, &cm, "await api.getUser({ id: \"..\" });\nreturn 1;"),
                        "js_path");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "fills {id} of getUser"));
    assert_non_null(facts_violation(
        analyze(a, &cm, "await api.getUser({ id: \"a%2e\" });\nreturn 1;"), "js_path"));
    /* a spread or computed key: what it holds is the run's to check, every parameter a hole */
    sluice_codefacts *f =
        analyze(a, &cm, "await api.getUser({ ...args.q, id: \"me\" });\nreturn { ok: 1 };");
    assert_false(sluice_codefacts_refused(f));
    assert_string_equal(f->resources_read.items[0], "/users/{}");
    /* the last of two same keys is the value JavaScript passes */
    f = analyze(a, &cm, "await api.getUser({ id: \"..\", id: args.id });\nreturn { ok: 1 };");
    assert_string_equal(f->resources_read.items[0], "/users/{}");
    sluice_arena_free(a);
}

static void test_sdk_class_policy_is_the_path_forms(void **state)
{
    (void)state;
    sluice_config_code_mode cm = sdk_mode();
    sluice_arena *a = sluice_arena_new();
    /* the derived modes: no writes, no deletes, admin deny_all (createBudget's class is the
     * catalog's "admin", over its method) */
    assert_non_null(facts_violation(
        analyze(a, &cm, "await api.update_budget_note({ id: \"b\", body: {} });\nreturn 1;"),
        "openapi_allow_writes"));
    assert_non_null(
        facts_violation(analyze(a, &cm, "await api.deleteBudget({ id: \"b1\" });\nreturn 1;"),
                        "openapi_allow_deletes"));
    cm.openapi_allow_writes = true;
    assert_non_null(facts_violation(
        analyze(a, &cm, "await api.createBudget({ body: {} });\nreturn 1;"), "admin_mode"));
    /* blocked paths: a literal under one, and a hole whose value could be one */
    const char *paths[] = { "/users/admin" };
    cm.openapi_blocked_paths = (sluice_strlist){ paths, 1 };
    const sluice_codefacts_violation *v =
        facts_violation(analyze(a, &cm, "await api.getUser({ id: \"admin\" });\nreturn 1;"),
                        "openapi_blocked_paths");
    assert_non_null(v);
    assert_string_equal(v->message,
                        "getUser at line 1 is under a blocked path (openapi_blocked_paths)");
    assert_non_null(
        facts_violation(analyze(a, &cm, "await api.getUser({ id: args.id });\nreturn 1;"),
                        "openapi_blocked_paths"));
    assert_null(facts_violation(analyze(a, &cm, "await api.getUser({ id: \"u2\" });\nreturn 1;"),
                                "openapi_blocked_paths"));
    /* an allowlist written with ids and literal paths admits the same calls in both forms */
    cm.openapi_blocked_paths.count = 0;
    const char *writes[] = { "PATCH /budgets/b3/note" };
    cm.write_mode = SLUICE_CLASS_MODE_ALLOWLIST;
    cm.openapi_allowed_writes = (sluice_strlist){ writes, 1 };
    assert_null(facts_violation(
        analyze(a, &cm, "await api.update_budget_note({ id: \"b3\", body: {} });\nreturn 1;"),
        "write_mode"));
    assert_non_null(
        facts_violation(analyze(a, &cm,
                                "await api.update_budget_note({ id: args.id, body: {} });\n"
                                "return 1;"),
                        "write_mode"));
    /* output blocked fields: refused by name as with any plan */
    const char *out[] = { "ssn" };
    cm.openapi_output_blocked_fields = (sluice_strlist){ out, 1 };
    assert_non_null(facts_violation(analyze(a, &cm,
                                            "const u = await api.getUser({ id: \"u2\" });\n"
                                            "return { ssn: u.name };"),
                                    "openapi_output_blocked_fields"));
    sluice_arena_free(a);
}

/* Every way to reach an operation other than the call form itself is refused at validate: a
 * name the analyzer cannot read is a call it cannot judge. */
static void test_sdk_evasions_refused(void **state)
{
    (void)state;
    static const char *const evasions[] = {
        "return await api[\"getUser\"]({ id: \"1\" });",
        "const k = \"getUser\";\nreturn await api[k]({ id: \"1\" });",
        "const f = api.getUser;\nreturn await f({ id: \"1\" });",
        "const { getUser } = api;\nreturn await getUser({ id: \"1\" });",
        "return await (0, api.getUser)({ id: \"1\" });",
        "return await api.getUser.call(null, { id: \"1\" });",
        "return await api.getUser.apply(null, [{ id: \"1\" }]);",
        "const g = api.getUser.bind(null);\nreturn await g({ id: \"1\" });",
        "const o = { f: api.getUser };\nreturn await o.f({ id: \"1\" });",
        "const a = api;\nreturn await a.getUser({ id: \"1\" });",
        "return await [api.getUser][0]({ id: \"1\" });",
        "return await Object.values(api)[0]({ id: \"1\" });",
        "return await api.__proto__.getUser({ id: \"1\" });",
        "return await api.constructor({ id: \"1\" });",
        "return await api.hasOwnProperty(\"getUser\");",
        "return await api.toString();",
        "return await api.valueOf().getUser({ id: \"1\" });",
        "return await api.getUser`x`;",
        "return await new api.getUser({ id: \"1\" });",
        "return await globalThis.api.getUser({ id: \"1\" });",
        "return await api.getUser(...[{ id: \"1\" }]);",
    };
    sluice_config_code_mode cm = sdk_mode();
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < sizeof evasions / sizeof evasions[0]; i++) {
        sluice_codefacts *f = analyze(a, &cm, evasions[i]);
        if (!sluice_codefacts_refused(f))
            fail_msg("allowed: %s", evasions[i]);
    }
    sluice_arena_free(a);
}

static void test_sdk_config_entries(void **state)
{
    (void)state;
    static const char *const good[] = { "getUser", "update_budget_note", "$list", "a1", "then" };
    static const char *const bad[] = { "get",       "delete",    "__proto__",
                                       "__x",       "prototype", "constructor",
                                       "repos/get", "1st",       "get-user",
                                       "",          "a b" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(sluice_checks_sdk_operation(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (sluice_checks_sdk_operation(bad[i]))
            fail_msg("accepted '%s'", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdk_call_resolves_by_id_as_the_path_form),
        cmocka_unit_test(test_sdk_unknown_names_and_the_path_form_refused),
        cmocka_unit_test(test_sdk_args_checked_against_the_parameters),
        cmocka_unit_test(test_sdk_class_policy_is_the_path_forms),
        cmocka_unit_test(test_sdk_evasions_refused),
        cmocka_unit_test(test_sdk_config_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
