/*
 * hash_memo.c — a SHA-256 (or a SHA-256 state) remembered for the last bytes it was asked of (see
 * hash_memo.h).
 */
#include "core/hash_memo.h"

#include <string.h>

/* Whether parts[0..n) are, end to end, exactly the bytes key holds. */
static bool remembered(const sluice_hash_memo_key *key, const sluice_hash_part *parts, size_t n)
{
    if (!key->set)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].len > key->len - at ||
            (parts[i].len > 0 && memcmp(key->bytes + at, parts[i].data, parts[i].len) != 0))
            return false;
        at += parts[i].len;
    }
    return at == key->len;
}

/* Feeds parts[0..n) into h and makes them key's bytes; key is set only when every byte fit
 * (otherwise it forgets what it held). */
static void
absorb(sluice_hash_memo_key *key, sluice_hash_state *h, const sluice_hash_part *parts, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        sluice_hash_update(h, parts[i].data, parts[i].len);
        if (parts[i].len > 0 && total <= SLUICE_HASH_MEMO_BYTES &&
            parts[i].len <= SLUICE_HASH_MEMO_BYTES - total)
            memcpy(key->bytes + total, parts[i].data, parts[i].len);
        total += parts[i].len;
    }
    key->set = total <= SLUICE_HASH_MEMO_BYTES;
    key->len = total;
}

void sluice_hash_memo_sha256(sluice_hash_memo *memo,
                             const sluice_hash_part *parts,
                             size_t n,
                             uint8_t out[SLUICE_HASH_BYTES])
{
    if (remembered(&memo->key, parts, n)) {
        memcpy(out, memo->hash, SLUICE_HASH_BYTES);
        return;
    }
    sluice_hash_state h;
    sluice_hash_start(&h);
    absorb(&memo->key, &h, parts, n);
    sluice_hash_finish(&h, out);
    memcpy(memo->hash, out, SLUICE_HASH_BYTES);
}

void sluice_hash_prefix_memo_start(sluice_hash_prefix_memo *memo,
                                   const sluice_hash_part *parts,
                                   size_t n,
                                   sluice_hash_state *out)
{
    if (!remembered(&memo->key, parts, n)) {
        sluice_hash_start(&memo->state);
        absorb(&memo->key, &memo->state, parts, n);
    }
    *out = memo->state; /* a plain copy: the state holds no pointer */
}
