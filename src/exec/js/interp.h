/*
 * interp.h — the plan language's interpreter: runs a parsed plan with no capabilities except
 * the ones handed to it.
 *
 * Owns: the run entry point and the limits the interpreter enforces itself
 * (max_api_calls counting every call, max_loop_iterations over all loops together, max_steps,
 * max_memory_bytes of the plan's values, the wall-clock deadline, call depth) and the run's
 * result record (their types, with the capability interface: host.h).
 * Does not own: HTTP or MCP (the host does that: exec/openapi.c), policy, or parsing.
 *
 * Semantics are JavaScript's for everything the parser accepts (tests/node/js_diff.mjs checks
 * them against Node) with one documented difference: an async function runs to completion when
 * called (an `await` inside it waits there). Concurrency comes from the host instead: with
 * start/wait, an api call returns a pending promise at once (the request is already in flight)
 * and is settled only where its value is needed (await, Promise.all/allSettled, .then, the end
 * of the plan), so `Promise.all(xs.map(x => api.get(...)))` has every request in flight at once.
 */
#ifndef SLUICE_EXEC_JS_INTERP_H
#define SLUICE_EXEC_JS_INTERP_H

#include "core/arena.h"
#include "core/error.h"
#include "exec/js/host.h"
#include "syntax/js/parse.h"

/* Runs prog. SLUICE_OK when the plan returned or threw (see out->threw). A limit that stops the
 * plan: SLUICE_E_LIMIT (err->key = the setting: "max_api_calls", "max_loop_iterations",
 * "max_steps", "max_memory_bytes", "max_call_depth") or SLUICE_E_TIMEOUT (the timeout setting),
 * with out's counters filled (calls made so far); a host refusal passes its status through;
 * SLUICE_E_NOMEM. Everything out holds lives in arena. */
sluice_status sluice_js_run(sluice_arena *arena,
                            const sluice_js_program *prog,
                            const sluice_js_run_options *opts,
                            sluice_js_run_result *out,
                            sluice_error *err);

#endif
