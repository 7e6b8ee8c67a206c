/*
 * catalog.h (exec) — a backend's catalog as last read, shared by every request and re-read on
 * demand (SIGHUP): the PostgreSQL analyzer resolves names against it, so a new view or a changed
 * view definition is seen without a restart.
 *
 * Owns: the refcounted catalog snapshot of each executor and the process-wide reload request.
 * Does not own: reading the catalog (each engine's schema op, with the marks executor.c adds).
 *
 * Threads: any thread may take the catalog; the snapshot a request took stays valid until its
 * arena is freed, even when a reload swaps in a new one meanwhile.
 */
#ifndef SLUICE_EXEC_CATALOG_H
#define SLUICE_EXEC_CATALOG_H

#include "exec/executor.h"

typedef struct sluice_exec_catalog sluice_exec_catalog;

/* Asks every executor of the process to re-read its catalog at its next use. Async-signal-safe
 * (one lock-free atomic increment): the SIGHUP handler calls it. */
void sluice_executor_request_catalog_reload(void);

/* The catalog of ex (sluice_executor_schema's, marks included), read at the first use and again
 * after a reload request; held until arena is freed. When a re-read fails, the previous catalog
 * stays (logged as a warning): names it does not know are still refused. Errors (first read
 * only): as sluice_executor_schema; SLUICE_E_NOMEM. */
sluice_status sluice_executor_catalog(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_schema **out,
                                      sluice_error *err);

/* For executor.c: the holder each executor owns. NULL on NOMEM. */
sluice_exec_catalog *sluice_exec_catalog_new(void);
void sluice_exec_catalog_free(sluice_exec_catalog *cat);
sluice_exec_catalog *sluice_executor_catalog_of(sluice_executor *ex);

#endif
