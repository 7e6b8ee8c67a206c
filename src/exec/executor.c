/*
 * executor.c — the calls every engine answers through its ops table, and the parts of the schema
 * every engine shares: blocked and hidden marks from config, and the version hash. Which engine
 * a [database] names is engines.c's: this file names none.
 */
#include "exec/executor.h"

#include "core/hash.h"
#include "exec/catalog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct sluice_executor {
    const sluice_executor_ops *ops;
    void *state;
    sluice_engine_kind kind;
    sluice_arena *arena;    /* owns the copied lists below */
    sluice_strlist blocked; /* blocked_fields + sql_blocked_columns */
    sluice_strlist allowed_tables;
    sluice_strlist blocked_tables;
    sluice_exec_catalog *catalog; /* the shared, reloadable catalog (catalog.c) */
};

bool sluice_executor_config_writable(const sluice_config_code_mode *code_mode)
{
    return code_mode != NULL && (code_mode->sql_allow_writes || code_mode->sql_allow_deletes ||
                                 code_mode->sql_allow_ddl);
}

sluice_status
sluice_executor_check_file(const char *path, sluice_arena *err_arena, sluice_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "database file '%s' cannot be opened: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return sluice_error_set(err, err_arena, SLUICE_E_IO, "database '%s' is not a regular file",
                                path);
    return SLUICE_OK;
}

sluice_status sluice_executor_wrap(const sluice_executor_ops *ops,
                                   void *state,
                                   sluice_engine_kind kind,
                                   const sluice_config_code_mode *code_mode,
                                   sluice_executor **out)
{
    *out = NULL;
    sluice_executor *ex = calloc(1, sizeof(*ex));
    sluice_arena *arena = sluice_arena_new();
    if (ex == NULL || arena == NULL)
        goto nomem;
    ex->ops = ops;
    ex->state = state;
    ex->kind = kind;
    ex->arena = arena;
    ex->catalog = sluice_exec_catalog_new();
    if (ex->catalog == NULL)
        goto nomem;
    if (code_mode != NULL) {
        if (sluice_strlist_copy(arena, &ex->blocked, &code_mode->blocked_fields,
                                &code_mode->sql_blocked_columns) != SLUICE_OK ||
            sluice_strlist_copy(arena, &ex->allowed_tables, &code_mode->sql_allowed_tables, NULL) !=
                SLUICE_OK ||
            sluice_strlist_copy(arena, &ex->blocked_tables, &code_mode->sql_blocked_tables, NULL) !=
                SLUICE_OK)
            goto nomem;
    }
    *out = ex;
    return SLUICE_OK;
nomem:
    if (ex != NULL)
        sluice_exec_catalog_free(ex->catalog);
    sluice_arena_free(arena);
    free(ex);
    ops->close(state);
    return SLUICE_E_NOMEM;
}

sluice_exec_limits sluice_exec_limits_from_config(const sluice_config_code_mode *code_mode)
{
    sluice_exec_limits limits = { .timeout_setting = "execution_timeout_seconds" };
    if (code_mode == NULL)
        return limits;
    limits.timeout_ms = code_mode->execution_timeout_seconds * 1000;
    limits.max_rows = code_mode->sql_max_rows;
    limits.max_bytes = code_mode->max_result_bytes > 0 ? (size_t)code_mode->max_result_bytes : 0;
    limits.max_api_calls = code_mode->max_api_calls;
    limits.max_loop_iterations = code_mode->max_loop_iterations;
    return limits;
}

void *sluice_executor_state(const sluice_executor *ex)
{
    return ex->state;
}

bool sluice_exec_list_has_column(const sluice_strlist *list, const char *table, const char *column)
{
    for (size_t i = 0; i < list->count; i++) {
        const char *item = list->items[i];
        const char *dot = strrchr(item, '.');
        if (dot == NULL) {
            if (strcasecmp(item, column) == 0)
                return true;
            continue;
        }
        if (strcasecmp(dot + 1, column) != 0 || table == NULL)
            continue;
        /* the part before the last dot must end with the table name (after an optional schema) */
        size_t tlen = strlen(table);
        size_t plen = (size_t)(dot - item);
        if (plen >= tlen && strncasecmp(dot - tlen, table, tlen) == 0 &&
            (plen == tlen || item[plen - tlen - 1] == '.'))
            return true;
    }
    return false;
}

static bool list_has_table(const sluice_strlist *list, const char *table)
{
    for (size_t i = 0; i < list->count; i++) {
        const char *item = list->items[i];
        const char *dot = strrchr(item, '.');
        if (strcasecmp(dot != NULL ? dot + 1 : item, table) == 0)
            return true;
    }
    return false;
}

bool sluice_executor_column_blocked(const sluice_executor *ex,
                                    const char *table,
                                    const char *column)
{
    return ex != NULL && column != NULL && sluice_exec_list_has_column(&ex->blocked, table, column);
}

bool sluice_executor_table_hidden(const sluice_executor *ex, const char *table)
{
    if (ex == NULL || table == NULL)
        return false;
    if (ex->allowed_tables.count > 0 && !list_has_table(&ex->allowed_tables, table))
        return true;
    return list_has_table(&ex->blocked_tables, table);
}

static void hash_str(sluice_hash_state *st, const char *s)
{
    if (s != NULL)
        sluice_hash_update(st, s, strlen(s));
    sluice_hash_update(st, "", 1); /* the NUL: names end where they end */
}

/* Marks from config, then SHA-256 over names and types (exposure marks included, so a config
 * change that hides a column also changes the context a token was issued for). */
static void schema_finish(const sluice_executor *ex, sluice_schema *schema)
{
    sluice_hash_state st;
    sluice_hash_start(&st);
    /* an engine's own version (OpenAPI: the whole spec, bodies and responses included) */
    hash_str(&st, schema->version_hash);
    for (size_t t = 0; t < schema->table_count; t++) {
        sluice_schema_table *table = &schema->tables[t];
        table->hidden = sluice_executor_table_hidden(ex, table->name);
        hash_str(&st, table->schema);
        hash_str(&st, table->name);
        hash_str(&st, table->is_view ? "view" : "table");
        hash_str(&st, table->hidden ? "hidden" : "");
        for (size_t c = 0; c < table->column_count; c++) {
            sluice_schema_column *col = &table->columns[c];
            /* an engine's own mark stays (GraphQL: graphql_blocked_fields) */
            col->blocked =
                col->blocked || sluice_executor_column_blocked(ex, table->name, col->name);
            hash_str(&st, col->name);
            hash_str(&st, col->type);
            hash_str(&st, col->blocked ? "blocked" : "");
        }
        hash_str(&st, "");
    }
    uint8_t digest[SLUICE_HASH_BYTES];
    _Static_assert(sizeof schema->version_hash == SLUICE_HASH_HEX_CHARS + 1, "hex and its NUL");
    sluice_hash_finish(&st, digest);
    sluice_hash_hex(digest, sizeof digest, schema->version_hash);
}

sluice_status sluice_executor_schema(sluice_executor *ex,
                                     sluice_arena *arena,
                                     sluice_schema *out,
                                     sluice_error *err)
{
    memset(out, 0, sizeof(*out));
    sluice_status st = ex->ops->schema(ex, arena, out, err);
    if (st == SLUICE_OK)
        schema_finish(ex, out);
    return st;
}

/* The catalog holder's reader: the engine's schema with the marks above. */
static sluice_status
read_catalog(void *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    return sluice_executor_schema(ex, arena, out, err);
}

sluice_status sluice_executor_catalog(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_schema **out,
                                      sluice_error *err)
{
    return sluice_exec_catalog_take(ex != NULL ? ex->catalog : NULL, read_catalog, ex, arena, out,
                                    err);
}

bool sluice_executor_opens_on_first_use(const sluice_executor *ex)
{
    return ex != NULL && ex->ops->opens_on_first_use;
}

bool sluice_executor_data_fixed(const sluice_executor *ex)
{
    return ex != NULL && ex->ops->data_fixed != NULL && ex->ops->data_fixed(ex);
}

sluice_status sluice_executor_bind_catalog(sluice_executor *ex,
                                           void **out,
                                           sluice_arena *arena,
                                           sluice_error *err)
{
    *out = NULL;
    if (ex == NULL || ex->ops->bind_catalog == NULL)
        return SLUICE_OK;
    return ex->ops->bind_catalog(ex, out, arena, err);
}

void *sluice_executor_bind_idle(sluice_executor *ex)
{
    return ex != NULL && ex->ops->bind_idle != NULL ? ex->ops->bind_idle(ex) : NULL;
}

#ifndef SLUICE_DUCKDB_CPP
/* Without the bind-once unit (exec/duckdb_plan.cpp defines these otherwise) the caller runs
 * json_serialize_* as a query. */
sluice_status sluice_executor_bind_tree(void *conn,
                                        const char *sql,
                                        sluice_bind_tree which,
                                        sluice_arena *arena,
                                        json_t **out,
                                        const char **raw,
                                        sluice_error *err)
{
    (void)conn, (void)sql, (void)which, (void)arena, (void)out, (void)raw, (void)err;
    return SLUICE_E_UNSUPPORTED;
}

sluice_status sluice_executor_bind_parse(void *conn,
                                         const char *sql,
                                         sluice_arena *arena,
                                         sluice_bound_statement **out,
                                         sluice_error *err)
{
    (void)conn, (void)sql, (void)arena, (void)out, (void)err;
    return SLUICE_E_UNSUPPORTED;
}

sluice_status sluice_executor_bind_plan(void *conn,
                                        sluice_bound_statement *bound,
                                        sluice_arena *arena,
                                        sluice_error *err)
{
    (void)conn, (void)bound, (void)arena, (void)err;
    return SLUICE_E_UNSUPPORTED;
}
#endif

sluice_status sluice_executor_engine_reads(sluice_executor *ex,
                                           sluice_arena *arena,
                                           const char *code,
                                           size_t code_len,
                                           sluice_exec_reads *out,
                                           sluice_error *err)
{
    memset(out, 0, sizeof(*out));
    if (ex == NULL || ex->ops->engine_reads == NULL)
        return SLUICE_E_UNSUPPORTED;
    return ex->ops->engine_reads(ex, arena, code, code_len, out, err);
}

sluice_status sluice_executor_explain(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_exec_request *req,
                                      const char **plan_json,
                                      sluice_error *err)
{
    *plan_json = NULL;
    if (ex == NULL || ex->ops->explain == NULL)
        return SLUICE_E_UNSUPPORTED;
    return ex->ops->explain(ex, arena, req, plan_json, err);
}

sluice_status sluice_executor_execute(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_exec_request *req,
                                      sluice_exec_result *out,
                                      sluice_error *err)
{
    memset(out, 0, sizeof(*out));
    if (req->code == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "no code to run");
    if (req->variables != NULL && !json_is_object(req->variables))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "variables must be a JSON object of name -> value");
    if (memchr(req->code, '\0', req->code_len) != NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID, "the code contains a NUL byte");
    return ex->ops->execute(ex, arena, req, out, err);
}

const char *sluice_executor_engine_name(const sluice_executor *ex)
{
    return ex->ops->name;
}

sluice_engine_kind sluice_executor_engine(const sluice_executor *ex)
{
    return ex->kind;
}

void sluice_executor_close(sluice_executor *ex)
{
    if (ex == NULL)
        return;
    sluice_exec_catalog_free(ex->catalog);
    ex->ops->close(ex->state);
    sluice_arena_free(ex->arena);
    free(ex);
}
