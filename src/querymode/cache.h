/*
 * cache.h — query mode's per-principal source cache: the rows a load fetched, keyed by
 * (principal, source, request parameters), kept for the source's cache_ttl_seconds on the
 * injectable clock, so an auto-load that asks the same again (from any of the principal's
 * sessions) reads no page.
 *
 * Owns: entries (rows as JSON arrays, shared by reference, never changed after put), expiry, the
 * byte cap (oldest entries go first; an entry larger than the cap is not kept). Does not own: what
 * a key means (fanout.c builds it), loading (loader.c).
 *
 * Threads: one mutex; rows handed out are immutable and reference-counted.
 */
#ifndef SLUICE_QUERYMODE_CACHE_H
#define SLUICE_QUERYMODE_CACHE_H

#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "exec/executor.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_qm_cache sluice_qm_cache;

/* A cache of at most max_bytes (as the pages measured); clock NULL = the system clock and must
 * outlive it. SLUICE_E_NOMEM. */
sluice_status
sluice_qm_cache_new(size_t max_bytes, const sluice_clock *clock, sluice_qm_cache **out);
void sluice_qm_cache_free(sluice_qm_cache *c);

/* One cached load. */
typedef struct sluice_qm_cached {
    json_t *rows;                /* array of row arrays; a new reference the caller decrefs */
    sluice_exec_column *columns; /* in the arena given to get */
    size_t column_count;
    int64_t pages;
} sluice_qm_cached;

/* True and *out filled when user has a live entry for key. False on a miss or NOMEM (a miss is
 * always safe: the caller loads). */
bool sluice_qm_cache_get(sluice_qm_cache *c,
                         const char *user,
                         const char *key,
                         sluice_arena *arena,
                         sluice_qm_cached *out);

/* Keeps rows (a reference is taken) for ttl_ms. Silently keeps nothing when ttl_ms <= 0, the
 * entry exceeds the cap or memory runs out: the cache is an optimisation, never a source of
 * truth. */
void sluice_qm_cache_put(sluice_qm_cache *c,
                         const char *user,
                         const char *key,
                         int64_t ttl_ms,
                         json_t *rows,
                         const sluice_exec_column *columns,
                         size_t column_count,
                         size_t bytes,
                         int64_t pages);

/* Live entries (expired ones are dropped first). */
size_t sluice_qm_cache_count(sluice_qm_cache *c);

#endif
