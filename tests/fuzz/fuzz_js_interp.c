/*
 * fuzz_js_interp.c — libFuzzer target: the plan interpreter on any plan that parses, with a
 * concurrent `api` host (start/wait, as the OpenAPI backend drives it) whose calls succeed,
 * fail (a 500 the plan may catch) or are still in flight when the plan stops. No crash, no
 * leak, no limit overrun: never more calls than max_api_calls, never more steps than max_steps,
 * every wait for a ticket that was started, and every failure says why.
 */
#include "core/arena.h"
#include "exec/js/interp.h"
#include "syntax/js/parse.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_CALLS 10
#define FUZZ_MAX_STEPS 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fake_host {
    json_t *pending[FUZZ_MAX_CALLS]; /* by ticket: the call's first argument (or null) */
    bool waited[FUZZ_MAX_CALLS];
    size_t started;
} fake_host;

static sluice_status fake_start(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, uint64_t *ticket, sluice_error *err)
{
    fake_host *h = ctx;
    if (h->started >= FUZZ_MAX_CALLS)
        abort(); /* the interpreter let a call past max_api_calls */
    json_t *path = json_array_get(call->args, 0);
    h->pending[h->started] = path != NULL ? json_incref(path) : json_null();
    *ticket = h->started++;
    (void)arena;
    (void)err;
    return SLUICE_OK;
}

static sluice_status
fake_wait(void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err)
{
    fake_host *h = ctx;
    if (ticket >= h->started || h->waited[ticket])
        abort(); /* a ticket never started, or waited twice */
    h->waited[ticket] = true;
    const json_t *path = h->pending[ticket];
    if (json_is_string(path) && strstr(json_string_value(path), "fail") != NULL)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "HTTP 500 from %s",
                                json_string_value(path));
    *result = json_pack("{s:O, s:I, s:[i,i]}", "path", path, "n", (json_int_t)ticket, "xs", 1, 2);
    return *result != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    sluice_error err = { 0 };
    sluice_js_program prog;
    if (sluice_js_parse(arena, (const char *)data, size, &prog, &err) == SLUICE_OK) {
        fake_host h = { 0 };
        sluice_js_run_options o = { 0 };
        o.limits.max_steps = FUZZ_MAX_STEPS;
        o.limits.max_memory_bytes = 4u * 1024u * 1024u;
        o.limits.max_loop_iterations = 1000;
        o.limits.max_api_calls = FUZZ_MAX_CALLS;
        o.host =
            (sluice_js_host){ .start = fake_start, .wait = fake_wait, .ctx = &h, .has_api = true };
        sluice_js_run_result r;
        memset(&r, 0, sizeof r);
        sluice_error rerr = { 0 };
        sluice_status st = sluice_js_run(arena, &prog, &o, &r, &rerr);
        if (st != SLUICE_OK && rerr.message == NULL)
            abort(); /* a stop always says why */
        if (r.api_calls > FUZZ_MAX_CALLS || r.steps > FUZZ_MAX_STEPS + 16)
            abort();
        for (size_t i = 0; i < h.started; i++)
            json_decref(h.pending[i]);
    }
    sluice_arena_free(arena);
    return 0;
}
