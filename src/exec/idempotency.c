/*
 * idempotency.c — the Idempotency-Key derivation (see idempotency.h).
 */
#include "exec/idempotency.h"

#include "core/hash.h"

#include <stdint.h>
#include <string.h>

void sluice_exec_idempotency_key(
    const char *token_id, const char *operation, const char *path, const char *body, char out[33])
{
    sluice_hash_state h;
    sluice_hash_start(&h);
    const char *parts[] = { "sluice-idempotency-v1", token_id != NULL ? token_id : "", operation,
                            path, body != NULL ? body : "" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        sluice_hash_update(&h, parts[i], strlen(parts[i]) + 1); /* with the NUL: no ambiguity */
    uint8_t d[SLUICE_HASH_BYTES];
    sluice_hash_finish(&h, d);
    sluice_hash_hex(d, 16, out);
}
