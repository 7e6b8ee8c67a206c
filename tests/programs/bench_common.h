/*
 * bench_common.h — what every in-process benchmark program shares: a monotonic clock, dying
 * with a sentence, the sample statistics each side reports, and one validate that must pass.
 *
 * Owns: the statistics' names (n, median_us, p10_us, p90_us, mean_us, min_us, max_us), which the
 * bench/ scripts read. Does not own: sides, iterations or any judgement of a number.
 * Header-only (static functions) because each program is one translation unit.
 */
#ifndef SLUICE_BENCH_COMMON_H
#define SLUICE_BENCH_COMMON_H

#include "codemode/codemode.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Prints "<program>: what: detail" and exits 1: a benchmark that cannot measure says why. */
static inline void bench_die(const char *what, const char *detail)
{
    fprintf(stderr, "%s: %s%s%s\n", program_invocation_short_name, what, detail != NULL ? ": " : "",
            detail != NULL ? detail : "");
    exit(1);
}

static inline int bench_compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile p of n sorted samples, in microseconds. */
static inline double bench_pct_us(const int64_t *sorted, size_t n, double p)
{
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return (double)sorted[rank - 1] / 1000.0;
}

/* Sorts the n (> 0) samples in place and returns their statistics in microseconds. */
static inline json_t *bench_stats(int64_t *ns, size_t n)
{
    qsort(ns, n, sizeof *ns, bench_compare_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)ns[i] / 1000.0;
    double median = n % 2 == 1 ? (double)ns[n / 2] / 1000.0
                               : ((double)ns[n / 2 - 1] + (double)ns[n / 2]) / 2000.0;
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)n, "median_us", median,
                     "p10_us", bench_pct_us(ns, n, 10), "p90_us", bench_pct_us(ns, n, 90),
                     "mean_us", sum / (double)n, "min_us", (double)ns[0] / 1000.0, "max_us",
                     (double)ns[n - 1] / 1000.0);
}

/* The median of side name in a {side: stats} object. */
static inline double bench_median_us(json_t *sides, const char *name)
{
    return json_real_value(json_object_get(json_object_get(sides, name), "median_us"));
}

/* validate_code's answer for code, which the bench config must accept (else dies). */
static inline json_t *bench_validated(sluice_codemode *cm,
                                      const sluice_codemode_caller *caller,
                                      const char *code,
                                      sluice_arena *arena)
{
    sluice_error err = { 0 };
    json_t *out = NULL;
    const sluice_codemode_request req = {
        .arena = arena, .caller = caller, .code = code, .code_len = strlen(code), .err = &err
    };
    if (sluice_codemode_validate(cm, &req, &out) != SLUICE_OK)
        bench_die("validate failed", err.message);
    if (!json_is_true(json_object_get(out, "valid")))
        bench_die("a benchmark query is refused",
                  json_dumps(json_object_get(out, "violations"), 0));
    return out;
}

#endif
