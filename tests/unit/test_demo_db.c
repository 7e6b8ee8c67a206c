/*
 * test_demo_db.c — the demo database generator: deterministic (two runs, same content), the
 * shape the seed questions need (row counts, date range), and the seed questions themselves
 * return rows through the real executors on both engines.
 */
#include "exec/demo_db.h"
#include "exec/engines.h"
#include "exec/executor.h"
#include "exec_test_util.h"
#include "unit.h"

#include <sys/stat.h>

static const char *const tables[] = {
    "account_quarterly_metrics", "contacts", "customers", "invoices", "orders", "sales_reps",
    "support_tickets",
};

/* Row count and an MD5 over every row's text, in a stable order: equal content, equal sums. */
#define CHECKSUM_SQL                                                                             \
    "SELECT count(*), md5(string_agg(CAST(t AS VARCHAR), chr(10) ORDER BY CAST(t AS VARCHAR))) " \
    "FROM \"%s\" t"

static const char *seed003_duckdb =
    "WITH current_revenue AS (SELECT customer_id, SUM(total_cents) AS current_total_cents "
    "FROM orders WHERE order_date >= DATE '2026-04-01' AND order_date < DATE '2026-07-01' "
    "GROUP BY customer_id), previous_revenue AS (SELECT customer_id, SUM(total_cents) AS "
    "previous_total_cents FROM orders WHERE order_date >= DATE '2026-01-01' AND order_date < "
    "DATE '2026-04-01' GROUP BY customer_id), ticket_counts AS (SELECT customer_id, COUNT(*) AS "
    "ticket_count FROM support_tickets WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00' AND "
    "created_at < TIMESTAMP '2026-07-01 00:00:00' GROUP BY customer_id) SELECT c.id, c.name, "
    "current_revenue.current_total_cents, previous_revenue.previous_total_cents, "
    "ticket_counts.ticket_count FROM customers c JOIN current_revenue ON "
    "current_revenue.customer_id = c.id JOIN previous_revenue ON previous_revenue.customer_id = "
    "c.id JOIN ticket_counts ON ticket_counts.customer_id = c.id WHERE c.plan = 'enterprise' AND "
    "current_revenue.current_total_cents < previous_revenue.previous_total_cents AND "
    "ticket_counts.ticket_count > 3 ORDER BY previous_revenue.previous_total_cents - "
    "current_revenue.current_total_cents DESC LIMIT 20";

/* SQLite has no DATE '...' literals; ISO text compares the same way. */
static const char *seed003_sqlite =
    "WITH current_revenue AS (SELECT customer_id, SUM(total_cents) AS current_total_cents "
    "FROM orders WHERE order_date >= '2026-04-01' AND order_date < '2026-07-01' "
    "GROUP BY customer_id), previous_revenue AS (SELECT customer_id, SUM(total_cents) AS "
    "previous_total_cents FROM orders WHERE order_date >= '2026-01-01' AND order_date < "
    "'2026-04-01' GROUP BY customer_id), ticket_counts AS (SELECT customer_id, COUNT(*) AS "
    "ticket_count FROM support_tickets WHERE created_at >= '2026-04-01 00:00:00' AND "
    "created_at < '2026-07-01 00:00:00' GROUP BY customer_id) SELECT c.id, c.name, "
    "current_revenue.current_total_cents, previous_revenue.previous_total_cents, "
    "ticket_counts.ticket_count FROM customers c JOIN current_revenue ON "
    "current_revenue.customer_id = c.id JOIN previous_revenue ON previous_revenue.customer_id = "
    "c.id JOIN ticket_counts ON ticket_counts.customer_id = c.id WHERE c.plan = 'enterprise' AND "
    "current_revenue.current_total_cents < previous_revenue.previous_total_cents AND "
    "ticket_counts.ticket_count > 3 ORDER BY previous_revenue.previous_total_cents - "
    "current_revenue.current_total_cents DESC LIMIT 20";

/* Seed 000, verbatim: works on both engines. */
static const char *seed000_lag =
    "SELECT * FROM (SELECT rep_id, customer_id, quarterly_revenue, LAG(quarterly_revenue) OVER "
    "(PARTITION BY customer_id ORDER BY quarter) AS previous_quarter_revenue, ticket_count, "
    "quarter FROM account_quarterly_metrics) WHERE quarter = '2026-Q1' AND "
    "previous_quarter_revenue IS NOT NULL AND ticket_count > 3 ORDER BY (quarterly_revenue - "
    "previous_quarter_revenue) ASC LIMIT 5";

/* Seed 000's question: spend fell three months in a row, with ticket volume, not contacted in
 * the 14 days before the data ends (2026-09-30). */
static const char *seed000_falling =
    "WITH monthly AS (SELECT customer_id, strftime('%Y-%m', order_date) AS month, "
    "SUM(total_cents) AS spend FROM orders GROUP BY 1, 2), tickets AS (SELECT customer_id, "
    "strftime('%Y-%m', created_at) AS month, count(*) AS n FROM support_tickets GROUP BY 1, 2), "
    "w AS (SELECT m.customer_id, m.month, m.spend, coalesce(t.n, 0) AS tickets, lag(m.spend, 1) "
    "OVER (PARTITION BY m.customer_id ORDER BY m.month) AS p1, lag(m.spend, 2) OVER (PARTITION BY "
    "m.customer_id ORDER BY m.month) AS p2, lag(m.spend, 3) OVER (PARTITION BY m.customer_id "
    "ORDER BY m.month) AS p3 FROM monthly m LEFT JOIN tickets t ON t.customer_id = m.customer_id "
    "AND t.month = m.month) SELECT w.customer_id, c.name, w.spend, w.tickets FROM w JOIN "
    "customers c ON c.id = w.customer_id JOIN contacts ct ON ct.customer_id = w.customer_id "
    "WHERE w.month = '2026-09' AND w.spend < w.p1 AND w.p1 < w.p2 AND w.p2 < w.p3 AND "
    "ct.last_contacted_at < '2026-09-16' ORDER BY w.p3 - w.spend DESC LIMIT 20";

static const char *seed004_invoices =
    "SELECT status, count(*), avg(total) FROM invoices GROUP BY status ORDER BY status";

typedef struct fixture {
    char dir[256];
    sluice_arena *arena;
    char *duck[2]; /* two runs of each engine, generated once for the whole group */
    char *lite[2];
} fixture;

static char *generate(fixture *f, sluice_engine_kind engine, const char *name);

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-test-demo-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->arena = sluice_arena_new();
    f->duck[0] = generate(f, SLUICE_ENGINE_DUCKDB, "a.duckdb");
    f->duck[1] = generate(f, SLUICE_ENGINE_DUCKDB, "b.duckdb");
    f->lite[0] = generate(f, SLUICE_ENGINE_SQLITE, "a.sqlite");
    f->lite[1] = generate(f, SLUICE_ENGINE_SQLITE, "b.sqlite");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_arena_free(f->arena);
    test_remove_tree(f->dir);
    free(f);
    return 0;
}

static char *generate(fixture *f, sluice_engine_kind engine, const char *name)
{
    char *path = sluice_arena_printf(f->arena, "%s/%s", f->dir, name);
    sluice_error err = { 0 };
    sluice_status st =
        sluice_exec_demo_generate(engine, SLUICE_DEMO_SQL_DEFAULT, path, f->arena, &err);
    if (st != SLUICE_OK)
        fail_msg("demo-db %s: %s", name, err.message);
    return path;
}

static sluice_executor *open_exec(fixture *f, sluice_engine_kind engine, const char *path)
{
    sluice_config_database db = { .engine = engine, .path = path, .threads = 2 };
    sluice_config_code_mode cm = { 0 };
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    if (sluice_executor_open(&db, &cm, &ex, f->arena, &err) != SLUICE_OK)
        fail_msg("open %s: %s", path, err.message);
    return ex;
}

static json_t *query(fixture *f, sluice_executor *ex, const char *sql)
{
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .limits = { .timeout_ms = 120000, .max_rows = 1000 } };
    sluice_exec_result r;
    sluice_error err = { 0 };
    if (sluice_executor_execute(ex, f->arena, &req, &r, &err) != SLUICE_OK)
        fail_msg("%s\n-> %s", sql, err.message);
    return r.rows;
}

static json_int_t scalar_int(fixture *f, sluice_executor *ex, const char *sql)
{
    json_t *v = json_array_get(json_array_get(query(f, ex, sql), 0), 0);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static void test_duckdb_is_deterministic_and_shaped(void **state)
{
    fixture *f = *state;
    sluice_executor *a = open_exec(f, SLUICE_ENGINE_DUCKDB, f->duck[0]);
    sluice_executor *b = open_exec(f, SLUICE_ENGINE_DUCKDB, f->duck[1]);
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        char *sql = sluice_arena_printf(f->arena, CHECKSUM_SQL, tables[i]);
        char *ja = json_dumps(query(f, a, sql), JSON_COMPACT);
        char *jb = json_dumps(query(f, b, sql), JSON_COMPACT);
        if (strcmp(ja, jb) != 0)
            fail_msg("%s differs between runs: %s vs %s", tables[i], ja, jb);
        free(ja);
        free(jb);
    }
    assert_int_equal(scalar_int(f, a, "SELECT count(*) FROM customers"), 5000);
    assert_true(scalar_int(f, a, "SELECT count(*) FROM orders") >= 200000);
    assert_int_equal(scalar_int(f, a,
                                "SELECT count(DISTINCT plan) FROM customers "
                                "WHERE plan IN ('free', 'pro', 'enterprise')"),
                     3);
    assert_int_equal(scalar_int(f, a,
                                "SELECT count(*) FROM orders WHERE order_date < "
                                "DATE '2025-01-01' OR order_date > DATE '2026-09-30'"),
                     0);
    assert_true(scalar_int(f, a,
                           "SELECT count(DISTINCT strftime(order_date, '%Y-%m')) "
                           "FROM orders") == 21);
    /* every seed question has an answer */
    assert_true(json_array_size(query(f, a, seed003_duckdb)) > 0);
    assert_int_equal(json_array_size(query(f, a, seed000_lag)), 5);
    assert_true(json_array_size(query(f, a, seed000_falling)) > 0);
    assert_int_equal(json_array_size(query(f, a, seed004_invoices)), 4);
    /* "some not contacted": both sides of the 14-day line exist among the decliners */
    assert_true(scalar_int(f, a,
                           "SELECT count(*) FROM contacts "
                           "WHERE last_contacted_at >= TIMESTAMP '2026-09-16'") > 0);
    sluice_executor_close(a);
    sluice_executor_close(b);
}

static bool same_file(const char *x, const char *y)
{
    FILE *a = fopen(x, "rb"), *b = fopen(y, "rb");
    bool same = a != NULL && b != NULL;
    while (same) {
        int ca = fgetc(a), cb = fgetc(b);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (a != NULL)
        fclose(a);
    if (b != NULL)
        fclose(b);
    return same;
}

static void test_sqlite_matches_duckdb_and_answers(void **state)
{
    fixture *f = *state;
    assert_true(same_file(f->lite[0], f->lite[1])); /* byte for byte */
    sluice_executor *lite = open_exec(f, SLUICE_ENGINE_SQLITE, f->lite[0]);
    sluice_executor *duck = open_exec(f, SLUICE_ENGINE_DUCKDB, f->duck[0]);
    const char *same_answer[] = {
        "SELECT count(*), sum(total_cents) FROM orders",
        "SELECT count(*), sum(ticket_count) FROM account_quarterly_metrics",
        "SELECT count(*), sum(length(name)) FROM customers",
        "SELECT count(*) FROM support_tickets",
        "SELECT count(*) FROM invoices",
    };
    for (size_t i = 0; i < sizeof(same_answer) / sizeof(same_answer[0]); i++) {
        char *x = json_dumps(query(f, lite, same_answer[i]), JSON_COMPACT);
        char *y = json_dumps(query(f, duck, same_answer[i]), JSON_COMPACT);
        if (strcmp(x, y) != 0)
            fail_msg("%s: sqlite %s, duckdb %s", same_answer[i], x, y);
        free(x);
        free(y);
    }
    assert_true(json_array_size(query(f, lite, seed003_sqlite)) > 0);
    assert_int_equal(json_array_size(query(f, lite, seed000_lag)), 5);
    assert_true(json_array_size(query(f, lite, seed000_falling)) > 0);
    sluice_executor_close(lite);
    sluice_executor_close(duck);
}

static void test_generator_errors(void **state)
{
    fixture *f = *state;
    sluice_error err = { 0 };
    char *out = sluice_arena_printf(f->arena, "%s/x.duckdb", f->dir);
    assert_int_equal(sluice_exec_demo_generate(SLUICE_ENGINE_DUCKDB, "/nonexistent/demo.sql", out,
                                               f->arena, &err),
                     SLUICE_E_IO);
    struct stat sb;
    assert_int_not_equal(stat(out, &sb), 0);
    char *bad = sluice_arena_printf(f->arena, "%s/bad.sql", f->dir);
    FILE *fp = fopen(bad, "w");
    fputs("CREATE TABLE t AS SELECT 1 AS a;\nSELECT * FROM nosuch;\n", fp);
    fclose(fp);
    assert_int_equal(sluice_exec_demo_generate(SLUICE_ENGINE_DUCKDB, bad, out, f->arena, &err),
                     SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, "statement 2"));
    assert_int_not_equal(stat(out, &sb), 0); /* no half-built file left */
    /* an existing file is never overwritten */
    assert_int_equal(sluice_exec_demo_generate(SLUICE_ENGINE_DUCKDB, bad, bad, f->arena, &err),
                     SLUICE_E_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duckdb_is_deterministic_and_shaped),
        cmocka_unit_test(test_sqlite_matches_duckdb_and_answers),
        cmocka_unit_test(test_generator_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
