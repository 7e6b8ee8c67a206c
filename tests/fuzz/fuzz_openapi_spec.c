/*
 * fuzz_openapi_spec.c — libFuzzer target for the OpenAPI reader: the input is a spec (JSON or
 * YAML) and, after a NUL byte, a call path. The spec is read (lazy $refs checked, recursive
 * types, x-multi-segment parameters); when it loads it is rendered as the model reads it
 * (declaration, describe entries, operations document) and the path is matched as validate and
 * the run match it (core/path_template.c), the run's value rules and encoding included.
 * Seeds: tests/fuzz/corpus/fuzz_openapi_spec/.
 */
#include "exec/openapi_match.h"
#include "exec/openapi_spec.h"
#include "exec/schema.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t spec_len = nul != NULL ? (size_t)(nul - text) : size;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    /* the call path as a C string (it follows the NUL; "/" when there is none) */
    char *path = sluice_arena_strndup(arena, nul != NULL ? nul + 1 : "/",
                                      nul != NULL ? size - spec_len - 1 : 1);
    sluice_config_code_mode cm = { .openapi_reads_enabled = true, .openapi_allow_writes = true };
    sluice_openapi_spec spec;
    sluice_error err = { 0 };
    if (path != NULL &&
        sluice_openapi_spec_parse(arena, "fuzz", text, spec_len, &cm, &spec, &err) == SLUICE_OK) {
        sluice_schema entries = { 0 };
        sluice_openapi_spec_declaration(arena, &spec, &cm, NULL, NULL);
        sluice_openapi_spec_document(arena, &spec);
        sluice_openapi_spec_entries(arena, &spec, &cm, &entries);
        const sluice_openapi_op *op = NULL;
        const char *url = NULL;
        sluice_openapi_match_template(&spec, "GET", path);
        const char *parts[] = { path };
        if (sluice_openapi_match_call(arena, &spec, "GET", path, parts, 1, &op, &url, &err) ==
                SLUICE_OK &&
            op->body_schema != NULL) {
            json_t *v = json_loads(path + 1, JSON_DECODE_ANY, NULL);
            if (v != NULL)
                sluice_openapi_check_value(arena, spec.doc, op->body_schema, v, "body", &err);
            json_decref(v);
        }
    }
    sluice_arena_free(arena);
    return 0;
}
