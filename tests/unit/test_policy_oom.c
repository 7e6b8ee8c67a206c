/*
 * test_policy_oom.c — policy decisions under allocation failure: every allocation point of an
 * evaluation (the request JSON, Cedar's entities and evaluator, the violations it adds) is
 * failed in turn. A failure never yields Allow where the policy denies (a deny or an error is
 * fine), and an Allow is only ever the right one (the permit that decides it).
 */
#include "lang/sql/sql.h"
#include "oom_sweep.h"
#include "policy/policy.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED_CEDAR    SLUICE_SOURCE_DIR "/examples/policies/seed000.cedar"
#define SEED_ENTITIES SLUICE_SOURCE_DIR "/examples/policies/seed000.entities.json"

/* Seed 000 plus a forbid that only a group in the request can trigger: a request that lost
 * a group (or a blocked field, or an operation) must not turn into an Allow. */
static const char extra_cedar[] =
    "@id(\"no-contractors\")\n"
    "forbid (principal in CodeMode::Group::\"Contractors\", action, resource);\n";

static const char routes[] = "[[policy.servers]]\n"
                             "id = \"cost-coach:power-user\"\n"
                             "groups = [\"PowerUsers\"]\n"
                             "allow_writes = true\n"
                             "allowed_operations = [\"update_budget_note\"]\n";

static sluice_arena *keep;
static sluice_config *config;
static sluice_policy *policy;
static char dir[] = "/tmp/sluice-policy-oom-XXXXXX";
static char *cedar_path;

static int setup(void **state)
{
    (void)state;
    keep = sluice_arena_new();
    if (keep == NULL || mkdtemp(dir) == NULL)
        return -1;
    cedar_path = sluice_arena_printf(keep, "%s/p.cedar", dir);
    FILE *out = fopen(cedar_path, "w"), *in = fopen(SEED_CEDAR, "r");
    if (out == NULL || in == NULL)
        return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fputs(extra_cedar, out);
    fclose(in);
    fclose(out);
    char *text = sluice_arena_printf(
        keep,
        "[code_mode]\nserver_id = \"cost-coach\"\nblocked_fields = [\"ssn\"]\n"
        "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\nentities = \"%s\"\n%s",
        cedar_path, SEED_ENTITIES, routes);
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_config_load_text(text, strlen(text), "<test>", "/", &config, keep, &err) !=
            SLUICE_OK ||
        sluice_policy_open(config, &policy, keep, &err) != SLUICE_OK) {
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
        return -1;
    }
    oom_count_jansson();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_policy_close(policy);
    sluice_config_free(config);
    unlink(cedar_path);
    rmdir(dir);
    sluice_arena_free(keep);
    return 0;
}

typedef struct decision_case {
    const char *user;
    const char *const *groups;
    size_t group_count;
    sluice_action action;
    const char *kind;
    const char *written; /* table written, or NULL */
    const char *lineage; /* the output column's base column, or NULL */
    const char *permit;  /* for an Allow: the policy that must decide it */
} decision_case;

static sluice_codefacts *facts_of(sluice_arena *arena, const decision_case *c)
{
    sluice_codefacts *f = sluice_sql_facts_new(arena);
    if (f == NULL)
        return NULL;
    f->statement_kind = c->kind;
    f->action = c->action;
    snprintf(f->code_hash, sizeof f->code_hash, "%064d", 0);
    sluice_codefacts_output *o = NULL;
    if ((c->written != NULL &&
         sluice_codefacts_list_add(f, &f->resources_written, c->written) != SLUICE_OK) ||
        (c->lineage != NULL &&
         (sluice_codefacts_add_output(f, "x", "VARCHAR", &o) != SLUICE_OK ||
          sluice_codefacts_list_add(f, &o->lineage, c->lineage) != SLUICE_OK)) ||
        sluice_sql_name_operations(f) != SLUICE_OK) /* as the analyzer names them */
        return NULL;
    return f;
}

/* Evaluates the case, then (on deny) turns the decision into a verdict as the pipeline does: a
 * deny whose reasons were lost must still be a refusing verdict. */
static oom_outcome decide(sluice_arena *arena, const decision_case *c)
{
    sluice_codefacts *f = facts_of(arena, c);
    if (f == NULL)
        return OOM_FAILED;
    sluice_identity who = { .user_id = c->user,
                            .groups = c->groups,
                            .group_count = c->group_count };
    const sluice_policy_route *route = sluice_policy_route_for(policy, &who);
    sluice_policy_decision d;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_policy_evaluate(policy, arena, &who, route, c->action, f, &d, &err);
    json_decref(d.request);
    if (st != SLUICE_OK)
        return OOM_FAILED;
    if (d.allow) {
        bool right = c->permit != NULL && d.reason_count > 0 &&
                     strcmp(d.reasons[0].id, c->permit) == 0 && !sluice_codefacts_refused(f);
        return right ? OOM_ALLOWED : OOM_WRONG;
    }
    sluice_verdict v;
    sluice_verdict_init(&v, arena);
    if (sluice_policy_verdict(&d, c->action, route, &v) != SLUICE_OK)
        return v.refused ? OOM_FAILED : OOM_WRONG;
    return v.refused ? OOM_REFUSED : OOM_WRONG;
}

static oom_outcome run_case(void *ctx)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    oom_outcome o = decide(arena, ctx);
    sluice_arena_free(arena);
    return o;
}

static const char *const power[] = { "PowerUsers" };
static const char *const contractor[] = { "StandardUsers", "Contractors" };
static const char *const standard[] = { "StandardUsers" };

static void sweep(const char *name, const decision_case *c, oom_outcome expect)
{
    long points = oom_sweep(name, run_case, (void *)c, expect,
                            OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
}

static void test_policy_oom_permitted_write_is_right_or_an_error(void **state)
{
    (void)state;
    decision_case c = { "pat",    power,         1,    SLUICE_ACTION_WRITE,
                        "UPDATE", "budget_note", NULL, "policy1" };
    sweep("power user writes through the operation", &c, OOM_ALLOWED);
}

static void test_policy_oom_blocked_output_forbid_never_allows(void **state)
{
    (void)state;
    decision_case c = { "alice", standard,        1,   SLUICE_ACTION_READ, "SELECT",
                        NULL,    "customers.ssn", NULL };
    sweep("read returning a blocked field", &c, OOM_REFUSED);
}

static void test_policy_oom_group_forbid_never_allows(void **state)
{
    (void)state;
    decision_case c = { "carl", contractor,       2,   SLUICE_ACTION_READ, "SELECT",
                        NULL,   "customers.name", NULL };
    sweep("contractor reads", &c, OOM_REFUSED);
}

static void test_policy_oom_default_deny_never_allows(void **state)
{
    (void)state;
    decision_case c = { "pat", power, 1, SLUICE_ACTION_WRITE, "UPDATE", "customers", NULL, NULL };
    sweep("power user writes another table", &c, OOM_REFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_oom_permitted_write_is_right_or_an_error),
        cmocka_unit_test(test_policy_oom_blocked_output_forbid_never_allows),
        cmocka_unit_test(test_policy_oom_group_forbid_never_allows),
        cmocka_unit_test(test_policy_oom_default_deny_never_allows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
