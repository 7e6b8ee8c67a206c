/*
 * quota_gate.c — quotas in the code-mode flow (see quota_gate.h).
 */
#include "codemode/quota_gate.h"

#include "core/clock.h"
#include "core/metrics.h"
#include "policy/policy.h"

#include <stdint.h>
#include <stdio.h>

static const char *principal_of(const sluice_codemode_caller *caller)
{
    const char *user = caller->identity != NULL ? caller->identity->user_id : NULL;
    return user != NULL && user[0] != '\0' ? user : "(anonymous)";
}

static const char *route_of(const sluice_policy *policy, const sluice_codemode_caller *caller)
{
    return sluice_policy_route_for(policy, caller->identity)->id;
}

/* The store failed: nothing is decided, so nothing runs. Why not fail open: a quota guards an
 * upstream's budget, and whoever can make the store unreachable must not lift every quota. */
static sluice_status store_failed(
    sluice_quota *q, sluice_status st, sluice_arena *arena, const char *doing, sluice_error *err)
{
    char why[320];
    sluice_quota_describe(q, why, sizeof why);
    return sluice_error_set(err, arena, SLUICE_E_IO,
                            "the quota store could not %s (%s: %s), so the call is refused "
                            "(quotas fail closed); tell the administrator",
                            doing, sluice_status_name(st), why);
}

sluice_status sluice_quota_gate_admit(const sluice_quota_gate *gate,
                                      sluice_arena *arena,
                                      const sluice_codemode_caller *caller,
                                      sluice_quota_stage stage,
                                      sluice_quota_room *room,
                                      sluice_error *err)
{
    if (room != NULL)
        *room = (sluice_quota_room){ INT64_MAX, INT64_MAX, INT64_MAX };
    sluice_quota *q = gate->rt->quotas;
    if (q == NULL)
        return SLUICE_OK;
    const char *route = route_of(gate->policy, caller), *who = principal_of(caller);
    sluice_config_quotas limits = sluice_quota_of_route(gate->config, route);
    sluice_quota_call call = { route, who, stage, sluice_clock_now_ms(gate->rt->clock) };
    sluice_quota_decision d;
    sluice_status st = sluice_quota_admit(q, &limits, &call, &d);
    if (st != SLUICE_OK)
        return store_failed(q, st, arena, "count this call", err);
    const char *measure = stage == SLUICE_QUOTA_STAGE_VALIDATE ? "validate_calls" : "execute_calls";
    if (!d.refused) {
        if (room != NULL)
            *room = d.room;
        sluice_metric_inc(SLUICE_METRIC_QUOTA_USAGE, measure, route, NULL);
        return SLUICE_OK;
    }
    const sluice_quota_refusal *r = &d.refusal;
    sluice_metric_inc(SLUICE_METRIC_QUOTA_REFUSALS, sluice_quota_name(r->quota), route, NULL);
    if (caller->refusal != NULL) {
        json_decref(*caller->refusal);
        *caller->refusal = sluice_quota_refusal_json(r, route);
    }
    const char *m = sluice_quota_message(arena, r, route, who);
    return m != NULL ? sluice_error_set(err, arena, SLUICE_E_LIMIT, "%s", m)
                     : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

void sluice_quota_gate_clamp(sluice_exec_limits *limits, const sluice_quota_room *room)
{
    if (room->rows != INT64_MAX && (limits->max_rows <= 0 || limits->max_rows > room->rows))
        limits->max_rows = room->rows > 0 ? room->rows : 1;
    if (room->bytes != INT64_MAX &&
        (limits->max_bytes == 0 || (uint64_t)limits->max_bytes > (uint64_t)room->bytes))
        limits->max_bytes = room->bytes > 0 ? (size_t)room->bytes : 1;
    if (room->upstream_calls != INT64_MAX &&
        (limits->max_api_calls <= 0 || limits->max_api_calls > room->upstream_calls))
        limits->max_api_calls = room->upstream_calls > 0 ? room->upstream_calls : 1;
}

sluice_status sluice_quota_gate_charge(const sluice_quota_gate *gate,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const sluice_exec_result *r,
                                       sluice_error *err)
{
    sluice_quota *q = gate->rt->quotas;
    if (q == NULL)
        return SLUICE_OK;
    const char *route = route_of(gate->policy, caller);
    int64_t calls = r->calls != NULL ? (int64_t)json_array_size(r->calls) : 0;
    sluice_status st =
        sluice_quota_charge(q, route, principal_of(caller), (int64_t)r->row_count,
                            (int64_t)r->bytes, calls, sluice_clock_now_ms(gate->rt->clock));
    if (st != SLUICE_OK)
        return store_failed(q, st, arena, "record what the program returned", err);
    sluice_metric_add(SLUICE_METRIC_QUOTA_USAGE, (int64_t)r->row_count, "rows", route, NULL);
    sluice_metric_add(SLUICE_METRIC_QUOTA_USAGE, (int64_t)r->bytes, "bytes", route, NULL);
    sluice_metric_add(SLUICE_METRIC_QUOTA_USAGE, calls, "upstream_calls", route, NULL);
    return SLUICE_OK;
}
