/*
 * idempotency.h — the idempotency key of a plan's Write or Delete call (issue 16 §2): derived
 * from the approval token id and the call's position in the run, so a retry of the same call
 * carries the same key and two calls never share one.
 *
 * Owns: the derivation, one for every kind of call (an API call's Idempotency-Key header, an MCP
 * tool call's _meta.idempotencyKey) and for the audit record of the call.
 * Does not own: whether a call needs one (the caller: Write and Delete do).
 */
#ifndef SLUICE_EXEC_IDEMPOTENCY_H
#define SLUICE_EXEC_IDEMPOTENCY_H

#include <stddef.h>

/* Hex characters of a key (128 bits). */
#define SLUICE_IDEMPOTENCY_KEY_HEX 32u

/* Writes the key of call number index (0-based, sluice_js_call.index) of the run approved by
 * token_id into out (NUL-terminated): the first 128 bits of SHA-256("sluice idempotency" NUL
 * token_id NUL decimal index), in hex. token_id NULL is taken as "". Never fails. */
void sluice_idempotency_key(const char *token_id,
                            size_t index,
                            char out[SLUICE_IDEMPOTENCY_KEY_HEX + 1]);

#endif
