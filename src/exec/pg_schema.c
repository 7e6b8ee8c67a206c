/*
 * pg_schema.c — what sluice reads from the PostgreSQL catalog: the tables and views of the
 * schemas in search_path that the role may read (columns, types, view definitions, approximate
 * row counts), and the start-up probe that the role cannot write.
 *
 * Does not own: the blocked/hidden marks (executor.c adds them from the config).
 */
#include "core/buf.h"
#include "exec/pg_internal.h"

#include <stdlib.h>
#include <string.h>

/* One row per column of every readable relation, relations in name order. */
static const char catalog_sql[] =
    "SELECT n.nspname, c.relname, c.relkind, c.reltuples::bigint, "
    "CASE WHEN c.relkind IN ('v','m') THEN pg_catalog.pg_get_viewdef(c.oid) END, "
    "a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull "
    "FROM pg_catalog.pg_class c "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT "
    "a.attisdropped "
    "WHERE c.relkind IN ('r','p','v','m','f') "
    "AND n.nspname = ANY (pg_catalog.current_schemas(false)) "
    "AND pg_catalog.has_any_column_privilege(c.oid, 'SELECT') "
    "ORDER BY n.nspname, c.relname, a.attnum";

static sluice_status
pin_search_path(PGconn *conn, const char *search_path, sluice_arena *arena, sluice_error *err)
{
    const char *params[] = { search_path };
    PGresult *r = PQexecParams(conn, "SELECT pg_catalog.set_config('search_path', $1, true)", 1,
                               NULL, params, NULL, NULL, 0);
    sluice_status st = SLUICE_OK;
    if (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK)
        st =
            sluice_error_set(err, arena, SLUICE_E_ENGINE, "PostgreSQL refused search_path '%s': %s",
                             search_path, PQerrorMessage(conn));
    PQclear(r);
    return st;
}

static char *field(PGresult *r, int row, int col, sluice_arena *arena)
{
    return PQgetisnull(r, row, col) ? NULL : sluice_arena_strdup(arena, PQgetvalue(r, row, col));
}

/* Counts the relations in r (rows are grouped by relation). */
static size_t relation_count(PGresult *r)
{
    size_t n = 0;
    for (int i = 0; i < PQntuples(r); i++)
        if (i == 0 || strcmp(PQgetvalue(r, i, 0), PQgetvalue(r, i - 1, 0)) != 0 ||
            strcmp(PQgetvalue(r, i, 1), PQgetvalue(r, i - 1, 1)) != 0)
            n++;
    return n;
}

/* Fills the table that starts at row *row and advances *row past its columns. */
static sluice_status fill_table(PGresult *r, int *row, sluice_arena *arena, sluice_schema_table *t)
{
    int first = *row, end = first;
    while (end < PQntuples(r) && strcmp(PQgetvalue(r, end, 0), PQgetvalue(r, first, 0)) == 0 &&
           strcmp(PQgetvalue(r, end, 1), PQgetvalue(r, first, 1)) == 0)
        end++;
    char kind = PQgetvalue(r, first, 2)[0];
    t->schema = field(r, first, 0, arena);
    t->name = field(r, first, 1, arena);
    t->is_view = kind == 'v' || kind == 'm';
    t->approx_rows = t->is_view ? -1 : strtoll(PQgetvalue(r, first, 3), NULL, 10);
    if (t->approx_rows < 0)
        t->approx_rows = -1;
    t->definition = field(r, first, 4, arena);
    t->column_count = (size_t)(end - first);
    t->columns = sluice_arena_calloc(arena, t->column_count, sizeof(*t->columns));
    if (t->schema == NULL || t->name == NULL || t->columns == NULL ||
        (t->is_view && t->definition == NULL))
        return SLUICE_E_NOMEM;
    for (int i = first; i < end; i++) {
        sluice_schema_column *c = &t->columns[i - first];
        c->name = field(r, i, 5, arena);
        c->type = field(r, i, 6, arena);
        c->nullable = PQgetvalue(r, i, 7)[0] == 't';
        if (c->name == NULL || c->type == NULL)
            return SLUICE_E_NOMEM;
    }
    *row = end;
    return SLUICE_OK;
}

static sluice_status fill_schema(PGresult *r, sluice_arena *arena, sluice_schema *out)
{
    out->table_count = relation_count(r);
    out->tables = sluice_arena_calloc(arena, out->table_count + 1, sizeof(*out->tables));
    if (out->tables == NULL)
        return SLUICE_E_NOMEM;
    int row = 0;
    for (size_t t = 0; t < out->table_count; t++) {
        sluice_status st = fill_table(r, &row, arena, &out->tables[t]);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

sluice_status sluice_pg_read_schema(PGconn *conn,
                                    const char *search_path,
                                    sluice_arena *arena,
                                    sluice_schema *out,
                                    sluice_error *err)
{
    sluice_status st =
        sluice_pg_run(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", arena, err);
    if (st == SLUICE_OK)
        st = pin_search_path(conn, search_path, arena, err);
    if (st == SLUICE_OK) {
        PGresult *r = PQexec(conn, catalog_sql);
        if (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK)
            st = sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                  "cannot read the PostgreSQL catalog: %s", PQerrorMessage(conn));
        else
            st = fill_schema(r, arena, out);
        PQclear(r);
    }
    PQclear(PQexec(conn, "ROLLBACK"));
    return st;
}

/* The single text value of a one-row query, or NULL (no row, NULL value, error). */
static char *scalar(PGconn *conn, const char *sql, sluice_arena *arena)
{
    PGresult *r = PQexec(conn, sql);
    char *v = NULL;
    if (r != NULL && PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        v = field(r, 0, 0, arena);
    PQclear(r);
    return v;
}

/* True when a plain transaction lets the role create a table (rolled back at once). */
static bool can_create_table(PGconn *conn, const char *search_path, sluice_arena *arena)
{
    if (sluice_pg_run(conn, "BEGIN", arena, NULL) != SLUICE_OK)
        return false;
    bool created = pin_search_path(conn, search_path, arena, NULL) == SLUICE_OK &&
                   sluice_pg_run(conn, "CREATE TABLE sluice_write_probe (x integer)", arena,
                                 NULL) == SLUICE_OK;
    PQclear(PQexec(conn, "ROLLBACK"));
    return created;
}

const char *sluice_pg_write_probe(PGconn *conn, const char *search_path, sluice_arena *arena)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    const char *super = scalar(conn,
                               "SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = "
                               "current_user",
                               arena);
    if (super != NULL && super[0] == 't')
        sluice_buf_printf(&b, "the role is a superuser (it can read files and run programs); ");
    if (can_create_table(conn, search_path, arena))
        sluice_buf_printf(&b, "a plain transaction could CREATE TABLE (set "
                              "default_transaction_read_only = on and revoke CREATE); ");
    PQclear(PQexec(conn, "BEGIN READ ONLY"));
    if (pin_search_path(conn, search_path, arena, NULL) == SLUICE_OK) {
        const char *tables = scalar(
            conn,
            "SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_catalog.pg_class c "
            "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN "
            "('r','p') AND n.nspname = ANY (pg_catalog.current_schemas(false)) AND "
            "(pg_catalog.has_table_privilege(c.oid, 'INSERT') OR "
            "pg_catalog.has_table_privilege(c.oid, 'UPDATE') OR "
            "pg_catalog.has_table_privilege(c.oid, 'DELETE') OR "
            "pg_catalog.has_table_privilege(c.oid, 'TRUNCATE'))",
            arena);
        if (tables != NULL)
            sluice_buf_printf(&b, "it may INSERT, UPDATE, DELETE or TRUNCATE %s; ", tables);
    }
    PQclear(PQexec(conn, "ROLLBACK"));
    const char *text = sluice_buf_cstr(&b);
    return text != NULL && text[0] != '\0' ? text : NULL;
}
