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

/* The public half (sluice_executor_catalog, sluice_executor_request_catalog_reload) is in
 * executor.h, with the rest of the catalog/bind service. */

/* For executor.c: the holder each executor owns. NULL on NOMEM. */
sluice_exec_catalog *sluice_exec_catalog_new(void);
void sluice_exec_catalog_free(sluice_exec_catalog *cat);
sluice_exec_catalog *sluice_executor_catalog_of(sluice_executor *ex);

#endif
