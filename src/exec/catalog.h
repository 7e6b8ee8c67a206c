/*
 * catalog.h (exec) — a backend's catalog as last read, shared by every request and re-read on
 * demand (SIGHUP): the PostgreSQL analyzer resolves names against it, so a new view or a changed
 * view definition is seen without a restart.
 *
 * Owns: the refcounted catalog snapshot each executor holds and the process-wide reload request.
 * Does not own: reading the catalog (the holder is handed a reader: executor.c passes each
 * engine's schema op with the marks it adds), so it sits below the executor interface.
 *
 * Threads: any thread may take the catalog; the snapshot a request took stays valid until its
 * arena is freed, even when a reload swaps in a new one meanwhile.
 */
#ifndef SLUICE_EXEC_CATALOG_H
#define SLUICE_EXEC_CATALOG_H

#include "core/arena.h"
#include "core/error.h"
#include "exec/schema.h"

typedef struct sluice_exec_catalog sluice_exec_catalog;

/* Reads a fresh catalog into out (everything in arena); err in arena on failure. */
typedef sluice_status (*sluice_exec_catalog_read_fn)(void *ctx,
                                                     sluice_arena *arena,
                                                     sluice_schema *out,
                                                     sluice_error *err);

/* The holder each executor owns (executor.c). NULL on NOMEM. */
sluice_exec_catalog *sluice_exec_catalog_new(void);
void sluice_exec_catalog_free(sluice_exec_catalog *cat);

/* The catalog cat holds, read with read(ctx) at the first use and again after a reload request;
 * held until arena is freed. When a re-read fails, the previous catalog stays (logged as a
 * warning). Errors (first read only): read's; SLUICE_E_NOMEM (also for cat NULL). The public
 * entry is sluice_executor_catalog (executor.h). */
sluice_status sluice_exec_catalog_take(sluice_exec_catalog *cat,
                                       sluice_exec_catalog_read_fn read,
                                       void *ctx,
                                       sluice_arena *arena,
                                       const sluice_schema **out,
                                       sluice_error *err);

/* Asks every executor of the process to re-read its catalog at its next use. Async-signal-safe
 * (one lock-free atomic increment): the SIGHUP handler calls it. */
void sluice_executor_request_catalog_reload(void);

#endif
