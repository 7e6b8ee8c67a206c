/*
 * bench_pg.c — SQL code mode on PostgreSQL against the bare libraries, same queries, same server,
 * same run (test-only program behind bench/pg/run.sh).
 *
 * Owns: five measured sides, interleaved in every iteration (the order rotated) so the noise of
 * a shared machine hits all of them:
 *   validate_sluice     sluice_codemode_validate of seed 003's CTE query (parse, resolution
 *                       against the catalog, rules, policy, token);
 *   parse_libpg_query   pg_query_parse of the same text, the parse tree freed (the parser alone);
 *   execute_sluice      sluice_codemode_execute of a 1,000-row SELECT (token issued untimed just
 *                       before): pool, BEGIN READ ONLY + SET LOCAL, DECLARE, FETCH 1,001, JSON,
 *                       ROLLBACK, DISCARD ALL;
 *   execute_libpq       PQexecParams of the same SELECT on a connection kept open, every value
 *                       read with PQgetvalue;
 *   execute_libpq_json  the same, plus the rows built as JSON and serialized once (the work
 *                       sluice's result must do too).
 * Prints one JSON object (median, p10, p90 per side, ratios) to stdout or --out.
 * Does not own: the cluster (run.sh starts it) or judging any number.
 *
 *   bench_pg --conninfo CONNINFO [--iterations N] [--warmup W] [--out FILE]
 */
#include "bench_common.h"
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/limits.h"
#include "token/secret.h"

#include <jansson.h>
#include <libpq-fe.h>
#include <pg_query.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* tests/unit/data/sql/seeds/003_revenue_drop.sql, read at start. */
static char *seed003;

static const char rows1000[] =
    "SELECT id, customer_id, order_date, total_cents, status FROM orders ORDER BY id LIMIT 1000";

#define BENCH_KEY_ENV "SLUICE_BENCH_PG_KEY"

enum { VALIDATE_SLUICE, PARSE, EXECUTE_SLUICE, LIBPQ, LIBPQ_JSON, SIDES };
static const char *const side_names[SIDES] = {
    "validate_sluice", "parse_libpg_query", "execute_sluice", "execute_libpq", "execute_libpq_json",
};

typedef struct bench {
    sluice_codemode *cm;
    sluice_codemode_caller caller;
    PGconn *conn; /* the bare side's connection, kept open */
    char *token;  /* for the next execute_sluice, issued untimed */
    size_t rows;  /* sanity: every execute side sees 1,000 rows */
} bench;

static json_t *validated(bench *b, const char *code, sluice_arena *arena)
{
    return bench_validated(b->cm, &b->caller, code, arena);
}

static void token_for_next_execute(bench *b)
{
    sluice_arena *arena = sluice_arena_new();
    json_t *v = validated(b, rows1000, arena);
    free(b->token);
    b->token = strdup(json_string_value(json_object_get(v, "approval_token")));
    json_decref(v);
    sluice_arena_free(arena);
}

static void side_validate(bench *b)
{
    sluice_arena *arena = sluice_arena_new();
    json_decref(validated(b, seed003, arena));
    sluice_arena_free(arena);
}

static void side_parse(bench *b)
{
    (void)b;
    PgQueryParseResult r = pg_query_parse(seed003);
    if (r.error != NULL)
        bench_die("libpg_query refused seed 003", r.error->message);
    pg_query_free_parse_result(r);
}

static void side_execute(bench *b)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    json_t *out = NULL;
    char *text = NULL;
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &b->caller,
                                          .code = rows1000,
                                          .code_len = strlen(rows1000),
                                          .token = b->token,
                                          .err = &err };
    if (sluice_codemode_execute(b->cm, &req, &out, &text) != SLUICE_OK)
        bench_die("execute failed", err.message);
    b->rows = json_array_size(json_object_get(out, "rows"));
    json_decref(out);
    sluice_arena_free(arena);
}

static void side_libpq(bench *b, bool as_json)
{
    PGresult *r = PQexecParams(b->conn, rows1000, 0, NULL, NULL, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        bench_die("PQexecParams failed", PQresultErrorMessage(r));
    json_t *rows = as_json ? json_array() : NULL;
    size_t bytes = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        json_t *row = as_json ? json_array() : NULL;
        for (int j = 0; j < PQnfields(r); j++) {
            const char *v = PQgetvalue(r, i, j);
            bytes += (size_t)PQgetlength(r, i, j) + (v[0] != '\0');
            if (row != NULL)
                json_array_append_new(row, json_stringn(v, (size_t)PQgetlength(r, i, j)));
        }
        if (rows != NULL)
            json_array_append_new(rows, row);
    }
    b->rows = (size_t)PQntuples(r) + (bytes == 0); /* bytes keeps the reads from being elided */
    if (rows != NULL) {
        free(json_dumps(rows, JSON_COMPACT));
        json_decref(rows);
    }
    PQclear(r);
}

static void run_side(bench *b, int s)
{
    if (s == VALIDATE_SLUICE)
        side_validate(b);
    else if (s == PARSE)
        side_parse(b);
    else if (s == EXECUTE_SLUICE)
        side_execute(b);
    else
        side_libpq(b, s == LIBPQ_JSON);
    if (s >= EXECUTE_SLUICE && b->rows != 1000)
        bench_die("an execute side did not see 1,000 rows", side_names[s]);
}

/* The keys, stores and audit code mode runs on, for the whole run. */
static sluice_runtime *bench_rt;

static sluice_codemode *open_codemode(const char *conninfo, sluice_config **config)
{
    char key[SLUICE_LIMIT_SECRET_LINE_BYTES];
    if (sluice_secret_generate("bench", key, sizeof key) != SLUICE_OK ||
        setenv(BENCH_KEY_ENV, key, 1) != 0)
        bench_die("cannot make a signing key", NULL);
    char text[4096];
    /* high auto-approved: seed 003 is an expensive plan by PostgreSQL's estimate (docs/risk.md) */
    snprintf(text, sizeof text,
             "[server]\nname = \"bench\"\n[identity]\nuser = \"bench\"\n"
             "[database]\nengine = \"postgres\"\nconninfo = \"%s\"\n"
             "[code_mode]\nenabled = true\ntoken_secret_env = \"" BENCH_KEY_ENV "\"\n"
             "auto_approve_levels = [\"low\", \"medium\", \"high\"]\nblocked_fields = [\"ssn\", "
             "\"email\"]\n",
             conninfo);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_codemode *cm = NULL;
    if (sluice_config_load_text(text, strlen(text), "bench", ".", config, arena, &err) !=
            SLUICE_OK ||
        sluice_runtime_open(*config, NULL, &bench_rt, arena, &err) != SLUICE_OK ||
        sluice_codemode_open(*config, bench_rt, &cm, arena, &err) != SLUICE_OK)
        bench_die("cannot open code mode on PostgreSQL", err.message);
    sluice_arena_free(arena);
    return cm;
}

static char *read_seed(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 65536);
    size_t n = f != NULL && buf != NULL ? fread(buf, 1, 65535, f) : 0;
    if (f != NULL)
        fclose(f);
    if (n == 0)
        bench_die("cannot read seed 003", path);
    return buf;
}

int main(int argc, char **argv)
{
    const char *conninfo = NULL, *out = NULL;
    size_t iterations = 200, warmup = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--conninfo") == 0)
            conninfo = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
        else if (strcmp(argv[i], "--iterations") == 0)
            iterations = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = strtoul(argv[i + 1], NULL, 10);
    }
    if (conninfo == NULL || iterations < 10)
        bench_die(
            "usage: bench_pg --conninfo CONNINFO [--iterations N>=10] [--warmup W] [--out FILE]",
            NULL);
    seed003 = read_seed(SLUICE_SOURCE_DIR "/tests/unit/data/sql/seeds/003_revenue_drop.sql");
    sluice_config *config = NULL;
    bench b = { .cm = open_codemode(conninfo, &config) };
    sluice_identity who = { .user_id = "bench", .method = "bench" };
    b.caller = (sluice_codemode_caller){ .identity = &who, .session_id = "bench" };
    b.conn = PQconnectdb(conninfo);
    if (PQstatus(b.conn) != CONNECTION_OK)
        bench_die("cannot connect", PQerrorMessage(b.conn));
    int64_t *samples[SIDES];
    for (int s = 0; s < SIDES; s++)
        if ((samples[s] = calloc(iterations, sizeof(int64_t))) == NULL)
            bench_die("out of memory", NULL);
    for (size_t it = 0; it < warmup + iterations; it++) {
        token_for_next_execute(&b);
        for (int k = 0; k < SIDES; k++) {
            int s = (int)((k + it) % SIDES);
            int64_t t0 = bench_now_ns();
            run_side(&b, s);
            if (it >= warmup)
                samples[s][it - warmup] = bench_now_ns() - t0;
        }
    }
    json_t *sides = json_object();
    for (int s = 0; s < SIDES; s++)
        json_object_set_new(sides, side_names[s], bench_stats(samples[s], iterations));
    json_t *r = json_pack("{s:s, s:i, s:I, s:I, s:{s:s, s:s}, s:o, s:{s:f, s:f, s:f}}", "benchmark",
                          "sql code mode on postgresql vs libpg_query and libpq", "server_version",
                          PQserverVersion(b.conn), "iterations", (json_int_t)iterations, "warmup",
                          (json_int_t)warmup, "queries", "validate",
                          "tests/unit/data/sql/seeds/003_revenue_drop.sql", "execute", rows1000,
                          "sides", sides, "ratios", "validate_sluice_over_parse",
                          bench_median_us(sides, side_names[VALIDATE_SLUICE]) /
                              bench_median_us(sides, side_names[PARSE]),
                          "execute_sluice_over_libpq",
                          bench_median_us(sides, side_names[EXECUTE_SLUICE]) /
                              bench_median_us(sides, side_names[LIBPQ]),
                          "execute_sluice_over_libpq_json",
                          bench_median_us(sides, side_names[EXECUTE_SLUICE]) /
                              bench_median_us(sides, side_names[LIBPQ_JSON]));
    int rc = out != NULL ? json_dump_file(r, out, JSON_INDENT(2))
                         : json_dumpf(r, stdout, JSON_INDENT(2));
    json_decref(r);
    for (int s = 0; s < SIDES; s++)
        free(samples[s]);
    free(b.token);
    free(seed003);
    PQfinish(b.conn);
    sluice_codemode_close(b.cm);
    sluice_runtime_close(bench_rt);
    sluice_config_free(config);
    return rc == 0 ? 0 : 1;
}
