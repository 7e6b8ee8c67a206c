/*
 * scratch_open.h — opening a query-mode session database (the rest of its interface: scratch.h).
 *
 * Owns: the options a session database opens with and the open call. The DuckDB engine
 * implements it (exec/duckdb.c: the served database's hardening list, with the session's spill
 * folder as its one allowed directory), so this part sits below the engine, which includes
 * nothing of the session interface above it (scratch.h, implemented in exec/duckdb_scratch.c on
 * top of the engine).
 */
#ifndef SLUICE_EXEC_SCRATCH_OPEN_H
#define SLUICE_EXEC_SCRATCH_OPEN_H

#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"

/* Longest spill folder path. */
#define SLUICE_SCRATCH_PATH_MAX 512u

typedef struct sluice_scratch_options {
    const char *spill_dir;    /* an existing folder the session owns (no quote characters) */
    const char *memory_limit; /* "256MB" */
    const char *max_spill;    /* "1GB": max_temp_directory_size */
    int threads;              /* 0: 1 */
} sluice_scratch_options;

/* Opens a fresh, empty, hardened session database; the settings are read back and any that did
 * not take effect refuses the open (SLUICE_E_CONFIG). SLUICE_E_INVALID for a bad spill folder,
 * SLUICE_E_ENGINE when the engine cannot open. Close with sluice_executor_close. */
sluice_status sluice_scratch_open(const sluice_scratch_options *options,
                                  sluice_executor **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err);

#endif
