/*
 * token.h — the approval token: what validate_code signs and execute_code must present.
 *
 * Owns: the claims, their unambiguous binary encoding, the wire form
 *
 *     "sl1." base64url(payload) "." base64url(HMAC-SHA256(key, "sluice-token-v1\0" payload))
 *
 * (base64url without padding, canonical), a strict bounded decoder for hostile input, and
 * verification: known key id, constant-time MAC, expiry, then every bound claim against the live
 * request, each mismatch its own sluice_token_problem and a message a model can act on.
 * Does not own: the keys (secret.h), single use (replay.h: consume after verify succeeds), the
 * canonical code hash or the context hash (the pipeline computes them), human approval.
 *
 * Payload (big-endian integers; every string carries its length, so no claim can bleed into
 * the next):
 *     u8 version(=3) | u8 n + key_id | 16 token_id | u16 n + server_id | 32 binding |
 *     5 x 3 marks | u8 action | u8 risk | i64 issued_at | i64 expires_at |
 *     u8 estimate_live | i64 estimated_rows | i64 estimated_cost
 * binding = SHA-256("sluice-token-binding-v1\0" | u16 n + user_id | u16 n + session_id |
 * context_hash | code_hash | variables_hash): the claims execute recomputes from the live request
 * travel as one full-strength hash under the MAC, not one by one (version 3, issue 26: the model
 * copies the token twice per program; 355 characters became about 225). The marks (the first 3
 * bytes of SHA-256 of user_id and session_id, and of the three hashes) are signed too but only
 * name WHICH claim differs in a refusal; the binding decides. (Version 2 added the estimate,
 * issue 24: the cost an approver saw is part of what was approved, so execute can refuse when the
 * engine's live estimate moved past estimate_drift_factor.)
 * action and risk are the numbers of sluice_action (codefacts.h) and sluice_risk (config.h):
 * they are signed into live tokens, so those enums must never be renumbered.
 */
#ifndef SLUICE_TOKEN_TOKEN_H
#define SLUICE_TOKEN_TOKEN_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/limits.h"
#include "facts/codefacts.h"
#include "token/secret.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLUICE_TOKEN_VERSION    3u
#define SLUICE_TOKEN_ID_BYTES   16u
#define SLUICE_TOKEN_MARKS      5u /* user, session, context, code, variables: */
#define SLUICE_TOKEN_MARK_CODE  3u /* the code hash's mark */
#define SLUICE_TOKEN_MARK_BYTES 3u
/* How far in the future issued_at may be (clock steps) before a token is refused. */
#define SLUICE_TOKEN_CLOCK_SKEW_SECONDS 60

/* Why a token was refused; stable names (sluice_token_problem_name) go into the audit log.
 * Append-only. */
typedef enum sluice_token_problem {
    SLUICE_TOKEN_OK = 0,
    SLUICE_TOKEN_MALFORMED = 1,     /* not a sluice token, bad encoding, bad field */
    SLUICE_TOKEN_TOO_LONG = 2,      /* longer than SLUICE_LIMIT_TOKEN_CHARS */
    SLUICE_TOKEN_BAD_VERSION = 3,   /* a token format this build does not know */
    SLUICE_TOKEN_UNKNOWN_KEY = 4,   /* key id not in the keyring (rotated out, or forged) */
    SLUICE_TOKEN_BAD_SIGNATURE = 5, /* MAC does not match: altered or forged */
    SLUICE_TOKEN_EXPIRED = 6,
    SLUICE_TOKEN_NOT_YET_VALID = 7, /* issued in the future beyond the allowed skew */
    SLUICE_TOKEN_SERVER_MISMATCH = 8,
    SLUICE_TOKEN_USER_MISMATCH = 9,
    SLUICE_TOKEN_SESSION_MISMATCH = 10,
    SLUICE_TOKEN_CONTEXT_MISMATCH = 11, /* schema, policies or permissions changed */
    SLUICE_TOKEN_CODE_MISMATCH = 12,
    SLUICE_TOKEN_VARIABLES_MISMATCH = 13,
    SLUICE_TOKEN_ACTION_MISMATCH = 14,
    SLUICE_TOKEN_RISK_MISMATCH = 15,
    SLUICE_TOKEN_REPLAYED = 16,         /* already used (reported by the caller after replay.h) */
    SLUICE_TOKEN_ESTIMATE_DRIFT = 17,   /* the live estimate moved past estimate_drift_factor */
    SLUICE_TOKEN_BINDING_MISMATCH = 18, /* the binding differs but no mark says which claim */
} sluice_token_problem;

#define SLUICE_TOKEN_PROBLEM_MAX SLUICE_TOKEN_BINDING_MISMATCH

typedef struct sluice_token_claims {
    uint8_t version;                           /* set by issue */
    char key_id[SLUICE_SECRET_KEY_ID_MAX + 1]; /* set by issue: the current key */
    uint8_t token_id[SLUICE_TOKEN_ID_BYTES];   /* set by issue: random */
    uint8_t code_hash[SLUICE_HASH_BYTES];      /* SHA-256 of the canonical code */
    const char *user_id;    /* NUL-free, <= SLUICE_LIMIT_TOKEN_FIELD_BYTES bytes; */
    const char *session_id; /* decode: NULL (in the binding, not on the wire) */
    const char *server_id;
    uint8_t context_hash[SLUICE_HASH_BYTES];   /* schema + policy set + permissions */
    uint8_t variables_hash[SLUICE_HASH_BYTES]; /* canonical variables */
    /* Set by issue and decode from the claims above (decode: code, context and variables hashes
     * and user and session ids are not on the wire, only these; they stay zero / NULL). */
    uint8_t binding[SLUICE_HASH_BYTES];
    uint8_t marks[SLUICE_TOKEN_MARKS][SLUICE_TOKEN_MARK_BYTES];
    sluice_action action;
    sluice_risk risk;
    int64_t issued_at;  /* unix seconds; set by issue */
    int64_t expires_at; /* set by issue: issued_at + ttl */
    /* The estimate validate_code reported (codefacts.h), -1 each when there was none; cost
     * rounded up to a whole number. estimate_live: it came from the engine's planner (it can
     * move with the data while the code and schema stay the same), so execute makes it again. */
    int64_t estimated_rows;
    int64_t estimated_cost;
    bool estimate_live;
} sluice_token_claims;

/* "ok", "malformed", "code_mismatch", ... ; "unknown" out of range. */
const char *sluice_token_problem_name(sluice_token_problem problem);

/* Signs a token with the ring's current key. Reads the bound claims (code_hash ... risk) from
 * *claims and fills in version, key_id, token_id, issued_at = now and expires_at = now + ttl.
 * *out_token is NUL-terminated, in arena. SLUICE_E_LIMIT for an over-long id, SLUICE_E_INVALID
 * for a NULL id, bad action/risk or ttl <= 0. */
sluice_status sluice_token_issue(const sluice_secret_ring *ring,
                                 sluice_token_claims *claims,
                                 int64_t now,
                                 int64_t ttl_seconds,
                                 sluice_arena *arena,
                                 char **out_token,
                                 sluice_error *err);

/* Decodes a token WITHOUT checking its MAC: the claims are untrusted (use them for audit only).
 * Strict: exact lengths, canonical base64url, no trailing bytes, defined enums. Strings go in
 * arena. On failure: SLUICE_E_TOKEN, *out_problem says which kind, err says what for the client. */
sluice_status sluice_token_decode(sluice_arena *arena,
                                  const char *token,
                                  size_t len,
                                  sluice_token_claims *out_claims,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err);

/* One check of a presented token: its text as the client sent it (len bytes, hostile until the
 * MAC says otherwise, not necessarily NUL-terminated), the ring of keys that may have signed it,
 * and the time it is checked at (unix seconds; injectable for tests). */
typedef struct sluice_token_check {
    const char *token;
    size_t len;
    const sluice_secret_ring *ring;
    int64_t now;
} sluice_token_check;

/* The first half of verify, which needs no analysis of the code: decode → key id known in
 * check->ring → MAC (constant-time) → not expired, not issued in the future at check->now.
 * SLUICE_OK fills *out_claims (now trusted: this server signed them); otherwise SLUICE_E_TOKEN
 * with *out_problem (may be NULL) and err. Execute runs it before it spends an analysis on the
 * code. */
sluice_status sluice_token_open(const sluice_token_check *check,
                                sluice_arena *arena,
                                sluice_token_claims *out_claims,
                                sluice_token_problem *out_problem,
                                sluice_error *err);

/* The second half: each bound claim of an opened token equals expected's (server, user,
 * session, context, code, variables, action, risk). SLUICE_E_TOKEN with the first mismatch. */
sluice_status sluice_token_match(const sluice_token_claims *claims,
                                 const sluice_token_claims *expected,
                                 sluice_arena *arena,
                                 sluice_token_problem *out_problem,
                                 sluice_error *err);

/* The estimate bound into an opened token against live's (the estimate made again for this
 * execute): SLUICE_E_TOKEN with SLUICE_TOKEN_ESTIMATE_DRIFT when the live row or cost estimate is
 * more than factor times the approved one (an approved 0 counts as 1), or when the token bound
 * an estimate and none could be made now (fail closed). Smaller live estimates pass: the
 * approval covered more. factor 0 or a token without an estimate: SLUICE_OK. */
sluice_status sluice_token_estimate_check(const sluice_token_claims *claims,
                                          const sluice_token_claims *live,
                                          int64_t factor,
                                          sluice_arena *arena,
                                          sluice_token_problem *out_problem,
                                          sluice_error *err);

/* Open and match in one call: verifies a token presented with a live request (sluice_token_open,
 * then each bound claim equals expected's: server, user, session, context, code, variables,
 * action, risk). SLUICE_OK fills *out_claims (may be NULL). Otherwise SLUICE_E_TOKEN with
 * *out_problem (may be NULL) and err->message telling the model what to do. Does not consume the
 * token. */
sluice_status sluice_token_verify(const sluice_token_check *check,
                                  const sluice_token_claims *expected,
                                  sluice_arena *arena,
                                  sluice_token_claims *out_claims,
                                  sluice_token_problem *out_problem,
                                  sluice_error *err);

#endif
