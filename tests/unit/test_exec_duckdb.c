/*
 * test_exec_duckdb.c — the DuckDB executor with no analyzer in front: the engine hardening must
 * hold on its own (files, extensions, settings, statements, process functions), limits must
 * stop real queries, variables stay data, values convert, and errors can hide blocked values.
 */
#include "core/clock.h"
#include "exec/duckdb.h"
#include "exec/engines.h"
#include "exec/values.h"
#include "exec_test_util.h"
#include "unit.h"

#include <duckdb.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fixture {
    char dir[256];
    char path[300];
    sluice_executor *ex;
    sluice_arena *arena;
    sluice_config_database db;
    sluice_config_code_mode cm;
    /* run_fixed's requests are code mode's approved programs (repeated_statement), not curated
     * statements (fixed_statement) */
    bool programs;
    const sluice_identity *caller; /* run_fixed's caller (NULL: none) */
} fixture;

static const char *blocked_columns[] = { "people.ssn" };
static const char *blocked_tables[] = { "secret" };

static void create_db(const char *path)
{
    duckdb_database db;
    duckdb_connection conn;
    assert_int_equal(duckdb_open(path, &db), DuckDBSuccess);
    assert_int_equal(duckdb_connect(db, &conn), DuckDBSuccess);
    const char *setup[] = {
        "CREATE TABLE people(id INTEGER, name VARCHAR, ssn VARCHAR)",
        "INSERT INTO people VALUES (1, 'Ann', '123-45-6789'), (2, 'Bob', '987-65-4321')",
        "CREATE TABLE nums AS SELECT range AS n FROM range(100)",
        "CREATE TABLE accounts AS SELECT range AS id, 'name ' || range AS name, "
        "CASE WHEN range % 2 = 0 THEN 'enterprise' ELSE 'free' END AS plan FROM range(5000)",
        "CREATE TABLE secret(k VARCHAR)",
        "CREATE VIEW v_people AS SELECT id, name FROM people",
        /* a process function the statement's text does not name: only its plan shows it */
        "CREATE VIEW v_quiet AS SELECT * FROM disable_logging()",
        "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE moods(m mood)",
        "INSERT INTO moods VALUES ('happy')",
    };
    for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++) {
        duckdb_result res;
        assert_int_equal(duckdb_query(conn, setup[i], &res), DuckDBSuccess);
        duckdb_destroy_result(&res);
    }
    duckdb_disconnect(&conn);
    duckdb_close(&db);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-test-duck-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/t.duckdb", f->dir);
    create_db(f->path);
    f->db.engine = SLUICE_ENGINE_DUCKDB;
    f->db.path = f->path;
    f->db.memory_limit = "256MB";
    f->db.threads = 2;
    f->cm.blocked_fields.items = blocked_columns;
    f->cm.blocked_fields.count = 1;
    f->cm.sql_blocked_tables.items = blocked_tables;
    f->cm.sql_blocked_tables.count = 1;
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

static void test_select_returns_rows_and_columns(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f, "SELECT id, name FROM people ORDER BY id", &r, &err), SLUICE_OK);
    assert_int_equal(r.column_count, 2);
    assert_string_equal(r.columns[0].name, "id");
    assert_string_equal(r.columns[0].type, "INTEGER");
    assert_string_equal(r.columns[1].type, "VARCHAR");
    assert_int_equal(r.row_count, 2);
    assert_false(r.truncated);
    assert_string_equal(r.statement_type, "SELECT");
    char *text = json_dumps(r.rows, JSON_COMPACT);
    assert_string_equal(text, "[[1,\"Ann\"],[2,\"Bob\"]]");
    assert_int_equal(r.bytes, strlen(text));
    free(text);
}

/* Each escape is refused with a message naming the reason, and no file appears. */
static void test_escapes_refused_without_analyzer(void **state)
{
    fixture *f = *state;
    char sql[1024];
    const struct {
        const char *fmt; /* @DIR@ = the scratch directory */
        const char *needle;
    } cases[] = {
        { "SELECT * FROM read_csv('/etc/passwd')", "disabled by configuration" },
        { "SELECT * FROM read_text('/etc/hostname')", "disabled by configuration" },
        { "COPY (SELECT 1) TO '@DIR@/out.csv'", "" },
        { "ATTACH '@DIR@/other.db' AS o", "" },
        { "INSTALL httpfs", "not allowed" },
        { "LOAD httpfs", "" },
        { "SET threads = 8", "not allowed" },
        { "SET enable_external_access = true", "not allowed" },
        { "RESET lock_configuration", "" },
        { "PRAGMA enable_profiling", "not allowed" },
        { "CALL enable_logging()", "not allowed" },
        { "SELECT * FROM enable_logging(storage='file', storage_path='@DIR@/logs')",
          "enable_logging" },
        { "SELECT * FROM query('SELECT * FROM enable_' || 'logging(storage=''stdout'')')",
          "enable_logging() is not allowed" },
        { "SELECT * FROM v_quiet", "disable_logging() is not allowed" },
        { "SELECT * FROM people, (SELECT * FROM v_quiet WHERE Success = $1::BOOLEAN)",
          "disable_logging() is not allowed" },
        { "EXPORT DATABASE '@DIR@/exp'", "" },
        { "CREATE TEMP TABLE t AS SELECT 1", "CREATE statements are not allowed" },
        { "INSERT INTO people VALUES (3, 'Eve', '000-00-0000')", "INSERT statements" },
        { "DELETE FROM people", "DELETE statements" },
        { "UPDATE people SET name = 'x'", "UPDATE statements" },
        { "CHECKPOINT", "not allowed" },
        { "VACUUM", "not allowed" },
        { "BEGIN TRANSACTION", "not allowed" },
        { "SET VARIABLE v = 1", "not allowed" },
        { "DETACH t", "not allowed" },
        { "MERGE INTO people USING (SELECT 1 AS id) s ON people.id = s.id "
          "WHEN MATCHED THEN DELETE",
          "" },
        { "SELECT 1 AS first; INSERT INTO people VALUES (9, 'x', 'y')", "exactly one" },
        { "", "empty" },
    };
    int before = test_count_entries(f->dir);
    /* Twice, after a pass of the same kind: the read-only database remembers statements whose
     * bound plan passed the process-function guard, never one that was refused. */
    for (size_t i = 0; i < 2 * sizeof(cases) / sizeof(cases[0]); i++) {
        size_t k = i % (sizeof(cases) / sizeof(cases[0]));
        sluice_exec_result ok;
        sluice_error ok_err;
        assert_int_equal(run(f, "SELECT 1 AS first", &ok, &ok_err), SLUICE_OK);
        test_subst_dir(sql, sizeof(sql), cases[k].fmt, f->dir);
        sluice_exec_result r;
        sluice_error err;
        sluice_status st = run(f, sql, &r, &err);
        if (st == SLUICE_OK)
            fail_msg("escape ran: %s", sql);
        assert_non_null(err.message);
        if (strstr(err.message, cases[k].needle) == NULL)
            fail_msg("'%s' failed with '%s', expected to mention '%s'", sql, err.message,
                     cases[k].needle);
        assert_int_equal(test_count_entries(f->dir), before);
    }
    /* The data is untouched and the settings still hold. */
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f,
                         "SELECT count(*), current_setting('enable_external_access'), "
                         "current_setting('lock_configuration') FROM people",
                         &r, &err),
                     SLUICE_OK);
    assert_rows_json("count(*) and the two settings", r.rows, "[[2,false,true]]");
}

/* A process function whose name only a parameter's value carries (a curated statement over
 * query($q)): neither the guard's text check nor a plan made without the value can see it, so
 * the database itself refuses to run it, and logging stays as it was. */
static void test_process_function_in_a_parameter_refused(void **state)
{
    fixture *f = *state;
    sluice_exec_limits limits = { .timeout_ms = 30000, .max_rows = 1000 };
    const char *texts[] = { "SELECT * FROM enable_logging(storage='stdout')",
                            "SELECT * FROM disable_logging()",
                            "SELECT * FROM truncate_duckdb_logs()" };
    const char *needles[] = { "enable_logging() is not allowed", "disable_logging() is not allowed",
                              "truncate_duckdb_logs() is not allowed" };
    for (int pass = 0; pass < 2; pass++) /* the second after the statement was kept */
        for (size_t i = 0; i < 3; i++) {
            json_t *vars = json_pack("{s:s}", "q", texts[i]);
            sluice_exec_result r;
            sluice_error err;
            sluice_status st =
                run_full(f, "SELECT * FROM query($q)", vars, limits, false, &r, &err);
            json_decref(vars);
            if (st == SLUICE_OK)
                fail_msg("ran: %s", texts[i]);
            assert_non_null(err.message);
            if (strstr(err.message, needles[i]) == NULL)
                fail_msg("'%s' failed with '%s'", texts[i], err.message);
        }
    sluice_exec_result r;
    sluice_error err;
    if (run(f, "SELECT value FROM duckdb_settings() WHERE name = 'enable_' || 'logging'", &r,
            &err) != SLUICE_OK)
        fail_msg("reading the setting: %s", err.message);
    assert_rows_json("logging still off", r.rows, "[[\"0\"]]");
}

/* Every allocation of an execute fails in turn for a statement whose process function only its
 * plan shows: refused or failed each time, never run; then the guard's own refusal. */
static void test_guard_allocation_failure_sweep(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f, "SELECT 1", &r, &err), SLUICE_OK); /* the database is open */
    const char *sql = "SELECT * FROM v_quiet";
    for (long n = 1; n < 20000; n++) {
        sluice_exec_request req = { .code = sql, .code_len = strlen(sql), .engine_bounded = true };
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_error_clear(&err);
        sluice_arena_fail_at(n);
        sluice_status st = sluice_executor_execute(f->ex, arena, &req, &r, &err);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (st == SLUICE_OK)
            fail_msg("the statement ran with allocation %ld failing", n);
        if (pending) {
            assert_int_equal(st, SLUICE_E_DENIED);
            assert_string_equal(err.message,
                                "disable_logging() is not allowed: it changes the server process, "
                                "not data");
            sluice_arena_free(arena);
            return; /* this run never reached its nth point: every point was swept */
        }
        sluice_arena_free(arena);
    }
    fail_msg("the sweep never reached the end");
}

static void test_timeout_stops_query(void **state)
{
    fixture *f = *state;
    sluice_config_code_mode cm = { .execution_timeout_seconds = 1, .sql_max_rows = 10 };
    sluice_exec_limits limits = sluice_exec_limits_from_config(&cm);
    assert_int_equal(limits.timeout_ms, 1000);
    assert_int_equal(limits.max_rows, 10);
    limits.timeout_ms = 300;
    sluice_exec_result r;
    sluice_error err;
    int64_t t0 = sluice_clock_monotonic_ms(NULL);
    sluice_status st =
        run_full(f, "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3", NULL,
                 limits, false, &r, &err);
    int64_t took = sluice_clock_monotonic_ms(NULL) - t0;
    assert_int_equal(st, SLUICE_E_TIMEOUT);
    assert_string_equal(err.message,
                        "the query was stopped after 300 ms (execution_timeout_seconds)");
    assert_true(took < 20000); /* generous: it really stopped */
    /* whole seconds read as seconds */
    limits.timeout_ms = 1000;
    st = run_full(f, "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3", NULL,
                  limits, false, &r, &err);
    assert_int_equal(st, SLUICE_E_TIMEOUT);
    assert_string_equal(err.message, "the query was stopped after 1 s (execution_timeout_seconds)");
}

static void test_cancel_stops_query(void **state)
{
    fixture *f = *state;
    test_cancel_slot slot = { .delay_ms = 200 };
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, test_cancel_later, &slot), 0);
    const char *sql = "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3";
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .limits = { .timeout_ms = 60000 },
                                .register_cancel = test_register_cancel,
                                .cancel_ctx = &slot };
    sluice_exec_result r;
    sluice_error err = { 0 };
    int64_t t0 = sluice_clock_monotonic_ms(NULL);
    sluice_status st = sluice_executor_execute(f->ex, f->arena, &req, &r, &err);
    pthread_join(th, NULL);
    assert_int_equal(st, SLUICE_E_CANCELLED);
    assert_non_null(strstr(err.message, "cancelled"));
    assert_true(sluice_clock_monotonic_ms(NULL) - t0 < 30000);
    /* A late cancel (after execute returned) is harmless. */
    void (*fn)(void *) = atomic_load(&slot.fn);
    fn(atomic_load(&slot.data));
}

static void test_row_cap_tells_n_from_n_plus_1(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 10 };
    assert_int_equal(run_full(f, "SELECT n FROM nums WHERE n < 10", NULL, limits, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 10);
    assert_false(r.truncated);
    assert_null(r.truncated_by);
    assert_int_equal(run_full(f, "SELECT n FROM nums WHERE n < 11", NULL, limits, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 10);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_rows");
    /* Streaming: a huge result stops at the cap quickly. */
    assert_int_equal(run_full(f, "SELECT * FROM range(10000000000)", NULL, limits, false, &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 10);
    assert_true(r.truncated);
}

static void test_byte_cap(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 1000, .max_bytes = 1000 };
    assert_int_equal(
        run_full(f, "SELECT repeat('x', 100) FROM nums", NULL, limits, false, &r, &err), SLUICE_OK);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_bytes");
    assert_true(r.bytes <= 1000);
    assert_true(r.row_count > 0 && r.row_count < 100);
    char *text = json_dumps(r.rows, JSON_COMPACT);
    assert_int_equal(strlen(text), r.bytes);
    free(text);
}

static void test_variables_are_data(void **state)
{
    fixture *f = *state;
    sluice_exec_result r;
    sluice_error err;
    sluice_exec_limits limits = { .max_rows = 100 };
    json_t *vars = json_pack("{s:s}", "n", "Ann' OR '1'='1");
    assert_int_equal(
        run_full(f, "SELECT id FROM people WHERE name = $n", vars, limits, false, &r, &err),
        SLUICE_OK);
    assert_int_equal(r.row_count, 0);
    json_decref(vars);
    vars = json_pack("{s:s}", "n", "Ann; DROP TABLE people; --");
    assert_int_equal(run_full(f, "SELECT $n AS v", vars, limits, false, &r, &err), SLUICE_OK);
    assert_rows_json("SELECT $n AS v", r.rows, "[[\"Ann; DROP TABLE people; --\"]]");
    json_decref(vars);
    vars = json_pack("{s:s,s:i,s:b,s:n,s:f}", "n", "Bob", "i", 2, "b", 1, "z", "d", 1.5);
    assert_int_equal(run_full(f,
                              "SELECT id, $b AS b, $z AS z, $d AS d FROM people "
                              "WHERE name = $n AND id = $i",
                              vars, limits, false, &r, &err),
                     SLUICE_OK);
    assert_rows_json("four variables", r.rows, "[[2,true,null,1.5]]");
    json_decref(vars);
    /* missing, unused and wrongly typed variables are errors */
    vars = json_pack("{s:s}", "x", "1");
    assert_int_equal(run_full(f, "SELECT $n", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "$n"));
    assert_int_equal(run_full(f, "SELECT 1", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "'x' is not used"));
    json_decref(vars);
    vars = json_pack("{s:[i]}", "n", 1);
    assert_int_equal(run_full(f, "SELECT $n", vars, limits, false, &r, &err), SLUICE_E_INVALID);
    assert_string_equal(err.message, "variable 'n' must be a string, number, boolean or null");
    json_decref(vars);
    /* positional parameters are keyed "1", "2", ... */
    vars = json_pack("{s:i}", "1", 41);
    assert_int_equal(run_full(f, "SELECT ? + 1", vars, limits, false, &r, &err), SLUICE_OK);
    assert_rows_json("SELECT ? + 1", r.rows, "[[42]]");
    json_decref(vars);
}

static sluice_status run_fixed(fixture *f,
                               const char *sql,
                               json_t *vars,
                               sluice_exec_limits limits,
                               sluice_exec_result *out,
                               sluice_error *err)
{
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .variables = vars,
                                .limits = limits,
                                .identity = f->caller,
                                .engine_bounded = true,
                                .fixed_statement = !f->programs,
                                .repeated_statement = f->programs };
    sluice_error_clear(err);
    return sluice_executor_execute(f->ex, f->arena, &req, out, err);
}

/* One fixed statement with one variable, whose first row must read want (NULL: st only). */
static void expect_fixed(fixture *f,
                         const char *sql,
                         const char *name,
                         json_t *value,
                         sluice_exec_limits limits,
                         sluice_status want_st,
                         const char *want)
{
    json_t *vars = json_object();
    json_object_set_new(vars, name, value);
    sluice_exec_result r;
    sluice_error err;
    sluice_status st = run_fixed(f, sql, vars, limits, &r, &err);
    json_decref(vars);
    if (st != want_st)
        fail_msg("%s: %s (%s)", sql, sluice_status_name(st), err.message ? err.message : "");
    if (want != NULL)
        assert_rows_json(sql, r.rows, want);
}

/* A fixed statement (a curated tool's) or an approved program (code mode's) stays prepared
 * between the calls that run in the server on a read-only database: each call binds its own
 * variables, and nothing one call met (a bad variable, an engine error, a timeout, the row cap)
 * changes what the next gets. A refused statement is refused on every call. */
static void kept_statements_between_calls(fixture *f)
{
    sluice_exec_limits limits = { .timeout_ms = 30000, .max_rows = 1000 };
    const char *by_id = "SELECT id, name FROM people WHERE id = $id";
    for (int i = 0; i < 6; i++)
        expect_fixed(f, by_id, "id", json_integer(1 + i % 2), limits, SLUICE_OK,
                     i % 2 == 0 ? "[[1,\"Ann\"]]" : "[[2,\"Bob\"]]");
    expect_fixed(f, by_id, "other", json_integer(1), limits, SLUICE_E_INVALID, NULL);
    expect_fixed(f, by_id, "id", json_integer(2), limits, SLUICE_OK, "[[2,\"Bob\"]]");
    const char *cast = "SELECT CAST($v AS INTEGER) AS n";
    for (int i = 0; i < 4; i++)
        expect_fixed(f, cast, "v", json_string(i % 2 == 0 ? "seven" : "7"), limits,
                     i % 2 == 0 ? SLUICE_E_ENGINE : SLUICE_OK, i % 2 == 0 ? NULL : "[[7]]");
    const char *count = "SELECT count(*) AS c FROM range($n) a WHERE a.range % 7 = 3";
    sluice_exec_limits quick = { .timeout_ms = 300, .max_rows = 1000 };
    expect_fixed(f, count, "n", json_integer(10), quick, SLUICE_OK, "[[1]]");
    expect_fixed(f, count, "n", json_integer(1000000000000LL), quick, SLUICE_E_TIMEOUT, NULL);
    expect_fixed(f, count, "n", json_integer(10), quick, SLUICE_OK, "[[1]]");
    const char *below = "SELECT n FROM nums WHERE n < $k ORDER BY n";
    sluice_exec_limits five = { .timeout_ms = 30000, .max_rows = 5 };
    expect_fixed(f, below, "k", json_integer(10), five, SLUICE_OK, "[[0],[1],[2],[3],[4]]");
    expect_fixed(f, below, "k", json_integer(3), five, SLUICE_OK, "[[0],[1],[2]]");
    char sql[512];
    test_subst_dir(sql, sizeof(sql),
                   "SELECT * FROM enable_logging(storage='file', storage_path='@DIR@/logs') "
                   "WHERE $x IS NULL",
                   f->dir);
    int before = test_count_entries(f->dir);
    for (int i = 0; i < 3; i++)
        expect_fixed(f, sql, "x", json_null(), limits, SLUICE_E_DENIED, NULL);
    assert_int_equal(test_count_entries(f->dir), before);
}

static void test_fixed_statements_between_calls(void **state)
{
    kept_statements_between_calls(*state);
}

static void test_programs_between_calls(void **state)
{
    fixture *f = *state;
    f->programs = true;
    kept_statements_between_calls(f);
}

/* Code mode's programs are kept by their text alone, whoever runs them: nothing of a caller
 * reaches a connection or a plan. Two callers alternate on one program with their own
 * variables; a connection variable, which DuckDB would fold into a kept plan at bind time,
 * cannot be set (the analyzer also refuses getvariable()); and a curated statement of the same
 * text is unaffected by the program's runs. */
static void test_programs_share_no_caller_values(void **state)
{
    fixture *f = *state;
    f->programs = true;
    const sluice_identity ann = { .user_id = "ann", .method = "test" };
    const sluice_identity bob = { .user_id = "bob", .method = "test" };
    sluice_exec_limits limits = { .timeout_ms = 30000, .max_rows = 1000 };
    const char *by_id = "SELECT id, name FROM people WHERE id = $id";
    for (int i = 0; i < 6; i++) {
        f->caller = i % 2 == 0 ? &ann : &bob;
        expect_fixed(f, by_id, "id", json_integer(1 + i % 2), limits, SLUICE_OK,
                     i % 2 == 0 ? "[[1,\"Ann\"]]" : "[[2,\"Bob\"]]");
    }
    f->caller = &ann;
    expect_fixed(f, "SET VARIABLE who = $v", "v", json_string("ann"), limits, SLUICE_E_DENIED,
                 NULL);
    f->caller = &bob;
    for (int i = 0; i < 3; i++)
        expect_fixed(f, "SELECT getvariable('who') IS NULL AS unset WHERE $x IS NULL", "x",
                     json_null(), limits, SLUICE_OK, "[[true]]");
    f->programs = false;
    expect_fixed(f, by_id, "id", json_integer(2), limits, SLUICE_OK, "[[2,\"Bob\"]]");
    f->programs = true;
    expect_fixed(f, by_id, "id", json_integer(1), limits, SLUICE_OK, "[[1,\"Ann\"]]");
}

/* sql run with rows_text_only gives the same rows_text, bytes, count and truncation as with the
 * tree of its values, and no tree. */
static void expect_same_text(fixture *f, const char *sql, sluice_exec_limits limits)
{
    sluice_exec_result tree, text;
    sluice_error err;
    if (run_full(f, sql, NULL, limits, false, &tree, &err) != SLUICE_OK)
        fail_msg("%s: %s", sql, err.message);
    /* in the server process: the bounded child reports its rows as a tree (exec/report.c) */
    sluice_exec_request req = { .code = sql,
                                .code_len = strlen(sql),
                                .limits = limits,
                                .engine_bounded = true,
                                .rows_text_only = true };
    sluice_error_clear(&err);
    if (sluice_executor_execute(f->ex, f->arena, &req, &text, &err) != SLUICE_OK)
        fail_msg("%s (rows_text_only): %s", sql, err.message);
    assert_null(text.rows);
    if (strcmp(text.rows_text, tree.rows_text) != 0)
        fail_msg("%s: rows_text_only wrote\n%s\nthe tree's text is\n%s", sql, text.rows_text,
                 tree.rows_text);
    assert_int_equal(text.bytes, tree.bytes);
    assert_int_equal(text.row_count, tree.row_count);
    assert_int_equal(text.truncated, tree.truncated);
    assert_true(text.truncated_by == tree.truncated_by ||
                strcmp(text.truncated_by, tree.truncated_by) == 0);
}

static void expect_row(fixture *f, const char *sql, const char *json)
{
    sluice_exec_result r;
    sluice_error err;
    sluice_status st = run(f, sql, &r, &err);
    if (st != SLUICE_OK)
        fail_msg("%s: %s", sql, err.message);
    assert_rows_json(sql, r.rows, json);
    expect_same_text(f, sql, (sluice_exec_limits){ .timeout_ms = 30000, .max_rows = 1000 });
}

/* Values written straight into the rows text (rows_text_only) are the bytes the tree's text has,
 * for the kinds the row-by-row writer handles itself and at both limits. */
static void test_rows_text_only_matches_the_tree(void **state)
{
    fixture *f = *state;
    sluice_exec_limits plain = { .timeout_ms = 30000, .max_rows = 1000 };
    expect_same_text(
        f,
        "SELECT 8943927.12::DOUBLE, 0.1::DOUBLE, -0.0::DOUBLE, 1e300::DOUBLE, "
        "2.5e-300::DOUBLE, 123456789012::DOUBLE, 1/3::DOUBLE, 0.1::FLOAT, "
        "'-inf'::DOUBLE, '-9223372036854775808'::BIGINT, 9223372036854775807::UBIGINT, "
        "'9223372036854775808'::UBIGINT, 4294967295::UINTEGER, 65535::USMALLINT",
        plain);
    expect_same_text(f,
                     "SELECT 'quote \" backslash \\ tab ' || chr(9) || ' nl ' || chr(10) || chr(1) "
                     "|| chr(127) || ' é 中 😀', '', NULL::VARCHAR, false",
                     plain);
    expect_same_text(f,
                     "SELECT TIMETZ '10:11:12+05:30', TIMESTAMPTZ '2026-04-01 10:11:12.5+00', "
                     "DATE '-0044-03-15', DATE '12345-01-01', '-infinity'::TIMESTAMP, "
                     "INTERVAL (-1500) MILLISECOND, -0.5::DECIMAL(3,1), 0.001::DECIMAL(18,3), "
                     "-12::DECIMAL(38,0), 170141183460469231731687303715884105727::UHUGEINT",
                     plain);
    expect_same_text(f, "SELECT id, name, plan, id * 1.5 AS r FROM accounts ORDER BY id", plain);
    expect_same_text(f, "SELECT n FROM nums WHERE n < 11", (sluice_exec_limits){ .max_rows = 10 });
    expect_same_text(f, "SELECT n FROM nums WHERE n < 10", (sluice_exec_limits){ .max_rows = 10 });
    expect_same_text(f, "SELECT repeat('x', 100) FROM nums",
                     (sluice_exec_limits){ .max_rows = 1000, .max_bytes = 1000 });
    expect_same_text(f, "SELECT n FROM nums WHERE n < 0", plain);
}

static void test_value_types_convert(void **state)
{
    fixture *f = *state;
    expect_row(f,
               "SELECT true, 1::TINYINT, -2::SMALLINT, 3::INTEGER, -4::BIGINT, 5::UTINYINT, "
               "18446744073709551615::UBIGINT, NULL",
               "[[true,1,-2,3,-4,5,\"18446744073709551615\",null]]");
    expect_row(f, "SELECT 1.5::DOUBLE, 0.25::FLOAT, 'nan'::DOUBLE, 'inf'::DOUBLE",
               "[[1.5,0.25,\"NaN\",\"Infinity\"]]");
    expect_row(f,
               "SELECT 12.34::DECIMAL(10,2), -0.05::DECIMAL(4,3), 42::DECIMAL(5,0), "
               "12345678901234567890.123456789::DECIMAL(38,9)",
               "[[\"12.34\",\"-0.050\",42,\"12345678901234567890.123456789\"]]");
    expect_row(f,
               "SELECT 170141183460469231731687303715884105727::HUGEINT, "
               "-170141183460469231731687303715884105727::HUGEINT, 0::HUGEINT",
               "[[\"170141183460469231731687303715884105727\","
               "\"-170141183460469231731687303715884105727\",0]]");
    expect_row(f, "SELECT sum(n) FROM nums", "[[4950]]"); /* sum() is HUGEINT */
    expect_row(f,
               "SELECT DATE '2026-04-01', TIME '10:11:12.5', TIMESTAMP '2026-04-01 10:11:12', "
               "TIMESTAMP '2026-04-01 10:11:12.123456', 'infinity'::DATE",
               "[[\"2026-04-01\",\"10:11:12.5\",\"2026-04-01T10:11:12\","
               "\"2026-04-01T10:11:12.123456\",\"infinity\"]]");
    expect_row(f,
               "SELECT TIMESTAMP_NS '2026-04-01 10:11:12.123456789', "
               "TIMESTAMP_S '2026-04-01 10:11:12', TIMESTAMP_MS '1969-12-31 23:59:59.5'",
               "[[\"2026-04-01T10:11:12.123456789\",\"2026-04-01T10:11:12\","
               "\"1969-12-31T23:59:59.5\"]]");
    expect_row(f,
               "SELECT INTERVAL 14 MONTH + INTERVAL 3 DAY + INTERVAL 90 SECOND, "
               "'00000000-0000-0000-0000-0000000000ff'::UUID, "
               "'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID",
               "[[\"P14M3DT90S\",\"00000000-0000-0000-0000-0000000000ff\","
               "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"]]");
    expect_row(f,
               "SELECT [1, 2, NULL], ['a'], [[1], []], {'a': 1, 'b': [true]}, "
               "MAP([1, 2], ['x', 'y']), [1, 2, 3]::INTEGER[3]",
               "[[[1,2,null],[\"a\"],[[1],[]],{\"a\":1,\"b\":[true]},"
               "[{\"key\":1,\"value\":\"x\"},{\"key\":2,\"value\":\"y\"}],[1,2,3]]]");
    expect_row(f, "SELECT '\\xAA\\x00AB'::BLOB, 'héllo', '0101'::BIT, m FROM moods",
               "[[\"qgBBQg==\",\"héllo\",\"0101\",\"happy\"]]");
    /* types this build cannot convert (1.5's GEOMETRY=40, VARIANT=41, UNION) come back as text */
    expect_row(f, "SELECT 1 AS a, union_value(k := 'x') AS u", "[[1,\"x\"]]");
    /* GEOMETRY is built in from DuckDB 1.5 on; 1.4 has it only in the spatial extension, which
     * sluice never loads, so there the type does not exist at all. */
    if (strncmp(duckdb_library_version(), "v1.4.", 5) == 0)
        return;
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f, "SELECT 'POINT(1 2)'::GEOMETRY AS g, 2 AS g", &r, &err), SLUICE_OK);
    assert_int_equal(r.column_count, 2);
    assert_string_equal(r.columns[0].name, "g");
    assert_string_equal(r.columns[0].type, "VARCHAR");
    assert_true(json_is_string(json_array_get(json_array_get(r.rows, 0), 0)));
    assert_non_null(
        strstr(json_string_value(json_array_get(json_array_get(r.rows, 0), 0)), "POINT"));
}

static void test_scrubbed_errors_hide_blocked_values(void **state)
{
    fixture *f = *state;
    sluice_exec_limits limits = { .max_rows = 10 };
    const char *queries[] = {
        "SELECT name FROM people WHERE CAST(ssn AS INTEGER) = 0",
        "SELECT name FROM people WHERE error(ssn) IS NULL",
        "SELECT name FROM people WHERE ssn::DATE IS NULL",
    };
    for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
        sluice_exec_result r;
        sluice_error err;
        /* without scrubbing the engine echoes the value: the test would catch a regression */
        assert_int_equal(run_full(f, queries[i], NULL, limits, false, &r, &err), SLUICE_E_ENGINE);
        assert_non_null(strstr(err.message, "-45-6789"));
        assert_int_equal(run_full(f, queries[i], NULL, limits, true, &r, &err), SLUICE_E_ENGINE);
        if (strstr(err.message, "6789") != NULL || strstr(err.message, "4321") != NULL)
            fail_msg("scrubbed error leaks: %s", err.message);
        assert_non_null(strstr(err.message, "Error"));
        assert_non_null(strstr(err.message, "details hidden"));
    }
    /* a plain syntax error keeps its position */
    sluice_exec_result r;
    sluice_error err;
    assert_int_equal(run(f, "SELECT 1 FROM\nWHERE", &r, &err), SLUICE_E_INVALID);
    assert_int_equal(err.line, 2);
}

static void test_schema_marks_and_hash(void **state)
{
    fixture *f = *state;
    sluice_schema s;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_schema(f->ex, f->arena, &s, &err), SLUICE_OK);
    bool saw_people = false, saw_view = false, saw_secret = false;
    for (size_t i = 0; i < s.table_count; i++) {
        const sluice_schema_table *t = &s.tables[i];
        if (strcmp(t->name, "people") == 0) {
            saw_people = true;
            assert_false(t->is_view);
            assert_false(t->hidden);
            assert_int_equal(t->column_count, 3);
            assert_string_equal(t->columns[2].name, "ssn");
            assert_true(t->columns[2].blocked);
            assert_false(t->columns[1].blocked);
            assert_string_equal(t->columns[0].type, "INTEGER");
            assert_int_equal(t->approx_rows, 2);
        } else if (strcmp(t->name, "v_people") == 0) {
            saw_view = true;
            assert_true(t->is_view);
            assert_int_equal(t->column_count, 2);
        } else if (strcmp(t->name, "secret") == 0) {
            saw_secret = true;
            assert_true(t->hidden);
        }
    }
    assert_true(saw_people && saw_view && saw_secret);
    assert_int_equal(strlen(s.version_hash), 64);
    sluice_schema again;
    assert_int_equal(sluice_executor_schema(f->ex, f->arena, &again, &err), SLUICE_OK);
    assert_string_equal(s.version_hash, again.version_hash);
    /* a different exposure gives a different hash */
    sluice_config_code_mode plain = { 0 };
    sluice_executor *ex2 = NULL;
    assert_int_equal(sluice_executor_open(&f->db, &plain, &ex2, f->arena, &err), SLUICE_OK);
    assert_int_equal(sluice_executor_schema(ex2, f->arena, &again, &err), SLUICE_OK);
    assert_string_not_equal(s.version_hash, again.version_hash);
    assert_non_null(sluice_exec_duckdb_database(ex2));
    sluice_executor_close(ex2);
}

/* With writes enabled the engine opens read-write, but only the enabled kinds run. */
static void test_write_mode_allows_only_enabled_kinds(void **state)
{
    fixture *f = *state;
    sluice_config_code_mode cm = { .sql_allow_writes = true };
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&f->db, &cm, &ex, f->arena, &err), SLUICE_OK);
    /* writes may move a planner's estimate after approval: execute must plan it again */
    assert_false(sluice_executor_data_fixed(ex));
    assert_true(sluice_executor_data_fixed(f->ex)); /* the fixture's file is read_only */
    const char *ins = "INSERT INTO people VALUES (3, 'Eve', '000-00-0000')";
    sluice_exec_request req = { .code = ins, .code_len = strlen(ins) };
    sluice_exec_result r;
    assert_int_equal(sluice_executor_execute(ex, f->arena, &req, &r, &err), SLUICE_OK);
    assert_string_equal(r.statement_type, "INSERT");
    const char *refused[] = { "DELETE FROM people", "CREATE TABLE t2 AS SELECT 1 AS a",
                              "DROP TABLE nums", "ATTACH 'x.db'", "SET threads = 1" };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        req.code = refused[i];
        req.code_len = strlen(refused[i]);
        sluice_error_clear(&err);
        if (sluice_executor_execute(ex, f->arena, &req, &r, &err) == SLUICE_OK)
            fail_msg("ran in write mode: %s", refused[i]);
    }
    req.code = "SELECT count(*) FROM people";
    req.code_len = strlen(req.code);
    assert_int_equal(sluice_executor_execute(ex, f->arena, &req, &r, &err), SLUICE_OK);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(r.rows, 0), 0)), 3);
    sluice_executor_close(ex);
}

static void test_blocked_column_matching(void **state)
{
    fixture *f = *state;
    static const char *entries[] = { "main.customers.ssn", "email" };
    sluice_config_code_mode cm = { .blocked_fields = { entries, 2 } };
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&f->db, &cm, &ex, f->arena, &err), SLUICE_OK);
    assert_true(sluice_executor_column_blocked(ex, "customers", "ssn"));
    assert_true(sluice_executor_column_blocked(ex, "customers", "SSN"));
    assert_false(sluice_executor_column_blocked(ex, "people", "ssn"));
    assert_false(sluice_executor_column_blocked(ex, "xcustomers", "ssn"));
    assert_true(sluice_executor_column_blocked(ex, "anything", "email"));
    assert_false(sluice_executor_column_blocked(ex, "anything", "emails"));
    assert_true(sluice_executor_column_blocked(f->ex, "people", "ssn"));
    sluice_executor_close(ex);
}

static void test_open_refuses_missing_file(void **state)
{
    fixture *f = *state;
    sluice_config_database db = f->db;
    char path[400];
    snprintf(path, sizeof(path), "%s/missing.duckdb", f->dir);
    db.path = path;
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&db, &f->cm, &ex, f->arena, &err), SLUICE_E_IO);
    assert_null(ex);
    assert_int_equal(access(path, F_OK), -1);
    db.path = f->path;
    db.memory_limit = "lots";
    assert_int_not_equal(sluice_executor_open(&db, &f->cm, &ex, f->arena, &err), SLUICE_OK);
    assert_null(ex);
    /* the message names the one setting DuckDB refused, with the value it was given */
    assert_non_null(strstr(err.message, "memory_limit='lots'"));
    assert_null(strstr(err.message, "threads"));
}

/* A libduckdb.so of another release than the build's is refused before any database opens,
 * naming both releases; the library the tests run on is the build's own. */
static void test_open_refuses_another_duckdb_release(void **state)
{
    fixture *f = *state;
    sluice_error err = { 0 };
    assert_int_equal(sluice_exec_duckdb_check_library(duckdb_library_version(), f->arena, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_exec_duckdb_check_library("v0.9.2", f->arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "DuckDB v0.9.2"));
    assert_non_null(strstr(err.message, duckdb_library_version()));
    assert_int_equal(sluice_exec_duckdb_check_library(NULL, f->arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "(unknown)"));
}

/* Another process holding the file's lock: the child takes a write lock, then turns it into a
 * read lock, each on a byte from `go`, acknowledging on `ack`; it exits when `go` closes. */
static void hold_lock(const char *path, int go, int ack)
{
    int fd = open(path, O_RDWR);
    struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    char b = 0;
    if (fd < 0 || fcntl(fd, F_SETLK, &lk) != 0 || write(ack, &b, 1) != 1 || read(go, &b, 1) != 1)
        _exit(1);
    lk.l_type = F_RDLCK;
    if (fcntl(fd, F_SETLK, &lk) != 0 || write(ack, &b, 1) != 1)
        _exit(1);
    while (read(go, &b, 1) > 0)
        ;
    _exit(0);
}

/* DuckDB opens on first need, but a file another process holds locked still refuses start-up,
 * naming the holder, without DuckDB (fcntl F_GETLK): a write lock refuses any server, a read
 * lock (another reader) only one that would write. */
static void test_open_refuses_a_file_locked_elsewhere(void **state)
{
    fixture *f = *state;
    int go[2], ack[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ack), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(go[1]);
        close(ack[0]);
        hold_lock(f->path, go[0], ack[1]);
    }
    close(go[0]);
    close(ack[1]);
    char b = 0, pid_text[32];
    snprintf(pid_text, sizeof pid_text, "PID %ld ", (long)child);
    assert_int_equal(read(ack[0], &b, 1), 1);
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_executor_open(&f->db, &f->cm, &ex, f->arena, &err), SLUICE_E_ENGINE);
    assert_null(ex);
    assert_non_null(strstr(err.message, f->path));
    assert_non_null(strstr(err.message, "locked by another process"));
    assert_non_null(strstr(err.message, pid_text));
    assert_non_null(strstr(err.message, "write lock"));

    assert_int_equal(write(go[1], &b, 1), 1);
    assert_int_equal(read(ack[0], &b, 1), 1);
    sluice_error_clear(&err);
    assert_int_equal(sluice_executor_open(&f->db, &f->cm, &ex, f->arena, &err), SLUICE_OK);
    sluice_executor_close(ex);
    sluice_config_code_mode writes = f->cm;
    writes.sql_allow_writes = true;
    assert_int_equal(sluice_executor_open(&f->db, &writes, &ex, f->arena, &err), SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, pid_text));
    assert_non_null(strstr(err.message, "read lock"));

    close(go[1]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ack[0]);
    ex = NULL;
    assert_int_equal(sluice_executor_open(&f->db, &writes, &ex, f->arena, &err), SLUICE_OK);
    sluice_executor_close(ex);
}

/* DuckDB opens on the first call that needs it (issue 23, idle RSS): not before, once, and a
 * file it cannot open is each call's clear error, never a crash or a fallback. */
typedef struct first_call {
    sluice_executor *ex;
    bool bounded; /* through the capped child rather than in this process */
    sluice_status st;
    int64_t rows;
} first_call;

static void *run_first(void *arg)
{
    first_call *c = arg;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_request req = { .code = "SELECT count(*) FROM nums",
                                .code_len = strlen("SELECT count(*) FROM nums"),
                                .engine_bounded = !c->bounded,
                                .limits = { .timeout_ms = 30000, .max_rows = 10 } };
    sluice_exec_result r = { 0 };
    sluice_error err = { 0 };
    c->st = sluice_executor_execute(c->ex, arena, &req, &r, &err);
    if (c->st == SLUICE_OK)
        c->rows = json_integer_value(json_array_get(json_array_get(r.rows, 0), 0));
    sluice_arena_free(arena);
    return NULL;
}

static void test_open_is_lazy_once_and_fails_clearly(void **state)
{
    fixture *f = *state;
    sluice_error err = { 0 };
    sluice_executor *ex = NULL;
    assert_int_equal(sluice_executor_open(&f->db, &f->cm, &ex, f->arena, &err), SLUICE_OK);
    assert_true(sluice_executor_opens_on_first_use(ex));
    assert_null(sluice_exec_duckdb_database(ex));
    /* The racing first calls run in this process: a fork while other threads allocate can
     * stall the child under clang 14's ASan allocator (not fork-safe before LLVM 17; see
     * test_exec_fork_stress), and the open they race for is the same on both paths. */
    first_call calls[8];
    pthread_t threads[8];
    for (size_t i = 0; i < 8; i++) {
        calls[i] = (first_call){ .ex = ex };
        assert_int_equal(pthread_create(&threads[i], NULL, run_first, &calls[i]), 0);
    }
    for (size_t i = 0; i < 8; i++) {
        pthread_join(threads[i], NULL);
        assert_int_equal(calls[i].st, SLUICE_OK);
        assert_int_equal(calls[i].rows, 100);
    }
    duckdb_database opened = sluice_exec_duckdb_database(ex);
    assert_non_null(opened);
    /* A capped child runs on the database the server opened, and opens nothing itself. */
    first_call child = { .ex = ex, .bounded = true };
    run_first(&child);
    assert_int_equal(child.st, SLUICE_OK);
    assert_int_equal(child.rows, 100);
    assert_ptr_equal(sluice_exec_duckdb_database(ex), opened);
    void *bound = NULL;
    assert_int_equal(sluice_executor_bind_catalog(ex, &bound, f->arena, &err), SLUICE_OK);
    assert_ptr_equal(bound, opened);
    sluice_executor_close(ex);

    char broken[400];
    snprintf(broken, sizeof(broken), "%s/broken.duckdb", f->dir);
    FILE *fp = fopen(broken, "w");
    assert_non_null(fp);
    for (int i = 0; i < 200; i++)
        fputs("this is not a DuckDB database\n", fp);
    fclose(fp);
    sluice_config_database db = f->db;
    db.path = broken;
    assert_int_equal(sluice_executor_open(&db, &f->cm, &ex, f->arena, &err), SLUICE_OK);
    for (int i = 0; i < 2; i++) {
        sluice_exec_result r = { 0 };
        sluice_error_clear(&err);
        sluice_exec_request req = { .code = "SELECT 1", .code_len = 8 };
        assert_int_equal(sluice_executor_execute(ex, f->arena, &req, &r, &err), SLUICE_E_ENGINE);
        assert_non_null(strstr(err.message, "DuckDB could not open"));
        assert_non_null(strstr(err.message, "broken.duckdb"));
    }
    sluice_schema schema;
    sluice_error_clear(&err);
    assert_int_equal(sluice_executor_schema(ex, f->arena, &schema, &err), SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, "DuckDB could not open"));
    bound = &bound;
    sluice_error_clear(&err);
    assert_int_equal(sluice_executor_bind_catalog(ex, &bound, f->arena, &err), SLUICE_E_ENGINE);
    assert_null(bound);
    assert_null(sluice_exec_duckdb_database(ex));
    sluice_executor_close(ex);
}

/* The served database plans `LIMIT n` reads as a plain scan (a streaming limit, or a top-n
 * under ORDER BY): DuckDB 1.4's late materialization (row ids, a semi hash join back to the
 * table, a sort) leaves each run's temporary block handles in its eviction queues, ~1.5 KB a run
 * until a queue holds 32,768 entries, which is what made the load run's RSS climb. Both shapes
 * count: with late_materialization_max_rows below n, 1.4.4 late-materializes a plain LIMIT
 * instead. 2,000 runs of each in the server's process (as the analysis lets a non-amplifying
 * statement run), each in an arena of its own as a call's, must leave the heap within 256 KB. */
static void test_limit_runs_leave_the_heap_flat(void **state)
{
    fixture *f = *state;
    static const char *const shapes[] = {
        "SELECT id, name FROM accounts WHERE plan = 'enterprise' ORDER BY id LIMIT 5",
        "SELECT id, name FROM accounts LIMIT 5",
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        sluice_exec_request req = { .code = shapes[s],
                                    .code_len = strlen(shapes[s]),
                                    .limits = { .timeout_ms = 30000, .max_rows = 1000 },
                                    .engine_bounded = true };
        size_t before = 0;
        for (int i = 0; i < 2200; i++) {
            if (i == 200) /* after the catalog, connection and thread caches warmed up */
                before = mallinfo2().uordblks;
            sluice_arena *arena = sluice_arena_new();
            sluice_exec_result r;
            sluice_error err = { 0 };
            assert_int_equal(sluice_executor_execute(f->ex, arena, &req, &r, &err), SLUICE_OK);
            assert_int_equal(r.row_count, 5);
            sluice_arena_free(arena);
        }
        size_t after = mallinfo2().uordblks;
        size_t grown = after > before ? after - before : 0;
        if (grown > 256u * 1024u)
            fail_msg("%s: 2,000 runs left %zu bytes on the heap (bound 262,144)", shapes[s], grown);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_select_returns_rows_and_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escapes_refused_without_analyzer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guard_allocation_failure_sweep, setup, teardown),
        cmocka_unit_test_setup_teardown(test_process_function_in_a_parameter_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_timeout_stops_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_stops_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_row_cap_tells_n_from_n_plus_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byte_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_variables_are_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fixed_statements_between_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_programs_between_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_programs_share_no_caller_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_value_types_convert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_text_only_matches_the_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scrubbed_errors_hide_blocked_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_marks_and_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_mode_allows_only_enabled_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_blocked_column_matching, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_refuses_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_refuses_another_duckdb_release, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_is_lazy_once_and_fails_clearly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_refuses_a_file_locked_elsewhere, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limit_runs_leave_the_heap_flat, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
