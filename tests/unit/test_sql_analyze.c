/*
 * test_sql_analyze.c — the SQL front end end to end: classification per statement kind, exactly
 * one statement, syntax errors with line and column, the canonical hash, the seed examples and
 * the explanation.
 */
#include "exec/engines.h"
#include "exec/executor.h"
#include "facts/codefacts.h"
#include "sql_fixture.h"
#include "unit.h"

#include <jansson.h>
#include <unistd.h>

typedef struct kind_case {
    const char *sql;
    const char *kind;
    sluice_action action;
    const char *rule; /* the violation expected under the default config, NULL = none */
} kind_case;

static const kind_case kind_cases[] = {
    { "SELECT name FROM customers", "SELECT", SLUICE_ACTION_READ, NULL },
    { "FROM orders SELECT id", "SELECT", SLUICE_ACTION_READ, NULL },
    { "VALUES (1)", "SELECT", SLUICE_ACTION_READ, NULL },
    { "INSERT INTO orders(id) VALUES (1)", "INSERT", SLUICE_ACTION_WRITE, "sql_allow_writes" },
    { "UPDATE orders SET status = 'x' WHERE id = 1", "UPDATE", SLUICE_ACTION_WRITE,
      "sql_allow_writes" },
    { "MERGE INTO orders USING orders o2 ON orders.id = o2.id WHEN MATCHED THEN UPDATE SET "
      "status = 'x'",
      "MERGE", SLUICE_ACTION_WRITE, "sql_allow_writes" },
    { "DELETE FROM orders WHERE id = 1", "DELETE", SLUICE_ACTION_DELETE, "sql_allow_deletes" },
    { "TRUNCATE orders", "DELETE", SLUICE_ACTION_DELETE, "sql_allow_deletes" },
    { "CREATE TABLE t(a INTEGER)", "CREATE", SLUICE_ACTION_ADMIN, "sql_allow_ddl" },
    { "DROP TABLE orders", "DROP", SLUICE_ACTION_ADMIN, "sql_allow_ddl" },
    { "ALTER TABLE orders ADD COLUMN x INTEGER", "ALTER", SLUICE_ACTION_ADMIN, "sql_allow_ddl" },
    { "ATTACH ':memory:' AS m", "ATTACH", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "DETACH m", "DETACH", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "PRAGMA enable_profiling", "PRAGMA", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "SET threads = 4", "SET", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "SET VARIABLE v = 1", "SET", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "LOAD httpfs", "LOAD", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "COPY orders TO '/tmp/x.csv'", "COPY", SLUICE_ACTION_ADMIN, NULL },
    { "CALL enable_logging()", "CALL", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "CHECKPOINT", "CALL", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "VACUUM", "VACUUM", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "BEGIN TRANSACTION", "TRANSACTION", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "PREPARE p AS SELECT 1", "PREPARE", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "EXPLAIN SELECT 1", "EXPLAIN", SLUICE_ACTION_ADMIN, "statement_not_allowed" },
    { "SUMMARIZE customers", "SELECT", SLUICE_ACTION_READ, "statement_not_allowed" },
    { "DESCRIBE customers", "SELECT", SLUICE_ACTION_READ, NULL },
    { "DESCRIBE (SELECT name FROM customers)", "SELECT", SLUICE_ACTION_READ,
      "statement_not_allowed" },
    { "SHOW TABLES", "SELECT", SLUICE_ACTION_READ, "statement_not_allowed" },
    { "PRAGMA table_info('customers')", "SELECT", SLUICE_ACTION_READ, "statement_not_allowed" },
};

static void test_sql_classifies_each_statement_kind(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(kind_cases) / sizeof(kind_cases[0]); i++) {
        const kind_case *k = &kind_cases[i];
        const sluice_codefacts *f = fixture_analyze(k->sql);
        bool ok = strcmp(f->statement_kind, k->kind) == 0 && f->action == k->action &&
                  (k->rule == NULL ? f->violation_count > 0 || k->action == SLUICE_ACTION_READ
                                   : fixture_violation(f, k->rule) != NULL);
        if (k->rule == NULL && k->action == SLUICE_ACTION_READ)
            ok = ok && f->violation_count == 0;
        if (!ok) {
            fprintf(stderr, "kind=%s action=%s\n", f->statement_kind,
                    sluice_action_name(f->action));
            fixture_dump(k->sql, f);
        }
        assert_true(ok);
    }
}

static void test_sql_ddl_allowed_by_config(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.sql_allow_ddl = true;
    const sluice_codefacts *f = fixture_analyze_with("CREATE TABLE t2(a INTEGER)", &cm);
    assert_int_equal(f->violation_count, 0);
    f = fixture_analyze_with("ATTACH ':memory:' AS m2", &cm);
    assert_non_null(fixture_violation(f, "statement_not_allowed"));
}

static void test_sql_refuses_two_statements_naming_the_second(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT 1;\n-- harmless?\nDELETE FROM orders");
    const sluice_codefacts_violation *v = fixture_violation(f, "multiple_statements");
    assert_non_null(v);
    assert_string_equal(
        v->message,
        "exactly one statement is allowed; found 2 (the second starts at line 3, column 1)");
    assert_int_equal(v->line, 3);
    assert_int_equal(v->column, 1);
}

static void test_sql_semicolon_inside_string_is_one_statement(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT ';' AS a /* ; */ -- ;\n;");
    assert_int_equal(f->violation_count, 0);
}

static void test_sql_syntax_error_has_line_and_column(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT 1,\n  2 FRM customers WHERE");
    const sluice_codefacts_violation *v = fixture_violation(f, "syntax_error");
    assert_non_null(v);
    assert_string_equal(v->message, "syntax error at or near \"customers\"");
    assert_int_equal(v->line, 2);
    assert_int_equal(v->column, 9);
}

static void test_sql_unterminated_string_is_located(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT 'abc");
    const sluice_codefacts_violation *v = fixture_violation(f, "syntax_error");
    assert_non_null(v);
    assert_int_equal(v->line, 1);
    assert_int_equal(v->column, 8);
}

static void test_sql_empty_input_is_refused(void **state)
{
    (void)state;
    assert_non_null(fixture_violation(fixture_analyze("  -- nothing\n"), "empty_statement"));
    assert_non_null(fixture_violation(fixture_analyze(""), "empty_statement"));
}

static const char *hash_of(const char *sql)
{
    return fixture_analyze(sql)->code_hash;
}

static void test_sql_hash_ignores_whitespace_comments_and_keyword_case(void **state)
{
    (void)state;
    const char *a = hash_of("SELECT name FROM customers WHERE plan = 'pro' LIMIT 5");
    assert_int_equal(strlen(a), 64);
    assert_string_equal(a, hash_of("select   name\n  from customers -- who\n where plan='pro' "
                                   "/* cap */ limit 5;"));
    assert_string_equal(a, hash_of("SeLeCt name FROM customers WHERE plan = 'pro' LiMiT 5"));
}

static void test_sql_hash_changes_with_any_literal(void **state)
{
    (void)state;
    const char *a = hash_of("SELECT name FROM customers WHERE plan = 'pro' LIMIT 5");
    assert_string_not_equal(a, hash_of("SELECT name FROM customers WHERE plan = 'Pro' LIMIT 5"));
    assert_string_not_equal(a, hash_of("SELECT name FROM customers WHERE plan = 'pro' LIMIT 6"));
    assert_string_not_equal(hash_of("SELECT 9007199254740993"), hash_of("SELECT 9007199254740992"));
}

static void test_sql_hash_of_non_select_uses_tokens(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("DELETE  FROM orders -- x\n WHERE id = 1;");
    assert_string_equal(f->canonical, "sql/tokens/1\ndelete from orders where id = 1");
    assert_string_not_equal(f->code_hash, hash_of("DELETE FROM orders WHERE id = 2"));
}

static void test_sql_frontend_vtable_hash(void **state)
{
    (void)state;
    const sluice_frontend *fe = sluice_sql_frontend();
    assert_string_equal(fe->language, "sql");
    sluice_config_code_mode cm = fixture_cm();
    sluice_frontend_context fc = { .code_mode = &cm, .duckdb_database = fixture_db };
    char hex[65];
    sluice_error err;
    const char *sql = "SELECT id FROM orders LIMIT 2";
    assert_int_equal(fe->canonical_hash(fixture_arena, sql, strlen(sql), &fc, hex, &err),
                     SLUICE_OK);
    assert_string_equal(hex, hash_of(sql));
    assert_int_equal(fe->canonical_hash(fixture_arena, "SELEC 1", 7, &fc, hex, &err),
                     SLUICE_E_INVALID);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 1);
}

static void test_sql_nul_byte_is_refused(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    sluice_frontend_context fc = { .code_mode = &cm, .duckdb_database = fixture_db };
    sluice_codefacts *f = NULL;
    sluice_error err;
    const char sql[] = "SELECT 1\0; DROP TABLE orders";
    assert_int_equal(sluice_sql_analyze(fixture_arena, sql, sizeof(sql) - 1, NULL, &fc, &f, &err),
                     SLUICE_OK);
    const sluice_codefacts_violation *v = fixture_violation(f, "nul_byte");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "byte offset 8"));
    assert_int_equal(v->line, 1);
    assert_int_equal(v->column, 9);
}

/* Constant folding while binding is bounded by the analysis child (issue 8 section 2): each of
 * these grew the process by gigabytes when DuckDB prepared it in-process. */
static const char *const folding_bombs[] = {
    "SELECT len(range(100000000))",
    "SELECT len(range(10000 * 10000))",
    "SELECT len(range(CAST('100000000' AS BIGINT)))",
    "SELECT count(*) FROM (SELECT unnest(generate_series(1, 100000000)))",
    "SELECT length(repeat('x', 2000000000))",
    "SELECT len(list_resize([1], 100000000))",
    "SELECT len(list_transform(range(20000), x -> range(20000)))",
};

static void expect_analysis_limit(const char *sql, sluice_config_code_mode *cm, const char *setting)
{
    sluice_frontend_context fc = { .code_mode = cm, .duckdb_database = fixture_db };
    sluice_codefacts *f = NULL;
    sluice_error err;
    assert_int_equal(sluice_sql_analyze(fixture_arena, sql, strlen(sql), NULL, &fc, &f, &err),
                     SLUICE_OK);
    const sluice_codefacts_violation *v = fixture_violation(f, "analysis_limit");
    if (v == NULL)
        fixture_dump(sql, f);
    assert_non_null(v);
    assert_non_null(strstr(v->message, setting));
    assert_non_null(v->suggestion);
    assert_non_null(strstr(v->suggestion, setting));
}

static void test_sql_constant_folding_is_memory_bounded(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_memory_mb = 64;
    cm.analysis_timeout_ms = 20000; /* so memory, not time, is what stops them */
    for (size_t i = 0; i < sizeof(folding_bombs) / sizeof(folding_bombs[0]); i++)
        expect_analysis_limit(folding_bombs[i], &cm, "analysis_memory_mb");
}

static void test_sql_constant_folding_is_time_bounded(void **state)
{
    (void)state;
    sluice_config_code_mode cm = fixture_cm();
    cm.analysis_memory_mb = 4096;
    cm.analysis_timeout_ms = 100;
    expect_analysis_limit("SELECT len(range(100000000))", &cm, "analysis_timeout_ms");
}

/* The bound refuses only what exceeds it: small generators still analyze cleanly. */
static void test_sql_small_constant_generators_pass_the_bound(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT len(range(1000)) AS n");
    assert_null(fixture_violation(f, "analysis_limit"));
    assert_int_equal(f->violation_count, 0);
}

typedef struct seed_case {
    const char *file;
    const char *rule;    /* NULL: must be allowed */
    const char *message; /* substring of that violation */
} seed_case;

static const seed_case seed_cases[] = {
    { "000_quarterly_metrics.sql", NULL, NULL },
    { "003_revenue_drop.sql", NULL, NULL },
    { "003_describe_read_csv.sql", "blocked_function",
      "table function read_csv_auto() is not allowed: it reads files" },
    { "003_read_csv_join_parquet.sql", "blocked_function",
      "table function read_csv_auto() is not allowed: it reads files" },
    { "003_monthly_read_parquet.sql", "blocked_function",
      "table function read_parquet() is not allowed: it reads files" },
    { "003_read_csv_github.sql", "blocked_function",
      "table function read_csv_auto() is not allowed: it reads files" },
    { "003_describe_view.sql", "cannot_bind", "github_pulls does not exist" },
    { "003_github_pulls.sql", "cannot_bind", "github_pulls does not exist" },
    /* DuckDB 1.5 adds why (schema "data" does not exist), 1.4 a suggestion: the table is named. */
    { "003_data_accounts.sql", "cannot_bind", "Table with name" },
};

static void test_sql_seed_examples(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(seed_cases) / sizeof(seed_cases[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/tests/unit/data/sql/seeds/%s", SLUICE_SOURCE_DIR,
                 seed_cases[i].file);
        char *sql = fixture_read_file(path);
        assert_non_null(sql);
        const sluice_codefacts *f = fixture_analyze(sql);
        bool ok;
        if (seed_cases[i].rule == NULL) {
            ok = f->violation_count == 0;
        } else {
            const sluice_codefacts_violation *v = fixture_violation(f, seed_cases[i].rule);
            ok = v != NULL && strstr(v->message, seed_cases[i].message) != NULL;
        }
        if (!ok)
            fixture_dump(seed_cases[i].file, f);
        assert_true(ok);
    }
}

static void test_sql_seed000_facts(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/unit/data/sql/seeds/000_quarterly_metrics.sql",
             SLUICE_SOURCE_DIR);
    const sluice_codefacts *f = fixture_analyze(fixture_read_file(path));
    assert_int_equal(f->violation_count, 0);
    assert_int_equal(sluice_sql_ext(f)->limit_value, 5);
    assert_true(sluice_sql_ext(f)->has_where);
    assert_true(sluice_sql_ext(f)->has_order_by);
    assert_int_equal(sluice_sql_ext(f)->window_count, 1);
    assert_int_equal(sluice_sql_ext(f)->subquery_count, 1);
    assert_int_equal(f->output_count, 6);
    assert_string_equal(f->outputs[3].name, "previous_quarter_revenue");
    assert_true(sluice_codefacts_list_has(&f->outputs[3].lineage,
                                          "account_quarterly_metrics.quarterly_revenue"));
}

static void test_sql_seed003_explanation(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/unit/data/sql/seeds/003_revenue_drop.sql",
             SLUICE_SOURCE_DIR);
    const sluice_codefacts *f = fixture_analyze(fixture_read_file(path));
    assert_int_equal(sluice_sql_ext(f)->join_count, 3);
    assert_int_equal(sluice_sql_ext(f)->cte_names.count, 3);
    assert_int_equal(sluice_sql_ext(f)->limit_value, 20);
    const char *e = sluice_sql_explain(fixture_arena, f);
    assert_non_null(e);
    assert_non_null(strstr(e, "Reads orders, support_tickets and customers"));
    assert_non_null(strstr(e, "current_revenue.customer_id = c.id"));
    assert_non_null(strstr(e, "keeps rows where c.plan = 'enterprise'"));
    assert_non_null(strstr(e, "ticket_counts.ticket_count > 3"));
    assert_non_null(strstr(e, "aggregates per group (using sum and count)"));
    assert_non_null(strstr(e, "returns at most 20 rows."));
}

static void test_sql_explains_blocked_field_used_only_to_join(void **state)
{
    (void)state;
    const sluice_codefacts *f =
        fixture_analyze("SELECT c.name FROM customers c JOIN customers d ON c.ssn = d.ssn LIMIT 3");
    const char *e = sluice_sql_explain(fixture_arena, f);
    assert_non_null(strstr(e, "customers.ssn is used only to join or filter and is never "
                              "returned."));
}

/* The facts of sql analysed on ex's catalog as JSON text (malloc'd), in an arena of its own: its
 * connection goes back to ex's idle set before this returns. */
static char *facts_on(sluice_executor *ex, const sluice_config_code_mode *cm, const char *sql)
{
    sluice_arena *arena = sluice_arena_new();
    assert_non_null(arena);
    sluice_frontend_context fc = { .code_mode = cm,
                                   .engine = SLUICE_ENGINE_DUCKDB,
                                   .executor = ex };
    sluice_codefacts *f = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    assert_int_equal(sluice_sql_analyze(arena, sql, strlen(sql), NULL, &fc, &f, &err), SLUICE_OK);
    json_t *j = sluice_codefacts_to_json(f);
    assert_non_null(j);
    char *text = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(j);
    sluice_arena_free(arena);
    assert_non_null(text);
    return text;
}

static sluice_executor *executor_on(const char *path, const sluice_config_code_mode *cm)
{
    sluice_config_database dbc = {
        .engine = SLUICE_ENGINE_DUCKDB, .path = path, .memory_limit = "256MB", .threads = 1
    };
    sluice_executor *ex = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    assert_int_equal(sluice_executor_open(&dbc, cm, &ex, fixture_arena, &err), SLUICE_OK);
    return ex;
}

/* The analyzer keeps its connections to the executor's database between analyses
 * (exec/duckdb_connect.c): after statements refused, unbound or unparsed — the ones that would
 * leave a transaction, a prepared name or a setting behind if they ran among them — an analysis
 * gives exactly the facts a fresh executor gives. */
static void test_sql_kept_connection_analyzes_as_new(void **state)
{
    (void)state;
    char dir[] = "/tmp/sluice_kept_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof(path), "%s/t.duckdb", dir);
    duckdb_database db;
    duckdb_connection c;
    assert_int_equal(duckdb_open(path, &db), DuckDBSuccess);
    assert_int_equal(duckdb_connect(db, &c), DuckDBSuccess);
    assert_int_equal(duckdb_query(c, fixture_ddl, NULL), DuckDBSuccess);
    duckdb_disconnect(&c);
    duckdb_close(&db);
    sluice_config_code_mode cm = fixture_cm();
    const char *sql = "SELECT c.name, count(*) AS n FROM customers c JOIN orders o "
                      "ON o.customer_id = c.id WHERE o.status = 'paid' GROUP BY c.name "
                      "ORDER BY n DESC LIMIT 5";
    sluice_executor *ex = executor_on(path, &cm);
    char *fresh = facts_on(ex, &cm, sql);
    sluice_executor_close(ex);
    ex = executor_on(path, &cm);
    const char *before[] = { "BEGIN TRANSACTION",
                             "SELECT nope FROM orders",
                             "PREPARE p AS SELECT 1",
                             "SET threads = 4",
                             "SELEC 1",
                             "DELETE FROM orders WHERE id = 1",
                             "SELECT 1; SELECT 2",
                             "SELECT sneaky()" };
    for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
        free(facts_on(ex, &cm, before[i]));
        char *again = facts_on(ex, &cm, sql);
        assert_string_equal(again, fresh);
        free(again);
    }
    free(fresh);
    sluice_executor_close(ex);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_arena_new, fixture_arena_free)
    const struct CMUnitTest tests[] = {
        T(test_sql_classifies_each_statement_kind),
        T(test_sql_ddl_allowed_by_config),
        T(test_sql_refuses_two_statements_naming_the_second),
        T(test_sql_semicolon_inside_string_is_one_statement),
        T(test_sql_syntax_error_has_line_and_column),
        T(test_sql_unterminated_string_is_located),
        T(test_sql_empty_input_is_refused),
        T(test_sql_hash_ignores_whitespace_comments_and_keyword_case),
        T(test_sql_hash_changes_with_any_literal),
        T(test_sql_hash_of_non_select_uses_tokens),
        T(test_sql_frontend_vtable_hash),
        T(test_sql_nul_byte_is_refused),
        T(test_sql_constant_folding_is_memory_bounded),
        T(test_sql_constant_folding_is_time_bounded),
        T(test_sql_small_constant_generators_pass_the_bound),
        T(test_sql_seed_examples),
        T(test_sql_seed000_facts),
        T(test_sql_seed003_explanation),
        T(test_sql_explains_blocked_field_used_only_to_join),
        T(test_sql_kept_connection_analyzes_as_new),
    };
#undef T
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
