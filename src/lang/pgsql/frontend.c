/*
 * frontend.c — the PostgreSQL analyzer's passes: parse once, then resolve the statement as many
 * times as taint grows (a column compared with a blocked one is blocked in the next pass, so the
 * predicate rules reach it too), then the blocked-output check, the sql_* rules, the canonical
 * hash and the scores.
 *
 * Owns: the order of the stages and the configuration rules as they apply on PostgreSQL (reads;
 * changes where sql_allow_writes / sql_allow_deletes allow them, see write.c; DDL and every
 * other Admin statement never, whatever sql_allow_ddl says).
 * Does not own: any stage's logic (see internal.h).
 */
#include "core/limits.h"
#include "exec/executor.h"
#include "lang/pgsql/internal.h"

#include <string.h>
#include <strings.h>

static const sluice_config_code_mode default_code_mode = {
    .sql_reads_enabled = true,
    .sql_require_where_on_writes = true,
    .sql_max_rows = 10000,
    .sql_max_joins = 5,
};

static bool listed(const sluice_strlist *list, const char *table)
{
    for (size_t i = 0; i < list->count; i++) {
        const char *dot = strrchr(list->items[i], '.');
        if (strcasecmp(dot != NULL ? dot + 1 : list->items[i], table) == 0)
            return true;
    }
    return false;
}

/* DDL, SET, COPY, DO, ...: never run on PostgreSQL, whatever sql_allow_ddl says (the write
 * role has DML grants only). */
static void refuse_admin(pg_ctx *c)
{
    sluice_codefacts *f = c->facts;
    sluice_codefacts_violate(f, "statement_not_allowed", 0, 0,
                             "write one SELECT (or, where a route allows it, INSERT, UPDATE or "
                             "DELETE) over the tables in the code-mode://schema resource",
                             "a %s statement is never allowed on PostgreSQL", f->statement_kind);
}

/* The sql_* rules of [code_mode] that apply to a read. */
static void read_rules(pg_ctx *c)
{
    const sluice_config_code_mode *cm = c->cm;
    sluice_codefacts *f = c->facts;
    sluice_sql_facts *x = sluice_sql_ext(f);
    if (!cm->sql_reads_enabled)
        sluice_codefacts_violate(f, "sql_reads_enabled", 0, 0, NULL,
                                 "reads are disabled by sql_reads_enabled = false");
    if (cm->sql_max_joins > 0 && (int64_t)x->join_count > cm->sql_max_joins)
        sluice_codefacts_violate(f, "sql_max_joins", 0, 0,
                                 "split the question into smaller queries",
                                 "the query joins %zu times; sql_max_joins allows %lld",
                                 x->join_count, (long long)cm->sql_max_joins);
    if (cm->sql_require_limit && !x->has_limit)
        sluice_codefacts_violate(f, "sql_require_limit", 0, 0, "add LIMIT n",
                                 "sql_require_limit: the query needs a LIMIT");
}

/* What PostgreSQL would be asked to plan, bounded before it is (SLUICE_PGSQL_MAX_CTES,
 * SLUICE_PGSQL_MAX_RELATIONS). */
static void planning_bounds(pg_ctx *c)
{
    sluice_codefacts *f = c->facts;
    if (c->ctes > SLUICE_PGSQL_MAX_CTES)
        sluice_codefacts_violate(f, "too_complex", 0, 0, "split the question into smaller queries",
                                 "the query defines %zu CTEs (limit is %u)", c->ctes,
                                 SLUICE_PGSQL_MAX_CTES);
    if (c->relations > SLUICE_PGSQL_MAX_RELATIONS)
        sluice_codefacts_violate(f, "too_complex", 0, 0, "split the question into smaller queries",
                                 "the query reads %zu tables, views, subqueries and functions, "
                                 "views' own, each pass over a recursive CTE and each reference "
                                 "to a NOT MATERIALIZED CTE included (limit is %u)",
                                 c->relations, SLUICE_PGSQL_MAX_RELATIONS);
}

/* sql_allowed_tables and sql_blocked_tables, on the tables read and written. */
static void table_rules(pg_ctx *c, const sluice_codefacts_list *tables)
{
    const sluice_config_code_mode *cm = c->cm;
    sluice_codefacts *f = c->facts;
    for (size_t i = 0; i < tables->count; i++) {
        const char *t = tables->items[i];
        if ((cm->sql_allowed_tables.count > 0 && !listed(&cm->sql_allowed_tables, t)) ||
            listed(&cm->sql_blocked_tables, t))
            sluice_codefacts_violate(f, "sql_allowed_tables", 0, 0, NULL,
                                     "table %s is not exposed to code mode", t);
    }
}

/* Blocked fields never in the output, whatever computes them. */
static void check_outputs(pg_ctx *c, const pg_rel *rel)
{
    for (size_t i = 0; i < rel->count; i++) {
        const pg_col *col = &rel->cols[i];
        sluice_codefacts_output *out = NULL;
        if (sluice_codefacts_add_output(c->facts, col->name, col->type != NULL ? col->type : "",
                                        &out) != SLUICE_OK) {
            c->nomem = true;
            return;
        }
        sluice_pgsql_add_all(c, &out->lineage, &col->lineage);
        for (size_t k = 0; k < col->lineage.count; k++) {
            const char *base = col->lineage.items[k];
            if (!sluice_pgsql_blocked(c, base))
                continue;
            bool tainted = sluice_codefacts_list_has(&c->tainted, base);
            c->nomem |=
                SLUICE_OK !=
                sluice_codefacts_violate(
                    c->facts, "blocked_column", 0, 0,
                    "use blocked fields only to join or filter with =; never return them",
                    "output column %s is computed from %s, which is %s", col->name, base,
                    tainted ? "compared with a blocked field (so it holds the blocked value)"
                            : "a blocked field");
            break;
        }
    }
}

/* Every blocked column the statement reads anywhere, not only in predicates, counts as used:
 * the executor scrubs engine errors whenever blocked_used is not empty, and an error raised
 * anywhere (a cast in a subquery, a FROM function, a window argument, a view) can quote the
 * value (issue 21). */
static void note_blocked_reads(pg_ctx *c)
{
    sluice_codefacts *f = c->facts;
    for (size_t i = 0; i < f->fields_read.count; i++)
        if (sluice_pgsql_blocked(c, f->fields_read.items[i]))
            sluice_pgsql_add(c, &f->blocked_used, f->fields_read.items[i]);
}

static sluice_status one_pass(pg_ctx *c, json_t *tree, json_t *stmt)
{
    c->facts = sluice_sql_facts_new(c->arena);
    if (c->facts == NULL)
        return SLUICE_E_NOMEM;
    c->facts->language = "sql";
    sluice_sql_ext(c->facts)->dialect = SLUICE_PGSQL_DIALECT;
    c->new_taint = (sluice_codefacts_list){ 0 };
    c->depth = 0;
    c->relations = 0;
    c->ctes = 0;
    c->computed = NULL;
    sluice_pgsql_classify(c, stmt);
    if (c->facts->action == SLUICE_ACTION_ADMIN) {
        refuse_admin(c);
    } else if (c->facts->action != SLUICE_ACTION_READ) {
        sluice_pgsql_change(c, stmt);
    } else {
        pg_rel rel = sluice_pgsql_query(c, NULL, NULL, stmt);
        size_t before = c->facts->violation_count;
        check_outputs(c, &rel);
        if (c->computed != NULL && c->facts->violation_count == before)
            c->nomem |= SLUICE_OK !=
                        sluice_codefacts_violate(
                            c->facts, "blocked_predicate", 0, 0,
                            "use blocked fields only to join or filter with =, never in a "
                            "computed value",
                            "column %s is computed from a blocked column: it is evaluated even "
                            "when it is not returned, and whether that fails answers a question "
                            "about the value",
                            c->computed);
        read_rules(c);
    }
    note_blocked_reads(c);
    planning_bounds(c);
    table_rules(c, &c->facts->resources_read);
    table_rules(c, &c->facts->resources_written);
    sluice_status st = sluice_pgsql_canonicalize(c, tree);
    if (st == SLUICE_OK)
        st = sluice_sql_name_operations(c->facts);
    return c->nomem ? SLUICE_E_NOMEM : st;
}

/* Passes until taint stops growing; refused when it does not settle. */
static sluice_status resolve(pg_ctx *c, json_t *tree, json_t *stmt)
{
    for (size_t pass = 0; pass < SLUICE_PGSQL_MAX_TAINT_PASSES; pass++) {
        sluice_status st = one_pass(c, tree, stmt);
        if (st != SLUICE_OK || c->new_taint.count == 0)
            return st;
        for (size_t i = 0; i < c->new_taint.count; i++)
            sluice_pgsql_add(c, &c->tainted, c->new_taint.items[i]);
        if (c->nomem)
            return SLUICE_E_NOMEM;
    }
    return sluice_codefacts_violate(c->facts, "too_complex", 0, 0,
                                    "compare blocked fields with fewer columns",
                                    "comparisons with blocked fields chain through more than %u "
                                    "columns",
                                    SLUICE_PGSQL_MAX_TAINT_PASSES);
}

static void score(sluice_codefacts *f, const sluice_schema *schema)
{
    const sluice_sql_facts *x = sluice_sql_ext(f);
    f->complexity =
        (int64_t)(x->join_count * 3 + x->subquery_count * 3 + x->window_count * 2 +
                  x->aggregate_count + x->cte_names.count * 2 + f->resources_read.count);
    if (x->limit_value >= 0)
        f->estimated_rows = x->limit_value;
    else if (x->aggregate_count > 0 && !x->has_group_by)
        f->estimated_rows = 1;
    else if (f->resources_read.count == 1 && x->join_count == 0 && !x->has_where && schema != NULL)
        for (size_t i = 0; i < schema->table_count; i++)
            if (strcmp(schema->tables[i].name, f->resources_read.items[0]) == 0)
                f->estimated_rows = schema->tables[i].approx_rows;
}

/* The live catalog of the backend (re-read on SIGHUP, sluice_executor_catalog) when there is one;
 * the context's fixed schema otherwise (unit tests, fuzzing). */
static sluice_status context_schema(pg_ctx *c, const sluice_frontend_context *fc, sluice_error *err)
{
    if (fc != NULL && fc->executor != NULL)
        return sluice_executor_catalog(fc->executor, c->arena, &c->schema, err);
    c->schema = fc != NULL ? fc->schema : NULL;
    if (c->schema != NULL || fc == NULL || fc->executor == NULL)
        return SLUICE_OK;
    sluice_schema *s = sluice_arena_calloc(c->arena, 1, sizeof(*s));
    if (s == NULL)
        return SLUICE_E_NOMEM;
    c->schema = s;
    return sluice_executor_schema(fc->executor, c->arena, s, err);
}

/* The largest "Total Cost" of any node of the plan (depth-bounded like the plan judge). A LIMIT
 * node scales its cost by the fraction of rows it expects to read, so the top node alone lets a
 * LIMIT over an expensive join look cheap when the rows it waits for are rare; the node under it
 * carries the full cost of producing them. */
static double max_node_cost(const json_t *node, int depth)
{
    const json_t *own = json_object_get(node, "Total Cost");
    double worst = json_is_number(own) ? json_number_value(own) : -1;
    const json_t *plans = json_object_get(node, "Plans");
    for (size_t i = 0; depth < 256 && i < json_array_size(plans); i++) {
        double child = max_node_cost(json_array_get(plans, i), depth + 1);
        worst = child > worst ? child : worst;
    }
    return worst;
}

/* The engine's estimate for the read (issue 24) from PostgreSQL's plan: the rows the top node
 * returns, and the largest cost of any node (max_node_cost). A plan without them leaves the
 * estimate unknown (never a made-up zero). */
static sluice_status read_estimate(sluice_codefacts *f, const char *plan_json)
{
    /* PostgreSQL prints row estimates past 2^63 as integers: read every number as a real */
    json_t *root = json_loads(plan_json, JSON_DECODE_INT_AS_REAL, NULL);
    if (root == NULL) /* PostgreSQL's JSON always parses: only memory fails here */
        return SLUICE_E_NOMEM;
    const json_t *top = json_object_get(json_array_get(json_object_get(root, "plan"), 0), "Plan");
    const json_t *rows = json_object_get(top, "Plan Rows");
    double cost = top != NULL ? max_node_cost(top, 0) : -1;
    if (cost >= 0 && json_is_number(rows) && json_number_value(rows) >= 0 &&
        json_number_value(rows) < 9.2e18) {
        f->estimated_cost = cost;
        f->estimated_rows = (int64_t)json_number_value(rows);
        f->estimate_engine = "PostgreSQL";
        f->estimate_kind = SLUICE_ESTIMATE_PLAN_COST;
    }
    json_decref(root);
    return SLUICE_OK;
}

/* PostgreSQL's own plan for a read the parse-tree layer accepted: its estimate (rows and cost,
 * for validate_code, risk and the route's limits, which codemode/estimate.c applies to every
 * engine alike) and the second judge (plan.c) when it references a blocked column (otherwise
 * nothing blocked can reach the result). A plan PostgreSQL refuses to make, or cannot make in
 * time, refuses the statement. */
static sluice_status judge_by_plan(pg_ctx *c, const sluice_frontend_context *fc)
{
    sluice_codefacts *f = c->facts;
    if (fc == NULL || fc->executor == NULL || f->action != SLUICE_ACTION_READ ||
        f->violation_count > 0)
        return SLUICE_OK;
    /* planning is analysis: held to analysis_timeout_ms like DuckDB's binding (a CUBE of 12
     * terms planned for 7 s), or to the execution timeout when that is shorter */
    int64_t timeout = c->cm->analysis_timeout_ms > 0 ? c->cm->analysis_timeout_ms
                                                     : SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS;
    bool by_execution = c->cm->execution_timeout_seconds > 0 &&
                        (int64_t)c->cm->execution_timeout_seconds * 1000 < timeout;
    if (by_execution)
        timeout = (int64_t)c->cm->execution_timeout_seconds * 1000;
    const char *plan = NULL;
    sluice_error err = { 0 };
    /* as the caller will run it: RLS and grants of the mapped role shape the estimate */
    const sluice_exec_request as = { .code = c->code,
                                     .code_len = c->code_len,
                                     .limits = { .timeout_ms = timeout },
                                     .identity = fc->identity,
                                     .db_role = fc->db_role,
                                     .publish_claims = c->cm->caller_claims };
    sluice_status st = sluice_executor_explain(fc->executor, c->arena, &as, &plan, &err);
    if (st == SLUICE_E_UNSUPPORTED)
        return SLUICE_OK;
    if (st == SLUICE_E_NOMEM)
        return st;
    if (st == SLUICE_E_TIMEOUT)
        return sluice_codefacts_violate(
            f, "analysis_limit", 0, 0,
            by_execution ? "join fewer tables, or use fewer grouping sets or NOT MATERIALIZED "
                           "CTEs, in one statement, or raise [code_mode] "
                           "execution_timeout_seconds"
                         : "join fewer tables, or use fewer grouping sets or NOT MATERIALIZED "
                           "CTEs, in one statement, or raise [code_mode] analysis_timeout_ms",
            "PostgreSQL did not plan the statement within %s (%lld ms)",
            by_execution ? "execution_timeout_seconds" : "analysis_timeout_ms", (long long)timeout);
    if (st != SLUICE_OK)
        return sluice_codefacts_violate(
            f, "engine_refused", err.line, err.column,
            "fix what PostgreSQL reports, or split the question into smaller queries",
            "PostgreSQL did not plan the statement: %s",
            err.message != NULL ? err.message : "no reason given");
    st = read_estimate(f, plan);
    if (st != SLUICE_OK || f->blocked_used.count == 0)
        return st;
    bool refused = false;
    return sluice_pgsql_judge_plan(c, plan, &refused);
}

/* Facts for code refused before any resolution (NUL byte, syntax, statement count). */
static sluice_status early_refusal(pg_ctx *c)
{
    c->facts->statement_kind = "";
    return c->nomem ? SLUICE_E_NOMEM : SLUICE_OK;
}

sluice_status sluice_pgsql_analyze(sluice_arena *arena,
                                   const char *code,
                                   size_t code_len,
                                   const char *variables_json,
                                   const sluice_frontend_context *fc,
                                   sluice_codefacts **out,
                                   sluice_error *err)
{
    /* bound by the executor as parameters, never part of the text; checked against them here */
    sluice_status len_st = sluice_sql_check_length(code_len, arena, err);
    if (len_st != SLUICE_OK)
        return len_st;
    pg_ctx c = { .arena = arena, .code_len = code != NULL ? code_len : 0 };
    c.code = sluice_arena_strndup(arena, code != NULL ? code : "", c.code_len);
    c.cm = fc != NULL && fc->code_mode != NULL ? fc->code_mode : &default_code_mode;
    c.facts = sluice_sql_facts_new(arena);
    if (c.code == NULL || c.facts == NULL)
        return SLUICE_E_NOMEM;
    c.facts->language = "sql";
    sluice_sql_ext(c.facts)->dialect = SLUICE_PGSQL_DIALECT;
    sluice_status st = context_schema(&c, fc, err);
    if (st != SLUICE_OK)
        return st;
    json_t *tree = NULL, *stmt = NULL;
    if (strlen(c.code) != c.code_len) {
        size_t line, column;
        sluice_error_locate(c.code, c.code_len, strlen(c.code), &line, &column);
        st = sluice_codefacts_violate(c.facts, "syntax_error", line, column, "remove the NUL byte",
                                      "the SQL contains a NUL byte");
    } else {
        st = sluice_pgsql_parse(&c, c.code, &tree);
        stmt = st == SLUICE_OK && tree != NULL ? sluice_pgsql_single_statement(&c, tree) : NULL;
    }
    if (st == SLUICE_OK && stmt == NULL)
        st = early_refusal(&c);
    else if (st == SLUICE_OK)
        st = resolve(&c, tree, stmt);
    if (st == SLUICE_OK && stmt != NULL)
        st = sluice_pgsql_check_variables(&c, stmt, variables_json);
    if (st == SLUICE_OK && stmt != NULL)
        st = judge_by_plan(&c, fc);
    if (st != SLUICE_OK)
        return st;
    /* the engine's row estimate, when there is one, over the syntactic guess */
    int64_t engine_rows = c.facts->estimated_rows;
    score(c.facts, c.schema);
    if (c.facts->estimate_engine != NULL)
        c.facts->estimated_rows = engine_rows;
    *out = c.facts;
    return SLUICE_OK;
}

sluice_status sluice_pgsql_canonical_hash(sluice_arena *arena,
                                          const char *code,
                                          size_t code_len,
                                          const sluice_frontend_context *fc,
                                          char out_hex[65],
                                          sluice_error *err)
{
    sluice_codefacts *facts = NULL;
    sluice_status st = sluice_pgsql_analyze(arena, code, code_len, NULL, fc, &facts, err);
    if (st != SLUICE_OK)
        return st;
    return sluice_frontend_hash_of(arena, facts, out_hex, err);
}

sluice_risk sluice_pgsql_risk(const sluice_codefacts *facts, const char **reason)
{
    if (facts->action == SLUICE_ACTION_READ && facts->blocked_in_predicate) {
        *reason = "a predicate reads blocked fields (a person approves even point lookups)";
        return SLUICE_RISK_HIGH;
    }
    return sluice_sql_risk(facts, reason);
}
