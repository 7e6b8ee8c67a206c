/*
 * test_sql_oom.c — the SQL analyzer under allocation failure: every allocation point (arena,
 * sluice_buf, jansson) is failed in turn, and no run may end in a verdict other than an error
 * or the one the query deserves. Code that must be refused is never OK-without-violation (the
 * fail-open of issue 8 §3: a code hash and no violation would get a token signed), and an
 * allowed verdict has the facts and the risk level of a run without faults.
 */
#include "codemode/risk.h"
#include "oom_sweep.h"
#include "sql_fixture.h"
#include "unit.h"

typedef struct sql_case {
    const char *sql;
    oom_outcome expect;
    sluice_codefacts baseline; /* the facts of a run without faults (strings copied below) */
} sql_case;

static bool same_list(const sluice_codefacts_list *a, const sluice_codefacts_list *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->items[i], b->items[i]) != 0)
            return false;
    return true;
}

/* An allowed verdict is right only when every fact a decision reads matches the baseline. */
static bool same_facts(const sluice_codefacts *f, const sluice_codefacts *b)
{
    bool same =
        strcmp(f->code_hash, b->code_hash) == 0 && f->action == b->action &&
        strcmp(f->statement_kind, b->statement_kind) == 0 && f->output_count == b->output_count &&
        same_list(&f->resources_read, &b->resources_read) &&
        same_list(&f->resources_written, &b->resources_written) &&
        same_list(&f->fields_read, &b->fields_read) &&
        same_list(&f->blocked_used, &b->blocked_used) && same_list(&f->functions, &b->functions) &&
        sluice_sql_ext(f)->join_count == sluice_sql_ext(b)->join_count &&
        sluice_sql_ext(f)->has_where == sluice_sql_ext(b)->has_where &&
        sluice_sql_ext(f)->has_limit == sluice_sql_ext(b)->has_limit &&
        f->estimated_rows == b->estimated_rows && f->complexity == b->complexity &&
        sluice_risk_assess(sluice_sql_frontend(), f, NULL) ==
            sluice_risk_assess(sluice_sql_frontend(), b, NULL);
    for (size_t i = 0; same && i < f->output_count; i++)
        same = strcmp(f->outputs[i].name, b->outputs[i].name) == 0 &&
               same_list(&f->outputs[i].lineage, &b->outputs[i].lineage);
    return same;
}

/* One analysis in a fresh arena. With keep, the facts stay in fixture_arena (baseline). */
static oom_outcome analyze_once(sql_case *c, sluice_arena *arena, sluice_codefacts **keep)
{
    sluice_config_code_mode cm = fixture_cm();
    sluice_frontend_context fc;
    memset(&fc, 0, sizeof(fc));
    fc.code_mode = &cm;
    fc.engine = SLUICE_ENGINE_DUCKDB;
    fc.duckdb_database = fixture_db;
    sluice_codefacts *f = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_sql_analyze(arena, c->sql, strlen(c->sql), NULL, &fc, &f, &err);
    if (keep != NULL)
        *keep = st == SLUICE_OK ? f : NULL;
    if (st != SLUICE_OK)
        return OOM_FAILED;
    if (sluice_codefacts_refused(f))
        return f->violation_count > 0 ? OOM_REFUSED : OOM_WRONG; /* a refusal says why */
    if (keep != NULL)
        return OOM_ALLOWED;
    return same_facts(f, &c->baseline) ? OOM_ALLOWED : OOM_WRONG;
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

static long sweep(const char *sql, oom_outcome expect)
{
    sql_case c = { .sql = sql, .expect = expect };
    sluice_codefacts *base = NULL;
    assert_int_equal(analyze_once(&c, fixture_arena, &base), expect);
    assert_non_null(base);
    c.baseline = *base; /* lives in fixture_arena until teardown */
    long points = oom_sweep(sql, run_case, &c, expect, OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, sql);
    assert_true(points > 10);
    return points;
}

static void test_sql_oom_blocked_function_output_is_never_allowed(void **state)
{
    (void)state;
    sweep("SELECT upper(ssn) AS x FROM customers", OOM_REFUSED);
}

static void test_sql_oom_join_on_blocked_key_keeps_blocked_use(void **state)
{
    (void)state;
    /* allowed (the key is only compared), but the verdict must still record that ssn was
     * read: a dropped blocked_used would lower the risk */
    const char *sql = "SELECT c.name, d.id FROM customers c JOIN customer_directory d "
                      "ON c.ssn = d.ssn LIMIT 5";
    sweep(sql, OOM_ALLOWED);
    const sluice_codefacts *f = fixture_analyze(sql);
    assert_true(sluice_codefacts_list_has(&f->blocked_used, "customers.ssn"));
}

static void test_sql_oom_write_is_never_allowed(void **state)
{
    (void)state;
    sweep("UPDATE orders SET status = 'x' WHERE id = 1", OOM_REFUSED);
}

static void test_sql_oom_clean_read_is_right_or_an_error(void **state)
{
    (void)state;
    sweep("SELECT name, plan FROM customers WHERE plan = 'enterprise' LIMIT 10", OOM_ALLOWED);
}

/* The refusals of session 16's probe (an unnest's row count, a set operation's comparison, a
 * value computed and never returned) hold at every failed allocation, and the unnest beside a
 * blocked filter stays what it is. */
static void test_sql_oom_probe_refusals_hold(void **state)
{
    (void)state;
    sweep("SELECT count(*) AS n FROM customers c, unnest(string_split(c.ssn, '')) u", OOM_REFUSED);
    sweep("SELECT count(*) AS n FROM (SELECT substr(ssn, 1, 1) FROM customers INTERSECT SELECT "
          "'q') t",
          OOM_REFUSED);
    sweep("WITH t AS MATERIALIZED (SELECT id, CAST(CASE WHEN ssn > 'm' THEN 'a' END AS INTEGER) "
          "AS x FROM customers) SELECT count(*) AS n FROM t",
          OOM_REFUSED);
    sweep("SELECT c.name, u.x FROM customers c, LATERAL unnest([c.id, c.rep_id]) u(x) WHERE "
          "c.ssn = '1'",
          OOM_ALLOWED);
}

static int setup(void **state)
{
    oom_count_jansson();
    return fixture_open(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sql_oom_blocked_function_output_is_never_allowed,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_oom_join_on_blocked_key_keeps_blocked_use,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_oom_write_is_never_allowed, fixture_arena_new,
                                        fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_oom_clean_read_is_right_or_an_error,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_oom_probe_refusals_hold, fixture_arena_new,
                                        fixture_arena_free),
    };
    return cmocka_run_group_tests(tests, setup, fixture_close);
}
