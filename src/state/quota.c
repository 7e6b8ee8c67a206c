/*
 * quota.c — quotas per caller (see quota.h): the windows and keys of each quota, the decision
 * over a store, the refusal's words, and the in-process store.
 *
 * A counter's key is "<quota>|<window start>|<route>|<principal>", route and principal
 * percent-escaped ('|', '%', bytes below 0x21 and above 0x7e), so no principal can name another
 * one's counter; a name longer than SLUICE_LIMIT_QUOTA_NAME_BYTES is keyed by "#<SHA-256>", so a
 * key stays bounded whatever an identity provider sends.
 */
#include "state/quota.h"

#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MINUTE_S 60
#define DAY_S    86400
/* room for "<quota>|<start>|" and two escaped names (each at most 3 bytes a byte) */
#define KEY_BYTES (64 + 2 * (3 * SLUICE_LIMIT_QUOTA_NAME_BYTES + 1))

typedef struct quota_def {
    const char *name;
    size_t offset; /* into sluice_config_quotas */
    int64_t period_s;
    sluice_quota_stage stage;
    bool per_call;    /* counts calls (1 each) rather than an amount charged after the run */
    const char *what; /* for the message: "validate_code calls" */
} quota_def;

#define Q(f) #f, offsetof(sluice_config_quotas, f)
static const quota_def defs[SLUICE_QUOTA_COUNT] = {
    [SLUICE_QUOTA_VALIDATE_PER_MINUTE] = { Q(validate_per_minute), MINUTE_S,
                                           SLUICE_QUOTA_STAGE_VALIDATE, true,
                                           "validate_code calls this minute" },
    [SLUICE_QUOTA_VALIDATE_PER_DAY] = { Q(validate_per_day), DAY_S, SLUICE_QUOTA_STAGE_VALIDATE,
                                        true, "validate_code calls today (UTC)" },
    [SLUICE_QUOTA_EXECUTE_PER_MINUTE] = { Q(execute_per_minute), MINUTE_S,
                                          SLUICE_QUOTA_STAGE_EXECUTE, true,
                                          "execute_code calls this minute" },
    [SLUICE_QUOTA_EXECUTE_PER_DAY] = { Q(execute_per_day), DAY_S, SLUICE_QUOTA_STAGE_EXECUTE, true,
                                       "execute_code calls today (UTC)" },
    [SLUICE_QUOTA_ROWS_PER_DAY] = { Q(rows_per_day), DAY_S, SLUICE_QUOTA_STAGE_EXECUTE, false,
                                    "rows returned today (UTC)" },
    [SLUICE_QUOTA_BYTES_PER_DAY] = { Q(bytes_per_day), DAY_S, SLUICE_QUOTA_STAGE_EXECUTE, false,
                                     "result bytes returned today (UTC)" },
    [SLUICE_QUOTA_UPSTREAM_CALLS_PER_DAY] = { Q(upstream_calls_per_day), DAY_S,
                                              SLUICE_QUOTA_STAGE_EXECUTE, false,
                                              "upstream calls made today (UTC)" },
};
#undef Q

struct sluice_quota {
    const sluice_quota_store_ops *ops;
    void *impl;
    sluice_quota_describe_fn describe;
};

/* ---- limits -------------------------------------------------------------------------------- */

const char *sluice_quota_name(sluice_quota_id id)
{
    return (unsigned)id < SLUICE_QUOTA_COUNT ? defs[id].name : NULL;
}

static int64_t field(const sluice_config_quotas *q, sluice_quota_id id)
{
    int64_t v;
    memcpy(&v, (const char *)q + defs[id].offset, sizeof v);
    return v;
}

int64_t sluice_quota_limit(const sluice_config_quotas *limits, sluice_quota_id id)
{
    int64_t v = limits != NULL ? field(limits, id) : 0;
    return v > 0 ? v : 0;
}

sluice_config_quotas sluice_quota_effective(const sluice_config_quotas *global,
                                            const sluice_config_quotas *route)
{
    sluice_config_quotas out;
    for (int i = 0; i < SLUICE_QUOTA_COUNT; i++) {
        int64_t r = route != NULL ? field(route, (sluice_quota_id)i) : -1;
        int64_t g = global != NULL ? field(global, (sluice_quota_id)i) : -1;
        int64_t v = r >= 0 ? r : g;
        memcpy((char *)&out + defs[i].offset, &v, sizeof v);
    }
    return out;
}

bool sluice_quota_any(const sluice_config_quotas *q)
{
    for (int i = 0; i < SLUICE_QUOTA_COUNT; i++)
        if (field(q, (sluice_quota_id)i) > 0)
            return true;
    return false;
}

sluice_config_quotas sluice_quota_of_route(const sluice_config *config, const char *route_id)
{
    const sluice_config_quotas *own = NULL;
    for (size_t i = 0; i < config->policy.server_count && own == NULL; i++)
        if (config->policy.servers[i].id != NULL &&
            strcmp(config->policy.servers[i].id, route_id) == 0)
            own = &config->policy.servers[i].quotas;
    return sluice_quota_effective(&config->quotas, own);
}

bool sluice_quota_configured(const sluice_config *config)
{
    if (sluice_quota_any(&config->quotas))
        return true;
    for (size_t i = 0; i < config->policy.server_count; i++)
        if (sluice_quota_any(&config->policy.servers[i].quotas))
            return true;
    return false;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static bool plain(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '|' && c != '%';
}

/* name escaped into out (at least 3 * SLUICE_LIMIT_QUOTA_NAME_BYTES + 1 bytes), or "#<hex>"
 * of its SHA-256 when longer than the limit. */
static void escape_name(const char *name, char *out)
{
    size_t len = strlen(name);
    if (len > SLUICE_LIMIT_QUOTA_NAME_BYTES) {
        uint8_t h[SLUICE_HASH_BYTES];
        sluice_hash_sha256(name, len, h);
        out[0] = '#';
        sluice_hash_hex(h, sizeof h, out + 1);
        return;
    }
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (plain(c) && !(i == 0 && c == '#')) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

static int64_t window_start(sluice_quota_id id, int64_t now_s)
{
    int64_t p = defs[id].period_s;
    int64_t r = now_s % p;
    return now_s - (r < 0 ? r + p : r);
}

static void make_key(char out[KEY_BYTES],
                     sluice_quota_id id,
                     int64_t now_s,
                     const char *route,
                     const char *principal)
{
    char r[3 * SLUICE_LIMIT_QUOTA_NAME_BYTES + 1], p[3 * SLUICE_LIMIT_QUOTA_NAME_BYTES + 1];
    escape_name(route, r);
    escape_name(principal, p);
    snprintf(out, KEY_BYTES, "%s|%" PRId64 "|%s|%s", defs[id].name, window_start(id, now_s), r, p);
}

/* ---- the decision -------------------------------------------------------------------------- */

sluice_status sluice_quota_wrap(const sluice_quota_store_ops *ops,
                                void *impl,
                                sluice_quota_describe_fn describe,
                                sluice_quota **out)
{
    sluice_quota *q = sluice_arena_fault_point() ? NULL : malloc(sizeof *q);
    if (q == NULL) {
        ops->close(impl);
        return SLUICE_E_NOMEM;
    }
    q->ops = ops;
    q->impl = impl;
    q->describe = describe;
    *out = q;
    return SLUICE_OK;
}

void sluice_quota_close(sluice_quota *q)
{
    if (q == NULL)
        return;
    q->ops->close(q->impl);
    free(q);
}

void sluice_quota_describe(sluice_quota *q, char *buf, size_t cap)
{
    if (q->describe != NULL)
        q->describe(q->impl, buf, cap);
    else
        snprintf(buf, cap, "the %s quota store", q->ops->name);
}

/* Every quota of the call's stage: its window, key, limit and what a call adds (1 per call;
 * amounts are only read here and charged after the run). Returns the count. */
static size_t stage_windows(const sluice_quota_call *call,
                            const sluice_config_quotas *limits,
                            char keys[][KEY_BYTES],
                            sluice_quota_id *ids,
                            sluice_quota_window *w)
{
    int64_t now_s = call->now_ms / 1000;
    size_t n = 0;
    for (int i = 0; i < SLUICE_QUOTA_COUNT; i++) {
        sluice_quota_id id = (sluice_quota_id)i;
        if (defs[id].stage != call->stage)
            continue;
        make_key(keys[n], id, now_s, call->route, call->principal);
        ids[n] = id;
        w[n] = (sluice_quota_window){
            .key = keys[n],
            .limit = sluice_quota_limit(limits, id),
            .add = defs[id].per_call ? 1 : 0,
            .expires_ms = (window_start(id, now_s) + defs[id].period_s) * 1000,
        };
        n++;
    }
    return n;
}

static int64_t room_of(const sluice_quota_window *w, int64_t used)
{
    if (w->limit <= 0)
        return INT64_MAX;
    return used < w->limit ? w->limit - used : 0;
}

sluice_status sluice_quota_admit(sluice_quota *q,
                                 const sluice_config_quotas *limits,
                                 const sluice_quota_call *call,
                                 sluice_quota_decision *out)
{
    char keys[SLUICE_QUOTA_COUNT][KEY_BYTES];
    sluice_quota_id ids[SLUICE_QUOTA_COUNT];
    sluice_quota_window w[SLUICE_QUOTA_COUNT];
    int64_t used[SLUICE_QUOTA_COUNT] = { 0 };
    int64_t now_s = call->now_ms / 1000;
    size_t n = stage_windows(call, limits, keys, ids, w);
    size_t at = n;
    sluice_status st = q->ops->take(q->impl, w, n, true, call->now_ms, &at, used);
    if (st != SLUICE_OK)
        return st;
    if (at > n)
        return SLUICE_E_INTERNAL; /* a store that broke its contract decides nothing */
    out->refused = at < n;
    if (out->refused) {
        int64_t resets = w[at].expires_ms / 1000;
        out->refusal = (sluice_quota_refusal){
            .quota = ids[at],
            .limit = w[at].limit,
            .used = used[at],
            .resets_at = resets,
            .retry_after = resets > now_s ? resets - now_s : 1,
        };
        return SLUICE_OK;
    }
    sluice_quota_room *room = &out->room;
    *room = (sluice_quota_room){ INT64_MAX, INT64_MAX, INT64_MAX };
    for (size_t i = 0; i < n; i++) {
        if (ids[i] == SLUICE_QUOTA_ROWS_PER_DAY)
            room->rows = room_of(&w[i], used[i]);
        else if (ids[i] == SLUICE_QUOTA_BYTES_PER_DAY)
            room->bytes = room_of(&w[i], used[i]);
        else if (ids[i] == SLUICE_QUOTA_UPSTREAM_CALLS_PER_DAY)
            room->upstream_calls = room_of(&w[i], used[i]);
    }
    return SLUICE_OK;
}

sluice_status sluice_quota_charge(sluice_quota *q,
                                  const char *route,
                                  const char *principal,
                                  int64_t rows,
                                  int64_t bytes,
                                  int64_t upstream_calls,
                                  int64_t now_ms)
{
    char keys[3][KEY_BYTES];
    sluice_quota_window w[3];
    int64_t used[3];
    const sluice_quota_id ids[3] = { SLUICE_QUOTA_ROWS_PER_DAY, SLUICE_QUOTA_BYTES_PER_DAY,
                                     SLUICE_QUOTA_UPSTREAM_CALLS_PER_DAY };
    const int64_t amounts[3] = { rows, bytes, upstream_calls };
    int64_t now_s = now_ms / 1000;
    size_t n = 0;
    for (size_t i = 0; i < 3; i++) {
        if (amounts[i] <= 0)
            continue;
        make_key(keys[n], ids[i], now_s, route, principal);
        w[n] = (sluice_quota_window){
            .key = keys[n],
            .limit = 0,
            .add = amounts[i],
            .expires_ms = (window_start(ids[i], now_s) + DAY_S) * 1000,
        };
        n++;
    }
    if (n == 0)
        return SLUICE_OK;
    size_t at = n;
    return q->ops->take(q->impl, w, n, false, now_ms, &at, used);
}

/* ---- words --------------------------------------------------------------------------------- */

/* t as UTC text, or its number where no calendar holds it */
static void iso_time(int64_t t, char out[SLUICE_CLOCK_UTC_TEXT])
{
    if (!sluice_clock_utc_text(t, out))
        snprintf(out, SLUICE_CLOCK_UTC_TEXT, "%" PRId64, t);
}

const char *sluice_quota_message(sluice_arena *arena,
                                 const sluice_quota_refusal *r,
                                 const char *route,
                                 const char *principal)
{
    char when[SLUICE_CLOCK_UTC_TEXT];
    iso_time(r->resets_at, when);
    const quota_def *d = &defs[r->quota];
    return sluice_arena_printf(
        arena,
        "quota %s reached for '%s' on route '%s': %" PRId64 " of %" PRId64
        " %s; it resets at %s (in %" PRId64 " s). Nothing was %s. Try again after %s, or ask "
        "an administrator to raise %s ([quotas] or the route's quotas)",
        d->name, principal, route, r->used, r->limit, d->what, when, r->retry_after,
        d->stage == SLUICE_QUOTA_STAGE_VALIDATE ? "validated" : "run", when, d->name);
}

json_t *sluice_quota_refusal_json(const sluice_quota_refusal *r, const char *route)
{
    char when[SLUICE_CLOCK_UTC_TEXT];
    iso_time(r->resets_at, when);
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:s, s:I}", "type", "quota_exceeded", "quota",
                     defs[r->quota].name, "route", route, "limit", (json_int_t)r->limit, "used",
                     (json_int_t)r->used, "resets_at", when, "retry_after_seconds",
                     (json_int_t)r->retry_after);
}

/* ---- usage for the console ----------------------------------------------------------------- */

typedef struct usage_walk {
    const sluice_config *config;
    int64_t now_s; /* windows that ended by then are not usage any more */
    json_t *rows;
    bool failed;
} usage_walk;

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Undoes escape_name into out (cap bytes); a "#<hex>" name stays as it is. */
static void unescape(const char *s, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < cap; i++) {
        int hi = 0, lo = 0;
        if (s[i] == '%' && i + 2 < len && (hi = hexval(s[i + 1])) >= 0 &&
            (lo = hexval(s[i + 2])) >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
}

static void visit_usage(void *ctx, const char *key, int64_t value)
{
    usage_walk *u = ctx;
    const char *bar1 = strchr(key, '|');
    const char *bar2 = bar1 != NULL ? strchr(bar1 + 1, '|') : NULL;
    const char *bar3 = bar2 != NULL ? strchr(bar2 + 1, '|') : NULL;
    if (bar3 == NULL || u->failed)
        return;
    int id = -1;
    for (int i = 0; i < SLUICE_QUOTA_COUNT; i++)
        if (strlen(defs[i].name) == (size_t)(bar1 - key) &&
            memcmp(defs[i].name, key, (size_t)(bar1 - key)) == 0)
            id = i;
    if (id < 0)
        return;
    char route[SLUICE_LIMIT_QUOTA_NAME_BYTES + 1], principal[SLUICE_LIMIT_QUOTA_NAME_BYTES + 1];
    unescape(bar2 + 1, (size_t)(bar3 - bar2 - 1), route, sizeof route);
    unescape(bar3 + 1, strlen(bar3 + 1), principal, sizeof principal);
    int64_t start = strtoll(bar1 + 1, NULL, 10);
    /* A store may still hold an ended window (Redis keeps one a grace minute past its end, and
     * on a test clock for as long as real time has not caught up): not this window's usage. */
    if (start + defs[id].period_s <= u->now_s)
        return;
    char when[SLUICE_CLOCK_UTC_TEXT];
    iso_time(start + defs[id].period_s, when);
    sluice_config_quotas eff = sluice_quota_of_route(u->config, route);
    int64_t limit = sluice_quota_limit(&eff, (sluice_quota_id)id);
    json_t *row = json_pack("{s:s, s:s, s:s, s:I, s:s}", "principal", principal, "route", route,
                            "quota", defs[id].name, "used", (json_int_t)value, "resets_at", when);
    if (row != NULL && limit > 0 && json_object_set_new(row, "limit", json_integer(limit)) != 0) {
        json_decref(row);
        row = NULL;
    }
    if (row == NULL || json_array_append_new(u->rows, row) != 0)
        u->failed = true;
}

json_t *sluice_quota_usage(sluice_quota *q, const sluice_config *config, int64_t now_ms, size_t max)
{
    usage_walk u = { config, now_ms / 1000, json_array(), false };
    if (u.rows == NULL)
        return NULL;
    if (q->ops->list(q->impl, now_ms, max, visit_usage, &u) != SLUICE_OK || u.failed) {
        json_decref(u.rows);
        return NULL;
    }
    return u.rows;
}

/* ---- the in-process store ------------------------------------------------------------------ */

#define LOCAL_BUCKETS 4096u

typedef struct counter {
    struct counter *next;
    int64_t value;
    int64_t expires_ms;
    char key[]; /* NUL-terminated */
} counter;

typedef struct local_store {
    pthread_mutex_t lock;
    counter *buckets[LOCAL_BUCKETS];
    size_t count;
} local_store;

static size_t bucket_of(const char *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a: keys are ours, not a client's choice */
    for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)(h % LOCAL_BUCKETS);
}

static counter *find(local_store *s, const char *key)
{
    for (counter *c = s->buckets[bucket_of(key)]; c != NULL; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

/* Drops every counter whose window ended before now_ms. */
static void prune(local_store *s, int64_t now_ms)
{
    for (size_t b = 0; b < LOCAL_BUCKETS; b++) {
        counter **link = &s->buckets[b];
        while (*link != NULL) {
            counter *c = *link;
            if (c->expires_ms <= now_ms) {
                *link = c->next;
                free(c);
                s->count--;
            } else {
                link = &c->next;
            }
        }
    }
}

/* The counter of key, made (at 0) when missing; NULL when memory or the table ran out. */
static counter *counter_for(local_store *s, const sluice_quota_window *w, int64_t now_ms)
{
    counter *c = find(s, w->key);
    if (c != NULL && c->expires_ms <= now_ms) {
        c->value = 0; /* a key names its window, so this is only a clock that went back */
        c->expires_ms = w->expires_ms;
    }
    if (c != NULL)
        return c;
    if (s->count >= SLUICE_LIMIT_QUOTA_COUNTERS)
        prune(s, now_ms);
    if (s->count >= SLUICE_LIMIT_QUOTA_COUNTERS)
        return NULL;
    size_t len = strlen(w->key);
    c = sluice_arena_fault_point() ? NULL : malloc(sizeof *c + len + 1);
    if (c == NULL)
        return NULL;
    memcpy(c->key, w->key, len + 1);
    c->value = 0;
    c->expires_ms = w->expires_ms;
    size_t b = bucket_of(w->key);
    c->next = s->buckets[b];
    s->buckets[b] = c;
    s->count++;
    return c;
}

static sluice_status local_take(void *impl,
                                const sluice_quota_window *w,
                                size_t n,
                                bool check,
                                int64_t now_ms,
                                size_t *refused,
                                int64_t *used)
{
    local_store *s = impl;
    counter *cs[SLUICE_QUOTA_COUNT];
    if (n > SLUICE_QUOTA_COUNT)
        return SLUICE_E_INTERNAL;
    pthread_mutex_lock(&s->lock);
    sluice_status st = SLUICE_OK;
    /* every counter first, so a failure part way changes nothing */
    for (size_t i = 0; i < n && st == SLUICE_OK; i++) {
        cs[i] = counter_for(s, &w[i], now_ms);
        if (cs[i] == NULL)
            st = s->count >= SLUICE_LIMIT_QUOTA_COUNTERS ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
    }
    *refused = n;
    for (size_t i = 0; st == SLUICE_OK && check && i < n && *refused == n; i++)
        if (w[i].limit > 0 && cs[i]->value >= w[i].limit)
            *refused = i;
    for (size_t i = 0; st == SLUICE_OK && i < n; i++) {
        if (*refused == n)
            cs[i]->value =
                w[i].add > INT64_MAX - cs[i]->value ? INT64_MAX : cs[i]->value + w[i].add;
        used[i] = cs[i]->value;
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

static sluice_status
local_list(void *impl, int64_t now_ms, size_t max, sluice_quota_visit_fn visit, void *ctx)
{
    local_store *s = impl;
    size_t seen = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t b = 0; b < LOCAL_BUCKETS && seen < max; b++)
        for (const counter *c = s->buckets[b]; c != NULL && seen < max; c = c->next)
            if (c->expires_ms > now_ms && c->value > 0) {
                visit(ctx, c->key, c->value);
                seen++;
            }
    pthread_mutex_unlock(&s->lock);
    return SLUICE_OK;
}

static void local_close(void *impl)
{
    local_store *s = impl;
    prune(s, INT64_MAX);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static const sluice_quota_store_ops local_ops = {
    .name = "local",
    .take = local_take,
    .list = local_list,
    .close = local_close,
};

sluice_status sluice_quota_open_local(sluice_quota **out)
{
    local_store *s = sluice_arena_fault_point() ? NULL : calloc(1, sizeof *s);
    if (s == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_init(&s->lock, NULL);
    return sluice_quota_wrap(&local_ops, s, NULL, out);
}
