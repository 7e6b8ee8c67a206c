/*
 * bench_fork.c — the round trip of one bounded child (exec/bounded.h) on an idle server process
 * that has a DuckDB database open: the bare fork (empty work, report, reap), a bounded execute
 * of a one-row SELECT, and an analysis whose statement amplifies (so it binds in the child
 * first). Interleaved per iteration; prints median and p90 in microseconds as one JSON object.
 *
 *   bench_fork --db demo.duckdb [--iterations 200] [--warmup 20]
 *
 * Owns: the measurement only. Does not own: judging the numbers (bench/sql/fork.sh reports).
 */
#include "exec/bounded.h"
#include "exec/duckdb.h"
#include "exec/executor.h"
#include "exec/values.h"
#include "lang/sql/sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FORK_BARE, FORK_EXECUTE, FORK_ANALYSIS, FORK_SIDES };
static const char *const side_names[FORK_SIDES] = { "bare", "execute_bounded", "analysis_probe" };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_fork: %s\n", what);
    exit(1);
}

static void report_ok(void *arg, sluice_buf *out)
{
    (void)arg;
    sluice_buf_puts(out, "ok");
}

static void run_side(int side, sluice_executor *ex, const sluice_config_code_mode *cm)
{
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    bool ok = false;
    if (side == FORK_BARE) {
        sluice_bounded *b = sluice_bounded_new(a);
        sluice_bounded_limits lim = { .timeout_ms = 5000, .max_report = 16 };
        sluice_bounded_outcome oc;
        const char *rep = NULL;
        size_t len = 0;
        ok = sluice_bounded_run(b, &lim, report_ok, NULL, a, &oc, &rep, &len) == SLUICE_OK &&
             oc == SLUICE_BOUNDED_DONE;
    } else if (side == FORK_EXECUTE) {
        sluice_exec_request req = { .code = "SELECT 42 AS answer", .code_len = 19 };
        req.limits.timeout_ms = 5000;
        req.limits.max_rows = 10;
        sluice_exec_result out;
        memset(&out, 0, sizeof(out));
        ok = sluice_executor_execute(ex, a, &req, &out, &err) == SLUICE_OK && out.row_count == 1;
    } else {
        const char *sql = "SELECT len(range(10)) AS k";
        sluice_frontend_context fc = { .code_mode = cm, .executor = ex };
        sluice_codefacts *facts = NULL;
        ok = sluice_sql_analyze(a, sql, strlen(sql), NULL, &fc, &facts, &err) == SLUICE_OK &&
             facts->violation_count == 0;
    }
    sluice_arena_free(a);
    if (!ok)
        die(side_names[side]);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    const char *db = NULL;
    int iterations = 200, warmup = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--db") == 0)
            db = argv[i + 1];
        else if (strcmp(argv[i], "--iterations") == 0)
            iterations = (int)strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = (int)strtol(argv[i + 1], NULL, 10);
    }
    if (db == NULL || iterations < 1 || warmup < 0)
        die("usage: bench_fork --db FILE [--iterations N] [--warmup N]");
    sluice_config_database cdb = { .engine = SLUICE_ENGINE_DUCKDB, .path = db, .threads = 2 };
    sluice_config_code_mode cm = { .sql_reads_enabled = true, .sql_max_rows = 10000 };
    sluice_arena *arena = sluice_arena_new();
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    if (sluice_executor_open(&cdb, &cm, &ex, arena, &err) != SLUICE_OK)
        die(err.message != NULL ? err.message : "open failed");
    int64_t *ns = calloc((size_t)iterations * FORK_SIDES, sizeof(*ns));
    if (ns == NULL)
        die("out of memory");
    for (int it = -warmup; it < iterations; it++)
        for (int k = 0; k < FORK_SIDES; k++) {
            int side = (k + (it < 0 ? 0 : it)) % FORK_SIDES;
            int64_t t0 = now_ns();
            run_side(side, ex, &cm);
            if (it >= 0)
                ns[(size_t)side * (size_t)iterations + (size_t)it] = now_ns() - t0;
        }
    printf("{\"iterations\": %d", iterations);
    for (int s = 0; s < FORK_SIDES; s++) {
        int64_t *v = ns + (size_t)s * (size_t)iterations;
        qsort(v, (size_t)iterations, sizeof(*v), cmp_i64);
        printf(", \"%s\": {\"median_us\": %.1f, \"p90_us\": %.1f}", side_names[s],
               (double)v[iterations / 2] / 1000.0, (double)v[iterations * 9 / 10] / 1000.0);
    }
    printf("}\n");
    free(ns);
    sluice_executor_close(ex);
    sluice_arena_free(arena);
    return 0;
}
