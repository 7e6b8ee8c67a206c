/*
 * engines.c — the engine table (see engines.h): the configured engine to its open function.
 */
#include "exec/engines.h"

#include "exec/duckdb.h"
#include "exec/graphql_http.h"
#include "exec/openapi.h"
#include "exec/postgres.h"
#include "exec/sqlite.h"

sluice_status sluice_executor_open(const sluice_config_database *db,
                                   const sluice_config_code_mode *code_mode,
                                   sluice_executor **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    *out = NULL;
    if (db != NULL && db->engine == SLUICE_ENGINE_POSTGRES)
        return sluice_exec_postgres_open(db, code_mode, out, err_arena, err);
    if (db == NULL ||
        (db->engine != SLUICE_ENGINE_GRAPHQL && (db->path == NULL || db->path[0] == '\0')))
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[database] path is not set; point it at a database file");
    switch (db->engine) {
    case SLUICE_ENGINE_DUCKDB:
        return sluice_exec_duckdb_open(db, code_mode, out, err_arena, err);
    case SLUICE_ENGINE_SQLITE:
        return sluice_exec_sqlite_open(db, code_mode, out, err_arena, err);
    case SLUICE_ENGINE_POSTGRES:
        break; /* opened above: it needs no path */
    case SLUICE_ENGINE_GRAPHQL:
        return sluice_exec_graphql_open(db, code_mode, out, err_arena, err);
    case SLUICE_ENGINE_OPENAPI:
        return sluice_exec_openapi_open(db, code_mode, out, err_arena, err);
    }
    return sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "[database] engine %d is unknown",
                            (int)db->engine);
}
