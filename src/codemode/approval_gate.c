/*
 * approval_gate.c — administrator approvals inside execute_code (see approval_gate.h).
 */
#include "codemode/approval_gate.h"

#include "core/hash.h"
#include "core/log.h"

#include <stdio.h>
#include <string.h>

sluice_status sluice_approval_gate_audit(sluice_runtime *rt,
                                         sluice_arena *arena,
                                         const sluice_approval *d,
                                         const char *via,
                                         sluice_error *err)
{
    sluice_identity admin = { .user_id = d->decided_by, .method = via };
    sluice_codemode_caller caller = { .identity = &admin, .session_id = via };
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "decision",
                  d->state == SLUICE_APPROVAL_APPROVED ? "approved" : "rejected", "approval_id",
                  d->id, "requested_by", d->user, "summary", d->summary, "decided_at",
                  (json_int_t)d->decided_at, "expires_at", (json_int_t)d->expires_at);
    return sluice_runtime_audit(rt, arena, &caller, "approval_decision", record, err);
}

void sluice_approval_gate_report(sluice_runtime *rt, sluice_arena *arena)
{
    sluice_approval_store *store = rt->approvals;
    sluice_approval batch[16];
    size_t n;
    while (store != NULL && (n = sluice_approval_take_unaudited(store, batch, 16)) > 0) {
        for (size_t i = 0; i < n; i++) {
            sluice_error err = { 0 };
            if (sluice_approval_gate_audit(rt, arena, &batch[i], "cli", &err) != SLUICE_OK)
                sluice_log(SLUICE_LOG_ERROR, "could not audit approval %s: %s", batch[i].id,
                           err.message != NULL ? err.message : "");
        }
    }
}

/* The approval id of a token: its id in hex. */
static void approval_id(const sluice_token_claims *claims, char id[2 * SLUICE_TOKEN_ID_BYTES + 1])
{
    sluice_hash_hex(claims->token_id, sizeof claims->token_id, id);
}

sluice_status sluice_approval_gate_check(sluice_runtime *rt,
                                         sluice_arena *arena,
                                         const sluice_codemode_caller *caller,
                                         const sluice_token_claims *claims,
                                         const char *code_hash,
                                         sluice_error *err)
{
    sluice_approval_store *store = rt->approvals;
    if (store == NULL)
        return SLUICE_E_NOT_FOUND;
    sluice_approval_gate_report(rt, arena);
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    approval_id(claims, id);
    sluice_approval a = sluice_approval_get(store, id, sluice_runtime_now_s(rt));
    if (a.state == SLUICE_APPROVAL_NONE || a.state == SLUICE_APPROVAL_PENDING)
        return SLUICE_E_NOT_FOUND;
    sluice_status st =
        a.state == SLUICE_APPROVAL_APPROVED
            ? SLUICE_OK
            : sluice_error_set(err, arena, SLUICE_E_DENIED,
                               "approval request %s is %s%s%s; it will not run. Validate the "
                               "code again for a new request",
                               id, sluice_approval_state_name(a.state),
                               a.decided_by[0] != '\0' ? " by " : "", a.decided_by);
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:s, s:s}", "decision",
                  st == SLUICE_OK ? "approved" : "rejected", "code_hash", code_hash, "via",
                  "administrator", "approval_id", id, "decided_by", a.decided_by);
    return sluice_runtime_audit_outcome(
        rt, arena, (sluice_runtime_event){ caller, "approval", record }, st, err);
}

sluice_status sluice_approval_gate_ask(sluice_runtime *rt,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const sluice_token_claims *claims,
                                       const json_t *validation,
                                       sluice_error *err)
{
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    approval_id(claims, id);
    int64_t expires_at = claims->expires_at;
    char summary[512];
    snprintf(summary, sizeof summary, "%s statement, %s risk: %s",
             json_string_value(json_object_get(validation, "action")),
             json_string_value(json_object_get(validation, "risk_level")),
             json_string_value(json_object_get(validation, "explanation")));
    const sluice_approval_ask ask = { id, expires_at, caller->identity->user_id, summary };
    sluice_approval a;
    sluice_status st =
        sluice_approval_request(rt->approvals, &ask, sluice_runtime_now_s(rt), &a, arena, err);
    if (st != SLUICE_OK)
        return st;
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:I}", "decision", "pending", "via", "administrator",
                  "approval_id", id, "expires_at", (json_int_t)expires_at);
    /* refused below (the request waits for an administrator) whether or not the record is written
     */
    (void)sluice_runtime_audit_outcome(
        rt, arena, (sluice_runtime_event){ caller, "approval", record }, SLUICE_E_DENIED, NULL);
    return sluice_error_set(
        err, arena, SLUICE_E_DENIED,
        "this %s statement is %s risk, above the auto-approve levels, and needs human approval; "
        "this client cannot ask its user, so approval request %s was recorded. Ask an "
        "administrator to run `sluice approve %s`, then call execute_code again with the same "
        "code and approval_token (before it expires)",
        json_string_value(json_object_get(validation, "action")),
        json_string_value(json_object_get(validation, "risk_level")), id, id);
}

/* The ids of tokens and of requestStates share the replay store. */
_Static_assert(SLUICE_TOKEN_ID_BYTES == SLUICE_REPLAY_ID_BYTES, "replay ids are token ids");

/* Consumes an opened state's nonce once in replay (see sluice_approval_state_open). */
static sluice_status spend(sluice_replay *replay,
                           const sluice_approval_state_claim *claim,
                           int64_t now,
                           sluice_arena *arena,
                           sluice_error *err)
{
    sluice_status used = sluice_replay_consume(replay, claim->nonce, claim->expires_at, now);
    if (used == SLUICE_E_DENIED)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "this approval requestState was used already; each is good for "
                                "one answer. Call execute_code again without requestState");
    if (used != SLUICE_OK) {
        char store[320];
        sluice_replay_describe(replay, store, sizeof store);
        return sluice_error_set(err, arena, used,
                                "the server could not record the use of this approval "
                                "requestState (%s: %s), so the approval does not count",
                                sluice_status_name(used), store);
    }
    return SLUICE_OK;
}

sluice_status sluice_approval_state_open(sluice_key_store *keys,
                                         sluice_replay *replay,
                                         const sluice_approval_state_answer *answer,
                                         int64_t now,
                                         sluice_arena *arena,
                                         sluice_error *err)
{
    sluice_approval_state_claim claim;
    sluice_status st = sluice_approval_state_verify(keys, answer, now, arena, &claim, err);
    return st == SLUICE_OK ? spend(replay, &claim, now, arena, err) : st;
}
