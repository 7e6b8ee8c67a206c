/*
 * test_pgsql_plan.c — the PostgreSQL analyzer's second judge (lang/pgsql/plan.c) on plans as
 * PostgreSQL 15 prints them (EXPLAIN (VERBOSE, FORMAT JSON), shapes taken from the demo
 * database), without a server: outputs, sort keys, merge joins, index order and set-returning
 * functions computed from a blocked column are refused, also through CTE scans, subquery scans
 * and subplans; unknown node types and keys are refused (fail closed); an allocation-failure
 * sweep never yields a clean verdict for a plan that must be refused.
 */
#include "lang/pgsql/internal.h"
#include "pgsql_fixture.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

typedef struct plan_case {
    const char *plan; /* the "Plan" object */
    bool refused;
} plan_case;

static const plan_case cases[] = {
    /* a point lookup: the blocked column only in a filter */
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Schema\": \"public\", "
      "\"Alias\": \"c\", \"Output\": [\"c.name\"], \"Filter\": \"(c.ssn = $1)\"}",
      false },
    /* returned */
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Schema\": \"public\", "
      "\"Alias\": \"c\", \"Output\": [\"upper(c.ssn)\"]}",
      true },
    /* sorted by */
    { "{\"Node Type\": \"Sort\", \"Output\": [\"c.name\"], \"Sort Key\": [\"c.ssn\"], \"Plans\": "
      "[{\"Node Type\": \"Seq Scan\", \"Parent Relationship\": \"Outer\", \"Relation Name\": "
      "\"customers\", \"Schema\": \"public\", \"Alias\": \"c\", \"Output\": [\"c.name\", "
      "\"c.ssn\"]}]}",
      true },
    /* sorted by something else */
    { "{\"Node Type\": \"Sort\", \"Output\": [\"c.name\"], \"Sort Key\": [\"c.name\"], \"Plans\": "
      "[{\"Node Type\": \"Seq Scan\", \"Parent Relationship\": \"Outer\", \"Relation Name\": "
      "\"customers\", \"Schema\": \"public\", \"Alias\": \"c\", \"Output\": [\"c.name\"], "
      "\"Filter\": \"(c.ssn = $1)\"}]}",
      false },
    /* a merge join on the blocked key returns rows in its order */
    { "{\"Node Type\": \"Merge Join\", \"Output\": [\"c.name\"], \"Merge Cond\": \"(c.ssn = "
      "d.ssn)\", \"Plans\": [{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", "
      "\"Alias\": \"c\", \"Output\": [\"c.name\", \"c.ssn\"]}, {\"Node Type\": \"Seq Scan\", "
      "\"Relation Name\": \"customers\", \"Alias\": \"d\", \"Output\": [\"d.ssn\"]}]}",
      true },
    /* a materialized CTE's column, sorted above its scan */
    { "{\"Node Type\": \"Sort\", \"Output\": [\"m.name\"], \"Sort Key\": [\"m.s\"], \"Plans\": "
      "[{\"Node Type\": \"CTE Scan\", \"CTE Name\": \"m\", \"Alias\": \"m\", \"Output\": "
      "[\"m.s\", \"m.name\"]}, {\"Node Type\": \"Seq Scan\", \"Parent Relationship\": "
      "\"InitPlan\", \"Subplan Name\": \"CTE m\", \"Relation Name\": \"customers\", \"Alias\": "
      "\"customers\", \"Output\": [\"customers.ssn\", \"customers.name\"]}]}",
      true },
    /* a set-returning function's arguments */
    { "{\"Node Type\": \"Nested Loop\", \"Output\": [\"g.g\"], \"Plans\": [{\"Node Type\": \"Seq "
      "Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", \"Output\": [\"c.ssn\"]}, "
      "{\"Node Type\": \"Function Scan\", \"Alias\": \"g\", \"Function Name\": "
      "\"generate_series\", \"Output\": [\"g.g\"], \"Function Call\": \"generate_series(1, "
      "ascii(c.ssn))\"}]}",
      true },
    { "{\"Node Type\": \"ProjectSet\", \"Output\": [\"generate_series(1, length(c.email))\"], "
      "\"Plans\": [{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Alias\": "
      "\"c\", \"Output\": [\"c.email\"]}]}",
      true },
    /* a subplan's output */
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"orders\", \"Alias\": \"o\", \"Output\": "
      "[\"(SubPlan 1)\"], \"Plans\": [{\"Node Type\": \"Seq Scan\", \"Parent Relationship\": "
      "\"SubPlan\", \"Subplan Name\": \"SubPlan 1\", \"Relation Name\": \"customers\", "
      "\"Alias\": \"c\", \"Output\": [\"c.email\"], \"Filter\": \"(c.id = o.customer_id)\"}]}",
      true },
    /* an InitPlan's value, through $0 */
    { "{\"Node Type\": \"Result\", \"Output\": [\"$0\"], \"Plans\": [{\"Node Type\": \"Seq "
      "Scan\", \"Parent Relationship\": \"InitPlan\", \"Subplan Name\": \"InitPlan 1 (returns "
      "$0)\", \"Relation Name\": \"customers\", \"Alias\": \"c\", \"Output\": [\"c.ssn\"]}]}",
      true },
    /* whole rows */
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", "
      "\"Output\": [\"row_to_json(c.*)\"]}",
      true },
    /* quoted names */
    { "{\"Node Type\": \"Subquery Scan\", \"Alias\": \"x\", \"Output\": [\"x.\\\"case\\\"\"], "
      "\"Plans\": [{\"Node Type\": \"Seq Scan\", \"Parent Relationship\": \"Subquery\", "
      "\"Relation Name\": \"customers\", \"Alias\": \"c\", \"Output\": [\"CASE WHEN true THEN "
      "c.ssn ELSE NULL::text END\"]}]}",
      true },
    /* an index in the blocked column's order */
    { "{\"Node Type\": \"Index Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", "
      "\"Index Name\": \"customers_ssn_idx\", \"Output\": [\"c.name\"]}",
      true },
    { "{\"Node Type\": \"Index Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", "
      "\"Index Name\": \"customers_pkey\", \"Output\": [\"c.name\"], \"Filter\": \"(c.ssn = "
      "$1)\"}",
      false },
    /* grouping: by the bare column, or by a function of it */
    { "{\"Node Type\": \"Aggregate\", \"Strategy\": \"Hashed\", \"Output\": [\"count(*)\"], "
      "\"Group Key\": [\"c.ssn\"], \"Plans\": [{\"Node Type\": \"Seq Scan\", \"Relation Name\": "
      "\"customers\", \"Alias\": \"c\", \"Output\": [\"c.ssn\"]}]}",
      false },
    { "{\"Node Type\": \"Aggregate\", \"Strategy\": \"Hashed\", \"Output\": [\"count(*)\"], "
      "\"Group Key\": [\"concat(c.name, c.ssn)\"], \"Plans\": [{\"Node Type\": \"Seq Scan\", "
      "\"Relation Name\": \"customers\", \"Alias\": \"c\", \"Output\": [\"c.name\", "
      "\"c.ssn\"]}]}",
      true },
    { "{\"Node Type\": \"Aggregate\", \"Strategy\": \"Mixed\", \"Output\": [\"count(*)\"], "
      "\"Grouping Sets\": [{\"Hash Keys\": [[\"upper(c.email)\"]]}], \"Plans\": [{\"Node "
      "Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", \"Output\": "
      "[\"c.email\"]}]}",
      true },
    /* fail closed */
    { "{\"Node Type\": \"Foreign Scan\", \"Alias\": \"f\", \"Output\": [\"f.a\"]}", true },
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"customers\", \"Alias\": \"c\", "
      "\"Output\": [\"c.name\"], \"Secret Key\": \"c.ssn\"}",
      true },
    { "{\"Node Type\": \"Values Scan\", \"Alias\": \"*VALUES*\", \"Output\": "
      "[\"\\\"*VALUES*\\\".column1\"]}",
      true },
    { "{\"Node Type\": \"Seq Scan\", \"Relation Name\": \"secrets\", \"Alias\": \"s\", "
      "\"Output\": [\"s.a\"]}",
      true },
};

static const char *const indexes =
    "{\"customers_ssn_idx\": [\"ssn\"], \"customers_pkey\": [\"id\"]}";

static sluice_status judge(sluice_arena *arena, const char *plan, bool *refused, size_t *violations)
{
    static sluice_config_code_mode cm;
    cm = pgfx_cm();
    pg_ctx c = { .arena = arena, .cm = &cm, .schema = &pgfx_schema, .code = "", .code_len = 0 };
    c.facts = sluice_sql_facts_new(arena);
    if (c.facts == NULL)
        return SLUICE_E_NOMEM;
    char *json =
        sluice_arena_printf(arena, "{\"plan\": [{\"Plan\": %s}], \"indexes\": %s}", plan, indexes);
    if (json == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = sluice_pgsql_judge_plan(&c, json, refused);
    *violations = c.facts->violation_count;
    return st;
}

static void test_pgsql_plan_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *arena = sluice_arena_new();
        bool refused = false;
        size_t violations = 0;
        assert_int_equal(judge(arena, cases[i].plan, &refused, &violations), SLUICE_OK);
        if (refused != cases[i].refused || (violations > 0) != refused)
            fail_msg("case %zu: expected %s, got %s (%zu violations)", i,
                     cases[i].refused ? "refused" : "accepted", refused ? "refused" : "accepted",
                     violations);
        sluice_arena_free(arena);
    }
}

/* Fail the Nth allocation for every N: an error or a refusal, never a clean verdict. */
static void test_pgsql_plan_allocation_failure_sweep(void **state)
{
    (void)state;
    const char *must_refuse = cases[5].plan; /* the CTE scan sorted by a blocked column */
    size_t clean = 0;
    long n = 1;
    for (; n <= 2000; n++) {
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_arena_fail_at(n);
        bool refused = false;
        size_t violations = 0;
        sluice_status st = judge(arena, must_refuse, &refused, &violations);
        sluice_arena_fail_at(0);
        if (st == SLUICE_OK && !refused)
            clean++;
        sluice_arena_free(arena);
        if (st == SLUICE_OK && refused && n > 100)
            break;
    }
    assert_int_equal(clean, 0);
    assert_true(n > 10);
}

/* Without an executor (no server: unit tests, fuzzing) the parse-tree layer alone decides. */
static void test_pgsql_plan_needs_a_server(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *sql = "SELECT name FROM customers WHERE ssn = '1'";
    sluice_codefacts *f = pgfx_analyze(arena, sql, strlen(sql));
    assert_non_null(f);
    assert_int_equal(f->violation_count, 0);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgsql_plan_cases),
        cmocka_unit_test(test_pgsql_plan_allocation_failure_sweep),
        cmocka_unit_test(test_pgsql_plan_needs_a_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
