/*
 * duckdb_connect.c — every DuckDB connection, connected and hardened or not at all
 * (duckdb_connect.h).
 */
#include "exec/duckdb_connect.h"

#include "exec/executor.h"

#ifdef SLUICE_DUCKDB_CPP
#include "exec/duckdb_plan.h"
#endif

#include <stddef.h>

sluice_status sluice_exec_duckdb_connect(duckdb_database db,
                                         bool json_errors,
                                         duckdb_connection *out,
                                         sluice_arena *arena,
                                         sluice_error *err)
{
    *out = NULL;
    duckdb_connection conn = NULL;
    if (db == NULL || duckdb_connect(db, &conn) != DuckDBSuccess)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not connect to DuckDB");
#ifdef SLUICE_DUCKDB_CPP
    sluice_status st =
        sluice_exec_duckdb_plan_harden(conn, SLUICE_DUCKDB_NO_DIR, json_errors, arena, err);
    if (st != SLUICE_OK) {
        duckdb_disconnect(&conn);
        return st;
    }
#else
    (void)json_errors; /* the database's configuration holds both (duckdb_connect.h) */
#endif
    *out = conn;
    return SLUICE_OK;
}

sluice_status sluice_executor_bind_connect(
    void *db, bool json_errors, void **out, sluice_arena *arena, sluice_error *err)
{
    duckdb_connection conn = NULL;
    sluice_status st =
        sluice_exec_duckdb_connect((duckdb_database)db, json_errors, &conn, arena, err);
    *out = conn;
    return st;
}

const char *sluice_executor_bind_statement_kind(void *prepared)
{
#ifdef SLUICE_DUCKDB_CPP
    return sluice_exec_duckdb_plan_statement_type((duckdb_prepared_statement)prepared);
#else
    (void)prepared;    /* the 1.5 line's C API names every type itself */
    return NULL;
#endif
}
