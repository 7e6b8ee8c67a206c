/*
 * risk.c — the risk floor shared by every language (see risk.h, docs/risk.md).
 */
#include "codemode/risk.h"

/* The least risk an action has in any language, and why. */
static sluice_risk floor_for(sluice_action action, const char **reason)
{
    switch (action) {
    case SLUICE_ACTION_READ:
        *reason = "reads data";
        return SLUICE_RISK_LOW;
    case SLUICE_ACTION_WRITE:
        *reason = "changes data";
        return SLUICE_RISK_HIGH;
    case SLUICE_ACTION_DELETE:
        *reason = "deletes data";
        return SLUICE_RISK_CRITICAL;
    case SLUICE_ACTION_ADMIN:
        break;
    }
    *reason = "changes the structure of the system or the server";
    return SLUICE_RISK_CRITICAL;
}

/* The engine's own estimate raises the floor (issue 24, docs/risk.md): a read the engine expects
 * to cost a lot is approved by a person even when nothing else about it is risky. PostgreSQL's
 * steps are in its planner's units (about one sequential page read each): a million is minutes of
 * work on a busy server, a hundred million a runaway. DuckDB's are rows through the plan's
 * operators, which its vectorized engine moves about a hundred times cheaper than PostgreSQL's
 * page reads: a hundred million, and ten billion. The computed GraphQL cost and a plan's call
 * bound have their own limits (graphql_max_cost, max_api_calls) and raise nothing here. */
static sluice_risk estimate_floor(const sluice_codefacts *facts, const char **reason)
{
    double medium = facts->estimate_kind == SLUICE_ESTIMATE_PLAN_COST   ? 1e6
                    : facts->estimate_kind == SLUICE_ESTIMATE_PLAN_ROWS ? 1e8
                                                                        : -1;
    if (medium < 0 || facts->estimated_cost < medium)
        return SLUICE_RISK_LOW;
    bool high = facts->estimated_cost >= medium * 100;
    *reason = high ? "the engine estimates a very expensive plan (docs/risk.md: estimates)"
                   : "the engine estimates an expensive plan (docs/risk.md: estimates)";
    return high ? SLUICE_RISK_HIGH : SLUICE_RISK_MEDIUM;
}

sluice_risk
sluice_risk_assess(const sluice_frontend *fe, const sluice_codefacts *facts, const char **reason)
{
    const char *why = "the program was refused";
    sluice_risk risk = SLUICE_RISK_CRITICAL;
    if (facts != NULL && !sluice_codefacts_refused(facts)) {
        risk = floor_for(facts->action, &why);
        if (facts->blocked_in_predicate && risk < SLUICE_RISK_HIGH) {
            /* even an allowed point lookup confirms a guess: a human sees each one */
            risk = SLUICE_RISK_HIGH;
            why = "compares or groups on a blocked field (each such query can confirm a guess)";
        }
        const char *cost_why = NULL;
        sluice_risk cost = estimate_floor(facts, &cost_why);
        if (cost > risk) {
            risk = cost;
            why = cost_why;
        }
        const char *lang_why = NULL;
        sluice_risk lang =
            fe != NULL && fe->risk != NULL ? fe->risk(facts, &lang_why) : SLUICE_RISK_LOW;
        if (lang_why != NULL && lang >= risk) {
            risk = lang;
            why = lang_why;
        }
    }
    if (reason != NULL)
        *reason = why;
    return risk;
}
