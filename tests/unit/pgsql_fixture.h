/*
 * pgsql_fixture.h — a demo-shaped PostgreSQL catalog for the PostgreSQL analyzer's unit tests
 * and fuzz target, with no server: customers (ssn and email blocked), orders, and a view over
 * customers with its definition as pg_get_viewdef prints it.
 */
#ifndef SLUICE_TESTS_PGSQL_FIXTURE_H
#define SLUICE_TESTS_PGSQL_FIXTURE_H

#include "lang/pgsql/pgsql.h"
#include "lang/sql/sql.h"

#include <string.h>

static sluice_schema_column pgfx_customers[] = {
    { "id", "integer", false, false }, { "name", "text", true, false },
    { "email", "text", true, true },   { "ssn", "text", true, true },
    { "plan", "text", true, false },   { "rep_id", "integer", true, false },
};
static sluice_schema_column pgfx_orders[] = {
    { "id", "integer", false, false },     { "customer_id", "integer", true, false },
    { "order_date", "date", true, false }, { "total_cents", "bigint", true, false },
    { "note", "text", true, false },
};
static sluice_schema_column pgfx_contacts[] = {
    { "id", "integer", true, false },
    { "name", "text", true, false },
    { "email", "text", true, false },
};
static sluice_schema_table pgfx_tables[] = {
    { "public", "customers", false, false, pgfx_customers, 6, 5000, NULL },
    { "public", "orders", false, false, pgfx_orders, 5, 20000, NULL },
    { "public", "customer_contacts", true, false, pgfx_contacts, 3, -1,
      " SELECT customers.id,\n    customers.name,\n    customers.email\n   FROM customers;" },
};
static sluice_schema pgfx_schema = { .tables = pgfx_tables, .table_count = 3 };

static const char *pgfx_blocked[] = { "ssn", "email" };

static sluice_config_code_mode pgfx_cm(void)
{
    sluice_config_code_mode cm;
    memset(&cm, 0, sizeof cm);
    cm.sql_reads_enabled = true;
    cm.sql_max_rows = 1000;
    cm.sql_max_joins = 5;
    cm.blocked_fields.items = pgfx_blocked;
    cm.blocked_fields.count = 2;
    return cm;
}

/* Analyzes sql in arena against the fixture catalog; NULL when the analyzer failed. */
static sluice_codefacts *pgfx_analyze(sluice_arena *arena, const char *sql, size_t len)
{
    sluice_config_code_mode cm = pgfx_cm();
    sluice_frontend_context fc = { .code_mode = &cm,
                                   .schema = &pgfx_schema,
                                   .engine = SLUICE_ENGINE_POSTGRES };
    sluice_codefacts *f = NULL;
    sluice_error err;
    return sluice_pgsql_analyze(arena, sql, len, NULL, &fc, &f, &err) == SLUICE_OK ? f : NULL;
}

#endif
