/*
 * replay_redis.c — the consume-once store shared by replicas: token ids in Redis (see replay.h).
 *
 * A consume is one `SET <prefix>token:<hex id> 1 NX PX <ms until the token expires>`: Redis
 * answers OK to exactly one of any number of concurrent consumes of an id, from any replica, and
 * forgets the id when the token could no longer be opened anyway (expired). Anything but OK or a
 * nil reply (already used) is a failure the pipeline refuses on: fail closed. A failure after the
 * SET was sent may leave the id used (a later consume is refused: safe); a failure before it
 * leaves it unused, but then nothing ran on it either, so a later consume is still its only use.
 * Durability is Redis's own (appendonly yes, appendfsync always: docs/deploy.md).
 * Does not own: the connection and reconnecting (redis_conn.c), token checks (token.h).
 */
#include "core/hash.h"
#include "state/state_redis.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

typedef struct replay_redis {
    sluice_redis_store base; /* first: the connection and the prefix */
    atomic_size_t consumed;  /* by this replica, for count() */
} replay_redis;

static sluice_status redis_consume(void *impl,
                                   const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                                   int64_t expires_at,
                                   int64_t now)
{
    replay_redis *s = impl;
    char hex[2 * SLUICE_REPLAY_ID_BYTES + 1], key[SLUICE_STATE_PREFIX_MAX + 64], ttl[32];
    sluice_hash_hex(token_id, SLUICE_REPLAY_ID_BYTES, hex);
    snprintf(key, sizeof key, "%stoken:%s", s->base.prefix, hex);
    int64_t left = expires_at > now ? expires_at - now : 1; /* an expired token never got here */
    snprintf(ttl, sizeof ttl, "%lld", (long long)left * 1000);
    const char *argv[] = { "SET", key, "1", "NX", "PX", ttl };
    redisReply *reply = sluice_redis_run(s->base.redis, 6, argv, NULL);
    if (reply == NULL)
        return SLUICE_E_IO;
    sluice_status st = SLUICE_E_IO;
    if (reply->type == REDIS_REPLY_NIL)
        st = SLUICE_E_DENIED;
    else if (reply->type == REDIS_REPLY_STATUS && strcmp(reply->str, "OK") == 0)
        st = SLUICE_OK;
    freeReplyObject(reply);
    if (st == SLUICE_OK)
        atomic_fetch_add(&s->consumed, 1);
    return st;
}

static size_t redis_count(void *impl)
{
    replay_redis *s = impl;
    return atomic_load(&s->consumed);
}

static void redis_last_error(void *impl, char *buf, size_t cap)
{
    replay_redis *s = impl;
    sluice_redis_last_error(s->base.redis, buf, cap);
}

static const sluice_replay_store_ops redis_ops = {
    .name = "Redis",
    .consume = redis_consume,
    .count = redis_count,
    .close = sluice_redis_store_free,
};

sluice_status sluice_replay_open_redis(const sluice_state_redis_options *options,
                                       sluice_replay **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err)
{
    void *s = NULL;
    sluice_status st = sluice_redis_store_new(options, sizeof(replay_redis), &s, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    st = sluice_replay_wrap(&redis_ops, s, out);
    if (st == SLUICE_OK)
        sluice_replay_set_describe(*out, redis_last_error);
    return st;
}
