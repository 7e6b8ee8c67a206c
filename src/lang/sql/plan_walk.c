/*
 * plan_walk.c — column lineage from DuckDB's bound logical plan (json_serialize_plan).
 *
 * Owns: binding the statement without executing it, and two passes over the plan JSON:
 *   1. a scan of the whole document: every base-table scan registers its columns, every
 *      function (scalar, aggregate, window, table; lambda bodies included) is checked against
 *      functions.c;
 *   2. a bottom-up walk computing, for each operator, the set of base columns each output
 *      column is computed from (research note sql-engines.md §3.2) and which base column it
 *      copies unchanged ("bare"). Operators, expression classes and keys the walker does not
 *      know are refused by name (fail closed): the plan format is internal to DuckDB and may
 *      change under us. The walk runs twice: the first collects every equality between bare
 *      base columns, whose closure from the blocked columns is the taint (a column compared
 *      with a blocked one is blocked too); the second judges every predicate and key touching a
 *      blocked or tainted column against the table in blocked_predicates.c.
 * Then: the root must have as many columns as the prepared statement, and no output may be
 * computed from a blocked or tainted field.
 * Does not own: the statement's written shape (parsetree.c) or config rules (rules.c).
 *
 * tag-lineage-ops: the operator table below, docs/sql.md "Operators" and the lineage cases in
 * tests/unit/data/sql_lineage/ change together.
 */
#include "core/limits.h"
#include "core/vec.h"
#include "lang/sql/internal.h"
#include "syntax/sqltree/duckdb_tree.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* --- lineage sets ------------------------------------------------------------------------- */

/* Per-output lineage: n columns, each a bitset of nwords words over the base columns; bare[i]
 * is the base column output i copies unchanged (NOT_BARE when computed or generated); mark[i]
 * is set on the result of an IN/EXISTS/ANY test (a MARK join), whose comparison the join
 * checked. */
#define NOT_BARE SIZE_MAX

typedef struct cols {
    size_t n;
    uint64_t *bits;
    size_t *bare;
    unsigned char *mark;
    double table_index; /* of the operator whose bindings these are (BOUND_COLUMN_REF), or -1 */
} cols;

typedef struct base_col {
    const char *table; /* "customers" or "schema.customers" */
    const char *column;
} base_col;

typedef struct cte_entry {
    double index;
    cols c;
} cte_entry;

typedef struct walker {
    sluice_sql_ctx *ctx;
    base_col *base; /* grown as scans register columns: most statements read a few dozen */
    size_t base_count;
    size_t base_cap;
    bool base_nomem; /* growing base failed: the walk answers SLUICE_E_NOMEM, as before it */
    size_t nwords;
    cte_entry *ctes;
    size_t cte_count;
    size_t cte_cap;
    const cols *delim[64]; /* DELIM_JOIN duplicate-eliminated columns, innermost last */
    size_t delim_depth;
    size_t depth;
    bool failed;
    /* taint through comparison (docs/security.md): blocked columns, then every base column an
     * equality links to one; taint_src[i] is the blocked column that made i sensitive */
    uint64_t *sensitive;
    size_t *taint_src;
    size_t (*edges)[2];
    size_t edge_count;
    size_t edge_cap;
    bool checking; /* second pass: uses are judged against the closed sensitive set */
    /* the first value computed from a sensitive column (judged after the outputs: note_computed) */
    const sluice_tree *computed;
    const uint64_t *computed_bits;
    bool unbounded; /* an object of the plan amplify.c does not judge bounded (scan's finding) */
} walker;

static bool fail(walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static uint64_t *set_at(walker *w, const cols *c, size_t i)
{
    return c->bits + i * w->nwords;
}

static bool cols_new(walker *w, cols *c, size_t n)
{
    c->n = n;
    c->bits = sluice_arena_calloc(w->ctx->arena, n == 0 ? 1 : n * w->nwords, sizeof(uint64_t));
    c->bare = sluice_arena_calloc(w->ctx->arena, n == 0 ? 1 : n, sizeof(size_t));
    c->mark = sluice_arena_calloc(w->ctx->arena, n == 0 ? 1 : n, 1);
    c->table_index = -1;
    if (c->bits == NULL || c->bare == NULL || c->mark == NULL)
        return fail(w, "%s", "out of memory while analyzing the plan");
    for (size_t i = 0; i < n; i++)
        c->bare[i] = NOT_BARE;
    return true;
}

static void set_or(walker *w, uint64_t *dst, const uint64_t *src)
{
    for (size_t k = 0; k < w->nwords; k++)
        dst[k] |= src[k];
}

/* Refuses the statement (once: the first reason is the one worth reading). */
static bool fail(walker *w, const char *fmt, ...)
{
    if (!w->failed) {
        va_list ap;
        va_start(ap, fmt);
        const char *msg = sluice_arena_vprintf(w->ctx->arena, fmt, ap);
        va_end(ap);
        sluice_codefacts_violate(w->ctx->facts, "unanalyzable", 0, 0,
                                 "rewrite the statement with plain SELECT, JOIN, GROUP BY, "
                                 "window functions and subqueries",
                                 "%s", msg != NULL ? msg : "the statement cannot be analyzed");
    }
    w->failed = true;
    return false;
}

/* Plan integers arrive as reals (see sluice_sql_serialize); valid indexes are small. */
static bool index_of(const sluice_tree *v, size_t limit, size_t *out)
{
    double d = sluice_tree_number_value(v);
    if (!sluice_tree_is_number(v) || d < 0 || d != floor(d) || d >= (double)limit)
        return false;
    *out = (size_t)d;
    return true;
}

/* Asked for every key of every node, mostly of keys that differ at once: the first byte is
 * compared before strcmp is called (the same answer, a fraction of the calls). */
static bool key_known(const char *key, const char *const *known)
{
    for (size_t i = 0; known[i] != NULL; i++)
        if (key[0] == known[i][0] && strcmp(key, known[i]) == 0)
            return true;
    return false;
}

/* Keys every plan node may carry. */
static const char *const common_keys[] = { "type",  "children",       "expression_class",
                                           "alias", "query_location", "return_type",
                                           NULL };

static bool fail_key(walker *w, const char *what, const char *key)
{
    const char *msg = sluice_arena_printf(w->ctx->arena, "%s (key %s)", what, key);
    return fail(w, "cannot analyze plan element %s; the statement is refused",
                msg != NULL ? msg : what);
}

/* Refuses any key outside known (and outside the keys every node may carry). */
static bool
keys_known(walker *w, const sluice_tree *node, const char *const *known, const char *what)
{
    size_t ki;
    const char *key;
    const sluice_tree *v;
    sluice_tree_foreach_member(node, ki, key, v)
    {
        (void)v;
        if (!key_known(key, common_keys) && !key_known(key, known))
            return fail_key(w, what, key);
    }
    return true;
}

/* --- expressions -------------------------------------------------------------------------- */

typedef struct expr_rule {
    const char *cls;
    const char *const child_keys[10]; /* keys holding expressions that feed the value */
    const char *const plain_keys[16]; /* keys that carry no data */
} expr_rule;

static const expr_rule expr_rules[] = {
    { "BOUND_REF", { NULL }, { "index", NULL } },
    { "BOUND_COLUMN_REF", { NULL }, { "binding", "depth", NULL } },
    { "BOUND_CONSTANT", { NULL }, { "value", NULL } },
    { "BOUND_PARAMETER", { NULL }, { "identifier", "parameter_data", NULL } },
    { "BOUND_FUNCTION",
      { "children", NULL },
      { "name", "arguments", "original_arguments", "catalog_name", "schema_name", "has_serialize",
        "is_operator", "function_data", NULL } },
    { "BOUND_AGGREGATE",
      { "children", "filter", "order_bys", NULL },
      { "name", "arguments", "original_arguments", "catalog_name", "schema_name", "has_serialize",
        "aggregate_type", "function_data", NULL } },
    { "BOUND_WINDOW",
      { "children", "partitions", "orders", "start_expr", "end_expr", "offset_expr", "default_expr",
        "filter_expr", "arg_orders", NULL },
      { "name", "arguments", "original_arguments", "catalog_name", "schema_name", "has_serialize",
        "ignore_nulls", "distinct", "start", "end", "exclude_clause", "function_data", NULL } },
    { "BOUND_CASE", { "case_checks", "else_expr", NULL }, { NULL } },
    { "BOUND_CAST", { "child", NULL }, { "try_cast", NULL } },
    { "BOUND_COMPARISON", { "left", "right", NULL }, { NULL } },
    { "BOUND_CONJUNCTION", { "children", NULL }, { NULL } },
    { "BOUND_OPERATOR", { "children", NULL }, { NULL } },
    { "BOUND_BETWEEN",
      { "input", "lower", "upper", NULL },
      { "lower_inclusive", "upper_inclusive", NULL } },
    { "BOUND_UNNEST", { "child", NULL }, { NULL } },
};

static bool expr_lineage(walker *w, const sluice_tree *e, const cols *in, uint64_t *out);

/* The input column a BOUND_REF (by position) or a BOUND_COLUMN_REF (by binding; DuckDB leaves
 * these unresolved under a table in-out function) refers to, e being of class cls (its
 * "expression_class", which the callers have read already). A binding is resolved only against
 * the operator directly below, at depth 0; anything else fails closed. */
static bool resolve_ref_of(const sluice_tree *e, const char *cls, const cols *in, size_t *idx)
{
    if (in == NULL)
        return false;
    if (strcmp(cls, "BOUND_REF") == 0)
        return index_of(sluice_tree_get(e, "index"), in->n, idx);
    if (strcmp(cls, "BOUND_COLUMN_REF") != 0 || in->table_index < 0)
        return false;
    const sluice_tree *b = sluice_tree_get(e, "binding");
    return sluice_tree_number_value(sluice_tree_get(e, "depth")) == 0 &&
           sluice_tree_number_value(sluice_tree_get(b, "table_index")) == in->table_index &&
           index_of(sluice_tree_get(b, "column_index"), in->n, idx);
}

static bool resolve_ref(const sluice_tree *e, const cols *in, size_t *idx)
{
    return resolve_ref_of(e, sluice_sqltree_str(e, "expression_class"), in, idx);
}

static bool nested_lineage(walker *w, const sluice_tree *v, const cols *in, uint64_t *out);

/* nested_lineage of a child, called only for a container: a number or string holds no
 * expression, and the call for one cost more than the answer. */
static bool child_lineage(walker *w, const sluice_tree *c, const cols *in, uint64_t *out)
{
    return !(sluice_tree_is_object(c) || sluice_tree_is_array(c)) || nested_lineage(w, c, in, out);
}

/* Every expression object inside v (not descending into the expressions found). */
static bool nested_lineage(walker *w, const sluice_tree *v, const cols *in, uint64_t *out)
{
    if (sluice_tree_is_object(v)) {
        if (sluice_tree_get(v, "expression_class") != NULL)
            return expr_lineage(w, v, in, out);
        size_t ki;
        const char *key;
        const sluice_tree *c;
        sluice_tree_foreach_member(v, ki, key, c)
        {
            (void)key;
            if (!child_lineage(w, c, in, out))
                return false;
        }
    } else if (sluice_tree_is_array(v)) {
        size_t i;
        const sluice_tree *c;
        sluice_tree_foreach(v, i, c)
        {
            if (!child_lineage(w, c, in, out))
                return false;
        }
    }
    return true;
}

static const expr_rule *rule_for(const char *cls)
{
    for (size_t i = 0; i < sizeof(expr_rules) / sizeof(expr_rules[0]); i++)
        if (strcmp(expr_rules[i].cls, cls) == 0)
            return &expr_rules[i];
    return NULL;
}

static bool expr_lineage(walker *w, const sluice_tree *e, const cols *in, uint64_t *out)
{
    const char *cls = sluice_sqltree_str(e, "expression_class");
    const expr_rule *r = rule_for(cls);
    if (r == NULL)
        return fail(w, "cannot analyze expression class %s; the statement is refused",
                    *cls != '\0' ? cls : "(none)");
    if (w->depth++ > SLUICE_LIMIT_SQL_PLAN_DEPTH)
        return fail(w, "%s", "the statement nests too deeply to analyze");
    size_t ki;
    const char *key;
    const sluice_tree *v;
    bool ok = true;
    sluice_tree_foreach_member(e, ki, key, v)
    {
        if (key_known(key, r->child_keys)) {
            ok = nested_lineage(w, v, in, out);
        } else if (!key_known(key, common_keys) && !key_known(key, r->plain_keys)) {
            ok = fail_key(w, cls, key);
        }
        if (!ok)
            break;
    }
    if (ok && (strcmp(cls, "BOUND_REF") == 0 || strcmp(cls, "BOUND_COLUMN_REF") == 0)) {
        size_t idx;
        if (!resolve_ref_of(e, cls, in, &idx))
            ok = fail(w, "%s", "a column reference in the plan points outside its input");
        else
            set_or(w, out, set_at(w, in, idx));
    }
    w->depth--;
    return ok;
}

/* e without the casts that keep every value distinct (sluice_sql_cast_is_lossless), and *cls, the
 * class of what is left (read on the way: resolve_ref_of takes it). */
static const sluice_tree *strip_lossless(const sluice_tree *e, const char **cls)
{
    while (strcmp(*cls = sluice_sqltree_str(e, "expression_class"), "BOUND_CAST") == 0 &&
           sluice_sql_cast_is_lossless(e))
        e = sluice_tree_get(e, "child");
    return e;
}

/* The input column e copies (a BOUND_REF, through lossless casts), or SIZE_MAX. */
static size_t ref_of(const sluice_tree *e, const cols *in)
{
    size_t idx;
    const char *cls;
    const sluice_tree *copied = strip_lossless(e, &cls);
    return resolve_ref_of(copied, cls, in, &idx) ? idx : SIZE_MAX;
}

/* Lineage of each expression of a list, appended as output columns starting at at. */
static bool list_lineage(walker *w, const sluice_tree *list, const cols *in, cols *out, size_t at)
{
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(list, i, e)
    {
        if (at + i >= out->n || !expr_lineage(w, e, in, set_at(w, out, at + i)))
            return w->failed ? false : fail(w, "%s", "an expression list has the wrong length");
        const char *cls;
        const sluice_tree *copied = strip_lossless(e, &cls);
        size_t r;
        if (resolve_ref_of(copied, cls, in, &r)) { /* ref_of(e, in), the casts stripped once */
            out->bare[at + i] = in->bare[r];
            out->mark[at + i] = copied == e && in->mark[r];
        }
    }
    return true;
}

/* Walks expressions only to validate them (ORDER BY, filters): their lineage is not output. */
static bool check_exprs(walker *w, const sluice_tree *v, const cols *in)
{
    uint64_t *scratch = sluice_arena_calloc(w->ctx->arena, w->nwords, sizeof(uint64_t));
    if (scratch == NULL) {
        w->failed = true;
        return false;
    }
    return nested_lineage(w, v, in, scratch);
}

static bool concat(walker *w, const cols *a, const cols *b, size_t extra, cols *out);

/* --- taint through comparison; blocked columns in predicates (blocked_predicates.c) ------- */

static bool bit_of(const uint64_t *bits, size_t id)
{
    return (bits[id / 64] >> (id % 64) & 1) != 0;
}

/* The first sensitive base column in bits, or SIZE_MAX. */
static size_t first_sensitive(const walker *w, const uint64_t *bits)
{
    for (size_t id = 0; id < w->base_count; id++)
        if (bit_of(bits, id) && bit_of(w->sensitive, id))
            return id;
    return SIZE_MAX;
}

static const char *qualified(walker *w, size_t id);

/* "customers.ssn", or for a tainted column "orders.id (compared with blocked field
 * customers.ssn)". */
static const char *field_name(walker *w, size_t id)
{
    if (id >= w->base_count)
        return "(a blocked field)";
    const char *q = qualified(w, id);
    if (w->taint_src[id] == id || w->taint_src[id] >= w->base_count)
        return q != NULL ? q : w->base[id].column;
    const char *src = qualified(w, w->taint_src[id]);
    const char *s = sluice_arena_printf(w->ctx->arena, "%s (compared with blocked field %s)",
                                        q != NULL ? q : w->base[id].column,
                                        src != NULL ? src : w->base[w->taint_src[id]].column);
    return s != NULL ? s : w->base[id].column;
}

/* The lineage of e over in, in fresh scratch memory; NULL after fail(). */
static uint64_t *lineage_of(walker *w, const sluice_tree *e, const cols *in)
{
    uint64_t *bits = sluice_arena_calloc(w->ctx->arena, w->nwords, sizeof(uint64_t));
    if (bits == NULL) {
        fail(w, "%s", "out of memory while analyzing the plan");
        return NULL;
    }
    return nested_lineage(w, e, in, bits) ? bits : NULL;
}

/* Records that base columns a and b are compared for equality (first pass). */
static bool add_edge(walker *w, size_t a, size_t b)
{
    if (w->checking || a == b)
        return true;
    size_t(*n)[2] =
        sluice_vec_grow(w->ctx->arena, w->edges, w->edge_count, &w->edge_cap, sizeof(*n), 16);
    if (n == NULL)
        return fail(w, "%s", "out of memory while analyzing the plan");
    w->edges = n;
    w->edges[w->edge_count][0] = a;
    w->edges[w->edge_count][1] = b;
    w->edge_count++;
    return true;
}

/* Taint closure: every base column an equality links (transitively) to a blocked one becomes
 * sensitive. Sets only grow, so this ends after at most base_count rounds. */
static void close_taint(walker *w)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < w->edge_count; i++)
            for (int k = 0; k < 2; k++) {
                size_t from = w->edges[i][k], to = w->edges[i][1 - k];
                if (bit_of(w->sensitive, from) && !bit_of(w->sensitive, to)) {
                    w->sensitive[to / 64] |= (uint64_t)1 << (to % 64);
                    w->taint_src[to] = w->taint_src[from];
                    changed = true;
                }
            }
    }
}

/* Applies the rule table to one use of the sensitive lineage bits (second pass only). */
static bool judge(walker *w, sluice_sql_pred_use use, const sluice_tree *node, const uint64_t *bits)
{
    if (!w->checking)
        return true;
    if (sluice_sql_pred_rule_for(use)->allowed) {
        w->ctx->facts->blocked_in_predicate = true;
        return true;
    }
    size_t before = w->ctx->facts->violation_count;
    if (sluice_sql_refuse_predicate(w->ctx, use, node, field_name(w, first_sensitive(w, bits))) !=
        SLUICE_OK)
        return fail(w, "%s", "out of memory while analyzing the plan");
    /* the same refusal found again (a recursive CTE is walked once per round) says nothing new */
    sluice_codefacts *f = w->ctx->facts;
    for (size_t i = 0; f->violation_count > before && i < before; i++)
        if (strcmp(f->violations[i].message, f->violations[before].message) == 0) {
            f->violation_count = before;
            break;
        }
    return true;
}

static bool any_sensitive(const walker *w, const uint64_t *bits)
{
    return first_sensitive(w, bits) != SIZE_MAX;
}

/* What one side of an equality is: a base column (*base set), a literal, a parameter, a
 * generated or computed column, or another expression. */
static sluice_sql_pred_use side_use(const sluice_tree *e, const cols *in, size_t *base)
{
    size_t r = ref_of(e, in);
    *base = NOT_BARE;
    if (r != SIZE_MAX) {
        *base = in->bare[r];
        return *base != NOT_BARE ? SLUICE_SQL_USE_EQ_COLUMN : SLUICE_SQL_USE_EQ_GENERATED;
    }
    while (strcmp(sluice_sqltree_str(e, "expression_class"), "BOUND_CAST") == 0)
        e = sluice_tree_get(e, "child"); /* a cast of one value is still one value */
    if (strcmp(sluice_sqltree_str(e, "expression_class"), "BOUND_CONSTANT") == 0)
        return SLUICE_SQL_USE_EQ_LITERAL;
    if (strcmp(sluice_sqltree_str(e, "expression_class"), "BOUND_PARAMETER") == 0)
        return SLUICE_SQL_USE_EQ_PARAM;
    return SLUICE_SQL_USE_EQ_EXPRESSION;
}

/* a = b (or IS NOT DISTINCT FROM), each side over its own input (a join has two). */
static bool equality(walker *w,
                     const sluice_tree *node,
                     const sluice_tree *a,
                     const cols *ain,
                     const sluice_tree *b,
                     const cols *bin)
{
    uint64_t *abits = lineage_of(w, a, ain), *bbits = abits != NULL ? lineage_of(w, b, bin) : NULL;
    if (bbits == NULL)
        return false;
    size_t ab, bb;
    sluice_sql_pred_use au = side_use(a, ain, &ab), bu = side_use(b, bin, &bb);
    if (au == SLUICE_SQL_USE_EQ_COLUMN && bu == SLUICE_SQL_USE_EQ_COLUMN && !add_edge(w, ab, bb))
        return false;
    bool as = any_sensitive(w, abits), bs = any_sensitive(w, bbits);
    if (as && au != SLUICE_SQL_USE_EQ_COLUMN)
        return judge(w, SLUICE_SQL_USE_FUNCTION, a, abits);
    if (bs && bu != SLUICE_SQL_USE_EQ_COLUMN)
        return judge(w, SLUICE_SQL_USE_FUNCTION, b, bbits);
    if (!as && !bs)
        return true;
    return judge(w, as ? bu : au, node, as ? abits : bbits);
}

static bool is_type(const sluice_tree *e, const char *cls, const char *type)
{
    return strcmp(sluice_sqltree_str(e, "expression_class"), cls) == 0 &&
           (type == NULL || strcmp(sluice_sqltree_str(e, "type"), type) == 0);
}

/* A reference to the result of a MARK join (IN / EXISTS / ANY), whose comparison was judged
 * at the join. */
static bool is_mark_ref(const sluice_tree *e, const cols *in)
{
    size_t idx;
    return resolve_ref(e, in, &idx) && in->mark[idx];
}

/* The bare column (through lossless casts) of in that e copies, tested for NULL. */
static bool is_null_test(const sluice_tree *e, const cols *in)
{
    if (!is_type(e, "BOUND_OPERATOR", "OPERATOR_IS_NULL") &&
        !is_type(e, "BOUND_OPERATOR", "OPERATOR_IS_NOT_NULL"))
        return false;
    const sluice_tree *ch = sluice_tree_get(e, "children");
    size_t r = sluice_tree_size(ch) == 1 ? ref_of(sluice_tree_at(ch, 0), in) : SIZE_MAX;
    return r != SIZE_MAX && in->bare[r] != NOT_BARE;
}

/* A value computed from a sensitive column is evaluated whether it is returned or not, and an
 * error raised (or not) while computing it answers a question about the value: a CTE's unused
 * CAST(CASE WHEN substr(ssn, 1, 1) > 'm' THEN 'a' ELSE '1' END AS INTEGER) is a binary search
 * (session 16's probe). The first such expression of list (columns at.. of out) is remembered;
 * sluice_sql_plan_walk refuses it unless an output already refused the statement for it. A bare
 * column (through lossless casts) and IS [NOT] NULL compute nothing more than the allowed uses. */
static void
note_computed(walker *w, const sluice_tree *list, const cols *in, const cols *out, size_t at)
{
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(list, i, e)
    {
        if (!w->checking || w->computed != NULL || at + i >= out->n)
            return;
        const uint64_t *bits = set_at(w, out, at + i);
        if (any_sensitive(w, bits) && out->bare[at + i] == NOT_BARE && !is_null_test(e, in)) {
            w->computed = e;
            w->computed_bits = bits;
        }
    }
}

/* The row of the table for a predicate over a sensitive column that is not an equality. */
static sluice_sql_pred_use predicate_use(const sluice_tree *e, const cols *in)
{
    const char *type = sluice_sqltree_str(e, "type");
    if (is_mark_ref(e, in) || (is_type(e, "BOUND_OPERATOR", "OPERATOR_NOT") &&
                               sluice_tree_size(sluice_tree_get(e, "children")) == 1 &&
                               is_mark_ref(sluice_tree_at(sluice_tree_get(e, "children"), 0), in)))
        return SLUICE_SQL_USE_SUBQUERY_TEST;
    if (is_type(e, "BOUND_COMPARISON", NULL))
        return strcmp(type, "COMPARE_NOTEQUAL") == 0 || strcmp(type, "COMPARE_DISTINCT_FROM") == 0
                   ? SLUICE_SQL_USE_NOT_EQUAL
                   : SLUICE_SQL_USE_RANGE;
    if (is_type(e, "BOUND_BETWEEN", NULL))
        return SLUICE_SQL_USE_RANGE;
    if (is_null_test(e, in))
        return SLUICE_SQL_USE_IS_NULL;
    if (is_type(e, "BOUND_OPERATOR", "COMPARE_IN") ||
        is_type(e, "BOUND_OPERATOR", "COMPARE_NOT_IN"))
        return SLUICE_SQL_USE_IN_LIST;
    if (is_type(e, "BOUND_FUNCTION", NULL) &&
        sluice_sql_is_pattern_function(sluice_sqltree_str(e, "name")))
        return SLUICE_SQL_USE_PATTERN;
    if (is_type(e, "BOUND_CONJUNCTION", NULL) || is_type(e, "BOUND_CASE", NULL) ||
        is_type(e, "BOUND_OPERATOR", "OPERATOR_NOT"))
        return SLUICE_SQL_USE_NESTED;
    return SLUICE_SQL_USE_FUNCTION;
}

/* One predicate (a WHERE/HAVING/QUALIFY conjunct, an ANY join's condition): AND is split. */
static bool predicate(walker *w, const sluice_tree *e, const cols *in)
{
    if (is_type(e, "BOUND_CONJUNCTION", "CONJUNCTION_AND")) {
        size_t i;
        const sluice_tree *c;
        sluice_tree_foreach(sluice_tree_get(e, "children"), i, c)
        {
            if (!predicate(w, c, in))
                return false;
        }
        return true;
    }
    if (is_type(e, "BOUND_COMPARISON", "COMPARE_EQUAL") ||
        is_type(e, "BOUND_COMPARISON", "COMPARE_NOT_DISTINCT_FROM"))
        return equality(w, e, sluice_tree_get(e, "left"), in, sluice_tree_get(e, "right"), in);
    uint64_t *bits = lineage_of(w, e, in);
    if (bits == NULL)
        return false;
    return !any_sensitive(w, bits) || judge(w, predicate_use(e, in), e, bits);
}

static bool predicates(walker *w, const sluice_tree *list, const cols *in)
{
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(list, i, e)
    {
        if (!predicate(w, e, in))
            return false;
    }
    return true;
}

/* GROUP BY, PARTITION BY, DISTINCT ON: a sensitive key must be the bare column (or its NULL
 * test): grouping compares values for equality only. */
static bool group_keys(walker *w, const sluice_tree *list, const cols *in)
{
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(list, i, e)
    {
        uint64_t *bits = lineage_of(w, e, in);
        if (bits == NULL)
            return false;
        if (!any_sensitive(w, bits))
            continue;
        size_t r = ref_of(e, in);
        sluice_sql_pred_use use = r != SIZE_MAX && in->bare[r] != NOT_BARE
                                      ? SLUICE_SQL_USE_GROUP_KEY
                                  : is_null_test(e, in) ? SLUICE_SQL_USE_IS_NULL
                                                        : SLUICE_SQL_USE_FUNCTION;
        if (!judge(w, use, e, bits))
            return false;
    }
    return true;
}

/* The first expression inside v (for the place a refusal points at), or v. */
static const sluice_tree *first_expression(const sluice_tree *v)
{
    if (sluice_tree_is_array(v))
        return sluice_tree_size(v) > 0 ? first_expression(sluice_tree_at(v, 0)) : v;
    const sluice_tree *e = sluice_tree_get(v, "expression");
    return e != NULL ? e : v;
}

/* ORDER BY and window ORDER BY ({type, null_order, expression} items), LIMIT/OFFSET values:
 * any sensitive lineage is refused with use. */
static bool
refuse_sensitive(walker *w, const sluice_tree *v, const cols *in, sluice_sql_pred_use use)
{
    if (v == NULL)
        return true;
    uint64_t *bits = lineage_of(w, v, in);
    if (bits == NULL)
        return false;
    return !any_sensitive(w, bits) || judge(w, use, first_expression(v), bits);
}

/* JOIN conditions ({left, right, comparison}, each side over its input) and an ANY join's
 * condition over both inputs. */
static bool join_predicates(walker *w, const sluice_tree *op, const cols *l, const cols *r)
{
    size_t i;
    const sluice_tree *c;
    sluice_tree_foreach(sluice_tree_get(op, "conditions"), i, c)
    {
        const char *cmp = sluice_sqltree_str(c, "comparison");
        const sluice_tree *left = sluice_tree_get(c, "left"), *right = sluice_tree_get(c, "right");
        if (strcmp(cmp, "COMPARE_EQUAL") == 0 || strcmp(cmp, "COMPARE_NOT_DISTINCT_FROM") == 0) {
            if (!equality(w, left, left, l, right, r))
                return false;
            continue;
        }
        uint64_t *lb = lineage_of(w, left, l), *rb = lb != NULL ? lineage_of(w, right, r) : NULL;
        if (rb == NULL)
            return false;
        bool ne = strcmp(cmp, "COMPARE_NOTEQUAL") == 0 || strcmp(cmp, "COMPARE_DISTINCT_FROM") == 0;
        if (any_sensitive(w, lb) || any_sensitive(w, rb))
            if (!judge(w, ne ? SLUICE_SQL_USE_NOT_EQUAL : SLUICE_SQL_USE_RANGE, left,
                       any_sensitive(w, lb) ? lb : rb))
                return false;
    }
    const sluice_tree *any = sluice_tree_get(op, "condition");
    if (any == NULL)
        return true;
    cols both;
    return concat(w, l, r, 0, &both) && predicate(w, any, &both);
}

/* WINDOW expressions: PARTITION BY keys, window ORDER BY, the FILTER clause. */
static bool window_predicates(walker *w, const sluice_tree *list, const cols *in)
{
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(list, i, e)
    {
        if (!group_keys(w, sluice_tree_get(e, "partitions"), in) ||
            !refuse_sensitive(w, sluice_tree_get(e, "orders"), in, SLUICE_SQL_USE_ORDER) ||
            !refuse_sensitive(w, sluice_tree_get(e, "arg_orders"), in, SLUICE_SQL_USE_ORDER))
            return false;
        const sluice_tree *filter = sluice_tree_get(e, "filter_expr");
        if (filter != NULL && !predicate(w, filter, in))
            return false;
    }
    return true;
}

/* --- operators ---------------------------------------------------------------------------- */

static bool walk_op(walker *w, const sluice_tree *op, cols *out);

static const sluice_tree *child(const sluice_tree *op, size_t i)
{
    return sluice_tree_at(sluice_tree_get(op, "children"), i);
}

static bool walk_child(walker *w, const sluice_tree *op, size_t i, cols *out)
{
    const sluice_tree *c = child(op, i);
    if (c == NULL)
        return fail(w, "%s", "a plan operator lacks an input it needs");
    return walk_op(w, c, out);
}

static bool concat(walker *w, const cols *a, const cols *b, size_t extra, cols *out)
{
    if (!cols_new(w, out, a->n + (b != NULL ? b->n : 0) + extra))
        return false;
    memcpy(out->bits, a->bits, a->n * w->nwords * sizeof(uint64_t));
    memcpy(out->bare, a->bare, a->n * sizeof(size_t));
    memcpy(out->mark, a->mark, a->n);
    if (b != NULL) {
        memcpy(out->bits + a->n * w->nwords, b->bits, b->n * w->nwords * sizeof(uint64_t));
        memcpy(out->bare + a->n, b->bare, b->n * sizeof(size_t));
        memcpy(out->mark + a->n, b->mark, b->n);
    }
    return true;
}

static bool base_index(walker *w, const char *table, const char *column, size_t *out)
{
    for (size_t i = 0; i < w->base_count; i++)
        if (strcmp(w->base[i].table, table) == 0 && strcmp(w->base[i].column, column) == 0) {
            *out = i;
            return true;
        }
    return false;
}

static const char *get_table_name(walker *w, const sluice_tree *op)
{
    const sluice_tree *fd = sluice_tree_get(op, "function_data");
    const char *schema = sluice_sqltree_str(fd, "schema");
    const char *table = sluice_sqltree_str(fd, "table");
    if (*schema == '\0' || strcmp(schema, "main") == 0)
        return table;
    return sluice_sql_dotted(w->ctx->arena, schema, table);
}

/* Output column i is input column idx, unchanged. */
static void copy_col(walker *w, cols *out, size_t i, const cols *in, size_t idx)
{
    set_or(w, set_at(w, out, i), set_at(w, in, idx));
    out->bare[i] = in->bare[idx];
    out->mark[i] = in->mark[idx];
}

/* A table in-out function (LATERAL unnest(...), unnest in FROM over a column): its columns
 * (column_indexes) are computed from every column of its input, then the input columns listed
 * in projected_input pass through. Only unnest is known to take a table input. */
static bool op_get_in_out(walker *w, const sluice_tree *op, cols *out)
{
    cols in;
    const sluice_tree *pi = sluice_tree_get(op, "projected_input");
    size_t nf = sluice_tree_size(sluice_tree_get(op, "column_indexes"));
    if (strcmp(sluice_sqltree_str(op, "name"), "unnest") != 0 ||
        sluice_tree_size(sluice_tree_get(op, "children")) != 1)
        return fail(w, "table function %s with a table input", sluice_sqltree_str(op, "name"));
    if (!walk_child(w, op, 0, &in) || !cols_new(w, out, nf + sluice_tree_size(pi)))
        return false;
    for (size_t i = 0; i < nf; i++)
        for (size_t j = 0; j < in.n; j++)
            set_or(w, set_at(w, out, i), set_at(w, &in, j));
    size_t i;
    const sluice_tree *v;
    bool *passed = in.n > 0 ? sluice_arena_calloc(w->ctx->arena, in.n, sizeof(bool)) : NULL;
    if (in.n > 0 && passed == NULL)
        return fail(w, "%s", "out of memory while analyzing the plan");
    sluice_tree_foreach(pi, i, v)
    {
        size_t idx;
        if (!index_of(v, in.n, &idx))
            return fail(w, "%s", "a projected table-function input outside its input");
        copy_col(w, out, nf + i, &in, idx);
        passed[idx] = true;
    }
    /* The argument (the first input column, and any input not passed through) decides how many
     * rows come back: as for UNNEST (op_append), it may not depend on a blocked column. */
    for (size_t j = 0; j < in.n; j++)
        if ((j == 0 || !passed[j]) && any_sensitive(w, set_at(w, &in, j)) &&
            !judge(w, SLUICE_SQL_USE_LIMIT, op, set_at(w, &in, j)))
            return false;
    return true;
}

static bool op_get(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index",
                                         "returned_types",
                                         "names",
                                         "name",
                                         "has_serialize",
                                         "function_data",
                                         "column_indexes",
                                         "extra_info",
                                         "ordinality_idx",
                                         "parameters",
                                         "arguments",
                                         "input_table_names",
                                         "input_table_types",
                                         "catalog_name",
                                         "schema_name",
                                         "named_parameters",
                                         "projected_input",
                                         NULL };
    if (!keys_known(w, op, known, "LOGICAL_GET"))
        return false;
    if (sluice_tree_size(sluice_tree_get(op, "children")) > 0)
        return op_get_in_out(w, op, out);
    if (sluice_tree_get(op, "projected_input") != NULL)
        return fail(w, "%s", "a table function projecting an input it does not have");
    const sluice_tree *ci = sluice_tree_get(op, "column_indexes");
    const sluice_tree *names = sluice_tree_get(op, "names");
    if (!cols_new(w, out, sluice_tree_size(ci)))
        return false;
    if (strcmp(sluice_sqltree_str(op, "name"), "seq_scan") != 0)
        return true; /* an allowlisted table function (range, ...): computed, no lineage */
    const char *table = get_table_name(w, op);
    size_t i;
    const sluice_tree *c;
    sluice_tree_foreach(ci, i, c)
    {
        size_t idx, id;
        if (!index_of(sluice_tree_get(c, "index"), sluice_tree_size(names), &idx))
            continue; /* the row id (count(*)): no column */
        const char *col = sluice_tree_string_value(sluice_tree_at(names, idx));
        if (table == NULL || col == NULL || !base_index(w, table, col, &id))
            return fail(w, "%s", "a table scan in the plan names an unknown column");
        set_at(w, out, i)[id / 64] |= (uint64_t)1 << (id % 64);
        out->bare[i] = id;
    }
    return true;
}

static bool op_projection(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "expressions", NULL };
    cols in;
    if (!keys_known(w, op, known, "LOGICAL_PROJECTION") || !walk_child(w, op, 0, &in))
        return false;
    const sluice_tree *ex = sluice_tree_get(op, "expressions");
    if (!cols_new(w, out, sluice_tree_size(ex)) || !list_lineage(w, ex, &in, out, 0))
        return false;
    note_computed(w, ex, &in, out, 0);
    out->table_index = sluice_tree_number_value(sluice_tree_get(op, "table_index"));
    return true;
}

/* FILTER.projection_map: the filter outputs only these input columns, in this order (a
 * LATERAL subquery with LIMIT is planned as a window and such a filter). Empty: all. */
static bool project_map(walker *w, const sluice_tree *op, const cols *in, cols *out)
{
    const sluice_tree *map = sluice_tree_get(op, "projection_map");
    if (sluice_tree_size(map) == 0)
        return concat(w, in, NULL, 0, out);
    if (!cols_new(w, out, sluice_tree_size(map)))
        return false;
    size_t i;
    const sluice_tree *v;
    sluice_tree_foreach(map, i, v)
    {
        size_t idx;
        if (!index_of(v, in->n, &idx))
            return fail(w, "%s", "a filter projecting a column outside its input");
        copy_col(w, out, i, in, idx);
    }
    return true;
}

/* FILTER, ORDER_BY, LIMIT, DISTINCT, SAMPLE: rows change, columns pass through. Their
 * expressions are predicates (FILTER: WHERE, HAVING, QUALIFY), orderings or keys, judged by the
 * blocked-predicate table. */
static bool op_pass(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = {
        "expressions",   "orders",         "limit_val",      "offset_val", "distinct_targets",
        "distinct_type", "sample_options", "projection_map", "order_by",   NULL
    };
    cols in;
    if (!keys_known(w, op, known, sluice_sqltree_str(op, "type")) || !walk_child(w, op, 0, &in))
        return false;
    if (!check_exprs(w, sluice_tree_get(op, "expressions"), &in) ||
        !check_exprs(w, sluice_tree_get(op, "orders"), &in) ||
        !check_exprs(w, sluice_tree_get(op, "distinct_targets"), &in) ||
        !check_exprs(w, sluice_tree_get(op, "limit_val"), &in) ||
        !check_exprs(w, sluice_tree_get(op, "offset_val"), &in) ||
        !check_exprs(w, sluice_tree_get(op, "order_by"), &in))
        return false;
    if (!predicates(w, sluice_tree_get(op, "expressions"), &in) ||
        !refuse_sensitive(w, sluice_tree_get(op, "orders"), &in, SLUICE_SQL_USE_ORDER) ||
        !refuse_sensitive(w, sluice_tree_get(op, "order_by"), &in, SLUICE_SQL_USE_ORDER) ||
        !group_keys(w, sluice_tree_get(op, "distinct_targets"), &in) ||
        !refuse_sensitive(w, sluice_tree_get(op, "limit_val"), &in, SLUICE_SQL_USE_LIMIT) ||
        !refuse_sensitive(w, sluice_tree_get(op, "offset_val"), &in, SLUICE_SQL_USE_LIMIT))
        return false;
    return project_map(w, op, &in, out);
}

static bool op_aggregate(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "expressions",
                                         "groups",
                                         "group_index",
                                         "aggregate_index",
                                         "groupings_index",
                                         "grouping_sets",
                                         "grouping_functions",
                                         "distinct_validity",
                                         NULL };
    cols in;
    if (!keys_known(w, op, known, "LOGICAL_AGGREGATE_AND_GROUP_BY") || !walk_child(w, op, 0, &in))
        return false;
    const sluice_tree *groups = sluice_tree_get(op, "groups");
    const sluice_tree *aggs = sluice_tree_get(op, "expressions");
    const sluice_tree *gfns = sluice_tree_get(op, "grouping_functions");
    size_t ng = sluice_tree_size(groups), na = sluice_tree_size(aggs);
    if (!cols_new(w, out, ng + na + sluice_tree_size(gfns)) ||
        !list_lineage(w, groups, &in, out, 0) || !list_lineage(w, aggs, &in, out, ng) ||
        !group_keys(w, groups, &in))
        return false;
    note_computed(w, aggs, &in, out, ng);
    size_t i;
    const sluice_tree *g;
    sluice_tree_foreach(gfns, i, g)
    {
        size_t j, gi;
        const sluice_tree *idx;
        sluice_tree_foreach(g, j, idx)
        {
            if (!index_of(idx, ng, &gi))
                return fail(w, "%s", "a GROUPING() refers outside the groups");
            set_or(w, set_at(w, out, ng + na + i), set_at(w, out, gi));
        }
    }
    return true;
}

/* WINDOW and UNNEST: the input columns, then one column per expression. An unnest's argument
 * decides how many rows come back, so it may not depend on a blocked column: count(*) over
 * unnest(range(ascii(substr(ssn, k, 1)))) spells the value a character per query. */
static bool op_append(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "expressions", "window_index", "unnest_index", NULL };
    cols in;
    if (!keys_known(w, op, known, sluice_sqltree_str(op, "type")) || !walk_child(w, op, 0, &in))
        return false;
    const sluice_tree *ex = sluice_tree_get(op, "expressions");
    if (strcmp(sluice_sqltree_str(op, "type"), "LOGICAL_UNNEST") == 0 &&
        !refuse_sensitive(w, ex, &in, SLUICE_SQL_USE_LIMIT))
        return false;
    if (!concat(w, &in, NULL, sluice_tree_size(ex), out) || !list_lineage(w, ex, &in, out, in.n) ||
        !window_predicates(w, ex, &in))
        return false;
    note_computed(w, ex, &in, out, in.n);
    return true;
}

/* A set operation that removes duplicates or matches rows (all but UNION ALL) compares column i
 * of every row with every other, on both sides: as GROUP BY, a blocked value takes part only
 * bare, and across the sides as an equality (base column to base column, which taints). Before,
 * count(*) over SELECT substr(ssn, 1, 1) ... INTERSECT SELECT 'q' answered a character guess,
 * and UNION's distinct count of substr(ssn, 1, k) the value a character at a time. */
static bool setop_compares(walker *w, const sluice_tree *op, const cols *l, const cols *r)
{
    for (size_t i = 0; i < l->n; i++) {
        uint64_t *lb = set_at(w, l, i), *rb = set_at(w, r, i);
        bool ls = any_sensitive(w, lb), rs = any_sensitive(w, rb);
        bool lbare = l->bare[i] != NOT_BARE, rbare = r->bare[i] != NOT_BARE;
        if (lbare && rbare && !add_edge(w, l->bare[i], r->bare[i]))
            return false;
        if (!ls && !rs)
            continue;
        if ((ls && !lbare) || (rs && !rbare)) {
            if (!judge(w, SLUICE_SQL_USE_FUNCTION, op, ls && !lbare ? lb : rb))
                return false;
            continue;
        }
        if (!judge(w, lbare && rbare ? SLUICE_SQL_USE_EQ_COLUMN : SLUICE_SQL_USE_EQ_GENERATED, op,
                   ls ? lb : rb))
            return false;
    }
    return true;
}

static bool op_setop(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "column_count", "setop_all",
                                         "allow_out_of_order", NULL };
    cols l, r;
    size_t sides = sluice_tree_size(sluice_tree_get(op, "children"));
    if (!keys_known(w, op, known, sluice_sqltree_str(op, "type")) || !walk_child(w, op, 0, &l))
        return false;
    if (sides < 2)
        return fail(w, "%s", "a set operation with one side");
    bool compares = strcmp(sluice_sqltree_str(op, "type"), "LOGICAL_UNION") != 0 ||
                    !sluice_tree_is_true(sluice_tree_get(op, "setop_all"));
    /* EXCEPT and INTERSECT return left values, but which rows survive depends on the right:
     * every side counts (conservative, like the research prototype). DuckDB plans a chain of
     * UNION ALLs as one operator with a child per side. */
    if (!concat(w, &l, NULL, 0, out))
        return false;
    for (size_t k = 1; k < sides; k++) {
        if (!walk_child(w, op, k, &r))
            return false;
        if (r.n != l.n)
            return fail(w, "%s", "a set operation whose sides differ in width");
        if (compares && !setop_compares(w, op, &l, &r))
            return false;
        for (size_t i = 0; i < l.n; i++) {
            set_or(w, set_at(w, out, i), set_at(w, &r, i));
            if (r.bare[i] != out->bare[i])
                out->bare[i] = NOT_BARE; /* a mix of sources is no one base column */
            out->mark[i] = 0;
        }
    }
    return true;
}

typedef enum join_shape { JOIN_BOTH, JOIN_LEFT, JOIN_RIGHT, JOIN_MARK } join_shape;

static bool join_shape_of(walker *w, const char *type, join_shape *out)
{
    static const struct {
        const char *name;
        join_shape shape;
    } shapes[] = {
        { "INNER", JOIN_BOTH },       { "LEFT", JOIN_BOTH }, { "RIGHT", JOIN_BOTH },
        { "OUTER", JOIN_BOTH },       { "FULL", JOIN_BOTH }, { "SINGLE", JOIN_BOTH },
        { "SEMI", JOIN_LEFT },        { "ANTI", JOIN_LEFT }, { "RIGHT_SEMI", JOIN_RIGHT },
        { "RIGHT_ANTI", JOIN_RIGHT }, { "MARK", JOIN_MARK },
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        if (strcmp(type, shapes[i].name) == 0) {
            *out = shapes[i].shape;
            return true;
        }
    return fail(w, "cannot analyze join type %s; the statement is refused", type);
}

/* Lineage of the join conditions (for the MARK column): each side against its own input. */
static bool
conditions(walker *w, const sluice_tree *op, const cols *l, const cols *r, uint64_t *out)
{
    size_t i;
    const sluice_tree *c;
    sluice_tree_foreach(sluice_tree_get(op, "conditions"), i, c)
    {
        static const char *const known[] = { "left", "right", "comparison", NULL };
        if (!keys_known(w, c, known, "join condition") ||
            !nested_lineage(w, sluice_tree_get(c, "left"), l, out) ||
            !nested_lineage(w, sluice_tree_get(c, "right"), r, out))
            return false;
    }
    const sluice_tree *any = sluice_tree_get(op, "condition");
    if (any != NULL) {
        cols both;
        return concat(w, l, r, 0, &both) && nested_lineage(w, any, &both, out);
    }
    return true;
}

static bool join_output(walker *w, const sluice_tree *op, const cols *l, const cols *r, cols *out)
{
    join_shape shape = JOIN_BOTH;
    const char *jt = sluice_sqltree_str(op, "join_type");
    if (*jt != '\0' && !join_shape_of(w, jt, &shape))
        return false;
    uint64_t *cond = sluice_arena_calloc(w->ctx->arena, w->nwords, sizeof(uint64_t));
    if (cond == NULL || !conditions(w, op, l, r, cond))
        return cond == NULL ? (w->failed = true, false) : false;
    if (!join_predicates(w, op, l, r))
        return false;
    switch (shape) {
    case JOIN_LEFT:
        return concat(w, l, NULL, 0, out);
    case JOIN_RIGHT:
        return concat(w, r, NULL, 0, out);
    case JOIN_MARK:
        if (!concat(w, l, NULL, 1, out))
            return false;
        set_or(w, set_at(w, out, l->n), cond);
        out->mark[l->n] = 1;
        return true;
    case JOIN_BOTH:
        break;
    }
    return concat(w, l, r, 0, out);
}

static bool op_join(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "join_type",     "mark_index", "conditions", "condition",
                                         "delim_flipped", "mark_types", NULL };
    cols l, r;
    if (!keys_known(w, op, known, sluice_sqltree_str(op, "type")) || !walk_child(w, op, 0, &l) ||
        !walk_child(w, op, 1, &r))
        return false;
    if (sluice_tree_is_true(sluice_tree_get(op, "delim_flipped")))
        return fail(w, "%s", "a flipped delim join");
    return join_output(w, op, &l, &r, out);
}

/* DELIM_JOIN: the left side's duplicate-eliminated columns feed every DELIM_GET inside the
 * right side (correlated subqueries). */
static bool op_delim_join(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = {
        "join_type",  "mark_index", "conditions", "delim_flipped", "duplicate_eliminated_columns",
        "mark_types", NULL
    };
    cols l, r, dup;
    if (!keys_known(w, op, known, "LOGICAL_DELIM_JOIN"))
        return false;
    if (sluice_tree_is_true(sluice_tree_get(op, "delim_flipped")))
        return fail(w, "%s", "a flipped delim join");
    if (!walk_child(w, op, 0, &l))
        return false;
    const sluice_tree *de = sluice_tree_get(op, "duplicate_eliminated_columns");
    if (!cols_new(w, &dup, sluice_tree_size(de)) || !list_lineage(w, de, &l, &dup, 0))
        return false;
    if (w->delim_depth >= sizeof(w->delim) / sizeof(w->delim[0]))
        return fail(w, "%s", "correlated subqueries nested too deeply");
    w->delim[w->delim_depth++] = &dup;
    bool ok = walk_child(w, op, 1, &r);
    w->delim_depth--;
    return ok && join_output(w, op, &l, &r, out);
}

static bool op_delim_get(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "chunk_types", NULL };
    if (!keys_known(w, op, known, "LOGICAL_DELIM_GET"))
        return false;
    if (w->delim_depth == 0)
        return fail(w, "%s", "a DELIM_GET outside a delim join");
    const cols *d = w->delim[w->delim_depth - 1];
    if (sluice_tree_size(sluice_tree_get(op, "chunk_types")) != d->n)
        return fail(w, "%s", "a DELIM_GET whose width differs from its delim join");
    if (!concat(w, d, NULL, 0, out))
        return false;
    out->table_index = sluice_tree_number_value(sluice_tree_get(op, "table_index"));
    return true;
}

static cte_entry *cte_find(walker *w, double index)
{
    for (size_t i = 0; i < w->cte_count; i++)
        if (w->ctes[i].index == index)
            return &w->ctes[i];
    return NULL;
}

static bool cte_set(walker *w, double index, const cols *c)
{
    cte_entry *e = cte_find(w, index);
    if (e == NULL) {
        cte_entry *n =
            sluice_vec_grow(w->ctx->arena, w->ctes, w->cte_count, &w->cte_cap, sizeof(*n), 8);
        if (n == NULL) {
            w->failed = true;
            return false;
        }
        w->ctes = n;
        e = &w->ctes[w->cte_count++];
        e->index = index;
    }
    e->c = *c;
    return true;
}

static bool op_materialized_cte(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "column_count", "ctename", "materialize",
                                         NULL };
    cols def;
    if (!keys_known(w, op, known, "LOGICAL_MATERIALIZED_CTE") || !walk_child(w, op, 0, &def) ||
        !cte_set(w, sluice_tree_number_value(sluice_tree_get(op, "table_index")), &def))
        return false;
    return walk_child(w, op, 1, out);
}

/* RECURSIVE_CTE: the anchor's lineage, then the recursive side's, repeated until nothing new
 * is added (sets only grow, so this ends; a round cap guards the walk). */
static bool op_recursive_cte(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index",   "column_count", "ctename", "union_all",
                                         "ref_recurring", "key_targets",  NULL };
    cols acc, step;
    double index = sluice_tree_number_value(sluice_tree_get(op, "table_index"));
    if (!keys_known(w, op, known, "LOGICAL_RECURSIVE_CTE") || !walk_child(w, op, 0, &acc) ||
        !cte_set(w, index, &acc))
        return false;
    for (unsigned round = 0; round < SLUICE_LIMIT_SQL_RECURSION_ROUNDS; round++) {
        if (!walk_child(w, op, 1, &step))
            return false;
        if (step.n != acc.n)
            return fail(w, "%s", "a recursive CTE whose sides differ in width");
        cols next;
        if (!concat(w, &acc, NULL, 0, &next))
            return false;
        for (size_t i = 0; i < acc.n; i++) {
            set_or(w, set_at(w, &next, i), set_at(w, &step, i));
            if (step.bare[i] != acc.bare[i])
                next.bare[i] = NOT_BARE;
            next.mark[i] = 0;
        }
        if (memcmp(next.bits, acc.bits, acc.n * w->nwords * sizeof(uint64_t)) == 0 &&
            memcmp(next.bare, acc.bare, acc.n * sizeof(size_t)) == 0) {
            *out = acc;
            /* UNION (or USING KEY) removes the rows seen before, as a set operation does */
            bool compares = !sluice_tree_is_true(sluice_tree_get(op, "union_all")) ||
                            sluice_tree_size(sluice_tree_get(op, "key_targets")) > 0;
            return !compares || setop_compares(w, op, &acc, &acc);
        }
        acc = next;
        if (!cte_set(w, index, &acc))
            return false;
    }
    return fail(w, "%s", "a recursive CTE whose lineage did not settle");
}

/* materialized_cte (DuckDB 1.4 writes it): how the CTE it reads is planned, MATERIALIZED or
 * inlined. It names no data: the reference's lineage is its CTE's, found by cte_index either
 * way. Only DuckDB's three values pass (a name it gains later is refused, as any unknown key). */
static bool cte_materialize_known(const sluice_tree *v)
{
    static const char *const values[] = { "CTE_MATERIALIZE_DEFAULT", "CTE_MATERIALIZE_ALWAYS",
                                          "CTE_MATERIALIZE_NEVER", NULL };
    return v == NULL ||
           (sluice_tree_is_string(v) && key_known(sluice_tree_string_value(v), values));
}

static bool op_cte_ref(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "cte_index",    "bound_columns",
                                         "chunk_types", "is_recurring", "materialized_cte",
                                         NULL };
    if (!keys_known(w, op, known, "LOGICAL_CTE_REF"))
        return false;
    if (!cte_materialize_known(sluice_tree_get(op, "materialized_cte")))
        return fail(w, "%s", "a CTE reference planned in a way sluice does not know");
    const cte_entry *e = cte_find(w, sluice_tree_number_value(sluice_tree_get(op, "cte_index")));
    if (e == NULL)
        return fail(w, "%s", "a CTE reference to an unknown CTE");
    if (sluice_tree_size(sluice_tree_get(op, "chunk_types")) != e->c.n)
        return fail(w, "%s", "a CTE reference whose width differs from its CTE");
    return concat(w, &e->c, NULL, 0, out);
}

/* CHUNK_GET (constant rows) and DUMMY_SCAN (one empty row): no data lineage. */
static bool op_constant(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "chunk_types", "collection", NULL };
    if (!keys_known(w, op, known, sluice_sqltree_str(op, "type")))
        return false;
    size_t n = sluice_tree_size(sluice_tree_get(op, "chunk_types"));
    return cols_new(w, out,
                    strcmp(sluice_sqltree_str(op, "type"), "LOGICAL_DUMMY_SCAN") == 0 ? 1 : n);
}

/* EXPRESSION_GET (VALUES): column i is computed from row expressions [*][i]. */
static bool op_expression_get(walker *w, const sluice_tree *op, cols *out)
{
    static const char *const known[] = { "table_index", "expr_types", "expressions", NULL };
    cols in;
    if (!keys_known(w, op, known, "LOGICAL_EXPRESSION_GET") || !walk_child(w, op, 0, &in) ||
        !cols_new(w, out, sluice_tree_size(sluice_tree_get(op, "expr_types"))))
        return false;
    size_t i;
    const sluice_tree *row;
    sluice_tree_foreach(sluice_tree_get(op, "expressions"), i, row)
    {
        size_t j;
        const sluice_tree *e;
        if (sluice_tree_size(row) != out->n)
            return fail(w, "%s", "a VALUES row whose width differs");
        sluice_tree_foreach(row, j, e)
        {
            if (!expr_lineage(w, e, &in, set_at(w, out, j)))
                return false;
            /* a VALUES cell is computed, even IS NULL: the rows of a column mix (note_computed) */
            if (w->checking && w->computed == NULL && any_sensitive(w, set_at(w, out, j))) {
                w->computed = e;
                w->computed_bits = set_at(w, out, j);
            }
        }
    }
    return true;
}

typedef bool (*op_fn)(walker *w, const sluice_tree *op, cols *out);

static const struct {
    const char *type;
    op_fn fn;
} op_table[] = {
    { "LOGICAL_GET", op_get },
    { "LOGICAL_PROJECTION", op_projection },
    { "LOGICAL_FILTER", op_pass },
    { "LOGICAL_ORDER_BY", op_pass },
    { "LOGICAL_LIMIT", op_pass },
    { "LOGICAL_DISTINCT", op_pass },
    { "LOGICAL_SAMPLE", op_pass },
    { "LOGICAL_AGGREGATE_AND_GROUP_BY", op_aggregate },
    { "LOGICAL_WINDOW", op_append },
    { "LOGICAL_UNNEST", op_append },
    { "LOGICAL_UNION", op_setop },
    { "LOGICAL_EXCEPT", op_setop },
    { "LOGICAL_INTERSECT", op_setop },
    { "LOGICAL_COMPARISON_JOIN", op_join },
    { "LOGICAL_ASOF_JOIN", op_join },
    { "LOGICAL_ANY_JOIN", op_join },
    { "LOGICAL_CROSS_PRODUCT", op_join },
    { "LOGICAL_DELIM_JOIN", op_delim_join },
    { "LOGICAL_DELIM_GET", op_delim_get },
    { "LOGICAL_MATERIALIZED_CTE", op_materialized_cte },
    { "LOGICAL_RECURSIVE_CTE", op_recursive_cte },
    { "LOGICAL_CTE_REF", op_cte_ref },
    { "LOGICAL_CHUNK_GET", op_constant },
    { "LOGICAL_DUMMY_SCAN", op_constant },
    { "LOGICAL_EXPRESSION_GET", op_expression_get },
};

static bool walk_op(walker *w, const sluice_tree *op, cols *out)
{
    if (w->failed)
        return false;
    const char *type = sluice_sqltree_str(op, "type");
    if (w->depth++ > SLUICE_LIMIT_SQL_PLAN_DEPTH)
        return fail(w, "%s", "the statement nests too deeply to analyze");
    bool ok = false, found = false;
    for (size_t i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++)
        if (strcmp(op_table[i].type, type) == 0) {
            found = true;
            ok = op_table[i].fn(w, op, out);
            break;
        }
    if (!found)
        ok = fail(w, "cannot analyze plan operator %s; the statement is refused",
                  *type != '\0' ? type : "(none)");
    w->depth--;
    return ok;
}

/* --- pass 1: scans and functions anywhere in the document ------------------------------ */

static void refuse_function(walker *w, const char *kind, const char *name, const char *why)
{
    const char *msg =
        sluice_arena_printf(w->ctx->arena, "%s %s() is not allowed: %s", kind, name, why);
    if (msg == NULL || sluice_codefacts_list_has(&w->ctx->facts->warnings, msg))
        return;
    for (size_t i = 0; i < w->ctx->facts->violation_count; i++)
        if (strcmp(w->ctx->facts->violations[i].message, msg) == 0)
            return;
    sluice_codefacts_violate(w->ctx->facts, "blocked_function", 0, 0,
                             "use the functions listed in docs/sql.md", "%s", msg);
}

static void register_base(walker *w, const sluice_tree *op)
{
    const char *table = get_table_name(w, op);
    const sluice_tree *names = sluice_tree_get(op, "names");
    size_t i;
    const sluice_tree *c;
    if (table == NULL)
        return;
    sluice_codefacts_list_add(w->ctx->facts, &w->ctx->facts->resources_read, table);
    sluice_tree_foreach(sluice_tree_get(op, "column_indexes"), i, c)
    {
        size_t idx, id;
        if (!index_of(sluice_tree_get(c, "index"), sluice_tree_size(names), &idx))
            continue;
        const char *col = sluice_tree_string_value(sluice_tree_at(names, idx));
        if (col == NULL || base_index(w, table, col, &id))
            continue;
        if (w->base_count >= SLUICE_LIMIT_SQL_BASE_COLUMNS) {
            fail(w, "%s", "a statement reading too many distinct columns");
            return;
        }
        base_col *grown =
            sluice_vec_grow(w->ctx->arena, w->base, w->base_count, &w->base_cap, sizeof *grown, 64);
        if (grown == NULL) {
            w->base_nomem = w->failed = true;
            return;
        }
        w->base = grown;
        w->base[w->base_count++] = (base_col){ table, col };
    }
}

/* DuckDB 1.5 plans every uncorrelated scalar subquery as CASE WHEN count > 1 THEN error('More
 * than one row returned by a subquery ...') ELSE first(x) END. That error() has one constant
 * argument, so it can carry no value. An error() the query text wrote is refused on the parse
 * tree (functions.c denylist), so only the planner's own, or a catalog macro's constant one,
 * reaches here. */
static bool planner_error(const sluice_tree *v)
{
    static const char prefix[] = "More than one row returned by a subquery used as an expression";
    const sluice_tree *ch = sluice_tree_get(v, "children");
    const sluice_tree *arg = sluice_tree_at(ch, 0);
    const char *text =
        sluice_tree_string_value(sluice_tree_get(sluice_tree_get(arg, "value"), "value"));
    return strcmp(sluice_sqltree_str(v, "name"), "error") == 0 && sluice_tree_size(ch) == 1 &&
           strcmp(sluice_sqltree_str(arg, "expression_class"), "BOUND_CONSTANT") == 0 &&
           text != NULL && strncmp(text, prefix, sizeof(prefix) - 1) == 0;
}

/* v's "expression_class" and "type" strings ("" when absent or not strings, as
 * sluice_sqltree_str answers) in one pass over its members: pass 1 asks both of every object. */
static void class_and_type(const sluice_tree *v, const char **cls, const char **type)
{
    const sluice_tree *c = NULL, *t = NULL;
    size_t ki;
    const char *key;
    const sluice_tree *m;
    sluice_tree_foreach_member(v, ki, key, m)
    {
        if (c == NULL && key[0] == 'e' && strcmp(key, "expression_class") == 0)
            c = m;
        else if (t == NULL && key[0] == 't' && strcmp(key, "type") == 0)
            t = m;
    }
    *cls = sluice_tree_is_string(c) ? sluice_tree_string_value(c) : "";
    *type = sluice_tree_is_string(t) ? sluice_tree_string_value(t) : "";
}

static void scan(walker *w, const sluice_tree *v, size_t depth);

/* A child scan would act on: a container, or anything past the depth limit (which marks the
 * plan unbounded); a number or string at a lesser depth would return at once. */
static void scan_child(walker *w, const sluice_tree *c, size_t depth)
{
    if (sluice_tree_is_object(c) || sluice_tree_is_array(c) ||
        depth > SLUICE_LIMIT_SQL_PLAN_DEPTH * 4)
        scan(w, c, depth);
}

/* What pass 1 checks of one object: a scan's table, a function's name. */
static void scan_object(walker *w, const sluice_tree *v, const char *cls, const char *type)
{
    if (*type != '\0' && strcmp(type, "LOGICAL_GET") == 0) {
        const char *name = sluice_sqltree_str(v, "name");
        if (strcmp(name, "seq_scan") == 0) {
            register_base(w, v);
        } else {
            const char *why = sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, name);
            if (why != NULL)
                refuse_function(w, "table function", name, why);
        }
    } else if (*cls != '\0' &&
               (strcmp(cls, "BOUND_FUNCTION") == 0 || strcmp(cls, "BOUND_AGGREGATE") == 0 ||
                (strcmp(cls, "BOUND_WINDOW") == 0 && sluice_tree_get(v, "name") != NULL))) {
        const char *name = sluice_sqltree_str(v, "name");
        const char *why = sluice_sql_function_refusal(SLUICE_SQL_FN_SCALAR, name);
        if (why != NULL && !planner_error(v))
            refuse_function(w, "function", name, why);
        if (strcmp(cls, "BOUND_AGGREGATE") == 0)
            sluice_sql_ext(w->ctx->facts)->aggregate_count++;
    }
}

/* Pass 1 also asks amplify.c of every object whether the plan stays bounded (only when the parse
 * tree was: engine_bounded needs both), so the plan is not walked a third time for it. */
static void scan(walker *w, const sluice_tree *v, size_t depth)
{
    if (depth > SLUICE_LIMIT_SQL_PLAN_DEPTH * 4 || w->failed) {
        w->unbounded = true; /* deeper than amplify.c judges */
        return;
    }
    if (sluice_tree_is_object(v)) {
        const char *cls, *type;
        class_and_type(v, &cls, &type);
        if (w->ctx->bind_bounded && !w->unbounded && !sluice_sql_plan_node_bounded(v, cls, type))
            w->unbounded = true;
        scan_object(w, v, cls, type);
        size_t ki;
        const char *key;
        const sluice_tree *c;
        sluice_tree_foreach_member(v, ki, key, c)
        {
            (void)key;
            scan_child(w, c, depth + 1);
        }
    } else if (sluice_tree_is_array(v)) {
        size_t i;
        const sluice_tree *c;
        sluice_tree_foreach(v, i, c)
        {
            scan_child(w, c, depth + 1);
        }
    }
}

/* --- blocked fields and results ------------------------------------------------------------ */

bool sluice_sql_is_blocked(const sluice_sql_ctx *ctx, const char *table, const char *column)
{
    const char *bare = strrchr(table, '.');
    bare = bare != NULL ? bare + 1 : table;
    for (size_t i = 0; i < ctx->blocked_count; i++) {
        const sluice_sql_blocked *b = &ctx->blocked[i];
        if (strcasecmp(b->column, column) != 0)
            continue;
        if (b->table == NULL || strcasecmp(b->table, table) == 0 || strcasecmp(b->table, bare) == 0)
            return true;
    }
    return false;
}

static const char *type_name(duckdb_type t)
{
    static const char *const names[] = {
        [DUCKDB_TYPE_BOOLEAN] = "BOOLEAN",
        [DUCKDB_TYPE_TINYINT] = "TINYINT",
        [DUCKDB_TYPE_SMALLINT] = "SMALLINT",
        [DUCKDB_TYPE_INTEGER] = "INTEGER",
        [DUCKDB_TYPE_BIGINT] = "BIGINT",
        [DUCKDB_TYPE_UTINYINT] = "UTINYINT",
        [DUCKDB_TYPE_USMALLINT] = "USMALLINT",
        [DUCKDB_TYPE_UINTEGER] = "UINTEGER",
        [DUCKDB_TYPE_UBIGINT] = "UBIGINT",
        [DUCKDB_TYPE_FLOAT] = "FLOAT",
        [DUCKDB_TYPE_DOUBLE] = "DOUBLE",
        [DUCKDB_TYPE_TIMESTAMP] = "TIMESTAMP",
        [DUCKDB_TYPE_DATE] = "DATE",
        [DUCKDB_TYPE_TIME] = "TIME",
        [DUCKDB_TYPE_INTERVAL] = "INTERVAL",
        [DUCKDB_TYPE_HUGEINT] = "HUGEINT",
        [DUCKDB_TYPE_VARCHAR] = "VARCHAR",
        [DUCKDB_TYPE_BLOB] = "BLOB",
        [DUCKDB_TYPE_DECIMAL] = "DECIMAL",
        [DUCKDB_TYPE_LIST] = "LIST",
        [DUCKDB_TYPE_STRUCT] = "STRUCT",
        [DUCKDB_TYPE_MAP] = "MAP",
        [DUCKDB_TYPE_UUID] = "UUID",
        [DUCKDB_TYPE_ENUM] = "ENUM",
        [DUCKDB_TYPE_TIMESTAMP_TZ] = "TIMESTAMP WITH TIME ZONE",
    };
    if ((size_t)t < sizeof(names) / sizeof(names[0]) && names[t] != NULL)
        return names[t];
    return "OTHER";
}

static const char *qualified(walker *w, size_t id)
{
    return sluice_sql_dotted(w->ctx->arena, w->base[id].table, w->base[id].column);
}

/* Records the outputs and their lineage; true when one was refused for a sensitive column. */
static bool report_outputs(walker *w, const cols *root, duckdb_prepared_statement ps)
{
    bool refused = false;
    sluice_codefacts *f = w->ctx->facts;
    uint64_t *returned = sluice_arena_calloc(w->ctx->arena, w->nwords, sizeof(uint64_t));
    if (returned == NULL) {
        f->incomplete = true;
        return false;
    }
    for (size_t i = 0; i < root->n; i++) {
        sluice_codefacts_output *o = NULL;
        sluice_codefacts_add_output(f, sluice_sql_column_name(w->ctx, ps, i),
                                    type_name(sluice_sql_column_type(w->ctx, ps, i)), &o);
        if (o == NULL)
            return false;
        const uint64_t *s = set_at(w, root, i);
        set_or(w, returned, s);
        for (size_t id = 0; id < w->base_count; id++) {
            if ((s[id / 64] >> (id % 64) & 1) == 0)
                continue;
            const char *q = qualified(w, id);
            if (q == NULL)
                f->incomplete = true; /* lineage would be missing a column */
            sluice_codefacts_list_add(f, &o->lineage, q);
            refused |= bit_of(w->sensitive, id);
            if (bit_of(w->sensitive, id) && w->taint_src[id] != id)
                sluice_codefacts_violate(
                    f, "blocked_column", 0, 0,
                    "return another column, or compare the blocked field with a literal or "
                    "parameter instead",
                    "output column '%s' is computed from %s, which the statement compares with "
                    "blocked field %s, so it is blocked too",
                    o->name, q != NULL ? q : w->base[id].column, field_name(w, w->taint_src[id]));
            else if (bit_of(w->sensitive, id))
                sluice_codefacts_violate(
                    f, "blocked_column", 0, 0,
                    sluice_arena_printf(w->ctx->arena,
                                        "remove it from the SELECT list or use * EXCLUDE (%s)",
                                        w->base[id].column),
                    "output column '%s' is computed from blocked field %s; blocked fields may "
                    "be used in WHERE/JOIN/GROUP BY but not returned",
                    o->name, q != NULL ? q : w->base[id].column);
        }
    }
    for (size_t id = 0; id < w->base_count; id++) {
        const char *q = qualified(w, id);
        if (q == NULL)
            f->incomplete = true;
        sluice_codefacts_list_add(f, &f->fields_read, q);
        if ((returned[id / 64] >> (id % 64) & 1) == 0 && bit_of(w->sensitive, id))
            sluice_codefacts_list_add(f, &f->blocked_used, q);
    }
    return refused;
}

/* The sensitive set starts as the blocked columns; each is its own taint source. */
static bool taint_init(walker *w)
{
    w->sensitive = sluice_arena_calloc(w->ctx->arena, w->nwords, sizeof(uint64_t));
    w->taint_src = sluice_arena_calloc(w->ctx->arena, w->base_count + 1, sizeof(size_t));
    if (w->sensitive == NULL || w->taint_src == NULL)
        return false;
    for (size_t id = 0; id < w->base_count; id++) {
        w->taint_src[id] = id;
        if (sluice_sql_is_blocked(w->ctx, w->base[id].table, w->base[id].column))
            w->sensitive[id / 64] |= (uint64_t)1 << (id % 64);
    }
    return true;
}

static bool any_set(const walker *w, const uint64_t *bits)
{
    for (size_t k = 0; k < w->nwords; k++)
        if (bits[k] != 0)
            return true;
    return false;
}

static bool has_parameters(const sluice_sql_ctx *ctx)
{
    size_t p = 0;
    while (p < ctx->code_len) {
        sluice_sql_token k;
        size_t n = sluice_sql_lex(ctx->code, ctx->code_len, p, &k);
        if (n == 0)
            break;
        if (k == SLUICE_SQL_TK_PARAM)
            return true;
        p += n;
    }
    return false;
}

sluice_status sluice_sql_plan_walk(sluice_sql_ctx *ctx, duckdb_prepared_statement prepared)
{
    const sluice_tree *doc = sluice_sql_serialize_plan(ctx);
    if (doc == NULL)
        return SLUICE_OK; /* a violation, or facts marked incomplete */
    if (sluice_tree_is_true(sluice_tree_get(doc, "error"))) {
        /* DuckDB cannot plan untyped parameters ("SELECT $1") and says so obscurely. */
        if (has_parameters(ctx))
            sluice_codefacts_violate(ctx->facts, "cannot_bind", 0, 0,
                                     "give each parameter a type, e.g. $1::INTEGER or "
                                     "$name::VARCHAR",
                                     "the analyzer cannot bind this statement's parameters "
                                     "(DuckDB: %s)",
                                     sluice_sqltree_str(doc, "error_message"));
        else
            sluice_codefacts_violate(ctx->facts, "cannot_bind", 0, 0,
                                     "check table and column names against the "
                                     "code-mode://schema resource",
                                     "%s", sluice_sqltree_str(doc, "error_message"));
        return SLUICE_OK;
    }
    const sluice_tree *plans = sluice_tree_get(doc, "plans");
    if (sluice_tree_size(plans) != 1) {
        sluice_codefacts_violate(ctx->facts, "unanalyzable", 0, 0, NULL,
                                 "the statement bound to %zu plans; exactly one is analyzed",
                                 sluice_tree_size(plans));
        return SLUICE_OK;
    }
    walker w = { .ctx = ctx };
    scan(&w, sluice_tree_at(plans, 0), 0);
    if (w.base_nomem)
        return SLUICE_E_NOMEM;
    w.nwords = w.base_count / 64 + 1;
    if (!w.failed && !taint_init(&w))
        return SLUICE_E_NOMEM;
    /* pass 1 collects the equalities between base columns; pass 2 judges every predicate
     * against the closed taint (a join higher in the plan can taint a column compared lower).
     * With no blocked column read, nothing is sensitive and pass 2 would judge nothing: pass 1's
     * lineage, the same walk over the same plan, is the answer. */
    cols root;
    bool ok = !w.failed && walk_op(&w, sluice_tree_at(plans, 0), &root);
    if (ok && any_set(&w, w.sensitive)) {
        close_taint(&w);
        w.checking = true;
        w.cte_count = 0;
        ok = walk_op(&w, sluice_tree_at(plans, 0), &root);
    }
    if (!ok) {
        /* a walk that stopped without saying why (an allocation failed): still refuse */
        if (ctx->facts->violation_count == 0)
            ctx->facts->incomplete = true;
        return SLUICE_OK;
    }
    if (root.n != ctx->result_columns) {
        sluice_codefacts_violate(ctx->facts, "unanalyzable", 0, 0, NULL,
                                 "the analysis found %zu result columns but DuckDB reports %zu; "
                                 "the statement is refused",
                                 root.n, ctx->result_columns);
        return SLUICE_OK;
    }
    if (!report_outputs(&w, &root, prepared) && w.computed != NULL &&
        sluice_sql_refuse_predicate(ctx, SLUICE_SQL_USE_FUNCTION, w.computed,
                                    field_name(&w, first_sensitive(&w, w.computed_bits))) !=
            SLUICE_OK)
        return SLUICE_E_NOMEM;
    ctx->facts->engine_bounded = ctx->bind_bounded && !w.unbounded;
    return SLUICE_OK;
}
