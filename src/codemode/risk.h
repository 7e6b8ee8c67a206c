/*
 * risk.h — the risk level of a program: its language's rules, then the floor every language
 * shares (docs/risk.md).
 *
 * Owns: the neutral part — refused code is critical; a write is at least high; a delete or an
 * admin action is critical, whatever a language's own rules say.
 * Does not own: a language's rules (its front end's risk op, in src/lang/), what a level
 * permits (auto_approve_levels in config, the pipeline) or policy.
 */
#ifndef SLUICE_CODEMODE_RISK_H
#define SLUICE_CODEMODE_RISK_H

#include "config/config.h"
#include "facts/codefacts.h"
#include "lang/frontend.h"

/* The risk of running the program the facts describe, from fe's rules (fe may be NULL, or have
 * no risk op: the floor alone decides). *reason (when reason is not NULL) receives a static
 * sentence naming the rule that decided. NULL or refused facts are critical: nothing refused
 * may be auto-approved. */
sluice_risk
sluice_risk_assess(const sluice_frontend *fe, const sluice_codefacts *facts, const char **reason);

#endif
