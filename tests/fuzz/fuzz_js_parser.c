/*
 * fuzz_js_parser.c — libFuzzer target: the plan language's lexer, parser and front end on any
 * bytes. No crash, no leak, and every failure is a status with a message (never a clean
 * verdict without facts); accepted plans also run under tight limits (no limit overrun).
 */
#include "core/arena.h"
#include "exec/js/interp.h"
#include "lang/js/js.h"
#include "syntax/js/parse.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    sluice_error err = { 0 };
    sluice_js_program prog;
    sluice_status st = sluice_js_parse(arena, (const char *)data, size, &prog, &err);
    if (st != SLUICE_OK && err.message == NULL)
        abort(); /* a refusal always says why */
    sluice_codefacts *facts = NULL;
    sluice_config_code_mode cm = { .max_api_calls = 10, .openapi_reads_enabled = true };
    sluice_frontend_context ctx = { .code_mode = &cm };
    if (sluice_js_frontend()->analyze(arena, (const char *)data, size, NULL, &ctx, &facts, &err) ==
            SLUICE_OK &&
        st != SLUICE_OK && !sluice_codefacts_refused(facts))
        abort(); /* what does not parse is never a clean verdict */
    if (st == SLUICE_OK) {
        sluice_js_run_options o = { 0 };
        o.limits.max_steps = 20000;
        o.limits.max_memory_bytes = 4u * 1024u * 1024u;
        o.limits.max_loop_iterations = 1000;
        sluice_js_run_result r;
        sluice_error rerr = { 0 };
        if (sluice_js_run(arena, &prog, &o, &r, &rerr) == SLUICE_OK && r.steps > 20000 + 16)
            abort();
    }
    sluice_arena_free(arena);
    return 0;
}
