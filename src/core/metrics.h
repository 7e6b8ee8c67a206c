/*
 * metrics.h — the process's metrics registry: a fixed set of counters, gauges and fixed-bucket
 * histograms, each with up to three labels, rendered in the Prometheus text format.
 *
 * Owns: the metric names, help texts, label names and buckets (one table in metrics.c), the
 * series storage (a fixed array of slots per metric, each claimed once by publishing its name
 * with a compare-and-swap; every update is an atomic add: no lock, no wait), label escaping and
 * the text exposition. Label sets beyond SLUICE_LIMIT_METRIC_SERIES per metric fall into one
 * series whose labels are all "_overflow", so a client inventing names cannot grow memory.
 * Does not own: what is measured where (the callers), serving /metrics (transport/http_admin.c).
 */
#ifndef SLUICE_CORE_METRICS_H
#define SLUICE_CORE_METRICS_H

#include "core/buf.h"

#include <stdint.h>

typedef enum sluice_metric_id {
    SLUICE_METRIC_REQUESTS,            /* counter {method, tool, status} */
    SLUICE_METRIC_REQUEST_SECONDS,     /* histogram {method} */
    SLUICE_METRIC_VALIDATE_SECONDS,    /* histogram {language} */
    SLUICE_METRIC_EXECUTE_SECONDS,     /* histogram {language} */
    SLUICE_METRIC_DENIALS,             /* counter {reason} */
    SLUICE_METRIC_APPROVALS,           /* counter {outcome} */
    SLUICE_METRIC_TOKEN_REFUSALS,      /* counter {check} */
    SLUICE_METRIC_ENGINE_ERRORS,       /* counter {status} */
    SLUICE_METRIC_QUERYMODE_SESSIONS,  /* counter: query-mode sessions opened */
    SLUICE_METRIC_QUERYMODE_OPEN,      /* gauge: query-mode sessions alive */
    SLUICE_METRIC_AUDIT_RECORDS,       /* counter: audit records made durable */
    SLUICE_METRIC_AUDIT_FSYNC_SECONDS, /* histogram: one group commit's fdatasyncs */
    SLUICE_METRIC_AUDIT_ROTATIONS,     /* counter: audit files rotated */
    SLUICE_METRIC_BOUNDED_RUNS,        /* counter: bounded child processes started */
    SLUICE_METRIC_QUOTA_REFUSALS,      /* counter {quota, route} */
    SLUICE_METRIC_QUOTA_USAGE,         /* counter {measure, route}: calls, rows, bytes... */
    SLUICE_METRIC_ANALYSIS_RECALLS,    /* counter {call}: kept facts answered, no analysis */
    SLUICE_METRIC_COUNT
} sluice_metric_id;

/* Adds 1 to the counter id for the given label values (NULL where the metric has fewer labels;
 * a NULL value for a declared label renders as ""). Never fails, never blocks. */
void sluice_metric_inc(sluice_metric_id id, const char *l1, const char *l2, const char *l3);

/* Adds delta (may be negative for a gauge) to id's series. Never fails, never blocks. */
void sluice_metric_add(
    sluice_metric_id id, int64_t delta, const char *l1, const char *l2, const char *l3);

/* Records one observation of ns nanoseconds in the histogram id. Never fails, never blocks. */
void sluice_metric_observe_ns(sluice_metric_id id, int64_t ns, const char *l1, const char *l2);

/* The current value of a counter or gauge series (0 when the series does not exist); tests. */
int64_t sluice_metric_value(sluice_metric_id id, const char *l1, const char *l2, const char *l3);

/* Monotonic nanoseconds, for timing what a histogram observes. */
int64_t sluice_metric_now_ns(void);

/* Appends every metric in the Prometheus text format (version 0.0.4) to out: a HELP and TYPE
 * line for each, then its series in the order they appeared. The caller checks out's status. */
void sluice_metrics_render(sluice_buf *out);

#endif
