/*
 * audit_search.c — finding audit records over every chain, as the chains are verified (see
 * audit_search.h).
 *
 * Times compare as text: every record's "ts" is "YYYY-MM-DDTHH:MM:SS.fffZ" (audit_file.c), so
 * an accepted bound — the same fields, a prefix of them, without the "Z" — orders against it
 * exactly as the instants do ("2026-12-06T04" sorts before "2026-12-06T04:00:00.000Z" and
 * after every time of 03:59).
 */
#include "state/audit_search.h"

#include "core/limits.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CODE_HASH_MIN_HEX 8

/* The accepted shape of a time bound, digit by digit ('9' any digit, others literal). */
static const char time_shape[] = "9999-99-99T99:99:99.999";

/* Length of t's time without a trailing 'Z' when it is one of the accepted prefixes of
 * time_shape (a date, then hours, minutes, seconds, milliseconds), else 0. */
static size_t time_length(const char *t)
{
    size_t n = strlen(t);
    if (n > 0 && t[n - 1] == 'Z')
        n--;
    if (n > sizeof time_shape - 1)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (time_shape[i] == '9' ? !isdigit((unsigned char)t[i]) : t[i] != time_shape[i])
            return 0;
    /* where a prefix may end: after the date, the hour, the minutes, the seconds, 1-3 decimals */
    return n == 10 || n == 13 || n == 16 || n == 19 || (n >= 21 && n <= 23) ? n : 0;
}

/* True when time bound a is earlier than b (both accepted by time_length). */
static bool before(const char *a, const char *b)
{
    size_t la = time_length(a), lb = time_length(b);
    int c = memcmp(a, b, la < lb ? la : lb);
    return c < 0 || (c == 0 && la < lb);
}

static bool is_hex(const char *s)
{
    for (; *s != '\0'; s++)
        if (!isxdigit((unsigned char)*s))
            return false;
    return true;
}

sluice_status
sluice_audit_query_check(const sluice_audit_query *q, sluice_arena *arena, sluice_error *err)
{
    const char *const times[2] = { q->since, q->until };
    const char *const names[2] = { "--since", "--until" };
    for (int i = 0; i < 2; i++)
        if (times[i] != NULL && time_length(times[i]) == 0)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "%s '%.40s' is not a UTC time: write YYYY-MM-DD, optionally "
                                    "followed by THH, THH:MM, THH:MM:SS or THH:MM:SS.fff (and Z)",
                                    names[i], times[i]);
    if (q->since != NULL && q->until != NULL && !before(q->since, q->until))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "--since %s is not before --until %s: nothing can match", q->since,
                                q->until);
    if (q->action != NULL && strcmp(q->action, "read") != 0 && strcmp(q->action, "write") != 0 &&
        strcmp(q->action, "delete") != 0 && strcmp(q->action, "admin") != 0)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "--action '%.40s' is not read, write, delete or admin", q->action);
    if (q->code_hash != NULL && (strlen(q->code_hash) < CODE_HASH_MIN_HEX ||
                                 strlen(q->code_hash) > 64 || !is_hex(q->code_hash)))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "--code-hash '%.70s' is not %d to 64 hex digits (the code_hash "
                                "validate_code reports, or its start)",
                                q->code_hash, CODE_HASH_MIN_HEX);
    return SLUICE_OK;
}

static bool field_is(const json_t *record, const char *key, const char *want)
{
    if (want == NULL)
        return true;
    const char *v = json_string_value(json_object_get(record, key));
    return v != NULL && strcmp(v, want) == 0;
}

bool sluice_audit_query_match(const sluice_audit_query *q, const json_t *record)
{
    if (!field_is(record, "user", q->user) || !field_is(record, "action", q->action) ||
        !field_is(record, "event", q->event) || !field_is(record, "decision", q->decision))
        return false;
    const char *ts = json_string_value(json_object_get(record, "ts"));
    if ((q->since != NULL || q->until != NULL) && ts == NULL)
        return false;
    if (q->since != NULL && strncmp(ts, q->since, time_length(q->since)) < 0)
        return false;
    if (q->until != NULL && strncmp(ts, q->until, time_length(q->until)) >= 0)
        return false;
    if (q->code_hash != NULL) {
        const char *h = json_string_value(json_object_get(record, "code_hash"));
        if (h == NULL || strncasecmp(h, q->code_hash, strlen(q->code_hash)) != 0)
            return false;
    }
    return true;
}

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct walk {
    const sluice_audit_query *q;
    sluice_audit_found_fn found;
    void *ctx;
    const char *chain;
    sluice_audit_search_report *report;
    bool nomem;
} walk;

static void visit(void *ctx, const char *file, const char *line, size_t len)
{
    (void)file;
    walk *w = ctx;
    w->report->records++;
    /* proven by the chain, and parsed once already by the verifier: a NULL here is memory */
    json_t *rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
    if (rec == NULL) {
        w->nomem = true;
        return;
    }
    if (sluice_audit_query_match(w->q, rec)) {
        w->report->matches++;
        w->found(w->ctx, w->chain, rec);
    }
    json_decref(rec);
}

/* Folds one chain's verdict into the search's: the first problem is kept, with the file it is
 * in (file: the chain's live file or table, for a problem the verifier placed there). */
static sluice_status
note_chain(walk *w, sluice_status st, const sluice_audit_report *r, const char *file)
{
    w->report->chains++;
    if (w->nomem)
        return SLUICE_E_NOMEM;
    if (st != SLUICE_OK && w->report->problem_chain == NULL) {
        w->report->first_problem = *r;
        w->report->problem_chain = w->chain;
        if (r->file[0] == '\0')
            snprintf(w->report->first_problem.file, sizeof w->report->first_problem.file, "%s",
                     file);
    }
    return st;
}

sluice_status sluice_audit_search(const char *path,
                                  const sluice_audit_query *q,
                                  sluice_audit_found_fn found,
                                  void *ctx,
                                  sluice_audit_search_report *report)
{
    static const char *const chains[SLUICE_LIMIT_AUDIT_WRITERS] = { "main", "w2", "w3", "w4",
                                                                    "w5",   "w6", "w7", "w8" };
    _Static_assert(SLUICE_LIMIT_AUDIT_WRITERS == 8, "one chain name per writer slot");
    memset(report, 0, sizeof *report);
    sluice_status worst = SLUICE_OK;
    for (unsigned k = 1; k <= SLUICE_LIMIT_AUDIT_WRITERS; k++) {
        char file[4096];
        if (!sluice_audit_writer_path(path, k, file, sizeof file) ||
            (k > 1 && access(file, F_OK) != 0))
            continue;
        walk w = { q, found, ctx, chains[k - 1], report, false };
        sluice_audit_report r;
        sluice_status st = note_chain(&w, sluice_audit_verify_each(file, visit, &w, &r), &r, file);
        if (st == SLUICE_E_NOMEM || st == SLUICE_E_IO)
            return st; /* a chain that cannot be read: no partial answer passed off as whole */
        if (st != SLUICE_OK)
            worst = st;
    }
    return worst;
}

sluice_status sluice_audit_search_pg(const sluice_audit_pg_options *options,
                                     const sluice_audit_query *q,
                                     sluice_audit_found_fn found,
                                     void *ctx,
                                     sluice_audit_search_report *report,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    memset(report, 0, sizeof *report);
    walk w = { q,      found, ctx, options->table != NULL ? options->table : "sluice_audit",
               report, false };
    sluice_audit_report r;
    sluice_status st = sluice_audit_verify_pg_each(options, visit, &w, &r, err_arena, err);
    if (st == SLUICE_E_IO)
        return st;
    return note_chain(&w, st, &r, w.chain);
}
