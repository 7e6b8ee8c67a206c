/*
 * bench_sql.c — SQL code mode against the bare DuckDB C API, same query, same database, same run
 * (test-only program behind bench/sql/run.sh).
 *
 * Owns: the measured sides, interleaved in every iteration so machine noise hits all of them:
 *   validate      sluice_codemode_validate of the seed-003 CTE query (analysis, policy, token,
 *                 audit record) vs. duckdb_extract_statements + duckdb_prepare_extracted_statement
 *                 on one plain connection (the engine's own parse + bind). Both sides take the
 *                 statement followed by a comment numbered per iteration ("-- first seen N"),
 *                 the same bytes on both: the file is served read_only, where validate takes
 *                 the facts it kept for a text it saw before (codemode/pipeline.c
 *                 may_recall_validated), so only a text never seen keeps validate_sluice a cold
 *                 analysis, as DuckDB's prepare, which keeps nothing, always is.
 *                 validate_sluice_repeat sends the plain statement every time: after the
 *                 warm-up the kept facts answer it (a model asking the same question again).
 *                 Its caller has one more group, so its context differs: the cache keeps one
 *                 entry per canonical form and context, and the numbered texts (the same
 *                 canonical form) would otherwise replace the plain text's entry every time;
 *   execute       sluice_codemode_execute of a 1,000-row SELECT (token issued by an untimed
 *                 validate just before) as execute_code runs it (rows spliced, the request
 *                 surface/tools.c makes), then its structuredContent written as the MCP writer
 *                 writes it (core/json_write.h: the JSON text the client gets), vs. prepare +
 *                 streaming execute + fetching every value into memory ("fetch only") and vs.
 *                 the same plus building the rows as JSON and serializing them once ("fetch +
 *                 JSON", the work sluice's result must do too). Both JSON sides end in text.
 *                 BENCH_ROWS_TREE=1: execute_sluice builds the rows as a jansson tree, which
 *                 the writer serializes (what every answer did before rows were spliced).
 *                 execute_sluice_first_seen runs the validate statement with a comment numbered
 *                 per iteration ("-- first executed N"), its token issued by an untimed validate
 *                 just before: an agent's common case, a program the executor has never run.
 *                 engine_prepared runs the validate statement's prepared statement (made once)
 *                 on the bare connection, engine_query parses, plans and runs its text every
 *                 time (duckdb_query): their ratio is the most any server that runs the engine
 *                 on every call can gain over one that plans every call (bench/peers' bound).
 * The bare side connects to the executor's own database instance (same file, same buffer pool,
 * same settings) and keeps its connection open, as any application would. Prints one JSON
 * object (medians, p90, ratios) to stdout or --out. With --callgrind SIDE it warms up, then runs
 * SIDE once inside measured_once(), for `valgrind --tool=callgrind --toggle-collect=measured_once`.
 * With --only SIDE[,SIDE...] the warm-up and the iterations run those sides alone (with only
 * their own untimed halves), so `perf stat`, `strace -c` or `perf record` of the whole process
 * see that side's costs and not the others' (divide by the iterations, or subtract a run with
 * fewer), and two sides show what one does to the other's time (caches, malloc's free lists).
 * The sides run in a random order per iteration (a seeded generator: the same orders every
 * run), so no side always inherits another's warm or cold caches. --order rotated keeps the
 * fixed cycle of the tables up to session 15, whose first side rotates per iteration but where
 * every side always follows the same one (validate_duckdb follows validate_sluice, which has
 * just parsed and bound the same text on the same database: warm; validate_sluice follows
 * engine_query: cold), which biased validate's wall ratio against sluice.
 * Does not own: generating the database (run.sh calls `sluice demo-db`) or judging any number.
 *
 *   bench_sql --db FILE [--iterations N] [--warmup W] [--threads T] [--audit DIR] [--out FILE]
 *             [--order rotated|shuffled] [--callgrind SIDE | --only SIDE[,SIDE...]]
 *   SIDE: validate_sluice|validate_duckdb|validate_sluice_repeat|execute_sluice|execute_fetch|
 *         execute_fetch_json|execute_sluice_first_seen|engine_prepared|engine_query
 */
#include "bench_common.h"
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/json_write.h"
#include "core/limits.h"
#include "exec/executor.h"
#include "token/secret.h"

#include <duckdb.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* tests/unit/data/sql/seeds/003_revenue_drop.sql: three CTEs, three joins, GROUP BY, ORDER BY. */
static const char seed003[] =
    "WITH current_revenue AS (\n"
    "  SELECT customer_id, SUM(total_cents) AS current_total_cents\n"
    "  FROM orders\n"
    "  WHERE order_date >= DATE '2026-04-01' AND order_date <  DATE '2026-07-01'\n"
    "  GROUP BY customer_id\n"
    "),\n"
    "previous_revenue AS (\n"
    "  SELECT customer_id, SUM(total_cents) AS previous_total_cents\n"
    "  FROM orders\n"
    "  WHERE order_date >= DATE '2026-01-01' AND order_date <  DATE '2026-04-01'\n"
    "  GROUP BY customer_id\n"
    "),\n"
    "ticket_counts AS (\n"
    "  SELECT customer_id, COUNT(*) AS ticket_count\n"
    "  FROM support_tickets\n"
    "  WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00'\n"
    "    AND created_at <  TIMESTAMP '2026-07-01 00:00:00'\n"
    "  GROUP BY customer_id\n"
    ")\n"
    "SELECT c.id, c.name, current_revenue.current_total_cents,\n"
    "  previous_revenue.previous_total_cents, ticket_counts.ticket_count\n"
    "FROM customers c\n"
    "JOIN current_revenue ON current_revenue.customer_id = c.id\n"
    "JOIN previous_revenue ON previous_revenue.customer_id = c.id\n"
    "JOIN ticket_counts ON ticket_counts.customer_id = c.id\n"
    "WHERE c.plan = 'enterprise'\n"
    "  AND current_revenue.current_total_cents < previous_revenue.previous_total_cents\n"
    "  AND ticket_counts.ticket_count > 3\n"
    "ORDER BY previous_revenue.previous_total_cents - current_revenue.current_total_cents DESC\n"
    "LIMIT 20;\n";

static const char rows1000[] =
    "SELECT id, customer_id, order_date, total_cents, status FROM orders ORDER BY id LIMIT 1000";

#define BENCH_KEY_ENV "SLUICE_BENCH_SQL_KEY"

/* What the validate sides check: seed 003 unless BENCH_VALIDATE_SQL names a file (bench/sql's
 * seed 000 and 1,000-row rows); both sides take the same statement. */
static const char *validate_sql = seed003;
static const char *validate_name = "tests/unit/data/sql/seeds/003_revenue_drop.sql";

typedef enum side {
    VALIDATE_SLUICE,
    VALIDATE_DUCKDB,
    EXECUTE_SLUICE,
    EXECUTE_FETCH,
    EXECUTE_FETCH_JSON,
    VALIDATE_SLUICE_REPEAT,
    EXECUTE_SLUICE_FIRST_SEEN,
    ENGINE_PREPARED,
    ENGINE_QUERY,
    SIDE_COUNT
} side;

static const char *const side_names[SIDE_COUNT] = {
    "validate_sluice",
    "validate_duckdb",
    "execute_sluice",
    "execute_fetch",
    "execute_fetch_json",
    "validate_sluice_repeat",
    "execute_sluice_first_seen",
    "engine_prepared",
    "engine_query",
};

typedef struct bench {
    sluice_runtime *rt;
    sluice_codemode *cm;
    sluice_codemode_caller caller;
    sluice_codemode_caller repeat_caller; /* validate_sluice_repeat's: caller, one group more */
    sluice_identity repeat_who;
    const char *repeat_groups[8];
    duckdb_connection conn;              /* the bare side's plain connection */
    duckdb_prepared_statement engine_ps; /* validate_sql, prepared once (engine_prepared) */
    char *token;          /* for the next execute_sluice; issued outside the timed region */
    char *first_seen;     /* validate_sql and this iteration's numbered comment (next_text) */
    char *first_executed; /* the same, numbered apart, for execute_sluice_first_seen */
    char *first_token;    /* its token, issued outside the timed region */
    size_t texts;         /* first_seen texts made so far */
    size_t rows_seen;     /* sanity: every execute side must see 1,000 rows */
    bool rows_tree; /* BENCH_ROWS_TREE=1: execute_sluice builds the rows' tree, as before splices */
    bool runs[SIDE_COUNT]; /* the sides measured: all, or --only's */
    bool only;             /* --only named them */
    bool shuffled;         /* a random order per iteration (default); false: --order rotated */
    uint64_t rng;          /* its generator's state (xorshift64, fixed seed) */
} bench;

/* ---- sluice sides -------------------------------------------------------------------------- */

static json_t *validate_once(bench *b, const char *code, sluice_arena *arena)
{
    return bench_validated(b->cm, &b->caller, code, arena);
}

static void run_validate_sluice(bench *b, const sluice_codemode_caller *caller, const char *code)
{
    sluice_arena *arena = sluice_arena_new();
    json_decref(bench_validated(b->cm, caller, code, arena));
    sluice_arena_free(arena);
}

/* The untimed half of validate_sluice and validate_duckdb: a text never validated before. */
static void next_text(bench *b)
{
    size_t n = strlen(validate_sql) + 64;
    free(b->first_seen);
    if ((b->first_seen = malloc(n)) == NULL)
        bench_die("out of memory", NULL);
    snprintf(b->first_seen, n, "%s\n-- first seen %zu", validate_sql, ++b->texts);
}

/* The untimed half of execute_sluice: a fresh single-use token for rows1000. */
static void issue_token(bench *b)
{
    sluice_arena *arena = sluice_arena_new();
    json_t *v = validate_once(b, rows1000, arena);
    const char *t = json_string_value(json_object_get(v, "approval_token"));
    if (t == NULL)
        bench_die("validate issued no approval token", NULL);
    free(b->token);
    b->token = strdup(t);
    json_decref(v);
    sluice_arena_free(arena);
}

/* The untimed half of execute_sluice_first_seen: a text never run, validated, its token kept. */
static void first_execute(bench *b)
{
    size_t n = strlen(validate_sql) + 64;
    free(b->first_executed);
    if ((b->first_executed = malloc(n)) == NULL)
        bench_die("out of memory", NULL);
    snprintf(b->first_executed, n, "%s\n-- first executed %zu", validate_sql, b->texts);
    sluice_arena *arena = sluice_arena_new();
    json_t *v = validate_once(b, b->first_executed, arena);
    const char *t = json_string_value(json_object_get(v, "approval_token"));
    if (t == NULL)
        bench_die("validate issued no approval token for the first-seen execute", NULL);
    free(b->first_token);
    b->first_token = strdup(t);
    json_decref(v);
    sluice_arena_free(arena);
}

static void run_execute_sluice(bench *b, const char *code, const char *token)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    json_t *out = NULL;
    char *text = NULL;
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &b->caller,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .token = token,
                                          .rows_spliced = !b->rows_tree,
                                          .err = &err };
    if (sluice_codemode_execute(b->cm, &req, &out, &text) != SLUICE_OK)
        bench_die("sluice_codemode_execute failed", err.message);
    sluice_buf wire;
    sluice_buf_init(&wire, NULL, 0);
    if (sluice_json_write(&wire, out) != SLUICE_OK)
        bench_die("writing the answer failed", NULL);
    sluice_buf_dispose(&wire);
    b->rows_seen = (size_t)json_integer_value(json_object_get(out, "row_count"));
    json_decref(out);
    sluice_arena_free(arena);
}

/* ---- bare DuckDB sides --------------------------------------------------------------------- */

static void run_validate_duckdb(bench *b)
{
    duckdb_extracted_statements ex = NULL;
    duckdb_prepared_statement ps = NULL;
    if (duckdb_extract_statements(b->conn, b->first_seen, &ex) != 1)
        bench_die("duckdb_extract_statements failed", duckdb_extract_statements_error(ex));
    if (duckdb_prepare_extracted_statement(b->conn, ex, 0, &ps) == DuckDBError)
        bench_die("duckdb_prepare_extracted_statement failed", duckdb_prepare_error(ps));
    duckdb_destroy_prepare(&ps);
    duckdb_destroy_extracted(&ex);
}

/* The validate statement run by DuckDB alone: its kept prepared statement, or its text parsed,
 * planned and run (the result materialized either way, as a server would read it). */
static void run_engine(bench *b, bool prepared)
{
    duckdb_result res;
    duckdb_state st = prepared ? duckdb_execute_prepared(b->engine_ps, &res)
                               : duckdb_query(b->conn, validate_sql, &res);
    if (st == DuckDBError)
        bench_die("the engine side failed", duckdb_result_error(&res));
    duckdb_destroy_result(&res);
}

/* One value as JSON, the way a C application would hand a row on: integers as numbers, dates
 * as ISO text, strings copied. Only the types the benchmark query returns. */
static json_t *bare_value(duckdb_vector vec, duckdb_type type, idx_t row)
{
    uint64_t *validity = duckdb_vector_get_validity(vec);
    if (!duckdb_validity_row_is_valid(validity, row))
        return json_null();
    void *data = duckdb_vector_get_data(vec);
    switch (type) {
    case DUCKDB_TYPE_INTEGER:
        return json_integer(((int32_t *)data)[row]);
    case DUCKDB_TYPE_BIGINT:
        return json_integer(((int64_t *)data)[row]);
    case DUCKDB_TYPE_DATE: {
        duckdb_date_struct d = duckdb_from_date(((duckdb_date *)data)[row]);
        char text[32];
        int n =
            snprintf(text, sizeof text, "%04d-%02d-%02d", (int)d.year, (int)d.month, (int)d.day);
        return json_stringn(text, (size_t)n);
    }
    case DUCKDB_TYPE_VARCHAR: {
        duckdb_string_t *s = &((duckdb_string_t *)data)[row];
        uint32_t len = duckdb_string_t_length(*s);
        return json_stringn(duckdb_string_t_data(s), len);
    }
    default:
        bench_die("unexpected column type in the benchmark query", NULL);
        return NULL;
    }
}

/* Into memory: integers summed, dates decoded, strings copied into one buffer. */
static void fetch_plain(duckdb_data_chunk chunk,
                        const duckdb_type *types,
                        idx_t ncols,
                        char *scratch,
                        size_t scratch_cap,
                        int64_t *sink)
{
    idx_t rows = duckdb_data_chunk_get_size(chunk);
    size_t used = 0;
    for (idx_t col = 0; col < ncols; col++) {
        duckdb_vector vec = duckdb_data_chunk_get_vector(chunk, col);
        void *data = duckdb_vector_get_data(vec);
        for (idx_t r = 0; r < rows; r++) {
            if (types[col] == DUCKDB_TYPE_INTEGER) {
                *sink += ((int32_t *)data)[r];
            } else if (types[col] == DUCKDB_TYPE_BIGINT) {
                *sink += ((int64_t *)data)[r];
            } else if (types[col] == DUCKDB_TYPE_DATE) {
                *sink += duckdb_from_date(((duckdb_date *)data)[r]).day;
            } else if (types[col] == DUCKDB_TYPE_VARCHAR) {
                duckdb_string_t *s = &((duckdb_string_t *)data)[r];
                uint32_t len = duckdb_string_t_length(*s);
                if (used + len < scratch_cap) {
                    memcpy(scratch + used, duckdb_string_t_data(s), len);
                    used += len;
                }
            }
        }
    }
}

static void run_execute_bare(bench *b, bool as_json)
{
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    if (duckdb_prepare(b->conn, rows1000, &ps) == DuckDBError)
        bench_die("duckdb_prepare failed", duckdb_prepare_error(ps));
    if (duckdb_execute_prepared_streaming(ps, &res) == DuckDBError)
        bench_die("duckdb_execute_prepared_streaming failed", duckdb_result_error(&res));
    idx_t ncols = duckdb_column_count(&res);
    duckdb_type types[16];
    if (ncols > 16)
        bench_die("too many columns", NULL);
    for (idx_t i = 0; i < ncols; i++)
        types[i] = duckdb_column_type(&res, i);
    json_t *rows = as_json ? json_array() : NULL;
    static char scratch[1 << 16];
    int64_t sink = 0;
    size_t seen = 0;
    duckdb_data_chunk chunk;
    while ((chunk = duckdb_fetch_chunk(res)) != NULL) {
        idx_t n = duckdb_data_chunk_get_size(chunk);
        if (as_json) {
            for (idx_t r = 0; r < n; r++) {
                json_t *row = json_array();
                for (idx_t col = 0; col < ncols; col++)
                    json_array_append_new(
                        row, bare_value(duckdb_data_chunk_get_vector(chunk, col), types[col], r));
                json_array_append_new(rows, row);
            }
        } else {
            fetch_plain(chunk, types, ncols, scratch, sizeof scratch, &sink);
        }
        seen += n;
        duckdb_destroy_data_chunk(&chunk);
    }
    if (as_json) {
        char *text = json_dumps(rows, JSON_COMPACT);
        if (text == NULL)
            bench_die("json_dumps failed", NULL);
        free(text);
        json_decref(rows);
    }
    duckdb_destroy_result(&res);
    duckdb_destroy_prepare(&ps);
    b->rows_seen = seen + (sink == INT64_MIN); /* keeps sink alive */
}

static void run_side(bench *b, side s)
{
    switch (s) {
    case VALIDATE_SLUICE:
        run_validate_sluice(b, &b->caller, b->first_seen);
        break;
    case VALIDATE_SLUICE_REPEAT:
        run_validate_sluice(b, &b->repeat_caller, validate_sql);
        break;
    case VALIDATE_DUCKDB:
        run_validate_duckdb(b);
        break;
    case EXECUTE_SLUICE:
        run_execute_sluice(b, rows1000, b->token);
        break;
    case EXECUTE_SLUICE_FIRST_SEEN:
        run_execute_sluice(b, b->first_executed, b->first_token);
        break;
    case EXECUTE_FETCH:
        run_execute_bare(b, false);
        break;
    case EXECUTE_FETCH_JSON:
        run_execute_bare(b, true);
        break;
    case ENGINE_PREPARED:
        run_engine(b, true);
        break;
    case ENGINE_QUERY:
        run_engine(b, false);
        break;
    default:
        break;
    }
    if (s >= EXECUTE_SLUICE && s <= EXECUTE_FETCH_JSON && b->rows_seen != 1000)
        bench_die("an execute side did not see 1,000 rows", side_names[s]);
}

/* The one call callgrind counts (--toggle-collect=measured_once). */
__attribute__((noinline)) void measured_once(bench *b, side s);
__attribute__((noinline)) void measured_once(bench *b, side s)
{
    run_side(b, s);
}

/* ---- statistics and report ----------------------------------------------------------------- */

static json_t *report(int64_t *samples[SIDE_COUNT], size_t n, size_t warmup, const char *audit)
{
    json_t *sides = json_object();
    for (int s = 0; s < SIDE_COUNT; s++)
        json_object_set_new(sides, side_names[s], bench_stats(samples[s], n));
    double v = bench_median_us(sides, side_names[VALIDATE_SLUICE]) /
               bench_median_us(sides, side_names[VALIDATE_DUCKDB]);
    double vr = bench_median_us(sides, side_names[VALIDATE_SLUICE_REPEAT]) /
                bench_median_us(sides, side_names[VALIDATE_DUCKDB]);
    double ef = bench_median_us(sides, side_names[EXECUTE_SLUICE]) /
                bench_median_us(sides, side_names[EXECUTE_FETCH]);
    double ej = bench_median_us(sides, side_names[EXECUTE_SLUICE]) /
                bench_median_us(sides, side_names[EXECUTE_FETCH_JSON]);
    return json_pack(
        "{s:s, s:s, s:I, s:I, s:b, s:{s:s, s:s}, s:o, s:{s:f, s:f, s:f, s:f}, s:{s:f, s:f}, "
        "s:{s:b, s:b}}",
        "benchmark", "sql code mode vs bare duckdb", "duckdb", duckdb_library_version(),
        "iterations", (json_int_t)n, "warmup", (json_int_t)warmup, "audit", audit != NULL,
        "queries", "validate", validate_name, "execute", rows1000, "sides", sides, "ratios",
        "validate_sluice_over_duckdb", v, "validate_sluice_repeat_over_duckdb", vr,
        "execute_sluice_over_fetch", ef, "execute_sluice_over_fetch_json", ej, "targets",
        "validate_ratio_max", 1.5, "execute_ratio_max", 1.1, "met", "validate", v < 1.5, "execute",
        ej < 1.1);
}

/* --only's report: the chosen sides' statistics alone (a ratio may lack its other side). */
static json_t *report_only(const bench *b, int64_t *samples[SIDE_COUNT], size_t n, size_t warmup)
{
    json_t *sides = json_object();
    for (int s = 0; s < SIDE_COUNT; s++)
        if (b->runs[s])
            json_object_set_new(sides, side_names[s], bench_stats(samples[s], n));
    return json_pack("{s:s, s:s, s:b, s:I, s:I, s:s, s:o}", "benchmark",
                     "sql code mode vs bare duckdb, chosen sides", "duckdb",
                     duckdb_library_version(), "only", true, "iterations", (json_int_t)n, "warmup",
                     (json_int_t)warmup, "validate", validate_name, "sides", sides);
}

/* ---- setup --------------------------------------------------------------------------------- */

/* threads: DuckDB's worker threads (the demo config says 2). With 1 no worker thread exists, so
 * the caller's thread does all the work and never polls for a worker's result: the count
 * callgrind gives is then the work itself, not the polling of a serialized worker. */
static sluice_config *bench_config(const char *db, int threads, const char *audit_dir)
{
    char key[SLUICE_LIMIT_SECRET_LINE_BYTES];
    if (sluice_secret_generate("bench", key, sizeof key) != SLUICE_OK ||
        setenv(BENCH_KEY_ENV, key, 1) != 0)
        bench_die("cannot make a signing key", NULL);
    char audit[4096] = "";
    if (audit_dir != NULL)
        snprintf(audit, sizeof audit, "audit_log = \"%s/audit.jsonl\"\n", audit_dir);
    char text[8192];
    snprintf(text, sizeof text,
             "[server]\nname = \"bench\"\n"
             "[identity]\nuser = \"bench\"\ngroups = [\"StandardUsers\"]\n"
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\nthreads = %d\n"
             "[code_mode]\nenabled = true\nserver_id = \"bench\"\n"
             "token_secret_env = \"" BENCH_KEY_ENV "\"\n"
             "auto_approve_levels = [\"low\", \"medium\"]\n"
             "blocked_fields = [\"ssn\", \"email\"]\n%s",
             db, threads, audit);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config *config = NULL;
    if (sluice_config_load_text(text, strlen(text), "bench", ".", &config, arena, &err) !=
        SLUICE_OK)
        bench_die("bench config refused", sluice_error_render(arena, &err, text, strlen(text)));
    sluice_arena_free(arena);
    return config;
}

static void bench_open(bench *b, const sluice_config *config, sluice_identity *who)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    if (sluice_runtime_open(config, NULL, &b->rt, arena, &err) != SLUICE_OK ||
        sluice_codemode_open(config, b->rt, &b->cm, arena, &err) != SLUICE_OK)
        bench_die("sluice_codemode_open failed", err.message);
    sluice_arena_free(arena);
    *who = (sluice_identity){ .user_id = config->identity.user,
                              .groups = config->identity.groups.items,
                              .group_count = config->identity.groups.count,
                              .method = "bench" };
    b->caller = (sluice_codemode_caller){ .identity = who, .session_id = "bench" };
    size_t groups = who->group_count < 7 ? who->group_count : 7;
    memcpy(b->repeat_groups, who->groups, groups * sizeof *who->groups);
    b->repeat_groups[groups] = "bench-repeat";
    b->repeat_who = *who;
    b->repeat_who.groups = b->repeat_groups;
    b->repeat_who.group_count = groups + 1;
    b->repeat_caller =
        (sluice_codemode_caller){ .identity = &b->repeat_who, .session_id = "bench" };
    /* Through the executor's own open (DuckDB opens on first need): the same instance the
     * measured sluice side binds and runs on. */
    arena = sluice_arena_new();
    void *db = NULL;
    if (sluice_executor_bind_catalog(sluice_codemode_executor(b->cm), &db, arena, &err) !=
            SLUICE_OK ||
        db == NULL || duckdb_connect((duckdb_database)db, &b->conn) == DuckDBError)
        bench_die("cannot connect to the executor's database", err.message);
    if (duckdb_prepare(b->conn, validate_sql, &b->engine_ps) == DuckDBError)
        bench_die("cannot prepare the validate statement", duckdb_prepare_error(b->engine_ps));
    sluice_arena_free(arena);
}

static side side_named(const char *name)
{
    for (int s = 0; s < SIDE_COUNT; s++)
        if (strcmp(name, side_names[s]) == 0)
            return (side)s;
    bench_die("unknown side", name);
    return SIDE_COUNT;
}

static size_t count_arg(const char *text)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || v == 0 || v > 1000000)
        bench_die("a count must be 1..1000000", text);
    return (size_t)v;
}

/* A number below n from b's generator (xorshift64; the bias of the modulo is immaterial here). */
static size_t draw(bench *b, size_t n)
{
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    return (size_t)(b->rng % n);
}

/* Iteration it's order of the sides: rotated (so no side always runs first), or shuffled. */
static void order_of(bench *b, size_t it, side order[SIDE_COUNT])
{
    for (int k = 0; k < SIDE_COUNT; k++)
        order[k] = (side)((k + it) % SIDE_COUNT);
    for (size_t k = SIDE_COUNT - 1; b->shuffled && k > 0; k--) {
        size_t r = draw(b, k + 1);
        side t = order[k];
        order[k] = order[r];
        order[r] = t;
    }
}

/* One iteration: the untimed halves the measured sides need, then every measured side once,
 * in order_of's order. */
static void iterate(bench *b, size_t it, int64_t *samples[SIDE_COUNT], size_t slot)
{
    if (b->runs[EXECUTE_SLUICE])
        issue_token(b);
    if (b->runs[VALIDATE_SLUICE] || b->runs[VALIDATE_DUCKDB] || b->runs[EXECUTE_SLUICE_FIRST_SEEN])
        next_text(b);
    if (b->runs[EXECUTE_SLUICE_FIRST_SEEN])
        first_execute(b);
    side order[SIDE_COUNT];
    order_of(b, it, order);
    for (int k = 0; k < SIDE_COUNT; k++) {
        side s = order[k];
        if (!b->runs[s])
            continue;
        int64_t t0 = bench_now_ns();
        run_side(b, s);
        int64_t t1 = bench_now_ns();
        if (samples != NULL)
            samples[s][slot] = t1 - t0;
    }
}

/* --only's list, "SIDE[,SIDE...]", into b->runs. */
static void choose_sides(bench *b, const char *list)
{
    char copy[512];
    if (snprintf(copy, sizeof copy, "%s", list) >= (int)sizeof copy)
        bench_die("--only: the list is too long", list);
    b->only = true;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save))
        b->runs[side_named(name)] = true;
}

/* BENCH_VALIDATE_SQL: "rows1000" (the execute sides' statement) or a file holding one. */
static void choose_validate_sql(const char *what)
{
    if (what == NULL || *what == '\0')
        return;
    validate_name = what;
    if (strcmp(what, "rows1000") == 0) {
        validate_sql = rows1000;
        return;
    }
    FILE *f = fopen(what, "rb");
    static char text[65536];
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
    if (f == NULL || ferror(f) || !feof(f))
        bench_die("BENCH_VALIDATE_SQL: cannot read the whole file (64 KiB at most)", what);
    fclose(f);
    text[n] = '\0';
    validate_sql = text;
}

int main(int argc, char **argv)
{
    const char *db = NULL, *out = NULL, *audit = NULL, *cg = NULL;
    size_t iterations = 200, warmup = 20, threads = 2;
    bench b = { .rng = 0x9e3779b97f4a7c15u, .shuffled = true };
    for (int s = 0; s < SIDE_COUNT; s++)
        b.runs[s] = true;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (strcmp(argv[i], "--db") == 0 && more)
            db = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && more)
            out = argv[++i];
        else if (strcmp(argv[i], "--audit") == 0 && more)
            audit = argv[++i];
        else if (strcmp(argv[i], "--iterations") == 0 && more)
            iterations = count_arg(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && more)
            warmup = count_arg(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && more)
            threads = count_arg(argv[++i]);
        else if (strcmp(argv[i], "--callgrind") == 0 && more)
            cg = argv[++i];
        else if (strcmp(argv[i], "--order") == 0 && more) {
            const char *o = argv[++i];
            if (strcmp(o, "shuffled") != 0 && strcmp(o, "rotated") != 0)
                bench_die("--order: rotated or shuffled", o);
            b.shuffled = strcmp(o, "shuffled") == 0;
        } else if (strcmp(argv[i], "--only") == 0 && more) {
            memset(b.runs, 0, sizeof b.runs);
            choose_sides(&b, argv[++i]);
        } else
            bench_die("usage: bench_sql --db FILE [--iterations N] [--warmup W] [--audit DIR] "
                      "[--threads T] [--out FILE] [--order rotated|shuffled] "
                      "[--callgrind SIDE | --only SIDE[,SIDE...]]",
                      NULL);
    }
    if (db == NULL)
        bench_die("--db FILE is required", NULL);
    if (cg != NULL && b.only)
        bench_die("--callgrind and --only measure differently: give one of them", NULL);
    choose_validate_sql(getenv("BENCH_VALIDATE_SQL"));
    sluice_config *config = bench_config(db, (int)threads, audit);
    const char *tree = getenv("BENCH_ROWS_TREE");
    b.rows_tree = tree != NULL && strcmp(tree, "1") == 0;
    sluice_identity who;
    bench_open(&b, config, &who);
    for (size_t i = 0; i < warmup; i++)
        iterate(&b, i, NULL, 0);
    int rc = 0;
    if (cg != NULL) {
        side s = side_named(cg);
        issue_token(&b);
        next_text(&b);
        first_execute(&b);
        measured_once(&b, s);
    } else {
        int64_t *samples[SIDE_COUNT];
        for (int s = 0; s < SIDE_COUNT; s++)
            if ((samples[s] = calloc(iterations, sizeof(int64_t))) == NULL)
                bench_die("out of memory", NULL);
        for (size_t i = 0; i < iterations; i++)
            iterate(&b, i, samples, i);
        json_t *r = b.only ? report_only(&b, samples, iterations, warmup)
                           : report(samples, iterations, warmup, audit);
        json_object_set_new(r, "duckdb_threads", json_integer((json_int_t)threads));
        json_object_set_new(r, "order", json_string(b.shuffled ? "shuffled" : "rotated"));
        if (out != NULL ? json_dump_file(r, out, JSON_INDENT(2)) != 0
                        : json_dumpf(r, stdout, JSON_INDENT(2)) != 0)
            rc = 1;
        json_decref(r);
        for (int s = 0; s < SIDE_COUNT; s++)
            free(samples[s]);
    }
    free(b.token);
    free(b.first_seen);
    free(b.first_executed);
    free(b.first_token);
    duckdb_destroy_prepare(&b.engine_ps);
    duckdb_disconnect(&b.conn);
    sluice_codemode_close(b.cm);
    sluice_runtime_close(b.rt);
    sluice_config_free(config);
    return rc;
}
