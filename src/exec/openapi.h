/*
 * openapi.h — the OpenAPI backend ([database] engine = "openapi"): JavaScript plans run
 * against a REST service its spec describes.
 *
 * Owns: opening the backend (the spec, the upstream and its credential), its schema (the
 * normalized operations document front ends resolve calls against, and the declaration
 * code-mode://schema shows), and the `api` capability of a plan: every call re-checked against
 * the validated operations, matched to its template again, its query and body checked against
 * the operation's schemas, an Idempotency-Key on every write and delete, the response's
 * openapi_internal_blocked_fields stripped before the plan sees it.
 * Does not own: running the plan (exec/js_plan.c), HTTP (exec/openapi_http.c), the spec
 * (exec/openapi_spec.c), policy.
 */
#ifndef SLUICE_EXEC_OPENAPI_H
#define SLUICE_EXEC_OPENAPI_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"

/* Opens the backend db describes. SLUICE_E_IO (spec or credential unreadable), SLUICE_E_CONFIG
 * (a spec problem, no base URL; err names it), SLUICE_E_NOMEM. */
sluice_status sluice_exec_openapi_open(const sluice_config_database *db,
                                       const sluice_config_code_mode *code_mode,
                                       sluice_executor **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err);

#endif
