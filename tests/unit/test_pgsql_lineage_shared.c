/*
 * test_pgsql_lineage_shared.c — the DuckDB analyzer's lineage corpus (tests/unit/data/
 * sql_lineage/) run through the PostgreSQL analyzer against the same catalog: every refuse/ case
 * must be refused on PostgreSQL too, and every allow/ case allowed, except the few written in
 * DuckDB's own dialect (listed below with the reason), which PostgreSQL cannot parse.
 * The catalog and blocked fields are sql_fixture.h's, as pg_get_viewdef would print the view.
 */
#include "lang/pgsql/pgsql.h"
#include "lang/sql/sql.h"
#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sluice_schema_column customers[] = {
    { "id", "integer", true, false },
    { "name", "text", true, false },
    { "plan", "text", true, false },
    { "segment", "text", true, false },
    { "email", "text", true, false },
    { "ssn", "text", true, false },
    { "created_at", "timestamp", true, false },
    { "rep_id", "integer", true, false },
};
static sluice_schema_column orders[] = {
    { "id", "integer", true, false },      { "customer_id", "integer", true, false },
    { "order_date", "date", true, false }, { "total_cents", "bigint", true, false },
    { "status", "text", true, false },
};
static sluice_schema_column tickets[] = {
    { "id", "integer", true, false },           { "customer_id", "integer", true, false },
    { "created_at", "timestamp", true, false }, { "status", "text", true, false },
    { "priority", "text", true, false },        { "subject", "text", true, false },
};
static sluice_schema_column reps[] = {
    { "id", "integer", true, false },
    { "name", "text", true, false },
    { "region", "text", true, false },
    { "email", "text", true, false },
};
static sluice_schema_column contacts[] = {
    { "id", "integer", true, false }, { "customer_id", "integer", true, false },
    { "name", "text", true, false },  { "email", "text", true, false },
    { "phone", "text", true, false },
};
static sluice_schema_column metrics[] = {
    { "rep_id", "integer", true, false },       { "customer_id", "integer", true, false },
    { "quarter", "text", true, false },         { "quarterly_revenue", "bigint", true, false },
    { "ticket_count", "integer", true, false },
};
static sluice_schema_column directory[] = {
    { "id", "integer", true, false },
    { "name", "text", true, false },
    { "ssn", "text", true, false },
};
#define COLS(a) a, sizeof(a) / sizeof((a)[0])
static sluice_schema_table tables[] = {
    { "public", "customers", false, false, COLS(customers), 0, NULL },
    { "public", "orders", false, false, COLS(orders), 0, NULL },
    { "public", "support_tickets", false, false, COLS(tickets), 0, NULL },
    { "public", "sales_reps", false, false, COLS(reps), 0, NULL },
    { "public", "contacts", false, false, COLS(contacts), 0, NULL },
    { "public", "account_quarterly_metrics", false, false, COLS(metrics), 0, NULL },
    { "public", "customer_directory", true, false, COLS(directory), -1,
      " SELECT customers.id,\n    customers.name,\n    customers.ssn\n   FROM customers;" },
};
static sluice_schema schema = { .tables = tables,
                                .table_count = sizeof(tables) / sizeof(tables[0]) };
static const char *blocked[] = { "ssn", "customers.email" };

/* Cases in DuckDB's dialect, and what PostgreSQL lacks or reads differently. */
static const char *const duckdb_only[] = {
    "replace_name.sql",    /* SELECT * REPLACE (...) */
    "columns_exclude.sql", /* COLUMNS(* EXCLUDE ...) */
    "exclude_star.sql",    /* SELECT * EXCLUDE (...) */
    "cte_exclude.sql",     /* EXCLUDE in a CTE */
    "anti_join.sql",       /* ANTI JOIN */
    "semi_join.sql",       /* SEMI JOIN */
    "unnest_literal.sql",  /* [1, 2] list literals */
    "range_fn.sql",        /* range() (PostgreSQL: generate_series) */
    "seed000_metrics.sql", /* a subquery in FROM without an alias */
    "positional.sql",      /* #6 is a positional column in DuckDB, an (unknown) XOR in
                            * PostgreSQL: nothing is returned, the server refuses it */
    NULL,
};

/* Allowed on DuckDB, refused on PostgreSQL: PostgreSQL keeps the first row of each DISTINCT ON
 * group by sorting on its keys, so the rows come back in the blocked column's order (the
 * "DISTINCT ON where the engine sorts" row of the rule table, docs/security.md). */
static const char *const pg_sorts[] = {
    "distinct_on.sql",
    "distinct_on_blocked_pred.sql",
    "window_partition_blocked_dedupe.sql",
    NULL,
};

static bool listed(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static bool is_duckdb_only(const char *name)
{
    return listed(duckdb_only, name);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = buf != NULL ? fread(buf, 1, 65535, f) : 0;
    fclose(f);
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

static const sluice_codefacts *analyze(sluice_arena *arena, const char *sql)
{
    sluice_config_code_mode cm;
    memset(&cm, 0, sizeof cm);
    cm.sql_reads_enabled = true;
    cm.sql_require_where_on_writes = true;
    cm.sql_max_rows = 10000;
    cm.sql_max_joins = 5;
    cm.blocked_fields.items = blocked;
    cm.blocked_fields.count = 2;
    sluice_frontend_context fc = { .code_mode = &cm,
                                   .schema = &schema,
                                   .engine = SLUICE_ENGINE_POSTGRES };
    sluice_codefacts *f = NULL;
    sluice_error err;
    assert_int_equal(sluice_pgsql_analyze(arena, sql, strlen(sql), NULL, &fc, &f, &err), SLUICE_OK);
    return f;
}

/* Runs every case of sub; the number run, and in *parsed those PostgreSQL could parse. */
static size_t run_dir(const char *sub, bool expect_refused, size_t *parsed)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/unit/data/sql_lineage/%s", SLUICE_SOURCE_DIR, sub);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t cases = 0, failures = 0;
    *parsed = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *sql = read_file(path);
        assert_non_null(sql);
        sluice_arena *arena = sluice_arena_new();
        const sluice_codefacts *f = analyze(arena, sql);
        cases++;
        bool syntax = f->violation_count > 0 && strcmp(f->violations[0].rule, "syntax_error") == 0;
        *parsed += syntax ? 0 : 1;
        bool refused = f->violation_count > 0;
        bool expect = expect_refused || listed(pg_sorts, e->d_name);
        bool ok = refused == expect || is_duckdb_only(e->d_name);
        if (!ok) {
            failures++;
            fprintf(stderr, "FAIL %s/%s on PostgreSQL (expected %s): %s\n", sub, e->d_name,
                    expect ? "refused" : "allowed",
                    refused ? f->violations[0].message : "no violation");
        }
        sluice_arena_free(arena);
        free(sql);
    }
    closedir(d);
    assert_int_equal(failures, 0);
    return cases;
}

static void test_pgsql_shared_allowed_cases_pass(void **state)
{
    (void)state;
    size_t parsed = 0;
    assert_true(run_dir("allow", false, &parsed) >= 20);
    assert_true(parsed >= 15);
}

static void test_pgsql_shared_leak_attempts_are_refused(void **state)
{
    (void)state;
    size_t parsed = 0;
    assert_true(run_dir("refuse", true, &parsed) >= 40);
    /* Most are refused for what they do, not because PostgreSQL cannot parse DuckDB's dialect. */
    assert_true(parsed >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgsql_shared_allowed_cases_pass),
        cmocka_unit_test(test_pgsql_shared_leak_attempts_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
