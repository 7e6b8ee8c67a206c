/*
 * fuzz_toml.c — libFuzzer target for sluice_toml_parse: any bytes, a fresh arena each time.
 * Crashes, leaks, sanitizer reports and timeouts are bugs; a parse error is a normal outcome.
 */
#include "config/toml.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return 0;
    sluice_toml_value *root = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_toml_parse(arena, (const char *)data, size, "fuzz.toml", &root, &err) != SLUICE_OK)
        (void)sluice_error_render(arena, &err, (const char *)data, size);
    sluice_arena_free(arena);
    return 0;
}
