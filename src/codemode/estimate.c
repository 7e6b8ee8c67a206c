/*
 * estimate.c — the route's estimate limits, the estimate in words, and the estimate bound into
 * the token (see estimate.h).
 */
#include "codemode/estimate.h"

#include "core/json_write.h"

#include <math.h>

/* What the cost counts, per kind, for messages: "a plan cost of", "a computed cost of". */
static const char *cost_noun(sluice_estimate_kind kind)
{
    switch (kind) {
    case SLUICE_ESTIMATE_PLAN_COST:
        return "a plan cost of";
    case SLUICE_ESTIMATE_PLAN_ROWS:
        return "rows through the plan's operators totalling";
    case SLUICE_ESTIMATE_GRAPHQL_COST:
        return "a computed cost (one per field, times the list sizes above it) of";
    case SLUICE_ESTIMATE_CALL_BOUND:
        return "upstream calls numbering at most";
    case SLUICE_ESTIMATE_NONE:
        break;
    }
    return "a cost";
}

/* Who made it, for messages: "PostgreSQL", "DuckDB", "the GraphQL cost analysis", ... */
static const char *maker(const sluice_codefacts *f)
{
    if (f->estimate_engine != NULL)
        return f->estimate_engine;
    return f->estimate_kind == SLUICE_ESTIMATE_GRAPHQL_COST ? "the GraphQL cost analysis"
                                                            : "the plan's static analysis";
}

sluice_status sluice_estimate_limit(sluice_codefacts *f, const sluice_config_code_mode *rules)
{
    if (f == NULL || rules == NULL || sluice_codefacts_refused(f) ||
        (rules->max_estimated_rows <= 0 && rules->max_estimated_cost <= 0))
        return SLUICE_OK;
    sluice_status st = SLUICE_OK;
    bool no_rows = rules->max_estimated_rows > 0 && f->estimated_rows < 0;
    bool no_cost = rules->max_estimated_cost > 0 && f->estimated_cost < 0;
    if ((f->estimate_kind == SLUICE_ESTIMATE_NONE || no_rows || no_cost) &&
        f->action == SLUICE_ACTION_READ) {
        /* writes carry no estimate (docs/policy.md); a read must have one to be under a limit */
        st = sluice_codefacts_violate(
            f,
            no_rows || rules->max_estimated_cost <= 0 ? "max_estimated_rows" : "max_estimated_cost",
            0, 0, "ask for a route without the limit (GraphQL and plans estimate a cost, not rows)",
            "no %s estimate could be made for this read, and this route limits it "
            "(max_estimated_rows %lld, max_estimated_cost %lld)",
            no_rows ? "row" : "cost", (long long)rules->max_estimated_rows,
            (long long)rules->max_estimated_cost);
    } else if (f->estimate_kind == SLUICE_ESTIMATE_NONE) {
        return SLUICE_OK;
    } else if (rules->max_estimated_rows > 0 && f->estimated_rows > rules->max_estimated_rows) {
        st = sluice_codefacts_violate(
            f, "max_estimated_rows", 0, 0,
            "narrow it with a WHERE on an indexed column, aggregate, or add a LIMIT",
            "%s estimates %lld rows for this read; max_estimated_rows is %lld", maker(f),
            (long long)f->estimated_rows, (long long)rules->max_estimated_rows);
    } else if (rules->max_estimated_cost > 0 &&
               f->estimated_cost > (double)rules->max_estimated_cost) {
        st = sluice_codefacts_violate(
            f, "max_estimated_cost", 0, 0,
            "do less: filter on an indexed column, join fewer tables, aggregate earlier, or make "
            "fewer calls",
            "%s estimates %s %.0f for this program; max_estimated_cost is %lld", maker(f),
            cost_noun(f->estimate_kind), f->estimated_cost, (long long)rules->max_estimated_cost);
    }
    if (st != SLUICE_OK)
        f->incomplete = true; /* a limit that could not be recorded is never a pass */
    return st;
}

const char *sluice_estimate_words(sluice_arena *arena, const sluice_codefacts *f)
{
    if (f == NULL || sluice_codefacts_refused(f))
        return "";
    long long rows = (long long)f->estimated_rows;
    const char *s = rows == 1 ? "" : "s";
    switch (f->estimate_kind) {
    case SLUICE_ESTIMATE_PLAN_COST:
        return sluice_arena_printf(arena,
                                   "%s estimates about %lld row%s at a plan cost of %.0f before "
                                   "running it.",
                                   maker(f), rows, s, f->estimated_cost);
    case SLUICE_ESTIMATE_PLAN_ROWS:
        return sluice_arena_printf(arena,
                                   "%s estimates about %lld row%s, with about %.0f row%s "
                                   "through the plan's operators, before running it.",
                                   maker(f), rows, s, f->estimated_cost,
                                   f->estimated_cost == 1 ? "" : "s");
    case SLUICE_ESTIMATE_GRAPHQL_COST:
        return sluice_arena_printf(arena,
                                   "Its computed cost is %.0f (one per field, times the list "
                                   "sizes above it).",
                                   f->estimated_cost);
    case SLUICE_ESTIMATE_CALL_BOUND:
        if (f->estimated_cost == 0)
            return "It makes no upstream calls.";
        return sluice_arena_printf(arena, "It makes at most %.0f upstream call%s.",
                                   f->estimated_cost, f->estimated_cost == 1 ? "" : "s");
    case SLUICE_ESTIMATE_NONE:
        break;
    }
    return "";
}

json_t *sluice_estimate_json(const sluice_codefacts *f)
{
    static const char *const units[] = {
        [SLUICE_ESTIMATE_PLAN_COST] = "planner cost",
        [SLUICE_ESTIMATE_PLAN_ROWS] = "rows through the plan",
        [SLUICE_ESTIMATE_GRAPHQL_COST] = "computed cost",
        [SLUICE_ESTIMATE_CALL_BOUND] = "upstream calls at most",
    };
    if (f == NULL || f->estimate_kind == SLUICE_ESTIMATE_NONE ||
        (unsigned)f->estimate_kind >= sizeof units / sizeof units[0])
        return NULL;
    /* set member by member: json_pack would parse its format on every call; keys are literals */
    json_t *o = json_object();
    bool bad = o == NULL;
    bad |= json_object_set_new_nocheck(o, "by", sluice_json_string(maker(f))) != 0;
    bad |=
        json_object_set_new_nocheck(
            o, "rows", f->estimated_rows >= 0 ? json_integer(f->estimated_rows) : json_null()) != 0;
    bad |= json_object_set_new_nocheck(
               o, "cost",
               json_integer(
                   (json_int_t)ceil(f->estimated_cost < 9.2e18 ? f->estimated_cost : 9.2e18))) != 0;
    bad |=
        json_object_set_new_nocheck(o, "unit", json_string_nocheck(units[f->estimate_kind])) != 0;
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void sluice_estimate_bind(const sluice_codefacts *f, sluice_token_claims *claims)
{
    bool has = f != NULL && f->estimate_kind != SLUICE_ESTIMATE_NONE;
    claims->estimated_rows = has && f->estimated_rows >= 0 ? f->estimated_rows : -1;
    claims->estimated_cost = has && f->estimated_cost >= 0 && f->estimated_cost < 9.2e18
                                 ? (int64_t)ceil(f->estimated_cost)
                                 : -1;
    claims->estimate_live = has && (f->estimate_kind == SLUICE_ESTIMATE_PLAN_COST ||
                                    f->estimate_kind == SLUICE_ESTIMATE_PLAN_ROWS);
}

bool sluice_estimate_needs_live(const sluice_token_claims *claims)
{
    return claims != NULL && claims->estimate_live;
}

sluice_status sluice_estimate_drift(const sluice_token_claims *claims,
                                    const sluice_codefacts *live,
                                    const sluice_config_code_mode *rules,
                                    sluice_arena *arena,
                                    sluice_token_problem *problem,
                                    sluice_error *err)
{
    sluice_token_claims now = { 0 };
    sluice_estimate_bind(live, &now);
    return sluice_token_estimate_check(claims, &now, rules->estimate_drift_factor, arena, problem,
                                       err);
}
