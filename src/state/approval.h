/*
 * approval.h — the administrator approval store: token id → pending | approved | rejected,
 * behind a small ops table.
 *
 * Owns: the store interface (sluice_approval_store_ops + an opaque handle), its contract and the
 * checks every store shares (well-formed ids), and the file store: one append-only file of JSON
 * lines (default "<audit_log>.approvals", mode 0600), shared by the server and `sluice approve` in
 * another process: every write takes an exclusive flock, first reads what other processes appended,
 * then checks and appends, so two administrators cannot both decide one request. The life of a
 * request is fixed: (none) → pending → approved | rejected and it expires with its approval token
 * (expires_at). A rejected or expired request can never be approved later, a decided one never
 * decided again; lines in the file that break these rules (a hand edit) are ignored when read.
 * Thread-safe (one mutex per store). Other stores (PostgreSQL, Redis) come with the scale issue as
 * other implementations of the ops. Does not own: what an approval lets run (the pipeline checks
 * the token and consumes it once through the replay store), the audit records of decisions (callers
 * write them), who may decide (the CLI trusts whoever can write the file; the HTTP endpoint checks
 * the [admin] key).
 */
#ifndef SLUICE_STATE_APPROVAL_H
#define SLUICE_STATE_APPROVAL_H

#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stdint.h>

/* Hex token id: 2 × SLUICE_REPLAY_ID_BYTES. */
#define SLUICE_APPROVAL_ID_LEN 32u

typedef enum sluice_approval_state {
    SLUICE_APPROVAL_NONE = 0, /* never requested */
    SLUICE_APPROVAL_PENDING,
    SLUICE_APPROVAL_APPROVED,
    SLUICE_APPROVAL_REJECTED,
    SLUICE_APPROVAL_EXPIRED, /* pending or approved past expires_at */
} sluice_approval_state;

typedef struct sluice_approval {
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    sluice_approval_state state;
    int64_t expires_at;
    char user[128];       /* who asked */
    char summary[512];    /* what: action, risk, code (shortened) */
    char decided_by[128]; /* "" until decided */
    int64_t decided_at;
    bool audited; /* the decision already has its audit record */
} sluice_approval;

/* A request for an administrator's approval: the approval token's id, when that token expires
 * (the request with it), who asks, and what for (action, risk, code; shortened to fit). */
typedef struct sluice_approval_ask {
    const char *id;
    int64_t expires_at;
    const char *user;    /* NULL: "" */
    const char *summary; /* NULL: "" */
} sluice_approval_ask;

/* An administrator's decision on one request. audited says whether the deciding caller has
 * written (or will write) the decision's audit record itself. */
typedef struct sluice_approval_decision {
    const char *id;
    bool approve;      /* false: reject */
    const char *admin; /* who decides; NULL: "admin" */
    bool audited;
} sluice_approval_decision;

/* The store contract. Every op is called with the store's own impl pointer, ids already checked
 * (sluice_approval_id_valid); all are thread-safe and must hold across processes sharing the
 * store (the server and `sluice approve`). now is the caller's clock: a request past expires_at
 * at now is reported EXPIRED and can no longer be decided.
 * get: the request as of now, SLUICE_APPROVAL_NONE when unknown. A store that cannot be read
 *   answers from what it last read: states only move forward and a decision is final, so a
 *   stale answer can say "pending" for an approved request (a refusal) but never "approved"
 *   for a rejected one.
 * request: atomically records a pending request for id unless one exists (check-and-insert);
 *   durable before SLUICE_OK. *out is the request as it now stands.
 * decide: atomically moves a pending, unexpired request to approved or rejected (of two
 *   concurrent decisions exactly one wins, the other gets SLUICE_E_DENIED); durable before
 *   SLUICE_OK. SLUICE_E_NOT_FOUND, SLUICE_E_DENIED, SLUICE_E_IO/NOMEM (nothing was decided).
 * take_unaudited / pending: as the functions below. close: frees impl. */
typedef struct sluice_approval_store_ops {
    const char *name;
    sluice_approval (*get)(void *impl, const char *id, int64_t now);
    sluice_status (*request)(void *impl,
                             const sluice_approval_ask *ask,
                             int64_t now,
                             sluice_approval *out,
                             sluice_arena *err_arena,
                             sluice_error *err);
    sluice_status (*decide)(void *impl,
                            const sluice_approval_decision *decision,
                            int64_t now,
                            sluice_approval *out,
                            sluice_arena *err_arena,
                            sluice_error *err);
    size_t (*take_unaudited)(void *impl, sluice_approval *out, size_t max);
    size_t (*pending)(void *impl, int64_t now, sluice_approval *out, size_t max);
    void (*close)(void *impl);
} sluice_approval_store_ops;

typedef struct sluice_approval_store sluice_approval_store;

/* Wraps an implementation in a handle; on SLUICE_E_NOMEM impl is closed through ops. */
sluice_status
sluice_approval_wrap(const sluice_approval_store_ops *ops, void *impl, sluice_approval_store **out);

/* Opens the file store (creating the file, 0600) at path and reads it. SLUICE_E_IO when it
 * cannot. */
sluice_status sluice_approval_open(const char *path,
                                   sluice_approval_store **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err);
void sluice_approval_close(sluice_approval_store *store);

/* True when id is 32 lower-case hex digits. */
bool sluice_approval_id_valid(const char *id);

/* The request as of now (re-reading what others appended); state NONE when unknown. */
sluice_approval sluice_approval_get(sluice_approval_store *store, const char *id, int64_t now);

/* Records ask as a pending request unless one exists for its id; *out is the request as it now
 * stands (maybe already decided or expired). SLUICE_E_INVALID (malformed id), SLUICE_E_IO when
 * the store cannot be written. */
sluice_status sluice_approval_request(sluice_approval_store *store,
                                      const sluice_approval_ask *ask,
                                      int64_t now,
                                      sluice_approval *out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* An administrator's decision on a pending request. SLUICE_E_NOT_FOUND (unknown or malformed
 * id), SLUICE_E_DENIED (already decided, or expired: err says which), SLUICE_E_IO. When
 * decision->audited is false the server that reads the decision later reports it through
 * sluice_approval_take_unaudited. */
sluice_status sluice_approval_decide(sluice_approval_store *store,
                                     const sluice_approval_decision *decision,
                                     int64_t now,
                                     sluice_approval *out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* Decisions read from the file that nobody audited yet (made by `sluice approve` while the audit
 * log was held by a server): copies up to max of them into out, marks them audited in memory,
 * and returns how many. The caller writes their audit records. */
size_t
sluice_approval_take_unaudited(sluice_approval_store *store, sluice_approval *out, size_t max);

/* Requests still pending at now (re-reading the file), oldest first: copies up to max into out
 * and returns how many there are in all. */
size_t sluice_approval_pending(sluice_approval_store *store,
                               int64_t now,
                               sluice_approval *out,
                               size_t max);

const char *sluice_approval_state_name(sluice_approval_state state);

#endif
