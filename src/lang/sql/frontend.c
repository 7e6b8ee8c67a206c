/*
 * frontend.c — the "sql" front end: runs the stages in order and fills CodeFacts.
 *
 * Owns: the order of the stages (statement → parse tree → plan lineage → canonical form →
 * rules → scores), the analyzer's own DuckDB connection (on the executor's catalog, or on an
 * in-memory mirror of a SQLite schema), the blocked-field list, and the sluice_frontend vtable.
 * Does not own: any stage's logic (see internal.h for which file owns which).
 */
#include "core/vec.h"
#include "exec/executor.h"
#include "exec/fork_gate.h"
#include "lang/sql/internal.h"

#include <string.h>

/* pmcp-code-mode defaults, used when the caller passes no [code_mode]. */
static const sluice_config_code_mode default_code_mode = {
    .sql_reads_enabled = true,
    .sql_require_where_on_writes = true,
    .sql_max_rows = 10000,
    .sql_max_joins = 5,
};

/* The arena runs it after the analysis region ended: a fork-gate region itself. */
static void close_cleanup(void *p)
{
    sluice_fork_gate_enter();
    duckdb_close(p);
    sluice_fork_gate_leave();
}

/* "col" blocks the column in every table; "table.col" in one table. */
static sluice_status add_blocked(sluice_sql_ctx *ctx, const char *spec, size_t *cap)
{
    sluice_sql_blocked *n =
        sluice_vec_grow(ctx->arena, ctx->blocked, ctx->blocked_count, cap, sizeof(*n), 16);
    if (n == NULL)
        return SLUICE_E_NOMEM;
    ctx->blocked = n;
    const char *dot = strrchr(spec, '.');
    sluice_sql_blocked *b = &ctx->blocked[ctx->blocked_count++];
    b->column = dot != NULL ? dot + 1 : spec;
    b->table = dot != NULL ? sluice_arena_strndup(ctx->arena, spec, (size_t)(dot - spec)) : NULL;
    return dot != NULL && b->table == NULL ? SLUICE_E_NOMEM : SLUICE_OK;
}

static sluice_status collect_blocked(sluice_sql_ctx *ctx, const sluice_schema *schema)
{
    size_t cap = 0;
    sluice_status st = SLUICE_OK;
    const sluice_strlist *lists[] = { &ctx->cm->blocked_fields, &ctx->cm->sql_blocked_columns };
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; st == SLUICE_OK && i < lists[l]->count; i++)
            st = add_blocked(ctx, lists[l]->items[i], &cap);
    for (size_t t = 0; schema != NULL && st == SLUICE_OK && t < schema->table_count; t++)
        for (size_t c = 0; st == SLUICE_OK && c < schema->tables[t].column_count; c++)
            if (schema->tables[t].columns[c].blocked) {
                const char *spec = sluice_sql_dotted(ctx->arena, schema->tables[t].name,
                                                     schema->tables[t].columns[c].name);
                st = spec == NULL ? SLUICE_E_NOMEM : add_blocked(ctx, spec, &cap);
            }
    return st;
}

/* A connection to the catalog db, hardened as every sluice connection is (the bind service). */
static sluice_status connect_catalog(duckdb_database db,
                                     bool json_errors,
                                     duckdb_connection *out,
                                     sluice_arena *arena,
                                     sluice_error *err)
{
    void *conn = NULL;
    sluice_status st = sluice_executor_bind_connect(db, json_errors, &conn, arena, err);
    *out = (duckdb_connection)conn;
    return st;
}

/* A fresh in-memory DuckDB holding only the SQLite schema's tables (no rows), with external
 * access off: SQLite code is bound here, never run. */
static sluice_status open_mirror(sluice_sql_ctx *ctx,
                                 const sluice_schema *schema,
                                 duckdb_database *db,
                                 sluice_error *err)
{
    const char *ddl = NULL;
    duckdb_config cfg = NULL;
    sluice_status st = sluice_sql_mirror_ddl(ctx->arena, schema, &ddl);
    if (st != SLUICE_OK)
        return st;
    if (duckdb_create_config(&cfg) == DuckDBError)
        return sluice_error_set(err, ctx->arena, SLUICE_E_INTERNAL, "cannot configure DuckDB");
    duckdb_set_config(cfg, "enable_external_access", "false");
    duckdb_set_config(cfg, "autoload_known_extensions", "false");
    duckdb_set_config(cfg, "autoinstall_known_extensions", "false");
    duckdb_set_config(cfg, "threads", "1");
    char *open_err = NULL;
    duckdb_state s = duckdb_open_ext(NULL, db, cfg, &open_err);
    duckdb_destroy_config(&cfg);
    if (s == DuckDBError) {
        st = sluice_error_set(err, ctx->arena, SLUICE_E_INTERNAL,
                              "cannot open the analyzer's DuckDB: %s",
                              open_err != NULL ? open_err : "unknown error");
        duckdb_free(open_err);
        return st;
    }
    if (sluice_arena_cleanup_add(ctx->arena, close_cleanup, db) != SLUICE_OK)
        return SLUICE_E_NOMEM;
    duckdb_connection c;
    st = connect_catalog(*db, false, &c, ctx->arena, err);
    if (st != SLUICE_OK)
        return st;
    duckdb_result r;
    s = duckdb_query(c, ddl, &r);
    if (s == DuckDBError)
        st = sluice_error_set(err, ctx->arena, SLUICE_E_INTERNAL,
                              "cannot mirror the SQLite schema: %s", duckdb_result_error(&r));
    duckdb_destroy_result(&r);
    duckdb_disconnect(&c);
    return st;
}

/* The schema to mirror (a backend without a DuckDB catalog): the caller's, else the executor's. */
static sluice_status mirrored_schema(sluice_sql_ctx *ctx,
                                     const sluice_frontend_context *fc,
                                     const sluice_schema **out,
                                     sluice_error *err)
{
    *out = fc->schema;
    if (*out != NULL || fc->executor == NULL)
        return SLUICE_OK;
    sluice_schema *s = sluice_arena_calloc(ctx->arena, 1, sizeof(*s));
    if (s == NULL)
        return SLUICE_E_NOMEM;
    *out = s;
    return sluice_executor_schema(fc->executor, ctx->arena, s, err);
}

/* The catalog the statement binds against: a SQLite mirror, the executor's DuckDB, or the
 * caller's duckdb_database. */
static sluice_status catalog(sluice_sql_ctx *ctx,
                             const sluice_frontend_context *fc,
                             duckdb_database **out,
                             sluice_error *err)
{
    duckdb_database *db = sluice_arena_calloc(ctx->arena, 1, sizeof(*db));
    if (db == NULL)
        return SLUICE_E_NOMEM;
    *out = db;
    if (fc != NULL && fc->executor != NULL) {
        void *bound = NULL;
        sluice_status st = sluice_executor_bind_catalog(fc->executor, &bound, ctx->arena, err);
        if (st != SLUICE_OK)
            return st;
        *db = (duckdb_database)bound;
    } else if (fc != NULL && fc->duckdb_database != NULL)
        *db = (duckdb_database)fc->duckdb_database;
    ctx->engine_catalog = *db != NULL; /* the data itself: DuckDB's estimates mean something */
    if (*db == NULL && fc != NULL && (fc->executor != NULL || fc->engine == SLUICE_ENGINE_SQLITE)) {
        /* The backend has no DuckDB catalog of its own: bind in a mirror of its schema. */
        const sluice_schema *schema = NULL;
        sluice_status st = mirrored_schema(ctx, fc, &schema, err);
        return st != SLUICE_OK ? st : open_mirror(ctx, schema, db, err);
    }
    if (*db == NULL)
        return sluice_error_set(err, ctx->arena, SLUICE_E_INTERNAL,
                                "the SQL analyzer was given no DuckDB catalog to bind against");
    return SLUICE_OK;
}

/* The analysis's connection, held until the arena is freed: on the executor's own catalog one of
 * the connections it keeps idle between analyses (exec/duckdb_connect.c says why a kept one
 * carries nothing over), else a new one. */
static sluice_status
open_connection(sluice_sql_ctx *ctx, const sluice_frontend_context *fc, sluice_error *err)
{
    duckdb_database *db = NULL;
    sluice_status st = catalog(ctx, fc, &db, err);
    if (st != SLUICE_OK)
        return st;
    /* Errors as JSON exactly where the database gives them (the executor's, as exec/duckdb.c
     * opens it); the mirror and a caller's own database keep plain text. bind_error.c reads both.
     */
    bool json_errors = fc != NULL && fc->executor != NULL && ctx->engine_catalog;
    void *idle = json_errors ? sluice_executor_bind_idle(fc->executor) : NULL;
    void *conn = NULL;
    st = sluice_executor_bind_session(*db, idle, json_errors, &conn, ctx->arena, err);
    ctx->conn = (duckdb_connection)conn;
    return st;
}

/* docs/risk.md "Complexity": joins*3 + subqueries*3 + windows*2 + aggregates + ctes*2 + tables */
static void score(sluice_codefacts *f, const sluice_schema *schema)
{
    f->complexity =
        (int64_t)(sluice_sql_ext(f)->join_count * 3 + sluice_sql_ext(f)->subquery_count * 3 +
                  sluice_sql_ext(f)->window_count * 2 + sluice_sql_ext(f)->aggregate_count +
                  sluice_sql_ext(f)->cte_names.count * 2 + f->resources_read.count);
    if (sluice_sql_ext(f)->limit_value >= 0) {
        f->estimated_rows = sluice_sql_ext(f)->limit_value;
    } else if (f->action == SLUICE_ACTION_READ && sluice_sql_ext(f)->aggregate_count > 0 &&
               !sluice_sql_ext(f)->has_group_by) {
        f->estimated_rows = 1;
    } else if (f->resources_read.count == 1 && sluice_sql_ext(f)->join_count == 0 &&
               !sluice_sql_ext(f)->has_where && !sluice_sql_ext(f)->has_group_by &&
               schema != NULL) {
        for (size_t i = 0; i < schema->table_count; i++)
            if (strcmp(schema->tables[i].name, f->resources_read.items[0]) == 0)
                f->estimated_rows = schema->tables[i].approx_rows;
    }
}

/* Statement types DuckDB reports as SELECT that are not query nodes: PRAGMA table_info(...),
 * PRAGMA version. They report on the catalog, not data. */
static void refuse_non_query(sluice_sql_ctx *ctx)
{
    sluice_codefacts_violate(ctx->facts, "statement_not_allowed", 0, 0,
                             "write a SELECT over the tables in the code-mode://schema resource",
                             "this statement is typed SELECT but is not a query; only queries "
                             "are analyzed");
}

/* The engine binds what DuckDB bound in the mirror: it prepares the code itself (never run)
 * and compare the columns its authorizer saw with the lineage analysis. */
static sluice_status engine_crosscheck(sluice_sql_ctx *ctx, const sluice_frontend_context *fc)
{
    sluice_exec_reads reads;
    sluice_error lite_err;
    sluice_error_clear(&lite_err);
    sluice_status st = sluice_executor_engine_reads(fc->executor, ctx->arena, ctx->code,
                                                    ctx->code_len, &reads, &lite_err);
    if (st == SLUICE_E_NOMEM || st == SLUICE_E_UNSUPPORTED)
        return st == SLUICE_E_NOMEM ? st : SLUICE_OK;
    if (st == SLUICE_E_LIMIT) /* past analysis_timeout_ms or analysis_memory_mb: says which */
        return sluice_codefacts_violate(ctx->facts, "analysis_limit", 0, 0, NULL, "%s",
                                        lite_err.message != NULL ? lite_err.message : "unknown");
    if (st != SLUICE_OK)
        return sluice_codefacts_violate(ctx->facts, "engine_refused", lite_err.line,
                                        lite_err.column, NULL,
                                        "the database engine refuses the statement: %s",
                                        lite_err.message != NULL ? lite_err.message : "unknown");
    sluice_sql_read *r = sluice_arena_calloc(ctx->arena, reads.read_count + 1, sizeof(*r));
    if (r == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < reads.read_count; i++)
        r[i] = (sluice_sql_read){ reads.reads[i].table, reads.reads[i].column };
    return sluice_sql_crosscheck_reads(ctx->facts, r, reads.read_count);
}

static sluice_status
run_stages(sluice_sql_ctx *ctx, const sluice_frontend_context *fc, const char *variables_json)
{
    duckdb_extracted_statements ex = NULL;
    duckdb_prepared_statement ps = NULL;
    sluice_status st = sluice_sql_statement_extract(ctx, &ex);
    if (st == SLUICE_OK && ctx->single)
        st = sluice_sql_parsetree_facts(ctx);
    /* a query that cannot fold into anything large binds here; any other first in the child */
    ctx->bind_bounded = ctx->parse_tree != NULL && sluice_sql_tree_bounded(ctx->parse_tree);
    if (st == SLUICE_OK && ctx->single && ctx->facts->violation_count == 0 && !ctx->bind_bounded)
        st = sluice_sql_bounds_probe(ctx, ex);
    if (st == SLUICE_OK && ctx->single && ctx->facts->violation_count == 0)
        st = sluice_sql_statement_bind(ctx, ex, &ps);
    if (ctx->statement_bound && st == SLUICE_OK)
        st = sluice_sql_check_variables(ctx, ps, variables_json);
    if (ctx->statement_bound && ctx->type == DUCKDB_STATEMENT_TYPE_SELECT && st == SLUICE_OK) {
        if (ctx->parse_tree == NULL)
            refuse_non_query(ctx);
        else
            st = sluice_sql_plan_walk(ctx, ps);
    }
    if (ps != NULL)
        duckdb_destroy_prepare(&ps);
    if (ex != NULL)
        duckdb_destroy_extracted(&ex);
    if (ctx->parse_tree != NULL && ctx->type == DUCKDB_STATEMENT_TYPE_INVALID) {
        ctx->facts->statement_kind = "SELECT"; /* refused before binding */
        ctx->facts->action = SLUICE_ACTION_READ;
    }
    if (st == SLUICE_OK && ctx->facts->violation_count == 0 && fc != NULL && fc->executor != NULL &&
        ctx->type == DUCKDB_STATEMENT_TYPE_SELECT)
        st = engine_crosscheck(ctx, fc);
    if (st == SLUICE_OK)
        st = sluice_sql_canonicalize(ctx);
    if (st == SLUICE_OK && ctx->type != DUCKDB_STATEMENT_TYPE_INVALID)
        st = sluice_sql_rules_apply(ctx);
    if (st == SLUICE_OK)
        st = sluice_sql_name_operations(ctx->facts);
    score(ctx->facts, fc != NULL ? fc->schema : NULL);
    if (st == SLUICE_OK && ctx->engine_catalog && ctx->facts->violation_count == 0 &&
        ctx->type == DUCKDB_STATEMENT_TYPE_SELECT && ctx->parse_tree != NULL) {
        /* the guess is exact where it exists (a LIMIT, one aggregate row, a whole table): the
         * engine's estimate never says more */
        int64_t guess = ctx->facts->estimated_rows;
        st = sluice_sql_estimate(ctx, variables_json);
        if (ctx->facts->estimate_kind != SLUICE_ESTIMATE_NONE) {
            sluice_sql_ext(ctx->facts)->guessed_rows = guess;
            if (guess >= 0 && guess < ctx->facts->estimated_rows)
                ctx->facts->estimated_rows = guess;
        }
    }
    return st;
}

/* Checked last: an analysis that lost an allocation anywhere (a builder, a walk, a serialized
 * document) is an error, never a verdict, even when every stage returned OK. */
static sluice_status finish(sluice_sql_ctx *ctx, sluice_codefacts **out, sluice_error *err)
{
    if (sluice_arena_failed(ctx->arena))
        return sluice_error_set(err, ctx->arena, SLUICE_E_NOMEM,
                                "out of memory while analyzing the SQL; nothing was approved");
    if (ctx->facts->incomplete)
        return sluice_error_set(err, ctx->arena, SLUICE_E_INTERNAL,
                                "the SQL analysis could not complete, so nothing was approved; "
                                "retry, and tell the administrator if it persists");
    *out = ctx->facts;
    return SLUICE_OK;
}

/* What canonical_hash needs and no more: the statement split and its parse tree (DuckDB's
 * parser only; nothing binds), then the same canonical form as the full analysis. */
static sluice_status parse_stages(sluice_sql_ctx *ctx)
{
    duckdb_extracted_statements ex = NULL;
    sluice_status st = sluice_sql_statement_extract(ctx, &ex);
    if (st == SLUICE_OK && ctx->single)
        st = sluice_sql_parsetree_facts(ctx);
    if (ex != NULL)
        duckdb_destroy_extracted(&ex);
    return st == SLUICE_OK ? sluice_sql_canonicalize(ctx) : st;
}

/* The full analysis, or (parse_only) the stages the canonical hash needs. */
static sluice_status analyze_mode(sluice_arena *arena,
                                  const char *code,
                                  size_t code_len,
                                  const sluice_frontend_context *fc,
                                  bool parse_only,
                                  const char *variables_json,
                                  sluice_codefacts **out,
                                  sluice_error *err)
{
    sluice_status len_st = sluice_sql_check_length(code_len, arena, err);
    if (len_st != SLUICE_OK)
        return len_st;
    sluice_sql_ctx ctx = { .arena = arena };
    ctx.facts = sluice_sql_facts_new(arena);
    ctx.code = sluice_arena_strndup(arena, code != NULL ? code : "", code != NULL ? code_len : 0);
    ctx.code_len = code != NULL ? code_len : 0;
    ctx.cm = fc != NULL && fc->code_mode != NULL ? fc->code_mode : &default_code_mode;
    if (ctx.facts == NULL || ctx.code == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = collect_blocked(&ctx, fc != NULL ? fc->schema : NULL);
    if (st != SLUICE_OK)
        return st;
    if (strlen(ctx.code) != ctx.code_len) {
        /* DuckDB reads C strings: text after a NUL would be validated but not what runs. */
        size_t line, column, at = strlen(ctx.code);
        sluice_error_locate(ctx.code, ctx.code_len, at, &line, &column);
        sluice_codefacts_violate(ctx.facts, "nul_byte", line, column,
                                 "remove the NUL byte (\\u0000); SQL text cannot contain one",
                                 "the SQL contains a NUL byte at byte offset %zu", at);
        return finish(&ctx, out, err);
    }
    /* One fork-gate region for every DuckDB call of the analysis; the bounds probe's fork sets
     * it aside (no statement of ours runs then). */
    sluice_fork_gate_enter();
    st = open_connection(&ctx, fc, err);
    if (st == SLUICE_OK)
        st = parse_only ? parse_stages(&ctx) : run_stages(&ctx, fc, variables_json);
    sluice_fork_gate_leave();
    if (st != SLUICE_OK)
        return st;
    return finish(&ctx, out, err);
}

sluice_status sluice_sql_analyze(sluice_arena *arena,
                                 const char *code,
                                 size_t code_len,
                                 const char *variables_json,
                                 const sluice_frontend_context *fc,
                                 sluice_codefacts **out,
                                 sluice_error *err)
{
    /* bound by the executor as parameters, never part of the text; checked against them here */
    return analyze_mode(arena, code, code_len, fc, false, variables_json, out, err);
}

static sluice_status canonical_hash(sluice_arena *arena,
                                    const char *code,
                                    size_t code_len,
                                    const sluice_frontend_context *fc,
                                    char out_hex[65],
                                    sluice_error *err)
{
    sluice_codefacts *facts = NULL;
    sluice_status st = analyze_mode(arena, code, code_len, fc, true, NULL, &facts, err);
    if (st != SLUICE_OK)
        return st;
    return sluice_frontend_hash_of(arena, facts, out_hex, err);
}

static const sluice_frontend sql_frontend = {
    .language = "sql",
    .analyze = sluice_sql_analyze,
    .canonical_hash = canonical_hash,
    .explain = sluice_sql_explain,
    .risk = sluice_sql_risk,
    .guide = sluice_sql_guide,
};

const sluice_frontend *sluice_sql_frontend(void)
{
    return &sql_frontend;
}
