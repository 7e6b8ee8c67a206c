/*
 * replay.h — single use of approval tokens: the consume-once store of token ids, behind a small
 * ops table.
 *
 * Owns: the store interface (sluice_replay_store_ops + an opaque handle) and its contract, and
 * the file store: a thread-safe set of used token ids, each kept until its token expires (after
 * that the token is refused as expired anyway), persisted as an append-only file of
 * "<32 hex token id> <expires_at>\n" lines, reloaded on open (expired lines dropped, the file
 * compacted by an atomic rename), so a replay is refused across a restart within the TTL.
 * A consume returns only once its line is durable (an acknowledged consume that a crash forgot
 * would reopen the replay window), but concurrent consumes share one fdatasync: a group commit
 * (core/group_commit.h). The file is flock'ed: one sluice process per file store.
 * Does not own: token verification (token.h); call consume only after verify succeeds, so a
 * mismatched attempt does not burn a good token; the store replicas share (Redis,
 * replay_redis.c, opened through state_redis.h).
 */
#ifndef SLUICE_STATE_REPLAY_H
#define SLUICE_STATE_REPLAY_H

#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A consumed id is 16 random bytes: an approval token's id (token/token.h SLUICE_TOKEN_ID_BYTES)
 * or an approval requestState's nonce. The store does not read tokens; codemode/pipeline.c
 * checks at compile time that the two sizes agree. */
#define SLUICE_REPLAY_ID_BYTES 16u

/* The store contract. Every op is called with the store's own impl pointer; all are
 * thread-safe.
 * consume: an atomic test-and-set of token_id over everyone sharing the store (two concurrent
 *   consumes of one id, from any thread or server, cannot both get SLUICE_OK), durable before
 *   SLUICE_OK returns (a crash or restart never forgets an acknowledged consume while the id is
 *   live, i.e. until expires_at). SLUICE_E_DENIED: already used. Any other status
 *   (SLUICE_E_LIMIT full, SLUICE_E_IO, SLUICE_E_NOMEM, ...) is a failure and the caller must
 *   refuse the token (fail closed); the id must then never be reported unused later either.
 *   now is the caller's clock, for pruning expired ids.
 * count: live ids held (expired ones not yet pruned may be counted; the Redis store counts the
 *   ids this replica consumed).
 * close: frees impl; no op is called after it. */
typedef struct sluice_replay_store_ops {
    const char *name;
    sluice_status (*consume)(void *impl,
                             const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                             int64_t expires_at,
                             int64_t now);
    size_t (*count)(void *impl);
    void (*close)(void *impl);
} sluice_replay_store_ops;

typedef struct sluice_replay sluice_replay;

/* Wraps an implementation in a handle; on SLUICE_E_NOMEM impl is closed through ops. */
sluice_status
sluice_replay_wrap(const sluice_replay_store_ops *ops, void *impl, sluice_replay **out);

/* Says why the store's last op failed, naming its server (for the refusal the caller sends);
 * set once after wrapping, for stores on another server (replay_redis.c). */
typedef void (*sluice_replay_describe_fn)(void *impl, char *buf, size_t cap);
void sluice_replay_set_describe(sluice_replay *store, sluice_replay_describe_fn describe);

/* Tuning of the file store for benchmarks; NULL for the defaults. per_record_sync makes every
 * consume take its own fdatasync under the mutex, as before group commit (bench/durable). */
typedef struct sluice_replay_file_options {
    bool per_record_sync;
} sluice_replay_file_options;

/* Opens the file store (creating the file, mode 0600) at path, loading the ids that have not
 * expired at now. path NULL keeps the store in memory only. SLUICE_E_IO when the file cannot be
 * read, written or locked (another process holds it), with a message naming the file. */
sluice_status sluice_replay_open_file(const char *path,
                                      int64_t now,
                                      const sluice_replay_file_options *options,
                                      sluice_replay **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* sluice_replay_open_file with NULL options. */
sluice_status sluice_replay_open(
    const char *path, int64_t now, sluice_replay **out, sluice_arena *err_arena, sluice_error *err);

/* Marks token_id used until expires_at (the consume op, see the contract above). SLUICE_OK the
 * first time; SLUICE_E_DENIED when it was already used; SLUICE_E_LIMIT when the store is full
 * of live ids; SLUICE_E_IO when the record could not be made durable (the id still counts as
 * used, and after a failed fdatasync the file store refuses every later consume too: fail
 * closed). */
sluice_status sluice_replay_consume(sluice_replay *store,
                                    const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now);

/* Live ids held (expired ones not yet pruned may be counted). */
size_t sluice_replay_count(sluice_replay *store);

/* Why the store's last op failed ("Redis at HOST:PORT: Connection refused"), or "the <name>
 * store" for a store that does not say; copied into buf. */
void sluice_replay_describe(sluice_replay *store, char *buf, size_t cap);

/* Closes the store and frees the handle. NULL does nothing. */
void sluice_replay_close(sluice_replay *store);

#endif
