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
#include "bench_common.h"
#include "exec/bounded.h"
#include "exec/duckdb.h"
#include "exec/engines.h"
#include "exec/executor.h"
#include "exec/values.h"
#include "lang/sql/sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FORK_BARE, FORK_EXECUTE, FORK_ANALYSIS, FORK_SIDES };
static const char *const side_names[FORK_SIDES] = { "bare", "execute_bounded", "analysis_probe" };

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
        bench_die(side_names[side], NULL);
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
        bench_die("usage: bench_fork --db FILE [--iterations N] [--warmup N]", NULL);
    sluice_config_database cdb = { .engine = SLUICE_ENGINE_DUCKDB, .path = db, .threads = 2 };
    sluice_config_code_mode cm = { .sql_reads_enabled = true, .sql_max_rows = 10000 };
    sluice_arena *arena = sluice_arena_new();
    sluice_executor *ex = NULL;
    sluice_error err = { 0 };
    if (sluice_executor_open(&cdb, &cm, &ex, arena, &err) != SLUICE_OK)
        bench_die(err.message != NULL ? err.message : "open failed", NULL);
    int64_t *ns = calloc((size_t)iterations * FORK_SIDES, sizeof(*ns));
    if (ns == NULL)
        bench_die("out of memory", NULL);
    for (int it = -warmup; it < iterations; it++)
        for (int k = 0; k < FORK_SIDES; k++) {
            int side = (k + (it < 0 ? 0 : it)) % FORK_SIDES;
            int64_t t0 = bench_now_ns();
            run_side(side, ex, &cm);
            if (it >= 0)
                ns[(size_t)side * (size_t)iterations + (size_t)it] = bench_now_ns() - t0;
        }
    json_t *report = json_pack("{s:i}", "iterations", iterations);
    for (int s = 0; s < FORK_SIDES; s++)
        json_object_set_new(report, side_names[s],
                            bench_stats(ns + (size_t)s * (size_t)iterations, (size_t)iterations));
    json_dumpf(report, stdout, JSON_COMPACT | JSON_REAL_PRECISION(7));
    printf("\n");
    json_decref(report);
    free(ns);
    sluice_executor_close(ex);
    sluice_arena_free(arena);
    return 0;
}
