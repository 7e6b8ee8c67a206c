/*
 * quota_redis.c — the quota counters replicas share, in Redis (see quota.h).
 *
 * A decision is one EVAL of the script below over the call's windows: it reads every counter,
 * refuses (changing nothing) when one with a limit is used up, else INCRBYs each and sets its
 * expiry to the end of its window plus a minute (the key names its window, so the expiry only
 * collects garbage; the minute covers replicas whose clocks differ a little). Redis runs a
 * script alone, so two replicas cannot both take the last unit of a quota. A failure (Redis
 * down, a lost reply, an error reply) decides nothing: the caller refuses. A lost reply after
 * the script ran may count a call that was then refused: safe, never the other way round.
 * Does not own: the connection and reconnecting (redis_conn.c), what the keys mean (quota.c).
 */
#include "state/state_redis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* KEYS: the counters; ARGV[1]: "1" to check; then per key: limit (0: none), add, ttl in ms.
 * Returns {refused index (1-based, 0: none), counter 1, counter 2, ...}. */
static const char script[] =
    "local check = ARGV[1] == '1'\n"
    "local v = {}\n"
    "for i = 1, #KEYS do v[i] = tonumber(redis.call('GET', KEYS[i]) or '0') or 0 end\n"
    "if check then\n"
    "  for i = 1, #KEYS do\n"
    "    local limit = tonumber(ARGV[3 * i - 1])\n"
    "    if limit > 0 and v[i] >= limit then\n"
    "      local out = {i}\n"
    "      for k = 1, #KEYS do out[k + 1] = v[k] end\n"
    "      return out\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local out = {0}\n"
    "for i = 1, #KEYS do\n"
    "  local add = tonumber(ARGV[3 * i])\n"
    "  if add > 0 then\n"
    "    v[i] = redis.call('INCRBY', KEYS[i], add)\n"
    "    redis.call('PEXPIRE', KEYS[i], ARGV[3 * i + 1])\n"
    "  end\n"
    "  out[i + 1] = v[i]\n"
    "end\n"
    "return out\n";

#define KEY_CAP    (SLUICE_STATE_PREFIX_MAX + 1024)
#define GRACE_MS   60000
#define SCAN_COUNT "1000"

typedef struct quota_redis {
    sluice_redis_store base; /* first: the connection and the prefix */
} quota_redis;

static sluice_status redis_take(void *impl,
                                const sluice_quota_window *w,
                                size_t n,
                                bool check,
                                int64_t now_ms,
                                size_t *refused,
                                int64_t *used)
{
    quota_redis *s = impl;
    enum { MAX_ARGS = 4 + SLUICE_QUOTA_COUNT * 4 };
    if (n == 0 || n > SLUICE_QUOTA_COUNT)
        return SLUICE_E_INTERNAL;
    char keys[SLUICE_QUOTA_COUNT][KEY_CAP], nums[SLUICE_QUOTA_COUNT][3][24], numkeys[8];
    const char *argv[MAX_ARGS];
    int argc = 0;
    argv[argc++] = "EVAL";
    argv[argc++] = script;
    snprintf(numkeys, sizeof numkeys, "%zu", n);
    argv[argc++] = numkeys;
    for (size_t i = 0; i < n; i++) {
        if ((size_t)snprintf(keys[i], KEY_CAP, "%squota:%s", s->base.prefix, w[i].key) >= KEY_CAP)
            return SLUICE_E_INTERNAL;
        argv[argc++] = keys[i];
    }
    argv[argc++] = check ? "1" : "0";
    for (size_t i = 0; i < n; i++) {
        int64_t ttl = w[i].expires_ms - now_ms;
        snprintf(nums[i][0], sizeof nums[i][0], "%" PRId64, w[i].limit > 0 ? w[i].limit : 0);
        snprintf(nums[i][1], sizeof nums[i][1], "%" PRId64, w[i].add > 0 ? w[i].add : 0);
        snprintf(nums[i][2], sizeof nums[i][2], "%" PRId64, (ttl > 0 ? ttl : 0) + GRACE_MS);
        for (int k = 0; k < 3; k++)
            argv[argc++] = nums[i][k];
    }
    redisReply *reply = sluice_redis_run(s->base.redis, argc, argv, NULL);
    if (reply == NULL)
        return SLUICE_E_IO;
    sluice_status st = SLUICE_E_IO;
    if (reply->type == REDIS_REPLY_ARRAY && reply->elements == n + 1) {
        st = SLUICE_OK;
        for (size_t i = 0; i <= n; i++)
            if (reply->element[i]->type != REDIS_REPLY_INTEGER || reply->element[i]->integer < 0)
                st = SLUICE_E_IO;
        if (st == SLUICE_OK && (size_t)reply->element[0]->integer > n)
            st = SLUICE_E_IO;
        if (st == SLUICE_OK) {
            long long at = reply->element[0]->integer;
            *refused = at == 0 ? n : (size_t)(at - 1);
            for (size_t i = 0; i < n; i++)
                used[i] = reply->element[i + 1]->integer;
        }
    }
    freeReplyObject(reply);
    return st;
}

/* The MATCH pattern of every quota key: the prefix with Redis's glob characters escaped. */
static void match_pattern(const char *prefix, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = prefix; *p != '\0' && o + 3 < cap; p++) {
        if (strchr("*?[]\\", *p) != NULL)
            out[o++] = '\\';
        out[o++] = *p;
    }
    snprintf(out + o, cap - o, "quota:*");
}

static sluice_status
redis_list(void *impl, int64_t now_ms, size_t max, sluice_quota_visit_fn visit, void *ctx)
{
    (void)now_ms; /* Redis forgets ended windows itself (a grace minute late: the usage walk of
                   * quota.c skips those) */
    quota_redis *s = impl;
    char pattern[2 * SLUICE_STATE_PREFIX_MAX + 16], cursor[32] = "0";
    match_pattern(s->base.prefix, pattern, sizeof pattern);
    size_t skip = strlen(s->base.prefix) + strlen("quota:"), seen = 0;
    do {
        const char *scan[] = { "SCAN", cursor, "MATCH", pattern, "COUNT", SCAN_COUNT };
        redisReply *r = sluice_redis_run(s->base.redis, 6, scan, NULL);
        if (r == NULL)
            return SLUICE_E_IO;
        bool ok = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                  r->element[0]->type == REDIS_REPLY_STRING &&
                  r->element[1]->type == REDIS_REPLY_ARRAY;
        for (size_t i = 0; ok && i < r->element[1]->elements && seen < max; i++) {
            const redisReply *k = r->element[1]->element[i];
            if (k->type != REDIS_REPLY_STRING || k->len <= skip)
                continue;
            const char *get[] = { "GET", k->str };
            redisReply *v = sluice_redis_run(s->base.redis, 2, get, NULL);
            if (v == NULL) {
                ok = false;
                break;
            }
            if (v->type == REDIS_REPLY_STRING) { /* gone since the SCAN: skipped */
                visit(ctx, k->str + skip, strtoll(v->str, NULL, 10));
                seen++;
            }
            freeReplyObject(v);
        }
        if (ok)
            snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        freeReplyObject(r);
        if (!ok)
            return SLUICE_E_IO;
    } while (strcmp(cursor, "0") != 0 && seen < max);
    return SLUICE_OK;
}

static void redis_describe(void *impl, char *buf, size_t cap)
{
    quota_redis *s = impl;
    sluice_redis_last_error(s->base.redis, buf, cap);
}

static const sluice_quota_store_ops redis_ops = {
    .name = "Redis",
    .take = redis_take,
    .list = redis_list,
    .close = sluice_redis_store_free,
};

sluice_status sluice_quota_open_redis(const sluice_state_redis_options *options,
                                      sluice_quota **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    void *s = NULL;
    sluice_status st = sluice_redis_store_new(options, sizeof(quota_redis), &s, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    return sluice_quota_wrap(&redis_ops, s, redis_describe, out);
}
