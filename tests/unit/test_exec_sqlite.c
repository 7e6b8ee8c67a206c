/*
 * test_exec_sqlite.c — the SQLite executor with no analyzer in front: ATTACH / VACUUM INTO,
 * PRAGMA, transactions, writes, extensions and multi-statement code are refused by the engine
 * hardening itself; limits stop real queries; variables stay data; the read collector reports
 * what SQLite reads.
 */
#include "core/clock.h"
#include "exec/engines.h"
#include "exec/sqlite.h"
#include "exec/values.h"
#include "exec_test_util.h"
#include "unit.h"

#include <sqlite3.h>

typedef struct fixture {
    char dir[256];
    char path[300];
    sluice_executor *ex;
    sluice_arena *arena;
    sluice_config_database db;
    sluice_config_code_mode cm;
} fixture;

static const char *blocked_columns[] = { "ssn" };
static const char *allowed_tables[] = { "people", "nums", "v_people", "types" };

static void create_db(const char *path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    const char *sql =
        "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, ssn TEXT);"
        "INSERT INTO people VALUES (1, 'Ann', '123-45-6789'), (2, 'Bob', '987-65-4321');"
        "CREATE TABLE nums(n INTEGER);"
        "WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r WHERE n < 99) "
        "INSERT INTO nums SELECT n FROM r;"
        "CREATE VIEW v_people AS SELECT id, name FROM people;"
        "CREATE TABLE types(i INTEGER, r REAL, t TEXT, b BLOB, z);"
        "INSERT INTO types VALUES (9223372036854775807, 1.5, 'h\xC3\xA9llo', x'AA0041', NULL);"
        "CREATE TABLE secret(k TEXT);";
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("setup: %s", msg);
    sqlite3_close(db);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-test-lite-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/t.sqlite", f->dir);
    create_db(f->path);
    f->db.engine = SLUICE_ENGINE_SQLITE;
    f->db.path = f->path;
    f->cm.sql_blocked_columns.items = blocked_columns;
    f->cm.sql_blocked_columns.count = 1;
    f->cm.sql_allowed_tables.items = allowed_tables;
    f->cm.sql_allowed_tables.count = 4;
    f->arena = sluice_arena_new();
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&f->db, &f->cm, &f->ex, f->arena, &err), SLUICE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_executor_close(f->ex);
    sluice_arena_free(f->arena);
    test_remove_tree(f->dir);
    free(f);
    return 0;
}

static sluice_status run_full(fixture *f,
                              const char *sql,
                              json_t *vars,
                              sluice_exec_limits limits,
                              bool scrub,
                              sluice_exec_result *out,
                              sluice_error *err)
{
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .variables = vars,
                                .limits = limits,
                                .scrub_errors = scrub };
    sluice_error_clear(err);
    return sluice_executor_execute(f->ex, f->arena, &req, out, err);
}

static sluice_status run(fixture *f, const char *sql, sluice_exec_result *out, sluice_error *err)
{
    sluice_exec_limits limits = { .timeout_ms = 30000, .max_rows = 1000 };
    return run_full(f, sql, NULL, limits, false, out, err);
}

static void expect_rows(fixture *f, const char *sql, const char *json)
{
    sluice_exec_result r;
    sluice_error err;
    if (run(f, sql, &r, &err) != SLUICE_OK)
        fail_msg("%s: %s", sql, err.message);
    assert_rows_json(sql, r.rows, json);
}

static void test_select_and_types(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f, "SELECT id, name FROM people ORDER BY id", &r, &err), SLUICE_OK);
    assert_int_equal(r.column_count, 2);
    assert_string_equal(r.columns[0].type, "INTEGER");
    assert_string_equal(r.columns[1].name, "name");
    assert_string_equal(r.statement_type, "SELECT");
    expect_rows(f, "SELECT id, name FROM people ORDER BY id", "[[1,\"Ann\"],[2,\"Bob\"]]");
    expect_rows(f, "SELECT i, r, t, b, z FROM types",
                "[[9223372036854775807,1.5,\"héllo\",\"qgBB\",null]]");
    /* invalid UTF-8 in TEXT never breaks the result */
    expect_rows(f, "SELECT CAST(x'66FF6F' AS TEXT)", "[[\"f\xEF\xBF\xBDo\"]]");
    expect_rows(f,
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) "
                "SELECT group_concat(x) FROM c",
                "[[\"1,2,3\"]]");
}

static void test_escapes_refused_without_analyzer(void **state)
{
    fixture *f = *state;
    char sql[1024];
    const struct {
        const char *fmt;
        sluice_status status;
        const char *needle;
    } cases[] = {
        { "VACUUM INTO '@DIR@/copy.db'", SLUICE_E_DENIED, "read-only" },
        { "ATTACH '@DIR@/other.db' AS o", SLUICE_E_DENIED, "ATTACH" },
        { "ATTACH ':memory:' AS m", SLUICE_E_DENIED, "ATTACH" },
        { "DETACH main", SLUICE_E_DENIED, "" },
        { "PRAGMA query_only = 0", SLUICE_E_DENIED, "PRAGMA" },
        { "PRAGMA table_info(people)", SLUICE_E_DENIED, "PRAGMA" },
        { "SELECT * FROM pragma_table_info('people')", SLUICE_E_DENIED, "not authorized" },
        { "BEGIN", SLUICE_E_DENIED, "transaction" },
        { "SAVEPOINT s", SLUICE_E_DENIED, "" },
        { "SELECT load_extension('/tmp/evil')", SLUICE_E_DENIED, "load_extension" },
        { "SELECT fts3_tokenizer('simple')", SLUICE_E_DENIED, "" },
        { "INSERT INTO people VALUES (3, 'Eve', '000')", SLUICE_E_DENIED, "people" },
        { "DELETE FROM people", SLUICE_E_DENIED, "people" },
        { "UPDATE people SET name = 'x'", SLUICE_E_DENIED, "people" },
        { "CREATE TEMP TABLE t(x)", SLUICE_E_DENIED, "" },
        { "CREATE TEMP VIEW tv AS SELECT 1", SLUICE_E_DENIED, "" },
        { "CREATE TABLE t2(x)", SLUICE_E_DENIED, "" },
        { "DROP TABLE people", SLUICE_E_DENIED, "" },
        { "REINDEX", SLUICE_E_DENIED, "" },
        { "ANALYZE", SLUICE_E_DENIED, "" },
        { "VACUUM", SLUICE_E_DENIED, "" },
        { "SELECT 1; DELETE FROM people", SLUICE_E_INVALID, "more than one statement" },
        { "SELECT 1; SELECT 2", SLUICE_E_INVALID, "more than one statement" },
        { "-- only a comment", SLUICE_E_INVALID, "empty" },
        { "", SLUICE_E_INVALID, "empty" },
    };
    int before = test_count_entries(f->dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        test_subst_dir(sql, sizeof(sql), cases[i].fmt, f->dir);
        sluice_exec_result r;
        sluice_error err;
        sluice_status st = run(f, sql, &r, &err);
        if (st != cases[i].status)
            fail_msg("'%s' gave %s (%s)", sql, sluice_status_name(st),
                     err.message != NULL ? err.message : "");
        if (strstr(err.message, cases[i].needle) == NULL)
            fail_msg("'%s' failed with '%s', expected to mention '%s'", sql, err.message,
                     cases[i].needle);
        assert_int_equal(test_count_entries(f->dir), before);
    }
    /* trailing semicolons and comments are still one statement; data is intact */
    expect_rows(f, "SELECT count(*) FROM people; -- done\n;", "[[2]]");
}

static void test_timeout_and_cancel(void **state)
{
    fixture *f = *state;
    const char *sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                      "SELECT count(*) FROM r";
    sluice_exec_limits limits = { .timeout_ms = 300,
                                  .timeout_setting = "execution_timeout_seconds" };
    sluice_exec_result r;
    sluice_error err;
    int64_t t0 = sluice_clock_monotonic_ms(NULL);
    assert_int_equal(run_full(f, sql, NULL, limits, false, &r, &err), SLUICE_E_TIMEOUT);
    assert_string_equal(err.message,
                        "the query was stopped after 300 ms (execution_timeout_seconds)");
    assert_true(sluice_clock_monotonic_ms(NULL) - t0 < 20000);

    test_cancel_slot slot = { .delay_ms = 200 };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, test_cancel_later, &slot), 0);
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .limits = { .timeout_ms = 60000 },
                                .register_cancel = test_register_cancel,
                                .cancel_ctx = &slot };
    sluice_error_clear(&err);
    t0 = sluice_clock_monotonic_ms(NULL);
    assert_int_equal(sluice_executor_execute(f->ex, f->arena, &req, &r, &err), SLUICE_E_CANCELLED);
    pthread_join(th, NULL);
    assert_true(sluice_clock_monotonic_ms(NULL) - t0 < 30000);
    /* a late cancel is harmless */
    void (*fn)(void *) = atomic_load(&slot.fn);
    fn(atomic_load(&slot.data));
}

static void test_row_and_byte_caps(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 10 };
    assert_int_equal(run_full(f, "SELECT n FROM nums WHERE n < 10", NULL, limits, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 10);
    assert_false(r.truncated);
    assert_int_equal(run_full(f, "SELECT n FROM nums WHERE n < 11", NULL, limits, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 10);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_rows");
    limits = (sluice_exec_limits){ .max_rows = 1000, .max_bytes = 500 };
    assert_int_equal(
        run_full(f, "SELECT printf('%.50c', 'x') FROM nums", NULL, limits, false, &r, &err),
        SLUICE_OK);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_bytes");
    assert_true(r.bytes <= 500 && r.row_count > 0);
}

static void test_variables_are_data(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 100 };
    json_t *vars = json_pack("{s:s}", "n", "Ann' OR '1'='1");
    assert_int_equal(
        run_full(f, "SELECT id FROM people WHERE name = :n", vars, limits, false, &r, &err),
        SLUICE_OK);
    assert_int_equal(r.row_count, 0);
    json_decref(vars);
    vars = json_pack("{s:s,s:i,s:b,s:n}", "n", "Bob", "i", 2, "b", 1, "z");
    assert_int_equal(run_full(f, "SELECT id, $b, @z FROM people WHERE name = :n AND id = $i", vars,
                              limits, false, &r, &err),
                     SLUICE_OK);
    char *text = json_dumps(r.rows, JSON_COMPACT);
    assert_string_equal(text, "[[2,1,null]]");
    free(text);
    json_decref(vars);
    vars = json_pack("{s:i,s:i}", "1", 40, "2", 2);
    assert_int_equal(run_full(f, "SELECT ? + ?", vars, limits, false, &r, &err), SLUICE_OK);
    text = json_dumps(r.rows, JSON_COMPACT);
    assert_string_equal(text, "[[42]]");
    free(text);
    json_decref(vars);
    vars = json_pack("{s:s}", "x", "1");
    assert_int_equal(run_full(f, "SELECT :n", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    assert_int_equal(run_full(f, "SELECT 1", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    json_decref(vars);
    /* a real binds as a real; an array or an object is never bound (sluice_exec_bind) */
    vars = json_pack("{s:f}", "d", 1.5);
    assert_int_equal(run_full(f, "SELECT :d * 2", vars, limits, false, &r, &err), SLUICE_OK);
    text = json_dumps(r.rows, JSON_COMPACT);
    assert_string_equal(text, "[[3.0]]");
    free(text);
    json_decref(vars);
    vars = json_pack("{s:[i]}", "n", 1);
    assert_int_equal(run_full(f, "SELECT :n", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    assert_string_equal(err.message, "variable 'n' must be a string, number, boolean or null");
    json_decref(vars);
}

static void test_scrubbed_errors(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 10 };
    const char *sql = "SELECT json_extract(ssn, '$') FROM people";
    assert_int_equal(run_full(f, sql, NULL, limits, true, &r, &err), SLUICE_E_ENGINE);
    assert_null(strstr(err.message, "6789"));
    assert_non_null(strstr(err.message, "details hidden"));
    assert_int_equal(run(f, "SELECT nosuch FROM people", &r, &err), SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, "nosuch"));
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 8);
}

static void test_collect_reads(void **state)
{
    fixture *f = *state;
    sluice_exec_reads reads;
    sluice_error err = { 0 };
    const char *sql = "SELECT upper(name) FROM v_people WHERE id IN "
                      "(SELECT id FROM people WHERE ssn = '1')";
    assert_int_equal(sluice_executor_engine_reads(f->ex, f->arena, sql, strlen(sql), &reads, &err),
                     SLUICE_OK);
    bool name = false, ssn = false;
    for (size_t i = 0; i < reads.read_count; i++) {
        const sluice_exec_read *rd = &reads.reads[i];
        /* base-table reads through the view carry its name in via */
        name = name || (strcmp(rd->table, "people") == 0 && strcmp(rd->column, "name") == 0 &&
                        rd->via != NULL && strcmp(rd->via, "v_people") == 0);
        ssn = ssn || (strcmp(rd->table, "people") == 0 && strcmp(rd->column, "ssn") == 0);
    }
    assert_true(name && ssn);
    assert_int_equal(reads.function_count, 1);
    assert_string_equal(reads.functions[0], "upper");
    const char *bad = "ATTACH 'x.db' AS x";
    assert_int_equal(sluice_executor_engine_reads(f->ex, f->arena, bad, strlen(bad), &reads, &err),
                     SLUICE_E_DENIED);
}

/* A chain of n CTEs, each joining the one before to itself: SQLite copies a CTE at every
 * reference, so its prepare doubles with each level. */
static void cte_chain(char *sql, size_t size, int n)
{
    size_t len = (size_t)snprintf(sql, size, "WITH c0 AS (SELECT id AS a FROM people)");
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(sql + len, size - len,
                                ", c%d AS (SELECT x.a FROM c%d x JOIN c%d y USING (a))", i, i - 1,
                                i - 1);
    snprintf(sql + len, size - len, " SELECT count(*) FROM c%d", n);
}

/* The prepare validate asks for is held to analysis_timeout_ms and analysis_memory_mb in a child
 * (16 levels, 800 bytes: 4 s and 80 MB in the server before); each refusal names its setting. A
 * short chain still reports its reads through the child. */
static void test_reads_prepare_is_bounded(void **state)
{
    fixture *f = *state;
    static const struct {
        int64_t timeout_ms, memory_mb;
        const char *names;
    } bounds[] = { { 100, 0, "analysis_timeout_ms (100 ms)" },
                   { 60000, 32, "analysis_memory_mb (32 MB)" } };
    char sql[2048];
    for (size_t k = 0; k < 2; k++) {
        sluice_config_code_mode cm = f->cm;
        cm.analysis_timeout_ms = bounds[k].timeout_ms;
        cm.analysis_memory_mb = bounds[k].memory_mb;
        sluice_executor *ex = NULL;
        sluice_error err = { 0 };
        assert_int_equal(sluice_executor_open(&f->db, &cm, &ex, f->arena, &err), SLUICE_OK);
        sluice_exec_reads reads = { 0 };
        cte_chain(sql, sizeof sql, 16);
        sluice_status st =
            sluice_executor_engine_reads(ex, f->arena, sql, strlen(sql), &reads, &err);
        if (st != SLUICE_E_LIMIT || strstr(err.message, bounds[k].names) == NULL)
            fail_msg("expected %s in: %s", bounds[k].names, err.message);
        cte_chain(sql, sizeof sql, 2);
        assert_int_equal(sluice_executor_engine_reads(ex, f->arena, sql, strlen(sql), &reads, &err),
                         SLUICE_OK);
        assert_true(reads.read_count > 0);
        for (size_t i = 0; i < reads.read_count; i++) /* per CTE it came through; count(*) */
            if (strcmp(reads.reads[i].table, "people") != 0 ||
                (strcmp(reads.reads[i].column, "id") != 0 && *reads.reads[i].column != '\0'))
                fail_msg("read %s.%s", reads.reads[i].table, reads.reads[i].column);
        sluice_executor_close(ex);
    }
}

/* Fail the Nth arena allocation for every N: the reads come back whole or not at all (a short
 * list would let the analyzer's cross-check pass reads SQLite saw); a failure inside the bounded
 * child is its memory running out, refused as the analysis_memory_mb limit. */
static void test_reads_allocation_failure_sweep(void **state)
{
    fixture *f = *state;
    const char *sql = "WITH w AS (SELECT id, name FROM people) SELECT upper(w.name), abs(w.id), "
                      "people.ssn FROM w JOIN people USING (id)";
    sluice_exec_reads whole = { 0 };
    sluice_error whole_err = { 0 };
    assert_int_equal(
        sluice_executor_engine_reads(f->ex, f->arena, sql, strlen(sql), &whole, &whole_err),
        SLUICE_OK);
    size_t clean = 0;
    for (long n = 1; n <= 400; n++) {
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_arena_fail_at(n);
        sluice_exec_reads reads = { 0 };
        sluice_error err = { 0 };
        sluice_status st =
            sluice_executor_engine_reads(f->ex, arena, sql, strlen(sql), &reads, &err);
        sluice_arena_fail_at(0);
        if (st == SLUICE_OK) {
            assert_int_equal(reads.read_count, whole.read_count);
            assert_int_equal(reads.function_count, whole.function_count);
            clean++;
        } else if (st != SLUICE_E_NOMEM && st != SLUICE_E_LIMIT) { /* LIMIT: in the child */
            fail_msg("allocation %ld failed: status %d (%s)", n, st,
                     err.message != NULL ? err.message : "");
        }
        sluice_arena_free(arena);
    }
    assert_true(clean > 0); /* past the last allocation the reads come back */
}

static void test_write_mode_allows_only_enabled_kinds(void **state)
{
    fixture *f = *state;
    sluice_config_code_mode cm = { .sql_allow_writes = true };
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&f->db, &cm, &ex, f->arena, &err), SLUICE_OK);
    const char *ins = "INSERT INTO people VALUES (3, 'Eve', '000')";
    sluice_exec_request req = { .code = ins, .code_len = strlen(ins) };
    sluice_exec_result r;
    assert_int_equal(sluice_executor_execute(ex, f->arena, &req, &r, &err), SLUICE_OK);
    assert_string_equal(r.statement_type, "INSERT");
    const char *refused[] = {
        "DELETE FROM people", "CREATE TABLE t2(x)",
        "DROP TABLE nums",    "INSERT INTO sqlite_schema VALUES ('table','x','x',0,'')",
        "VACUUM INTO 'x.db'", "PRAGMA journal_mode=WAL"
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        req.code = refused[i];
        req.code_len = strlen(refused[i]);
        sluice_error_clear(&err);
        if (sluice_executor_execute(ex, f->arena, &req, &r, &err) == SLUICE_OK)
            fail_msg("ran in write mode: %s", refused[i]);
    }
    expect_rows(f, "SELECT count(*) FROM people", "[[3]]");
    sluice_executor_close(ex);
}

static void test_schema(void **state)
{
    fixture *f = *state;
    sluice_schema s;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_schema(f->ex, f->arena, &s, &err), SLUICE_OK);
    bool people = false, secret = false, view = false;
    for (size_t i = 0; i < s.table_count; i++) {
        const sluice_schema_table *t = &s.tables[i];
        if (strcmp(t->name, "people") == 0) {
            people = true;
            assert_false(t->hidden);
            assert_int_equal(t->approx_rows, 2);
            assert_int_equal(t->column_count, 3);
            assert_true(t->columns[2].blocked);
            assert_false(t->columns[0].blocked);
            assert_string_equal(t->columns[1].type, "TEXT");
        } else if (strcmp(t->name, "secret") == 0) {
            secret = true;
            assert_true(t->hidden); /* not in sql_allowed_tables */
        } else if (strcmp(t->name, "v_people") == 0) {
            view = true;
            assert_true(t->is_view);
        }
    }
    assert_true(people && secret && view);
    assert_int_equal(strlen(s.version_hash), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_select_and_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escapes_refused_without_analyzer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_and_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_row_and_byte_caps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables_are_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scrubbed_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collect_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_prepare_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_allocation_failure_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_mode_allows_only_enabled_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
