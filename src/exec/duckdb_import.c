/*
 * duckdb_import.c — file sources for query mode (see exec/scratch.h, sluice_scratch_import_file):
 * a CSV, Parquet or JSON file read by a transient, locked DuckDB allowed only that file, its
 * chunks appended to the session table.
 *
 * Owns: the reader engine's settings (in memory, one thread, no extension loading, allowed_paths
 * the one file, external access off, configuration locked — all before the read), the column
 * list and types, the row cap. Does not own: the session database (exec/duckdb.c), which file
 * (config), the table's lifetime (querymode/).
 */
#include "core/buf.h"
#include "exec/duckdb.h"
#include "exec/duckdb_connect.h"
#include "exec/scratch.h"
#include "syntax/sqltree/duckdb_type.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *reader_of(const char *format, const char *path)
{
    if (strcmp(format, "auto") == 0) {
        const char *dot = strrchr(path, '.');
        format = dot == NULL                        ? ""
                 : strcasecmp(dot, ".parquet") == 0 ? "parquet"
                 : strcasecmp(dot, ".json") == 0 || strcasecmp(dot, ".jsonl") == 0 ||
                         strcasecmp(dot, ".ndjson") == 0
                     ? "json"
                 : strcasecmp(dot, ".csv") == 0 || strcasecmp(dot, ".tsv") == 0 ? "csv"
                                                                                : "";
    }
    return strcmp(format, "csv") == 0       ? "read_csv"
           : strcmp(format, "parquet") == 0 ? "read_parquet"
           : strcmp(format, "json") == 0    ? "read_json"
                                            : NULL;
}

static bool run(duckdb_connection conn, const char *sql)
{
    duckdb_result res;
    bool ok = duckdb_query(conn, sql, &res) == DuckDBSuccess;
    duckdb_destroy_result(&res);
    return ok;
}

/* The transient reader: nothing but path is reachable once it is locked. */
static sluice_status open_reader(const char *path,
                                 duckdb_database *db,
                                 duckdb_connection *conn,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    duckdb_config cfg;
    if (duckdb_create_config(&cfg) != DuckDBSuccess)
        return SLUICE_E_NOMEM;
    duckdb_set_config(cfg, "threads", "1");
    duckdb_set_config(cfg, "autoload_known_extensions", "false");
    duckdb_set_config(cfg, "autoinstall_known_extensions", "false");
    duckdb_set_config(cfg, "allow_community_extensions", "false");
    char *open_err = NULL;
    duckdb_state ok = duckdb_open_ext(NULL, db, cfg, &open_err);
    duckdb_destroy_config(&cfg);
    duckdb_free(open_err);
    if (ok != DuckDBSuccess)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not open the file reader");
    char *allow = sluice_arena_printf(arena, "SET allowed_paths = ['%s']", path);
    /* Plain-text errors: the reader's are quoted to the caller as DuckDB wrote them. */
    if (allow == NULL || sluice_exec_duckdb_connect(*db, false, conn, arena, err) != SLUICE_OK ||
        !run(*conn, allow) || !run(*conn, "SET enable_external_access = false") ||
        !run(*conn, "SET lock_configuration = true")) {
        if (*conn != NULL)
            duckdb_disconnect(conn);
        duckdb_close(db);
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not lock the file reader");
    }
    return SLUICE_OK;
}

/* A session type for a column of the file (VARCHAR when none fits: the value is cast). */
static const char *session_type(duckdb_logical_type t, sluice_arena *arena)
{
    sluice_duck_type_info info = sluice_duck_type(duckdb_get_type_id(t));
    switch (info.kind) {
    case SLUICE_DUCK_BOOLEAN:
        return "BOOLEAN";
    case SLUICE_DUCK_INTEGER:
        return info.flags & SLUICE_DUCK_INT32   ? "INTEGER"
               : info.flags & SLUICE_DUCK_INT64 ? "BIGINT"
                                                : "VARCHAR";
    case SLUICE_DUCK_FLOAT:
        return "DOUBLE";
    case SLUICE_DUCK_DATE:
        return "DATE";
    case SLUICE_DUCK_TIMESTAMP:
        return info.flags & SLUICE_DUCK_PLAIN_TS ? "TIMESTAMP" : "VARCHAR";
    case SLUICE_DUCK_DECIMAL:
        return sluice_arena_printf(arena, "DECIMAL(%u,%u)", duckdb_decimal_width(t),
                                   duckdb_decimal_scale(t));
    default:
        return "VARCHAR";
    }
}

/* The file's own columns, from an empty read. */
static sluice_status file_columns(duckdb_connection conn,
                                  const char *reader,
                                  sluice_scratch_import *im,
                                  sluice_arena *arena,
                                  sluice_error *err)
{
    char *sql = sluice_arena_printf(arena, "SELECT * FROM %s($1) LIMIT 0", reader);
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    if (sql == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = SLUICE_OK;
    if (duckdb_prepare(conn, sql, &ps) != DuckDBSuccess ||
        duckdb_bind_varchar(ps, 1, im->path) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_INVALID, "cannot read %s: %s", im->path,
                              ps != NULL ? duckdb_prepare_error(ps) : "no statement");
    } else if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_INVALID, "cannot read %s: %s", im->path,
                              duckdb_result_error(&res));
        duckdb_destroy_result(&res);
    } else {
        idx_t n = duckdb_column_count(&res);
        im->out_columns = sluice_arena_calloc(arena, n + 1, sizeof(*im->out_columns));
        for (idx_t i = 0; im->out_columns != NULL && i < n; i++) {
            const char *name = duckdb_column_name(&res, i);
            if (!sluice_scratch_name_ok(name))
                continue;
            duckdb_logical_type t = duckdb_column_logical_type(&res, i);
            sluice_exec_column *c = &im->out_columns[im->out_column_count++];
            c->name = sluice_arena_strdup(arena, name);
            c->type = session_type(t, arena);
            duckdb_destroy_logical_type(&t);
        }
        duckdb_destroy_result(&res);
        if (im->out_columns == NULL)
            st = SLUICE_E_NOMEM;
        else if (im->out_column_count == 0)
            st = sluice_error_set(err, arena, SLUICE_E_INVALID,
                                  "%s has no column usable as a SQL identifier; declare "
                                  "[[sources.columns]]",
                                  im->path);
    }
    duckdb_destroy_prepare(&ps);
    return st;
}

static const char *
select_sql(const char *reader, const sluice_scratch_import *im, sluice_arena *arena)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_puts(&b, "SELECT ");
    for (size_t i = 0; i < im->out_column_count; i++)
        sluice_buf_printf(&b, "%sCAST(\"%s\" AS %s)", i > 0 ? ", " : "", im->out_columns[i].name,
                          im->out_columns[i].type);
    sluice_buf_printf(&b, " FROM %s($1) LIMIT %lld", reader, (long long)im->max_rows + 1);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* Streams the rows into t, stopping at max_rows (truncated). */
static sluice_status
copy_rows(duckdb_result *res, sluice_scratch_table *t, sluice_scratch_import *im, sluice_error *err)
{
    sluice_status st = SLUICE_OK;
    duckdb_data_chunk chunk;
    while (st == SLUICE_OK && (chunk = duckdb_fetch_chunk(*res)) != NULL) {
        idx_t n = duckdb_data_chunk_get_size(chunk);
        if (im->rows + (int64_t)n > im->max_rows) {
            n = (idx_t)(im->max_rows - im->rows);
            duckdb_data_chunk_set_size(chunk, n);
            im->truncated = true;
        }
        if (n > 0)
            st = sluice_scratch_append_chunk(t, chunk, err);
        im->rows += (int64_t)n;
        duckdb_destroy_data_chunk(&chunk);
        if (im->truncated)
            break;
    }
    return st;
}

static sluice_status
check_file(const sluice_scratch_import *im, sluice_arena *arena, sluice_error *err)
{
    if (im->path == NULL || im->path[0] != '/' || strpbrk(im->path, "'\\") != NULL ||
        strlen(im->path) >= SLUICE_SCRATCH_PATH_MAX)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "file source path must be absolute, without quotes or "
                                "backslashes, shorter than %u bytes",
                                SLUICE_SCRATCH_PATH_MAX);
    struct stat sb;
    if (stat(im->path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return sluice_error_set(err, arena, SLUICE_E_IO, "cannot read file source %s: %s", im->path,
                                errno != 0 ? strerror(errno) : "not a regular file");
    if ((size_t)sb.st_size > im->max_bytes)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "%s is %lld bytes, more than max_load_bytes = %zu", im->path,
                                (long long)sb.st_size, im->max_bytes);
    return SLUICE_OK;
}

static sluice_status import_with(duckdb_connection conn,
                                 sluice_executor *ex,
                                 const char *table,
                                 const char *reader,
                                 sluice_scratch_import *im,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    sluice_status st = SLUICE_OK;
    if (im->columns != NULL && im->column_count > 0) {
        im->out_columns = (sluice_exec_column *)im->columns;
        im->out_column_count = im->column_count;
    } else {
        st = file_columns(conn, reader, im, arena, err);
    }
    const char *sql = st == SLUICE_OK ? select_sql(reader, im, arena) : NULL;
    if (st == SLUICE_OK && sql == NULL)
        st = SLUICE_E_NOMEM;
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    sluice_scratch_table *t = NULL;
    if (st == SLUICE_OK && (duckdb_prepare(conn, sql, &ps) != DuckDBSuccess ||
                            duckdb_bind_varchar(ps, 1, im->path) != DuckDBSuccess))
        st = sluice_error_set(err, arena, SLUICE_E_INVALID, "cannot read %s: %s", im->path,
                              ps != NULL ? duckdb_prepare_error(ps) : "no statement");
    if (st == SLUICE_OK && duckdb_execute_prepared_streaming(ps, &res) != DuckDBSuccess) {
        st = sluice_error_set(err, arena, SLUICE_E_INVALID, "cannot read %s: %s", im->path,
                              duckdb_result_error(&res));
        duckdb_destroy_result(&res);
    } else if (st == SLUICE_OK) {
        st =
            sluice_scratch_create(ex, table, im->out_columns, im->out_column_count, arena, &t, err);
        if (st == SLUICE_OK)
            st = copy_rows(&res, t, im, err);
        if (st == SLUICE_OK && duckdb_result_error(&res) != NULL)
            st = sluice_error_set(err, arena, SLUICE_E_INVALID, "cannot read %s: %s", im->path,
                                  duckdb_result_error(&res));
        duckdb_destroy_result(&res);
        sluice_status fin = sluice_scratch_finish(t, st == SLUICE_OK, st == SLUICE_OK ? err : NULL);
        if (st == SLUICE_OK)
            st = fin;
    }
    duckdb_destroy_prepare(&ps);
    return st;
}

sluice_status sluice_scratch_import_file(sluice_executor *ex,
                                         const char *table,
                                         sluice_scratch_import *im,
                                         sluice_arena *arena,
                                         sluice_error *err)
{
    im->rows = 0;
    im->truncated = false;
    const char *reader = reader_of(im->format != NULL ? im->format : "auto", im->path);
    if (reader == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "cannot tell the format of %s; set format = \"csv\", \"parquet\" "
                                "or \"json\"",
                                im->path);
    errno = 0;
    sluice_status st = check_file(im, arena, err);
    if (st != SLUICE_OK)
        return st;
    duckdb_database db = NULL;
    duckdb_connection conn = NULL;
    st = open_reader(im->path, &db, &conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    st = import_with(conn, ex, table, reader, im, arena, err);
    duckdb_disconnect(&conn);
    duckdb_close(&db);
    return st;
}
