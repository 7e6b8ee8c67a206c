/*
 * redis_conn.h — one connection to the Redis server that holds the state replicas share
 * (consume-once token ids, pending approvals), reconnected when it breaks.
 *
 * Owns: parsing [state] redis_url ("redis://HOST:PORT" or "unix:/PATH"; a password in the URL is
 * refused: it comes from redis_password_file/_env), connecting with the configured timeout,
 * AUTH, one command at a time under a mutex, and reconnecting: a command on a broken or lost
 * connection drops it and tries once on a fresh one, so a Redis that comes back is used again
 * without a restart. The last failure is kept as text naming Redis and its address, for the
 * refusal the caller sends. Every reply is one allocation point (sluice_arena_fault_point): an
 * allocation sweep fails it like a lost reply.
 * Does not own: what the keys mean (replay_redis.c, approval_redis.c), Redis's own durability
 * (appendonly/appendfsync: docs/deploy.md).
 */
#ifndef SLUICE_STATE_REDIS_CONN_H
#define SLUICE_STATE_REDIS_CONN_H

#include "core/arena.h"
#include "core/error.h"

#include <hiredis/hiredis.h>
#include <stddef.h>

typedef struct sluice_redis sluice_redis;

typedef struct sluice_redis_options {
    const char *url;           /* "redis://HOST:PORT" or "unix:/PATH" */
    const char *password_file; /* or NULL */
    const char *password_env;  /* or NULL */
    int timeout_ms;            /* connect and each command */
} sluice_redis_options;

/* Parses the URL and reads the password; does not connect (the first command does, so a replica
 * starts while Redis is down and refuses executions until it is up). SLUICE_E_CONFIG for a bad
 * URL (message says the accepted forms), SLUICE_E_IO for an unreadable password, SLUICE_E_NOMEM. */
sluice_status sluice_redis_open(const sluice_redis_options *options,
                                sluice_redis **out,
                                sluice_arena *err_arena,
                                sluice_error *err);

/* Runs one command (argv with lengths; NULL lengths: C strings). Returns the reply (the caller
 * frees it with freeReplyObject) or NULL when there is none: Redis unreachable, the connection
 * lost, a timeout, an error reply (REDIS_REPLY_ERROR is turned into NULL too), or an injected
 * allocation failure. A NULL means the command may or may not have run. Thread-safe. */
redisReply *sluice_redis_run(sluice_redis *r, int argc, const char **argv, const size_t *lens);

/* The last failure ("Redis at 127.0.0.1:6379: Connection refused"), copied into buf. */
void sluice_redis_last_error(sluice_redis *r, char *buf, size_t cap);

/* Closes the connection and frees r. NULL does nothing. */
void sluice_redis_close(sluice_redis *r);

#endif
