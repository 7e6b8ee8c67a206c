/*
 * idempotency.c — deriving a plan call's idempotency key (see idempotency.h). A hash, not the
 * token id itself, so the key a downstream stores reveals nothing of the token.
 */
#include "exec/idempotency.h"

#include "core/hash.h"

#include <stdio.h>
#include <string.h>

void sluice_idempotency_key(const char *token_id,
                            size_t index,
                            char out[SLUICE_IDEMPOTENCY_KEY_HEX + 1])
{
    static const char domain[] = "sluice idempotency"; /* its NUL separates it from the id */
    const char *id = token_id != NULL ? token_id : "";
    char tail[32];
    int tn = snprintf(tail, sizeof tail, "%zu", index);
    sluice_hash_state st;
    sluice_hash_start(&st);
    sluice_hash_update(&st, domain, sizeof domain);
    sluice_hash_update(&st, id, strlen(id) + 1);
    sluice_hash_update(&st, tail, (size_t)tn);
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_finish(&st, h);
    sluice_hash_hex(h, SLUICE_IDEMPOTENCY_KEY_HEX / 2, out);
}
