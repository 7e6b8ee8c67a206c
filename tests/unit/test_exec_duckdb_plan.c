/*
 * test_exec_duckdb_plan.c — the bind-once unit (exec/duckdb_plan.cpp) on a real DuckDB of the
 * headers' release: the per-connection hardening holds under lock_configuration, one bind gives
 * the whole tree named by DuckDB (CTEs, scans, aggregates, parameters, MERGE INTO), and DuckDB's
 * refusals, a too-deep plan and every allocation failure come back as errors, never a crash.
 * Built only with -DSLUICE_DUCKDB_CPP=ON.
 */
#include "core/arena.h"
#include "exec/duckdb_connect.h"
#include "exec/duckdb_plan.h"
#include "exec/executor.h"
#include "unit.h"

#include <duckdb.h>
#include <stdio.h>
#include <string.h>

#define HOME "/nonexistent/sluice-home"

static duckdb_database db;
static duckdb_connection conn;

/* A locked, closed-off database as exec/duckdb.c opens one, plus the tables the plans read. */
static int setup(void **state)
{
    (void)state;
    duckdb_config cfg;
    if (duckdb_create_config(&cfg) != DuckDBSuccess)
        return -1;
    duckdb_set_config(cfg, "threads", "1");
    duckdb_set_config(cfg, "enable_external_access", "false");
    duckdb_set_config(cfg, "lock_configuration", "true");
    char *err = NULL;
    int rc = duckdb_open_ext(NULL, &db, cfg, &err);
    duckdb_destroy_config(&cfg);
    duckdb_free(err);
    if (rc != DuckDBSuccess || duckdb_connect(db, &conn) != DuckDBSuccess)
        return -1;
    const char *ddl[] = {
        "CREATE TABLE customers(id INTEGER, name VARCHAR, plan VARCHAR)",
        "CREATE TABLE orders(id INTEGER, customer_id INTEGER, total_cents BIGINT, order_date DATE)",
    };
    for (size_t i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++)
        if (duckdb_query(conn, ddl[i], NULL) != DuckDBSuccess)
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    duckdb_disconnect(&conn);
    duckdb_close(&db);
    return 0;
}

/* The first value of a one-row query, or DuckDB's error text: both in buf. */
static bool query_text(duckdb_connection c, const char *sql, char *buf, size_t size)
{
    duckdb_result res;
    bool ok = duckdb_query(c, sql, &res) == DuckDBSuccess;
    if (ok) {
        char *v = duckdb_value_varchar(&res, 0, 0);
        snprintf(buf, size, "%s", v != NULL ? v : "(null)");
        duckdb_free(v);
    } else {
        snprintf(buf, size, "%s", duckdb_result_error(&res));
    }
    duckdb_destroy_result(&res);
    return ok;
}

static void test_harden_sets_what_the_lock_refuses(void **state)
{
    (void)state;
    duckdb_connection c;
    char buf[512];
    assert_int_equal(duckdb_connect(db, &c), DuckDBSuccess);
    /* Before: DuckDB's defaults, and a SET is refused by the lock (the gap the unit fills). */
    assert_false(query_text(c, "SELECT * FROM no_such_table", buf, sizeof(buf)));
    assert_true(buf[0] != '{');
    assert_false(query_text(c, "SET home_directory = '" HOME "'", buf, sizeof(buf)));
    assert_non_null(strstr(buf, "locked"));

    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    assert_int_equal(sluice_exec_duckdb_plan_harden(c, HOME, true, arena, &err), SLUICE_OK);
    assert_true(query_text(c, "SELECT current_setting('home_directory')", buf, sizeof(buf)));
    assert_string_equal(buf, HOME);
    assert_false(query_text(c, "SELECT * FROM no_such_table", buf, sizeof(buf)));
    assert_true(buf[0] == '{');
    assert_non_null(strstr(buf, "\"exception_type\""));
    /* The lock still holds: the caller cannot undo the hardening. */
    assert_false(query_text(c, "SET errors_as_json = false", buf, sizeof(buf)));
    assert_non_null(strstr(buf, "locked"));
    assert_false(query_text(c, "SELECT 1 FROM no_such_table", buf, sizeof(buf)));
    assert_true(buf[0] == '{');
    assert_int_equal(sluice_exec_duckdb_plan_harden(NULL, HOME, true, arena, &err),
                     SLUICE_E_INTERNAL);
    sluice_arena_free(arena);
    duckdb_disconnect(&c);
}

/* Every connection sluice opens goes through sluice_exec_duckdb_connect: hardened (plain or
 * JSON errors as asked), or refused with no connection handed out. */
static void test_connect_hardens_or_hands_out_nothing(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    assert_non_null(arena);
    char buf[512];
    for (int json = 0; json <= 1; json++) {
        sluice_error err = { 0 };
        duckdb_connection c = NULL;
        assert_int_equal(sluice_exec_duckdb_connect(db, json == 1, &c, arena, &err), SLUICE_OK);
        assert_non_null(c);
        assert_true(query_text(c, "SELECT current_setting('home_directory')", buf, sizeof(buf)));
        assert_string_equal(buf, SLUICE_DUCKDB_NO_DIR);
        /* 1.4.4 dropped the one given before the open; the first connection set it. */
        assert_true(query_text(c, "SELECT current_setting('secret_directory')", buf, sizeof(buf)));
        assert_string_equal(buf, SLUICE_DUCKDB_NO_DIR);
        assert_false(query_text(c, "SELECT * FROM no_such_table", buf, sizeof(buf)));
        assert_int_equal(buf[0] == '{', json == 1);
        /* "~" is the directory that cannot exist, not the server user's home. */
        assert_false(query_text(c, "SET home_directory = '/tmp'", buf, sizeof(buf)));
        duckdb_disconnect(&c);
    }
    /* No database: an error, and *out is NULL even if it held a value. */
    sluice_error err = { 0 };
    duckdb_connection c = (duckdb_connection)&err;
    assert_int_equal(sluice_exec_duckdb_connect(NULL, true, &c, arena, &err), SLUICE_E_ENGINE);
    assert_null(c);
    assert_non_null(strstr(err.message, "could not connect"));
    /* The hardening's allocation fails: the connection is closed again, never handed out. */
    c = (duckdb_connection)&err;
    sluice_error nomem = { 0 };
    sluice_arena_fail_at(1);
    sluice_status st = sluice_exec_duckdb_connect(db, true, &c, arena, &nomem);
    sluice_arena_fail_at(0);
    assert_int_equal(st, SLUICE_E_NOMEM);
    assert_null(c);
    sluice_arena_free(arena);
}

/* An analysis's connection from an idle set (sluice_executor_bind_session), held until its arena
 * is freed; the arena comes back in *arena. */
static duckdb_connection session_on(sluice_duckdb_idle *idle, bool json, sluice_arena **arena)
{
    *arena = sluice_arena_new();
    assert_non_null(*arena);
    sluice_error err = { 0 };
    void *c = NULL;
    assert_int_equal(sluice_executor_bind_session(db, idle, json, &c, *arena, &err), SLUICE_OK);
    assert_non_null(c);
    return c;
}

/* A connection given back after refusals and errors is taken again, as new; one a statement left
 * a transaction, a prepared name or an interrupt on is never kept; a mirror's (plain errors)
 * never enters the set; a set closed while a connection is out lets go of it when it comes back
 * (ASan: no leak, no use after free). */
static void test_idle_connections_come_back_as_new(void **state)
{
    (void)state;
    sluice_duckdb_idle *idle = sluice_exec_duckdb_idle_new();
    assert_non_null(idle);
    sluice_arena *arena = NULL;
    char buf[512];
    duckdb_connection c = session_on(idle, true, &arena);
    sluice_error err = { 0 };
    sluice_bound_statement *b = NULL;
    const char *refused[] = { "SELECT nope FROM orders", "DELETE FROM orders WHERE id = 1",
                              "BEGIN TRANSACTION", "SELEC 1" };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        assert_int_equal(sluice_executor_bind_parse(c, refused[i], arena, &b, &err), SLUICE_OK);
        if (b->statement_count == 1)
            assert_int_equal(sluice_executor_bind_plan(c, b, arena, &err), SLUICE_OK);
    }
    assert_false(query_text(c, "SELECT * FROM no_such_table", buf, sizeof(buf)));
    assert_true(sluice_exec_duckdb_plan_as_new(c));
    sluice_arena_free(arena);
    assert_ptr_equal(session_on(idle, true, &arena), c);
    assert_true(query_text(c, "SELECT 42", buf, sizeof(buf)));
    assert_string_equal(buf, "42");

    const char *leave[] = { "BEGIN TRANSACTION", "PREPARE p AS SELECT 1", NULL };
    for (size_t i = 0; i < sizeof(leave) / sizeof(leave[0]); i++) {
        if (leave[i] != NULL)
            assert_true(query_text(c, leave[i], buf, sizeof(buf)));
        else
            duckdb_interrupt(c);
        assert_false(sluice_exec_duckdb_plan_as_new(c));
        sluice_arena_free(arena); /* not kept: disconnected */
        c = session_on(idle, true, &arena);
        assert_true(sluice_exec_duckdb_plan_as_new(c));
        assert_false(query_text(c, "COMMIT", buf, sizeof(buf))); /* no transaction open */
        assert_false(query_text(c, "EXECUTE p", buf, sizeof(buf)));
    }
    sluice_arena_free(arena);

    /* Plain errors (a mirror's): never taken from the set nor given to it. */
    duckdb_connection plain = session_on(idle, false, &arena);
    assert_ptr_not_equal(plain, c);
    assert_false(query_text(plain, "SELECT * FROM no_such_table", buf, sizeof(buf)));
    assert_true(buf[0] != '{');
    sluice_arena_free(arena);
    assert_ptr_equal(session_on(idle, true, &arena), c);

    sluice_exec_duckdb_idle_close(idle);
    sluice_arena_free(arena);
}

/* Taking a connection fails closed at each of its allocations: nothing handed out, nothing
 * leaked, and the set still hands out connections afterwards. */
static void test_idle_session_allocation_failure_sweep(void **state)
{
    (void)state;
    sluice_duckdb_idle *idle = sluice_exec_duckdb_idle_new();
    assert_non_null(idle);
    for (int warm = 0; warm <= 1; warm++) /* a new connection, then a kept one */
        for (long n = 1;; n++) {
            sluice_arena *arena = sluice_arena_new();
            assert_non_null(arena);
            sluice_error err = { 0 };
            void *c = (void *)&err;
            sluice_arena_fail_at(n);
            sluice_status st = sluice_executor_bind_session(db, idle, true, &c, arena, &err);
            bool pending = sluice_arena_fail_pending();
            sluice_arena_fail_at(0);
            sluice_arena_free(arena);
            if (pending) {
                assert_int_equal(st, SLUICE_OK);
                break;
            }
            assert_int_equal(st, SLUICE_E_NOMEM);
            assert_null(c);
            assert_true(n < 100);
        }
    sluice_exec_duckdb_idle_close(idle);
}

/* The first operator named name in op's tree (depth first), or NULL. */
static const sluice_duckdb_op *find_op(const sluice_duckdb_op *op, const char *name)
{
    if (strcmp(op->name, name) == 0)
        return op;
    for (size_t i = 0; i < op->n_children; i++) {
        const sluice_duckdb_op *hit = find_op(op->children[i], name);
        if (hit != NULL)
            return hit;
    }
    return NULL;
}

static bool expr_has(const sluice_duckdb_expr *e, const char *cls, const char *name)
{
    if (strcmp(e->cls, cls) == 0 && (name == NULL || strcmp(e->name, name) == 0))
        return true;
    for (size_t i = 0; i < e->n_children; i++)
        if (expr_has(e->children[i], cls, name))
            return true;
    return false;
}

static bool op_has_expr(const sluice_duckdb_op *op, const char *cls, const char *name)
{
    for (size_t i = 0; i < op->n_exprs; i++)
        if (expr_has(op->exprs[i], cls, name))
            return true;
    for (size_t i = 0; i < op->n_children; i++)
        if (op_has_expr(op->children[i], cls, name))
            return true;
    return false;
}

static const char cte_sql[] =
    "WITH revenue AS MATERIALIZED (SELECT customer_id, SUM(total_cents) AS total FROM orders "
    "WHERE order_date >= DATE '2026-04-01' GROUP BY customer_id) "
    "SELECT c.id, c.name, r.total FROM customers c JOIN revenue r ON r.customer_id = c.id "
    "WHERE c.plan = 'enterprise' ORDER BY r.total DESC LIMIT 20";

static void test_bind_gives_the_whole_tree(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_duckdb_plan *plan = NULL;
    assert_int_equal(sluice_exec_duckdb_plan_bind(conn, cte_sql, NULL, 0, arena, &plan, &err),
                     SLUICE_OK);
    assert_string_equal(plan->statement, "SELECT_STATEMENT");
    assert_int_equal(plan->n_columns, 3);
    assert_string_equal(plan->names[0], "id");
    assert_string_equal(plan->names[2], "total");
    assert_string_equal(plan->types[1], "VARCHAR");
    assert_int_equal(plan->n_params, 0);
    const sluice_duckdb_op *root = plan->root;
    assert_non_null(find_op(root, "LOGICAL_MATERIALIZED_CTE"));
    assert_non_null(find_op(root, "LOGICAL_CTE_REF"));
    const sluice_duckdb_op *get = find_op(root, "LOGICAL_GET");
    assert_non_null(get);
    assert_string_equal(get->function, "seq_scan");
    assert_true(strcmp(get->table, "orders") == 0 || strcmp(get->table, "customers") == 0);
    assert_null(root->function);
    assert_true(op_has_expr(root, "BOUND_AGGREGATE", "sum"));
    assert_true(op_has_expr(root, "BOUND_CONSTANT", NULL));
    /* Resolved bindings, as json_serialize_plan gives them: references into child outputs. */
    assert_true(op_has_expr(root, "BOUND_REF", NULL));
    assert_true(plan->n_ops >= 8);
    assert_true(plan->n_exprs >= 10);
    sluice_arena_free(arena);
}

/* The estimate plans with the caller's values: $1 bound is a constant, unbound a parameter. */
static void test_bind_takes_parameter_values(void **state)
{
    (void)state;
    static const char sql[] = "SELECT id FROM orders WHERE customer_id = $1 AND total_cents > $2";
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_duckdb_plan *plan = NULL;
    assert_int_equal(sluice_exec_duckdb_plan_bind(conn, sql, NULL, 0, arena, &plan, &err),
                     SLUICE_OK);
    assert_int_equal(plan->n_params, 2);
    assert_true(op_has_expr(plan->root, "BOUND_PARAMETER", NULL));

    duckdb_value values[2] = { duckdb_create_int32(7), duckdb_create_int64(1000) };
    plan = NULL;
    assert_int_equal(sluice_exec_duckdb_plan_bind(conn, sql, values, 2, arena, &plan, &err),
                     SLUICE_OK);
    assert_int_equal(plan->n_params, 2);
    duckdb_destroy_value(&values[0]);
    duckdb_destroy_value(&values[1]);
    sluice_arena_free(arena);
}

static void test_bind_names_merge_into(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_duckdb_plan *plan = NULL;
    assert_int_equal(sluice_exec_duckdb_plan_bind(
                         conn,
                         "MERGE INTO customers c USING (SELECT 1 AS id) s ON c.id = s.id "
                         "WHEN MATCHED THEN UPDATE SET name = 'x'",
                         NULL, 0, arena, &plan, &err),
                     SLUICE_OK);
    assert_string_equal(plan->statement, "MERGE_INTO_STATEMENT");
    sluice_arena_free(arena);
}

static void expect_refusal(const char *sql, sluice_status status, const char *needle)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_duckdb_plan *plan = NULL;
    assert_int_equal(sluice_exec_duckdb_plan_bind(conn, sql, NULL, 0, arena, &plan, &err), status);
    assert_null(plan);
    assert_non_null(err.message);
    if (strstr(err.message, needle) == NULL)
        fail_msg("'%s' not in '%s'", needle, err.message);
    sluice_arena_free(arena);
}

static void test_bind_refuses_clearly(void **state)
{
    (void)state;
    expect_refusal("SELEC 1", SLUICE_E_ENGINE, "syntax error");
    expect_refusal("SELECT * FROM no_such_table", SLUICE_E_ENGINE, "no_such_table");
    expect_refusal("SELECT 1; SELECT 2", SLUICE_E_INVALID, "found 2");
    expect_refusal("", SLUICE_E_INVALID, "found 0");
    /* The connection is still usable after each refusal (the transaction was rolled back). */
    char buf[64];
    assert_true(query_text(conn, "SELECT 42", buf, sizeof(buf)));
    assert_string_equal(buf, "42");
}

/* Deeper than SLUICE_DUCKDB_PLAN_MAX_DEPTH: refused with the limit named, not walked. */
static void test_bind_refuses_too_deep_a_plan(void **state)
{
    (void)state;
    char sql[4096] = "SELECT ";
    size_t len = strlen(sql);
    for (int i = 0; i < SLUICE_DUCKDB_PLAN_MAX_DEPTH + 10; i++)
        len += (size_t)snprintf(sql + len, sizeof(sql) - len, "abs(");
    len += (size_t)snprintf(sql + len, sizeof(sql) - len, "id");
    for (int i = 0; i < SLUICE_DUCKDB_PLAN_MAX_DEPTH + 10; i++)
        len += (size_t)snprintf(sql + len, sizeof(sql) - len, ")");
    snprintf(sql + len, sizeof(sql) - len, " FROM orders");
    expect_refusal(sql, SLUICE_E_LIMIT, "256");
}

/* Every arena allocation of a bind fails in turn: an error each time, then the full tree. */
static void test_bind_allocation_failure_sweep(void **state)
{
    (void)state;
    for (long n = 1; n < 5000; n++) {
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_error err = { 0 };
        sluice_duckdb_plan *plan = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_exec_duckdb_plan_bind(conn, cte_sql, NULL, 0, arena, &plan, &err);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (pending) {
            assert_int_equal(st, SLUICE_OK);
            assert_non_null(plan->root);
            sluice_arena_free(arena);
            break; /* this run never reached its nth point: every point was swept */
        }
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_null(plan);
        sluice_arena_free(arena);
    }
}

/* The one parse and one bind validate makes (sluice_executor_bind_parse + _plan), every arena
 * allocation failing in turn: NOMEM each time (nothing leaks: ASan), never a partial bind
 * handed out, then every field. */
static void test_bind_once_allocation_failure_sweep(void **state)
{
    (void)state;
    for (long n = 1; n < 5000; n++) {
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_error err = { 0 };
        sluice_bound_statement *b = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_executor_bind_parse(conn, cte_sql, arena, &b, &err);
        if (st == SLUICE_OK)
            st = sluice_executor_bind_plan(conn, b, arena, &err);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (pending) {
            assert_int_equal(st, SLUICE_OK);
            assert_int_equal(b->statement_count, 1);
            assert_null(b->bind_error);
            assert_int_equal(b->column_count, 3);
            assert_string_equal(b->column_names[2], "total");
            assert_non_null(b->parse_tree);
            assert_non_null(b->plan);
            assert_non_null(b->physical);
            sluice_arena_free(arena);
            return; /* this run never reached its nth point: every point was swept */
        }
        assert_int_equal(st, SLUICE_E_NOMEM);
        sluice_arena_free(arena);
    }
    fail_msg("the sweep never reached the end");
}

/* What the bind gives besides the plan: prepare's refusal word for word, the parameters, the
 * type of a write, and a second bind of one parse refused. */
static void test_bind_once_gives_what_prepare_gives(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_bound_statement *b = NULL;
    assert_int_equal(sluice_executor_bind_parse(conn, "SELECT nope FROM orders", arena, &b, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_executor_bind_plan(conn, b, arena, &err), SLUICE_OK);
    duckdb_prepared_statement ps = NULL;
    assert_int_equal(duckdb_prepare(conn, "SELECT nope FROM orders", &ps), DuckDBError);
    assert_string_equal(b->bind_error, duckdb_prepare_error(ps));
    duckdb_destroy_prepare(&ps);
    assert_null(b->plan);
    assert_int_equal(sluice_executor_bind_plan(conn, b, arena, &err), SLUICE_E_INVALID);

    assert_int_equal(
        sluice_executor_bind_parse(conn, "SELECT id FROM orders WHERE id = $id", arena, &b, &err),
        SLUICE_OK);
    assert_int_equal(sluice_executor_bind_plan(conn, b, arena, &err), SLUICE_OK);
    assert_int_equal(b->param_count, 1);
    assert_string_equal(b->param_names[0], "id");
    assert_int_equal(b->param_types[0], DUCKDB_TYPE_INTEGER);
    assert_null(b->physical); /* with parameters the estimate plans with the caller's values */

    assert_int_equal(
        sluice_executor_bind_parse(conn, "DELETE FROM orders WHERE id = 1", arena, &b, &err),
        SLUICE_OK);
    assert_true(sluice_tree_is_true(sluice_tree_get(b->parse_tree, "error"))); /* not a SELECT */
    assert_int_equal(sluice_executor_bind_plan(conn, b, arena, &err), SLUICE_OK);
    assert_int_equal(b->statement_type, DUCKDB_STATEMENT_TYPE_DELETE);
    assert_null(b->plan);

    assert_int_equal(sluice_executor_bind_parse(conn, "SELECT 1; SELECT 2", arena, &b, &err),
                     SLUICE_OK);
    assert_int_equal(b->statement_count, 2);
    assert_int_equal(sluice_executor_bind_plan(conn, b, arena, &err), SLUICE_E_INVALID);
    assert_int_equal(sluice_executor_bind_parse(conn, "SELEC 1", arena, &b, &err), SLUICE_OK);
    assert_int_equal(b->statement_count, 0);
    assert_non_null(strstr(b->parse_error, "syntax error"));
    sluice_arena_free(arena);
}

/* find_function's match in these tests: the logging functions (exec/duckdb.c's list). */
static const char *logging_function(const char *name)
{
    static const char *const names[] = { "enable_logging", "disable_logging" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return names[i];
    return NULL;
}

/* sluice_exec_duckdb_plan_find_function on sql as the executor prepares it: its status and hit. */
static sluice_status find_in(const char *sql, const char **hit)
{
    duckdb_prepared_statement ps = NULL;
    assert_int_equal(duckdb_prepare(conn, sql, &ps), DuckDBSuccess);
    *hit = "unset";
    sluice_status st = sluice_exec_duckdb_plan_find_function(ps, logging_function, hit);
    duckdb_destroy_prepare(&ps);
    return st;
}

/* The physical plan a prepare made names the table functions it will run, wherever the planner
 * put them: through query(), a view, a correlated subquery (a delim join's own children), a CTE,
 * a positional join (a positional scan's own children), a union and an EXISTS; a plan without
 * one says so; where the plan may not be the one that runs (parameters),
 * or there is none, the caller is told to check otherwise. */
static void test_find_function_reads_the_prepared_plan(void **state)
{
    (void)state;
    const char *hit = NULL;
    assert_int_equal(duckdb_query(conn,
                                  "CREATE OR REPLACE VIEW quiet AS SELECT * FROM "
                                  "disable_logging()",
                                  NULL),
                     DuckDBSuccess);
    const struct {
        const char *sql;
        const char *hit;
    } cases[] = {
        { "SELECT * FROM enable_logging()", "enable_logging" },
        { "SELECT * FROM query('SELECT * FROM enable_' || 'logging()')", "enable_logging" },
        { "SELECT * FROM quiet", "disable_logging" },
        { "SELECT id, (SELECT count(*) FROM disable_logging() d WHERE d.Success = (o.id > 0)) "
          "FROM orders o",
          "disable_logging" },
        { "WITH x AS MATERIALIZED (SELECT * FROM enable_logging()) SELECT * FROM x, x AS y",
          "enable_logging" },
        { "SELECT * FROM orders POSITIONAL JOIN disable_logging()", "disable_logging" },
        { "SELECT true UNION ALL SELECT * FROM enable_logging()", "enable_logging" },
        { "SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM disable_logging())",
          "disable_logging" },
        { cte_sql, NULL },
        { "SELECT * FROM range(3)", NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (find_in(cases[i].sql, &hit) != SLUICE_OK)
            fail_msg("'%s' was not read", cases[i].sql);
        if (cases[i].hit == NULL ? hit != NULL : hit == NULL || strcmp(hit, cases[i].hit) != 0)
            fail_msg("'%s' found '%s'", cases[i].sql, hit != NULL ? hit : "(none)");
    }
    assert_int_equal(find_in("SELECT id FROM orders WHERE id = $1", &hit), SLUICE_E_UNSUPPORTED);
    assert_string_equal(hit, "unset");
    assert_int_equal(sluice_exec_duckdb_plan_find_function(NULL, logging_function, &hit),
                     SLUICE_E_UNSUPPORTED);
    assert_int_equal(duckdb_query(conn, "DROP VIEW quiet", NULL), DuckDBSuccess);
}

/* Every allocation of the read fails in turn: SLUICE_E_NOMEM each time, never "none found";
 * then the function. */
static void test_find_function_allocation_failure_sweep(void **state)
{
    (void)state;
    const char *sql = "SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id, "
                      "enable_logging() e";
    duckdb_prepared_statement ps = NULL;
    assert_int_equal(duckdb_prepare(conn, sql, &ps), DuckDBSuccess);
    for (long n = 1; n < 1000; n++) {
        const char *hit = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_exec_duckdb_plan_find_function(ps, logging_function, &hit);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (pending) {
            assert_int_equal(st, SLUICE_OK);
            assert_string_equal(hit, "enable_logging");
            duckdb_destroy_prepare(&ps);
            return; /* this run never reached its nth point: every point was swept */
        }
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_null(hit);
    }
    fail_msg("the sweep never reached the end");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harden_sets_what_the_lock_refuses),
        cmocka_unit_test(test_connect_hardens_or_hands_out_nothing),
        cmocka_unit_test(test_idle_connections_come_back_as_new),
        cmocka_unit_test(test_idle_session_allocation_failure_sweep),
        cmocka_unit_test(test_bind_gives_the_whole_tree),
        cmocka_unit_test(test_bind_takes_parameter_values),
        cmocka_unit_test(test_bind_names_merge_into),
        cmocka_unit_test(test_bind_refuses_clearly),
        cmocka_unit_test(test_bind_refuses_too_deep_a_plan),
        cmocka_unit_test(test_bind_allocation_failure_sweep),
        cmocka_unit_test(test_bind_once_gives_what_prepare_gives),
        cmocka_unit_test(test_bind_once_allocation_failure_sweep),
        cmocka_unit_test(test_find_function_reads_the_prepared_plan),
        cmocka_unit_test(test_find_function_allocation_failure_sweep),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
