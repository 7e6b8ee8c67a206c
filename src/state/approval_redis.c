/*
 * approval_redis.c — the approval store shared by replicas, in Redis (see approval.h): a request
 * recorded on one replica is decided through another and lets a third run.
 *
 * Keys (prefix from [state] redis_prefix): "approval:<id>", a hash (state, expires_at, user,
 * summary, decided_by, decided_at, audited) kept an hour past its expiry so a late caller hears
 * "expired", not "unknown"; "approvals:pending", a sorted set of pending ids by expiry (for
 * `sluice approve --list`); "approvals:unaudited", the set of decisions nobody audited yet.
 * Why Lua scripts: check-and-insert and check-and-decide must be atomic over every replica and
 * administrator; Redis runs a script with nothing interleaved, so of two concurrent decisions
 * exactly one finds the request pending. SPOP hands each unaudited decision to exactly one
 * replica, which writes its audit record.
 * A failed read answers NONE (a refusal: the pipeline then records a request, which fails
 * too, and execute_code is refused naming Redis). Does not own: the connection (redis_conn.c).
 */
#include "state/state_redis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds a decided or expired request is kept after its expiry. */
#define KEEP_AFTER_EXPIRY_S 3600
#define KEY_MAX             (SLUICE_STATE_PREFIX_MAX + 64u)

typedef sluice_redis_store approval_redis;

/* KEYS: hash, pending set. ARGV: expires_at, user, summary, keep ms, id. Returns HGETALL. */
static const char request_script[] =
    "if redis.call('EXISTS', KEYS[1]) == 0 then "
    "redis.call('HSET', KEYS[1], 'state', 'pending', 'expires_at', ARGV[1], 'user', ARGV[2], "
    "'summary', ARGV[3], 'decided_by', '', 'decided_at', '0', 'audited', '0') "
    "redis.call('PEXPIRE', KEYS[1], ARGV[4]) "
    "redis.call('ZADD', KEYS[2], ARGV[1], ARGV[5]) end "
    "return redis.call('HGETALL', KEYS[1])";

/* KEYS: hash, pending set, unaudited set. ARGV: state, admin, now, audited (0/1), id.
 * Returns {code, HGETALL...}; code: none | decided | expired | ok. */
static const char decide_script[] =
    "local st = redis.call('HGET', KEYS[1], 'state') "
    "if not st then return {'none'} end "
    "local code = 'ok' "
    "if st ~= 'pending' then code = 'decided' "
    "elseif tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[1], 'expires_at')) then "
    "code = 'expired' else "
    "redis.call('HSET', KEYS[1], 'state', ARGV[1], 'decided_by', ARGV[2], 'decided_at', ARGV[3], "
    "'audited', ARGV[4]) "
    "redis.call('ZREM', KEYS[2], ARGV[5]) "
    "if ARGV[4] == '0' then redis.call('SADD', KEYS[3], ARGV[5]) end end "
    "local r = {code} "
    "for _, v in ipairs(redis.call('HGETALL', KEYS[1])) do r[#r + 1] = v end "
    "return r";

static void key_of(const approval_redis *s, const char *what, const char *id, char *out)
{
    snprintf(out, KEY_MAX, "%s%s%s", s->prefix, what, id != NULL ? id : "");
}

static sluice_approval_state state_of(const char *text)
{
    if (strcmp(text, "pending") == 0)
        return SLUICE_APPROVAL_PENDING;
    if (strcmp(text, "approved") == 0)
        return SLUICE_APPROVAL_APPROVED;
    return strcmp(text, "rejected") == 0 ? SLUICE_APPROVAL_REJECTED : SLUICE_APPROVAL_NONE;
}

static void field(sluice_approval *a, const char *name, const char *v)
{
    if (strcmp(name, "state") == 0)
        a->state = state_of(v);
    else if (strcmp(name, "expires_at") == 0)
        a->expires_at = strtoll(v, NULL, 10);
    else if (strcmp(name, "user") == 0)
        snprintf(a->user, sizeof a->user, "%s", v);
    else if (strcmp(name, "summary") == 0)
        snprintf(a->summary, sizeof a->summary, "%s", v);
    else if (strcmp(name, "decided_by") == 0)
        snprintf(a->decided_by, sizeof a->decided_by, "%s", v);
    else if (strcmp(name, "decided_at") == 0)
        a->decided_at = strtoll(v, NULL, 10);
    else if (strcmp(name, "audited") == 0)
        a->audited = strcmp(v, "1") == 0;
}

/* The request in HGETALL pairs elements[from..], as of now; NONE when empty or malformed. */
static sluice_approval parse(const redisReply *r, size_t from, const char *id, int64_t now)
{
    sluice_approval a = { .state = SLUICE_APPROVAL_NONE };
    if (r->type != REDIS_REPLY_ARRAY || (r->elements - from) % 2 != 0)
        return a;
    for (size_t i = from; i + 1 < r->elements; i += 2) {
        const redisReply *k = r->element[i], *v = r->element[i + 1];
        if (k->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
            return (sluice_approval){ .state = SLUICE_APPROVAL_NONE };
        field(&a, k->str, v->str);
    }
    snprintf(a.id, sizeof a.id, "%s", id);
    bool live = a.state == SLUICE_APPROVAL_PENDING || a.state == SLUICE_APPROVAL_APPROVED;
    if (live && now > a.expires_at)
        a.state = SLUICE_APPROVAL_EXPIRED;
    return a;
}

static sluice_approval redis_get(void *impl, const char *id, int64_t now)
{
    approval_redis *s = impl;
    char key[KEY_MAX];
    key_of(s, "approval:", id, key);
    const char *argv[] = { "HGETALL", key };
    redisReply *r = sluice_redis_run(s->redis, 2, argv, NULL);
    if (r == NULL)
        return (sluice_approval){ .state = SLUICE_APPROVAL_NONE };
    sluice_approval a = parse(r, 0, id, now);
    freeReplyObject(r);
    return a;
}

static sluice_status unreachable(approval_redis *s, sluice_arena *arena, sluice_error *err)
{
    char why[320];
    sluice_redis_last_error(s->redis, why, sizeof why);
    return sluice_error_set(err, arena, SLUICE_E_IO,
                            "the shared approval store is unavailable (%s); nothing was recorded "
                            "or decided",
                            why);
}

static sluice_status redis_request(void *impl,
                                   const sluice_approval_ask *ask,
                                   int64_t now,
                                   sluice_approval *out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    approval_redis *s = impl;
    const char *id = ask->id;
    int64_t expires_at = ask->expires_at;
    char key[KEY_MAX], pending[KEY_MAX], exp[32], keep[32];
    key_of(s, "approval:", id, key);
    key_of(s, "approvals:pending", NULL, pending);
    snprintf(exp, sizeof exp, "%lld", (long long)expires_at);
    int64_t left = expires_at > now ? expires_at - now : 0;
    snprintf(keep, sizeof keep, "%lld", (long long)(left + KEEP_AFTER_EXPIRY_S) * 1000);
    const char *argv[] = { "EVAL", request_script, "2",          key,  pending,
                           exp,    ask->user,      ask->summary, keep, id };
    redisReply *r = sluice_redis_run(s->redis, 10, argv, NULL);
    if (r == NULL)
        return unreachable(s, err_arena, err);
    sluice_approval a = parse(r, 0, id, now);
    freeReplyObject(r);
    if (a.state == SLUICE_APPROVAL_NONE)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "the shared approval store answered with a malformed request %s",
                                id);
    if (out != NULL)
        *out = a;
    return SLUICE_OK;
}

static sluice_status decided_error(const char *code,
                                   const char *id,
                                   const sluice_approval *cur,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    if (strcmp(code, "none") == 0)
        return sluice_error_set(err, err_arena, SLUICE_E_NOT_FOUND,
                                "no approval request %s (it is recorded when execute_code is "
                                "refused for want of approval)",
                                id);
    return sluice_error_set(
        err, err_arena, SLUICE_E_DENIED, "approval request %s is %s and can no longer be decided",
        id, strcmp(code, "expired") == 0 ? "expired" : sluice_approval_state_name(cur->state));
}

static sluice_status redis_decide(void *impl,
                                  const sluice_approval_decision *decision,
                                  int64_t now,
                                  sluice_approval *out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    approval_redis *s = impl;
    const char *id = decision->id;
    char key[KEY_MAX], pending[KEY_MAX], unaudited[KEY_MAX], at[32];
    key_of(s, "approval:", id, key);
    key_of(s, "approvals:pending", NULL, pending);
    key_of(s, "approvals:unaudited", NULL, unaudited);
    snprintf(at, sizeof at, "%lld", (long long)now);
    const char *argv[] = { "EVAL",
                           decide_script,
                           "3",
                           key,
                           pending,
                           unaudited,
                           decision->approve ? "approved" : "rejected",
                           decision->admin != NULL ? decision->admin : "admin",
                           at,
                           decision->audited ? "1" : "0",
                           id };
    redisReply *r = sluice_redis_run(s->redis, 11, argv, NULL);
    if (r == NULL)
        return unreachable(s, err_arena, err);
    sluice_status st = SLUICE_E_IO;
    sluice_approval cur = { .state = SLUICE_APPROVAL_NONE };
    if (r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
        r->element[0]->type == REDIS_REPLY_STRING) {
        const char *code = r->element[0]->str;
        cur = parse(r, 1, id, now);
        st = strcmp(code, "ok") == 0 ? SLUICE_OK : decided_error(code, id, &cur, err_arena, err);
    }
    freeReplyObject(r);
    if (st == SLUICE_E_IO)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "the shared approval store answered the decision on %s with a "
                                "malformed reply; check it with `sluice approve --list`",
                                id);
    if (out != NULL)
        *out = cur;
    return st;
}

static size_t redis_take_unaudited(void *impl, sluice_approval *out, size_t max)
{
    approval_redis *s = impl;
    char unaudited[KEY_MAX], count[24];
    key_of(s, "approvals:unaudited", NULL, unaudited);
    snprintf(count, sizeof count, "%zu", max);
    const char *argv[] = { "SPOP", unaudited, count };
    redisReply *r = sluice_redis_run(s->redis, 3, argv, NULL);
    size_t n = 0;
    for (size_t i = 0; r != NULL && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const redisReply *e = r->element[i];
        if (e->type != REDIS_REPLY_STRING || !sluice_approval_id_valid(e->str))
            continue;
        sluice_approval a = redis_get(impl, e->str, 0); /* 0: the decision as made, not expired */
        if (a.state == SLUICE_APPROVAL_APPROVED || a.state == SLUICE_APPROVAL_REJECTED)
            out[n++] = a;
    }
    if (r != NULL)
        freeReplyObject(r);
    return n;
}

static size_t redis_pending(void *impl, int64_t now, sluice_approval *out, size_t max)
{
    approval_redis *s = impl;
    char pending[KEY_MAX], from[32];
    key_of(s, "approvals:pending", NULL, pending);
    snprintf(from, sizeof from, "(%lld", (long long)now);
    const char *argv[] = { "ZRANGEBYSCORE", pending, from, "+inf" };
    redisReply *r = sluice_redis_run(s->redis, 4, argv, NULL);
    size_t n = 0;
    for (size_t i = 0; r != NULL && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const redisReply *e = r->element[i];
        if (e->type != REDIS_REPLY_STRING || !sluice_approval_id_valid(e->str))
            continue;
        sluice_approval a = redis_get(impl, e->str, now);
        if (a.state != SLUICE_APPROVAL_PENDING)
            continue;
        if (n < max)
            out[n] = a;
        n++;
    }
    if (r != NULL)
        freeReplyObject(r);
    return n;
}

static const sluice_approval_store_ops redis_ops = {
    "Redis",
    redis_get,
    redis_request,
    redis_decide,
    redis_take_unaudited,
    redis_pending,
    sluice_redis_store_free,
};

sluice_status sluice_approval_open_redis(const sluice_state_redis_options *options,
                                         sluice_approval_store **out,
                                         sluice_arena *err_arena,
                                         sluice_error *err)
{
    void *s = NULL;
    sluice_status st = sluice_redis_store_new(options, sizeof(approval_redis), &s, err_arena, err);
    return st == SLUICE_OK ? sluice_approval_wrap(&redis_ops, s, out) : st;
}
