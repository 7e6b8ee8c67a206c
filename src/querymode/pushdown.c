/*
 * pushdown.c — filters of a query's parse tree onto its sources (see pushdown.h).
 */
#include "querymode/pushdown.h"

#include "syntax/sqltree/duckdb_tree.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Most tables one SELECT's FROM may name and conjuncts its WHERE/ON may hold for pushdown. */
#define MAX_REFS      32u
#define MAX_CONJUNCTS 128u

typedef struct ref {
    const char *table; /* NULL: not a plain table (subquery, table function) */
    const char *alias;
    const sluice_config_source *source;
} ref;

typedef struct scope {
    ref refs[MAX_REFS];
    size_t ref_count;
    const json_t *conj[MAX_CONJUNCTS];
    size_t conj_count;
    bool overflow; /* more refs or conjuncts than tracked: pushdown still safe, LIMIT is not */
} scope;

typedef struct walk {
    const sluice_qm_pushdown_env *env;
    const json_t *root;
    sluice_qm_need *needs;
    size_t count;
    sluice_arena *arena;
    sluice_error *err;
    bool constants_only;        /* gathering another table's filters: no JOIN/IN values */
    const char *ctes[MAX_REFS]; /* WITH names seen: they shadow sources of the same name */
    size_t cte_count;
} walk;

/* ---- the FROM clause and the conjuncts ---------------------------------------------------- */

static void add_conjuncts(scope *sc, const json_t *expr)
{
    if (expr == NULL)
        return;
    if (sluice_sqltree_json_is(expr, "type", "CONJUNCTION_AND")) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(expr, "children"), i, c) add_conjuncts(sc, c);
        return;
    }
    if (sc->conj_count == MAX_CONJUNCTS) {
        sc->overflow = true;
        return;
    }
    sc->conj[sc->conj_count++] = expr;
}

static void add_refs(walk *w, scope *sc, const json_t *from)
{
    if (from == NULL)
        return;
    if (sluice_sqltree_json_is(from, "type", "JOIN")) {
        add_refs(w, sc, json_object_get(from, "left"));
        add_refs(w, sc, json_object_get(from, "right"));
        if (sluice_sqltree_json_is(from, "join_type", "INNER") &&
            sluice_sqltree_json_is(from, "ref_type", "REGULAR"))
            add_conjuncts(sc, json_object_get(from, "condition"));
        return;
    }
    if (sc->ref_count == MAX_REFS) {
        sc->overflow = true;
        return;
    }
    ref *r = &sc->refs[sc->ref_count++];
    memset(r, 0, sizeof(*r));
    if (!sluice_sqltree_json_is(from, "type", "BASE_TABLE") ||
        json_object_get(from, "schema_name") != NULL ||
        json_object_get(from, "catalog_name") != NULL)
        return;
    r->table = sluice_sqltree_json_str(from, "table_name");
    r->alias =
        json_object_get(from, "alias") != NULL ? sluice_sqltree_json_str(from, "alias") : r->table;
    for (size_t i = 0; i < w->cte_count; i++)
        if (strcasecmp(w->ctes[i], r->table) == 0)
            return; /* a WITH name, not the source (the walk reaches the CTE's own SELECT) */
    r->source = w->env->source_of(w->env->ctx, r->table);
}

/* The column of ref `at` that expr names, or NULL (another table's, not a column, unknown). */
static const char *column_of(const walk *w, const scope *sc, size_t at, const json_t *expr)
{
    if (!sluice_sqltree_json_is(expr, "class", "COLUMN_REF"))
        return NULL;
    const json_t *names = json_object_get(expr, "column_names");
    const ref *r = &sc->refs[at];
    if (r->table == NULL)
        return NULL;
    if (json_array_size(names) == 2)
        return strcasecmp(json_string_value(json_array_get(names, 0)), r->alias) == 0
                   ? json_string_value(json_array_get(names, 1))
                   : NULL;
    if (json_array_size(names) != 1)
        return NULL;
    const char *col = json_string_value(json_array_get(names, 0));
    if (sc->ref_count == 1)
        return col;
    if (w->env->has_column(w->env->ctx, r->table, col) != 1)
        return NULL;
    for (size_t i = 0; i < sc->ref_count; i++)
        if (i != at && (sc->refs[i].table == NULL ||
                        w->env->has_column(w->env->ctx, sc->refs[i].table, col) != 0))
            return NULL; /* ambiguous or unknown: the binder decides, we do not guess */
    return col;
}

/* DECIMAL(w,s) constants hold the unscaled integer: 20.5 is 205 with scale 1. */
static const char *decimal_text(walk *w, double unscaled, int scale)
{
    if (unscaled != floor(unscaled) || fabs(unscaled) >= 9007199254740992.0 || scale < 0 ||
        scale > 18)
        return NULL;
    long long v = (long long)unscaled;
    unsigned long long mag = v < 0 ? (unsigned long long)(-v) : (unsigned long long)v;
    unsigned long long div = 1;
    for (int i = 0; i < scale; i++)
        div *= 10;
    if (scale == 0)
        return sluice_arena_printf(w->arena, "%s%llu", v < 0 ? "-" : "", mag);
    return sluice_arena_printf(w->arena, "%s%llu.%0*llu", v < 0 ? "-" : "", mag / div, scale,
                               mag % div);
}

/* The constant's text: strings as they are, integral numbers without a fraction, decimals
 * scaled; NULL for anything else (NULL constants, intervals, blobs...: not pushed). */
static const char *constant(walk *w, const json_t *expr)
{
    const json_t *v = sluice_sqltree_json_constant(expr);
    if (v == NULL)
        return NULL;
    const json_t *type = json_object_get(v, "type");
    const char *id = sluice_sqltree_json_str(type, "id");
    if (json_is_true(json_object_get(v, "is_null")))
        return NULL;
    const json_t *x = json_object_get(v, "value");
    if (strcmp(id, "VARCHAR") == 0 && json_is_string(x))
        return sluice_arena_strdup(w->arena, json_string_value(x));
    if (strcmp(id, "BOOLEAN") == 0 && json_is_boolean(x))
        return json_is_true(x) ? "true" : "false";
    if (!json_is_number(x))
        return NULL;
    double d = json_number_value(x);
    if (strcmp(id, "DECIMAL") == 0)
        return decimal_text(
            w, d,
            (int)json_number_value(json_object_get(json_object_get(type, "type_info"), "scale")));
    static const char *const ints[] = { "TINYINT", "SMALLINT", "INTEGER",
                                        "BIGINT",  "DOUBLE",   "FLOAT" };
    bool known = false;
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        known = known || strcmp(id, ints[i]) == 0;
    if (!known)
        return NULL;
    if (d == floor(d) && fabs(d) < 9007199254740992.0)
        return sluice_arena_printf(w->arena, "%lld", (long long)d);
    return sluice_arena_printf(w->arena, "%.17g", d);
}

/* ---- terms ----------------------------------------------------------------------------------- */

typedef struct terms {
    sluice_qm_term items[SLUICE_QM_PUSHDOWN_MAX_TERMS];
    const char *from_table[SLUICE_QM_PUSHDOWN_MAX_TERMS];
    const char *from_column[SLUICE_QM_PUSHDOWN_MAX_TERMS];
    const sluice_qm_term *from_filters[SLUICE_QM_PUSHDOWN_MAX_TERMS];
    size_t from_filter_count[SLUICE_QM_PUSHDOWN_MAX_TERMS];
    size_t count;
} terms;

static size_t at_of(const json_t *expr)
{
    size_t loc = sluice_sqltree_json_location(expr);
    return loc != SIZE_MAX ? loc + 1 : 0;
}

/* Adds a term with these values (copied pointer array) or one taken from table.column. */
static bool add_term(walk *w,
                     terms *ts,
                     const char *column,
                     const char *op,
                     const char **values,
                     size_t n,
                     const char *from_table,
                     const char *from_column,
                     size_t at)
{
    if (ts->count == SLUICE_QM_PUSHDOWN_MAX_TERMS)
        return false;
    const char **copy = NULL;
    if (n > 0) {
        copy = sluice_arena_calloc(w->arena, n, sizeof(*copy));
        if (copy == NULL)
            return false;
        memcpy(copy, values, n * sizeof(*copy));
    }
    ts->items[ts->count] = (sluice_qm_term){
        .column = column, .op = op, .values = copy, .value_count = n, .column_at = at
    };
    ts->from_table[ts->count] = from_table;
    ts->from_column[ts->count] = from_column;
    ts->from_filters[ts->count] = NULL;
    ts->from_filter_count[ts->count] = 0;
    ts->count++;
    return true;
}

static bool conjunct_terms(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts);

/* The constant filters of ref `at` in sc, attached to the last term of ts (the JOIN/IN term
 * whose values that table gives). Best effort: without them the values are only wider. */
static void attach_filters(walk *w, const scope *sc, size_t at, terms *ts)
{
    terms *own = sluice_arena_calloc(w->arena, 1, sizeof(*own));
    if (own == NULL || ts->count == 0)
        return;
    bool was = w->constants_only;
    w->constants_only = true;
    for (size_t c = 0; c < sc->conj_count; c++)
        conjunct_terms(w, sc, at, sc->conj[c], own);
    w->constants_only = was;
    ts->from_filters[ts->count - 1] = own->items;
    ts->from_filter_count[ts->count - 1] = own->count;
}

/* The ref (other than at) a column reference names, with its column, for JOIN values. */
static bool other_column(const walk *w,
                         const scope *sc,
                         size_t at,
                         const json_t *expr,
                         const char **table,
                         const char **column,
                         size_t *index)
{
    for (size_t i = 0; i < sc->ref_count; i++) {
        if (i == at || sc->refs[i].table == NULL)
            continue;
        const char *c = column_of(w, sc, i, expr);
        if (c != NULL) {
            *table = sc->refs[i].table;
            *column = c;
            *index = i;
            return true;
        }
    }
    return false;
}

static bool comparison_term(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts)
{
    const json_t *l = json_object_get(c, "left");
    const json_t *r = json_object_get(c, "right");
    const char *col = column_of(w, sc, at, l);
    bool flipped = false;
    if (col == NULL) {
        col = column_of(w, sc, at, r);
        flipped = true;
        const json_t *t = l;
        l = r;
        r = t;
    }
    const char *op =
        col != NULL ? sluice_sqltree_comparison(sluice_sqltree_json_str(c, "type"), flipped) : NULL;
    if (op == NULL || strcmp(op, "<>") == 0) /* sources take =, <, >, <=, >= (where.c) */
        return false;
    const char *v = constant(w, r);
    if (v != NULL)
        return add_term(w, ts, col, op, &v, 1, NULL, NULL, at_of(l));
    const char *table = NULL, *column = NULL;
    size_t other = 0;
    if (w->constants_only || strcmp(op, "=") != 0 ||
        !other_column(w, sc, at, r, &table, &column, &other) ||
        !add_term(w, ts, col, op, NULL, 0, table, column, at_of(l)))
        return false;
    attach_filters(w, sc, other, ts);
    return true;
}

static bool in_term(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts)
{
    const json_t *kids = json_object_get(c, "children");
    const char *col = column_of(w, sc, at, json_array_get(kids, 0));
    size_t n = json_array_size(kids);
    if (col == NULL || n < 2)
        return false;
    const char **values = sluice_arena_calloc(w->arena, n, sizeof(*values));
    if (values == NULL)
        return false;
    for (size_t i = 1; i < n; i++)
        if ((values[i - 1] = constant(w, json_array_get(kids, i))) == NULL)
            return false;
    return add_term(w, ts, col, "=", values, n - 1, NULL, NULL, at_of(json_array_get(kids, 0)));
}

static bool between_term(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts)
{
    const json_t *input = json_object_get(c, "input");
    const char *col = column_of(w, sc, at, input);
    const char *lo = col != NULL ? constant(w, json_object_get(c, "lower")) : NULL;
    const char *hi = col != NULL ? constant(w, json_object_get(c, "upper")) : NULL;
    return lo != NULL && hi != NULL && ts->count + 2 <= SLUICE_QM_PUSHDOWN_MAX_TERMS &&
           add_term(w, ts, col, ">=", &lo, 1, NULL, NULL, at_of(input)) &&
           add_term(w, ts, col, "<=", &hi, 1, NULL, NULL, at_of(input));
}

/* col IN (SELECT c FROM t ...): the values of t.c (a superset of the subquery's: its own
 * filters are applied again when the query runs). */
static bool subquery_term(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts)
{
    const json_t *child = json_object_get(c, "child");
    const char *col = column_of(w, sc, at, child);
    const json_t *node = json_object_get(json_object_get(c, "subquery"), "node");
    const json_t *list = json_object_get(node, "select_list");
    const json_t *from = json_object_get(node, "from_table");
    const json_t *names = json_object_get(json_array_get(list, 0), "column_names");
    if (w->constants_only || col == NULL || !sluice_sqltree_json_is(c, "subquery_type", "ANY") ||
        !sluice_sqltree_json_is(c, "comparison_type", "COMPARE_EQUAL") ||
        !sluice_sqltree_json_is(node, "type", "SELECT_NODE") || json_array_size(list) != 1 ||
        !sluice_sqltree_json_is(json_array_get(list, 0), "class", "COLUMN_REF") ||
        json_array_size(names) == 0 || !sluice_sqltree_json_is(from, "type", "BASE_TABLE") ||
        json_object_get(from, "schema_name") != NULL)
        return false;
    const char *column = json_string_value(json_array_get(names, json_array_size(names) - 1));
    if (!add_term(w, ts, col, "=", NULL, 0, sluice_sqltree_json_str(from, "table_name"), column,
                  at_of(child)))
        return false;
    scope *inner = sluice_arena_calloc(w->arena, 1, sizeof(*inner));
    if (inner != NULL) {
        add_refs(w, inner, from);
        add_conjuncts(inner, json_object_get(node, "where_clause"));
        attach_filters(w, inner, 0, ts);
    }
    return true;
}

/* True when conjunct c became terms of ref at. */
static bool conjunct_terms(walk *w, const scope *sc, size_t at, const json_t *c, terms *ts)
{
    if (sluice_sqltree_json_is(c, "class", "COMPARISON"))
        return comparison_term(w, sc, at, c, ts);
    if (sluice_sqltree_json_is(c, "type", "COMPARE_IN"))
        return in_term(w, sc, at, c, ts);
    if (sluice_sqltree_json_is(c, "type", "COMPARE_BETWEEN"))
        return between_term(w, sc, at, c, ts);
    if (sluice_sqltree_json_is(c, "class", "SUBQUERY"))
        return subquery_term(w, sc, at, c, ts);
    return false;
}

/* ---- LIMIT ------------------------------------------------------------------------------------
 */

/* The LIMIT of a plain projection (columns or *, no DISTINCT/ORDER/GROUP/HAVING/OFFSET), or 0. */
static int64_t plain_limit(const json_t *node)
{
    if (json_object_get(node, "group_expressions") != NULL ||
        json_object_get(node, "having") != NULL || json_object_get(node, "qualify") != NULL ||
        json_object_get(node, "sample") != NULL || json_object_get(node, "cte_map") != NULL)
        return 0;
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(node, "select_list"), i,
                       e) if (!sluice_sqltree_json_is(e, "class", "COLUMN_REF") &&
                              !sluice_sqltree_json_is(e, "class", "STAR")) return 0;
    int64_t limit = 0;
    json_array_foreach(json_object_get(node, "modifiers"), i, e)
    {
        const json_t *l = json_object_get(e, "limit");
        if (!sluice_sqltree_json_is(e, "type", "LIMIT_MODIFIER") ||
            json_object_get(e, "offset") != NULL || !sluice_sqltree_json_is(l, "class", "CONSTANT"))
            return 0;
        double d = json_number_value(json_object_get(json_object_get(l, "value"), "value"));
        if (d < 1 || d > 1e12 || d != floor(d))
            return 0;
        limit = (int64_t)d;
    }
    return limit;
}

/* ---- needs ------------------------------------------------------------------------------------
 */

static bool same_term(const sluice_qm_term *a, const sluice_qm_term *b)
{
    bool same = strcasecmp(a->column, b->column) == 0 && strcmp(a->op, b->op) == 0 &&
                a->value_count == b->value_count;
    for (size_t v = 0; same && v < a->value_count; v++)
        same = strcmp(a->values[v], b->values[v]) == 0;
    return same;
}

static bool same_list(const sluice_qm_term *a, size_t na, const sluice_qm_term *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!same_term(&a[i], &b[i]))
            return false;
    return true;
}

/* Same terms, and for JOIN/IN terms the same other table, column and narrowing filters: only
 * then does one load serve both uses of the source. */
static bool same_terms(const sluice_qm_need *n, const terms *ts)
{
    if (!same_list(n->terms, n->term_count, ts->items, ts->count))
        return false;
    for (size_t i = 0; i < ts->count; i++) {
        if ((n->from_table[i] == NULL) != (ts->from_table[i] == NULL))
            return false;
        if (n->from_table[i] != NULL && (strcasecmp(n->from_table[i], ts->from_table[i]) != 0 ||
                                         strcasecmp(n->from_column[i], ts->from_column[i]) != 0 ||
                                         !same_list(n->from_filters[i], n->from_filter_count[i],
                                                    ts->from_filters[i], ts->from_filter_count[i])))
            return false;
    }
    return true;
}

static sluice_status
record(walk *w, const sluice_config_source *src, const terms *ts, int64_t limit)
{
    sluice_qm_need *n = NULL;
    for (size_t i = 0; i < w->count && n == NULL; i++)
        if (w->needs[i].source == src)
            n = &w->needs[i];
    if (n != NULL) {
        n->refs++;
        n->limit = 0; /* two uses of one table: neither may cut it short */
        if (!same_terms(n, ts)) {
            n->conflict = true;
            n->term_count = 0;
        }
        return SLUICE_OK;
    }
    if (w->count == SLUICE_QM_PUSHDOWN_MAX_SOURCES)
        return sluice_error_set(w->err, w->arena, SLUICE_E_LIMIT,
                                "a query may name at most %u auto-loaded sources",
                                SLUICE_QM_PUSHDOWN_MAX_SOURCES);
    n = &w->needs[w->count++];
    n->source = src;
    n->refs = 1;
    n->limit = limit;
    n->terms = sluice_arena_calloc(w->arena, ts->count + 1, sizeof(*n->terms));
    n->from_table = sluice_arena_calloc(w->arena, ts->count + 1, sizeof(char *));
    n->from_column = sluice_arena_calloc(w->arena, ts->count + 1, sizeof(char *));
    n->from_filters = sluice_arena_calloc(w->arena, ts->count + 1, sizeof(*n->from_filters));
    n->from_filter_count = sluice_arena_calloc(w->arena, ts->count + 1, sizeof(size_t));
    if (n->terms == NULL || n->from_table == NULL || n->from_column == NULL ||
        n->from_filters == NULL || n->from_filter_count == NULL)
        return SLUICE_E_NOMEM;
    memcpy(n->from_filters, ts->from_filters, ts->count * sizeof(*n->from_filters));
    memcpy(n->from_filter_count, ts->from_filter_count, ts->count * sizeof(size_t));
    memcpy(n->terms, ts->items, ts->count * sizeof(*n->terms));
    memcpy(n->from_table, ts->from_table, ts->count * sizeof(char *));
    memcpy(n->from_column, ts->from_column, ts->count * sizeof(char *));
    n->term_count = ts->count;
    return SLUICE_OK;
}

/* Remembers the WITH names of node (statement-wide: a CTE name shadows the source anywhere below).
 */
static void note_ctes(walk *w, const json_t *node)
{
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(json_object_get(node, "cte_map"), "map"), i, e)
    {
        const char *name = json_string_value(json_object_get(e, "key"));
        if (name != NULL && w->cte_count < MAX_REFS)
            w->ctes[w->cte_count++] = name;
    }
}

static sluice_status select_node(walk *w, const json_t *node)
{
    note_ctes(w, node);
    scope sc = { .ref_count = 0 };
    add_refs(w, &sc, json_object_get(node, "from_table"));
    add_conjuncts(&sc, json_object_get(node, "where_clause"));
    for (size_t at = 0; at < sc.ref_count; at++) {
        if (sc.refs[at].source == NULL)
            continue;
        terms ts = { .count = 0 };
        size_t used = 0;
        for (size_t c = 0; c < sc.conj_count; c++)
            used += conjunct_terms(w, &sc, at, sc.conj[c], &ts);
        if (ts.count == SLUICE_QM_PUSHDOWN_MAX_TERMS)
            sc.overflow = true;
        int64_t limit =
            node == w->root && sc.ref_count == 1 && !sc.overflow && used == sc.conj_count
                ? plain_limit(node)
                : 0;
        sluice_status st = record(w, sc.refs[at].source, &ts, limit);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status visit(walk *w, const json_t *v, size_t depth)
{
    if (depth > SLUICE_QM_PUSHDOWN_MAX_DEPTH)
        return SLUICE_OK;
    sluice_status st = SLUICE_OK;
    if (json_is_object(v)) {
        if (sluice_sqltree_json_is(v, "type", "SELECT_NODE"))
            st = select_node(w, v);
        const char *key;
        const json_t *child;
        json_object_foreach((json_t *)v, key, child)
        {
            if (st != SLUICE_OK)
                break;
            st = visit(w, child, depth + 1);
        }
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *child;
        json_array_foreach(v, i, child)
        {
            if (st != SLUICE_OK)
                break;
            st = visit(w, child, depth + 1);
        }
    }
    return st;
}

sluice_status sluice_qm_pushdown(const json_t *tree,
                                 const sluice_qm_pushdown_env *env,
                                 sluice_qm_need **needs,
                                 size_t *count,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    *needs = NULL;
    *count = 0;
    walk w = { .env = env, .root = tree, .arena = arena, .err = err };
    w.needs = sluice_arena_calloc(arena, SLUICE_QM_PUSHDOWN_MAX_SOURCES, sizeof(*w.needs));
    if (w.needs == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = tree != NULL ? visit(&w, tree, 0) : SLUICE_OK;
    if (st != SLUICE_OK)
        return st;
    *needs = w.needs;
    *count = w.count;
    return SLUICE_OK;
}
