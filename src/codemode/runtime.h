/*
 * runtime.h — the long-lived services every code-mode request leans on, built once by the CLI
 * (cli/runtime.c) and lent to code mode, query mode, curated tools and the admin console.
 *
 * Owns: the runtime's shape (the token keyring, the consume-once store, the administrator
 * approval store, the quota counters, the audit sink, the writer slot, the clock), the caller type
 * every audit record names, and writing one audit record (sluice_runtime_audit: the caller's fields
 * added, metrics and request notes taken, the sink marked broken when an append fails). Does not
 * own: opening or closing any of the stores (cli/runtime.c assembles them from the config), the
 * pipeline that uses them (codemode.h), the stores themselves (state/, token/).
 */
#ifndef SLUICE_CODEMODE_RUNTIME_H
#define SLUICE_CODEMODE_RUNTIME_H

#include "auth/identity.h"
#include "codemode/observe.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/json_write.h"
#include "state/approval.h"
#include "state/audit.h"
#include "state/program_store.h"
#include "state/quota.h"
#include "state/replay.h"
#include "token/key_store.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Who is asking, and where. */
typedef struct sluice_codemode_caller {
    const sluice_identity *identity;
    const char *session_id; /* MCP session ("stdio" for the stdio transport, "cli" for the CLI) */
    /* The language the call names (validate_code's `language`); NULL or "" means the server's
     * default, the first of [code_mode] languages. One the server is not configured for is
     * refused with the list of those it is. */
    const char *language;
    /* Optional: where a quota's refusal goes as JSON (state/quota.h
     * sluice_quota_refusal_json; a new reference the caller frees), so the surface can give
     * the client the quota and its reset time in a form it can act on. NULL: not wanted. */
    json_t **refusal;
} sluice_codemode_caller;

/* Every member is owned by the runtime and closed with it (cli/runtime.c); users only borrow
 * them, for no longer than the runtime lives. All are safe to use from any thread. */
typedef struct sluice_runtime {
    sluice_key_store *keys; /* the token keyring (reloaded on SIGHUP); NULL: code mode is off */
    sluice_replay *replay;  /* consume-once token ids; NULL: code mode is off */
    sluice_approval_store *approvals; /* administrator approvals; NULL without an audit log */
    /* saved programs (codemode/program.h); NULL without [code_mode] programs_file */
    sluice_program_store *programs;
    sluice_quota *quotas; /* per-caller quota counters ([quotas], a route's); NULL: none set */
    sluice_audit *audit;  /* the audit sink; NULL without an audit log */
    /* 1, or the writer slot this process took because another one holds the audit log; tokens
     * are bound to it, since each slot has its own consume-once store */
    unsigned writer_slot;
    const char *server_id; /* [code_mode] server_id, named in every audit record */
    /* The clock token expiry, consume-once pruning, approvals and quota windows read (NULL: the
     * system clock). Only tests set another one (a sluice_manual_clock, or `serve --test-clock`'s
     * file clock, core/clock_file.h), before any request; no config key reaches it. It must
     * outlive the runtime. */
    const sluice_clock *clock;
    atomic_bool audit_broken; /* an append failed: no more executions without an audit trail */
    sluice_arena *arena;      /* memory as long-lived as the runtime (store paths, curated tools) */
} sluice_runtime;

/* Appends one audit record of event for caller: fields (consumed, whatever happens) gets the
 * event, user, auth method, session, server and groups, and is counted in the metrics and the
 * request note first. No-op (SLUICE_OK) when rt or its audit sink is NULL. Fails closed:
 * SLUICE_E_NOMEM when the record cannot be built whole (nothing is written), the sink's status
 * (SLUICE_E_IO ...) when the append fails, and from then on sluice_runtime_audit_broken is
 * true. err (in arena) says what failed. */
sluice_status sluice_runtime_audit(sluice_runtime *rt,
                                   sluice_arena *arena,
                                   const sluice_codemode_caller *caller,
                                   const char *event,
                                   json_t *fields,
                                   sluice_error *err);

/* As sluice_runtime_audit, for a record written as text straight from its values, with no tree
 * built and freed (validate's, on every call): members (its buffer in arena) holds the members of
 * the record of event seen->event as state/audit.h's sluice_audit_append_members takes them, seen
 * what they say for the metrics. The event, user, ... are written after them, into members. The
 * keys are the caller's literals, none of them the runtime's or the chain's. */
sluice_status sluice_runtime_audit_members(sluice_runtime *rt,
                                           sluice_arena *arena,
                                           const sluice_codemode_caller *caller,
                                           const sluice_codemode_seen *seen,
                                           sluice_json_out *members,
                                           sluice_error *err);

/* One audit record: who, which event, and its fields (consumed, whatever happens). */
typedef struct sluice_runtime_event {
    const sluice_codemode_caller *caller;
    const char *event;
    json_t *fields;
} sluice_runtime_event;

/* Audits the outcome of a decision whose status is st (sluice_runtime_audit) and returns st,
 * unless st is SLUICE_OK and the record was not written: then the audit's failure, its reason in
 * err (in arena), so a decision nobody recorded does not succeed. A refusal stays the refusal
 * (its err untouched) whatever the audit does: the log and audit_broken tell of the failure. */
sluice_status sluice_runtime_audit_outcome(sluice_runtime *rt,
                                           sluice_arena *arena,
                                           sluice_runtime_event ev,
                                           sluice_status st,
                                           sluice_error *err);

/* True once an audit append failed (then nothing runs until the log is repaired). False for a
 * NULL runtime. */
bool sluice_runtime_audit_broken(const sluice_runtime *rt);

/* rt's clock now, in seconds (the system clock when rt or its clock is NULL). */
int64_t sluice_runtime_now_s(const sluice_runtime *rt);

#endif
