/*
 * quota_gate.h — quotas per caller in the validate_code and execute_code flow
 * (codemode-internal).
 *
 * Owns: when a call is counted against its caller's quotas (before any analysis, so a caller
 * over quota costs no work), the refusal the pipeline returns and audits (the message for the
 * client, the structured refusal for the surface, the metrics), clamping an admitted
 * execution's row, byte and upstream-call limits to what today's quotas still allow, and
 * charging what it returned afterwards. Does not own: the counters and the decision
 * (state/quota.h), the MCP result's shape (surface/tools.c).
 */
#ifndef SLUICE_CODEMODE_QUOTA_GATE_H
#define SLUICE_CODEMODE_QUOTA_GATE_H

#include "codemode/runtime.h"
#include "config/config.h"
#include "exec/executor.h"
#include "state/quota.h"

/* What the gate reads (all borrowed): the quota store and the clock of the runtime, the quota
 * sets of the config, and the policy that gives a caller its route. */
struct sluice_policy;
typedef struct sluice_quota_gate {
    sluice_runtime *rt;
    const sluice_config *config;
    const struct sluice_policy *policy;
} sluice_quota_gate;

/* Counts one call of stage for caller on its route. SLUICE_OK: go on (*room, when not NULL,
 * holds what an execution may still return today). SLUICE_E_LIMIT: a quota is used up (err
 * says which, its limit and usage, when it resets; *caller->refusal is set when asked for).
 * SLUICE_E_IO: the quota store failed (err names it): the caller refuses (fail closed). No
 * quota store (nothing configured): SLUICE_OK, unlimited room. */
sluice_status sluice_quota_gate_admit(const sluice_quota_gate *gate,
                                      sluice_arena *arena,
                                      const sluice_codemode_caller *caller,
                                      sluice_quota_stage stage,
                                      sluice_quota_room *room,
                                      sluice_error *err);

/* Lowers limits to room (a limit of 0 means "none" to an executor, so room 0 becomes 1 and the
 * admitted run is then refused by its own cap, which names the setting). */
void sluice_quota_gate_clamp(sluice_exec_limits *limits, const sluice_quota_room *room);

/* Charges an execution's rows, bytes and upstream calls to caller. SLUICE_E_IO (err says why)
 * when they could not be recorded: the caller withholds the result (fail closed). */
sluice_status sluice_quota_gate_charge(const sluice_quota_gate *gate,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const sluice_exec_result *r,
                                       sluice_error *err);

#endif
