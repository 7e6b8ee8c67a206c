/*
 * state_redis.h — the state replicas share, in Redis: opening the consume-once token store and
 * the approval store on one Redis server ([state] redis_url).
 *
 * Owns: the options both stores take (the connection and the key prefix that keeps several
 * deployments apart on one server), their constructors, and opening both from [state]
 * (state_redis.c). Does not own: the store contracts
 * (replay.h, approval.h), the keys each store writes (replay_redis.c, approval_redis.c), the
 * connection (redis_conn.h).
 */
#ifndef SLUICE_STATE_STATE_REDIS_H
#define SLUICE_STATE_STATE_REDIS_H

#include "config/config.h"
#include "core/limits.h"
#include "state/approval.h"
#include "state/quota.h"
#include "state/redis_conn.h"
#include "state/replay.h"

#define SLUICE_STATE_PREFIX_MAX SLUICE_LIMIT_STATE_PREFIX_BYTES

typedef struct sluice_state_redis_options {
    sluice_redis_options connection;
    const char *prefix; /* at most SLUICE_STATE_PREFIX_MAX bytes, e.g. "sluice:" */
} sluice_state_redis_options;

/* What both Redis stores hold first: the connection and the key prefix. */
typedef struct sluice_redis_store {
    sluice_redis *redis;
    char prefix[SLUICE_STATE_PREFIX_MAX + 1];
} sluice_redis_store;

/* A zeroed store of size bytes (a struct whose first member is a sluice_redis_store) with its
 * connection opened and prefix copied, into *out. SLUICE_E_NOMEM or sluice_redis_open's
 * failures (nothing allocated then). */
sluice_status sluice_redis_store_new(const sluice_state_redis_options *options,
                                     size_t size,
                                     void **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* Closes the connection and frees the store (the close op of both stores). */
void sluice_redis_store_free(void *store);

/* Opens the Redis token store (replay_redis.c); it connects on first use. SLUICE_E_CONFIG (bad
 * URL), SLUICE_E_IO (password unreadable), SLUICE_E_NOMEM. */
sluice_status sluice_replay_open_redis(const sluice_state_redis_options *options,
                                       sluice_replay **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err);

/* Opens the Redis approval store (approval_redis.c); same failures. */
sluice_status sluice_approval_open_redis(const sluice_state_redis_options *options,
                                         sluice_approval_store **out,
                                         sluice_arena *err_arena,
                                         sluice_error *err);

/* Opens the Redis quota counters (quota_redis.c), shared by replicas; same failures. */
sluice_status sluice_quota_open_redis(const sluice_state_redis_options *options,
                                      sluice_quota **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* The options of [state]'s Redis (redis_url set), with its defaults. */
sluice_state_redis_options sluice_state_redis_options_of(const sluice_config_state *state);

/* Opens both stores on the Redis of [state] (redis_url set): *replay and *approvals, or neither
 * (the failure of either, as above). */
sluice_status sluice_state_redis_open(const sluice_config_state *state,
                                      sluice_replay **replay,
                                      sluice_approval_store **approvals,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

#endif
