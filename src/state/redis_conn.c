/*
 * redis_conn.c — the shared-state Redis connection with reconnect (see redis_conn.h).
 */
#include "state/redis_conn.h"

#include "core/limits.h"
#include "core/log.h"
#include "core/secret_text.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define URL_TCP  "redis://"
#define URL_UNIX "unix:"

struct sluice_redis {
    pthread_mutex_t lock;
    redisContext *ctx; /* NULL: not connected */
    char host[256];    /* or the socket path */
    int port;          /* 0: a Unix socket */
    char *password;
    struct timeval timeout;
    char last_error[320];
};

static sluice_status bad_url(const char *url, sluice_arena *arena, sluice_error *err)
{
    return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                            "[state] redis_url '%.80s' is not \"redis://HOST:PORT\" or "
                            "\"unix:/PATH\" (a password goes in redis_password_file or "
                            "redis_password_env, never in the URL)",
                            url);
}

static sluice_status parse_url(sluice_redis *r, const char *url, sluice_arena *a, sluice_error *e)
{
    if (strncmp(url, URL_UNIX, strlen(URL_UNIX)) == 0) {
        const char *path = url + strlen(URL_UNIX);
        if (path[0] != '/' || strlen(path) >= sizeof r->host)
            return bad_url(url, a, e);
        snprintf(r->host, sizeof r->host, "%s", path);
        return SLUICE_OK;
    }
    if (strncmp(url, URL_TCP, strlen(URL_TCP)) != 0)
        return bad_url(url, a, e);
    const char *host = url + strlen(URL_TCP);
    const char *colon = strrchr(host, ':');
    if (colon == NULL || colon == host || strchr(host, '@') != NULL || strchr(host, '/') != NULL ||
        (size_t)(colon - host) >= sizeof r->host)
        return bad_url(url, a, e);
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || port < 1 || port > 65535)
        return bad_url(url, a, e);
    snprintf(r->host, sizeof r->host, "%.*s", (int)(colon - host), host);
    r->port = (int)port;
    return SLUICE_OK;
}

sluice_status sluice_redis_open(const sluice_redis_options *o,
                                sluice_redis **out,
                                sluice_arena *err_arena,
                                sluice_error *err)
{
    sluice_redis *r = calloc(1, sizeof *r);
    if (r == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_init(&r->lock, NULL);
    r->timeout.tv_sec = o->timeout_ms / 1000;
    r->timeout.tv_usec = (o->timeout_ms % 1000) * 1000;
    sluice_status st = parse_url(r, o->url, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_secret_text_read("[state]", o->password_file, o->password_env, &r->password,
                                     err_arena, err);
    if (st != SLUICE_OK) {
        sluice_redis_close(r);
        return st;
    }
    *out = r;
    return SLUICE_OK;
}

/* Under the lock: remembers why the last command failed, naming the server. */
static void note_failure(sluice_redis *r, const char *why)
{
    if (r->port != 0)
        snprintf(r->last_error, sizeof r->last_error, "Redis at %s:%d: %s", r->host, r->port, why);
    else
        snprintf(r->last_error, sizeof r->last_error, "Redis at unix:%s: %s", r->host, why);
}

static void drop(sluice_redis *r)
{
    if (r->ctx != NULL)
        redisFree(r->ctx);
    r->ctx = NULL;
}

/* Under the lock: a fresh, authenticated connection, or false (last_error says why). */
static bool connect_now(sluice_redis *r)
{
    drop(r);
    r->ctx = r->port != 0 ? redisConnectWithTimeout(r->host, r->port, r->timeout)
                          : redisConnectUnixWithTimeout(r->host, r->timeout);
    if (r->ctx == NULL || r->ctx->err != 0) {
        note_failure(r, r->ctx != NULL ? r->ctx->errstr : "out of memory");
        drop(r);
        return false;
    }
    if (redisSetTimeout(r->ctx, r->timeout) != REDIS_OK) {
        note_failure(r, "cannot set the command timeout");
        drop(r);
        return false;
    }
    if (r->password == NULL)
        return true;
    redisReply *reply = redisCommand(r->ctx, "AUTH %s", r->password);
    bool ok = reply != NULL && reply->type == REDIS_REPLY_STATUS;
    if (!ok)
        note_failure(r, reply != NULL && reply->type == REDIS_REPLY_ERROR
                            ? "AUTH was refused (check redis_password_file/_env)"
                            : "the connection broke during AUTH");
    if (reply != NULL)
        freeReplyObject(reply);
    if (!ok)
        drop(r);
    return ok;
}

/* Under the lock: one attempt on the current connection (connecting first if there is none). */
static redisReply *attempt(sluice_redis *r, int argc, const char **argv, const size_t *lens)
{
    if (r->ctx == NULL && !connect_now(r))
        return NULL;
    redisReply *reply = redisCommandArgv(r->ctx, argc, argv, lens);
    if (reply == NULL) {
        note_failure(r, r->ctx->errstr[0] != '\0' ? r->ctx->errstr : "no reply");
        drop(r); /* the connection's state is unknown: never reuse it */
    }
    return reply;
}

/* hiredis writes with write(2): on a connection Redis closed that raises SIGPIPE, which would
 * kill the server. It is blocked on this thread for the command, and one it raised is taken
 * (sigtimedwait, no wait) before the mask is restored, so it is never delivered. */
static void pipe_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void pipe_restore(const sigset_t *old)
{
    sigset_t set, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    const struct timespec none = { 0, 0 };
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) && !sigismember(old, SIGPIPE))
        sigtimedwait(&set, NULL, &none);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

redisReply *sluice_redis_run(sluice_redis *r, int argc, const char **argv, const size_t *lens)
{
    sigset_t old;
    pipe_block(&old);
    pthread_mutex_lock(&r->lock);
    bool had_connection = r->ctx != NULL;
    redisReply *reply = attempt(r, argc, argv, lens);
    if (reply == NULL && had_connection) /* Redis restarted: the old connection is gone */
        reply = attempt(r, argc, argv, lens);
    if (reply != NULL && reply->type == REDIS_REPLY_ERROR) {
        note_failure(r, reply->str);
        freeReplyObject(reply);
        reply = NULL;
    }
    if (reply != NULL && sluice_arena_fault_point()) {
        note_failure(r, "out of memory (injected)");
        freeReplyObject(reply);
        reply = NULL;
    }
    pthread_mutex_unlock(&r->lock);
    pipe_restore(&old);
    return reply;
}

void sluice_redis_last_error(sluice_redis *r, char *buf, size_t cap)
{
    pthread_mutex_lock(&r->lock);
    snprintf(buf, cap, "%s", r->last_error[0] != '\0' ? r->last_error : "Redis: no error");
    pthread_mutex_unlock(&r->lock);
}

void sluice_redis_close(sluice_redis *r)
{
    if (r == NULL)
        return;
    drop(r);
    if (r->password != NULL) {
        explicit_bzero(r->password, strlen(r->password));
        free(r->password);
    }
    pthread_mutex_destroy(&r->lock);
    free(r);
}
