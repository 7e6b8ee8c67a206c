/*
 * fuzz_clock_file.c — libFuzzer target for the test clock file's text (core/clock_file.h): any
 * bytes are a time or refused; an accepted time is within the range the parser promises.
 */
#include "core/clock_file.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t ms = -1;
    if (sluice_file_clock_parse((const char *)data, size, &ms) &&
        (ms < 0 || ms > 253402300799999LL))
        __builtin_trap();
    return 0;
}
