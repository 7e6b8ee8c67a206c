/*
 * fuzz_js_parser.c — libFuzzer target: the plan language's lexer, parser and front end on any
 * bytes. No crash, no leak, and every failure is a status with a message (never a clean
 * verdict without facts); accepted plans also run under tight limits (no limit overrun). The
 * front end runs twice: in the path form without a spec, and in pmcp's SDK mode
 * (sdk_operations) against an operations document, where a call the document cannot resolve
 * by id is never allowed.
 */
#include "core/arena.h"
#include "exec/js/interp.h"
#include "lang/js/js.h"
#include "syntax/js/parse.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char ops_document[] =
    "{\"operations\":["
    "{\"id\":\"getUser\",\"method\":\"GET\",\"path\":\"/users/{id}\",\"action\":\"read\","
    "\"idempotent\":true,\"query\":[\"fields\"]},"
    "{\"id\":\"getFile\",\"method\":\"GET\",\"path\":\"/files/{path}\",\"action\":\"read\","
    "\"idempotent\":true,\"spanning\":2},"
    "{\"id\":\"setNote\",\"method\":\"PATCH\",\"path\":\"/budgets/{id}/note\","
    "\"action\":\"write\",\"idempotent\":false}]}";
static const char *sdk_ops[] = { "getUser", "getFile", "setNote", "listed_but_absent" };

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
    sluice_config_code_mode sdk = cm;
    sdk.sdk_operations = (sluice_strlist){ sdk_ops, sizeof sdk_ops / sizeof sdk_ops[0] };
    sluice_schema schema = { .document = ops_document, .document_len = sizeof ops_document - 1 };
    sluice_frontend_context sctx = { .code_mode = &sdk,
                                     .schema = &schema,
                                     .engine = SLUICE_ENGINE_OPENAPI };
    if (sluice_js_frontend()->analyze(arena, (const char *)data, size, NULL, &sctx, &facts, &err) ==
            SLUICE_OK &&
        !sluice_codefacts_refused(facts)) {
        if (st != SLUICE_OK)
            abort();
        /* an allowed SDK-mode plan calls only operations of the document */
        for (size_t i = 0; i < facts->operations.count; i++)
            if (strcmp(facts->operations.items[i], "getUser") != 0 &&
                strcmp(facts->operations.items[i], "getFile") != 0 &&
                strcmp(facts->operations.items[i], "setNote") != 0)
                abort();
    }
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
