/*
 * bench_durable.c — durable appends on the request path: what one governed execute writes (one
 * audit record + one consume-once token id), records/s with N threads, group commit vs the old
 * one fdatasync per record (test-only program behind bench/durable/run.sh).
 *
 * Owns: the measurement. For each thread count, each run opens a fresh audit log and replay
 * store in --dir (a real disk: fdatasync on tmpfs is free and would measure nothing), starts N
 * threads that each do --records/N (append + consume) pairs, and times the burst with the
 * monotonic clock. The two modes alternate run by run, so machine noise hits both. Prints one
 * JSON object: per mode and thread count, the median records/s over --runs with min and max.
 * Does not own: judging any number (nothing here asserts speed).
 *
 *   bench_durable --dir DIR [--threads 1,4,16,64] [--records 2000] [--runs 5] [--out FILE]
 *   SLUICE_BENCH_SYNC=per-record | group  runs only that mode (default: both)
 */
#include "core/clock.h"
#include "core/hash.h"
#include "state/audit.h"
#include "state/replay.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS     256
#define MAX_RUNS        31
#define MAX_THREAD_SETS 8

typedef struct run_ctx {
    sluice_audit *log;
    sluice_replay *replay;
    atomic_long next;
    long total;
    int64_t now;
    atomic_bool failed;
} run_ctx;

static void *worker(void *arg)
{
    run_ctx *c = arg;
    for (long n; (n = atomic_fetch_add(&c->next, 1)) < c->total;) {
        json_t *event = json_pack("{s:s, s:s, s:I, s:s}", "event", "execute", "decision",
                                  "executed", "n", (json_int_t)n, "code", "SELECT 1 AS one");
        sluice_status st = sluice_audit_append(c->log, event, NULL, NULL);
        json_decref(event);
        uint8_t hash[SLUICE_HASH_BYTES];
        sluice_hash_sha256(&n, sizeof n, hash);
        if (st == SLUICE_OK)
            st = sluice_replay_consume(c->replay, hash, c->now + 3600, c->now);
        if (st != SLUICE_OK)
            atomic_store(&c->failed, true);
    }
    return NULL;
}

static void remove_files(const char *dir)
{
    static const char *const names[] = { "audit.jsonl", "audit.jsonl.head", "tokens" };
    char path[4096];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
}

/* One burst; records/s, or -1 when a store failed. */
static double one_run(const char *dir, int threads, long records, bool per_record)
{
    remove_files(dir);
    char path[4096];
    run_ctx c = { .total = records, .now = sluice_clock_now_s(NULL) };
    sluice_audit_file_options ao = { .per_record_sync = per_record };
    sluice_replay_file_options ro = { .per_record_sync = per_record };
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    if (sluice_audit_open_file(path, &ao, &c.log, NULL, NULL) != SLUICE_OK)
        return -1;
    snprintf(path, sizeof path, "%s/tokens", dir);
    if (sluice_replay_open_file(path, c.now, &ro, &c.replay, NULL, NULL) != SLUICE_OK) {
        sluice_audit_close(c.log);
        return -1;
    }
    pthread_t t[MAX_THREADS];
    int64_t start = sluice_clock_monotonic_ns(NULL);
    int started = 0;
    while (started < threads && pthread_create(&t[started], NULL, worker, &c) == 0)
        started++;
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    int64_t elapsed = sluice_clock_monotonic_ns(NULL) - start;
    sluice_audit_close(c.log);
    sluice_replay_close(c.replay);
    if (started < threads || atomic_load(&c.failed) || elapsed <= 0)
        return -1;
    return (double)records * 1e9 / (double)elapsed;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static json_t *summary(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return json_pack("{s:f, s:f, s:f, s:i}", "median_per_s", median, "min_per_s", v[0], "max_per_s",
                     v[n - 1], "runs", n);
}

typedef struct options {
    const char *dir, *out;
    int threads[MAX_THREAD_SETS], thread_sets, runs;
    long records;
    bool group, per_record;
} options;

static bool parse_threads(const char *list, options *o)
{
    o->thread_sets = 0;
    for (const char *p = list; *p != '\0' && o->thread_sets < MAX_THREAD_SETS;) {
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > MAX_THREADS)
            return false;
        o->threads[o->thread_sets++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    return o->thread_sets > 0;
}

static bool parse_args(int argc, char **argv, options *o)
{
    *o = (options){ .records = 2000, .runs = 5, .group = true, .per_record = true };
    parse_threads("1,4,16,64", o);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--dir") == 0)
            o->dir = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0)
            o->out = argv[i + 1];
        else if (strcmp(argv[i], "--records") == 0)
            o->records = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--runs") == 0)
            o->runs = (int)strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--threads") != 0 || !parse_threads(argv[i + 1], o))
            return false;
    }
    const char *mode = getenv("SLUICE_BENCH_SYNC");
    if (mode != NULL && strcmp(mode, "per-record") == 0)
        o->group = false;
    else if (mode != NULL && strcmp(mode, "group") == 0)
        o->per_record = false;
    return o->dir != NULL && o->records > 0 && o->runs >= 1 && o->runs <= MAX_RUNS && argc % 2 == 1;
}

/* Both modes for one thread count, alternating run by run. */
static bool measure(const options *o, int threads, json_t *group, json_t *per_record)
{
    double g[MAX_RUNS], p[MAX_RUNS];
    for (int r = 0; r < o->runs; r++) {
        if (o->group && (g[r] = one_run(o->dir, threads, o->records, false)) < 0)
            return false;
        if (o->per_record && (p[r] = one_run(o->dir, threads, o->records, true)) < 0)
            return false;
    }
    char key[16];
    snprintf(key, sizeof key, "%d", threads);
    if (o->group)
        json_object_set_new(group, key, summary(g, o->runs));
    if (o->per_record)
        json_object_set_new(per_record, key, summary(p, o->runs));
    if (o->group && o->per_record)
        fprintf(
            stderr, "threads %3d: group %8.0f/s  per-record %8.0f/s  x%.2f\n", threads,
            json_real_value(json_object_get(json_object_get(group, key), "median_per_s")),
            json_real_value(json_object_get(json_object_get(per_record, key), "median_per_s")),
            json_real_value(json_object_get(json_object_get(group, key), "median_per_s")) /
                json_real_value(json_object_get(json_object_get(per_record, key), "median_per_s")));
    return true;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse_args(argc, argv, &o)) {
        fprintf(stderr, "usage: bench_durable --dir DIR [--threads 1,4,16,64] [--records N] "
                        "[--runs R] [--out FILE]\n");
        return 2;
    }
    json_t *group = json_object(), *per_record = json_object();
    for (int i = 0; i < o.thread_sets; i++) {
        if (!measure(&o, o.threads[i], group, per_record)) {
            fprintf(stderr, "bench_durable: a store failed in %s\n", o.dir);
            return 1;
        }
    }
    remove_files(o.dir);
    json_t *result = json_pack("{s:s, s:I, s:i, s:o, s:o}", "unit",
                               "audit record + consume-once id pairs per second", "records",
                               (json_int_t)o.records, "runs", o.runs, "group_commit", group,
                               "per_record_sync", per_record);
    int rc = o.out != NULL ? json_dump_file(result, o.out, JSON_INDENT(2))
                           : json_dumpf(result, stdout, JSON_INDENT(2));
    json_decref(result);
    return rc == 0 ? 0 : 1;
}
