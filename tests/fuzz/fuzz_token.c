/*
 * fuzz_token.c — libFuzzer target for the approval token decoder and verifier: any bytes must
 * be refused cleanly (no crash, no leak, no read past the input) or verify as a real token.
 * The key below is a fixed test key, known only to this harness and its seed corpus.
 */
#include "codemode/token.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_KEY "sluice-key-v1 fuzz AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

static sluice_secret_ring *fuzz_ring(void)
{
    static sluice_secret_ring *ring; /* built once, kept for the process */
    if (ring == NULL) {
        char line[] = FUZZ_KEY;
        sluice_secret *key = NULL;
        if (sluice_secret_parse(line, strlen(line), "fuzz", &key, NULL, NULL) == SLUICE_OK)
            sluice_secret_ring_new(key, &ring);
    }
    return ring;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_secret_ring *ring = fuzz_ring();
    if (arena == NULL || ring == NULL) {
        sluice_arena_free(arena);
        return 0;
    }
    sluice_token_claims claims;
    sluice_token_problem problem;
    sluice_error err;
    sluice_token_decode(arena, (const char *)data, size, &claims, &problem, &err);
    sluice_token_claims want = { 0 };
    want.user_id = "alice";
    want.session_id = "s1";
    want.server_id = "fuzz";
    sluice_token_verify(ring, (const char *)data, size, &want, 1800000000, arena, &claims, &problem,
                        &err);
    sluice_arena_free(arena);
    return 0;
}
