/*
 * risk.h — the risk level of a program, from its CodeFacts alone (docs/risk.md).
 *
 * Owns: the rules that turn action, complexity, row bounds and blocked-field use into
 * low | medium | high | critical, and the reason given for the level.
 * Does not own: what a level permits (auto_approve_levels in config, the pipeline) or policy.
 */
#ifndef SLUICE_CODEMODE_RISK_H
#define SLUICE_CODEMODE_RISK_H

#include "codemode/codefacts.h"
#include "config/config.h"

/* Complexity at or above this is "high complexity" (docs/risk.md). */
#define SLUICE_RISK_HIGH_COMPLEXITY 15
/* A read that may return more rows than this without a LIMIT is "unbounded". */
#define SLUICE_RISK_BIG_READ_ROWS 1000

/* The risk of running the program the facts describe. *reason (when reason is not NULL)
 * receives a static sentence naming the rule that decided the level. Refused facts are
 * critical: nothing refused may be auto-approved. */
sluice_risk sluice_risk_assess(const sluice_codefacts *facts, const char **reason);

#endif
