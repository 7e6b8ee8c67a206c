/*
 * test_estimate.c — cost known before approval, and bound into it (codemode/estimate.h, issue
 * 24): the route's max_estimated_rows / max_estimated_cost for every kind of estimate, the
 * estimate in words, the claims a token signs, the drift check at execute, and an allocation
 * sweep over the whole check: a failure is never a clean pass of code above a limit or past the
 * drift factor.
 */
#include "codemode/estimate.h"
#include "oom_sweep.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sluice_codefacts *facts_of(
    sluice_arena *arena, sluice_estimate_kind kind, const char *engine, int64_t rows, double cost)
{
    sluice_codefacts *f = sluice_codefacts_new(arena, "sql");
    if (f == NULL)
        return NULL;
    f->estimate_kind = kind;
    f->estimate_engine = engine;
    f->estimated_rows = rows;
    f->estimated_cost = cost;
    return f;
}

static sluice_config_code_mode limits(int64_t rows, int64_t cost)
{
    sluice_config_code_mode r;
    memset(&r, 0, sizeof r);
    r.max_estimated_rows = rows;
    r.max_estimated_cost = cost;
    r.estimate_drift_factor = 10;
    return r;
}

/* The rule that refused f under r, or NULL. */
static const char *refused_by(sluice_arena *a, sluice_codefacts *f, sluice_config_code_mode r)
{
    (void)a;
    assert_int_equal(sluice_estimate_limit(f, &r), SLUICE_OK);
    return f->violation_count > 0 ? f->violations[0].rule : NULL;
}

static void test_estimate_limits_every_kind(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode rows_1000 = limits(1000, 0), cost_50 = limits(0, 50);
    /* PostgreSQL's plan: rows and cost */
    assert_null(
        refused_by(a, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 1000, 9), rows_1000));
    sluice_codefacts *f = facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 1001, 9);
    assert_string_equal(refused_by(a, f, rows_1000), "max_estimated_rows");
    assert_non_null(
        strstr(f->violations[0].message,
               "PostgreSQL estimates 1001 rows for this read; max_estimated_rows is 1000"));
    f = facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 1, 50.5);
    assert_string_equal(refused_by(a, f, cost_50), "max_estimated_cost");
    assert_non_null(strstr(f->violations[0].message, "a plan cost of 50 for this program; "
                                                     "max_estimated_cost is 50"));
    /* DuckDB's cardinality */
    f = facts_of(a, SLUICE_ESTIMATE_PLAN_ROWS, "DuckDB", 5000, 12000);
    assert_string_equal(refused_by(a, f, rows_1000), "max_estimated_rows");
    assert_non_null(strstr(f->violations[0].message, "DuckDB estimates 5000 rows"));
    /* GraphQL's computed cost: a cost, no rows; a rows limit cannot be met (fail closed) */
    f = facts_of(a, SLUICE_ESTIMATE_GRAPHQL_COST, NULL, -1, 51);
    assert_string_equal(refused_by(a, f, cost_50), "max_estimated_cost");
    assert_non_null(strstr(f->violations[0].message, "the GraphQL cost analysis estimates a "
                                                     "computed cost"));
    assert_null(refused_by(a, facts_of(a, SLUICE_ESTIMATE_GRAPHQL_COST, NULL, -1, 50), cost_50));
    f = facts_of(a, SLUICE_ESTIMATE_GRAPHQL_COST, NULL, -1, 3);
    assert_string_equal(refused_by(a, f, rows_1000), "max_estimated_rows");
    assert_non_null(strstr(f->violations[0].message, "no row estimate could be made"));
    /* a plan's call bound */
    f = facts_of(a, SLUICE_ESTIMATE_CALL_BOUND, NULL, -1, 51);
    assert_string_equal(refused_by(a, f, cost_50), "max_estimated_cost");
    assert_non_null(strstr(f->violations[0].message, "upstream calls numbering at most 51"));
    /* no estimate: a read is refused under a limit, a write passes, no limit passes all */
    f = facts_of(a, SLUICE_ESTIMATE_NONE, NULL, -1, -1);
    assert_string_equal(refused_by(a, f, cost_50), "max_estimated_cost");
    f = facts_of(a, SLUICE_ESTIMATE_NONE, NULL, -1, -1);
    f->action = SLUICE_ACTION_WRITE;
    assert_null(refused_by(a, f, cost_50));
    assert_null(refused_by(a, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 1e12, 1e15),
                           limits(0, 0)));
    /* already refused code gets no second violation */
    f = facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 1e9, 1e9);
    sluice_codefacts_violate(f, "syntax_error", 1, 1, NULL, "bad");
    assert_int_equal(sluice_estimate_limit(f, &rows_1000), SLUICE_OK);
    assert_int_equal(f->violation_count, 1);
    sluice_arena_free(a);
}

static void test_estimate_words(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    assert_string_equal(
        sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 500, 8.2)),
        "PostgreSQL estimates about 500 rows at a plan cost of 8 before running it.");
    assert_string_equal(
        sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_PLAN_ROWS, "DuckDB", 1, 2000)),
        "DuckDB estimates about 1 row, with about 2000 rows through the plan's operators, "
        "before running it.");
    assert_string_equal(
        sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_GRAPHQL_COST, NULL, -1, 31)),
        "Its computed cost is 31 (one per field, times the list sizes above it).");
    assert_string_equal(
        sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_CALL_BOUND, NULL, -1, 11)),
        "It makes at most 11 upstream calls.");
    assert_string_equal(
        sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_CALL_BOUND, NULL, -1, 0)),
        "It makes no upstream calls.");
    assert_string_equal(sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_NONE, NULL, 3, -1)),
                        "");
    /* the record the audit log and the console's approval card carry */
    json_t *j = sluice_estimate_json(facts_of(a, SLUICE_ESTIMATE_PLAN_ROWS, "DuckDB", 12, 40.2));
    char *text = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(
        text, "{\"by\":\"DuckDB\",\"cost\":41,\"rows\":12,\"unit\":\"rows through the plan\"}");
    free(text);
    json_decref(j);
    j = sluice_estimate_json(facts_of(a, SLUICE_ESTIMATE_CALL_BOUND, NULL, -1, 3));
    assert_true(json_is_null(json_object_get(j, "rows")));
    json_decref(j);
    assert_null(sluice_estimate_json(facts_of(a, SLUICE_ESTIMATE_NONE, NULL, 3, -1)));
    /* as validate's record writes it: members in this order, no estimate is no value */
    sluice_buf buf;
    sluice_buf_init(&buf, a, 0);
    sluice_json_out out = { .buf = &buf };
    sluice_estimate_write(&out, facts_of(a, SLUICE_ESTIMATE_PLAN_ROWS, "DuckDB", 12, 40.2));
    assert_int_equal(sluice_json_out_status(&out), SLUICE_OK);
    assert_string_equal(
        buf.data, "{\"by\":\"DuckDB\",\"rows\":12,\"cost\":41,\"unit\":\"rows through the plan\"}");
    sluice_estimate_write(&out, facts_of(a, SLUICE_ESTIMATE_NONE, NULL, 3, -1));
    assert_int_equal(sluice_json_out_status(&out), SLUICE_E_INVALID);
    sluice_arena_free(a);
}

/* The words are written without printf for a whole count; every count reads as "%.0f" and
 * "%lld" write it: whole numbers of every size up to and past 1e17 and 2^63, fractions that
 * round either way (halves to even), -0, the negatives and the non-finite. */
static void test_estimate_words_count_as_printf(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    double counts[200];
    size_t n = 0;
    static const double fixed[] = {
        0.0,   -0.0,  1.0,  -1.0,     0.5,       1.5,         2.5,
        -2.5,  8.2,   0.49, 1e17,     1e17 - 16, 1e17 + 16,   9007199254740993.0,
        1e300, -1e17, NAN,  INFINITY, -INFINITY, 123456789.75
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        counts[n++] = fixed[i];
    for (double p = 1; p < 1e20 && n + 3 <= sizeof counts / sizeof counts[0]; p *= 7) {
        counts[n++] = p;
        counts[n++] = p - 1;
        counts[n++] = p + 0.5;
    }
    for (size_t i = 0; i < n; i++) {
        char want[512];
        long long rows = (long long)(counts[i] > -9e18 && counts[i] < 9e18 ? counts[i] : 7);
        snprintf(want, sizeof want,
                 "DuckDB estimates about %lld row%s, with about %.0f row%s through the plan's "
                 "operators, before running it.",
                 rows, rows == 1 ? "" : "s", counts[i], counts[i] == 1 ? "" : "s");
        assert_string_equal(sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_PLAN_ROWS,
                                                              "DuckDB", rows, counts[i])),
                            want);
        snprintf(want, sizeof want, "It makes at most %.0f upstream call%s.", counts[i],
                 counts[i] == 1 ? "" : "s");
        if (counts[i] != 0)
            assert_string_equal(sluice_estimate_words(a, facts_of(a, SLUICE_ESTIMATE_CALL_BOUND,
                                                                  NULL, -1, counts[i])),
                                want);
    }
    sluice_arena_free(a);
}

static void test_estimate_bound_and_drift(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode r = limits(0, 0);
    sluice_token_claims approved;
    memset(&approved, 0, sizeof approved);
    sluice_estimate_bind(facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 500, 8.2), &approved);
    assert_int_equal(approved.estimated_rows, 500);
    assert_int_equal(approved.estimated_cost, 9); /* rounded up: never below what was seen */
    assert_true(sluice_estimate_needs_live(&approved));
    sluice_token_problem p = SLUICE_TOKEN_OK;
    sluice_error err = { 0 };
    assert_int_equal(sluice_estimate_drift(
                         &approved, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 5000, 90),
                         &r, a, &p, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_estimate_drift(
                         &approved, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 5001, 9),
                         &r, a, &p, &err),
                     SLUICE_E_TOKEN);
    assert_int_equal(p, SLUICE_TOKEN_ESTIMATE_DRIFT);
    /* the live analysis lost its estimate: fail closed */
    assert_int_equal(sluice_estimate_drift(&approved,
                                           facts_of(a, SLUICE_ESTIMATE_NONE, NULL, -1, -1), &r, a,
                                           &p, &err),
                     SLUICE_E_TOKEN);
    /* the factor is the route's */
    r.estimate_drift_factor = 1000;
    assert_int_equal(sluice_estimate_drift(
                         &approved, facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", 5001, 9),
                         &r, a, &p, &err),
                     SLUICE_OK);
    /* estimates that follow from the code alone are bound, never re-made */
    sluice_estimate_bind(facts_of(a, SLUICE_ESTIMATE_GRAPHQL_COST, NULL, -1, 31), &approved);
    assert_false(sluice_estimate_needs_live(&approved));
    assert_int_equal(approved.estimated_rows, -1);
    assert_int_equal(approved.estimated_cost, 31);
    sluice_estimate_bind(facts_of(a, SLUICE_ESTIMATE_NONE, NULL, 77, -1), &approved);
    assert_int_equal(approved.estimated_rows, -1); /* a syntactic guess is not an estimate */
    sluice_arena_free(a);
}

/* ---- allocation sweep ---------------------------------------------------------------------- */

typedef struct sweep_case {
    int64_t rows;
    double cost;
    int64_t live_rows;
} sweep_case;

/* Limit, words and drift in the order execute meets them; REFUSED when any refuses. */
static oom_outcome decide(sluice_arena *a, const sweep_case *c)
{
    sluice_codefacts *f = facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", c->rows, c->cost);
    if (f == NULL)
        return OOM_FAILED;
    sluice_config_code_mode r = limits(1000, 5000);
    if (sluice_estimate_limit(f, &r) != SLUICE_OK)
        return OOM_FAILED;
    if (sluice_codefacts_refused(f))
        return OOM_REFUSED;
    if (sluice_estimate_words(a, f) == NULL)
        return OOM_FAILED;
    sluice_token_claims approved;
    memset(&approved, 0, sizeof approved);
    sluice_estimate_bind(f, &approved);
    sluice_codefacts *live =
        facts_of(a, SLUICE_ESTIMATE_PLAN_COST, "PostgreSQL", c->live_rows, c->cost);
    if (live == NULL)
        return OOM_FAILED;
    sluice_token_problem p = SLUICE_TOKEN_OK;
    sluice_status st = sluice_estimate_drift(&approved, live, &r, a, &p, NULL);
    if (st == SLUICE_E_TOKEN && p == SLUICE_TOKEN_ESTIMATE_DRIFT)
        return OOM_REFUSED;
    if (st != SLUICE_OK)
        return OOM_FAILED;
    return sluice_arena_failed(a) ? OOM_FAILED : OOM_ALLOWED;
}

static oom_outcome run_case(void *ctx)
{
    sluice_arena *a = sluice_arena_new();
    if (a == NULL)
        return OOM_FAILED;
    oom_outcome o = decide(a, ctx);
    sluice_arena_free(a);
    return o;
}

static void test_estimate_oom_never_a_clean_pass(void **state)
{
    (void)state;
    static const sweep_case over_rows = { 1001, 10, 1001 };
    static const sweep_case over_cost = { 10, 5001, 10 };
    static const sweep_case drifted = { 10, 10, 101 };
    static const sweep_case fine = { 10, 10, 100 };
    const sweep_case *refused[] = { &over_rows, &over_cost, &drifted };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(run_case((void *)refused[i]), OOM_REFUSED);
        long points = oom_sweep("estimate refused", run_case, (void *)refused[i], OOM_REFUSED,
                                OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED));
        fprintf(stderr, "oom sweep: %ld allocation points (case %zu)\n", points, i);
        assert_true(points >= 1);
    }
    assert_int_equal(run_case((void *)&fine), OOM_ALLOWED);
    assert_true(oom_sweep("estimate within", run_case, (void *)&fine, OOM_ALLOWED,
                          OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED)) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_limits_every_kind),
        cmocka_unit_test(test_estimate_words),
        cmocka_unit_test(test_estimate_words_count_as_printf),
        cmocka_unit_test(test_estimate_bound_and_drift),
        cmocka_unit_test(test_estimate_oom_never_a_clean_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
