/*
 * duckdb_scratch.c — session tables of a query-mode scratch database (see exec/scratch.h): DDL
 * from checked identifiers and a fixed type list, rows through duckdb_appender.
 *
 * Every public call is one fork-gate region (exec/fork_gate.h); a table's connection and appender
 * stay open between calls, but no DuckDB work runs then.
 * Does not own: opening the database (exec/duckdb.c, beside the hardening list it reuses).
 */
#include "core/buf.h"
#include "exec/duckdb.h"
#include "exec/duckdb_connect.h"
#include "exec/fork_gate.h"
#include "exec/scratch.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sluice_scratch_table {
    sluice_executor *ex;
    sluice_arena *arena;
    char *name;
    size_t column_count;
    duckdb_connection conn;
    duckdb_appender app;
    int64_t rows;
    bool broken; /* an append failed: the appender is invalid */
    bool done;
};

bool sluice_scratch_name_ok(const char *name)
{
    if (name == NULL || name[0] == '\0' || strlen(name) > SLUICE_SCRATCH_NAME_MAX ||
        isdigit((unsigned char)name[0]))
        return false;
    for (const char *p = name; *p != '\0'; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

/* DECIMAL(p,s) with 1 <= p <= 38 and 0 <= s <= p, nothing else in the parentheses. */
static bool decimal_ok(const char *t)
{
    if (strncasecmp(t, "DECIMAL(", 8) != 0)
        return false;
    char *end = NULL;
    long p = strtol(t + 8, &end, 10);
    if (end == t + 8 || *end != ',')
        return false;
    const char *s_at = end + 1;
    while (*s_at == ' ')
        s_at++;
    long s = strtol(s_at, &end, 10);
    return end != s_at && strcmp(end, ")") == 0 && p >= 1 && p <= 38 && s >= 0 && s <= p;
}

bool sluice_scratch_type_ok(const char *type)
{
    static const char *const plain[] = { "VARCHAR", "BIGINT",    "INTEGER", "DOUBLE",
                                         "BOOLEAN", "TIMESTAMP", "DATE" };
    if (type == NULL)
        return false;
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcasecmp(type, plain[i]) == 0)
            return true;
    return decimal_ok(type);
}

/* Names passed sluice_scratch_name_ok, so quoting is belt and braces. */
static void quoted(sluice_buf *b, const char *name)
{
    sluice_buf_printf(b, "\"%s\"", name);
}

static sluice_status
run_ddl(duckdb_connection conn, const char *sql, sluice_arena *arena, sluice_error *err)
{
    duckdb_result res;
    if (duckdb_query(conn, sql, &res) == DuckDBSuccess) {
        duckdb_destroy_result(&res);
        return SLUICE_OK;
    }
    sluice_status st = sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                        "the session database refused a table change: %s",
                                        duckdb_result_error(&res));
    duckdb_destroy_result(&res);
    return st;
}

static char *
create_sql(sluice_arena *arena, const char *table, const sluice_exec_column *cols, size_t n)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_puts(&b, "CREATE TABLE ");
    quoted(&b, table);
    sluice_buf_puts(&b, " (");
    for (size_t i = 0; i < n; i++) {
        sluice_buf_puts(&b, i > 0 ? ", " : "");
        quoted(&b, cols[i].name);
        sluice_buf_printf(&b, " %s", cols[i].type);
    }
    sluice_buf_putc(&b, ')');
    return sluice_buf_status(&b) == SLUICE_OK ? (char *)sluice_buf_cstr(&b) : NULL;
}

static sluice_status
check_columns(const sluice_exec_column *cols, size_t n, sluice_arena *arena, sluice_error *err)
{
    if (n == 0)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "a session table needs a column");
    for (size_t i = 0; i < n; i++) {
        if (!sluice_scratch_name_ok(cols[i].name))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "column name '%.64s' is not a plain identifier "
                                    "([A-Za-z_][A-Za-z0-9_]*)",
                                    cols[i].name != NULL ? cols[i].name : "");
        if (!sluice_scratch_type_ok(cols[i].type))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "column '%s' has type '%.64s'; use VARCHAR, BIGINT, INTEGER, "
                                    "DOUBLE, BOOLEAN, DATE, TIMESTAMP or DECIMAL(p,s)",
                                    cols[i].name, cols[i].type != NULL ? cols[i].type : "");
    }
    return SLUICE_OK;
}

static void table_release(void *data)
{
    sluice_scratch_table *t = data;
    sluice_fork_gate_enter();
    if (t->app != NULL)
        duckdb_appender_destroy(&t->app);
    if (t->conn != NULL)
        duckdb_disconnect(&t->conn);
    sluice_fork_gate_leave();
}

static sluice_status
drop_table(sluice_executor *ex, const char *table, sluice_arena *arena, sluice_error *err)
{
    if (!sluice_scratch_name_ok(table))
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "'%.64s' is not a table name",
                                table != NULL ? table : "");
    duckdb_connection conn;
    sluice_status connected =
        sluice_exec_duckdb_connect(sluice_exec_duckdb_database(ex), true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    char *sql = sluice_arena_printf(arena, "DROP TABLE IF EXISTS \"%s\"", table);
    sluice_status st = sql != NULL ? run_ddl(conn, sql, arena, err) : SLUICE_E_NOMEM;
    duckdb_disconnect(&conn);
    return st;
}

static sluice_status create_table(sluice_executor *ex,
                                  const char *table,
                                  const sluice_exec_column *columns,
                                  size_t column_count,
                                  sluice_arena *arena,
                                  sluice_scratch_table **out,
                                  sluice_error *err)
{
    *out = NULL;
    sluice_status st = check_columns(columns, column_count, arena, err);
    if (st == SLUICE_OK)
        st = drop_table(ex, table, arena, err);
    if (st != SLUICE_OK)
        return st;
    sluice_scratch_table *t = sluice_arena_calloc(arena, 1, sizeof(*t));
    char *sql = create_sql(arena, table, columns, column_count);
    if (t == NULL || sql == NULL || (t->name = sluice_arena_strdup(arena, table)) == NULL ||
        sluice_arena_cleanup_add(arena, table_release, t) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    t->ex = ex;
    t->arena = arena;
    t->column_count = column_count;
    st = sluice_exec_duckdb_connect(sluice_exec_duckdb_database(ex), true, &t->conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    st = run_ddl(t->conn, sql, arena, err);
    if (st == SLUICE_OK && duckdb_appender_create(t->conn, NULL, table, &t->app) != DuckDBSuccess)
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not open an appender on %s",
                              table);
    if (st != SLUICE_OK)
        return st;
    *out = t;
    return SLUICE_OK;
}

static duckdb_state append_value(duckdb_appender app, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
        return duckdb_append_null(app);
    case JSON_TRUE:
    case JSON_FALSE:
        return duckdb_append_bool(app, json_is_true(v));
    case JSON_INTEGER:
        return duckdb_append_int64(app, (int64_t)json_integer_value(v));
    case JSON_REAL:
        return duckdb_append_double(app, json_real_value(v));
    case JSON_STRING:
        return duckdb_append_varchar_length(app, json_string_value(v), json_string_length(v));
    case JSON_OBJECT:
    case JSON_ARRAY: {
        char *text = json_dumps(v, JSON_COMPACT);
        duckdb_state s = text != NULL ? duckdb_append_varchar(app, text) : DuckDBError;
        free(text);
        return s;
    }
    }
    return DuckDBError;
}

static sluice_status append_row(sluice_scratch_table *t, const json_t *row, sluice_error *err)
{
    if (t->broken || t->done)
        return sluice_error_set(err, t->arena, SLUICE_E_INVALID,
                                "the table %s is no longer being loaded", t->name);
    if (!json_is_array(row) || json_array_size(row) != t->column_count)
        return sluice_error_set(err, t->arena, SLUICE_E_INVALID,
                                "row %lld of %s has %zu values, "
                                "expected %zu",
                                (long long)t->rows + 1, t->name, json_array_size(row),
                                t->column_count);
    for (size_t i = 0; i < t->column_count; i++) {
        if (append_value(t->app, json_array_get(row, i)) != DuckDBSuccess) {
            t->broken = true;
            const char *why = duckdb_appender_error(t->app);
            return sluice_error_set(err, t->arena, SLUICE_E_INVALID,
                                    "row %lld of %s, column %zu: the value does not fit the "
                                    "column's type (%s)",
                                    (long long)t->rows + 1, t->name, i + 1,
                                    why != NULL ? why : "conversion failed");
        }
    }
    if (duckdb_appender_end_row(t->app) != DuckDBSuccess) {
        t->broken = true;
        return sluice_error_set(err, t->arena, SLUICE_E_INVALID, "row %lld of %s was refused",
                                (long long)t->rows + 1, t->name);
    }
    t->rows++;
    return SLUICE_OK;
}

static sluice_status
append_chunk(sluice_scratch_table *t, duckdb_data_chunk chunk, sluice_error *err)
{
    if (t->broken || t->done)
        return sluice_error_set(err, t->arena, SLUICE_E_INVALID,
                                "the table %s is no longer being loaded", t->name);
    if (duckdb_append_data_chunk(t->app, chunk) != DuckDBSuccess) {
        t->broken = true;
        const char *why = duckdb_appender_error(t->app);
        return sluice_error_set(err, t->arena, SLUICE_E_INVALID, "loading %s failed: %s", t->name,
                                why != NULL ? why : "the engine refused the rows");
    }
    t->rows += (int64_t)duckdb_data_chunk_get_size(chunk);
    return SLUICE_OK;
}

static sluice_status finish_table(sluice_scratch_table *t, bool keep, sluice_error *err)
{
    if (t == NULL || t->done)
        return SLUICE_OK;
    t->done = true;
    sluice_status st = SLUICE_OK;
    if (keep && !t->broken && duckdb_appender_close(t->app) != DuckDBSuccess) {
        const char *why = duckdb_appender_error(t->app);
        st = sluice_error_set(err, t->arena, SLUICE_E_INVALID, "loading %s failed: %s", t->name,
                              why != NULL ? why : "the engine refused the rows");
    }
    duckdb_appender_destroy(&t->app);
    t->app = NULL;
    if (!keep || t->broken || st != SLUICE_OK) {
        char *sql = sluice_arena_printf(t->arena, "DROP TABLE IF EXISTS \"%s\"", t->name);
        if (sql != NULL)
            run_ddl(t->conn, sql, t->arena, NULL);
    }
    duckdb_disconnect(&t->conn);
    t->conn = NULL;
    return st;
}

static void json_decref_cleanup(void *p)
{
    json_decref(p);
}

static sluice_status scratch_parse(
    sluice_executor *ex, const char *sql, sluice_arena *arena, json_t **out, sluice_error *err)
{
    *out = NULL;
    duckdb_connection conn;
    sluice_status connected =
        sluice_exec_duckdb_connect(sluice_exec_duckdb_database(ex), true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    sluice_status st = SLUICE_OK;
    if (duckdb_prepare(conn,
                       "SELECT json_serialize_sql($1::VARCHAR, skip_null := true, "
                       "skip_empty := true)",
                       &ps) != DuckDBSuccess ||
        duckdb_bind_varchar(ps, 1, sql) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "the SQL parser is not available");
    } else if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "the SQL parser failed");
        duckdb_destroy_result(&res);
    } else {
        char *text = duckdb_row_count(&res) == 1 ? duckdb_value_varchar(&res, 0, 0) : NULL;
        json_t *doc = text != NULL ? json_loads(text, JSON_DECODE_INT_AS_REAL, NULL) : NULL;
        duckdb_free(text);
        duckdb_destroy_result(&res);
        const json_t *stmts = json_object_get(doc, "statements");
        json_t *node =
            json_array_size(stmts) == 1 ? json_object_get(json_array_get(stmts, 0), "node") : NULL;
        if (node != NULL && !json_is_true(json_object_get(doc, "error"))) {
            *out = json_incref(node);
            /* on failure the cleanup has already dropped our reference (arena.h) */
            if (sluice_arena_cleanup_add(arena, json_decref_cleanup, *out) != 0) {
                *out = NULL;
                st = SLUICE_E_NOMEM;
            }
        }
        json_decref(doc);
    }
    duckdb_destroy_prepare(&ps);
    duckdb_disconnect(&conn);
    return st;
}

static bool filter_ok(const sluice_scratch_filter *f, size_t *bound)
{
    static const char *const ops[] = { "=", ">=", ">", "<=", "<" };
    bool op = false;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        op = op || (f->op != NULL && strcmp(f->op, ops[i]) == 0);
    *bound += f->value_count;
    return op && sluice_scratch_name_ok(f->column) && sluice_scratch_type_ok(f->type) &&
           f->value_count > 0 && (f->value_count == 1 || strcmp(f->op, "=") == 0);
}

/* SELECT DISTINCT ... WHERE "c" op CAST($n AS T) AND "d" IN (CAST($m AS U), ...): identifiers
 * and types checked, values as parameters. */
static const char *distinct_sql(sluice_arena *arena,
                                const char *table,
                                const char *column,
                                const sluice_scratch_filter *filters,
                                size_t n,
                                size_t max)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_printf(&b,
                      "SELECT DISTINCT CAST(\"%s\" AS VARCHAR) AS v FROM \"%s\" WHERE \"%s\" IS "
                      "NOT NULL",
                      column, table, column);
    size_t param = 1;
    for (size_t i = 0; i < n; i++) {
        const sluice_scratch_filter *f = &filters[i];
        sluice_buf_printf(&b, " AND \"%s\" %s ", f->column, f->value_count > 1 ? "IN" : f->op);
        sluice_buf_puts(&b, f->value_count > 1 ? "(" : "");
        for (size_t v = 0; v < f->value_count; v++)
            sluice_buf_printf(&b, "%sTRY_CAST($%zu AS %s)", v > 0 ? ", " : "", param++, f->type);
        sluice_buf_puts(&b, f->value_count > 1 ? ")" : "");
    }
    sluice_buf_printf(&b, " ORDER BY v LIMIT %zu", max + 1);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

static sluice_status
bind_filters(duckdb_prepared_statement ps, const sluice_scratch_filter *filters, size_t n)
{
    idx_t param = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t v = 0; v < filters[i].value_count; v++)
            if (duckdb_bind_varchar(ps, param++, filters[i].values[v]) != DuckDBSuccess)
                return SLUICE_E_ENGINE;
    return SLUICE_OK;
}

static sluice_status
collect_values(duckdb_result *res, size_t max, sluice_arena *arena, const char **out, size_t *count)
{
    idx_t rows = duckdb_row_count(res);
    for (idx_t r = 0; r < rows && r <= max; r++) {
        char *v = duckdb_value_varchar(res, 0, r);
        out[r] = v != NULL ? sluice_arena_strdup(arena, v) : NULL;
        duckdb_free(v);
        if (out[r] == NULL)
            return SLUICE_E_NOMEM;
    }
    *count = rows <= max + 1 ? (size_t)rows : max + 1;
    return SLUICE_OK;
}

static sluice_status scratch_distinct(sluice_executor *ex,
                                      const char *table,
                                      const char *column,
                                      const sluice_scratch_filter *filters,
                                      size_t filter_count,
                                      size_t max,
                                      sluice_arena *arena,
                                      const char ***values,
                                      size_t *count,
                                      sluice_error *err)
{
    *values = NULL;
    *count = 0;
    bool ok = sluice_scratch_name_ok(table) && sluice_scratch_name_ok(column);
    size_t bound = 0;
    for (size_t i = 0; ok && i < filter_count; i++)
        ok = filter_ok(&filters[i], &bound);
    if (!ok)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "'%.64s.%.64s' or one of its filters is not valid",
                                table != NULL ? table : "", column != NULL ? column : "");
    if (filter_count > SLUICE_SCRATCH_MAX_FILTERS || bound > SLUICE_SCRATCH_MAX_BOUND)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "reading %s.%s takes at most %u filters and %u values", table,
                                column, SLUICE_SCRATCH_MAX_FILTERS, SLUICE_SCRATCH_MAX_BOUND);
    const char *sql = distinct_sql(arena, table, column, filters, filter_count, max);
    const char **out = sluice_arena_calloc(arena, max + 2, sizeof(*out));
    if (sql == NULL || out == NULL)
        return SLUICE_E_NOMEM;
    duckdb_connection conn;
    sluice_status connected =
        sluice_exec_duckdb_connect(sluice_exec_duckdb_database(ex), true, &conn, arena, err);
    if (connected != SLUICE_OK)
        return connected;
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    sluice_status st = SLUICE_OK;
    if (duckdb_prepare(conn, sql, &ps) != DuckDBSuccess ||
        bind_filters(ps, filters, filter_count) != SLUICE_OK) {
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot read %s.%s: %s", table, column,
                              ps != NULL ? duckdb_prepare_error(ps) : "no statement");
    } else if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot read %s.%s: %s", table, column,
                              duckdb_result_error(&res));
        duckdb_destroy_result(&res);
    } else {
        st = collect_values(&res, max, arena, out, count);
        duckdb_destroy_result(&res);
    }
    duckdb_destroy_prepare(&ps);
    duckdb_disconnect(&conn);
    *values = out;
    return st;
}

/* ---- the public calls: each one fork-gate region ------------------------------------------ */

sluice_status
sluice_scratch_drop(sluice_executor *ex, const char *table, sluice_arena *arena, sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = drop_table(ex, table, arena, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status sluice_scratch_create(sluice_executor *ex,
                                    const char *table,
                                    const sluice_exec_column *columns,
                                    size_t column_count,
                                    sluice_arena *arena,
                                    sluice_scratch_table **out,
                                    sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = create_table(ex, table, columns, column_count, arena, out, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status sluice_scratch_append(sluice_scratch_table *t, const json_t *row, sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = append_row(t, row, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status sluice_scratch_finish(sluice_scratch_table *t, bool keep, sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = finish_table(t, keep, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status
sluice_scratch_append_chunk(sluice_scratch_table *t, duckdb_data_chunk chunk, sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = append_chunk(t, chunk, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status sluice_scratch_parse(
    sluice_executor *ex, const char *sql, sluice_arena *arena, json_t **out, sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st = scratch_parse(ex, sql, arena, out, err);
    sluice_fork_gate_leave();
    return st;
}

sluice_status sluice_scratch_distinct(sluice_executor *ex,
                                      const char *table,
                                      const char *column,
                                      const sluice_scratch_filter *filters,
                                      size_t filter_count,
                                      size_t max,
                                      sluice_arena *arena,
                                      const char ***values,
                                      size_t *count,
                                      sluice_error *err)
{
    sluice_fork_gate_enter();
    sluice_status st =
        scratch_distinct(ex, table, column, filters, filter_count, max, arena, values, count, err);
    sluice_fork_gate_leave();
    return st;
}
