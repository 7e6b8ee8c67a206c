/*
 * audit.h — the audit sink: where every decision's record goes, behind a small ops table.
 *
 * Owns: the sink interface (sluice_audit_sink_ops + an opaque handle) and its contract, the
 * checks every sink shares (an event is an object without the chain's keys), and the file sink:
 * the hash-chained, append-only log, one JSON line per event. Each line is a compact JSON object
 * whose first keys are added here, then the caller's event fields in their order:
 *
 *     {"seq":N,"ts":"2026-08-20T12:34:56.789Z","prev":"<hex SHA-256 of line N-1>", ...event}
 *
 * seq starts at 1 and equals the line number; line 1's prev is 64 zeros (the genesis value); a
 * line's hash covers its bytes without the newline. A sidecar "<file>.head" holds the last
 * durable seq and line hash ("sluice-audit-head-v1 <seq> <hex>"), so cutting records off the end
 * is caught too. Appends are serialised by a mutex (the chain order is the append order) and
 * written with O_APPEND in one write; durability is a group commit (core/group_commit.h): the
 * first waiting writer fdatasyncs the log, then writes and fdatasyncs the head, for every record
 * written so far, and each append returns only once its record is covered. The file is flock'ed
 * against a second writer.
 * Does not own: which events are recorded or their fields (the pipeline decides); secrets and
 * tokens must never be put in an event; other sinks (PostgreSQL, ... come with the scale issue).
 */
#ifndef SLUICE_STATE_AUDIT_H
#define SLUICE_STATE_AUDIT_H

#include "core/arena.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/limits.h"
#include "state/audit_chain.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sink contract. Every op is called with the sink's own impl pointer.
 * append: atomic (the record is stored whole, exactly once, or not at all) and durable (it
 *   survives a crash or power loss) before SLUICE_OK returns; concurrent appends are put in one
 *   total order that the stored chain shows. Any other status means the record may or may not
 *   be stored: the caller must fail closed (refuse the action the record describes);
 *   SLUICE_E_IO also means the sink is broken and refuses every later append. Thread-safe.
 *   members (len bytes, borrowed) is the event as sluice_audit_append_members takes it.
 * count: records stored so far (for tests and diagnostics). Thread-safe.
 * close: frees impl; no op is called after it. */
typedef struct sluice_audit_sink_ops {
    const char *name;
    sluice_status (*append)(
        void *impl, const char *members, size_t len, sluice_arena *err_arena, sluice_error *err);
    uint64_t (*count)(void *impl);
    void (*close)(void *impl);
} sluice_audit_sink_ops;

typedef struct sluice_audit sluice_audit;

/* Wraps an implementation in a handle; on SLUICE_E_NOMEM impl is closed through ops. */
sluice_status sluice_audit_wrap(const sluice_audit_sink_ops *ops, void *impl, sluice_audit **out);

/* Opens the file sink: creates (mode 0600) or opens the log at path and its head file, and
 * continues the chain from the last line. Refuses (SLUICE_E_INVALID, message says what and to
 * run `sluice audit verify`) when the last line and the head disagree, the head is missing
 * beside a non-empty log, or the log ends in a partial line; SLUICE_E_IO when a file cannot be
 * opened or is locked by another process. Only the tail is read: `sluice audit verify` checks
 * the whole chain. A head up to SLUICE_LIMIT_AUDIT_UNSYNCED records behind the log (a crash during
 * a group commit, after the log was written and before the head was) is repaired once the
 * records after it link to it. Same as sluice_audit_open_file with NULL options. */
sluice_status
sluice_audit_open(const char *path, sluice_audit **out, sluice_arena *err_arena, sluice_error *err);

/* Tuning of the file sink, for tests and benchmarks; NULL for the defaults. clock stamps "ts"
 * (NULL: the system clock); per_record_sync makes every append take its own fdatasync under the
 * mutex, as before group commit (only to compare the two in bench/durable). */
typedef struct sluice_audit_file_options {
    const sluice_clock *clock;
    bool per_record_sync;
    /* Rotation ([code_mode] audit_rotate_bytes / audit_rotate_seconds; 0 = never): once the
     * file is larger than rotate_bytes, or has been written for rotate_seconds (counted from
     * its creation or from this open), the next append that finds every record durable (no
     * group commit running) moves it to "<path>.<N>" (N = 1, 2, ... oldest first, its head
     * beside it) and continues the same chain in a new file whose first record, event
     * "audit_rotated", links to the last one of the old file. */
    size_t rotate_bytes;
    int64_t rotate_seconds;
} sluice_audit_file_options;

sluice_status sluice_audit_open_file(const char *path,
                                     const sluice_audit_file_options *options,
                                     sluice_audit **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* As sluice_audit_open_file, but a log another running process holds is not an error: this
 * process takes the first free writer slot, its own chain "<path>.w2" .. "<path>.w<N>"
 * (SLUICE_LIMIT_AUDIT_WRITERS; *slot = 1 for path itself), with its own head and rotations;
 * `sluice audit verify path` checks every writer chain. SLUICE_E_IO when every slot is held
 * (the message says so, and that no chain is affected). */
sluice_status sluice_audit_open_writer(const char *path,
                                       const sluice_audit_file_options *options,
                                       unsigned *slot,
                                       sluice_audit **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err);

/* The file of writer slot `slot` of the log at path ("<path>" for 1, "<path>.w<slot>" else)
 * into out; false when it does not fit cap. */
bool sluice_audit_writer_path(const char *path, unsigned slot, char *out, size_t cap);

/* Appends one record made of seq, ts, prev and event's fields (event is not modified; it must be
 * an object without the keys seq, ts and prev: SLUICE_E_INVALID). SLUICE_E_LIMIT over
 * SLUICE_LIMIT_AUDIT_LINE_BYTES. SLUICE_E_IO when the record could not be made durable; the log
 * then refuses every later append (the chain may be torn), so callers can fail closed. Returns once
 * the record is durable. Thread-safe. */
sluice_status
sluice_audit_append(sluice_audit *log, json_t *event, sluice_arena *err_arena, sluice_error *err);

/* Appends one record made of seq, ts, prev and an event given as the text of its members: each
 * "key":value as compact JSON writes it inside an object, joined by ',', no braces ("" for no
 * member), as core/json_write's sluice_json_out writes them after an opened '{'. For a caller
 * that writes its record straight from its own values (validate's, on every call), with no
 * tree built and freed: the record's bytes are the same as sluice_audit_append's of the object
 * with those members. No key may be seq, ts or prev; the text is not parsed to look, so it is
 * for keys the caller writes as literals. Otherwise as sluice_audit_append. */
sluice_status sluice_audit_append_members(
    sluice_audit *log, const char *members, size_t len, sluice_arena *err_arena, sluice_error *err);

/* Writes event's members into buf as sluice_audit_append_members takes them, in event's order:
 * what sluice_audit_append does before it appends, for a caller that adds members of its own
 * as text after them. SLUICE_E_INVALID when event is not an object or has the key seq, ts or
 * prev; SLUICE_E_NOMEM (message "out of memory building an audit record") when the text cannot
 * be written: out of memory, or a value json_dumps would refuse (a string that is not UTF-8, a
 * splice placeholder). err is set in err_arena. */
sluice_status sluice_audit_event_members(sluice_buf *buf,
                                         json_t *event,
                                         sluice_arena *err_arena,
                                         sluice_error *err);

/* Room a record's text is written into from the start, by the sinks and by whoever writes an
 * event's members: the longest record of validating the 607 statements of the seeds and lineage
 * corpora is 1,917 bytes, most 600-1,200; so one allocation, not a chain of doublings (a longer
 * one grows as before). */
#define SLUICE_AUDIT_TEXT_RESERVE 2048u

/* Records in the chain so far (the last seq written). */
uint64_t sluice_audit_count(sluice_audit *log);

/* Closes the sink (files, connections) and frees the handle. NULL does nothing. */
void sluice_audit_close(sluice_audit *log);

/* The last records of the log at path and of its writer chains path.w2 .. path.wN (at most max
 * in all, newest first by "ts"), each as its JSON object with "chain" added ("main", "w2", ...);
 * lines that do not parse are skipped (verify reports them). NULL when a file that exists cannot
 * be read or memory runs out. Reads only the end of each current file (audit_tail.c). */
json_t *sluice_audit_tail(const char *path, size_t max);

/* Checks the whole chain at path against itself and its head file, following rotated files:
 * "<path>.1", "<path>.2", ... are checked first, oldest first, each against its own head, and
 * each file's first record must continue the one before (report->file names the file of the
 * first problem, "" when it is path itself). SLUICE_OK when intact;
 * SLUICE_E_INVALID with report->line and report->what for the first problem found: an edited
 * record (hash mismatch), a deleted or moved record (seq gap, prev mismatch), a truncated tail
 * (head mismatch), a malformed line; records after the head (a group commit cut off by a
 * crash, not yet adopted by the next open) as "not covered by the head file". SLUICE_E_IO when
 * the log cannot be read. */
sluice_status sluice_audit_verify(const char *path, sluice_audit_report *report);

/* sluice_audit_verify, handing visit every record it proves. At a problem the walk stops: the
 * records visited before it are intact, the one the problem is in (or that the problem leaves
 * unproven) is never visited. SLUICE_E_NOMEM when a record could not be held. */
sluice_status sluice_audit_verify_each(const char *path,
                                       sluice_audit_visit_fn visit,
                                       void *ctx,
                                       sluice_audit_report *report);

#endif
