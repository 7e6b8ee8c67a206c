/*
 * approval_state.h — the requestState of a human approval asked through an MCP 2026-07-28
 * input_required result: sealed with the token keys, bound like an approval token, used once.
 *
 * Owns: the state's format ("<key id>.<base64url(payload | HMAC-SHA256)>", the payload being a
 * version byte, the expiry, a random 16-byte nonce, SHA-256 of the principal's user id and
 * SHA-256 of the approval token it was asked for; the MAC covers a domain label first, so it can
 * never pass for a token MAC under the same key), sealing it, and opening it: key known, MAC
 * right, not expired, same principal, same approval token, and its nonce consumed once in the
 * replay store (a replayed state is refused, on any replica sharing the store).
 * Does not own: the question put to the user or the answer (surface/tools.c), keys (key_store.h),
 * the store (replay.h).
 */
#ifndef SLUICE_CODEMODE_APPROVAL_STATE_H
#define SLUICE_CODEMODE_APPROVAL_STATE_H

#include "codemode/key_store.h"
#include "codemode/replay.h"
#include "core/arena.h"
#include "core/error.h"

#include <stdint.h>

/* Seals a state for user_id asking approval of approval_token, good until now +
 * SLUICE_LIMIT_APPROVAL_STATE_TTL_S, into *out (arena). SLUICE_E_NOMEM. */
sluice_status sluice_approval_state_seal(sluice_key_store *keys,
                                         const char *user_id,
                                         const char *approval_token,
                                         int64_t now,
                                         sluice_arena *arena,
                                         char **out,
                                         sluice_error *err);

/* Opens state for user_id and approval_token and consumes it. SLUICE_OK once. SLUICE_E_TOKEN
 * (err says which) when it is malformed, signed by no key we hold, altered, expired, or was
 * issued to another principal or for another token; SLUICE_E_DENIED when it was used already;
 * the replay store's failure status (SLUICE_E_IO, SLUICE_E_LIMIT, ...) when its use could not
 * be recorded — fail closed: the approval does not count then. */
sluice_status sluice_approval_state_open(sluice_key_store *keys,
                                         sluice_replay *replay,
                                         const char *state,
                                         const char *user_id,
                                         const char *approval_token,
                                         int64_t now,
                                         sluice_arena *arena,
                                         sluice_error *err);

#endif
