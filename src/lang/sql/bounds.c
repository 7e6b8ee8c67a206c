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
#include "core/limits.h"
#include "exec/bounded.h"
#include "lang/sql/internal.h"

#include <string.h>

/* Child reports: "ok", or "oom" when DuckDB itself ran out under the cap. */
#define PROBE_REPORT_BYTES 16u

typedef struct probe {
    sluice_sql_ctx *ctx;
    duckdb_extracted_statements ex;
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

/* Runs in the child. Other errors are reported as "ok": the parent's own bind reports them. */
static void probe_child(void *arg, sluice_buf *out)
{
    probe *p = arg;
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

sluice_status sluice_sql_bounds_probe(sluice_sql_ctx *ctx, duckdb_extracted_statements ex)
{
    sluice_bounded *b = sluice_bounded_new(ctx->arena);
    if (b == NULL)
        return SLUICE_E_NOMEM;
    sluice_bounded_limits lim = {
        .timeout_ms = timeout_ms(ctx->cm),
        /* Resident growth, not address space: under RLIMIT_AS DuckDB's binder swallows the
         * failed allocation and leaves the fold to run time, so the parent's bind would fold. */
        .rss_bytes = (uint64_t)memory_mb(ctx->cm) * 1024u * 1024u,
        .max_report = PROBE_REPORT_BYTES,
    };
    probe p = { .ctx = ctx, .ex = ex };
    sluice_bounded_outcome oc;
    const char *rep = NULL;
    size_t rep_len = 0;
    sluice_status st =
        sluice_bounded_run(b, &lim, probe_child, &p, ctx->arena, &oc, &rep, &rep_len);
    if (st != SLUICE_OK)
        return st; /* no child: the caller fails the analysis, never binds unbounded */
    if (oc == SLUICE_BOUNDED_DONE && strcmp(rep, "ok") == 0)
        return SLUICE_OK;
    if (oc == SLUICE_BOUNDED_BUSY)
        return sluice_codefacts_violate(
            ctx->facts, "analysis_limit", 0, 0,
            "retry when the server is less busy, or raise [code_mode] analysis_timeout_ms",
            "the statement could not be bound: other queries kept the engine busy for "
            "analysis_timeout_ms (%lld ms), and the bounded binding process cannot start while "
            "they run",
            (long long)lim.timeout_ms);
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
            (long long)lim.timeout_ms);
    return sluice_codefacts_violate(
        ctx->facts, "analysis_limit", 0, 0,
        "use smaller constant generators (range, generate_series, repeat, list_resize ...), or "
        "raise [code_mode] analysis_memory_mb",
        "binding the statement needs more than analysis_memory_mb (%lld MB); DuckDB evaluates "
        "constant expressions such as range(...) or repeat(...) while binding",
        (long long)memory_mb(ctx->cm));
}
