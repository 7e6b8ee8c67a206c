/*
 * js_plan.h — the JavaScript plan executor: runs one validated plan (exec/js/ interpreter) with
 * its capabilities wired to backends, and shapes what it returns.
 *
 * Owns: the host dispatch (every `api.*` call to the api backend — the OpenAPI client,
 * exec/openapi.c — and every `mcp.call` to the mcp backend — the MCP client, exec/mcp_client.c;
 * a plan without a backend for a capability has no such global), the record of every call made
 * and its outcome, the limits (passed to the interpreter), the output guard and the result cap
 * (js_guard.c), and the structured failure of a plan that throws or hits a limit.
 * Does not own: HTTP, MCP, policy, or the static analysis (lang/js/). It decides nothing about
 * whether a plan may run: that was decided before it is called.
 */
#ifndef SLUICE_EXEC_JS_PLAN_H
#define SLUICE_EXEC_JS_PLAN_H

#include "config/config.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "exec/executor.h"
#include "exec/js/interp.h"

#include <jansson.h>

/* One capability's backend. start/wait: the contract of js/host.h (sluice_js_start_fn and
 * sluice_js_wait_fn; tickets are the backend's own). describe (optional) adds what the backend
 * knows of a finished call to its record: a new reference to an object such as
 * {"operation":"getUser","status":200,"idempotency_key":"..."}, or NULL. */
typedef struct sluice_js_backend {
    sluice_js_start_fn start; /* NULL: the capability is absent */
    sluice_js_wait_fn wait;
    json_t *(*describe)(void *ctx, uint64_t ticket);
    void *ctx;
    /* start checks call->passing against the operation's passable fields (js/host.h); a call
     * carrying a blocked field to a backend without it is refused before it starts */
    bool passes_taint;
    /* api only: the SDK mode's operation ids (sluice_js_host.api_operations); NULL: the path
     * form */
    const sluice_strlist *operations;
} sluice_js_backend;

typedef struct sluice_js_plan {
    const char *code;
    size_t code_len;
    const json_t *args; /* the `args` global; NULL: {} */
    sluice_exec_limits limits;
    sluice_js_backend api; /* api.get/post/put/patch/delete (exec/openapi.c) */
    sluice_js_backend mcp; /* mcp.call (exec/mcp_client.c): the slot composition plugs into */
    /* the output guard: keys never in the result, at any depth and key case */
    const sluice_strlist *blocked[2];
    bool refuse_blocked; /* refuse the result on a blocked key, else strip it */
    /* approved below high risk: a run that would let a blocked field's value leave is refused
     * (sluice_js_run_options.taint_clean_only) */
    bool clean_only;
    const sluice_clock *clock; /* NULL: the system clock */
} sluice_js_plan;

/* Runs plan. SLUICE_OK: out is SLUICE_EXEC_VALUE with the guarded, capped value (truncated and
 * truncated_by "max_bytes" when cut), out->calls every call made ({index, line, call, target,
 * outcome, ...backend's describe}) and out->failed_calls those that failed, which a plan that
 * caught them still reports beside its value. Failures, each with out->calls filled and a
 * message naming the line and the calls made: SLUICE_E_ENGINE (the plan threw; err->line set),
 * SLUICE_E_LIMIT (err->key the setting) or SLUICE_E_TIMEOUT, SLUICE_E_DENIED (a backend refused
 * a call, or a blocked key with refuse_blocked), SLUICE_E_INVALID (the code does not parse),
 * SLUICE_E_NOMEM. Everything in arena. */
sluice_status sluice_js_plan_execute(sluice_arena *arena,
                                     const sluice_js_plan *plan,
                                     sluice_exec_result *out,
                                     sluice_error *err);

/* --- the output guard (js_guard.c) ------------------------------------------------------- */

/* Removes (or, with refuse, refuses) every object key of v named in blocked[0] or blocked[1],
 * at any depth, compared without case. *stripped counts removals; *first_hit (arena) is the
 * path of the first one ("$[2].owner.SSN"). SLUICE_OK, SLUICE_E_DENIED (refuse and a hit),
 * SLUICE_E_NOMEM. Depth is bounded by SLUICE_LIMIT_JSON_DEPTH: deeper values are refused. */
sluice_status sluice_js_guard_blocked(sluice_arena *arena,
                                      json_t *v,
                                      const sluice_strlist *const blocked[2],
                                      bool refuse,
                                      size_t *stripped,
                                      const char **first_hit,
                                      sluice_error *err);

/* Caps v's compact JSON at max_bytes (0: no cap): an array loses items from its end until it
 * fits, any other value becomes its JSON text cut to fit (a string). *out is v or the cut
 * value (a new reference either way); *truncated says whether it was cut; *bytes its size.
 * SLUICE_OK or SLUICE_E_NOMEM. */
sluice_status sluice_js_guard_cap(
    json_t *v, size_t max_bytes, json_t **out, bool *truncated, size_t *bytes, sluice_error *err);

#endif
