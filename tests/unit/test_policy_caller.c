/*
 * test_policy_caller.c — the database role a caller's code runs as (sluice_policy_db_role):
 * the first caller_roles entry whose group the caller is in, then caller_default_role, else a
 * refusal naming the groups; a route's own keys replace [code_mode]'s. Every allocation point
 * of the decision is failed in turn: a failure never gives a caller the read role's view
 * (no role, no refusal) or another group's role.
 */
#include "oom_sweep.h"
#include "policy/policy.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static const char config_text[] = "[database]\n"
                                  "engine = \"postgres\"\n"
                                  "conninfo = \"dbname=app user=sluice_read\"\n"
                                  "[code_mode]\n"
                                  "server_id = \"app\"\n"
                                  "caller_roles = { red = \"red_team\", blue = \"Blue Team\" }\n"
                                  "[policy]\n"
                                  "backend = \"none\"\n"
                                  "[[policy.servers]]\n"
                                  "id = \"partners\"\n"
                                  "groups = [\"partners\"]\n"
                                  "caller_roles = {}\n"
                                  "caller_default_role = \"partner_role\"\n"
                                  "caller_claims = true\n";

static sluice_arena *keep;
static sluice_config *config;
static sluice_policy *policy;

static int setup(void **state)
{
    (void)state;
    keep = sluice_arena_new();
    sluice_error err;
    sluice_error_clear(&err);
    if (keep == NULL ||
        sluice_config_load_text(config_text, strlen(config_text), "<test>", "/", &config, keep,
                                &err) != SLUICE_OK ||
        sluice_policy_open(config, &policy, keep, &err) != SLUICE_OK) {
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_policy_close(policy);
    sluice_config_free(config);
    sluice_arena_free(keep);
    return 0;
}

typedef struct role_case {
    const char *user;
    const char *const *groups;
    size_t group_count;
    const char *role; /* the role expected, or NULL for a refusal */
} role_case;

static oom_outcome decide(sluice_arena *arena, const role_case *c)
{
    sluice_identity who = { .user_id = c->user,
                            .groups = c->groups,
                            .group_count = c->group_count };
    const sluice_policy_route *route = sluice_policy_route_for(policy, &who);
    sluice_verdict v;
    sluice_verdict_init(&v, arena);
    const char *role = "unset";
    sluice_status st = sluice_policy_db_role(route, &who, &role, &v);
    if (st != SLUICE_OK)
        return v.refused ? OOM_FAILED : OOM_WRONG;
    if (v.refused)
        return role == NULL && c->role == NULL && v.violation_count == 1 ? OOM_REFUSED : OOM_WRONG;
    return role != NULL && c->role != NULL && strcmp(role, c->role) == 0 ? OOM_ALLOWED : OOM_WRONG;
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

static const char *const red[] = { "red" };
static const char *const blue_red[] = { "blue", "red" };
static const char *const green[] = { "green" };
static const char *const partner_red[] = { "partners", "red" };

static void test_policy_caller_first_mapped_group_wins(void **state)
{
    (void)state;
    role_case a = { "alice", red, 1, "red_team" };
    assert_int_equal(run_case(&a), OOM_ALLOWED);
    /* file order decides, not the order of the caller's groups */
    role_case b = { "bob", blue_red, 2, "red_team" };
    assert_int_equal(run_case(&b), OOM_ALLOWED);
    /* the route's own keys replace [code_mode]'s: no mapping, a default */
    role_case p = { "pia", partner_red, 2, "partner_role" };
    assert_int_equal(run_case(&p), OOM_ALLOWED);
    assert_true(
        sluice_policy_route_for(
            policy, &(sluice_identity){ .user_id = "pia", .groups = partner_red, .group_count = 2 })
            ->rules->caller_claims);
}

static void test_policy_caller_unmapped_is_refused_with_the_groups(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_identity who = { .user_id = "carol", .groups = green, .group_count = 1 };
    sluice_verdict v;
    sluice_verdict_init(&v, arena);
    const char *role = "unset";
    assert_int_equal(sluice_policy_db_role(sluice_policy_route_for(policy, &who), &who, &role, &v),
                     SLUICE_OK);
    assert_true(v.refused);
    assert_null(role);
    assert_string_equal(v.violations[0].rule, "caller_roles");
    assert_non_null(strstr(v.violations[0].message, "'red', 'blue'"));
    assert_non_null(strstr(v.violations[0].message, "carol"));
    /* no identity at all: refused too, never the read role */
    sluice_verdict_init(&v, arena);
    assert_int_equal(sluice_policy_db_role(sluice_policy_default_route(policy), NULL, &role, &v),
                     SLUICE_OK);
    assert_true(v.refused);
    sluice_arena_free(arena);
}

static void test_policy_caller_mapping_is_in_the_policy_version(void **state)
{
    (void)state;
    const char *text = "[database]\nengine = \"postgres\"\nconninfo = \"dbname=app\"\n"
                       "[code_mode]\ncaller_roles = { red = \"blue_team\", blue = \"Blue Team\" }\n"
                       "[policy]\nbackend = \"none\"\n[[policy.servers]]\nid = \"partners\"\n"
                       "groups = [\"partners\"]\ncaller_roles = {}\n"
                       "caller_default_role = \"partner_role\"\ncaller_claims = true\n";
    sluice_config *other = NULL;
    sluice_policy *p = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load_text(text, strlen(text), "<t>", "/", &other, keep, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_policy_open(other, &p, keep, &err), SLUICE_OK);
    assert_string_not_equal(sluice_policy_version(p), sluice_policy_version(policy));
    sluice_policy_close(p);
    sluice_config_free(other);
}

static void sweep(const char *name, const role_case *c, oom_outcome expect)
{
    long points = oom_sweep(name, run_case, (void *)c, expect,
                            OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points >= 1);
}

static void test_policy_caller_oom_never_a_clean_wrong_answer(void **state)
{
    (void)state;
    role_case refused = { "carol", green, 1, NULL };
    sweep("caller in no mapped group", &refused, OOM_REFUSED);
    role_case mapped = { "alice", red, 1, "red_team" };
    long points = oom_sweep("mapped caller", run_case, &mapped, OOM_ALLOWED,
                            OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED));
    assert_true(points >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_caller_first_mapped_group_wins),
        cmocka_unit_test(test_policy_caller_unmapped_is_refused_with_the_groups),
        cmocka_unit_test(test_policy_caller_mapping_is_in_the_policy_version),
        cmocka_unit_test(test_policy_caller_oom_never_a_clean_wrong_answer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
