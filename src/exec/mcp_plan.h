/*
 * mcp_plan.h — the `mcp` capability of JavaScript plans: the configured downstream servers as
 * one set, their catalog for the front end, and the run-time side of every mcp.call.
 *
 * Owns: opening every [[code_mode.mcp_servers]] entry at start-up (a server that fails refuses
 * the start); each tool's inputSchema checked once (a schema sluice cannot enforce makes the
 * tool uncallable, with the reason in the catalog); the catalog document the front end resolves
 * mcp.call sites against (JSON text: {"server": {"tool": {"action", "actionFrom", "allowed",
 * "schemaError", "inputSchema", "description"}}}); and the run-time re-check of a call: only a
 * (server, tool) the validated plan names, only an allowed tool whose action the server's
 * allow_writes/allow_deletes permit, arguments validated against its inputSchema, an
 * idempotency key in _meta for Write and Delete tools (sluice_exec_idempotency_key over the
 * token id, "mcp:<server>/<tool>" and the arguments: the api's derivation), blocked fields
 * stripped from the answer before the plan sees it (exec/js_guard.c's guard, as for api).
 * Does not own: the static analysis (lang/js/analyze.c), the interpreter (exec/js/), the MCP
 * exchange (exec/mcp_client.c) or the audit record (its caller records what the call reports).
 */
#ifndef SLUICE_EXEC_MCP_PLAN_H
#define SLUICE_EXEC_MCP_PLAN_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/js/interp.h"
#include "exec/js_plan.h"

#include <jansson.h>
#include <stdatomic.h>

typedef struct sluice_mcp_servers sluice_mcp_servers;

/* Opens every server of cm (what it needs of cm is copied: the caller may free it). *out is set
 * even with no servers.
 * Errors: those of sluice_mcp_client_open (the first server that fails), SLUICE_E_NOMEM. */
sluice_status sluice_mcp_servers_open(const sluice_config_code_mode *cm,
                                      sluice_mcp_servers **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

void sluice_mcp_servers_close(sluice_mcp_servers *s);

/* The catalog document (see above) in arena; NULL on NOMEM. Stable for the set's life: the front
 * end may cache what it builds from it by its text. */
const char *sluice_mcp_servers_catalog(const sluice_mcp_servers *s, sluice_arena *arena);

/* What one run hands every call. */
typedef struct sluice_mcp_run {
    const sluice_strlist *validated; /* "mcp:<server>/<tool>" operations the validated plan names */
    const char *token_id;            /* the approval token's id: idempotency keys derive from it */
    atomic_bool *cancelled;          /* NULL: not cancellable */
} sluice_mcp_run;

/* What a call did, for the run's audit record (strings in arena). */
typedef struct sluice_mcp_call_record {
    const char *operation;       /* "mcp:<server>/<tool>" or NULL when the call was malformed */
    const char *action;          /* "read" | "write" | "delete" */
    const char *idempotency_key; /* NULL for reads */
    size_t stripped;             /* blocked fields removed from the answer */
} sluice_mcp_call_record;

/* The run-time side of mcp.call(server, tool, args) (call->object "mcp"), in the shape of
 * sluice_js_call_fn. On SLUICE_OK *result is the tool's structuredContent, else its first text
 * block parsed as JSON, else that text as a string (a new reference). Errors: SLUICE_E_DENIED
 * (a (server, tool) the validated plan does not name, a tool not allowed or whose action is
 * not permitted, arguments that do not match its inputSchema: the plan stops), SLUICE_E_ENGINE
 * (the tool failed, the server timed out, exited or overran max_response_bytes: the plan may
 * catch it), SLUICE_E_CANCELLED, SLUICE_E_NOMEM. *rec (may be NULL) is filled either way. */
sluice_status sluice_mcp_servers_call(sluice_mcp_servers *s,
                                      const sluice_mcp_run *run,
                                      sluice_arena *arena,
                                      const sluice_js_call *call,
                                      json_t **result,
                                      sluice_mcp_call_record *rec,
                                      sluice_error *err);

/* The interpreter's host for a plan whose only capability is mcp (a direct driver, and tests):
 * ctx is a sluice_mcp_host; every call goes through sluice_mcp_servers_call (an api call is
 * refused with SLUICE_E_DENIED). The plan executor (exec/js_plan.c) plugs the same call in. */
typedef struct sluice_mcp_host {
    sluice_mcp_servers *servers;
    sluice_mcp_run run;
    sluice_arena *arena; /* set by sluice_mcp_plan_backend */
} sluice_mcp_host;

sluice_status sluice_mcp_host_call(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err);

typedef struct sluice_mcp_backend_state sluice_mcp_backend_state;

/* The mcp backend of one plan run (sluice_js_plan.mcp): start runs the call through
 * sluice_mcp_servers_call (a downstream speaks one exchange at a time), wait hands its outcome
 * over, describe adds {operation, action, idempotency_key, stripped} to the call's record. State
 * in arena (the run's). SLUICE_OK or SLUICE_E_NOMEM. */
sluice_status
sluice_mcp_plan_backend(const sluice_mcp_host *host, sluice_arena *arena, sluice_js_backend *out);

#endif
