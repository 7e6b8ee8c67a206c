/*
 * duckdb_catalog_facts.c — primary/foreign keys and enum-like values for code-mode://schema
 * (see duckdb_catalog_facts.h). Why: the model's commonest mistakes are a wrong join key and a
 * wrong literal ('Enterprise' for 'enterprise'); both are in the catalog and the data.
 */
#include "exec/duckdb_catalog_facts.h"

#include "core/buf.h"
#include "core/limits.h"
#include "exec/duckdb_values.h"

#include <string.h>

static sluice_schema_column_notes *
find_column(sluice_schema *s, const char *schema, const char *table, const char *column)
{
    for (size_t i = 0; i < s->table_count; i++) {
        sluice_schema_table *t = &s->tables[i];
        if (s->notes == NULL || strcmp(t->schema, schema) != 0 || strcmp(t->name, table) != 0)
            continue;
        for (size_t c = 0; c < t->column_count; c++)
            if (strcmp(t->columns[c].name, column) == 0)
                return &s->notes[i].columns[c];
    }
    return NULL;
}

sluice_status
sluice_duckdb_schema_keys(duckdb_connection conn, sluice_arena *arena, sluice_schema *s)
{
    duckdb_result res;
    if (duckdb_query(conn,
                     "SELECT schema_name, table_name, constraint_type, "
                     "unnest(constraint_column_names), referenced_table, "
                     "unnest(referenced_column_names) FROM duckdb_constraints() "
                     "WHERE database_name = current_database() "
                     "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')",
                     &res) != DuckDBSuccess) {
        duckdb_destroy_result(&res);
        return SLUICE_OK;
    }
    sluice_status st = SLUICE_OK;
    for (idx_t r = 0; r < duckdb_row_count(&res) && st == SLUICE_OK; r++) {
        char *schema = duckdb_value_varchar(&res, 0, r), *table = duckdb_value_varchar(&res, 1, r);
        char *kind = duckdb_value_varchar(&res, 2, r), *col = duckdb_value_varchar(&res, 3, r);
        char *rtable = duckdb_value_varchar(&res, 4, r), *rcol = duckdb_value_varchar(&res, 5, r);
        sluice_schema_column_notes *c = schema != NULL && table != NULL && col != NULL
                                            ? find_column(s, schema, table, col)
                                            : NULL;
        if (c != NULL && kind != NULL && strcmp(kind, "PRIMARY KEY") == 0)
            c->primary_key = true;
        else if (c != NULL && rtable != NULL && rcol != NULL) {
            c->references = sluice_arena_printf(arena, "%s.%s", rtable, rcol);
            if (c->references == NULL)
                st = SLUICE_E_NOMEM;
        }
        duckdb_free(schema);
        duckdb_free(table);
        duckdb_free(kind);
        duckdb_free(col);
        duckdb_free(rtable);
        duckdb_free(rcol);
    }
    duckdb_destroy_result(&res);
    return st;
}

/* The values of one column as "'a', 'b'" when they are few, short and repeated; NULL else. */
static const char *probe_column(duckdb_connection conn,
                                sluice_arena *arena,
                                const sluice_schema_table *t,
                                const char *column,
                                sluice_status *st)
{
    sluice_buf q;
    sluice_buf_init(&q, arena, 0);
    sluice_buf_puts(&q, "SELECT DISTINCT ");
    sluice_duck_put_ident(&q, column);
    sluice_buf_puts(&q, " FROM ");
    sluice_duck_put_ident(&q, t->schema);
    sluice_buf_putc(&q, '.');
    sluice_duck_put_ident(&q, t->name);
    sluice_buf_puts(&q, " WHERE ");
    sluice_duck_put_ident(&q, column);
    sluice_buf_printf(&q, " IS NOT NULL ORDER BY 1 LIMIT %u", SLUICE_LIMIT_SCHEMA_VALUES + 1);
    if (sluice_buf_status(&q) != SLUICE_OK) {
        *st = SLUICE_E_NOMEM;
        return NULL;
    }
    duckdb_result res;
    if (duckdb_query(conn, q.data, &res) != DuckDBSuccess) {
        duckdb_destroy_result(&res);
        return NULL;
    }
    idx_t n = duckdb_row_count(&res);
    bool enum_like = n > 0 && n <= SLUICE_LIMIT_SCHEMA_VALUES && (int64_t)n * 2 <= t->approx_rows;
    sluice_buf out;
    sluice_buf_init(&out, arena, 0);
    for (idx_t r = 0; enum_like && r < n; r++) {
        char *v = duckdb_value_varchar(&res, 0, r);
        enum_like = v != NULL && strlen(v) <= SLUICE_LIMIT_SCHEMA_VALUE_CHARS &&
                    strchr(v, '\'') == NULL && strchr(v, '\n') == NULL;
        if (enum_like)
            sluice_buf_printf(&out, "%s'%s'", r > 0 ? ", " : "", v);
        duckdb_free(v);
    }
    duckdb_destroy_result(&res);
    if (sluice_buf_status(&out) != SLUICE_OK)
        *st = SLUICE_E_NOMEM;
    return enum_like && *st == SLUICE_OK ? out.data : NULL;
}

sluice_status
sluice_duckdb_schema_values(duckdb_connection conn, sluice_arena *arena, sluice_schema *s)
{
    sluice_status st = SLUICE_OK;
    unsigned probed = 0;
    for (size_t i = 0; i < s->table_count && st == SLUICE_OK; i++) {
        sluice_schema_table *t = &s->tables[i];
        sluice_schema_column_notes *notes = s->notes != NULL ? s->notes[i].columns : NULL;
        if (t->is_view || notes == NULL || t->approx_rows < 0 ||
            t->approx_rows > SLUICE_LIMIT_SCHEMA_VALUES_ROWS)
            continue;
        for (size_t c = 0; c < t->column_count && st == SLUICE_OK; c++) {
            const sluice_schema_column *col = &t->columns[c];
            if (strcmp(col->type, "VARCHAR") != 0 || notes[c].primary_key ||
                probed >= SLUICE_LIMIT_SCHEMA_VALUES_COLUMNS)
                continue;
            probed++;
            notes[c].values = probe_column(conn, arena, t, col->name, &st);
        }
    }
    return st;
}
