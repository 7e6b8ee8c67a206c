/*
 * demo_db.c — builds the demo database (see demo_db.h). The script is trusted: it comes from the
 * sluice tree, never from a client, and still runs with external access off.
 */
#include "exec/demo_db.h"

#include "core/buf.h"
#include "core/limits.h"
#include "exec/duckdb_connect.h"
#include "syntax/sqltree/duckdb_type.h"

#include <duckdb.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_script(const char *path, sluice_arena *arena, sluice_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        sluice_error_set(err, arena, SLUICE_E_IO, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    sluice_buf b;
    sluice_buf_init(&b, arena, SLUICE_LIMIT_DEMO_SQL_BYTES);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sluice_buf_append(&b, chunk, n);
    bool failed = ferror(f) != 0;
    fclose(f);
    if (failed || sluice_buf_status(&b) != SLUICE_OK) {
        sluice_error_set(err, arena, failed ? SLUICE_E_IO : SLUICE_E_LIMIT,
                         "cannot read %s (larger than %d bytes or unreadable)", path,
                         SLUICE_LIMIT_DEMO_SQL_BYTES);
        return NULL;
    }
    return b.data != NULL ? b.data : sluice_arena_strdup(arena, "");
}

static sluice_status open_duckdb(const char *path,
                                 duckdb_database *db,
                                 duckdb_connection *conn,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    duckdb_config config;
    if (duckdb_create_config(&config) != DuckDBSuccess)
        return SLUICE_E_NOMEM;
    duckdb_set_config(config, "temp_directory", "");
    duckdb_set_config(config, "autoload_known_extensions", "false");
    duckdb_set_config(config, "autoinstall_known_extensions", "false");
    duckdb_set_config(config, "enable_external_access", "false");
    duckdb_set_config(config, "threads", "2");
    char *open_err = NULL;
    duckdb_state st = duckdb_open_ext(path, db, config, &open_err);
    duckdb_destroy_config(&config);
    if (st != DuckDBSuccess) {
        sluice_status s = sluice_error_set(err, arena, SLUICE_E_ENGINE, "DuckDB: %s",
                                           open_err != NULL ? open_err : "cannot open");
        duckdb_free(open_err);
        return s;
    }
    /* Plain-text errors: a statement of the demo script that fails is quoted as DuckDB wrote it. */
    sluice_status connected = sluice_exec_duckdb_connect(*db, false, conn, arena, err);
    if (connected != SLUICE_OK) {
        duckdb_close(db);
        return connected;
    }
    return SLUICE_OK;
}

/* Runs each statement of the script in order; an error names the statement. */
static sluice_status run_script(duckdb_connection conn,
                                const char *script,
                                const char *sql_path,
                                sluice_arena *arena,
                                sluice_error *err)
{
    duckdb_extracted_statements ext = NULL;
    idx_t n = duckdb_extract_statements(conn, script, &ext);
    sluice_status st = SLUICE_OK;
    if (n == 0) {
        const char *e = duckdb_extract_statements_error(ext);
        st = sluice_error_set(err, arena, SLUICE_E_INVALID, "%s: %s", sql_path,
                              e != NULL ? e : "no statements");
    }
    for (idx_t i = 0; i < n && st == SLUICE_OK; i++) {
        duckdb_prepared_statement ps = NULL;
        duckdb_result res;
        if (duckdb_prepare_extracted_statement(conn, ext, i, &ps) != DuckDBSuccess) {
            st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "%s: statement %llu: %s", sql_path,
                                  (unsigned long long)i + 1, duckdb_prepare_error(ps));
        } else if (duckdb_execute_prepared(ps, &res) != DuckDBSuccess) {
            st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "%s: statement %llu: %s", sql_path,
                                  (unsigned long long)i + 1, duckdb_result_error(&res));
            duckdb_destroy_result(&res);
        } else {
            duckdb_destroy_result(&res);
        }
        duckdb_destroy_prepare(&ps);
    }
    duckdb_destroy_extracted(&ext);
    return st;
}

/* The SQLite column type of a DuckDB result column (syntax/sqltree/duckdb_type.h kinds). */
static const char *sqlite_type(duckdb_type t)
{
    sluice_duck_kind k = sluice_duck_type(t).kind;
    return k == SLUICE_DUCK_BOOLEAN || k == SLUICE_DUCK_INTEGER ? "INTEGER"
           : k == SLUICE_DUCK_FLOAT || k == SLUICE_DUCK_DECIMAL ? "REAL"
                                                                : "TEXT";
}

static bool lite_exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* CREATE TABLE from the DuckDB result's columns ("id" first becomes the rowid key). */
static char *create_sql(sluice_arena *arena, const char *table, duckdb_result *res)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_printf(&b, "CREATE TABLE \"%s\" (", table);
    for (idx_t c = 0; c < duckdb_column_count(res); c++) {
        const char *name = duckdb_column_name(res, c);
        sluice_buf_printf(&b, "%s\"%s\" %s%s", c > 0 ? ", " : "", name,
                          sqlite_type(duckdb_column_type(res, c)),
                          c == 0 && strcmp(name, "id") == 0 ? " PRIMARY KEY" : "");
    }
    sluice_buf_putc(&b, ')');
    return sluice_buf_status(&b) == SLUICE_OK ? b.data : NULL;
}

static char *insert_sql(sluice_arena *arena, const char *table, idx_t columns)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_printf(&b, "INSERT INTO \"%s\" VALUES (", table);
    for (idx_t c = 0; c < columns; c++)
        sluice_buf_puts(&b, c > 0 ? ", ?" : "?");
    sluice_buf_putc(&b, ')');
    return sluice_buf_status(&b) == SLUICE_OK ? b.data : NULL;
}

static sluice_status copy_rows(sqlite3_stmt *ins, duckdb_result *res)
{
    idx_t cols = duckdb_column_count(res), rows = duckdb_row_count(res);
    for (idx_t r = 0; r < rows; r++) {
        for (idx_t c = 0; c < cols; c++) {
            if (duckdb_value_is_null(res, c, r)) {
                sqlite3_bind_null(ins, (int)c + 1);
                continue;
            }
            char *v = duckdb_value_varchar(res, c, r);
            sqlite3_bind_text(ins, (int)c + 1, v != NULL ? v : "", -1, SQLITE_TRANSIENT);
            duckdb_free(v);
        }
        if (sqlite3_step(ins) != SQLITE_DONE || sqlite3_reset(ins) != SQLITE_OK)
            return SLUICE_E_ENGINE;
    }
    return SLUICE_OK;
}

static sluice_status copy_table(duckdb_connection conn,
                                sqlite3 *lite,
                                const char *table,
                                sluice_arena *arena,
                                sluice_error *err)
{
    char *select = sluice_arena_printf(arena, "SELECT * FROM \"%s\" ORDER BY ALL", table);
    duckdb_result res;
    if (select == NULL || duckdb_query(conn, select, &res) != DuckDBSuccess) {
        if (select != NULL)
            duckdb_destroy_result(&res);
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot read demo table %s", table);
    }
    char *create = create_sql(arena, table, &res);
    char *insert = insert_sql(arena, table, duckdb_column_count(&res));
    sqlite3_stmt *ins = NULL;
    sluice_status st = SLUICE_OK;
    if (create == NULL || insert == NULL || !lite_exec(lite, create) ||
        sqlite3_prepare_v2(lite, insert, -1, &ins, NULL) != SQLITE_OK ||
        copy_rows(ins, &res) != SLUICE_OK)
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot copy %s into SQLite: %s", table,
                              sqlite3_errmsg(lite));
    sqlite3_finalize(ins);
    duckdb_destroy_result(&res);
    return st;
}

/* Foreign keys the demo questions join on; DuckDB needs none, SQLite would scan. */
static const char *const sqlite_indexes[] = {
    "CREATE INDEX orders_customer ON orders(customer_id, order_date)",
    "CREATE INDEX tickets_customer ON support_tickets(customer_id, created_at)",
    "CREATE INDEX invoices_customer ON invoices(customer_id)",
    "CREATE INDEX metrics_customer ON account_quarterly_metrics(customer_id, quarter)",
    "CREATE INDEX customers_rep ON customers(rep_id)",
};

static sluice_status
copy_to_sqlite(duckdb_connection conn, const char *out_path, sluice_arena *arena, sluice_error *err)
{
    sqlite3 *lite = NULL;
    if (sqlite3_open_v2(out_path, &lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        sluice_status s = sluice_error_set(err, arena, SLUICE_E_IO, "cannot create %s: %s",
                                           out_path, sqlite3_errmsg(lite));
        sqlite3_close(lite);
        return s;
    }
    duckdb_result tables;
    sluice_status st = SLUICE_OK;
    if (duckdb_query(conn,
                     "SELECT table_name FROM duckdb_tables() WHERE NOT temporary "
                     "AND database_name = current_database() ORDER BY table_name",
                     &tables) != DuckDBSuccess)
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot list the demo tables");
    if (st == SLUICE_OK && !(lite_exec(lite, "PRAGMA journal_mode=OFF") &&
                             lite_exec(lite, "PRAGMA synchronous=OFF") && lite_exec(lite, "BEGIN")))
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "SQLite: %s", sqlite3_errmsg(lite));
    for (idx_t r = 0; st == SLUICE_OK && r < duckdb_row_count(&tables); r++) {
        char *name = duckdb_value_varchar(&tables, 0, r);
        st = copy_table(conn, lite, name, arena, err);
        duckdb_free(name);
    }
    duckdb_destroy_result(&tables);
    for (size_t i = 0; st == SLUICE_OK && i < sizeof(sqlite_indexes) / sizeof(sqlite_indexes[0]);
         i++)
        if (!lite_exec(lite, sqlite_indexes[i]))
            st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "SQLite: %s", sqlite3_errmsg(lite));
    if (st == SLUICE_OK && !(lite_exec(lite, "COMMIT") && lite_exec(lite, "ANALYZE")))
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "SQLite: %s", sqlite3_errmsg(lite));
    sqlite3_close(lite);
    return st;
}

sluice_status sluice_exec_demo_generate(sluice_engine_kind engine,
                                        const char *sql_path,
                                        const char *out_path,
                                        sluice_arena *arena,
                                        sluice_error *err)
{
    struct stat sb;
    if (stat(out_path, &sb) == 0)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "%s already exists; remove it or pick another name", out_path);
    char *script = read_script(sql_path, arena, err);
    if (script == NULL)
        return err != NULL ? err->status : SLUICE_E_IO;
    duckdb_database db;
    duckdb_connection conn;
    /* SQLite output: generate in memory, then copy. */
    sluice_status st =
        open_duckdb(engine == SLUICE_ENGINE_DUCKDB ? out_path : NULL, &db, &conn, arena, err);
    if (st != SLUICE_OK)
        return st;
    st = run_script(conn, script, sql_path, arena, err);
    if (st == SLUICE_OK && engine == SLUICE_ENGINE_SQLITE)
        st = copy_to_sqlite(conn, out_path, arena, err);
    if (st == SLUICE_OK && engine == SLUICE_ENGINE_DUCKDB) {
        duckdb_result res;
        if (duckdb_query(conn, "CHECKPOINT", &res) != DuckDBSuccess)
            st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "DuckDB: %s",
                                  duckdb_result_error(&res));
        duckdb_destroy_result(&res);
    }
    duckdb_disconnect(&conn);
    duckdb_close(&db);
    if (st != SLUICE_OK) {
        unlink(out_path); /* never leave half a database behind */
        char wal[4200];
        snprintf(wal, sizeof(wal), "%s.wal", out_path);
        unlink(wal);
    }
    return st;
}
