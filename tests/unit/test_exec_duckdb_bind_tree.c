/*
 * test_exec_duckdb_bind_tree.c — the guarantee that lang/sql's readers see the same thing
 * through the bind-once unit as through the queries it replaces: for every statement of a corpus
 * (the seeds, the lineage cases, every SQL string of the SQL front end's tests, and edge cases:
 * doubles, huge integers, escapes, blobs, refusals), sluice_executor_bind_tree's value is
 * json_equal to json_loads(JSON_DECODE_INT_AS_REAL) of `SELECT json_serialize_sql|plan($1,
 * skip_null := true, skip_empty := true)`, and its text is that query's text byte for byte (the
 * canonical form hashes the parse tree's). Plus the refusals and an allocation-failure sweep.
 * Built only with -DSLUICE_DUCKDB_CPP=ON.
 */
#include "core/arena.h"
#include "exec/executor.h"
#include "sql_fixture.h"
#include "unit.h"

#include <dirent.h>
#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA SLUICE_SOURCE_DIR "/tests/unit/data"

static duckdb_connection conn;

static int setup(void **state)
{
    if (fixture_open(state) != 0 || duckdb_connect(fixture_db, &conn) != DuckDBSuccess)
        return -1;
    /* what exec/duckdb.c's served databases hold too: a runaway fold fails, never swaps */
    return duckdb_query(conn, "SET memory_limit = '1GB'", NULL) == DuckDBSuccess ? 0 : -1;
}

static int teardown(void **state)
{
    duckdb_disconnect(&conn);
    return fixture_close(state);
}

/* The query the unit replaces (lang/sql/statement.c before it): its text, malloc'd. */
static char *query_text(const char *fn, const char *sql)
{
    char q[128];
    snprintf(q, sizeof(q), "SELECT %s($1::VARCHAR, skip_null := true, skip_empty := true)", fn);
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    char *out = NULL;
    assert_int_equal(duckdb_prepare(conn, q, &ps), DuckDBSuccess);
    assert_int_equal(duckdb_bind_varchar(ps, 1, sql), DuckDBSuccess);
    if (duckdb_execute_prepared(ps, &res) == DuckDBSuccess) {
        char *v = duckdb_value_varchar(&res, 0, 0);
        out = v != NULL ? strdup(v) : NULL;
        duckdb_free(v);
    } else {
        fail_msg("%s failed: %s", fn, duckdb_result_error(&res));
    }
    duckdb_destroy_result(&res);
    duckdb_destroy_prepare(&ps);
    return out;
}

static size_t compared;

static void expect_same(const char *sql, sluice_bind_tree which)
{
    const char *fn = which == SLUICE_BIND_PLAN ? "json_serialize_plan" : "json_serialize_sql";
    char *want_text = query_text(fn, sql);
    assert_non_null(want_text);
    json_error_t jerr;
    json_t *want = json_loads(want_text, JSON_DECODE_INT_AS_REAL, &jerr);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    json_t *got = NULL;
    const char *got_text = NULL;
    sluice_status st = sluice_executor_bind_tree(conn, sql, which, arena, &got, &got_text, &err);
    if (want == NULL) {
        /* a text jansson refuses (NaN, infinity): the unit refuses it too, never a value */
        if (st != SLUICE_E_INTERNAL)
            fail_msg("%s of [%s]: query text not JSON (%s) but the unit gave %d", fn, sql,
                     jerr.text, st);
    } else {
        if (st != SLUICE_OK)
            fail_msg("%s of [%s]: unit failed: %s", fn, sql, err.message ? err.message : "?");
        if (!json_equal(got, want) || strcmp(got_text, want_text) != 0) {
            char *g = json_dumps(got, JSON_COMPACT);
            fail_msg("%s of [%s] differs\nquery: %s\nunit:  %s\nunit text: %s", fn, sql, want_text,
                     g, got_text);
        }
        compared++;
    }
    json_decref(want);
    free(want_text);
    sluice_arena_free(arena);
}

static void expect_same_both(const char *sql)
{
    expect_same(sql, SLUICE_BIND_PARSE_TREE);
    expect_same(sql, SLUICE_BIND_PLAN);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A corpus file: statements separated by lines ";;". */
static void corpus_file(const char *path)
{
    char *text = read_file(path);
    char *p = text;
    for (;;) {
        char *sep = strstr(p, "\n;;\n");
        if (sep == NULL)
            break;
        *sep = '\0';
        expect_same_both(p);
        p = sep + 4;
    }
    free(text);
}

/* Every *.sql file of a directory, one statement each. */
static void corpus_dir(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".sql") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        char *sql = read_file(path);
        expect_same_both(sql);
        free(sql);
    }
    closedir(d);
}

static void test_same_values_as_the_queries(void **state)
{
    (void)state;
    compared = 0;
    corpus_dir(DATA "/sql/seeds");
    corpus_dir(DATA "/sql_lineage/allow");
    corpus_dir(DATA "/sql_lineage/refuse");
    corpus_file(DATA "/sql_serialize/from_tests.sql");
    corpus_file(DATA "/sql_serialize/edge.sql");
    fprintf(stderr, "bind_tree: %zu documents equal to the queries'\n", compared);
    assert_true(compared > 900);
}

static void test_refuses_what_it_cannot_serialize(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    json_t *doc = NULL;
    /* not UTF-8: the query's own path reports it (its VARCHAR parameter refuses the text) */
    assert_int_equal(sluice_executor_bind_tree(conn, "SELECT '\xff'", SLUICE_BIND_PARSE_TREE, arena,
                                               &doc, NULL, &err),
                     SLUICE_E_UNSUPPORTED);
    assert_null(doc);
    assert_int_equal(
        sluice_executor_bind_tree(NULL, "SELECT 1", SLUICE_BIND_PLAN, arena, &doc, NULL, &err),
        SLUICE_E_INTERNAL);
    /* DuckDB's refusal is a value, as from the query */
    assert_int_equal(sluice_executor_bind_tree(conn, "SELECT * FROM nope", SLUICE_BIND_PLAN, arena,
                                               &doc, NULL, &err),
                     SLUICE_OK);
    assert_true(json_is_true(json_object_get(doc, "error")));
    assert_string_equal(json_string_value(json_object_get(doc, "error_type")), "catalog");
    sluice_arena_free(arena);
}

/* Every arena allocation fails in turn: NOMEM each time (nothing leaks: ASan), then a value. */
static void test_allocation_failure_sweep(void **state)
{
    (void)state;
    for (long n = 1; n < 100; n++) {
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        sluice_error err = { 0 };
        json_t *doc = NULL;
        const char *raw = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_executor_bind_tree(conn, "SELECT id FROM orders WHERE id = 1",
                                                     SLUICE_BIND_PLAN, arena, &doc, &raw, &err);
        bool pending = sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (pending) {
            assert_int_equal(st, SLUICE_OK);
            assert_non_null(doc);
            assert_non_null(raw);
            sluice_arena_free(arena);
            return;
        }
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_null(doc);
        sluice_arena_free(arena);
    }
    fail_msg("the sweep never reached the end");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_values_as_the_queries),
        cmocka_unit_test(test_refuses_what_it_cannot_serialize),
        cmocka_unit_test(test_allocation_failure_sweep),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
