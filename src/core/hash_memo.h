/*
 * hash_memo.h — a SHA-256 (or a SHA-256 state) remembered for the last bytes it was asked of.
 *
 * Owns: comparing a hash's input, given in parts, with the bytes one memo last hashed, and
 * answering from the memo when they are the same bytes (else hashing them and remembering). It
 * exists because validate hashes the same small inputs on every call from one caller (the judged
 * context, the token's user and session, the start of the token's binding); keyed by every byte of
 * the input, the memo cannot answer for anything else, so no reload, identity or setting can make
 * it stale.
 * Does not own: the hash (core/hash.h) or where a memo lives (callers keep one per thread).
 */
#ifndef SLUICE_CORE_HASH_MEMO_H
#define SLUICE_CORE_HASH_MEMO_H

#include "core/hash.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inputs longer than this are hashed every time (nothing kept). */
#define SLUICE_HASH_MEMO_BYTES 640u

/* The bytes a memo last hashed (set: all of them fit and what they gave is kept). */
typedef struct sluice_hash_memo_key {
    bool set;
    size_t len;
    unsigned char bytes[SLUICE_HASH_MEMO_BYTES];
} sluice_hash_memo_key;

typedef struct sluice_hash_memo {
    sluice_hash_memo_key key;
    uint8_t hash[SLUICE_HASH_BYTES];
} sluice_hash_memo;

/* For an input that starts with the same bytes on every call: the state that absorbed them. */
typedef struct sluice_hash_prefix_memo {
    sluice_hash_memo_key key;
    sluice_hash_state state;
} sluice_hash_prefix_memo;

/* One piece of a hash's input. */
typedef struct sluice_hash_part {
    const void *data;
    size_t len;
} sluice_hash_part;

/* out = SHA-256 of parts[0..n) laid end to end, from memo when it last hashed those same bytes.
 * A memo is not thread-safe: keep one per thread (_Thread_local). */
void sluice_hash_memo_sha256(sluice_hash_memo *memo,
                             const sluice_hash_part *parts,
                             size_t n,
                             uint8_t out[SLUICE_HASH_BYTES]);

/* *out = a streaming state (sluice_hash_start) that has absorbed parts[0..n) laid end to end,
 * from memo when it last absorbed those same bytes; the caller goes on with sluice_hash_update
 * and sluice_hash_finish. One per thread, as above. */
void sluice_hash_prefix_memo_start(sluice_hash_prefix_memo *memo,
                                   const sluice_hash_part *parts,
                                   size_t n,
                                   sluice_hash_state *out);

#endif
