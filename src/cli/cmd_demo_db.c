/*
 * cmd_demo_db.c — `sluice demo-db [--engine duckdb|sqlite] [--sql FILE] [--force] OUT`:
 * writes the deterministic demo database (examples/demo/demo.sql) to OUT.
 */
#include "cli/cli.h"
#include "core/clock.h"
#include "exec/demo_db.h"
#include "exec/values.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sluice_cmd_demo_db(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out, "usage: sluice demo-db [--engine duckdb|sqlite] [--sql FILE] [--force] OUT\n"
                 "  Writes the demo database (customers, orders, support_tickets, sales_reps,\n"
                 "  contacts, account_quarterly_metrics, invoices) to OUT. The same file content\n"
                 "  comes out on every run.\n"
                 "  --engine  duckdb (default) or sqlite\n"
                 "  --sql     the generator script (default: examples/demo/demo.sql of the\n"
                 "            source tree this sluice was built from)\n"
                 "  --force   replace OUT if it exists\n");
}

int sluice_cmd_demo_db(int argc, char **argv)
{
    sluice_engine_kind engine = SLUICE_ENGINE_DUCKDB;
    const char *sql = SLUICE_DEMO_SQL_DEFAULT, *out = NULL;
    bool force = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
            const char *e = argv[++i];
            if (strcmp(e, "duckdb") == 0) {
                engine = SLUICE_ENGINE_DUCKDB;
            } else if (strcmp(e, "sqlite") == 0) {
                engine = SLUICE_ENGINE_SQLITE;
            } else {
                fprintf(stderr, "sluice demo-db: unknown engine '%s' (duckdb or sqlite)\n", e);
                return SLUICE_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--sql") == 0 && i + 1 < argc) {
            sql = argv[++i];
        } else if (strcmp(argv[i], "--force") == 0) {
            force = true;
        } else if (argv[i][0] == '-' || out != NULL) {
            fprintf(stderr, "sluice demo-db: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return SLUICE_EXIT_USAGE;
        } else {
            out = argv[i];
        }
    }
    if (out == NULL) {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    if (force) {
        char wal[4096];
        snprintf(wal, sizeof(wal), "%s.wal", out);
        unlink(out);
        unlink(wal);
    }
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return SLUICE_EXIT_RUNTIME;
    sluice_error err = { 0 };
    int64_t t0 = sluice_clock_monotonic_ms(NULL);
    sluice_status st = sluice_exec_demo_generate(engine, sql, out, arena, &err);
    int rc = SLUICE_EXIT_OK;
    if (st != SLUICE_OK) {
        fprintf(stderr, "sluice demo-db: %s\n", err.message != NULL ? err.message : "failed");
        rc = st == SLUICE_E_INVALID ? SLUICE_EXIT_FAIL : SLUICE_EXIT_RUNTIME;
    } else {
        printf("wrote %s (%s) in %lld ms\n", out,
               engine == SLUICE_ENGINE_SQLITE ? "sqlite" : "duckdb",
               (long long)(sluice_clock_monotonic_ms(NULL) - t0));
    }
    sluice_arena_free(arena);
    return rc;
}
