/*
 * test_sql_amplify.c — the amplification tags (functions.c) and the fast-path decisions they
 * drive (amplify.c): which statements bind in the server and may run in-process, and that
 * every amplifying one still goes to the bounded child and is refused there when too large.
 */
#include "lang/sql/internal.h"
#include "sql_fixture.h"
#include "unit.h"

typedef struct tag_case {
    const char *name;
    sluice_sql_fn_growth growth;
} tag_case;

/* The decisions that matter: builders amplify, the seed queries' functions do not. */
static const tag_case tag_cases[] = {
    { "upper", SLUICE_SQL_BOUNDED },
    { "lower", SLUICE_SQL_BOUNDED },
    { "substr", SLUICE_SQL_BOUNDED },
    { "trim", SLUICE_SQL_BOUNDED },
    { "count", SLUICE_SQL_BOUNDED },
    { "count_star", SLUICE_SQL_BOUNDED },
    { "sum", SLUICE_SQL_BOUNDED },
    { "avg", SLUICE_SQL_BOUNDED },
    { "min", SLUICE_SQL_BOUNDED },
    { "max", SLUICE_SQL_BOUNDED },
    { "date_trunc", SLUICE_SQL_BOUNDED },
    { "lag", SLUICE_SQL_BOUNDED },
    { "+", SLUICE_SQL_BOUNDED },
    { "range", SLUICE_SQL_AMPLIFIES },
    { "generate_series", SLUICE_SQL_AMPLIFIES },
    { "repeat", SLUICE_SQL_AMPLIFIES },
    { "lpad", SLUICE_SQL_AMPLIFIES },
    { "rpad", SLUICE_SQL_AMPLIFIES },
    { "list_value", SLUICE_SQL_AMPLIFIES },
    { "list_resize", SLUICE_SQL_AMPLIFIES },
    { "array_agg", SLUICE_SQL_AMPLIFIES },
    { "list", SLUICE_SQL_AMPLIFIES },
    { "string_agg", SLUICE_SQL_AMPLIFIES },
    { "printf", SLUICE_SQL_AMPLIFIES },
    { "format", SLUICE_SQL_AMPLIFIES },
    { "regexp_replace", SLUICE_SQL_AMPLIFIES },
    { "replace", SLUICE_SQL_AMPLIFIES },
    { "concat", SLUICE_SQL_AMPLIFIES },
    { "||", SLUICE_SQL_AMPLIFIES },
    { "to_base64", SLUICE_SQL_AMPLIFIES }, /* each nesting multiplies by 4/3 */
    { "regexp_escape", SLUICE_SQL_AMPLIFIES },
    { "bar", SLUICE_SQL_AMPLIFIES },
    { "unnest", SLUICE_SQL_AMPLIFIES },  /* not a scalar on the allowlist */
    { "error", SLUICE_SQL_AMPLIFIES },   /* denied */
    { "no_such", SLUICE_SQL_AMPLIFIES }, /* unknown */
    { "", SLUICE_SQL_AMPLIFIES },
};

static void test_sql_amplification_tags(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(tag_cases) / sizeof(tag_cases[0]); i++) {
        if (sluice_sql_function_growth(tag_cases[i].name) != tag_cases[i].growth)
            fprintf(stderr, "tag of '%s' is wrong\n", tag_cases[i].name);
        assert_int_equal(sluice_sql_function_growth(tag_cases[i].name), tag_cases[i].growth);
    }
    assert_int_equal(sluice_sql_function_growth(NULL), SLUICE_SQL_AMPLIFIES);
}

typedef struct path_case {
    const char *sql;
    bool fast; /* bound and run without the child */
} path_case;

static const path_case path_cases[] = {
    { "SELECT upper(name) AS n, length(trim(plan)) AS l FROM customers", true },
    { "SELECT status, count(*) AS n, avg(total_cents) AS a FROM orders GROUP BY status", true },
    { "SELECT id, lag(total_cents) OVER (ORDER BY id) AS prev FROM orders", true },
    { "SELECT id FROM orders WHERE order_date >= DATE '2026-01-01' AND status IN ('paid', 'open')",
      true },
    { "SELECT lpad(name, 5, ' ') AS p FROM customers", false },
    { "SELECT name || 'x' AS p FROM customers", false },
    { "SELECT range AS r FROM range(3)", false },
    { "SELECT [id] AS l FROM customers", false },
    { "SELECT CAST(id AS INTEGER[]) AS l FROM customers", false },
    { "SELECT list_transform([1], x -> x + 1) AS l", false },
    { "SELECT leak(name) AS n FROM customers", false },            /* a macro: not reviewed */
    { "SELECT sum(total_cents) OVER () AS s FROM orders", false }, /* windowed aggregate */
    { "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) "
      "SELECT n FROM t",
      false },
};

static void test_sql_fast_path_decisions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(path_cases) / sizeof(path_cases[0]); i++) {
        const sluice_codefacts *f = fixture_analyze(path_cases[i].sql);
        if (f->violation_count != 0 || f->engine_bounded != path_cases[i].fast) {
            fixture_dump(path_cases[i].sql, f);
            fprintf(stderr, "  engine_bounded %d, expected %d\n", f->engine_bounded,
                    path_cases[i].fast);
        }
        assert_int_equal(f->violation_count, 0);
        assert_int_equal(f->engine_bounded, path_cases[i].fast);
    }
}

static void test_sql_long_constant_takes_the_bounded_path(void **state)
{
    (void)state;
    char *sql = sluice_arena_alloc(fixture_arena, SLUICE_SQL_FAST_CONSTANT_BYTES + 64);
    assert_non_null(sql);
    int n = snprintf(sql, 64, "SELECT upper('");
    memset(sql + n, 'x', SLUICE_SQL_FAST_CONSTANT_BYTES + 1);
    memcpy(sql + n + SLUICE_SQL_FAST_CONSTANT_BYTES + 1, "') AS u", 8);
    const sluice_codefacts *f = fixture_analyze(sql);
    assert_int_equal(f->violation_count, 0);
    assert_false(f->engine_bounded);
    /* just under the limit: fast */
    memcpy(sql + n + SLUICE_SQL_FAST_CONSTANT_BYTES, "') AS u", 8);
    f = fixture_analyze(sql);
    assert_int_equal(f->violation_count, 0);
    assert_true(f->engine_bounded);
}

/* The seed queries are what the fast path is for. */
static void test_sql_seed_queries_take_the_fast_path(void **state)
{
    (void)state;
    static const char *const seeds[] = { "000_quarterly_metrics.sql", "003_revenue_drop.sql" };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/tests/unit/data/sql/seeds/%s", SLUICE_SOURCE_DIR,
                 seeds[i]);
        const sluice_codefacts *f = fixture_analyze(fixture_read_file(path));
        if (!f->engine_bounded)
            fprintf(stderr, "%s did not take the fast path\n", seeds[i]);
        assert_int_equal(f->violation_count, 0);
        assert_true(f->engine_bounded);
    }
}

/* Amplifying constants still go to the child, which refuses them over the cap. */
static void test_sql_amplifying_constants_are_still_bounded(void **state)
{
    (void)state;
    static const char *const bombs[] = {
        "SELECT length(lpad('x', 2000000000, 'y')) AS n",
        "SELECT length(rpad('x', 2000000000, 'y')) AS n",
        "SELECT length(repeat('ab', 1000000000)) AS n",
    };
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_memory_mb = 64;
    cm.analysis_timeout_ms = 20000;
    for (size_t i = 0; i < sizeof(bombs) / sizeof(bombs[0]); i++) {
        const sluice_codefacts *f = fixture_analyze_with(bombs[i], &cm);
        const sluice_codefacts_violation *v = fixture_violation(f, "analysis_limit");
        if (v == NULL)
            fixture_dump(bombs[i], f);
        assert_non_null(v);
        assert_false(f->engine_bounded);
    }
}

/* SELECT 1 inside `levels` subquery expressions of the given shape ("(%s)" or "EXISTS (%s)"). */
static const char *nested_subqueries(unsigned levels, bool exists)
{
    const char *sql = "SELECT 1 AS x";
    for (unsigned i = 0; i < levels; i++)
        sql = exists ? sluice_arena_printf(fixture_arena, "SELECT 1 AS x WHERE EXISTS (%s)", sql)
                     : sluice_arena_printf(fixture_arena, "SELECT (%s) AS x", sql);
    assert_non_null(sql);
    return sql;
}

/* Nested subquery expressions plan in time exponential in their depth, inside DuckDB's optimizer,
 * which no interrupt reaches: up to the limit they bind in the server, past it in the child.
 * EXISTS shows it: a scalar subquery's plan runs in the child at any depth (its row check). */
static void test_sql_nested_subqueries_take_the_bounded_path(void **state)
{
    (void)state;
    const sluice_codefacts *f =
        fixture_analyze(nested_subqueries(SLUICE_SQL_FAST_SUBQUERY_NESTING, true));
    assert_int_equal(f->violation_count, 0);
    assert_true(f->engine_bounded);
    f = fixture_analyze(nested_subqueries(SLUICE_SQL_FAST_SUBQUERY_NESTING + 1, true));
    assert_int_equal(f->violation_count, 0);
    assert_false(f->engine_bounded);
}

/* sql is refused for the analysis' limits with a message that says says, and nothing bound it in
 * the server; the message, for more checks. */
static const char *
assert_refused(const char *sql, const sluice_config_code_mode *cm, const char *says)
{
    const sluice_codefacts *f = fixture_analyze_with(sql, cm);
    const sluice_codefacts_violation *v = fixture_violation(f, "analysis_limit");
    if (v == NULL)
        fixture_dump(sql, f);
    assert_non_null(v);
    assert_non_null(strstr(v->message, says));
    assert_false(f->engine_bounded);
    return v->message;
}

/* 34 levels would plan for hours in the server; the child's deadline refuses them instead. */
static void test_sql_deep_subqueries_are_refused_at_the_deadline(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_timeout_ms = 300;
    for (int exists = 0; exists <= 1; exists++)
        assert_refused(nested_subqueries(34, exists), &cm, "analysis_timeout_ms (300 ms)");
}

/* n references to orders (o0..), each equal to the next around a cycle: cross products that
 * filter pushdown turns into joins. */
static const char *many_relations(unsigned n)
{
    const char *from = "orders o0", *where = "o0.id = o1.id";
    for (unsigned i = 1; i < n; i++) {
        from = sluice_arena_printf(fixture_arena, "%s, orders o%u", from, i);
        where = i == 1 ? where
                       : sluice_arena_printf(fixture_arena, "%s AND o%u.id = o%u.id", where, i,
                                             (i + 1) % n);
    }
    const char *sql =
        sluice_arena_printf(fixture_arena, "SELECT count(*) AS n FROM %s WHERE %s", from, where);
    assert_non_null(sql);
    return sql;
}

/* n predicates on one column, each a comparison with its own constant. */
static const char *many_predicates(unsigned n)
{
    const char *where = "id <> 0";
    for (unsigned i = 1; i < n; i++)
        where = sluice_arena_printf(fixture_arena, "%s AND id <> %u", where, i);
    const char *sql = sluice_arena_printf(fixture_arena, "SELECT id FROM orders WHERE %s", where);
    assert_non_null(sql);
    return sql;
}

/* Filter pushdown is super-linear in the tables a statement joins and the filter combiner in its
 * predicates, in an optimizer no interrupt reaches: past the budgets they bind in the child. */
static void test_sql_large_statements_take_the_bounded_path(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.sql_max_joins = 64;
    const sluice_codefacts *f =
        fixture_analyze_with(many_relations(SLUICE_SQL_FAST_RELATIONS), &cm);
    assert_null(fixture_violation(f, "analysis_limit"));
    assert_true(f->engine_bounded);
    f = fixture_analyze_with(many_relations(SLUICE_SQL_FAST_RELATIONS + 1), &cm);
    assert_null(fixture_violation(f, "analysis_limit"));
    assert_false(f->engine_bounded);
    f = fixture_analyze(many_predicates(100));
    assert_int_equal(f->violation_count, 0);
    assert_true(f->engine_bounded);
    f = fixture_analyze(many_predicates(SLUICE_SQL_FAST_OBJECTS / 2));
    assert_int_equal(f->violation_count, 0);
    assert_false(f->engine_bounded);
}

/* 128 tables would plan for minutes in the server; the child's deadline refuses them instead. */
static void test_sql_many_relations_are_refused_at_the_deadline(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_timeout_ms = 300;
    cm.sql_max_joins = 64;
    const char *says = assert_refused(many_relations(128), &cm, "analysis_timeout_ms (300 ms)");
    assert_non_null(strstr(says, "joined tables"));
}

/* A text longer than SLUICE_SQL_FAST_TEXT_BYTES is parsed first in the child: DuckDB's parser is
 * super-linear in GROUP BY terms (8,000: seconds) and copies the CTE map for each CTE (1,000: over
 * 256 MB), with no interrupt; a long ordinary statement still parses and binds. */
static void test_sql_long_texts_are_parsed_in_the_child(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_timeout_ms = 300;
    cm.analysis_memory_mb = 64;
    const char *terms = "id % 2";
    for (unsigned i = 3; i < 8000; i++)
        terms = sluice_arena_printf(fixture_arena, "%s, id %% %u", terms, i);
    const char *ctes = "c0 AS (SELECT 1 AS a)";
    for (unsigned i = 1; i < 1000; i++)
        ctes = sluice_arena_printf(fixture_arena, "%s, c%u AS (SELECT 1 AS a)", ctes, i);
    const char *bombs[] = {
        sluice_arena_printf(fixture_arena, "SELECT count(*) AS n FROM orders GROUP BY %s", terms),
        sluice_arena_printf(fixture_arena, "WITH %s SELECT 1 AS x", ctes),
    };
    for (size_t i = 0; i < sizeof bombs / sizeof *bombs; i++) {
        assert_non_null(bombs[i]);
        assert_refused(bombs[i], &cm, "parsing the statement");
    }
    const char *in = "0";
    for (unsigned i = 1; i < 1500; i++)
        in = sluice_arena_printf(fixture_arena, "%s, %u", in, i);
    const char *sql =
        sluice_arena_printf(fixture_arena, "SELECT id FROM orders WHERE id IN (%s)", in);
    assert_true(strlen(sql) > SLUICE_SQL_FAST_TEXT_BYTES);
    const sluice_codefacts *f = fixture_analyze(sql);
    assert_int_equal(f->violation_count, 0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fixture_arena_new, fixture_arena_free)
    const struct CMUnitTest tests[] = {
        T(test_sql_amplification_tags),
        T(test_sql_fast_path_decisions),
        T(test_sql_long_constant_takes_the_bounded_path),
        T(test_sql_seed_queries_take_the_fast_path),
        T(test_sql_amplifying_constants_are_still_bounded),
        T(test_sql_nested_subqueries_take_the_bounded_path),
        T(test_sql_deep_subqueries_are_refused_at_the_deadline),
        T(test_sql_large_statements_take_the_bounded_path),
        T(test_sql_many_relations_are_refused_at_the_deadline),
        T(test_sql_long_texts_are_parsed_in_the_child),
    };
#undef T
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
