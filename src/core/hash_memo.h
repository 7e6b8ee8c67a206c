/*
 * hash_memo.h — a SHA-256 remembered for the last bytes it was asked of.
 *
 * Owns: comparing a hash's input, given in parts, with the bytes one memo last hashed, and
 * answering from the memo when they are the same bytes (else hashing them and remembering). It
 * exists because validate hashes the same small inputs on every call from one caller (the judged
 * context, the token's user and session); keyed by every byte of the input, the memo cannot
 * answer for anything else, so no reload, identity or setting can make it stale.
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

typedef struct sluice_hash_memo {
    bool set;
    size_t len;
    uint8_t hash[SLUICE_HASH_BYTES];
    unsigned char bytes[SLUICE_HASH_MEMO_BYTES];
} sluice_hash_memo;

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

#endif
