/*
 * estimate.c — the route's estimate limits, the estimate in words, and the estimate bound into
 * the token (see estimate.h).
 */
#include "codemode/estimate.h"

#include "core/buf.h"
#include "core/json_write.h"

#include <math.h>

/* What the cost counts, per kind, for messages: "a plan cost of", "a computed cost of". */
static const char *cost_noun(sluice_estimate_kind kind)
{
    switch (kind) {
    case SLUICE_ESTIMATE_PLAN_COST:
        return "a plan cost of";
    case SLUICE_ESTIMATE_PLAN_ROWS:
        return "rows through the plan's operators totalling";
    case SLUICE_ESTIMATE_GRAPHQL_COST:
        return "a computed cost (one per field, times the list sizes above it) of";
    case SLUICE_ESTIMATE_CALL_BOUND:
        return "upstream calls numbering at most";
    case SLUICE_ESTIMATE_NONE:
        break;
    }
    return "a cost";
}

/* Who made it, for messages: "PostgreSQL", "DuckDB", "the GraphQL cost analysis", ... */
static const char *maker(const sluice_codefacts *f)
{
    if (f->estimate_engine != NULL)
        return f->estimate_engine;
    return f->estimate_kind == SLUICE_ESTIMATE_GRAPHQL_COST ? "the GraphQL cost analysis"
                                                            : "the plan's static analysis";
}

sluice_status sluice_estimate_limit(sluice_codefacts *f, const sluice_config_code_mode *rules)
{
    if (f == NULL || rules == NULL || sluice_codefacts_refused(f) ||
        (rules->max_estimated_rows <= 0 && rules->max_estimated_cost <= 0))
        return SLUICE_OK;
    sluice_status st = SLUICE_OK;
    bool no_rows = rules->max_estimated_rows > 0 && f->estimated_rows < 0;
    bool no_cost = rules->max_estimated_cost > 0 && f->estimated_cost < 0;
    if ((f->estimate_kind == SLUICE_ESTIMATE_NONE || no_rows || no_cost) &&
        f->action == SLUICE_ACTION_READ) {
        /* writes carry no estimate (docs/policy.md); a read must have one to be under a limit */
        st = sluice_codefacts_violate(
            f,
            no_rows || rules->max_estimated_cost <= 0 ? "max_estimated_rows" : "max_estimated_cost",
            0, 0, "ask for a route without the limit (GraphQL and plans estimate a cost, not rows)",
            "no %s estimate could be made for this read, and this route limits it "
            "(max_estimated_rows %lld, max_estimated_cost %lld)",
            no_rows ? "row" : "cost", (long long)rules->max_estimated_rows,
            (long long)rules->max_estimated_cost);
    } else if (f->estimate_kind == SLUICE_ESTIMATE_NONE) {
        return SLUICE_OK;
    } else if (rules->max_estimated_rows > 0 && f->estimated_rows > rules->max_estimated_rows) {
        st = sluice_codefacts_violate(
            f, "max_estimated_rows", 0, 0,
            "narrow it with a WHERE on an indexed column, aggregate, or add a LIMIT",
            "%s estimates %lld rows for this read; max_estimated_rows is %lld", maker(f),
            (long long)f->estimated_rows, (long long)rules->max_estimated_rows);
    } else if (rules->max_estimated_cost > 0 &&
               f->estimated_cost > (double)rules->max_estimated_cost) {
        st = sluice_codefacts_violate(
            f, "max_estimated_cost", 0, 0,
            "do less: filter on an indexed column, join fewer tables, aggregate earlier, or make "
            "fewer calls",
            "%s estimates %s %.0f for this program; max_estimated_cost is %lld", maker(f),
            cost_noun(f->estimate_kind), f->estimated_cost, (long long)rules->max_estimated_cost);
    }
    if (st != SLUICE_OK)
        f->incomplete = true; /* a limit that could not be recorded is never a pass */
    return st;
}

/* v as "%.0f" writes it. A whole number below 1e17 (an estimate nearly always is) is its digits,
 * exact with no rounding to do, without printf; a fraction, -0, a larger or non-finite value
 * take printf's path. */
static void put_count(sluice_buf *b, double v)
{
    if (fabs(v) < 1e17 && v == (double)(long long)v && (v != 0 || !signbit(v)))
        sluice_json_put_integer(b, (json_int_t)v);
    else
        sluice_buf_printf(b, "%.0f", v);
}

/* Appends "about N row(s)". */
static void put_rows(sluice_buf *b, long long rows)
{
    sluice_buf_puts(b, "about ");
    sluice_json_put_integer(b, rows);
    sluice_buf_puts(b, rows == 1 ? " row" : " rows");
}

/* Built piece by piece: one vfprintf with a %.0f was most of the answer's explanation. */
const char *sluice_estimate_words(sluice_arena *arena, const sluice_codefacts *f)
{
    if (f == NULL || sluice_codefacts_refused(f))
        return "";
    double cost = f->estimated_cost;
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    switch (f->estimate_kind) {
    case SLUICE_ESTIMATE_PLAN_COST:
        sluice_buf_puts(&b, maker(f));
        sluice_buf_puts(&b, " estimates ");
        put_rows(&b, (long long)f->estimated_rows);
        sluice_buf_puts(&b, " at a plan cost of ");
        put_count(&b, cost);
        sluice_buf_puts(&b, " before running it.");
        break;
    case SLUICE_ESTIMATE_PLAN_ROWS:
        sluice_buf_puts(&b, maker(f));
        sluice_buf_puts(&b, " estimates ");
        put_rows(&b, (long long)f->estimated_rows);
        sluice_buf_puts(&b, ", with about ");
        put_count(&b, cost);
        sluice_buf_puts(&b, cost == 1 ? " row" : " rows");
        sluice_buf_puts(&b, " through the plan's operators, before running it.");
        break;
    case SLUICE_ESTIMATE_GRAPHQL_COST:
        sluice_buf_puts(&b, "Its computed cost is ");
        put_count(&b, cost);
        sluice_buf_puts(&b, " (one per field, times the list sizes above it).");
        break;
    case SLUICE_ESTIMATE_CALL_BOUND:
        if (cost == 0)
            return "It makes no upstream calls.";
        sluice_buf_puts(&b, "It makes at most ");
        put_count(&b, cost);
        sluice_buf_puts(&b, cost == 1 ? " upstream call." : " upstream calls.");
        break;
    case SLUICE_ESTIMATE_NONE:
        return "";
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* What the cost counts, per kind, in the record; NULL for no estimate (or a kind not known). */
static const char *unit_of(const sluice_codefacts *f)
{
    static const char *const units[] = {
        [SLUICE_ESTIMATE_PLAN_COST] = "planner cost",
        [SLUICE_ESTIMATE_PLAN_ROWS] = "rows through the plan",
        [SLUICE_ESTIMATE_GRAPHQL_COST] = "computed cost",
        [SLUICE_ESTIMATE_CALL_BOUND] = "upstream calls at most",
    };
    if (f == NULL || f->estimate_kind == SLUICE_ESTIMATE_NONE ||
        (unsigned)f->estimate_kind >= sizeof units / sizeof units[0])
        return NULL;
    return units[f->estimate_kind];
}

void sluice_estimate_write(sluice_json_out *out, const sluice_codefacts *f)
{
    const char *unit = unit_of(f);
    if (unit == NULL) {
        sluice_json_out_string(out, NULL); /* no value to write: the text is bad */
        return;
    }
    sluice_json_out_open(out, '{');
    sluice_json_out_key(out, "by");
    sluice_json_out_string(out, maker(f));
    sluice_json_out_key(out, "rows");
    if (f->estimated_rows >= 0)
        sluice_json_out_integer(out, f->estimated_rows);
    else
        sluice_json_out_null(out);
    sluice_json_out_key(out, "cost");
    sluice_json_out_integer(
        out, (json_int_t)ceil(f->estimated_cost < 9.2e18 ? f->estimated_cost : 9.2e18));
    sluice_json_out_key(out, "unit");
    sluice_json_out_string(out, unit);
    sluice_json_out_close(out, '}');
}

json_t *sluice_estimate_json(const sluice_codefacts *f)
{
    if (unit_of(f) == NULL)
        return NULL;
    /* the writer's text read back: one rendering of the record */
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    sluice_json_out out = { .buf = &buf };
    sluice_estimate_write(&out, f);
    json_t *o =
        sluice_json_out_status(&out) == SLUICE_OK ? json_loadb(buf.data, buf.len, 0, NULL) : NULL;
    sluice_buf_dispose(&buf);
    return o;
}

void sluice_estimate_bind(const sluice_codefacts *f, sluice_token_claims *claims)
{
    bool has = f != NULL && f->estimate_kind != SLUICE_ESTIMATE_NONE;
    claims->estimated_rows = has && f->estimated_rows >= 0 ? f->estimated_rows : -1;
    claims->estimated_cost = has && f->estimated_cost >= 0 && f->estimated_cost < 9.2e18
                                 ? (int64_t)ceil(f->estimated_cost)
                                 : -1;
    claims->estimate_live = has && (f->estimate_kind == SLUICE_ESTIMATE_PLAN_COST ||
                                    f->estimate_kind == SLUICE_ESTIMATE_PLAN_ROWS);
}

bool sluice_estimate_needs_live(const sluice_token_claims *claims)
{
    return claims != NULL && claims->estimate_live;
}

sluice_status sluice_estimate_drift(const sluice_token_claims *claims,
                                    const sluice_codefacts *live,
                                    const sluice_config_code_mode *rules,
                                    sluice_arena *arena,
                                    sluice_token_problem *problem,
                                    sluice_error *err)
{
    sluice_token_claims now = { 0 };
    sluice_estimate_bind(live, &now);
    return sluice_token_estimate_check(claims, &now, rules->estimate_drift_factor, arena, problem,
                                       err);
}
