/*
 * sql_fixture.h — the demo-shaped DuckDB catalog the SQL front-end tests analyze against.
 *
 * Tables as in the demo database (customers, orders, support_tickets, sales_reps, contacts,
 * account_quarterly_metrics) plus a view over customers, created empty in an in-memory DuckDB
 * with external access off. Blocked fields: ssn (every table) and customers.email.
 * Header-only: each test_sql_*.c includes it once.
 */
#ifndef SLUICE_TESTS_SQL_FIXTURE_H
#define SLUICE_TESTS_SQL_FIXTURE_H

#include "lang/sql/sql.h"

#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char fixture_ddl[] =
    "CREATE TABLE customers(id INTEGER, name VARCHAR, plan VARCHAR, segment VARCHAR, "
    "email VARCHAR, ssn VARCHAR, created_at TIMESTAMP, rep_id INTEGER);"
    "CREATE TABLE orders(id INTEGER, customer_id INTEGER, order_date DATE, total_cents BIGINT, "
    "status VARCHAR);"
    "CREATE TABLE support_tickets(id INTEGER, customer_id INTEGER, created_at TIMESTAMP, "
    "status VARCHAR, priority VARCHAR, subject VARCHAR);"
    "CREATE TABLE sales_reps(id INTEGER, name VARCHAR, region VARCHAR, email VARCHAR);"
    "CREATE TABLE contacts(id INTEGER, customer_id INTEGER, name VARCHAR, email VARCHAR, "
    "phone VARCHAR);"
    "CREATE TABLE account_quarterly_metrics(rep_id INTEGER, customer_id INTEGER, quarter VARCHAR, "
    "quarterly_revenue BIGINT, ticket_count INTEGER);"
    "CREATE VIEW customer_directory AS SELECT id, name, ssn FROM customers;"
    "CREATE MACRO leak(x) AS upper(x);"
    "CREATE SEQUENCE seq;"
    "CREATE MACRO sneaky() AS current_setting('threads');";

static duckdb_database fixture_db;
static sluice_arena *fixture_arena;

static const char *fixture_blocked[] = { "ssn", "customers.email" };

static inline sluice_config_code_mode fixture_cm(void)
{
    sluice_config_code_mode cm;
    memset(&cm, 0, sizeof(cm));
    cm.sql_reads_enabled = true;
    cm.sql_require_where_on_writes = true;
    cm.sql_max_rows = 10000;
    cm.sql_max_joins = 5;
    cm.blocked_fields.items = fixture_blocked;
    cm.blocked_fields.count = 2;
    return cm;
}

static inline int fixture_open(void **state)
{
    (void)state;
    duckdb_config cfg;
    duckdb_connection c;
    duckdb_result r;
    if (duckdb_create_config(&cfg) == DuckDBError)
        return -1;
    duckdb_set_config(cfg, "enable_external_access", "false");
    duckdb_set_config(cfg, "autoload_known_extensions", "false");
    duckdb_set_config(cfg, "threads", "1");
    char *err = NULL;
    duckdb_state s = duckdb_open_ext(NULL, &fixture_db, cfg, &err);
    duckdb_destroy_config(&cfg);
    if (s == DuckDBError) {
        fprintf(stderr, "open: %s\n", err != NULL ? err : "?");
        duckdb_free(err);
        return -1;
    }
    if (duckdb_connect(fixture_db, &c) == DuckDBError)
        return -1;
    s = duckdb_query(c, fixture_ddl, &r);
    if (s == DuckDBError)
        fprintf(stderr, "ddl: %s\n", duckdb_result_error(&r));
    duckdb_destroy_result(&r);
    duckdb_disconnect(&c);
    return s == DuckDBError ? -1 : 0;
}

static inline int fixture_close(void **state)
{
    (void)state;
    duckdb_close(&fixture_db);
    return 0;
}

static inline int fixture_arena_new(void **state)
{
    (void)state;
    fixture_arena = sluice_arena_new();
    return fixture_arena == NULL ? -1 : 0;
}

static inline int fixture_arena_free(void **state)
{
    (void)state;
    sluice_arena_free(fixture_arena);
    fixture_arena = NULL;
    return 0;
}

/* Analyzes sql with cm (NULL: the fixture's config); aborts the test on analyzer failure. */
static inline const sluice_codefacts *fixture_analyze_with(const char *sql,
                                                           const sluice_config_code_mode *cm)
{
    sluice_config_code_mode def = fixture_cm();
    sluice_frontend_context fc;
    memset(&fc, 0, sizeof(fc));
    fc.code_mode = cm != NULL ? cm : &def;
    fc.engine = SLUICE_ENGINE_DUCKDB;
    fc.duckdb_database = fixture_db;
    sluice_codefacts *facts = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_sql_analyze(fixture_arena, sql, strlen(sql), NULL, &fc, &facts, &err);
    if (st != SLUICE_OK) {
        fprintf(stderr, "analyze failed: %s\n", err.message != NULL ? err.message : "?");
        abort();
    }
    return facts;
}

static inline const sluice_codefacts *fixture_analyze(const char *sql)
{
    return fixture_analyze_with(sql, NULL);
}

/* The first violation with this rule, or NULL. */
static inline const sluice_codefacts_violation *fixture_violation(const sluice_codefacts *f,
                                                                  const char *rule)
{
    for (size_t i = 0; i < f->violation_count; i++)
        if (strcmp(f->violations[i].rule, rule) == 0)
            return &f->violations[i];
    return NULL;
}

static inline void fixture_dump(const char *sql, const sluice_codefacts *f)
{
    fprintf(stderr, "--- %s\n", sql);
    for (size_t i = 0; i < f->violation_count; i++)
        fprintf(stderr, "  violation %s: %s (line %zu col %zu)\n", f->violations[i].rule,
                f->violations[i].message, f->violations[i].line, f->violations[i].column);
}

/* Reads a whole file into arena memory (NUL-terminated); NULL when unreadable. */
static inline char *fixture_read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    char *buf = sluice_arena_alloc(fixture_arena, 1 << 16);
    size_t n = buf != NULL ? fread(buf, 1, (1 << 16) - 1, fp) : 0;
    fclose(fp);
    if (buf != NULL)
        buf[n] = '\0';
    return buf;
}

#endif
