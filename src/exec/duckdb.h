/*
 * duckdb.h (exec) — the DuckDB executor, internal to sluice.
 *
 * Owns: opening a DuckDB file with the research note's "recipe A" hardening (every setting via
 * duckdb_set_config before duckdb_open_ext, then read back and verified), and the accessor the
 * SQL analyzer uses to open its own connection on the same catalog (json_serialize_plan).
 * Does not own: the executor interface (executor.h), policy.
 */
#ifndef SLUICE_EXEC_DUCKDB_H
#define SLUICE_EXEC_DUCKDB_H

#include "exec/executor.h"

#include <duckdb.h>

/* Opens db->path with DuckDB; read-only unless code_mode allows writes, deletes or DDL. */
sluice_status sluice_exec_duckdb_open(const sluice_config_database *db,
                                      const sluice_config_code_mode *code_mode,
                                      sluice_executor **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* SLUICE_OK when `loaded` (duckdb_library_version() in production) is the DuckDB release sluice
 * was built for (CMakeLists.txt reads it from third_party/duckdb/VERSION); otherwise
 * SLUICE_E_CONFIG naming both and how to fix it. Every served or session database is opened only
 * after it: another libduckdb.so on the library path is undefined behaviour, not an error. */
sluice_status
sluice_exec_duckdb_check_library(const char *loaded, sluice_arena *err_arena, sluice_error *err);

/* The shared, hardened database behind a DuckDB executor (NULL for other engines). Open a
 * connection with duckdb_connect and close it with duckdb_disconnect; never change settings. */
duckdb_database sluice_exec_duckdb_database(const sluice_executor *ex);

/* For exec/duckdb_import.c: appends a whole chunk (its types must be the table's) to a session
 * table being loaded; SLUICE_E_INVALID after which the table refuses further rows. */
struct sluice_scratch_table;
sluice_status sluice_scratch_append_chunk(struct sluice_scratch_table *t,
                                          duckdb_data_chunk chunk,
                                          sluice_error *err);

#endif
