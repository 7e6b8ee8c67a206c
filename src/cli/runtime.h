/*
 * runtime.h — assembling the code-mode runtime (codemode/runtime.h) from a config: the one
 * place the audit sink, the token keyring, the quota counters, the consume-once store and the
 * approval store are opened, for `sluice serve`, `config check`, `validate`, `policy`, the
 * tests and the benches.
 *
 * Owns: the backend of each store (PostgreSQL or file audit; Redis or file replay and
 * approvals; Redis or in-process quotas, per [state]), their paths beside the audit log, the
 * writer slot's own replay file, and closing them all. Does not own: any store's behaviour (state/,
 * token/), using them (codemode/).
 */
#ifndef SLUICE_CLI_RUNTIME_H
#define SLUICE_CLI_RUNTIME_H

#include "codemode/codemode.h"
#include "codemode/runtime.h"
#include "config/config.h"

/* Opens the stores config names into a new runtime (*out; close it with sluice_runtime_close
 * after everything that borrowed it): the audit sink ([state] audit_postgres, else [code_mode]
 * audit_log), and, when code mode is enabled, the token keys, the quota counters (when a quota
 * is set), the replay store and the approval store (Redis when [state] redis_url is set, else
 * files beside the audit log; quotas then in this process). clock: NULL for the system clock
 * (tests pass a manual one); it reads the replay store's "now" at open and every later
 * request's time. config and clock must outlive the runtime. Errors name the
 * setting or file that is wrong; on failure nothing stays open. */
sluice_status sluice_runtime_open(const sluice_config *config,
                                  const sluice_clock *clock,
                                  sluice_runtime **out,
                                  sluice_arena *err_arena,
                                  sluice_error *err);

/* What `sluice serve`, `config check`, `validate` and `policy eval` open: a runtime and code
 * mode on it (sluice_codemode_open), code mode first, so a config with a wrong database and a
 * wrong store reports the database, as it always has. On failure nothing stays open and the
 * outputs are untouched. Close cm, then rt. */
sluice_status sluice_runtime_open_codemode(const sluice_config *config,
                                           sluice_runtime **out_rt,
                                           sluice_codemode **out_cm,
                                           sluice_arena *err_arena,
                                           sluice_error *err);

/* Closes every store and frees rt. NULL does nothing. */
void sluice_runtime_close(sluice_runtime *rt);

#endif
