/*
 * risk.c — risk level from CodeFacts (see risk.h; the rules and their reasons are in
 * docs/risk.md, which must change with this file: tag-risk-rules).
 */
#include "codemode/risk.h"

static sluice_risk read_risk(const sluice_codefacts *f, const char **reason)
{
    if (f->blocked_in_predicate) {
        *reason = "compares or groups on a blocked field (each such query can confirm a guess)";
        return SLUICE_RISK_HIGH;
    }
    if (f->blocked_used.count > 0) {
        *reason = "reads blocked fields (only to join, filter or group)";
        return SLUICE_RISK_MEDIUM;
    }
    if (f->complexity >= SLUICE_RISK_HIGH_COMPLEXITY) {
        *reason = "high complexity (many joins, subqueries or windows)";
        return SLUICE_RISK_MEDIUM;
    }
    if (!f->has_limit && (f->estimated_rows < 0 || f->estimated_rows > SLUICE_RISK_BIG_READ_ROWS)) {
        *reason = "no LIMIT and the result may be large";
        return SLUICE_RISK_MEDIUM;
    }
    *reason = "read-only, bounded, no sensitive fields";
    return SLUICE_RISK_LOW;
}

sluice_risk sluice_risk_assess(const sluice_codefacts *facts, const char **reason)
{
    const char *why = "";
    sluice_risk risk;
    if (facts == NULL || sluice_codefacts_refused(facts)) {
        why = "the program was refused";
        risk = SLUICE_RISK_CRITICAL;
    } else {
        switch (facts->action) {
        case SLUICE_ACTION_READ:
            risk = read_risk(facts, &why);
            break;
        case SLUICE_ACTION_WRITE:
            risk = facts->has_where ? SLUICE_RISK_HIGH : SLUICE_RISK_CRITICAL;
            why = facts->has_where ? "changes data" : "changes data with no WHERE clause";
            break;
        case SLUICE_ACTION_DELETE:
            risk = SLUICE_RISK_CRITICAL;
            why = "deletes data";
            break;
        case SLUICE_ACTION_ADMIN:
        default:
            risk = SLUICE_RISK_CRITICAL;
            why = "changes the database structure or the server";
            break;
        }
    }
    if (reason != NULL)
        *reason = why;
    return risk;
}
