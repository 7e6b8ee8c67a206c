/*
 * audit_search.h — finding audit records: by principal, time range, action, event, decision and
 * code hash, over every chain a server wrote (the file log with its rotated files, the writer
 * chains "<path>.w2" .. beside it, or the PostgreSQL table replicas share), verifying each
 * chain as it reads (`sluice audit search`).
 *
 * Owns: the query (its checks: what a bad value is and how to write it), matching one record,
 * and the walk over chains: each record is matched only once the chain proved it
 * (sluice_audit_verify_each), so no edited record is ever reported as found. Does not own: the
 * chain format and its checks (audit_chain.h, audit_file.c, audit_pg.c), printing (cli/).
 */
#ifndef SLUICE_STATE_AUDIT_SEARCH_H
#define SLUICE_STATE_AUDIT_SEARCH_H

#include "state/audit.h"
#include "state/audit_pg.h"

#include <jansson.h>

/* What to find; NULL fields match everything. */
typedef struct sluice_audit_query {
    const char *user;      /* the record's "user" (the principal), exactly */
    const char *since;     /* "ts" at or after this UTC time: YYYY-MM-DD[THH[:MM[:SS[.fff]]]][Z] */
    const char *until;     /* "ts" before this UTC time (same forms) */
    const char *action;    /* "action": read | write | delete | admin */
    const char *event;     /* "event": validate, execute, deny, approval, admin, ... */
    const char *decision;  /* "decision": validated, executed, refused, ... */
    const char *code_hash; /* "code_hash" starting with these hex digits (at least 8) */
} sluice_audit_query;

/* Checks q's values: SLUICE_OK, or SLUICE_E_INVALID with err naming the option, the value and
 * the form it must take. */
sluice_status
sluice_audit_query_check(const sluice_audit_query *q, sluice_arena *arena, sluice_error *err);

/* True when record (one audit record) matches every field set in q. */
bool sluice_audit_query_match(const sluice_audit_query *q, const json_t *record);

/* Receives each match: the chain it is in ("main", "w2", ... or the table name), the record
 * (borrowed for the call). */
typedef void (*sluice_audit_found_fn)(void *ctx, const char *chain, json_t *record);

/* What a search read. report is the first problem of any chain (report->file names its file);
 * the chains after a broken one are still searched. */
typedef struct sluice_audit_search_report {
    sluice_audit_report first_problem;
    const char *problem_chain; /* the chain of first_problem, or NULL when every chain is intact */
    uint64_t records;          /* proven records read, all chains */
    uint64_t matches;
    unsigned chains;
} sluice_audit_search_report;

/* Searches the log at path: the main chain with its rotated files, then each writer chain
 * path.w2 .. path.w8 that exists. SLUICE_OK when every chain is intact; SLUICE_E_INVALID when
 * one is not (the matches before its problem were reported); SLUICE_E_IO when a file cannot be
 * read; SLUICE_E_NOMEM. */
sluice_status sluice_audit_search(const char *path,
                                  const sluice_audit_query *q,
                                  sluice_audit_found_fn found,
                                  void *ctx,
                                  sluice_audit_search_report *report);

/* The same over the PostgreSQL audit table ([state] audit_postgres); err says why it could not
 * be read (SLUICE_E_IO). */
sluice_status sluice_audit_search_pg(const sluice_audit_pg_options *options,
                                     const sluice_audit_query *q,
                                     sluice_audit_found_fn found,
                                     void *ctx,
                                     sluice_audit_search_report *report,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

#endif
