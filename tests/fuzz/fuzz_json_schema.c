/*
 * fuzz_json_schema.c — libFuzzer target for the JSON Schema subset: the input is a schema and an
 * instance separated by a NUL byte (or the same document twice when there is none); the schema
 * is checked and, when accepted, the instance validated against it.
 * Seeds: tests/fuzz/corpus/fuzz_json_schema/.
 */
#include "core/json_schema.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t schema_len = nul != NULL ? (size_t)(nul - text) : size;
    const char *inst = nul != NULL ? nul + 1 : text;
    size_t inst_len = nul != NULL ? size - schema_len - 1 : size;
    json_t *schema = json_loadb(text, schema_len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    json_t *instance = json_loadb(inst, inst_len, JSON_DECODE_ANY, NULL);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    if (schema != NULL && instance != NULL &&
        sluice_json_schema_check(schema, "schema", arena, &err) == SLUICE_OK)
        sluice_json_schema_validate(schema, instance, "value", arena, &err);
    sluice_arena_free(arena);
    json_decref(schema);
    json_decref(instance);
    return 0;
}
