/*
 * audit.h — the hash-chained, append-only audit log: one JSON line per event.
 *
 * Owns: appending records and checking the chain. Each line is a compact JSON object whose
 * first keys are added here, then the caller's event fields in their order:
 *
 *     {"seq":N,"ts":"2026-08-20T12:34:56.789Z","prev":"<hex SHA-256 of line N-1>", ...event}
 *
 * seq starts at 1 and equals the line number; line 1's prev is 64 zeros (the genesis value); a
 * line's hash covers its bytes without the newline. A sidecar "<file>.head" holds the last seq
 * and line hash ("sluice-audit-head-v1 <seq> <hex>"), so cutting records off the end is caught
 * too. Appends are serialised by a mutex, written with O_APPEND in one write, and fdatasync'ed
 * (log, then head) before append returns; the file is flock'ed against a second writer.
 * Does not own: which events are recorded or their fields (the pipeline decides); secrets and
 * tokens must never be put in an event.
 */
#ifndef SLUICE_CODEMODE_AUDIT_H
#define SLUICE_CODEMODE_AUDIT_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Longest record line; code is capped at SLUICE_LIMIT_CODE_BYTES, JSON escaping can grow it. */
#define SLUICE_AUDIT_LINE_MAX (4u * 1024u * 1024u)

typedef struct sluice_audit sluice_audit;

/* Opens (creating, mode 0600) the log at path and its head file, and continues the chain from
 * the last line. Refuses (SLUICE_E_INVALID, message says what and to run `sluice audit verify`)
 * when the last line and the head disagree, the head is missing beside a non-empty log, or the
 * log ends in a partial line; SLUICE_E_IO when a file cannot be opened or is locked by another
 * process. Only the tail is read: `sluice audit verify` checks the whole chain. A head one record
 * behind the log (a crash between the two writes) is repaired. */
sluice_status
sluice_audit_open(const char *path, sluice_audit **out, sluice_arena *err_arena, sluice_error *err);

/* Appends one record made of seq, ts, prev and event's fields (event is not modified; it must be
 * an object without the keys seq, ts and prev: SLUICE_E_INVALID). SLUICE_E_LIMIT over
 * SLUICE_AUDIT_LINE_MAX. SLUICE_E_IO when the record could not be made durable; the log then
 * refuses every later append (the chain may be torn), so callers can fail closed. Thread-safe. */
sluice_status
sluice_audit_append(sluice_audit *log, json_t *event, sluice_arena *err_arena, sluice_error *err);

/* Records in the chain so far (the last seq). */
uint64_t sluice_audit_count(sluice_audit *log);

/* Closes the files and frees the log. NULL does nothing. */
void sluice_audit_close(sluice_audit *log);

typedef struct sluice_audit_report {
    uint64_t records; /* records checked and intact (all of them when the chain is intact) */
    size_t line;      /* 1-based line of the first problem; 0 when intact or file-wide */
    char what[256];   /* the first problem, for "FILE:LINE: what"; "" when intact */
} sluice_audit_report;

/* Checks the whole chain at path against itself and its head file. SLUICE_OK when intact;
 * SLUICE_E_INVALID with report->line and report->what for the first problem found: an edited
 * record (hash mismatch), a deleted or moved record (seq gap, prev mismatch), a truncated tail
 * (head mismatch), a malformed line. SLUICE_E_IO when the log cannot be read. */
sluice_status sluice_audit_verify(const char *path, sluice_audit_report *report);

#endif
