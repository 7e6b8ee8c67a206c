/*
 * test_exec_duckdb_bind_tree.c — the guarantee that lang/sql's readers see the same thing
 * through the bind-once unit as through the queries it replaces: for every statement of a corpus
 * (the seeds, the lineage cases, every SQL string of the SQL front end's tests, and edge cases:
 * doubles, huge integers, escapes, blobs, refusals), sluice_executor_bind_tree's value is
 * json_equal to json_loads(JSON_DECODE_INT_AS_REAL) of `SELECT json_serialize_sql|plan($1,
 * skip_null := true, skip_empty := true)`, and its text is that query's text byte for byte (the
 * canonical form hashes the parse tree's). And for the one parse and one bind that validate
 * makes (sluice_executor_bind_parse + sluice_executor_bind_plan): every field is what the C API
 * call it replaces gives — extract's count and error, prepare's error (plain and JSON), type,
 * columns and parameters, both documents, and EXPLAIN (FORMAT JSON)'s operators and estimated
 * cardinalities. Plus the refusals and allocation-failure sweeps.
 * Built only with -DSLUICE_DUCKDB_CPP=ON.
 */
#include "core/arena.h"
#include "exec/duckdb_connect.h"
#include "exec/executor.h"
#include "lang/sql/internal.h"
#include "sql_fixture.h"
#include "unit.h"

#include <dirent.h>
#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA SLUICE_SOURCE_DIR "/tests/unit/data"

/* The jansson value of the plan's arena tree, to compare with json_loads of the query's text:
 * every kind maps to the one json_loads(JSON_DECODE_INT_AS_REAL) gives, members in order. */
static json_t *tree_json(const sluice_tree *t)
{
    json_t *v = NULL;
    size_t i;
    const char *key;
    const sluice_tree *c;
    switch (sluice_tree_kind_of(t)) {
    case SLUICE_TREE_NULL:
        return json_null();
    case SLUICE_TREE_FALSE:
        return json_false();
    case SLUICE_TREE_TRUE:
        return json_true();
    case SLUICE_TREE_NUMBER:
        return json_real(sluice_tree_number_value(t));
    case SLUICE_TREE_STRING:
        return json_stringn(sluice_tree_string_value(t), sluice_tree_string_length(t));
    case SLUICE_TREE_ARRAY:
        v = json_array();
        sluice_tree_foreach(t, i, c)
        {
            assert_int_equal(json_array_append_new(v, tree_json(c)), 0);
        }
        return v;
    case SLUICE_TREE_OBJECT:
        v = json_object();
        sluice_tree_foreach_member(t, i, key, c)
        {
            assert_int_equal(json_object_set_new(v, key, tree_json(c)), 0);
        }
        return v;
    }
    return NULL;
}

/* Equal values with their members in the same order: the walker refuses the first unknown key
 * it meets, so the order is part of what it reads. */
static bool same_json(const json_t *got, const json_t *want)
{
    if (got == NULL || !json_equal(got, want))
        return false;
    char *a = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
    char *b = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
    bool same = a != NULL && b != NULL && strcmp(a, b) == 0;
    free(a);
    free(b);
    return same;
}

static duckdb_connection conn;
static duckdb_connection json_conn; /* errors as JSON, as the served databases give them */
static sluice_arena *json_conn_arena;

/* Operator names the parity compared with a figure (seen: EXPLAIN printing one) and without one
 * (seen_bare), so the test can tell it reached every operator class the unit reads the
 * estimate of directly, or gives none without asking. */
#define MAX_SEEN 128
static const char *seen[MAX_SEEN];
static size_t n_seen;
static const char *seen_bare[MAX_SEEN];
static size_t n_seen_bare;

static int setup(void **state)
{
    if (fixture_open(state) != 0 || duckdb_connect(fixture_db, &conn) != DuckDBSuccess)
        return -1;
    json_conn_arena = sluice_arena_new();
    sluice_error err = { 0 };
    if (json_conn_arena == NULL || sluice_exec_duckdb_connect(fixture_db, true, &json_conn,
                                                              json_conn_arena, &err) != SLUICE_OK)
        return -1;
    /* what exec/duckdb.c's served databases hold too: a runaway fold fails, never swaps */
    return duckdb_query(conn, "SET memory_limit = '1GB'", NULL) == DuckDBSuccess ? 0 : -1;
}

static int teardown(void **state)
{
    for (size_t i = 0; i < n_seen; i++)
        free((void *)seen[i]);
    for (size_t i = 0; i < n_seen_bare; i++)
        free((void *)seen_bare[i]);
    duckdb_disconnect(&conn);
    duckdb_disconnect(&json_conn);
    sluice_arena_free(json_conn_arena);
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

static void saw(const char *name, bool figure)
{
    const char **list = figure ? seen : seen_bare;
    size_t *n = figure ? &n_seen : &n_seen_bare;
    for (size_t i = 0; i < *n; i++)
        if (strcmp(list[i], name) == 0)
            return;
    assert_true(*n < MAX_SEEN);
    list[*n] = strdup(name);
    assert_non_null(list[(*n)++]);
}

static bool seen_in(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* The unit's physical operators against EXPLAIN (FORMAT JSON)'s: names, cardinalities (the same
 * text where EXPLAIN prints one, none where it prints none) and shape. */
static void expect_same_physical(const char *sql, const sluice_physical_op *got, const json_t *want)
{
    const char *wn = json_string_value(json_object_get(want, "name"));
    const json_t *wc =
        json_object_get(json_object_get(want, "extra_info"), "Estimated Cardinality");
    const char *gc = got->estimated_cardinality;
    const json_t *wk = json_object_get(want, "children");
    if (wn == NULL || strcmp(got->name, wn) != 0 || (gc == NULL) != (wc == NULL) ||
        (gc != NULL && (!json_is_string(wc) || strcmp(gc, json_string_value(wc)) != 0)) ||
        got->n_children != json_array_size(wk)) {
        /* cmocka cuts long messages: the operators go to stderr first */
        fprintf(stderr, "unit:    %s (%s, %zu children)\nexplain: %s\n", got->name,
                gc != NULL ? gc : "no figure", got->n_children, json_dumps(want, JSON_COMPACT));
        fail_msg("physical plan differs at %s (EXPLAIN: %s) for [%s]", got->name,
                 wn != NULL ? wn : "?", sql);
    }
    saw(got->name, gc != NULL);
    for (size_t i = 0; i < got->n_children; i++)
        expect_same_physical(sql, &got->children[i], json_array_get(wk, i));
}

/* EXPLAIN (FORMAT JSON) of sql (as lang/sql/estimate.c runs it), or NULL when DuckDB refuses. */
static json_t *explained(duckdb_connection c, const char *sql)
{
    size_t n = strlen(sql) + 32;
    char *q = malloc(n);
    assert_non_null(q);
    snprintf(q, n, "EXPLAIN (FORMAT JSON) %s", sql);
    duckdb_result res;
    json_t *out = NULL;
    if (duckdb_query(c, q, &res) == DuckDBSuccess && duckdb_row_count(&res) >= 1) {
        char *text = duckdb_value_varchar(&res, 1, 0);
        out = text != NULL ? json_loads(text, 0, NULL) : NULL;
        duckdb_free(text);
    }
    duckdb_destroy_result(&res);
    free(q);
    return out;
}

static size_t bound_compared, physical_compared;

static void expect_text(const char *sql, const char *what, const char *got, const char *want)
{
    if ((got == NULL) != (want == NULL) || (got != NULL && strcmp(got, want) != 0))
        fail_msg("%s of [%s]: unit [%s], C API [%s]", what, sql, got ? got : "(null)",
                 want ? want : "(null)");
}

/* The bind fields against prepare's (ps) and json_serialize_plan's. */
static void expect_same_bind(duckdb_connection c,
                             const char *sql,
                             const sluice_bound_statement *b,
                             duckdb_prepared_statement ps,
                             bool prepared)
{
    assert_true(b->planned);
    expect_text(sql, "prepare error", b->bind_error, prepared ? NULL : duckdb_prepare_error(ps));
    if (!prepared)
        return;
    duckdb_statement_type t = duckdb_prepared_statement_type(ps);
    if (b->statement_type != (int)t)
        fail_msg("type of [%s]: unit %d, C API %d", sql, b->statement_type, (int)t);
    assert_int_equal(b->column_count, duckdb_prepared_statement_column_count(ps));
    for (size_t i = 0; i < b->column_count; i++) {
        char *name = (char *)duckdb_prepared_statement_column_name(ps, i);
        expect_text(sql, "column name", b->column_names[i], name);
        duckdb_free(name);
        assert_int_equal(b->column_types[i], duckdb_prepared_statement_column_type(ps, i));
    }
    assert_int_equal(b->param_count, duckdb_nparams(ps));
    for (size_t i = 1; i <= b->param_count; i++) {
        char *name = (char *)duckdb_parameter_name(ps, i);
        expect_text(sql, "parameter name", b->param_names[i - 1], name);
        duckdb_free(name);
        if (b->param_types[i - 1] != (int)duckdb_param_type(ps, i))
            fail_msg("parameter %zu of [%s]: unit type %d, C API %d", i, sql, b->param_types[i - 1],
                     (int)duckdb_param_type(ps, i));
    }
    bool select = sluice_tree_kind_of(sluice_tree_get(b->parse_tree, "error")) == SLUICE_TREE_FALSE;
    if (!select) {
        assert_null(b->plan);
        return;
    }
    char *want_text = query_text("json_serialize_plan", sql);
    json_t *want = json_loads(want_text, JSON_DECODE_INT_AS_REAL, NULL);
    json_t *got = b->plan != NULL ? tree_json(b->plan) : NULL;
    if (want == NULL ? !b->plan_unholdable : !same_json(got, want))
        fail_msg("plan of [%s] differs\nquery: %s\nunit:  %s", sql, want_text,
                 got != NULL ? json_dumps(got, JSON_COMPACT) : "(none)");
    json_decref(got);
    json_decref(want);
    free(want_text);
    if (b->param_count > 0) {
        assert_null(b->physical); /* EXPLAIN plans with the caller's values */
        return;
    }
    json_t *explain = explained(c, sql);
    if (explain != NULL && b->physical != NULL) {
        expect_same_physical(sql, b->physical, json_array_get(explain, 0));
        physical_compared++;
    } else if (b->physical != NULL) {
        fail_msg("[%s]: EXPLAIN refused but the unit has a physical plan", sql);
    }
    json_decref(explain);
}

/* The one parse and one bind against extract, the parse tree query, prepare, the plan query and
 * EXPLAIN, on connection c. */
static void expect_same_bound(duckdb_connection c, const char *sql)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_bound_statement *b = NULL;
    sluice_status st = sluice_executor_bind_parse(c, sql, arena, &b, &err);
    if (st != SLUICE_OK)
        fail_msg("parse of [%s]: %s", sql, err.message != NULL ? err.message : "?");
    duckdb_extracted_statements ex = NULL;
    idx_t n = duckdb_extract_statements(c, sql, &ex);
    assert_int_equal(b->statement_count, n);
    expect_text(sql, "extract error", b->parse_error,
                n == 0 ? duckdb_extract_statements_error(ex) : NULL);
    if (n == 1) {
        char *want_text = query_text("json_serialize_sql", sql);
        json_t *want = json_loads(want_text, JSON_DECODE_INT_AS_REAL, NULL);
        json_t *got = b->parse_tree != NULL ? tree_json(b->parse_tree) : NULL;
        /* the text is the canonical form's body: the query's, less its source positions */
        const char *want_body = sluice_sql_strip_locations(arena, want_text);
        assert_non_null(want_body);
        if (want == NULL ? b->parse_tree != NULL
                         : !same_json(got, want) || strcmp(b->parse_tree_text, want_body) != 0)
            fail_msg("parse tree of [%s] differs\nquery: %s\nunit:  %s", sql, want_body,
                     b->parse_tree_text != NULL ? b->parse_tree_text : "(none)");
        json_decref(got);
        json_decref(want);
        free(want_text);
        duckdb_prepared_statement ps = NULL;
        bool prepared = duckdb_prepare_extracted_statement(c, ex, 0, &ps) == DuckDBSuccess;
        assert_int_equal(sluice_executor_bind_plan(c, b, arena, &err), SLUICE_OK);
        expect_same_bind(c, sql, b, ps, prepared);
        duckdb_destroy_prepare(&ps);
        /* one bind per parse */
        assert_int_equal(sluice_executor_bind_plan(c, b, arena, &err), SLUICE_E_INVALID);
        bound_compared++;
    } else {
        assert_int_equal(sluice_executor_bind_plan(c, b, arena, &err), SLUICE_E_INVALID);
    }
    duckdb_destroy_extracted(&ex);
    sluice_arena_free(arena);
}

static void expect_same_both(const char *sql)
{
    expect_same(sql, SLUICE_BIND_PARSE_TREE);
    expect_same(sql, SLUICE_BIND_PLAN);
    expect_same_bound(conn, sql);
    expect_same_bound(json_conn, sql);
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
    corpus_file(DATA "/sql_serialize/physical_operators.sql");
    fprintf(stderr, "bind_tree: %zu documents equal to the queries'\n", compared);
    fprintf(stderr,
            "bind_parse + bind_plan: %zu statements equal to the C API's, %zu physical "
            "plans to EXPLAIN's\n",
            bound_compared, physical_compared);
    assert_true(compared > 900);
    assert_true(bound_compared > 800 && physical_compared > 600);
    /* Every operator whose figure the unit reads without ParamsToString (duckdb_plan.cpp,
     * prints_own_estimate), and the delim joins, which print their join's: each compared. */
    static const char *const direct[] = {
        "PROJECTION",    "FILTER",         "SEQ_SCAN ",        "RANGE ",
        "HASH_GROUP_BY", "HASH_JOIN",      "NESTED_LOOP_JOIN", "PIECEWISE_MERGE_JOIN",
        "IE_JOIN",       "ASOF_JOIN",      "COLUMN_DATA_SCAN", "DELIM_SCAN",
        "CTE_SCAN",      "REC_CTE_SCAN",   "REC_REC_CTE_SCAN", "CTE",
        "REC_CTE",       "INOUT_FUNCTION", "LEFT_DELIM_JOIN",  "RIGHT_DELIM_JOIN",
    };
    fprintf(stderr, "operators with a figure compared:");
    for (size_t i = 0; i < n_seen; i++)
        fprintf(stderr, " [%s]", seen[i]);
    fprintf(stderr, "\n");
    for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++)
        if (!seen_in(seen, n_seen, direct[i]))
            fail_msg("no statement of the corpus gave a %s with a figure", direct[i]);
    /* The operators the unit gives no figure without asking ParamsToString (duckdb_plan.cpp,
     * prints_no_estimate): each compared, and never with a figure. */
    static const char *const bare[] = { "TOP_N", "WINDOW" };
    for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
        if (!seen_in(seen_bare, n_seen_bare, bare[i]) || seen_in(seen, n_seen, bare[i]))
            fail_msg("the corpus gave no %s, or one with a figure", bare[i]);
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
