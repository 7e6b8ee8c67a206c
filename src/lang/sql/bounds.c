/*
 * bounds.c — the analysis bound: DuckDB binds the statement first in a capped child process.
 *
 * Owns: the probe (the one bind of the bind-once unit, or on the C API route prepare +
 * json_serialize_plan: the calls that fold constants) run under [code_mode] analysis_timeout_ms /
 * analysis_memory_mb, and the refusal that names the setting.
 * Does not own: the child mechanics (exec/bounded.c) or what the parent then does with the
 * statement (statement.c, plan_walk.c) — it repeats the same binding, now known to fit.
 *
 * Why not a list of dangerous functions: constant folding can be reached by any expression
 * (range(10000*10000), a cast, a scalar subquery, a lambda over a generator, repeat over a
 * repeat); the only bound that holds whatever the input is the process's own.
 */
#include "core/clock.h"
#include "core/limits.h"
#include "exec/bounded.h"
#include "lang/sql/internal.h"

#include <string.h>

/* Child reports: "ok", or "oom" when DuckDB itself ran out under the cap. */
#define PROBE_REPORT_BYTES 16u

typedef struct probe {
    sluice_sql_ctx *ctx;
    duckdb_extracted_statements ex;
    bool parse_only; /* only DuckDB's parse of the text (sluice_sql_bounds_parse) */
} probe;

static bool out_of_memory(const char *msg)
{
    return msg != NULL && strstr(msg, "Out of Memory") != NULL;
}

/* The one bind of the unit, in the child: its refusal, or its plan's. */
static bool bind_once_oom(sluice_sql_ctx *ctx)
{
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_executor_bind_plan(ctx->conn, ctx->bound, ctx->arena, &err) != SLUICE_OK)
        return false; /* the parent's own bind fails the same way and says so */
    return out_of_memory(ctx->bound->bind_error) ||
           out_of_memory(
               sluice_tree_string_value(sluice_tree_get(ctx->bound->plan, "error_message")));
}

/* The parse the parent then makes, in the child: whether it ran out of memory. */
static bool parse_oom(sluice_sql_ctx *ctx)
{
    sluice_error err;
    sluice_error_clear(&err);
    sluice_bound_statement *b = NULL;
    sluice_status st = sluice_executor_bind_parse(ctx->conn, ctx->code, ctx->arena, &b, &err);
    if (st == SLUICE_E_NOMEM)
        return true;
    if (st == SLUICE_OK)
        return out_of_memory(b->parse_error);
    duckdb_extracted_statements ex = NULL; /* the C API route (statement.c) */
    bool oom = duckdb_extract_statements(ctx->conn, ctx->code, &ex) == 0 &&
               out_of_memory(duckdb_extract_statements_error(ex));
    duckdb_destroy_extracted(&ex);
    return oom;
}

/* Runs in the child. Other errors are reported as "ok": the parent's own bind reports them. */
static void probe_child(void *arg, sluice_buf *out)
{
    probe *p = arg;
    if (p->parse_only) {
        sluice_buf_puts(out, parse_oom(p->ctx) ? "oom" : "ok");
        return;
    }
    if (p->ctx->bound != NULL) {
        /* the very bind the parent then makes (the parse is the parent's, copied by fork) */
        sluice_buf_puts(out, bind_once_oom(p->ctx) ? "oom" : "ok");
        return;
    }
    duckdb_prepared_statement ps = NULL;
    bool oom = false;
    if (duckdb_prepare_extracted_statement(p->ctx->conn, p->ex, 0, &ps) == DuckDBError)
        oom = out_of_memory(duckdb_prepare_error(ps));
    duckdb_destroy_prepare(&ps);
    if (!oom) {
        json_t *plan = sluice_sql_serialize(p->ctx, "json_serialize_plan", NULL);
        const char *msg = json_string_value(json_object_get(plan, "error_message"));
        oom = out_of_memory(msg);
        for (size_t i = 0; !oom && i < p->ctx->facts->violation_count; i++)
            oom = out_of_memory(p->ctx->facts->violations[i].message);
    }
    sluice_buf_puts(out, oom ? "oom" : "ok");
}

static int64_t timeout_ms(const sluice_config_code_mode *cm)
{
    return cm->analysis_timeout_ms > 0 ? cm->analysis_timeout_ms : SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS;
}

static int64_t memory_mb(const sluice_config_code_mode *cm)
{
    return cm->analysis_memory_mb > 0 ? cm->analysis_memory_mb : SLUICE_LIMIT_ANALYSIS_MEMORY_MB;
}

/* What a bounded stage says when its child did not report "ok": an analysis_limit violation
 * naming the setting, worded for the stage (parsing, or binding and planning). */
static sluice_status refuse(sluice_sql_ctx *ctx, sluice_bounded_outcome oc, bool parsing)
{
    long long timeout = (long long)timeout_ms(ctx->cm), memory = (long long)memory_mb(ctx->cm);
    if (oc == SLUICE_BOUNDED_BUSY)
        return sluice_codefacts_violate(
            ctx->facts, "analysis_limit", 0, 0,
            "retry when the server is less busy, or raise [code_mode] analysis_timeout_ms",
            "the statement could not be %s: other queries kept the engine busy for "
            "analysis_timeout_ms (%lld ms), and the bounded analysis process cannot start while "
            "they run",
            parsing ? "parsed" : "bound", timeout);
    if (oc == SLUICE_BOUNDED_TIMEOUT && parsing)
        return sluice_codefacts_violate(
            ctx->facts, "analysis_limit", 0, 0,
            "shorten the statement (fewer GROUP BY terms, CTEs or list items in one statement), "
            "or raise [code_mode] analysis_timeout_ms",
            "parsing the statement took longer than analysis_timeout_ms (%lld ms); DuckDB's "
            "parser takes time that grows faster than the text on long lists such as thousands "
            "of GROUP BY terms or of CTEs",
            timeout);
    if (oc == SLUICE_BOUNDED_TIMEOUT)
        return sluice_codefacts_violate(
            ctx->facts, "analysis_limit", 0, 0,
            "compute large values at run time from table data instead of constants, nest fewer "
            "subqueries (a join or a CTE plans at once), join fewer tables in one statement, or "
            "raise [code_mode] analysis_timeout_ms",
            "binding the statement took longer than analysis_timeout_ms (%lld ms); DuckDB "
            "evaluates constant expressions such as range(...) or repeat(...) while binding, "
            "takes about twice as long to plan for each further level of nested subqueries, and "
            "plans dozens of joined tables or thousands of predicates slowly",
            timeout);
    if (parsing)
        return sluice_codefacts_violate(
            ctx->facts, "analysis_limit", 0, 0,
            "shorten the statement, or raise [code_mode] analysis_memory_mb",
            "parsing the statement needs more than analysis_memory_mb (%lld MB); DuckDB's parser "
            "copies every earlier CTE for each CTE it reads",
            memory);
    return sluice_codefacts_violate(
        ctx->facts, "analysis_limit", 0, 0,
        "use smaller constant generators (range, generate_series, repeat, list_resize ...), or "
        "raise [code_mode] analysis_memory_mb",
        "binding the statement needs more than analysis_memory_mb (%lld MB); DuckDB evaluates "
        "constant expressions such as range(...) or repeat(...) while binding",
        memory);
}

/* Runs p's stage once in a child held to analysis_memory_mb and to what is left of
 * analysis_timeout_ms since the first bounded stage of this analysis began: the parent repeats
 * each stage that fits, uninterruptibly, so one budget for all of them keeps the whole analysis
 * within about twice the setting. *fits is true when it reported "ok", else the violation is
 * recorded. */
static sluice_status run_bounded(probe *p, bool *fits)
{
    sluice_sql_ctx *ctx = p->ctx;
    *fits = false;
    int64_t now = sluice_clock_monotonic_ms(NULL);
    if (ctx->bounded_since_ms == 0)
        ctx->bounded_since_ms = now;
    int64_t left = timeout_ms(ctx->cm) - (now - ctx->bounded_since_ms);
    if (left <= 0)
        return refuse(ctx, SLUICE_BOUNDED_TIMEOUT, p->parse_only);
    sluice_bounded *b = sluice_bounded_new(ctx->arena);
    if (b == NULL)
        return SLUICE_E_NOMEM;
    sluice_bounded_limits lim = {
        .timeout_ms = left,
        /* Resident growth, not address space: under RLIMIT_AS DuckDB's binder swallows the
         * failed allocation and leaves the fold to run time, so the parent's bind would fold. */
        .rss_bytes = (uint64_t)memory_mb(ctx->cm) * 1024u * 1024u,
        .max_report = PROBE_REPORT_BYTES,
    };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t rep_len = 0;
    sluice_status st = sluice_bounded_run(b, &lim, probe_child, p, ctx->arena, &oc, &rep, &rep_len);
    if (st != SLUICE_OK)
        return st; /* no child: the caller fails the analysis, never binds unbounded */
    *fits = oc == SLUICE_BOUNDED_DONE && strcmp(rep, "ok") == 0;
    return *fits ? SLUICE_OK : refuse(ctx, oc, p->parse_only);
}

sluice_status sluice_sql_bounds_probe(sluice_sql_ctx *ctx, duckdb_extracted_statements ex)
{
    probe p = { .ctx = ctx, .ex = ex, .parse_only = false };
    bool fits;
    return run_bounded(&p, &fits);
}

sluice_status sluice_sql_bounds_parse(sluice_sql_ctx *ctx, bool *fits)
{
    *fits = true;
    if (ctx->code_len <= SLUICE_SQL_FAST_TEXT_BYTES)
        return SLUICE_OK;
    probe p = { .ctx = ctx, .ex = NULL, .parse_only = true };
    return run_bounded(&p, fits);
}
