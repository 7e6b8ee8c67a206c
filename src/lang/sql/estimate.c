/*
 * estimate.c — DuckDB's own estimate for a read (issue 24: cost known before approval), from
 * the physical plan as EXPLAIN (FORMAT JSON) prints it: operators with a name, children and
 * "extra_info": {"Estimated Cardinality": "9091"} — the one bind's tree of them
 * (sluice_physical_op), or EXPLAIN's own JSON read into that tree. See internal.h.
 *
 * Not every operator carries a cardinality (DuckDB 1.4: LIMIT, CROSS_PRODUCT): such an operator
 * counts what its children make, multiplied for the joins that pair every row with every row,
 * the largest otherwise, so a cross product under a LIMIT still shows its work.
 */
#include "core/limits.h"
#include "lang/sql/internal.h"

#include <stdlib.h>
#include <string.h>

#define ESTIMATE_MAX_DEPTH 256
#define ESTIMATE_CAP       1e18 /* past it the figure means "more than anyone approves" */

/* The operator's own cardinality, or -1. DuckDB prints it as text ("9091", "~9091"). */
static double own_rows(const sluice_physical_op *op)
{
    const char *text = op->estimated_cardinality;
    if (text == NULL)
        return -1;
    if (*text == '~')
        text++;
    char *end = NULL;
    double d = strtod(text, &end);
    return end != text && *end == '\0' && d >= 0 ? d : -1;
}

static bool pairs_every_row(const char *name)
{
    return name != NULL &&
           (strcmp(name, "CROSS_PRODUCT") == 0 || strstr(name, "NESTED_LOOP") != NULL ||
            strstr(name, "BLOCKWISE") != NULL);
}

/* Operators that return every row of their one child. DuckDB 1.4 prints "Estimated Cardinality":
 * "0" on the PROJECTION over an ORDER_BY (which carries none): their own figure never lowers
 * what the child makes, or a sorted read of a whole table would look empty. */
static bool keeps_every_row(const char *name)
{
    return name != NULL && (strcmp(name, "PROJECTION") == 0 || strcmp(name, "ORDER_BY") == 0);
}

static double capped(double d)
{
    return d > ESTIMATE_CAP ? ESTIMATE_CAP : d;
}

/* The rows op makes (its own, else from its children), and the rows of the operators under and
 * including it summed into *sum. *known true once any operator carried a figure; *ok false on a
 * shape too deep to read. */
static double walk(const sluice_physical_op *op, int depth, double *sum, bool *known, bool *ok)
{
    if (depth > ESTIMATE_MAX_DEPTH) {
        *ok = false;
        return 0;
    }
    bool pairs = pairs_every_row(op->name);
    double made = pairs ? 1 : 0;
    for (size_t i = 0; i < op->n_children; i++) {
        double child = walk(&op->children[i], depth + 1, sum, known, ok);
        made = capped(pairs ? made * child : (child > made ? child : made));
    }
    double own = own_rows(op);
    *known = *known || own >= 0;
    if (own >= 0 && !(keeps_every_row(op->name) && own < made))
        made = capped(own);
    /* an operator without a figure of its own passes its child's rows on (LIMIT, a projection):
     * counted once, where they were made, unless it multiplied them */
    if (own >= 0 || pairs)
        *sum = capped(*sum + made);
    return made;
}

/* One operator of EXPLAIN's JSON into *out, in arena (its strings stay the document's): what
 * the one bind gives. *ok false on a shape the estimate cannot read (an operator that is no
 * object, nesting past ESTIMATE_MAX_DEPTH). SLUICE_E_NOMEM. */
static sluice_status
from_explain(sluice_arena *arena, const json_t *node, int depth, sluice_physical_op *out, bool *ok)
{
    if (depth > ESTIMATE_MAX_DEPTH || !json_is_object(node)) {
        *ok = false;
        return SLUICE_OK;
    }
    out->name = json_string_value(json_object_get(node, "name"));
    out->estimated_cardinality = json_string_value(
        json_object_get(json_object_get(node, "extra_info"), "Estimated Cardinality"));
    const json_t *children = json_object_get(node, "children");
    size_t n = json_array_size(children);
    if (n == 0)
        return SLUICE_OK;
    if ((out->children = sluice_arena_calloc(arena, n, sizeof(*out->children))) == NULL)
        return SLUICE_E_NOMEM;
    out->n_children = n;
    for (size_t i = 0; i < n && *ok; i++) {
        sluice_status st =
            from_explain(arena, json_array_get(children, i), depth + 1, &out->children[i], ok);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* Binds each parameter's variable as text; false when one cannot be bound (no estimate). */
static bool bind_variables(duckdb_prepared_statement ps, const json_t *vars)
{
    idx_t n = duckdb_nparams(ps);
    for (idx_t i = 1; i <= n; i++) {
        const char *name = duckdb_parameter_name(ps, i);
        const json_t *v = name != NULL ? json_object_get(vars, name) : NULL;
        duckdb_free((void *)name);
        char num[64];
        const char *text = json_string_value(v);
        if (json_is_integer(v))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            snprintf(num, sizeof num, "%.17g", json_real_value(v));
        else if (json_is_boolean(v))
            snprintf(num, sizeof num, "%s", json_is_true(v) ? "true" : "false");
        if (json_is_number(v) || json_is_boolean(v))
            text = num;
        duckdb_state s = json_is_null(v) ? duckdb_bind_null(ps, i)
                         : text != NULL  ? duckdb_bind_varchar(ps, i, text)
                                         : DuckDBError;
        if (s == DuckDBError)
            return false;
    }
    return true;
}

/* The plan's JSON text from a prepared EXPLAIN, in arena, or NULL. */
static const char *plan_text(sluice_sql_ctx *ctx, const json_t *vars)
{
    const char *q = sluice_arena_printf(ctx->arena, "EXPLAIN (FORMAT JSON) %s", ctx->code);
    duckdb_prepared_statement ps = NULL;
    duckdb_result res;
    const char *out = NULL;
    if (q == NULL)
        return NULL;
    if (duckdb_prepare(ctx->conn, q, &ps) == DuckDBSuccess && bind_variables(ps, vars) &&
        duckdb_execute_prepared(ps, &res) == DuckDBSuccess) {
        if (duckdb_row_count(&res) >= 1 && duckdb_column_count(&res) >= 2) {
            char *text = duckdb_value_varchar(&res, 1, 0);
            out = text != NULL ? sluice_arena_strdup(ctx->arena, text) : NULL;
            duckdb_free(text);
        }
        duckdb_destroy_result(&res);
    }
    duckdb_destroy_prepare(&ps);
    return out;
}

/* EXPLAIN's plan with the caller's variables bound, as jansson's value (a new reference), or
 * NULL when DuckDB made none. */
static sluice_status explained_plan(sluice_sql_ctx *ctx, const char *variables_json, json_t **out)
{
    *out = NULL;
    json_t *vars = json_loads(variables_json != NULL ? variables_json : "{}",
                              JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (vars == NULL)
        return SLUICE_E_NOMEM; /* the pipeline wrote it: only memory makes it fail */
    const char *text = json_is_object(vars) ? plan_text(ctx, vars) : NULL;
    json_decref(vars);
    if (sluice_arena_failed(ctx->arena))
        return SLUICE_E_NOMEM;
    *out = text != NULL ? json_loads(text, 0, NULL) : NULL;
    if (text != NULL && *out == NULL)
        return SLUICE_E_NOMEM; /* DuckDB's JSON always parses: only memory fails here */
    return SLUICE_OK;
}

/* Fills the estimate from the operator tree under root. */
static void estimate_from(sluice_sql_ctx *ctx, const sluice_physical_op *root)
{
    double sum = 0;
    bool known = false, ok = true;
    double rows = walk(root, 0, &sum, &known, &ok); /* what the top operator returns */
    if (!ok || !known)
        return; /* no estimate: the route's limits refuse a read without one */
    sluice_codefacts *f = ctx->facts;
    f->estimated_rows = (int64_t)rows;
    f->estimated_cost = sum;
    f->estimate_kind = SLUICE_ESTIMATE_PLAN_ROWS;
    f->estimate_engine = "DuckDB";
}

sluice_status sluice_sql_estimate(sluice_sql_ctx *ctx, const char *variables_json)
{
    /* The one bind's physical plan is prepare's, which is EXPLAIN's for a read without
     * parameters; with parameters EXPLAIN plans with the caller's values (estimates differ). */
    if (ctx->bound != NULL && ctx->bound->physical != NULL) {
        estimate_from(ctx, ctx->bound->physical);
        return SLUICE_OK;
    }
    json_t *plan = NULL;
    sluice_status st = explained_plan(ctx, variables_json, &plan);
    if (st != SLUICE_OK || plan == NULL)
        return st;
    sluice_physical_op root = { 0 };
    bool ok = true;
    st = from_explain(ctx->arena, json_array_get(plan, 0), 0, &root, &ok);
    if (st == SLUICE_OK && ok)
        estimate_from(ctx, &root);
    json_decref(plan);
    return st;
}
