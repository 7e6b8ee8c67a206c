/*
 * test_policy.c — src/policy: routing, derived rules, seed 000's policies verbatim against the
 * request model, fail-closed errors, the version hash, and the command backend against
 * tests/programs/policy_cmd_stub (allow, deny, hang, crash, garbage, bad exit).
 */
#include "lang/sql/sql.h"
#include "policy/policy.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEED_CEDAR    SLUICE_SOURCE_DIR "/examples/policies/seed000.cedar"
#define SEED_ENTITIES SLUICE_SOURCE_DIR "/examples/policies/seed000.entities.json"
#define STUB          SLUICE_BINARY_DIR "/policy_cmd_stub"

static const char routes[] = "[[policy.servers]]\n"
                             "id = \"cost-coach:administrator\"\n"
                             "groups = [\"Admins\"]\n"
                             "allow_writes = true\n"
                             "allow_admin = true\n"
                             "[[policy.servers]]\n"
                             "id = \"cost-coach:power-user\"\n"
                             "groups = [\"PowerUsers\", \"Editors\"]\n"
                             "allow_writes = true\n"
                             "allowed_operations = [\"update_budget_note\"]\n"
                             "max_rows = 500\n";

typedef struct fixture {
    sluice_arena *arena;
    sluice_config *config;
    sluice_policy *policy;
    sluice_error err;
} fixture;

/* Loads [code_mode] + policy_toml + routes (NULL: neither) and opens the policy; returns the
 * open status. */
static sluice_status open_with(fixture *fx, const char *policy_toml)
{
    memset(fx, 0, sizeof *fx);
    fx->arena = sluice_arena_new();
    char *text = sluice_arena_printf(fx->arena,
                                     "[code_mode]\nserver_id = \"cost-coach\"\n"
                                     "blocked_fields = [\"ssn\"]\nsql_max_rows = 1000\n%s\n%s",
                                     policy_toml != NULL ? policy_toml : "",
                                     policy_toml != NULL ? routes : "");
    sluice_status st = sluice_config_load_text(text, strlen(text), "<test>", "/", &fx->config,
                                               fx->arena, &fx->err);
    if (st != SLUICE_OK) {
        print_error("config: %s\n", fx->err.message);
        return st;
    }
    return sluice_policy_open(fx->config, &fx->policy, fx->arena, &fx->err);
}

static void close_fixture(fixture *fx)
{
    sluice_policy_close(fx->policy);
    sluice_config_free(fx->config);
    sluice_arena_free(fx->arena);
}

static const char seed_policy[] = "[policy]\nbackend = \"cedar\"\npolicies = \"" SEED_CEDAR
                                  "\"\nentities = \"" SEED_ENTITIES "\"\n";

static sluice_identity who(const char *user, const char *const *groups, size_t n)
{
    return (sluice_identity){ .user_id = user, .groups = groups, .group_count = n };
}

static const char *const standard[] = { "StandardUsers" };
static const char *const power[] = { "PowerUsers" };
static const char *const admins[] = { "Admins" };

/* Facts of a statement: kind, action, the table it writes (or NULL), an output column's
 * lineage (or NULL). */
static sluice_codefacts *facts(sluice_arena *arena,
                               const char *kind,
                               sluice_action action,
                               const char *written,
                               const char *lineage)
{
    sluice_codefacts *f = sluice_sql_facts_new(arena);
    assert_non_null(f);
    f->statement_kind = kind;
    f->action = action;
    snprintf(f->code_hash, sizeof f->code_hash, "%064d", 0);
    if (written != NULL)
        assert_int_equal(sluice_codefacts_list_add(f, &f->resources_written, written), SLUICE_OK);
    assert_int_equal(sluice_sql_name_operations(f), SLUICE_OK); /* as the analyzer names them */
    if (lineage != NULL) {
        sluice_codefacts_output *o;
        assert_int_equal(sluice_codefacts_add_output(f, "x", "VARCHAR", &o), SLUICE_OK);
        assert_int_equal(sluice_codefacts_list_add(f, &o->lineage, lineage), SLUICE_OK);
    }
    return f;
}

static bool decide(fixture *fx,
                   const sluice_identity *id,
                   sluice_action action,
                   const sluice_codefacts *f,
                   sluice_policy_decision *d)
{
    const sluice_policy_route *route = sluice_policy_route_for(fx->policy, id);
    assert_int_equal(
        sluice_policy_evaluate(fx->policy, fx->arena, id, route, action, f, d, &fx->err),
        SLUICE_OK);
    json_decref(d->request);
    d->request = NULL;
    return d->allow;
}

static void test_policy_routes_first_matching_group(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"none\"\n"), SLUICE_OK);
    const char *const both[] = { "PowerUsers", "Admins" };
    const char *const editor[] = { "Editors" };
    sluice_identity a = who("alice", standard, 1), p = who("pat", power, 1), b = who("bo", both, 2),
                    e = who("ed", editor, 1), n = who("nobody", NULL, 0);
    assert_string_equal(sluice_policy_route_for(fx.policy, &a)->id, "cost-coach");
    assert_true(sluice_policy_route_for(fx.policy, &a)->is_default);
    assert_string_equal(sluice_policy_route_for(fx.policy, &p)->id, "cost-coach:power-user");
    assert_string_equal(sluice_policy_route_for(fx.policy, &e)->id, "cost-coach:power-user");
    /* Order of the [[policy.servers]] entries decides, not the order of the caller's groups. */
    assert_string_equal(sluice_policy_route_for(fx.policy, &b)->id, "cost-coach:administrator");
    assert_string_equal(sluice_policy_route_for(fx.policy, &n)->id, "cost-coach");
    assert_string_equal(sluice_policy_route_for(fx.policy, NULL)->id, "cost-coach");
    close_fixture(&fx);
}

static void test_policy_route_derives_rules_and_keeps_the_rest(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"none\"\n"), SLUICE_OK);
    sluice_identity p = who("pat", power, 1), a = who("alice", standard, 1);
    const sluice_config_code_mode *pr = sluice_policy_route_for(fx.policy, &p)->rules;
    const sluice_config_code_mode *ar = sluice_policy_route_for(fx.policy, &a)->rules;
    assert_true(pr->sql_allow_writes);
    assert_false(pr->sql_allow_deletes); /* absent: inherited */
    assert_false(pr->sql_allow_ddl);
    assert_int_equal(pr->sql_max_rows, 500);
    /* Everything a route does not override is [code_mode]'s: the built-in rules still run. */
    assert_int_equal(pr->sql_blocked_columns.count, 1);
    assert_true(pr->sql_require_where_on_writes);
    assert_false(ar->sql_allow_writes);
    assert_int_equal(ar->sql_max_rows, 1000);
    assert_ptr_equal(ar, &fx.config->code_mode);
    /* The engine opens writable because one route writes; DDL because the admin route may. */
    assert_true(sluice_policy_engine_rules(fx.policy)->sql_allow_writes);
    assert_true(sluice_policy_engine_rules(fx.policy)->sql_allow_ddl);
    assert_false(sluice_policy_engine_rules(fx.policy)->sql_allow_deletes);
    assert_false(sluice_policy_active(fx.policy));
    close_fixture(&fx);
}

static void test_policy_none_allows_and_is_logged_as_rules_only(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, NULL), SLUICE_OK); /* no [policy] table at all */
    sluice_identity a = who("alice", standard, 1);
    sluice_policy_decision d;
    assert_true(decide(&fx, &a, SLUICE_ACTION_ADMIN, NULL, &d));
    assert_string_equal(sluice_policy_backend_name(fx.policy), "none");
    close_fixture(&fx);
}

static void test_policy_seed000_verbatim(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, seed_policy), SLUICE_OK);
    sluice_identity a = who("alice", standard, 1), p = who("pat", power, 1),
                    ad = who("ada", admins, 1);
    sluice_policy_decision d;
    sluice_codefacts *read = facts(fx.arena, "SELECT", SLUICE_ACTION_READ, NULL, "customers.name");
    sluice_codefacts *note = facts(fx.arena, "UPDATE", SLUICE_ACTION_WRITE, "budget_note", NULL);
    sluice_codefacts *cust = facts(fx.arena, "UPDATE", SLUICE_ACTION_WRITE, "customers", NULL);
    sluice_codefacts *ddl = facts(fx.arena, "CREATE", SLUICE_ACTION_ADMIN, "t2", NULL);
    /* Standard users read, and nothing else. */
    assert_true(decide(&fx, &a, SLUICE_ACTION_READ, read, &d));
    assert_string_equal(d.reasons[0].id, "policy0");
    assert_false(decide(&fx, &a, SLUICE_ACTION_WRITE, note, &d));
    assert_int_equal(d.reason_count, 0); /* default deny */
    /* Power users (StandardUsers through the entities file) write through the operation only. */
    assert_true(decide(&fx, &p, SLUICE_ACTION_READ, read, &d));
    assert_true(decide(&fx, &p, SLUICE_ACTION_WRITE, note, &d));
    assert_string_equal(d.reasons[0].id, "policy1");
    assert_false(decide(&fx, &p, SLUICE_ACTION_WRITE, cust, &d));
    assert_false(decide(&fx, &p, SLUICE_ACTION_ADMIN, ddl, &d));
    /* A caller who only claims the group name of another route's user gains nothing else. */
    assert_false(decide(&fx, &a, SLUICE_ACTION_ADMIN, ddl, &d));
    /* Admins run Admin actions on their route (allow_admin = true). */
    assert_true(decide(&fx, &ad, SLUICE_ACTION_ADMIN, ddl, &d));
    assert_string_equal(d.reasons[0].id, "policy2");
    close_fixture(&fx);
}

static void test_policy_blocked_output_forbid_holds_for_everyone(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, seed_policy), SLUICE_OK);
    const sluice_identity ids[] = { who("alice", standard, 1), who("pat", power, 1),
                                    who("ada", admins, 1) };
    for (size_t i = 0; i < 3; i++) {
        sluice_policy_decision d;
        sluice_codefacts *leak =
            facts(fx.arena, "SELECT", SLUICE_ACTION_READ, NULL, "customers.ssn");
        assert_false(decide(&fx, &ids[i], SLUICE_ACTION_READ, leak, &d));
        assert_int_equal(d.reason_count, 1);
        assert_true(d.reasons[0].forbid);
        assert_string_equal(d.reasons[0].id, "policy3");
        const sluice_policy_route *route = sluice_policy_route_for(fx.policy, &ids[i]);
        sluice_verdict v;
        sluice_verdict_init(&v, fx.arena);
        assert_int_equal(sluice_policy_verdict(&d, SLUICE_ACTION_READ, route, &v), SLUICE_OK);
        assert_true(v.refused);
        assert_string_equal(v.violations[0].rule, "policy");
        assert_non_null(strstr(v.violations[0].message, "policy3"));
        assert_non_null(strstr(v.violations[0].message, "blocked output field"));
        assert_int_equal(leak->violation_count, 0); /* policy never writes the analyzer's facts */
    }
    close_fixture(&fx);
}

/* Writes text to a fresh file in dir; returns its path. */
static char *write_file(sluice_arena *arena, const char *dir, const char *name, const char *text)
{
    char *path = sluice_arena_printf(arena, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_policy_evaluation_error_fails_closed(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice-policy-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sluice_arena *scratch = sluice_arena_new();
    /* The first policy permits everything; the second errors (no such attribute). Cedar alone
     * would allow; sluice denies because a policy could not be evaluated. */
    char *file =
        write_file(scratch, dir, "p.cedar",
                   "permit (principal, action, resource);\n"
                   "@id(\"broken\")\n"
                   "forbid (principal, action, resource) when { resource.nosuch == 1 };\n");
    fixture fx;
    char *toml =
        sluice_arena_printf(scratch, "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\n", file);
    assert_int_equal(open_with(&fx, toml), SLUICE_OK);
    sluice_identity a = who("alice", standard, 1);
    sluice_policy_decision d;
    sluice_codefacts *f = facts(fx.arena, "SELECT", SLUICE_ACTION_READ, NULL, NULL);
    assert_false(decide(&fx, &a, SLUICE_ACTION_READ, f, &d));
    assert_int_equal(d.error_count, 1);
    assert_non_null(strstr(d.errors[0], "broken"));
    sluice_verdict v;
    sluice_verdict_init(&v, fx.arena);
    assert_int_equal(
        sluice_policy_verdict(&d, SLUICE_ACTION_READ, sluice_policy_route_for(fx.policy, &a), &v),
        SLUICE_OK);
    assert_string_equal(v.violations[0].rule, "policy_error");
    assert_true(v.refused);
    close_fixture(&fx);
    unlink(file);
    rmdir(dir);
    sluice_arena_free(scratch);
}

static void test_policy_version_changes_with_policy_text(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice-policy-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sluice_arena *scratch = sluice_arena_new();
    char *file = write_file(scratch, dir, "p.cedar", "permit (principal, action, resource);\n");
    char *toml =
        sluice_arena_printf(scratch, "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\n", file);
    fixture a, b;
    assert_int_equal(open_with(&a, toml), SLUICE_OK);
    char *first = sluice_arena_strdup(scratch, sluice_policy_version(a.policy));
    close_fixture(&a);
    assert_int_equal(open_with(&b, toml), SLUICE_OK);
    assert_string_equal(first, sluice_policy_version(b.policy)); /* deterministic */
    close_fixture(&b);
    write_file(scratch, dir, "p.cedar", "forbid (principal, action, resource);\n");
    assert_int_equal(open_with(&b, toml), SLUICE_OK);
    assert_string_not_equal(first, sluice_policy_version(b.policy));
    close_fixture(&b);
    assert_int_equal(open_with(&b, "[policy]\nbackend = \"none\"\n"), SLUICE_OK);
    assert_string_not_equal(first, sluice_policy_version(b.policy));
    close_fixture(&b);
    unlink(file);
    rmdir(dir);
    sluice_arena_free(scratch);
}

static void test_policy_cedar_bad_files_refuse_to_start(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice-policy-XXXXXX";
    assert_non_null(mkdtemp(dir));
    sluice_arena *scratch = sluice_arena_new();
    char *bad = write_file(scratch, dir, "bad.cedar", "permit (principal, action, resource)\n");
    fixture fx;
    assert_int_equal(open_with(&fx, sluice_arena_printf(scratch,
                                                        "[policy]\nbackend = \"cedar\"\n"
                                                        "policies = \"%s\"\n",
                                                        bad)),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(fx.err.message, "policies"));
    close_fixture(&fx);
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"cedar\"\n"
                                    "policies = \"/nonexistent/p.cedar\"\n"),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(fx.err.message, "cannot read"));
    close_fixture(&fx);
    /* The seed's own schema does not declare Server attributes sluice's policies could use, but
     * the seed policies validate against it. */
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"cedar\"\npolicies = \"" SEED_CEDAR
                                    "\"\nschema = \"" SLUICE_SOURCE_DIR
                                    "/examples/policies/seed000.schema.json\"\n"),
                     SLUICE_OK);
    close_fixture(&fx);
    unlink(bad);
    rmdir(dir);
    sluice_arena_free(scratch);
}

/* ---- command backend ------------------------------------------------------------------------ */

/* The stub's decision in mode; *errors gets the decision's error count. The timeout is generous
 * (a sanitized stub on a loaded machine starts slowly) except for the "hang" mode, which must be
 * cut off at its 300 ms. */
static bool command_decides(const char *mode, sluice_action action, size_t *errors)
{
    fixture fx;
    char toml[512];
    snprintf(toml, sizeof toml,
             "[policy]\nbackend = \"command\"\ncommand = [\"%s\", \"%s\"]\ntimeout_ms = %d\n", STUB,
             mode, strcmp(mode, "hang") == 0 ? 300 : 20000);
    assert_int_equal(open_with(&fx, toml), SLUICE_OK);
    assert_string_equal(sluice_policy_backend_name(fx.policy), "command");
    sluice_identity a = who("alice", standard, 1);
    sluice_policy_decision d;
    bool allow = decide(&fx, &a, action, NULL, &d);
    *errors = d.error_count;
    print_message("%s: %s %s\n", mode, allow ? "allow" : "deny",
                  d.error_count > 0    ? d.errors[0]
                  : d.reason_count > 0 ? d.reasons[0].id
                                       : "");
    close_fixture(&fx);
    return allow;
}

static void test_policy_command_allows_and_denies(void **state)
{
    (void)state;
    size_t errors;
    assert_true(command_decides("allow", SLUICE_ACTION_READ, &errors));
    assert_int_equal(errors, 0);
    assert_false(command_decides("deny", SLUICE_ACTION_READ, &errors));
    assert_int_equal(errors, 0);
    assert_true(command_decides("reads-only", SLUICE_ACTION_READ, &errors));
    assert_false(command_decides("reads-only", SLUICE_ACTION_WRITE, &errors));
    /* Answering without reading the request is fine (and must not SIGPIPE the server). */
    assert_true(command_decides("noread", SLUICE_ACTION_READ, &errors));
}

static void test_policy_command_failures_deny(void **state)
{
    (void)state;
    static const char *const modes[] = { "hang", "crash", "garbage", "badexit" };
    for (size_t i = 0; i < 4; i++) {
        size_t errors;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_false(command_decides(modes[i], SLUICE_ACTION_READ, &errors));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        assert_int_equal(errors, 1);
        /* A hanging program is killed at timeout_ms (300), not waited for; the others are
         * detected when they exit, long before their 20 s timeout. */
        assert_true(t1.tv_sec - t0.tv_sec < (i == 0 ? 3 : 15));
    }
}

static void test_policy_command_missing_program_refuses_to_start(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"command\"\n"
                                    "command = [\"/nonexistent/decider\"]\n"),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(fx.err.message, "/nonexistent/decider"));
    close_fixture(&fx);
}

static void test_policy_request_model(void **state)
{
    (void)state;
    fixture fx;
    assert_int_equal(open_with(&fx, "[policy]\nbackend = \"none\"\n"), SLUICE_OK);
    sluice_identity p = who("pat", power, 1);
    const sluice_policy_route *route = sluice_policy_route_for(fx.policy, &p);
    sluice_codefacts *f = facts(fx.arena, "UPDATE", SLUICE_ACTION_WRITE, "Budget_Note", NULL);
    json_t *r = sluice_policy_request_json(fx.policy, &p, route, SLUICE_ACTION_WRITE, f);
    assert_non_null(r);
    json_t *attrs = json_object_get(json_object_get(r, "resource"), "attrs");
    assert_string_equal(json_string_value(json_object_get(json_object_get(r, "resource"), "id")),
                        "cost-coach:power-user");
    assert_string_equal(json_string_value(json_object_get(attrs, "serverId")), "cost-coach");
    assert_true(json_is_true(json_object_get(attrs, "allowWrite")));
    assert_true(json_is_false(json_object_get(attrs, "allowDelete")));
    assert_int_equal(json_integer_value(json_object_get(attrs, "maxRows")), 500);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(attrs, "outputBlockedFields"), 0)), "ssn");
    json_t *ops = json_object_get(json_object_get(json_object_get(r, "context"), "script"),
                                  "calledOperations");
    assert_string_equal(json_string_value(json_array_get(ops, 0)), "update_budget_note");
    assert_string_equal(json_string_value(json_object_get(json_object_get(r, "action"), "id")),
                        "Write");
    json_decref(r);
    close_fixture(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_routes_first_matching_group),
        cmocka_unit_test(test_policy_route_derives_rules_and_keeps_the_rest),
        cmocka_unit_test(test_policy_none_allows_and_is_logged_as_rules_only),
        cmocka_unit_test(test_policy_seed000_verbatim),
        cmocka_unit_test(test_policy_blocked_output_forbid_holds_for_everyone),
        cmocka_unit_test(test_policy_evaluation_error_fails_closed),
        cmocka_unit_test(test_policy_version_changes_with_policy_text),
        cmocka_unit_test(test_policy_cedar_bad_files_refuse_to_start),
        cmocka_unit_test(test_policy_command_allows_and_denies),
        cmocka_unit_test(test_policy_command_failures_deny),
        cmocka_unit_test(test_policy_command_missing_program_refuses_to_start),
        cmocka_unit_test(test_policy_request_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
