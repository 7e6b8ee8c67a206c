/*
 * test_class_policy.c — the OpenAPI class policy (facts/class_policy.h; pmcp-code-mode 0.7's
 * openapi_* keys): blocked path globs against literal paths, templates and percent-encoded
 * resolved paths; blocked methods and operations in every class; the four modes, derived and
 * written; allowlist entries against run-time segments; the JavaScript front end's refusals and
 * openapi_require_output_declaration; and an allocation-failure sweep that never allows.
 */
#include "facts/class_policy.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "unit.h"

#include <string.h>

static int blocked(const char *pattern, const char *path)
{
    sluice_arena *a = sluice_arena_new();
    int r = sluice_class_policy_path_blocked(a, pattern, path);
    sluice_arena_free(a);
    return r;
}

static void test_class_blocked_path_globs(void **state)
{
    (void)state;
    /* no '*': the path and its subtree, any case, not a longer name */
    assert_int_equal(blocked("/admin", "/admin"), 1);
    assert_int_equal(blocked("/admin/", "/ADMIN/users"), 1);
    assert_int_equal(blocked("/Admin", "/admin/x/y"), 1);
    assert_int_equal(blocked("/admin", "/administrators"), 0);
    assert_int_equal(blocked("/admin", "/users/admin"), 0);
    /* '*' is any run, '/' included */
    assert_int_equal(blocked("/users/*/secrets", "/users/4/secrets"), 1);
    assert_int_equal(blocked("/users/*/secrets", "/users/4/5/secrets"), 1);
    assert_int_equal(blocked("/users/*/secrets", "/users/4"), 0);
    assert_int_equal(blocked("*secret*", "/x/top-secrets"), 1);
    assert_int_equal(blocked("/", "/anything"), 1);
    assert_int_equal(blocked("*", "/anything"), 1);
}

static void test_class_templates_cannot_reach_blocked_paths(void **state)
{
    (void)state;
    /* a run-time segment could be "admin", "dmin", "x-secret-y" ... */
    assert_int_equal(blocked("/admin", "/{}"), 1);
    assert_int_equal(blocked("/admin", "/a{}"), 1);
    assert_int_equal(blocked("/admin", "/{id}/users"), 1);
    assert_int_equal(blocked("*secret*", "/files/{}"), 1);
    assert_int_equal(blocked("/users/*/secrets", "/users/{}/secrets"), 1);
    /* ... but never a '/': the executor encodes the value into one segment */
    assert_int_equal(blocked("/users/*/secrets", "/users/{}"), 0);
    assert_int_equal(blocked("/internal/keys", "/{}"), 0);
    assert_int_equal(blocked("/admin", "/items/{}"), 0);
    /* the resolved path is read as the upstream will decode it */
    assert_int_equal(blocked("/admin", "/%61dmin"), 1);
    assert_int_equal(blocked("/users/*/secrets", "/users/a%2Fb/secrets"), 1);
    assert_int_equal(blocked("/internal", "/x%2F..%2Finternal"), 0);
    assert_int_equal(blocked("*/internal*", "/x%2F..%2Finternal"), 1);
}

static sluice_config_code_mode base(void)
{
    sluice_config_code_mode cm = { 0 };
    cm.openapi_reads_enabled = true;
    return cm;
}

static const char *verdict(const sluice_config_code_mode *cm,
                           const char *method,
                           const char *path,
                           const char *id,
                           sluice_action act)
{
    static char rule[64];
    sluice_arena *a = sluice_arena_new();
    sluice_class_call v = { .method = method, .path = path, .op_id = id, .action = act };
    sluice_class_refusal r;
    bool ok = sluice_class_policy_allows(a, cm, &v, &r);
    snprintf(rule, sizeof rule, "%s", ok ? "ok" : r.rule);
    if (!ok) {
        assert_non_null(r.why);
        assert_null(strstr(r.why, path)); /* names the rule, never the (run-time) path */
    }
    sluice_arena_free(a);
    return rule;
}

#define R SLUICE_ACTION_READ
#define W SLUICE_ACTION_WRITE
#define D SLUICE_ACTION_DELETE
#define A SLUICE_ACTION_ADMIN

static void test_class_derived_modes_are_pmcps(void **state)
{
    (void)state;
    sluice_config_code_mode cm = base();
    assert_string_equal(verdict(&cm, "GET", "/items", NULL, R), "ok");
    assert_string_equal(verdict(&cm, "POST", "/items", NULL, W), "openapi_allow_writes");
    assert_string_equal(verdict(&cm, "DELETE", "/items/{}", NULL, D), "openapi_allow_deletes");
    assert_string_equal(verdict(&cm, "POST", "/reset", "reset", A), "admin_mode");
    /* admin stays deny_all when writes and deletes are on */
    cm.openapi_allow_writes = cm.openapi_allow_deletes = true;
    assert_string_equal(verdict(&cm, "POST", "/reset", "reset", A), "admin_mode");
    assert_string_equal(verdict(&cm, "DELETE", "/items/{}", NULL, D), "ok");
    cm.openapi_reads_enabled = false;
    assert_string_equal(verdict(&cm, "GET", "/items", NULL, R), "openapi_reads_enabled");
    /* a write allowlist without the switch is still deny_all */
    const char *only[] = { "POST /items" };
    sluice_config_code_mode off = base();
    off.openapi_allowed_writes = (sluice_strlist){ only, 1 };
    assert_int_equal(sluice_class_policy_mode(&off, W), SLUICE_CLASS_MODE_DENY_ALL);
    off.openapi_allow_writes = true;
    assert_int_equal(sluice_class_policy_mode(&off, W), SLUICE_CLASS_MODE_ALLOWLIST);
    /* no config: reads only */
    assert_string_equal(verdict(NULL, "GET", "/x", NULL, R), "ok");
    assert_string_equal(verdict(NULL, "POST", "/x", NULL, W), "openapi_allow_writes");
}

static void test_class_allowlists_match_templates_and_ids(void **state)
{
    (void)state;
    const char *allowed[] = { "PUT:/items/{id}", "renameItem", "post /notes" };
    sluice_config_code_mode cm = base();
    cm.write_mode = SLUICE_CLASS_MODE_ALLOWLIST; /* written: no switch needed */
    cm.openapi_allowed_writes = (sluice_strlist){ allowed, 3 };
    assert_string_equal(verdict(&cm, "PUT", "/items/7", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "PUT", "/items/{}", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "POST", "/items/9/rename", "renameItem", W), "ok");
    assert_string_equal(verdict(&cm, "POST", "/NOTES", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "PUT", "/items/7/owner", NULL, W), "write_mode");
    assert_string_equal(verdict(&cm, "POST", "/items/7", NULL, W), "write_mode");
    assert_string_equal(verdict(&cm, "POST", "/items/9/rename", "renameitem", W), "write_mode");
    /* a literal entry does not admit a run-time segment: its value is unknown */
    const char *literal[] = { "PUT /items/7" };
    cm.openapi_allowed_writes = (sluice_strlist){ literal, 1 };
    assert_string_equal(verdict(&cm, "PUT", "/items/7", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "PUT", "/items/{}", NULL, W), "write_mode");
    /* admin has its own allowlist and mode */
    const char *admin[] = { "reindex" };
    cm.admin_mode = SLUICE_CLASS_MODE_ALLOWLIST;
    cm.openapi_allowed_admin = (sluice_strlist){ admin, 1 };
    assert_string_equal(verdict(&cm, "POST", "/reindex", "reindex", A), "ok");
    assert_string_equal(verdict(&cm, "POST", "/purge", "purge", A), "admin_mode");
    /* an explicit allow_all wins over the switch, deny_all over the switch too */
    cm.delete_mode = SLUICE_CLASS_MODE_ALLOW_ALL;
    assert_string_equal(verdict(&cm, "DELETE", "/x", NULL, D), "ok");
    cm.read_mode = SLUICE_CLASS_MODE_DENY_ALL;
    assert_string_equal(verdict(&cm, "GET", "/x", NULL, R), "read_mode");
}

static void test_class_blocks_apply_in_every_class(void **state)
{
    (void)state;
    const char *blocked_ops[] = { "PATCH", "POST /items", "GET:/secrets/{id}", "purge" };
    const char *paths[] = { "/internal" };
    sluice_config_code_mode cm = base();
    cm.write_mode = cm.delete_mode = cm.admin_mode = SLUICE_CLASS_MODE_ALLOW_ALL;
    cm.openapi_blocked_writes = (sluice_strlist){ blocked_ops, 4 };
    cm.openapi_blocked_paths = (sluice_strlist){ paths, 1 };
    assert_string_equal(verdict(&cm, "patch", "/x", NULL, W), "openapi_blocked_writes");
    assert_string_equal(verdict(&cm, "POST", "/items", NULL, W), "openapi_blocked_writes");
    assert_string_equal(verdict(&cm, "PUT", "/items", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "GET", "/secrets/{}", NULL, R), "openapi_blocked_writes");
    assert_string_equal(verdict(&cm, "GET", "/secrets/42", NULL, R), "openapi_blocked_writes");
    assert_string_equal(verdict(&cm, "POST", "/x/y", "purge", A), "openapi_blocked_writes");
    assert_string_equal(verdict(&cm, "GET", "/Internal/keys", NULL, R), "openapi_blocked_paths");
    assert_string_equal(verdict(&cm, "GET", "/{}/keys", NULL, R), "openapi_blocked_paths");
    /* blocklist mode is allow_all but the blocks */
    cm.write_mode = SLUICE_CLASS_MODE_BLOCKLIST;
    assert_string_equal(verdict(&cm, "PUT", "/items", NULL, W), "ok");
    assert_string_equal(verdict(&cm, "POST", "/items", NULL, W), "openapi_blocked_writes");
}

/* Fails each allocation in turn: a verdict reached after a failure is never "allowed" when a
 * block had to be checked. */
static void test_class_allocation_failures_never_allow(void **state)
{
    (void)state;
    const char *paths[] = { "/internal", "/users/*/ssn" };
    sluice_config_code_mode cm = base();
    cm.openapi_blocked_paths = (sluice_strlist){ paths, 2 };
    size_t failed = 0;
    for (long nth = 1; nth < 200; nth++) {
        sluice_arena *a = sluice_arena_new();
        assert_non_null(a);
        sluice_class_call v = { .method = "GET",
                                .path = "/users/{}/profile",
                                .action = SLUICE_ACTION_READ };
        sluice_class_refusal r;
        sluice_arena_fail_at(nth);
        bool ok = sluice_class_policy_allows(a, &cm, &v, &r);
        sluice_arena_fail_at(0);
        if (sluice_arena_failed(a)) {
            failed++;
            assert_false(ok);
            assert_non_null(r.why);
        } else {
            assert_true(ok);
            sluice_arena_free(a);
            break;
        }
        sluice_arena_free(a);
    }
    assert_true(failed > 0);
}

static sluice_codefacts *analyze(sluice_arena *a, const sluice_config_code_mode *cm, const char *c)
{
    sluice_frontend_context ctx = { .code_mode = cm };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    const sluice_frontend *fe = sluice_lang_find("javascript");
    assert_non_null(fe);
    assert_int_equal(fe->analyze(a, c, strlen(c), NULL, &ctx, &f, &err), SLUICE_OK);
    return f;
}

static void test_class_front_end_refuses_each_call(void **state)
{
    (void)state;
    const char *paths[] = { "/admin" };
    sluice_config_code_mode cm = base();
    cm.max_api_calls = 50;
    cm.openapi_blocked_paths = (sluice_strlist){ paths, 1 };
    sluice_arena *a = sluice_arena_new();
    /* a template whose value could be "admin": refused before it runs */
    const sluice_codefacts *f =
        analyze(a, &cm, "const r = await api.get(`/${args.where}`);\nreturn { n: r.length };");
    const sluice_codefacts_violation *v = facts_violation(f, "openapi_blocked_paths");
    assert_non_null(v);
    assert_int_equal(v->line, 1);
    assert_string_equal(v->message, "GET /{} at line 1 is under a blocked path "
                                    "(openapi_blocked_paths)");
    f = analyze(a, &cm, "await api.get('/ADMIN/users');\nreturn 1;");
    assert_non_null(facts_violation(f, "openapi_blocked_paths"));
    f = analyze(a, &cm, "const r = await api.get(`/items/${args.id}`);\nreturn { id: r.id };");
    assert_false(sluice_codefacts_refused(f));
    /* every refused call is reported, each under its own key */
    f = analyze(a, &cm, "await api.post('/a', {});\nawait api.delete('/b');\nreturn 1;");
    assert_non_null(facts_violation(f, "openapi_allow_writes"));
    assert_non_null(facts_violation(f, "openapi_allow_deletes"));
    sluice_arena_free(a);
}

static void test_class_output_declaration_required(void **state)
{
    (void)state;
    sluice_config_code_mode cm = base();
    cm.max_api_calls = 50;
    cm.openapi_require_output_declaration = true;
    static const char *const declared[] = {
        "const r = await api.get('/items');\nreturn { count: r.length, first: r[0] };",
        "const r = await api.get('/items');\nreturn r.map(x => ({ id: x.id, name: x.name }));",
        "const r = await api.get('/items');\nreturn [{ a: 1 }, { b: r.length }];",
        "await api.get('/items');\nreturn;",
        "const r = await api.get('/items');\nif (r.length > 0) { return { n: r.length }; }\n"
        "return { n: 0 };",
    };
    static const char *const undeclared[] = {
        "const r = await api.get('/items');\nreturn r;",
        "const r = await api.get('/items');\nreturn { ...r[0] };",
        "const r = await api.get('/items');\nconst k = 'ssn';\nreturn { [k]: r[0][k] };",
        "const r = await api.get('/items');\nreturn r.map(x => x);",
        "const r = await api.get('/items');\nif (r.length > 0) { return { n: 1 }; }\nreturn r;",
        "const r = await api.get('/items');\nreturn [r[0]];",
    };
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < sizeof declared / sizeof declared[0]; i++)
        if (facts_violation(analyze(a, &cm, declared[i]), "openapi_require_output_declaration") !=
            NULL)
            fail_msg("refused a declared shape: %s", declared[i]);
    for (size_t i = 0; i < sizeof undeclared / sizeof undeclared[0]; i++)
        if (facts_violation(analyze(a, &cm, undeclared[i]), "openapi_require_output_declaration") ==
            NULL)
            fail_msg("allowed an undeclared shape: %s", undeclared[i]);
    cm.openapi_require_output_declaration = false;
    assert_null(
        facts_violation(analyze(a, &cm, undeclared[0]), "openapi_require_output_declaration"));
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_blocked_path_globs),
        cmocka_unit_test(test_class_templates_cannot_reach_blocked_paths),
        cmocka_unit_test(test_class_derived_modes_are_pmcps),
        cmocka_unit_test(test_class_allowlists_match_templates_and_ids),
        cmocka_unit_test(test_class_blocks_apply_in_every_class),
        cmocka_unit_test(test_class_allocation_failures_never_allow),
        cmocka_unit_test(test_class_front_end_refuses_each_call),
        cmocka_unit_test(test_class_output_declaration_required),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
