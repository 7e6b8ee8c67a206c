/*
 * test_scratch.c — the query-mode session database (exec/scratch.h): it opens hardened (settings
 * read back, the spill folder the only allowed directory), rows go in through the appender and
 * come out as typed values, hostile identifiers and types are refused, values that do not fit a
 * column fail the load, and a session query still cannot touch files, settings or extensions.
 */
#include "exec/scratch.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
    char dir[256];
    sluice_executor *ex;
    sluice_arena *arena;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/sluice-scratch-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->arena = sluice_arena_new();
    sluice_scratch_options o = { .spill_dir = f->dir,
                                 .memory_limit = "128MB",
                                 .max_spill = "64MB" };
    sluice_error err = { 0 };
    sluice_status st = sluice_scratch_open(&o, &f->ex, f->arena, &err);
    if (st != SLUICE_OK)
        fail_msg("open: %s", err.message);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_executor_close(f->ex);
    sluice_arena_free(f->arena);
    rmdir(f->dir);
    free(f);
    return 0;
}

static sluice_status run(fixture *f, const char *sql, sluice_exec_result *out, sluice_error *err)
{
    sluice_exec_request req = { .code = sql, .code_len = strlen(sql) };
    req.limits.timeout_ms = 5000;
    req.limits.max_rows = 100;
    memset(out, 0, sizeof(*out));
    return sluice_executor_execute(f->ex, f->arena, &req, out, err);
}

static const sluice_exec_column invoice_cols[] = {
    { "id", "BIGINT" },
    { "Date", "DATE" },
    { "Status", "VARCHAR" },
    { "Total", "DECIMAL(12,2)" },
};

static void load_and_query(void **state)
{
    fixture *f = *state;
    sluice_scratch_table *t = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_create(f->ex, "invoices", invoice_cols, 4, f->arena, &t, &err),
                     SLUICE_OK);
    const char *rows[] = {
        "[1, \"2026-01-31\", \"paid\", 10.25]",
        "[2, \"2026-02-28\", \"paid\", 20.5]",
        "[3, \"2026-02-28\", \"void\", null]",
        /* text that looks like SQL stays a value */
        "[4, \"2026-03-31\", \"'); DROP TABLE invoices; --\", 1]",
    };
    for (size_t i = 0; i < 4; i++) {
        json_t *row = json_loads(rows[i], 0, NULL);
        assert_int_equal(sluice_scratch_append(t, row, &err), SLUICE_OK);
        json_decref(row);
    }
    assert_int_equal(sluice_scratch_finish(t, true, &err), SLUICE_OK);
    sluice_exec_result r;
    assert_int_equal(run(f,
                         "SELECT Status, count(*), sum(Total) FROM invoices GROUP BY Status "
                         "ORDER BY Status",
                         &r, &err),
                     SLUICE_OK);
    assert_int_equal(r.row_count, 3);
    char *dump = json_dumps(r.rows, JSON_COMPACT);
    assert_string_equal(dump,
                        "[[\"'); DROP TABLE invoices; --\",1,\"1.00\"],[\"paid\",2,\"30.75\"],"
                        "[\"void\",1,null]]");
    free(dump);
    assert_int_equal(run(f, "SELECT max(Date) FROM invoices", &r, &err), SLUICE_OK);
    assert_string_equal(json_string_value(json_array_get(json_array_get(r.rows, 0), 0)),
                        "2026-03-31");
}

static void bad_value_fails_and_drops(void **state)
{
    fixture *f = *state;
    sluice_scratch_table *t = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_create(f->ex, "bad", invoice_cols, 4, f->arena, &t, &err),
                     SLUICE_OK);
    json_t *row = json_loads("[1, \"not a date\", \"paid\", 1]", 0, NULL);
    assert_int_equal(sluice_scratch_append(t, row, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "row 1 of bad, column 2"));
    json_decref(row);
    row = json_loads("[1, 2]", 0, NULL);
    assert_int_equal(sluice_scratch_append(t, row, &err), SLUICE_E_INVALID);
    json_decref(row);
    sluice_scratch_finish(t, true, &err);
    sluice_exec_result r;
    assert_int_not_equal(run(f, "SELECT * FROM bad", &r, &err), SLUICE_OK);
}

static void cancelled_load_drops_table(void **state)
{
    fixture *f = *state;
    sluice_scratch_table *t = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_scratch_create(f->ex, "partial", invoice_cols, 4, f->arena, &t, &err),
                     SLUICE_OK);
    json_t *row = json_loads("[1, \"2026-01-31\", \"paid\", 1]", 0, NULL);
    assert_int_equal(sluice_scratch_append(t, row, &err), SLUICE_OK);
    json_decref(row);
    assert_int_equal(sluice_scratch_finish(t, false, &err), SLUICE_OK);
    sluice_exec_result r;
    assert_int_not_equal(run(f, "SELECT * FROM partial", &r, &err), SLUICE_OK);
}

static void hostile_names_refused(void **state)
{
    fixture *f = *state;
    sluice_scratch_table *t = NULL;
    sluice_error err = { 0 };
    sluice_exec_column bad_col[] = { { "a\"; DROP TABLE x; --", "VARCHAR" } };
    assert_int_equal(sluice_scratch_create(f->ex, "t", bad_col, 1, f->arena, &t, &err),
                     SLUICE_E_INVALID);
    sluice_exec_column bad_type[] = { { "a", "VARCHAR); DROP TABLE x; --" } };
    assert_int_equal(sluice_scratch_create(f->ex, "t", bad_type, 1, f->arena, &t, &err),
                     SLUICE_E_INVALID);
    sluice_exec_column ok[] = { { "a", "VARCHAR" } };
    assert_int_equal(sluice_scratch_create(f->ex, "t\"x", ok, 1, f->arena, &t, &err),
                     SLUICE_E_INVALID);
    assert_false(sluice_scratch_name_ok("1abc"));
    assert_true(sluice_scratch_name_ok("_abc1"));
    assert_true(sluice_scratch_type_ok("decimal(12, 2)"));
    assert_false(sluice_scratch_type_ok("DECIMAL(40,2)"));
    assert_false(sluice_scratch_type_ok("STRUCT(a INT)"));
}

/* The engine fences hold on a session database even without the analyzer in front. */
static void fences_hold(void **state)
{
    fixture *f = *state;
    char sql[600];
    const char *attacks[] = {
        "SELECT * FROM read_csv('/etc/passwd')",
        "SET enable_external_access = true",
        "SET allowed_directories = ['/']",
        "INSTALL httpfs",
        "LOAD httpfs",
        "ATTACH '/tmp/x.duckdb' AS x",
        "COPY (SELECT 1) TO '/tmp/sluice-scratch-copy.csv'",
        "CREATE TABLE x AS SELECT 1",
        "SELECT * FROM read_text('/proc/self/environ')",
    };
    sluice_exec_result r;
    sluice_error err = { 0 };
    for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++)
        assert_int_not_equal(run(f, attacks[i], &r, &err), SLUICE_OK);
    snprintf(sql, sizeof(sql), "SELECT current_setting('enable_external_access')");
    assert_int_equal(run(f, sql, &r, &err), SLUICE_OK);
    assert_false(json_is_true(json_array_get(json_array_get(r.rows, 0), 0)));
    snprintf(sql, sizeof(sql), "SELECT current_setting('lock_configuration')");
    assert_int_equal(run(f, sql, &r, &err), SLUICE_OK);
    assert_true(json_is_true(json_array_get(json_array_get(r.rows, 0), 0)));
}

static void bad_spill_folder_refused(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    sluice_scratch_options o = { .spill_dir = "/tmp/it's",
                                 .memory_limit = "64MB",
                                 .max_spill = "1MB" };
    assert_int_equal(sluice_scratch_open(&o, &ex, arena, &err), SLUICE_E_INVALID);
    assert_null(ex);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(load_and_query, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_value_fails_and_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(cancelled_load_drops_table, setup, teardown),
        cmocka_unit_test_setup_teardown(hostile_names_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(fences_hold, setup, teardown),
        cmocka_unit_test(bad_spill_folder_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
