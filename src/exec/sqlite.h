/*
 * sqlite.h (exec) — the SQLite executor, internal to sluice.
 *
 * Owns: opening a SQLite file read-only (research §5 recipe: URI mode=ro, DEFENSIVE, no
 * extensions, no triggers, ATTACHED limit 0, an allowlist authorizer), and
 * sluice_sqlite_collect_reads, which lets the analyzer compare its lineage with what SQLite
 * itself reads.
 * Does not own: the executor interface (executor.h), policy.
 */
#ifndef SLUICE_EXEC_SQLITE_H
#define SLUICE_EXEC_SQLITE_H

#include "exec/executor.h"

/* Opens db->path with SQLite; read-only unless code_mode allows writes, deletes or DDL. Its
 * executor offers engine_reads (executor.h): what SQLite's authorizer sees while preparing a
 * statement (never stepped); the engine rules still apply there. */
sluice_status sluice_exec_sqlite_open(const sluice_config_database *db,
                                      const sluice_config_code_mode *code_mode,
                                      sluice_executor **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

#endif
