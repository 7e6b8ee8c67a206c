/*
 * estimate.h — cost known before approval, and bound into it (issue 24, docs/policy.md
 * "Cost before approval").
 *
 * Owns: what every language's estimate means to the gateway, whoever made it (codefacts.h
 * sluice_estimate_kind): the route's max_estimated_rows / max_estimated_cost limits, the
 * sentence validate_code's explanation carries, the claims a token signs, and the execute-time
 * comparison with the live estimate under estimate_drift_factor.
 * Does not own: making an estimate (each front end asks its engine or computes it), the risk it
 * raises (risk.c), the token format or the comparison arithmetic (token/token.h).
 */
#ifndef SLUICE_CODEMODE_ESTIMATE_H
#define SLUICE_CODEMODE_ESTIMATE_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/json_write.h"
#include "facts/codefacts.h"
#include "token/token.h"

#include <jansson.h>

/* Refuses facts above rules' max_estimated_rows / max_estimated_cost (a violation naming the
 * rule, both figures and the unit), and a read with no estimate at all when the route limits
 * either (fail closed: an estimate that cannot be made cannot be under a limit). Facts already
 * refused are left alone. SLUICE_E_NOMEM when the violation could not be recorded (the facts
 * are then incomplete, never a clean verdict). */
sluice_status sluice_estimate_limit(sluice_codefacts *facts, const sluice_config_code_mode *rules);

/* The estimate in words for the explanation ("PostgreSQL estimates about 500 rows at a plan
 * cost of 8 before running it."), in arena; "" when there is none; NULL on NOMEM. */
const char *sluice_estimate_words(sluice_arena *arena, const sluice_codefacts *facts);

/* {"by": "DuckDB", "rows": 12 | null, "cost": 40, "unit": "rows through the plan"} for the
 * audit record and the console (shown beside the code an approver reads), written where a value
 * goes in out (validate's record, written as text); facts without an estimate mark out bad. */
void sluice_estimate_write(sluice_json_out *out, const sluice_codefacts *facts);

/* The same as a tree; NULL when there is no estimate or memory ran out (the caller checks the
 * arena, never a silent omission). */
json_t *sluice_estimate_json(const sluice_codefacts *facts);

/* Copies the facts' estimate into claims (the token signs it). */
void sluice_estimate_bind(const sluice_codefacts *facts, sluice_token_claims *claims);

/* Whether an opened token's estimate must be made again at execute (the engine's planner made
 * it: the data can move it): the analysis kept from validate_code must not stand in for it. */
bool sluice_estimate_needs_live(const sluice_token_claims *claims);

/* The token's estimate against the live facts' under rules->estimate_drift_factor:
 * SLUICE_E_TOKEN with *problem SLUICE_TOKEN_ESTIMATE_DRIFT and err when it moved past it. */
sluice_status sluice_estimate_drift(const sluice_token_claims *claims,
                                    const sluice_codefacts *live,
                                    const sluice_config_code_mode *rules,
                                    sluice_arena *arena,
                                    sluice_token_problem *problem,
                                    sluice_error *err);

#endif
