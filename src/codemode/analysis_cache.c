/*
 * analysis_cache.c — the bounded, thread-safe cache of validated analyses (analysis_cache.h).
 *
 * Owns: the entries (each one arena holding its facts' deep copy and the hash of the text they
 * came from), expiry against the caller's clock reading, and least-recently-used eviction by a
 * use counter. A linear scan over at most
 * SLUICE_LIMIT_ANALYSIS_CACHE_ENTRIES keys is a few hundred nanoseconds, less than any index.
 * Does not own: the key's meaning (pipeline.c) or how facts are copied (facts/codefacts_copy.c).
 */
#include "codemode/analysis_cache.h"

#include "core/limits.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    sluice_analysis_key key;
    uint8_t text_hash[SLUICE_HASH_BYTES]; /* of the text the facts were analysed from */
    sluice_arena *arena;                  /* NULL: the slot is free */
    sluice_codefacts *facts;
    int64_t expires_at_s;
    uint64_t used; /* the cache's use counter at the last put or hit */
} entry;

struct sluice_analysis_cache {
    pthread_mutex_t lock;
    size_t capacity;
    uint64_t clock; /* use counter */
    entry *entries;
};

sluice_analysis_cache *sluice_analysis_cache_new(size_t capacity)
{
    sluice_analysis_cache *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->capacity = capacity > 0 ? capacity : SLUICE_LIMIT_ANALYSIS_CACHE_ENTRIES;
    c->entries = calloc(c->capacity, sizeof *c->entries);
    if (c->entries == NULL || pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c->entries);
        free(c);
        return NULL;
    }
    return c;
}

static void drop(entry *e)
{
    sluice_arena_free(e->arena);
    memset(e, 0, sizeof *e);
}

void sluice_analysis_cache_free(sluice_analysis_cache *cache)
{
    if (cache == NULL)
        return;
    for (size_t i = 0; i < cache->capacity; i++)
        drop(&cache->entries[i]);
    pthread_mutex_destroy(&cache->lock);
    free(cache->entries);
    free(cache);
}

/* Caller holds the lock. */
static entry *find(sluice_analysis_cache *c, const sluice_analysis_key *key)
{
    for (size_t i = 0; i < c->capacity; i++)
        if (c->entries[i].arena != NULL && memcmp(&c->entries[i].key, key, sizeof *key) == 0)
            return &c->entries[i];
    return NULL;
}

/* Caller holds the lock. */
static entry *find_text(sluice_analysis_cache *c, const sluice_analysis_text_key *key)
{
    for (size_t i = 0; i < c->capacity; i++) {
        const entry *e = &c->entries[i];
        if (e->arena != NULL && memcmp(e->text_hash, key->text_hash, sizeof e->text_hash) == 0 &&
            memcmp(e->key.context_hash, key->context_hash, sizeof e->key.context_hash) == 0 &&
            memcmp(e->key.variables_hash, key->variables_hash, sizeof e->key.variables_hash) == 0)
            return &c->entries[i];
    }
    return NULL;
}

/* The slot a new entry takes: a free one, else an expired one, else the least recently used.
 * Caller holds the lock. */
static entry *victim(sluice_analysis_cache *c, int64_t now_s)
{
    entry *lru = &c->entries[0];
    for (size_t i = 0; i < c->capacity; i++) {
        entry *e = &c->entries[i];
        if (e->arena == NULL || e->expires_at_s <= now_s)
            return e;
        if (e->used < lru->used)
            lru = e;
    }
    return lru;
}

sluice_status sluice_analysis_cache_put(sluice_analysis_cache *cache,
                                        const sluice_analysis_key *key,
                                        const uint8_t text_hash[SLUICE_HASH_BYTES],
                                        const sluice_codefacts *facts,
                                        int64_t expires_at_s,
                                        int64_t now_s)
{
    if (sluice_codefacts_refused(facts) || expires_at_s <= now_s)
        return SLUICE_E_INVALID;
    /* copy outside the lock: it is the slow part */
    sluice_arena *arena = sluice_arena_new();
    sluice_codefacts *copy = arena != NULL ? sluice_codefacts_copy(facts, arena) : NULL;
    if (copy == NULL || sluice_arena_failed(arena)) {
        sluice_arena_free(arena);
        return SLUICE_E_NOMEM;
    }
    pthread_mutex_lock(&cache->lock);
    entry *e = find(cache, key);
    if (e == NULL)
        e = victim(cache, now_s);
    drop(e);
    *e = (entry){ .key = *key,
                  .arena = arena,
                  .facts = copy,
                  .expires_at_s = expires_at_s,
                  .used = ++cache->clock };
    memcpy(e->text_hash, text_hash, sizeof e->text_hash);
    pthread_mutex_unlock(&cache->lock);
    return SLUICE_OK;
}

/* A copy in arena of e's facts when e is live at now_s (an expired e is dropped). Caller holds
 * the lock: the copy is made under it, since another thread may evict the entry as soon as it
 * is released. */
static sluice_status hit(sluice_analysis_cache *cache,
                         entry *e,
                         int64_t now_s,
                         sluice_arena *arena,
                         sluice_codefacts **out)
{
    if (e != NULL && e->expires_at_s <= now_s) {
        drop(e);
        e = NULL;
    }
    if (e == NULL)
        return SLUICE_E_NOT_FOUND;
    e->used = ++cache->clock;
    *out = sluice_codefacts_copy(e->facts, arena);
    return *out != NULL && !sluice_arena_failed(arena) ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_analysis_cache_get(sluice_analysis_cache *cache,
                                        const sluice_analysis_key *key,
                                        int64_t now_s,
                                        sluice_arena *arena,
                                        sluice_codefacts **out)
{
    *out = NULL;
    pthread_mutex_lock(&cache->lock);
    sluice_status st = hit(cache, find(cache, key), now_s, arena, out);
    pthread_mutex_unlock(&cache->lock);
    if (st == SLUICE_E_NOMEM)
        *out = NULL;
    return st;
}

sluice_status sluice_analysis_cache_get_text(sluice_analysis_cache *cache,
                                             const sluice_analysis_text_key *key,
                                             int64_t now_s,
                                             sluice_arena *arena,
                                             sluice_codefacts **out)
{
    *out = NULL;
    pthread_mutex_lock(&cache->lock);
    sluice_status st = hit(cache, find_text(cache, key), now_s, arena, out);
    pthread_mutex_unlock(&cache->lock);
    if (st == SLUICE_E_NOMEM)
        *out = NULL;
    return st;
}

size_t sluice_analysis_cache_count(sluice_analysis_cache *cache)
{
    size_t n = 0;
    pthread_mutex_lock(&cache->lock);
    for (size_t i = 0; i < cache->capacity; i++)
        n += cache->entries[i].arena != NULL;
    pthread_mutex_unlock(&cache->lock);
    return n;
}
