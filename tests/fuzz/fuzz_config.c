/*
 * fuzz_config.c — libFuzzer target for the configuration loader (sluice_config_load_text):
 * TOML syntax, then every key table, range, cross-check and did-you-mean.
 * Seeds: tests/fuzz/corpus/fuzz_config/ and the folder fuzz_config.seed_dirs names there (the
 * loader's unit-test data, read in place).
 */
#include "config/config.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *err_arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    /* No directory: a resource file = "..." stays relative to where the fuzzer runs. */
    if (sluice_config_load_text((const char *)data, size, "<fuzz>", NULL, &cfg, err_arena, &err) ==
        SLUICE_OK)
        sluice_config_free(cfg);
    sluice_arena_free(err_arena);
    return 0;
}
