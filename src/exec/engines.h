/*
 * engines.h (exec) — the engine table: which engine a [database] section names, and opening it.
 *
 * Owns: the dispatch from sluice_config_database.engine to the engine's open function. This is
 * the one module that names every engine; the engines themselves include only the interface
 * below them (executor.h), so an engine never reaches another through the table (the SQLite
 * VFS and Lua library arrangement: interface below, implementations above, one list on top).
 * Does not own: the interface (executor.h), any engine.
 */
#ifndef SLUICE_EXEC_ENGINES_H
#define SLUICE_EXEC_ENGINES_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"

/* Opens the database named by db with the hardening for that engine. The code_mode settings
 * decide read-only vs read-write (sql_allow_writes/deletes/ddl) and the blocked/hidden marks the
 * schema carries. Both configs are copied: the caller may free them afterwards.
 * Errors: SLUICE_E_IO (file missing/unreadable), SLUICE_E_CONFIG (a hardening setting did not
 * take effect: sluice refuses to start), SLUICE_E_ENGINE. Strings in err_arena. */
sluice_status sluice_executor_open(const sluice_config_database *db,
                                   const sluice_config_code_mode *code_mode,
                                   sluice_executor **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err);

#endif
