/*
 * hash_memo.c — a SHA-256 remembered for the last bytes it was asked of (see hash_memo.h).
 */
#include "core/hash_memo.h"

#include <string.h>

/* Whether parts[0..n) are, end to end, exactly the memo's bytes. */
static bool same_bytes(const sluice_hash_memo *memo, const sluice_hash_part *parts, size_t n)
{
    if (!memo->set)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].len > memo->len - at ||
            (parts[i].len > 0 && memcmp(memo->bytes + at, parts[i].data, parts[i].len) != 0))
            return false;
        at += parts[i].len;
    }
    return at == memo->len;
}

void sluice_hash_memo_sha256(sluice_hash_memo *memo,
                             const sluice_hash_part *parts,
                             size_t n,
                             uint8_t out[SLUICE_HASH_BYTES])
{
    if (same_bytes(memo, parts, n)) {
        memcpy(out, memo->hash, SLUICE_HASH_BYTES);
        return;
    }
    sluice_hash_state h;
    sluice_hash_start(&h);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        sluice_hash_update(&h, parts[i].data, parts[i].len);
        if (parts[i].len > 0 && total <= SLUICE_HASH_MEMO_BYTES &&
            parts[i].len <= SLUICE_HASH_MEMO_BYTES - total)
            memcpy(memo->bytes + total, parts[i].data, parts[i].len);
        total += parts[i].len;
    }
    sluice_hash_finish(&h, out);
    /* kept only when every byte fit; otherwise the memo forgets what it held */
    memo->set = total <= SLUICE_HASH_MEMO_BYTES;
    memo->len = total;
    if (memo->set)
        memcpy(memo->hash, out, SLUICE_HASH_BYTES);
}
