/*
 * postgres.h (exec) — the PostgreSQL executor, internal to sluice.
 *
 * Owns: connecting to PostgreSQL with libpq (conninfo from [database], password from a file or
 * the environment, application_name = sluice), the small connection pool, the per-call read-only
 * transaction with pinned settings (docs/postgres.md), the cursor that makes the row cap stop the
 * server's work, cancellation, the start-up write probe, and the catalog read.
 * Does not own: the executor interface (executor.h), policy, the SQL analysis (lang/pgsql/).
 */
#ifndef SLUICE_EXEC_POSTGRES_H
#define SLUICE_EXEC_POSTGRES_H

#include "exec/executor.h"

/* Connects once (so a bad conninfo or password is reported at start-up), reads the catalog
 * once to check it is readable, and probes that the role cannot write: when it can, a loud
 * warning is logged (docs/postgres.md gives the role recipe) but sluice starts.
 * Errors: SLUICE_E_IO (password file unreadable, password_env unset), SLUICE_E_ENGINE (cannot
 * connect, catalog unreadable), SLUICE_E_NOMEM. Strings in err_arena; the password never
 * appears in them. */
sluice_status sluice_exec_postgres_open(const sluice_config_database *db,
                                        const sluice_config_code_mode *code_mode,
                                        sluice_executor **out,
                                        sluice_arena *err_arena,
                                        sluice_error *err);

#endif
