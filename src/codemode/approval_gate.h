/*
 * approval_gate.h — administrator approvals in the execute_code flow (codemode-internal).
 *
 * Owns: what execute_code does with the approval store for a token above the auto-approve
 * level: an administrator's decision wins (approved runs, rejected or expired never does); a
 * client that cannot ask its user gets a pending request recorded and a refusal naming the id
 * to approve; decisions nobody audited yet (`sluice approve` while the server held the audit
 * log) get their audit records. Does not own: the store (approval.h), elicitation (tools.c),
 * token checks and single use (pipeline.c).
 */
#ifndef SLUICE_CODEMODE_APPROVAL_GATE_H
#define SLUICE_CODEMODE_APPROVAL_GATE_H

#include "codemode/runtime.h"
#include "state/approval.h"
#include "state/replay.h"
#include "token/approval_state.h"
#include "token/token.h"

#include <jansson.h>
#include <stdint.h>

/* The administrator's verdict on the token of claims (its id names the request), read at rt's
 * clock: SLUICE_OK (approved; audited for caller with code_hash, and an audit failure turns it
 * into SLUICE_E_IO), SLUICE_E_DENIED (rejected or expired; err says so), SLUICE_E_NOT_FOUND (no
 * decision yet: pending or unknown, or rt has no approval store). Decisions nobody audited yet
 * are audited first (sluice_approval_gate_report). */
sluice_status sluice_approval_gate_check(sluice_runtime *rt,
                                         sluice_arena *arena,
                                         const sluice_codemode_caller *caller,
                                         const sluice_token_claims *claims,
                                         const char *code_hash,
                                         sluice_error *err);

/* Records a pending request for the token of claims (good until it expires; summary from the
 * validation: its action, risk_level and explanation), audits it, and returns SLUICE_E_DENIED
 * with a message telling the user to ask an administrator to run `sluice approve <id>`; the
 * store's status when the request cannot be recorded. rt must have an approval store. */
sluice_status sluice_approval_gate_ask(sluice_runtime *rt,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const sluice_token_claims *claims,
                                       const json_t *validation,
                                       sluice_error *err);

/* Writes the audit record of one administrator decision, made through via ("cli", "http"). */
sluice_status sluice_approval_gate_audit(sluice_runtime *rt,
                                         sluice_arena *arena,
                                         const sluice_approval *decision,
                                         const char *via,
                                         sluice_error *err);

/* Audits the decisions read from the store that have no audit record yet. */
void sluice_approval_gate_report(sluice_runtime *rt, sluice_arena *arena);

/* Opens an approval requestState at now: verified with keys for the answer's principal and
 * approval token (sluice_approval_state_answer) (token/approval_state.h), then its nonce consumed
 * once in replay — the half that needs the shared store, so a state counts once on every replica
 * sharing it. SLUICE_OK once; SLUICE_E_TOKEN (err says which check failed); SLUICE_E_DENIED when it
 * was used already; the store's failure status (SLUICE_E_IO, SLUICE_E_LIMIT, ...) when its use
 * could not be recorded — fail closed: the approval does not count then. err (arena) is for the
 * caller's client. */
sluice_status sluice_approval_state_open(sluice_key_store *keys,
                                         sluice_replay *replay,
                                         const sluice_approval_state_answer *answer,
                                         int64_t now,
                                         sluice_arena *arena,
                                         sluice_error *err);

#endif
