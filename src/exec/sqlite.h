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

/* Opens db->path with SQLite; read-only unless code_mode allows writes, deletes or DDL. */
sluice_status sluice_exec_sqlite_open(const sluice_config_database *db,
                                      const sluice_config_code_mode *code_mode,
                                      sluice_executor **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

typedef struct sluice_sqlite_read {
    const char *table;  /* as SQLite names it (base table) */
    const char *column; /* "" for count(*)-style reads of no particular column */
    const char *via;    /* innermost view or CTE the read came through, or NULL */
} sluice_sqlite_read;

typedef struct sluice_sqlite_reads {
    sluice_sqlite_read *reads; /* every SQLITE_READ the authorizer saw, duplicates removed */
    size_t read_count;
    const char **functions; /* every function called, lower case, duplicates removed */
    size_t function_count;
} sluice_sqlite_reads;

/* Prepares code (never steps it) on a connection of ex with an authorizer that records reads
 * and function calls. The engine rules still apply: a statement the executor would refuse fails
 * here the same way (status and message as sluice_executor_execute), with whatever was recorded
 * up to the refusal still in *out. Everything in arena. ex must be a SQLite executor. */
sluice_status sluice_sqlite_collect_reads(sluice_executor *ex,
                                          sluice_arena *arena,
                                          const char *code,
                                          size_t code_len,
                                          sluice_sqlite_reads *out,
                                          sluice_error *err);

#endif
