/*
 * analysis_cache.h — the analyses of validated code, kept for their token's lifetime so
 * execute_code need not analyse the same code again.
 *
 * Owns: a bounded (SLUICE_LIMIT_ANALYSIS_CACHE_ENTRIES), thread-safe map from (canonical code
 * hash, context hash, variables hash) to a private deep copy of the facts, each entry expiring
 * at its token's expiry, least recently used evicted first; each entry also remembers the hash
 * of the exact text it was analysed from, so the same text finds it without being parsed.
 * Does not own: deciding when a hit may be used (pipeline.c computes every part of the key from
 * the live request, never from the token), policy or risk (judged again on every call).
 */
#ifndef SLUICE_CODEMODE_ANALYSIS_CACHE_H
#define SLUICE_CODEMODE_ANALYSIS_CACHE_H

#include "core/hash.h"
#include "facts/codefacts.h"

#include <stdint.h>

typedef struct sluice_analysis_cache sluice_analysis_cache;

/* Everything an analysis depends on: the code (canonical form), the context it was judged in
 * (language, backend, schema version, rules, policy version, route, groups) and the variables. */
typedef struct sluice_analysis_key {
    uint8_t code_hash[SLUICE_HASH_BYTES];
    uint8_t context_hash[SLUICE_HASH_BYTES];
    uint8_t variables_hash[SLUICE_HASH_BYTES];
} sluice_analysis_key;

/* The same entry found by the exact text instead of its canonical form: the SHA-256 of the
 * code's bytes as sent, with the context and variables hashes of sluice_analysis_key. */
typedef struct sluice_analysis_text_key {
    uint8_t text_hash[SLUICE_HASH_BYTES];
    uint8_t context_hash[SLUICE_HASH_BYTES];
    uint8_t variables_hash[SLUICE_HASH_BYTES];
} sluice_analysis_text_key;

/* A cache of at most capacity entries (0: SLUICE_LIMIT_ANALYSIS_CACHE_ENTRIES). NULL on NOMEM. */
sluice_analysis_cache *sluice_analysis_cache_new(size_t capacity);

/* Frees every entry. NULL is a no-op. */
void sluice_analysis_cache_free(sluice_analysis_cache *cache);

/* Keeps a deep copy of facts under key until expires_at_s (wall seconds) — replacing an entry
 * with the same key, else an expired one, else the least recently used. text_hash: SHA-256 of
 * the exact text facts were analysed from (an entry replaced by another text of the same
 * canonical form then answers for that text only). Refused facts are not kept
 * (SLUICE_E_INVALID). SLUICE_E_NOMEM: nothing was kept; the cache is unchanged otherwise.
 * Either failure only costs a later analysis. */
sluice_status sluice_analysis_cache_put(sluice_analysis_cache *cache,
                                        const sluice_analysis_key *key,
                                        const uint8_t text_hash[SLUICE_HASH_BYTES],
                                        const sluice_codefacts *facts,
                                        int64_t expires_at_s,
                                        int64_t now_s);

/* A deep copy in arena of the facts kept under key, when there is one and it has not expired at
 * now_s: SLUICE_OK and *out. SLUICE_E_NOT_FOUND: no live entry (an expired one is dropped).
 * SLUICE_E_NOMEM: no copy (*out NULL); the caller analyses instead. */
sluice_status sluice_analysis_cache_get(sluice_analysis_cache *cache,
                                        const sluice_analysis_key *key,
                                        int64_t now_s,
                                        sluice_arena *arena,
                                        sluice_codefacts **out);

/* sluice_analysis_cache_get by the exact text: the facts of the live entry analysed from the
 * text whose SHA-256 is key->text_hash, in key's context and with key's variables. Same results.
 * Since the canonical form is a function of the text and of what the context hash covers, that
 * entry is the one sluice_analysis_cache_get would find for the text's canonical hash. */
sluice_status sluice_analysis_cache_get_text(sluice_analysis_cache *cache,
                                             const sluice_analysis_text_key *key,
                                             int64_t now_s,
                                             sluice_arena *arena,
                                             sluice_codefacts **out);

/* Live and expired entries held now (for tests). */
size_t sluice_analysis_cache_count(sluice_analysis_cache *cache);

#endif
