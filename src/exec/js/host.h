/*
 * host.h — what a plan's run is given and gives back: the capability interface to its host (a
 * function that receives every `api.<verb>(...)` / `mcp.call(...)` the plan makes), the run's
 * options (limits, args, output-blocked fields) and its result record.
 *
 * Owns: those types only. The interpreter (interp.h) runs a plan with them, its shared state
 * (value.h) holds them, and the hosts (exec/js_plan.c, exec/openapi.c, exec/mcp_plan.c) fill
 * them; none of those is needed to name them, so this header sits below all of them.
 * Does not own: running a plan (interp.h), HTTP or MCP (the hosts), policy.
 */
#ifndef SLUICE_EXEC_JS_HOST_H
#define SLUICE_EXEC_JS_HOST_H

#include "config/config.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "exec/executor.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One capability call as the plan made it. */
typedef struct sluice_js_call {
    const char *object; /* "api" | "mcp" */
    /* "get", "post", "put", "patch", "delete", an SDK operation's id (api_operations) | "call" */
    const char *method;
    json_t *args; /* JSON array of the arguments (undefined as null) */
    size_t index; /* 0-based: this run's n-th capability call (idempotency keys use it) */
    uint32_t line, column;
    /* The output-blocked fields the arguments carry (none: count 0). Only a host with
     * passes_taint sees a call carrying one; it sends it only to an operation that lists every
     * one of them as passable, and never shows its arguments or the upstream's message (the
     * failed-call list, errors, the audit say "redacted"). */
    sluice_strlist passing;
    /* An api call's path as the plan wrote it: literal text at even indexes, each ${...}
     * hole's value (as a string) at odd ones, so the host matches the template validate
     * approved at this call site and fills each value into its own parameter only
     * (exec/openapi_match.h). count 0: the path was not written as string or template literals
     * (or a + of them), and the host refuses it. */
    const char *const *path_parts;
    size_t path_part_count;
} sluice_js_call;

/* The host answers a call. SLUICE_OK with *result (a new reference) on success. A failure the
 * plan may catch (the upstream said 4xx/5xx, a network error): SLUICE_E_ENGINE with err's
 * message; it becomes a thrown Error and is recorded among the failed calls. Anything else
 * (SLUICE_E_DENIED by the request policy, SLUICE_E_TIMEOUT, SLUICE_E_NOMEM) stops the plan at
 * once: no try/catch can swallow it. */
typedef sluice_status (*sluice_js_call_fn)(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err);

/* Concurrent hosts split a call in two. start begins it and returns at once with a ticket (the
 * request in flight); wait blocks until that ticket's answer is in (driving every other call in
 * flight meanwhile) and returns it with call's status contract. A start failure is reported as
 * call's would be. Every ticket started is waited exactly once, except after a run that stopped
 * on a fatal status: the host then abandons what is in flight. */
typedef sluice_status (*sluice_js_start_fn)(void *ctx,
                                            sluice_arena *arena,
                                            const sluice_js_call *call,
                                            uint64_t *ticket,
                                            sluice_error *err);
typedef sluice_status (*sluice_js_wait_fn)(
    void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err);

typedef struct sluice_js_host {
    sluice_js_call_fn call; /* NULL: the plan has no api/mcp globals at all */
    /* both set: calls run concurrently (call is then unused and may be NULL) */
    sluice_js_start_fn start;
    sluice_js_wait_fn wait;
    void *ctx;
    bool has_api; /* the `api` global exists */
    /* pmcp's SDK mode (sdk_operations): `api` holds a method per operation id listed, called
     * as api.<id>(args), and no path-form methods; NULL or empty: api.get/post/put/patch/delete */
    const sluice_strlist *api_operations;
    bool has_mcp; /* the `mcp` global exists */
    /* the host checks call->passing against the operation (passable fields); without it a call
     * carrying a blocked field is refused before it reaches the host */
    bool passes_taint;
} sluice_js_host;

typedef struct sluice_js_run_options {
    sluice_exec_limits limits; /* 0 = default (core/limits.h) for steps and memory, else none */
    const json_t *args;        /* the `args` global (NULL: an empty object) */
    sluice_js_host host;
    const sluice_clock *clock; /* NULL: the system clock */
    /* Output-blocked fields (key names, any case, at any depth of what a call answers): every
     * value read from one is tainted, and taint follows data and control through the plan
     * (docs/openapi.md, "Blocked fields"). A tainted value never leaves: the result, a thrown
     * error, console output, an outbound call's arguments. taint_refuse: fail the run naming the
     * field and line; else strip the tainted part (calls are refused either way: a redacted request
     * is a different request). */
    const sluice_strlist *taint_fields[2];
    bool taint_refuse;
    /* The plan runs on an approval given below high risk, which validation gives only to plans
     * that name no blocked field and read none through reflection (lang/js). The run checks
     * that: any tainted value about to leave (but a value under its own blocked key, which the
     * output guard removes by name) stops it with SLUICE_E_DENIED instead of being stripped,
     * and the === exception does not apply (steering makes a plan high risk). */
    bool taint_clean_only;
} sluice_js_run_options;

/* One failed capability call the plan survived (caught) or died of. */
typedef struct sluice_js_failed_call {
    const char *object, *method, *path; /* path: first argument when a string, else NULL */
    const char *message;
    size_t index;
    uint32_t line; /* of the call site */
} sluice_js_failed_call;

typedef struct sluice_js_run_result {
    bool threw;             /* the plan threw (error_name/message set); else it returned */
    const char *json;       /* JSON.stringify of the returned value; NULL for undefined */
    const char *error_name; /* "TypeError", ..., or "throw" for a non-Error value */
    const char *error_message;
    uint32_t error_line;
    size_t api_calls, loop_iterations, steps, memory_bytes;
    json_t *logs;    /* console.log lines (array of strings), owned by the arena */
    bool tainted;    /* the plan read an output-blocked field */
    bool steered;    /* a blocked field steered it (=== against a literal, input or join key) */
    size_t redacted; /* tainted parts stripped from the result, errors and logs */
    sluice_js_failed_call *failed;
    size_t failed_count;
} sluice_js_run_result;

#endif
