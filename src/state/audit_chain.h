/*
 * audit_chain.h — the hash chain's record format and its checker, shared by the audit sinks
 * (codemode-internal): the file sink (audit_file.c, which owns both) and the PostgreSQL sink
 * (audit_pg.c) store the very same lines, so one verifier judges both.
 *
 * Does not own: where lines are stored or how appends are serialised (each sink). Below the sink
 * interface (audit.h includes it for the report and visitor shapes), so it includes nothing of
 * a sink.
 */
#ifndef SLUICE_STATE_AUDIT_CHAIN_H
#define SLUICE_STATE_AUDIT_CHAIN_H

#include "core/clock.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What checking a chain found (sluice_audit_verify, audit.h, and the PostgreSQL sink's
 * check report the same). */
typedef struct sluice_audit_report {
    uint64_t records; /* records checked and intact (all of them when the chain is intact) */
    size_t line;      /* 1-based line of the first problem; 0 when intact or file-wide */
    char what[256];   /* the first problem, for "FILE:LINE: what"; "" when intact */
    char file[4096];  /* the rotated file the problem is in; "" for path itself */
    unsigned files;   /* files checked (1 + the rotated ones) */
} sluice_audit_report;

/* Receives each record of a chain once it is proven — by the next record's prev, the last one
 * by the head — in chain order: the file it is in and its line (no newline, NUL-terminated). */
typedef void (*sluice_audit_visit_fn)(void *ctx, const char *file, const char *line, size_t len);

/* Record seq as one line: {"seq":seq,"ts":now,"prev":hex(last_hash),members} plus a newline
 * (malloc'd), its length with the newline, and the SHA-256 of the line without it; members (len
 * members_len) is the event's members' text (sluice_audit_append_members). NULL with *len 0:
 * out of memory; NULL with *len set: longer than SLUICE_LIMIT_AUDIT_LINE_BYTES. */
char *sluice_audit_render_record(uint64_t seq,
                                 const uint8_t *last_hash,
                                 const sluice_clock *clock,
                                 const char *members,
                                 size_t members_len,
                                 size_t *len,
                                 uint8_t *hash);

/* Checks the chain of the lines read from f (one record per line, from seq 1) and, when
 * has_head, that it ends at head_seq with head_hash; as sluice_audit_verify, report->line being
 * the 1-based position of the record. visit (or NULL) gets each record once proven, as
 * sluice_audit_verify_each, with name as its file. SLUICE_OK, SLUICE_E_INVALID, SLUICE_E_IO (f
 * unreadable), SLUICE_E_NOMEM. */
sluice_status sluice_audit_verify_lines(FILE *f,
                                        bool has_head,
                                        uint64_t head_seq,
                                        const uint8_t *head_hash,
                                        sluice_audit_visit_fn visit,
                                        void *ctx,
                                        const char *name,
                                        sluice_audit_report *report);

#endif
