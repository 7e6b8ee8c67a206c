/*
 * risk.c — the SQL front end's risk rules (docs/risk.md, which must change with this file:
 * tag-risk-rules). The pipeline applies the neutral floor per action on top (codemode/risk.c).
 */
#include "lang/sql/internal.h"

/* SELECT 1, SELECT 2 * 21: no table, no function (so no range() or generate_series() either),
 * no subquery, no CTE (a recursive one is an endless generator): a few rows of constants. */
static bool reads_nothing(const sluice_codefacts *f)
{
    const sluice_sql_facts *sf = sluice_sql_facts_of(f);
    return f->resources_read.count == 0 && f->functions.count == 0 && sf->subquery_count == 0 &&
           sf->cte_names.count == 0 && f->violation_count == 0;
}

static sluice_risk read_risk(const sluice_codefacts *f, const char **reason)
{
    if (f->blocked_used.count > 0) {
        *reason = "reads blocked fields (only to join, filter or group)";
        return SLUICE_RISK_MEDIUM;
    }
    if (f->complexity >= SLUICE_RISK_HIGH_COMPLEXITY) {
        *reason = "high complexity (many joins, subqueries or windows)";
        return SLUICE_RISK_MEDIUM;
    }
    if (reads_nothing(f)) {
        *reason = "a constant result: reads no table and calls no function";
        return SLUICE_RISK_LOW;
    }
    /* DuckDB's estimate may raise this, never lower it (sql.h: guessed_rows) */
    int64_t guess = f->estimate_kind == SLUICE_ESTIMATE_PLAN_ROWS
                        ? sluice_sql_facts_of(f)->guessed_rows
                        : f->estimated_rows;
    if (!sluice_sql_facts_of(f)->has_limit && (guess < 0 || guess > SLUICE_RISK_BIG_READ_ROWS ||
                                               f->estimated_rows > SLUICE_RISK_BIG_READ_ROWS)) {
        *reason = "no LIMIT and the result may be large";
        return SLUICE_RISK_MEDIUM;
    }
    *reason = "read-only, bounded, no sensitive fields";
    return SLUICE_RISK_LOW;
}

sluice_risk sluice_sql_risk(const sluice_codefacts *facts, const char **reason)
{
    bool where = sluice_sql_facts_of(facts)->has_where;
    switch (facts->action) {
    case SLUICE_ACTION_READ:
        return read_risk(facts, reason);
    case SLUICE_ACTION_WRITE:
        *reason = where ? "changes data" : "changes data with no WHERE clause";
        return where ? SLUICE_RISK_HIGH : SLUICE_RISK_CRITICAL;
    case SLUICE_ACTION_DELETE:
        *reason = "deletes data";
        return SLUICE_RISK_CRITICAL;
    case SLUICE_ACTION_ADMIN:
        break;
    }
    *reason = "changes the database structure or the server";
    return SLUICE_RISK_CRITICAL;
}
