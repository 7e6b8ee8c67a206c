/*
 * approval_state.h — the requestState of a human approval asked through an MCP 2026-07-28
 * input_required result: sealed with the token keys, bound like an approval token, used once.
 *
 * Owns: the state's format ("<key id>.<base64url(payload | HMAC-SHA256)>", the payload being a
 * version byte, the expiry, a random 16-byte nonce, SHA-256 of the principal's user id and
 * SHA-256 of the approval token it was asked for; the MAC covers a domain label first, so it can
 * never pass for a token MAC under the same key), sealing it, and opening it: key known, MAC
 * right, not expired, same principal, same approval token; it hands back the nonce and expiry the
 * caller must consume once in the replay store (codemode/approval_gate.h
 * sluice_approval_state_open: a replayed state is refused, on any replica sharing the store).
 * Does not own: the question put to the user or the answer (surface/tools.c), keys (key_store.h),
 * single use (state/replay.h, below this layer's neighbour: token/ and state/ never include each
 * other).
 */
#ifndef SLUICE_TOKEN_APPROVAL_STATE_H
#define SLUICE_TOKEN_APPROVAL_STATE_H

#include "core/arena.h"
#include "core/error.h"
#include "token/key_store.h"
#include "token/token.h"

#include <stdint.h>

/* Whom a state is for: the principal asked, and the approval token the asking is about. A state
 * opens only for the same two. */
typedef struct sluice_approval_state_binding {
    const char *user_id;
    const char *approval_token;
} sluice_approval_state_binding;

/* Seals a state for b, good until now + SLUICE_LIMIT_APPROVAL_STATE_TTL_S, into *out (arena).
 * SLUICE_E_NOMEM. */
sluice_status sluice_approval_state_seal(sluice_key_store *keys,
                                         const sluice_approval_state_binding *b,
                                         int64_t now,
                                         sluice_arena *arena,
                                         char **out,
                                         sluice_error *err);

/* What a client sent back to answer an approval asked through an input_required result. */
typedef struct sluice_approval_state_answer {
    const char *state; /* the requestState, as the client returned it */
    /* the principal answering, and the approval token the state must have been sealed for */
    sluice_approval_state_binding binding;
} sluice_approval_state_answer;

/* What an opened state still has to spend: its nonce, once, until it expires. */
typedef struct sluice_approval_state_claim {
    uint8_t nonce[SLUICE_TOKEN_ID_BYTES];
    int64_t expires_at;
} sluice_approval_state_claim;

/* Verifies answer->state for answer->binding into *claim. SLUICE_OK: genuine, bound to them and
 * live, but NOT yet used: the approval counts only once the caller has consumed claim->nonce
 * (codemode/approval_gate.h sluice_approval_state_open). SLUICE_E_TOKEN (err says which) when it
 * is malformed, signed by no key we hold, altered, expired, or was issued to another principal or
 * for another token. */
sluice_status sluice_approval_state_verify(sluice_key_store *keys,
                                           const sluice_approval_state_answer *answer,
                                           int64_t now,
                                           sluice_arena *arena,
                                           sluice_approval_state_claim *claim,
                                           sluice_error *err);

#endif
