/*
 * audit_pg.h — the audit trail in PostgreSQL, shared by replicas: one append-only table holding
 * the same hash-chained records as the file sink ([state] audit_postgres), and its verifier
 * (`sluice audit verify --pg`).
 *
 * Owns: the table ("<table>": seq bigint primary key, line text — the record exactly as the file
 * sink writes it, without the newline) and its head row ("<table>_head": the last seq and line
 * hash), created when missing together with triggers refusing UPDATE, DELETE and TRUNCATE on the
 * records; appending (audit_pg.c); verifying. Does not own: the record format and the chain
 * checks (audit_chain.h, shared with the file sink), which events are recorded (the pipeline).
 */
#ifndef SLUICE_STATE_AUDIT_PG_H
#define SLUICE_STATE_AUDIT_PG_H

#include "state/audit.h"

typedef struct sluice_audit_pg_options {
    const char *conninfo;      /* libpq conninfo or URI, without a password */
    const char *password_file; /* or NULL */
    const char *password_env;  /* or NULL */
    const char *table;         /* NULL: "sluice_audit" */
    const sluice_clock *clock; /* stamps "ts"; NULL: the system clock */
} sluice_audit_pg_options;

/* Connects, creates the table, its head row and triggers when missing, and returns the sink.
 * Each append is one transaction: lock the head row (FOR UPDATE), insert the next record linked
 * to it, move the head, commit; it returns once PostgreSQL has committed (durable). Replicas
 * appending at once are serialised by that row lock. SLUICE_E_IO (message names PostgreSQL and
 * the reason) when the database cannot be reached or the tables made; SLUICE_E_NOMEM. A failed
 * append returns SLUICE_E_IO (the record may or may not be stored: the caller fails closed) and
 * the next append reconnects: a transaction never leaves a torn chain. */
sluice_status sluice_audit_open_pg(const sluice_audit_pg_options *options,
                                   sluice_audit **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err);

/* Checks the whole table as sluice_audit_verify checks a file: edited records (hash mismatch),
 * deleted, moved or reordered ones (seq gap, prev mismatch), a cut-off tail or an edited last
 * record (the head row), malformed rows; report->line is the record's position in seq order.
 * SLUICE_OK, SLUICE_E_INVALID, SLUICE_E_IO (cannot connect or read: err says why). */
sluice_status sluice_audit_verify_pg(const sluice_audit_pg_options *options,
                                     sluice_audit_report *report,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* sluice_audit_verify_pg, handing visit each record it proves (sluice_audit_verify_each), with
 * the table's name as the file. */
sluice_status sluice_audit_verify_pg_each(const sluice_audit_pg_options *options,
                                          sluice_audit_visit_fn visit,
                                          void *ctx,
                                          sluice_audit_report *report,
                                          sluice_arena *err_arena,
                                          sluice_error *err);

/* The last records of the table (at most max, newest first), each with "chain" set to the
 * table's name, for the admin console: what replicas appended, all of them. NULL with err
 * (SLUICE_E_IO naming the table and why) when it cannot be read or memory runs out. */
json_t *sluice_audit_tail_pg(const sluice_audit_pg_options *options,
                             size_t max,
                             sluice_arena *err_arena,
                             sluice_error *err);

#endif
