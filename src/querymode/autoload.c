/*
 * autoload.c — the loads a `query` asks for (see internal.h): every auto_load source the
 * statement names is loaded into a table of its own name, with the statement's filters pushed
 * down (pushdown.c → fanout.c), before the statement is analysed and run unchanged on it.
 *
 * Owns: which sources need (re)loading (a table loaded by `load` is the caller's and is used as
 * is; one auto-loaded with another request plan is reloaded), the order (a source whose required
 * filter takes its values from another table waits for that table), the values a JOIN or an IN
 * subquery hands over (the distinct values of the other table's column, capped), and the summary
 * returned with the query. Does not own: the analysis (querymode.c), loading (loader.c).
 */
#include "core/limits.h"
#include "exec/scratch.h"
#include "querymode/internal.h"
#include "querymode/pushdown.h"

#include <string.h>
#include <strings.h>

typedef struct env_ctx {
    sluice_querymode *qm;
    sluice_qm_session *session;
} env_ctx;

static const sluice_config_source *config_source(const sluice_querymode *qm, const char *name)
{
    for (size_t i = 0; i < qm->config->source_count; i++)
        if (strcasecmp(qm->config->sources[i].name, name) == 0)
            return &qm->config->sources[i];
    return NULL;
}

static const sluice_config_source *source_of(void *ctx, const char *table)
{
    env_ctx *e = ctx;
    const sluice_config_source *src = config_source(e->qm, table);
    if (src == NULL || !src->auto_load)
        return NULL;
    const sluice_qm_table *t = sluice_qm_table_find(e->session, table);
    return t != NULL && t->load_key == NULL ? NULL : src; /* `load`ed: the caller's table */
}

static int has_column(void *ctx, const char *table, const char *column)
{
    env_ctx *e = ctx;
    const sluice_qm_table *t = sluice_qm_table_find(e->session, table);
    if (t != NULL) {
        for (size_t i = 0; i < t->column_count; i++)
            if (strcasecmp(t->columns[i].name, column) == 0)
                return 1;
        return 0;
    }
    const sluice_config_source *src = config_source(e->qm, table);
    if (src == NULL || src->column_count == 0)
        return -1;
    for (size_t i = 0; i < src->column_count; i++)
        if (strcasecmp(src->columns[i].name, column) == 0)
            return 1;
    return 0;
}

/* True when table is still to be loaded by this query (an unprocessed need). */
static bool pending(const sluice_qm_need *needs, const bool *done, size_t n, const char *table)
{
    for (size_t i = 0; i < n; i++)
        if (!done[i] && strcasecmp(needs[i].source->name, table) == 0)
            return true;
    return false;
}

static bool ready(const sluice_qm_need *nd, const sluice_qm_need *needs, const bool *done, size_t n)
{
    for (size_t t = 0; t < nd->term_count; t++)
        if (nd->from_table[t] != NULL && strcasecmp(nd->from_table[t], nd->source->name) != 0 &&
            pending(needs, done, n, nd->from_table[t]))
            return false;
    return true;
}

static const char *column_type(const sluice_qm_table *t, const char *column)
{
    for (size_t i = 0; i < t->column_count; i++)
        if (strcasecmp(t->columns[i].name, column) == 0)
            return t->columns[i].type;
    return NULL;
}

/* The other table's constant filters as engine filters (typed by its columns); those on columns
 * it lacks are left out, which only widens the values. */
static sluice_scratch_filter *other_filters(const sluice_qm_table *t,
                                            const sluice_qm_term *terms,
                                            size_t n,
                                            size_t *count,
                                            sluice_arena *arena)
{
    sluice_scratch_filter *f = sluice_arena_calloc(arena, n + 1, sizeof(*f));
    *count = 0;
    for (size_t i = 0; f != NULL && i < n && *count < SLUICE_SCRATCH_MAX_FILTERS; i++) {
        const char *type = column_type(t, terms[i].column);
        if (type != NULL)
            f[(*count)++] = (sluice_scratch_filter){ terms[i].column, type, terms[i].op,
                                                     terms[i].values, terms[i].value_count };
    }
    return f;
}

/* How the source takes values for column: 0 not at all (the values would be useless), 1 as an
 * optional filter, 2 as a required one. */
static int takes_values(const sluice_config_source *src, const char *column)
{
    int how = 0;
    for (size_t i = 0; i < src->param_count; i++) {
        const sluice_config_source_param *p = &src->params[i];
        if (p->column != NULL && strcasecmp(p->column, column) == 0 &&
            (strcmp(p->op, "=") == 0 || strcmp(p->op, ">=") == 0 || strcmp(p->op, "<=") == 0))
            how = p->required ? 2 : (how > 1 ? how : 1);
    }
    return how;
}

/* The terms with JOIN / IN-subquery values filled in; a term whose table is not in the session
 * is dropped (the query filters again; a required filter then reports what is missing). */
static sluice_status resolve_terms(env_ctx *e,
                                   const sluice_qm_need *nd,
                                   sluice_qm_term *out,
                                   size_t *count,
                                   sluice_arena *arena,
                                   sluice_error *err)
{
    *count = 0;
    for (size_t t = 0; t < nd->term_count; t++) {
        sluice_qm_term term = nd->terms[t];
        const char *table = nd->from_table[t];
        if (table != NULL) {
            const sluice_qm_table *other = sluice_qm_table_find(e->session, table);
            int how = takes_values(nd->source, term.column);
            if (other == NULL || how == 0 || strcasecmp(table, nd->source->name) == 0)
                continue;
            size_t nf = 0;
            sluice_scratch_filter *filters =
                other_filters(other, nd->from_filters[t], nd->from_filter_count[t], &nf, arena);
            if (filters == NULL)
                return SLUICE_E_NOMEM;
            const char **values = NULL;
            size_t n = 0;
            sluice_status st =
                sluice_scratch_distinct(e->session->db, other->name, nd->from_column[t], filters,
                                        nf, SLUICE_LIMIT_QM_JOIN_VALUES, arena, &values, &n, err);
            if (st != SLUICE_OK)
                return st;
            if (n > SLUICE_LIMIT_QM_JOIN_VALUES && how == 1)
                continue; /* optional: load without it rather than fan out that far */
            if (n > SLUICE_LIMIT_QM_JOIN_VALUES)
                return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                        "query, column %zu: %s.%s gives more than %u distinct "
                                        "values for %s's filter on %s; narrow that side first "
                                        "(a WHERE on %s) or load %s with load",
                                        term.column_at, table, nd->from_column[t],
                                        SLUICE_LIMIT_QM_JOIN_VALUES, nd->source->name, term.column,
                                        table, nd->source->name);
            term.values = values;
            term.value_count = n;
        }
        out[(*count)++] = term;
    }
    return SLUICE_OK;
}

static sluice_status
summary(json_t *loaded, const sluice_qm_need *nd, const sluice_qm_load_result *r, bool reused)
{
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:b, s:b, s:b}", "source", nd->source->name,
                          "rowCount", (json_int_t)r->rows, "requests", (json_int_t)r->requests,
                          "pages", (json_int_t)r->pages, "cached", r->cached, "reused", reused,
                          "truncated", r->truncated);
    if (o != NULL && nd->limit > 0)
        json_object_set_new(o, "limit", json_integer(nd->limit));
    return o != NULL && json_array_append_new(loaded, o) == 0 ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status load_need(env_ctx *e,
                               const sluice_qm_need *nd,
                               const sluice_qm_caller *caller,
                               const sluice_qm_hooks *hooks,
                               json_t *loaded,
                               sluice_arena *arena,
                               sluice_error *err)
{
    sluice_querymode *qm = e->qm;
    sluice_qm_term *terms = sluice_arena_calloc(arena, nd->term_count + 1, sizeof(*terms));
    if (terms == NULL)
        return SLUICE_E_NOMEM;
    size_t n = 0;
    sluice_status st = resolve_terms(e, nd, terms, &n, arena, err);
    sluice_qm_fanout_options o = { .widen = true, .label = "query" };
    sluice_qm_requests req;
    if (st == SLUICE_OK)
        st = sluice_qm_fanout(nd->source, NULL, terms, n, &o, &req, arena, err);
    if (st == SLUICE_E_INVALID && nd->conflict)
        return sluice_error_set(err, arena, st,
                                "%s (the query names source '%s' %zu times with different "
                                "filters; one table cannot hold both: load it with load, or "
                                "name it once)",
                                err != NULL ? err->message : "", nd->source->name, nd->refs);
    if (st != SLUICE_OK)
        return st;
    int64_t limit = req.exact ? nd->limit : 0;
    const char *key = limit > 0
                          ? sluice_arena_printf(arena, "%s\nLIMIT %lld", req.key, (long long)limit)
                          : req.key;
    if (key == NULL)
        return SLUICE_E_NOMEM;
    const sluice_qm_table *have = sluice_qm_table_find(e->session, nd->source->name);
    if (have != NULL && have->load_key != NULL && strcmp(have->load_key, key) == 0) {
        sluice_qm_load_result same = { .rows = have->row_count };
        return summary(loaded, nd, &same, true);
    }
    st = sluice_qm_policy_source(qm, arena, caller, nd->source, err);
    if (st != SLUICE_OK)
        return st;
    sluice_qm_load_spec spec = { .source = nd->source,
                                 .table = nd->source->name,
                                 .requests = &req,
                                 .limit = limit,
                                 .use_cache = true,
                                 .load_key = key };
    sluice_qm_load_result r;
    st = sluice_qm_load_source(qm, arena, caller, e->session, &spec, hooks, &r, err);
    if (st != SLUICE_OK)
        return st;
    st = sluice_qm_audit(qm, arena, caller, "query_mode_load",
                         json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:b, s:b}", "tool", "query",
                                   "source", nd->source->name, "table", nd->source->name, "rows",
                                   (json_int_t)r.rows, "pages", (json_int_t)r.pages, "requests",
                                   (json_int_t)r.requests, "truncated", r.truncated, "auto", 1,
                                   "cached", r.cached),
                         err);
    return st == SLUICE_OK ? summary(loaded, nd, &r, false) : st;
}

sluice_status sluice_qm_autoload(sluice_querymode *qm,
                                 sluice_arena *arena,
                                 const sluice_qm_caller *caller,
                                 sluice_qm_session *session,
                                 const char *sql,
                                 const sluice_qm_hooks *hooks,
                                 json_t **loaded,
                                 sluice_error *err)
{
    *loaded = NULL;
    bool any = false;
    for (size_t i = 0; i < qm->config->source_count && !any; i++)
        any = qm->config->sources[i].auto_load;
    if (!any)
        return SLUICE_OK;
    json_t *tree = NULL;
    sluice_status st = sluice_scratch_parse(session->db, sql, arena, &tree, err);
    env_ctx e = { qm, session };
    sluice_qm_pushdown_env env = { .source_of = source_of, .has_column = has_column, .ctx = &e };
    sluice_qm_need *needs = NULL;
    size_t n = 0;
    if (st == SLUICE_OK)
        st = sluice_qm_pushdown(tree, &env, &needs, &n, arena, err);
    bool *done = st == SLUICE_OK ? sluice_arena_calloc(arena, n + 1, sizeof(*done)) : NULL;
    json_t *list = json_array();
    if (st == SLUICE_OK && (done == NULL || list == NULL))
        st = SLUICE_E_NOMEM;
    /* Rounds: each loads the needs whose JOIN/IN tables are in place; a cycle loads the rest
     * without those terms. */
    for (size_t left = n; st == SLUICE_OK && left > 0;) {
        size_t before = left;
        for (size_t i = 0; st == SLUICE_OK && i < n; i++) {
            if (done[i] || !ready(&needs[i], needs, done, n))
                continue;
            st = load_need(&e, &needs[i], caller, hooks, list, arena, err);
            done[i] = true;
            left--;
        }
        if (left == before && st == SLUICE_OK) /* a cycle: take the first that is left */
            for (size_t i = 0; i < n && left == before; i++)
                if (!done[i]) {
                    st = load_need(&e, &needs[i], caller, hooks, list, arena, err);
                    done[i] = true;
                    left--;
                }
    }
    if (st != SLUICE_OK) {
        json_decref(list);
        return st;
    }
    *loaded = list;
    return SLUICE_OK;
}
