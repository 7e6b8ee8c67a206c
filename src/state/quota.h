/*
 * quota.h — quotas per caller: how many validate_code and execute_code calls a principal may
 * make on a policy route per minute and per day, and how many rows, bytes and upstream calls
 * its executions may return or make per day ([quotas], a route's `quotas`; docs/config.md).
 *
 * Owns: the counters and the decision. A counter is one (quota, window, route, principal); its
 * window is a fixed period of the injectable clock (the UTC minute or the UTC day it falls in),
 * so it resets at the period's end, the same moment for every replica. The counters sit behind
 * a small ops table like the other stores: in this process (quota.c), or in Redis when
 * replicas share them ([state] redis_url; quota_redis.c, one Lua script per decision, so the
 * check and the increment of every window of a call are one atomic step across replicas).
 * A store that fails (Redis down, out of memory, the local table full) is a failure the caller
 * refuses on (fail closed): quotas guard an upstream's budget, and a fault an attacker may
 * provoke must not lift them.
 * Does not own: which route or principal a call has (policy/, auth/), the refusal's wording for
 * the client beyond the message (surface/), the metrics registry (core/metrics.h).
 */
#ifndef SLUICE_STATE_QUOTA_H
#define SLUICE_STATE_QUOTA_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One counter window the store checks and adds to. */
typedef struct sluice_quota_window {
    const char *key;    /* the store's key for it (quota.c builds it; opaque to a store) */
    int64_t limit;      /* > 0: refused once the counter reached it; 0: counted only */
    int64_t add;        /* added when the call is admitted (0: only read) */
    int64_t expires_ms; /* when its period ends (epoch ms): the store may forget it after */
} sluice_quota_window;

/* Called by a store's list op once per live counter. */
typedef void (*sluice_quota_visit_fn)(void *ctx, const char *key, int64_t value);

/* The store contract. Every op is called with the store's own impl pointer; all are
 * thread-safe.
 * take: one atomic step over everyone sharing the store: when check is true and some window
 *   with a limit has a counter already at or above it, nothing changes and *refused is its
 *   index; otherwise every window's add is added and *refused = n. used[i] is window i's counter
 *   afterwards. Any status but SLUICE_OK is a failure (nothing decided; the caller refuses).
 *   now_ms is the caller's clock, for forgetting ended windows.
 * list: calls visit for live counters (at most max). SLUICE_OK or a failure.
 * close: frees impl. */
typedef struct sluice_quota_store_ops {
    const char *name;
    sluice_status (*take)(void *impl,
                          const sluice_quota_window *windows,
                          size_t n,
                          bool check,
                          int64_t now_ms,
                          size_t *refused,
                          int64_t *used);
    sluice_status (*list)(
        void *impl, int64_t now_ms, size_t max, sluice_quota_visit_fn visit, void *ctx);
    void (*close)(void *impl);
} sluice_quota_store_ops;

typedef struct sluice_quota sluice_quota;

/* Says why the store's last op failed, naming its server (Redis), into buf. */
typedef void (*sluice_quota_describe_fn)(void *impl, char *buf, size_t cap);

/* Wraps a store in a handle; on SLUICE_E_NOMEM impl is closed through ops. describe may be
 * NULL (the store's name says enough). */
sluice_status sluice_quota_wrap(const sluice_quota_store_ops *ops,
                                void *impl,
                                sluice_quota_describe_fn describe,
                                sluice_quota **out);

/* The in-process store: at most SLUICE_LIMIT_QUOTA_COUNTERS live counters (ended windows are
 * dropped when it fills; a table still full refuses: SLUICE_E_LIMIT). */
sluice_status sluice_quota_open_local(sluice_quota **out);

/* Closes the store. NULL does nothing. */
void sluice_quota_close(sluice_quota *q);

/* Why the last op failed ("Redis at HOST:PORT: Connection refused", "the local store"). */
void sluice_quota_describe(sluice_quota *q, char *buf, size_t cap);

/* "validate_per_minute", ... (the config key); NULL out of range. */
const char *sluice_quota_name(sluice_quota_id id);
/* The limit of id in limits (0: none). */
int64_t sluice_quota_limit(const sluice_config_quotas *limits, sluice_quota_id id);
/* The limits a route has: its own `quotas` where set, else [quotas], else none. */
sluice_config_quotas sluice_quota_effective(const sluice_config_quotas *global,
                                            const sluice_config_quotas *route);
/* The limits of the route with id route_id: sluice_quota_effective of [quotas] and that
 * [[policy.servers]] entry's `quotas` ([quotas] alone for the default route). */
sluice_config_quotas sluice_quota_of_route(const sluice_config *config, const char *route_id);
/* True when [quotas] or some route sets a limit: then quotas are counted. */
bool sluice_quota_configured(const sluice_config *config);
/* True when any limit is set in q (a limit below 0 is "not set"). */
bool sluice_quota_any(const sluice_config_quotas *q);

typedef enum sluice_quota_stage {
    SLUICE_QUOTA_STAGE_VALIDATE, /* a validate_code call */
    SLUICE_QUOTA_STAGE_EXECUTE,  /* an execute_code call (and the day's rows, bytes, calls) */
} sluice_quota_stage;

/* Which quota refused a call, its limit and usage, and when its window ends. */
typedef struct sluice_quota_refusal {
    sluice_quota_id quota;
    int64_t limit;
    int64_t used;
    int64_t resets_at;   /* epoch seconds */
    int64_t retry_after; /* seconds from now until resets_at, at least 1 */
} sluice_quota_refusal;

/* What today's amount quotas still allow an admitted execution: INT64_MAX where no limit. */
typedef struct sluice_quota_room {
    int64_t rows;
    int64_t bytes;
    int64_t upstream_calls;
} sluice_quota_room;

/* One call to count: whose counters (the policy route and the principal), which stage, and
 * when (epoch ms of the injectable clock: it picks the minute and day windows). */
typedef struct sluice_quota_call {
    const char *route;
    const char *principal;
    sluice_quota_stage stage;
    int64_t now_ms;
} sluice_quota_call;

/* What admit decided: refused, and then which quota (refusal); or admitted, and then what today's
 * amount quotas still allow (room, for an execution; INT64_MAX each for a validation). */
typedef struct sluice_quota_decision {
    bool refused;
    sluice_quota_refusal refusal; /* set when refused */
    sluice_quota_room room;       /* set when admitted */
} sluice_quota_decision;

/* Counts call under limits, unless a quota of its stage is used up: SLUICE_OK with out->refused
 * false (counted; out->room filled) or true (nothing counted; out->refusal says which). Any
 * other status: the store failed (the caller refuses: fail closed). */
sluice_status sluice_quota_admit(sluice_quota *q,
                                 const sluice_config_quotas *limits,
                                 const sluice_quota_call *call,
                                 sluice_quota_decision *out);

/* Adds what an execution returned and called to today's rows, bytes and upstream calls of
 * (route, principal). SLUICE_OK, or the store's failure. */
sluice_status sluice_quota_charge(sluice_quota *q,
                                  const char *route,
                                  const char *principal,
                                  int64_t rows,
                                  int64_t bytes,
                                  int64_t upstream_calls,
                                  int64_t now_ms);

/* The refusal for the client: which quota, its limit and usage, when it resets (ISO 8601 and
 * seconds), what to do; in arena. */
const char *sluice_quota_message(sluice_arena *arena,
                                 const sluice_quota_refusal *r,
                                 const char *route,
                                 const char *principal);

/* The refusal as a JSON object {type:"quota_exceeded", quota, route, limit, used, resets_at,
 * retry_after_seconds}; NULL when out of memory. */
json_t *sluice_quota_refusal_json(const sluice_quota_refusal *r, const char *route);

/* Live usage for the admin console: an array of {principal, route, quota, used, limit?,
 * resets_at} (at most max counters), limits from global and routes by route id; NULL when the
 * store fails or memory runs out. */
json_t *
sluice_quota_usage(sluice_quota *q, const sluice_config *config, int64_t now_ms, size_t max);

#endif
