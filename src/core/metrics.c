/*
 * metrics.c — the metrics registry (see metrics.h).
 *
 * Why slots claimed by compare-and-swap: a series is created once and then only counted, so
 * the common path is a hash, a probe and an atomic add. A new series' name is built first and
 * published whole with one CAS on the slot, so no thread ever waits for another.
 */
#include "core/metrics.h"

#include "core/clock.h"
#include "core/limits.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LABELS   3
#define LABEL_TEXT   (MAX_LABELS * (SLUICE_LIMIT_METRIC_LABEL_BYTES * 2 + 24))
#define BUCKET_COUNT 15

typedef enum kind { COUNTER, GAUGE, HISTOGRAM } kind;

typedef struct metric_def {
    const char *name;
    const char *help;
    kind kind;
    const char *labels[MAX_LABELS];
} metric_def;

/* One table: what /metrics names, in the order it shows them. */
static const metric_def defs[SLUICE_METRIC_COUNT] = {
    [SLUICE_METRIC_REQUESTS] = { "sluice_requests_total",
                                 "MCP requests answered, by method, tool and outcome",
                                 COUNTER,
                                 { "method", "tool", "status" } },
    [SLUICE_METRIC_REQUEST_SECONDS] = { "sluice_request_duration_seconds",
                                        "Time to answer an MCP request",
                                        HISTOGRAM,
                                        { "method" } },
    [SLUICE_METRIC_VALIDATE_SECONDS] = { "sluice_validate_duration_seconds",
                                         "Time to validate code (analysis, policy, token)",
                                         HISTOGRAM,
                                         { "language" } },
    [SLUICE_METRIC_EXECUTE_SECONDS] = { "sluice_execute_duration_seconds",
                                        "Time to execute code (admission and the engine)",
                                        HISTOGRAM,
                                        { "language" } },
    [SLUICE_METRIC_DENIALS] = { "sluice_denials_total",
                                "Refused validations and executions, by reason",
                                COUNTER,
                                { "reason" } },
    [SLUICE_METRIC_APPROVALS] = { "sluice_approvals_total",
                                  "Human approvals asked for and decided, by outcome",
                                  COUNTER,
                                  { "outcome" } },
    [SLUICE_METRIC_TOKEN_REFUSALS] = { "sluice_token_refusals_total",
                                       "Approval tokens refused at execute, by failed check",
                                       COUNTER,
                                       { "check" } },
    [SLUICE_METRIC_ENGINE_ERRORS] = { "sluice_engine_errors_total",
                                      "Executions the engine failed, by status",
                                      COUNTER,
                                      { "status" } },
    [SLUICE_METRIC_QUERYMODE_SESSIONS] = { "sluice_querymode_sessions_total",
                                           "Query-mode scratch sessions opened",
                                           COUNTER,
                                           { NULL } },
    [SLUICE_METRIC_QUERYMODE_OPEN] = { "sluice_querymode_sessions_open",
                                       "Query-mode scratch sessions alive now",
                                       GAUGE,
                                       { NULL } },
    [SLUICE_METRIC_AUDIT_RECORDS] = { "sluice_audit_records_total",
                                      "Audit records written",
                                      COUNTER,
                                      { NULL } },
    [SLUICE_METRIC_AUDIT_FSYNC_SECONDS] = { "sluice_audit_fsync_duration_seconds",
                                            "Time of one audit group commit (log and head "
                                            "fdatasync)",
                                            HISTOGRAM,
                                            { NULL } },
    [SLUICE_METRIC_AUDIT_ROTATIONS] = { "sluice_audit_rotations_total",
                                        "Audit log files rotated",
                                        COUNTER,
                                        { NULL } },
    [SLUICE_METRIC_BOUNDED_RUNS] = { "sluice_bounded_processes_total",
                                     "Capped child processes started to bind or run code that "
                                     "could grow outside the engine's limits (the slow path)",
                                     COUNTER,
                                     { NULL } },
    [SLUICE_METRIC_QUOTA_REFUSALS] = { "sluice_quota_refusals_total",
                                       "Calls refused because a caller's quota was used up, by "
                                       "quota and route",
                                       COUNTER,
                                       { "quota", "route" } },
    [SLUICE_METRIC_QUOTA_USAGE] = { "sluice_quota_usage_total",
                                    "What quotas counted: validate and execute calls, rows, "
                                    "bytes and upstream calls, by measure and route",
                                    COUNTER,
                                    { "measure", "route" } },
    [SLUICE_METRIC_ANALYSIS_RECALLS] = { "sluice_analysis_recalls_total",
                                         "Code not analysed again: the facts kept from an earlier "
                                         "validation answered, by call (validate, execute)",
                                         COUNTER,
                                         { "call" } },
};

/* Upper bounds in nanoseconds (0.5 ms .. 30 s); the +Inf bucket is implied. */
static const int64_t bucket_ns[BUCKET_COUNT] = {
    500000,    1000000,   2500000,    5000000,    10000000,   25000000,    50000000,    100000000,
    250000000, 500000000, 1000000000, 2500000000, 5000000000, 10000000000, 30000000000,
};
static const char *const bucket_text[BUCKET_COUNT] = {
    "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
    "0.25",   "0.5",   "1",      "2.5",   "5",    "10",    "30",
};

/* A series' identity, allocated once by the thread that creates the series and published with
 * one compare-and-swap: a reader sees no name or a complete one, never half of one. */
typedef struct series_name {
    uint64_t hash;
    char labels[LABEL_TEXT]; /* rendered: name="value",... (escaped) */
} series_name;

typedef struct series {
    _Atomic(series_name *) name; /* NULL: the slot is free */
    atomic_int_fast64_t value;   /* counter, gauge */
    atomic_uint_fast64_t buckets[BUCKET_COUNT + 1];
    atomic_uint_fast64_t sum_ns;
} series;

typedef struct family {
    series slots[SLUICE_LIMIT_METRIC_SERIES];
    series overflow;
    atomic_uint order[SLUICE_LIMIT_METRIC_SERIES]; /* slot index + 1, in creation order */
    atomic_uint created;
} family;

/* The registry is process-global for the same reason the log threshold is (globals.c): every
 * layer counts into the one /metrics page. Static here because its type is private. Series
 * names are never freed: at most SLUICE_LIMIT_METRIC_SERIES per metric, for the process's life. */
static family registry[SLUICE_METRIC_COUNT];

int64_t sluice_metric_now_ns(void)
{
    return sluice_clock_monotonic_ns(NULL);
}

/* Appends value escaped for a label (backslash, quote, newline), cut at the label limit. */
static size_t escape_value(char *out, size_t at, size_t cap, const char *value)
{
    size_t n = 0;
    for (const char *p = value; *p != '\0' && n < SLUICE_LIMIT_METRIC_LABEL_BYTES && at + 3 < cap;
         p++, n++) {
        char c = *p;
        if (c == '\\' || c == '"' || c == '\n') {
            out[at++] = '\\';
            c = c == '\n' ? 'n' : c;
        }
        out[at++] = c;
    }
    return at;
}

/* name="l1",name="l2"... into out; the empty string for a metric without labels. */
static void render_labels(const metric_def *d, const char *const values[MAX_LABELS], char *out)
{
    size_t at = 0;
    for (int i = 0; i < MAX_LABELS && d->labels[i] != NULL; i++) {
        at +=
            (size_t)snprintf(out + at, LABEL_TEXT - at, "%s%s=\"", i > 0 ? "," : "", d->labels[i]);
        at = escape_value(out, at, LABEL_TEXT, values[i] != NULL ? values[i] : "");
        out[at++] = '"';
    }
    out[at] = '\0';
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The series for these label values: found, or created now; the overflow series when the table
 * is full or the name cannot be allocated (a miscount, never a failure). */
static series *find_series(sluice_metric_id id, const char *l1, const char *l2, const char *l3)
{
    family *f = &registry[id];
    if (defs[id].labels[0] == NULL)
        return &f->slots[0]; /* the one series */
    const char *const values[MAX_LABELS] = { l1, l2, l3 };
    char text[LABEL_TEXT];
    render_labels(&defs[id], values, text);
    uint64_t h = fnv1a(text);
    series_name *mine = NULL;
    for (size_t probe = 0; probe < SLUICE_LIMIT_METRIC_SERIES; probe++) {
        size_t i = (size_t)((h + probe) % SLUICE_LIMIT_METRIC_SERIES);
        series *s = &f->slots[i];
        series_name *name = atomic_load_explicit(&s->name, memory_order_acquire);
        if (name == NULL) {
            if (mine == NULL && (mine = malloc(sizeof *mine)) != NULL) {
                mine->hash = h;
                memcpy(mine->labels, text, sizeof text);
            }
            if (mine == NULL)
                return &f->overflow;
            if (atomic_compare_exchange_strong(&s->name, &name, mine)) {
                unsigned at = atomic_fetch_add(&f->created, 1u);
                atomic_store_explicit(&f->order[at], (unsigned)i + 1u, memory_order_release);
                return s;
            }
            /* another thread took the slot first: name is theirs now; compare with it */
        }
        if (name->hash == h && strcmp(name->labels, text) == 0) {
            free(mine);
            return s;
        }
    }
    free(mine);
    return &f->overflow;
}

void sluice_metric_add(
    sluice_metric_id id, int64_t delta, const char *l1, const char *l2, const char *l3)
{
    if ((unsigned)id >= SLUICE_METRIC_COUNT || defs[id].kind == HISTOGRAM)
        return;
    atomic_fetch_add_explicit(&find_series(id, l1, l2, l3)->value, delta, memory_order_relaxed);
}

void sluice_metric_inc(sluice_metric_id id, const char *l1, const char *l2, const char *l3)
{
    sluice_metric_add(id, 1, l1, l2, l3);
}

void sluice_metric_observe_ns(sluice_metric_id id, int64_t ns, const char *l1, const char *l2)
{
    if ((unsigned)id >= SLUICE_METRIC_COUNT || defs[id].kind != HISTOGRAM)
        return;
    series *s = find_series(id, l1, l2, NULL);
    if (ns < 0)
        ns = 0;
    size_t b = 0;
    while (b < BUCKET_COUNT && ns > bucket_ns[b])
        b++;
    atomic_fetch_add_explicit(&s->buckets[b], 1u, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->sum_ns, (uint64_t)ns, memory_order_relaxed);
}

int64_t sluice_metric_value(sluice_metric_id id, const char *l1, const char *l2, const char *l3)
{
    if ((unsigned)id >= SLUICE_METRIC_COUNT)
        return 0;
    return (int64_t)atomic_load(&find_series(id, l1, l2, l3)->value);
}

/* ---- exposition ------------------------------------------------------------------------------ */

static void render_histogram(sluice_buf *out, const char *name, const char *labels, series *s)
{
    const char *sep = labels[0] != '\0' ? "," : "";
    uint64_t cumulative = 0;
    for (size_t b = 0; b <= BUCKET_COUNT; b++) {
        cumulative += atomic_load_explicit(&s->buckets[b], memory_order_relaxed);
        sluice_buf_printf(out, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels, sep,
                          b < BUCKET_COUNT ? bucket_text[b] : "+Inf",
                          (unsigned long long)cumulative);
    }
    uint64_t sum = atomic_load_explicit(&s->sum_ns, memory_order_relaxed);
    const char *open = labels[0] != '\0' ? "{" : "", *close = labels[0] != '\0' ? "}" : "";
    sluice_buf_printf(out, "%s_sum%s%s%s %.9f\n", name, open, labels, close, (double)sum / 1e9);
    sluice_buf_printf(out, "%s_count%s%s%s %llu\n", name, open, labels, close,
                      (unsigned long long)cumulative);
}

static void render_series(sluice_buf *out, const metric_def *d, const char *labels, series *s)
{
    if (d->kind == HISTOGRAM) {
        render_histogram(out, d->name, labels, s);
        return;
    }
    long long v = (long long)atomic_load_explicit(&s->value, memory_order_relaxed);
    if (labels[0] != '\0')
        sluice_buf_printf(out, "%s{%s} %lld\n", d->name, labels, v);
    else
        sluice_buf_printf(out, "%s %lld\n", d->name, v);
}

/* A metric without labels always shows its one series (a scraper sees 0, not nothing). */
static void render_family(sluice_buf *out, sluice_metric_id id)
{
    const metric_def *d = &defs[id];
    static const char *const type[] = { "counter", "gauge", "histogram" };
    sluice_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name,
                      type[d->kind]);
    family *f = &registry[id];
    if (d->labels[0] == NULL) {
        render_series(out, d, "", &f->slots[0]);
        return;
    }
    unsigned n = atomic_load(&f->created);
    for (unsigned k = 0; k < n && k < SLUICE_LIMIT_METRIC_SERIES; k++) {
        unsigned i = atomic_load_explicit(&f->order[k], memory_order_acquire);
        if (i == 0) /* claimed a moment ago, not yet listed */
            continue;
        series *s = &f->slots[i - 1];
        series_name *name = atomic_load_explicit(&s->name, memory_order_acquire);
        if (name != NULL)
            render_series(out, d, name->labels, s);
    }
    bool used = atomic_load(&f->overflow.value) != 0;
    for (size_t b = 0; b <= BUCKET_COUNT && !used; b++)
        used = atomic_load(&f->overflow.buckets[b]) != 0;
    if (used) {
        const char *const over[MAX_LABELS] = { "_overflow", "_overflow", "_overflow" };
        char text[LABEL_TEXT];
        render_labels(d, over, text);
        render_series(out, d, text, &f->overflow);
    }
}

void sluice_metrics_render(sluice_buf *out)
{
    for (int id = 0; id < SLUICE_METRIC_COUNT; id++)
        render_family(out, (sluice_metric_id)id);
}
