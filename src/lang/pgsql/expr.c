/*
 * expr.c — expressions of the PostgreSQL analyzer: name resolution of column references
 * against the scope chain, the base columns each expression is computed from (its lineage), and
 * the predicate rules for blocked columns (issue 8, docs/security.md):
 *
 *   | where a blocked column appears        | allowed                                        |
 *   |---------------------------------------|------------------------------------------------|
 *   | SELECT list (any expression)          | never (blocked_column)                         |
 *   | WHERE, ON, HAVING, FILTER             | bare, `=` or IS NOT DISTINCT FROM against a    |
 *   |                                       | base-table column, one parameter, one literal; |
 *   |                                       | IS [NOT] NULL; IN (SELECT one base column)     |
 *   | GROUP BY, GROUPING SETS               | bare                                           |
 *   | ORDER BY, DISTINCT ON, PARTITION BY,  | never (PG_STRICT)                              |
 *   | window ORDER, LIMIT/OFFSET, a set-    |                                                |
 *   | returning function's arguments        |                                                |
 *   | under OR, NOT, CASE, IS TRUE, a call  | never (PG_STRICT: only AND keeps the top level)|
 *   | IN / ANY / ALL / EXISTS subqueries    | only inside them under the same rules          |
 *   | a function, cast, LIKE, <, BETWEEN... | never                                          |
 *
 * A base-table column compared with a blocked one is blocked in turn (taint; frontend.c runs
 * another pass with it blocked, so the rules apply to it too).
 *
 * Does not own: FROM items and queries (query.c), the function allowlist (functions.c).
 */
#include "exec/executor.h"
#include "lang/pgsql/internal.h"

#include <string.h>
#include <strings.h>

bool sluice_pgsql_blocked(const pg_ctx *c, const char *base)
{
    if (sluice_codefacts_list_has(&c->tainted, base))
        return true;
    const char *dot = strrchr(base, '.');
    if (dot == NULL)
        return false;
    char table[256];
    size_t n = (size_t)(dot - base);
    if (n >= sizeof table)
        return true; /* fail closed on names we cannot hold */
    memcpy(table, base, n);
    table[n] = '\0';
    const char *column = dot + 1;
    if (sluice_exec_list_has_column(&c->cm->blocked_fields, table, column) ||
        sluice_exec_list_has_column(&c->cm->sql_blocked_columns, table, column))
        return true;
    for (size_t t = 0; c->schema != NULL && t < c->schema->table_count; t++) {
        const sluice_schema_table *st = &c->schema->tables[t];
        if (strcmp(st->name, table) != 0)
            continue;
        for (size_t i = 0; i < st->column_count; i++)
            if (strcmp(st->columns[i].name, column) == 0 && st->columns[i].blocked)
                return true;
    }
    return false;
}

bool sluice_pgsql_lineage_blocked(const pg_ctx *c, const sluice_codefacts_list *lineage)
{
    for (size_t i = 0; i < lineage->count; i++)
        if (sluice_pgsql_blocked(c, lineage->items[i]))
            return true;
    return false;
}

/* ---- name resolution ---- */

static const pg_col *col_in(const pg_rel *rel, const char *name)
{
    for (size_t i = 0; i < rel->count; i++)
        if (rel->cols[i].name != NULL && strcmp(rel->cols[i].name, name) == 0)
            return &rel->cols[i];
    return NULL;
}

static const pg_entry *entry_in(const pg_scope *s, const char *alias)
{
    for (size_t i = s->count; i-- > 0;)
        if (strcmp(s->entries[i].alias, alias) == 0)
            return &s->entries[i];
    return NULL;
}

/* Several FROM items have the column (a USING key, or a name PostgreSQL would call
 * ambiguous): the union of their lineage, never a bare base column unless all agree. */
static const pg_col *merged(pg_ctx *c, const pg_scope *s, const char *name, const pg_col *first)
{
    pg_col *m = sluice_arena_calloc(c->arena, 1, sizeof(*m));
    if (m == NULL) {
        c->nomem = true;
        return first;
    }
    m->name = first->name;
    m->base = first->base;
    for (size_t i = 0; i < s->count; i++) {
        const pg_col *x = col_in(&s->entries[i].rel, name);
        if (x == NULL)
            continue;
        sluice_pgsql_add_all(c, &m->lineage, &x->lineage);
        if (m->base != NULL && (x->base == NULL || strcmp(x->base, m->base) != 0))
            m->base = NULL;
    }
    return m;
}

const pg_col *sluice_pgsql_find_column(
    pg_ctx *c, const pg_scope *s, const char *qualifier, const char *name, json_t *body)
{
    for (const pg_scope *level = s; level != NULL; level = level->parent) {
        if (qualifier != NULL) {
            const pg_entry *e = entry_in(level, qualifier);
            if (e == NULL)
                continue;
            const pg_col *col = col_in(&e->rel, name);
            if (col == NULL)
                sluice_pgsql_violate(c, body, "unknown_column",
                                     "use the columns listed in the code-mode://schema resource",
                                     "%s has no column %s", qualifier, name);
            return col;
        }
        const pg_col *found = NULL;
        size_t hits = 0;
        for (size_t i = 0; i < level->count; i++) {
            const pg_col *col = col_in(&level->entries[i].rel, name);
            if (col != NULL && hits++ == 0)
                found = col;
        }
        if (hits == 1)
            return found;
        if (hits > 1)
            return merged(c, level, name, found);
        if (level->outputs != NULL && (found = col_in(level->outputs, name)) != NULL)
            return found;
    }
    return NULL;
}

/* ---- lineage ---- */

static void
walk(pg_ctx *c, const pg_scope *s, json_t *node, pg_mode mode, sluice_codefacts_list *out);

static void
walk_array(pg_ctx *c, const pg_scope *s, json_t *arr, pg_mode mode, sluice_codefacts_list *out)
{
    for (size_t i = 0; i < json_array_size(arr); i++)
        walk(c, s, json_array_get(arr, i), mode, out);
}

/* The rule's message, once per offending reference. */
static void refuse_blocked(pg_ctx *c, json_t *body, const char *what)
{
    sluice_pgsql_violate(
        c, body, "blocked_predicate",
        "compare a blocked column only bare with = to another table's column, a "
        "parameter or a literal (a join key or a lookup); never transform it, "
        "range-compare, pattern-match, order or partition by it",
        "blocked column %s is used in a way that can reveal its value: it may appear in "
        "a predicate only bare, with = or IS NOT DISTINCT FROM against a base-table "
        "column, one parameter or one literal",
        what);
}

/* Every column of an entry: a whole-row reference (`c`, `c.*`, row_to_json(c)). */
static void whole_row(pg_ctx *c, const pg_entry *e, sluice_codefacts_list *out)
{
    for (size_t i = 0; i < e->rel.count; i++)
        sluice_pgsql_add_all(c, out, &e->rel.cols[i].lineage);
}

/* A column reference: one column, or a whole row when the name is a FROM item's alias. *bare
 * gets the column when it is one (so = may compare it). */
static const pg_col *
column_ref(pg_ctx *c, const pg_scope *s, json_t *body, sluice_codefacts_list *out)
{
    json_t *fields = json_object_get(body, "fields");
    size_t n = json_array_size(fields);
    json_t *last = json_array_get(fields, n - 1);
    const char *qualifier = n >= 2 ? sluice_pgsql_string(json_array_get(fields, n - 2)) : NULL;
    if (n == 0 || n > 4 || (n >= 2 && qualifier == NULL)) {
        sluice_pgsql_violate(c, body, "unsupported_expression", NULL,
                             "a column reference is not resolvable");
        return NULL;
    }
    if (sluice_pgsql_node_body(last, "A_Star") != NULL || n == 1) {
        const char *alias = n == 1 ? sluice_pgsql_string(last) : qualifier;
        const pg_col *col =
            n == 1 && alias != NULL ? sluice_pgsql_find_column(c, s, NULL, alias, body) : NULL;
        if (col != NULL) {
            sluice_pgsql_add_all(c, out, &col->lineage);
            return col;
        }
        for (const pg_scope *level = s; alias != NULL && level != NULL; level = level->parent) {
            const pg_entry *e = entry_in(level, alias);
            if (e != NULL) {
                whole_row(c, e, out);
                return NULL;
            }
        }
        sluice_pgsql_violate(c, body, "unknown_column",
                             "use the columns listed in the code-mode://schema resource",
                             "column or table %s is not known here", alias != NULL ? alias : "*");
        return NULL;
    }
    const char *name = sluice_pgsql_string(last);
    const pg_col *col = name != NULL ? sluice_pgsql_find_column(c, s, qualifier, name, body) : NULL;
    if (col != NULL)
        sluice_pgsql_add_all(c, out, &col->lineage);
    else if (name != NULL && c->facts->violation_count == 0)
        sluice_pgsql_violate(c, body, "unknown_column",
                             "use the columns listed in the code-mode://schema resource",
                             "column %s.%s is not known here", qualifier, name);
    return col;
}

/* The column of a bare reference that is one base-table column, else NULL (no violations). */
static const pg_col *bare_base(pg_ctx *c, const pg_scope *s, json_t *node)
{
    json_t *body = sluice_pgsql_node_body(node, "ColumnRef");
    if (body == NULL)
        return NULL;
    size_t before = c->facts->violation_count;
    sluice_codefacts_list ignore = { 0 };
    const pg_col *col = column_ref(c, s, body, &ignore);
    c->facts->violation_count = before; /* reported again by the normal walk */
    return col != NULL && col->base != NULL ? col : NULL;
}

static bool is_param_or_literal(json_t *node)
{
    json_t *cast = sluice_pgsql_node_body(node, "TypeCast");
    if (cast != NULL)
        node = json_object_get(cast, "arg");
    return sluice_pgsql_node_body(node, "A_Const") != NULL ||
           sluice_pgsql_node_body(node, "ParamRef") != NULL;
}

static void note_blocked_use(pg_ctx *c, const pg_col *col)
{
    sluice_pgsql_add(c, &c->facts->blocked_used, col->base);
    sluice_pgsql_add(c, &c->facts->fields_read, col->base);
    c->facts->blocked_in_predicate = true;
}

/* `blocked = other` in a predicate: true when it was judged here (allowed, or refused with a
 * violation); false when neither side is a bare blocked column (the normal walk judges it). */
static bool blocked_equality(pg_ctx *c, const pg_scope *s, json_t *body)
{
    json_t *l = json_object_get(body, "lexpr"), *r = json_object_get(body, "rexpr");
    const pg_col *lc = bare_base(c, s, l), *rc = bare_base(c, s, r);
    bool lb = lc != NULL && sluice_pgsql_blocked(c, lc->base);
    bool rb = rc != NULL && sluice_pgsql_blocked(c, rc->base);
    if (!lb && !rb)
        return false;
    const pg_col *blocked = lb ? lc : rc, *other = lb ? rc : lc;
    json_t *other_node = lb ? r : l;
    note_blocked_use(c, blocked);
    if (other != NULL) {
        note_blocked_use(c, other);
        if (!sluice_pgsql_blocked(c, other->base))
            sluice_pgsql_add(c, &c->new_taint, other->base);
    } else if (!is_param_or_literal(other_node)) {
        refuse_blocked(c, body, blocked->base);
    }
    return true;
}

static const char *op_name(json_t *body)
{
    json_t *name = json_object_get(body, "name");
    return json_array_size(name) > 0
               ? sluice_pgsql_string(json_array_get(name, json_array_size(name) - 1))
               : NULL;
}

static void
a_expr(pg_ctx *c, const pg_scope *s, json_t *body, pg_mode mode, sluice_codefacts_list *out)
{
    const char *kind = json_string_value(json_object_get(body, "kind"));
    const char *op = op_name(body);
    bool equality =
        kind != NULL && ((strcmp(kind, "AEXPR_OP") == 0 && op != NULL && strcmp(op, "=") == 0) ||
                         strcmp(kind, "AEXPR_NOT_DISTINCT") == 0);
    if (mode == PG_PREDICATE && equality && blocked_equality(c, s, body))
        return;
    pg_mode inner = mode == PG_VALUE ? PG_VALUE : PG_STRICT;
    walk(c, s, json_object_get(body, "lexpr"), inner, out);
    walk(c, s, json_object_get(body, "rexpr"), inner, out);
}

/* The WindowDef named name in the SELECT's WINDOW clause, or NULL. */
static json_t *named_window(const pg_scope *s, const char *name)
{
    for (size_t i = 0; s != NULL && name != NULL && i < json_array_size(s->windows); i++) {
        json_t *def = sluice_pgsql_node_body(json_array_get(s->windows, i), "WindowDef");
        const char *n = json_string_value(json_object_get(def, "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return def;
    }
    return NULL;
}

/* A window's PARTITION BY and ORDER BY, and those of the named windows it builds on (OVER w,
 * OVER (w ORDER BY x), WINDOW w2 AS (w ...)): the value depends on both, so both are lineage and
 * follow the predicate rules. */
static void
window_lineage(pg_ctx *c, const pg_scope *s, json_t *win, json_t *at, sluice_codefacts_list *out)
{
    for (size_t hops = 0; win != NULL; hops++) {
        walk_array(c, s, json_object_get(win, "partitionClause"), PG_STRICT, out);
        walk_array(c, s, json_object_get(win, "orderClause"), PG_STRICT, out);
        const char *ref = json_string_value(json_object_get(win, "refname"));
        if (ref == NULL && hops == 0)
            ref = json_string_value(json_object_get(win, "name")); /* OVER w */
        if (ref == NULL)
            return;
        json_t *next = named_window(s, ref);
        if (next == NULL || hops > json_array_size(s != NULL ? s->windows : NULL)) {
            sluice_pgsql_violate(c, at, "unknown_column",
                                 "define the window in this query's WINDOW clause",
                                 "window %s is not defined here", ref);
            return;
        }
        win = next;
    }
}

static void
func_call(pg_ctx *c, const pg_scope *s, json_t *body, pg_mode mode, sluice_codefacts_list *out)
{
    json_t *names = json_object_get(body, "funcname");
    size_t n = json_array_size(names);
    const char *name = n > 0 ? sluice_pgsql_string(json_array_get(names, n - 1)) : NULL;
    const char *schema = n > 1 ? sluice_pgsql_string(json_array_get(names, n - 2)) : NULL;
    if (name == NULL || n > 2) {
        sluice_pgsql_violate(c, body, "function_not_allowed", NULL,
                             "a function name is not resolvable");
        return;
    }
    sluice_pgsql_check_function(c, body, schema, name);
    /* a set-returning function's arguments decide how many rows come back */
    pg_mode inner = mode != PG_VALUE || sluice_pgsql_set_returning(name) ? PG_STRICT : PG_VALUE;
    walk_array(c, s, json_object_get(body, "args"), inner, out);
    walk_array(c, s, json_object_get(body, "agg_order"), mode == PG_VALUE ? PG_VALUE : PG_STRICT,
               out);
    walk(c, s, json_object_get(body, "agg_filter"), PG_PREDICATE, out);
    json_t *over = json_object_get(body, "over");
    if (over == NULL)
        return;
    json_t *win = sluice_pgsql_node_body(over, "WindowDef");
    sluice_sql_ext(c->facts)->window_count++;
    window_lineage(c, s, win != NULL ? win : over, body, out);
}

/* `a IN (SELECT b ...)` / `a = ANY (SELECT b ...)` in a predicate, with a and b both one
 * base-table column each: an equality like a join's, so a blocked a or b is allowed and the other
 * side is blocked in turn (taint). True when judged here. */
static bool blocked_in(pg_ctx *c, const pg_scope *s, json_t *body, const pg_rel *rel)
{
    const char *type = json_string_value(json_object_get(body, "subLinkType"));
    json_t *op = json_object_get(body, "operName");
    const char *opname = json_array_size(op) > 0
                             ? sluice_pgsql_string(json_array_get(op, json_array_size(op) - 1))
                             : "=";
    if (type == NULL || strcmp(type, "ANY_SUBLINK") != 0 || opname == NULL ||
        strcmp(opname, "=") != 0 || rel->count != 1 || rel->cols[0].base == NULL)
        return false;
    const pg_col *test = bare_base(c, s, json_object_get(body, "testexpr"));
    const pg_col *sub = &rel->cols[0];
    if (test == NULL)
        return false;
    bool tb = sluice_pgsql_blocked(c, test->base), sb = sluice_pgsql_blocked(c, sub->base);
    if (!tb && !sb)
        return false;
    note_blocked_use(c, test);
    note_blocked_use(c, sub);
    if (!tb)
        sluice_pgsql_add(c, &c->new_taint, test->base);
    if (!sb)
        sluice_pgsql_add(c, &c->new_taint, sub->base);
    return true;
}

static void
sublink(pg_ctx *c, const pg_scope *s, json_t *body, pg_mode mode, sluice_codefacts_list *out)
{
    sluice_sql_ext(c->facts)->subquery_count++;
    pg_rel rel =
        sluice_pgsql_query(c, s, s != NULL ? s->ctes : NULL, json_object_get(body, "subselect"));
    if (mode == PG_PREDICATE && blocked_in(c, s, body, &rel))
        return;
    walk(c, s, json_object_get(body, "testexpr"), mode == PG_VALUE ? PG_VALUE : PG_STRICT, out);
    const char *type = json_string_value(json_object_get(body, "subLinkType"));
    if (type != NULL && strcmp(type, "EXISTS_SUBLINK") == 0)
        return; /* a truth value: what the subquery returns is not part of it */
    sluice_codefacts_list values = { 0 };
    for (size_t i = 0; i < rel.count; i++)
        sluice_pgsql_add_all(c, &values, &rel.cols[i].lineage);
    if (mode != PG_VALUE && sluice_pgsql_lineage_blocked(c, &values))
        refuse_blocked(c, body, "returned by a subquery");
    sluice_pgsql_add_all(c, out, &values);
}

/* Nodes whose children are plain expressions, and where the children are. */
static const struct {
    const char *type;
    const char *keys[3];
} passthrough[] = {
    { "BoolExpr", { "args" } },
    { "NullTest", { "arg" } },
    { "BooleanTest", { "arg" } },
    { "TypeCast", { "arg" } },
    { "CollateClause", { "arg" } },
    { "NamedArgExpr", { "arg" } },
    { "CoalesceExpr", { "args" } },
    { "MinMaxExpr", { "args" } },
    { "NullIfExpr", { "args" } },
    { "RowExpr", { "args" } },
    { "A_ArrayExpr", { "elements" } },
    { "GroupingFunc", { "args" } },
    { "CaseExpr", { "arg", "args", "defresult" } },
    { "CaseWhen", { "expr", "result" } },
    { "SortBy", { "node" } },
    { "List", { "items" } },
    { "A_Indirection", { "arg", "indirection" } },
    { "A_Indices", { "lidx", "uidx" } },
};

/* The lineage of one column reference (in here), refused in a predicate when blocked. */
static void use_columns(
    pg_ctx *c, json_t *body, pg_mode mode, sluice_codefacts_list *here, sluice_codefacts_list *out)
{
    sluice_pgsql_add_all(c, &c->facts->fields_read, here);
    for (size_t i = 0; mode != PG_VALUE && i < here->count; i++)
        if (sluice_pgsql_blocked(c, here->items[i])) {
            refuse_blocked(c, body, here->items[i]);
            break;
        }
    sluice_pgsql_add_all(c, out, here);
}

const pg_col *sluice_pgsql_field_of_row(pg_ctx *c, const pg_scope *s, json_t *body)
{
    json_t *ref = sluice_pgsql_node_body(json_object_get(body, "arg"), "ColumnRef");
    json_t *ind = json_object_get(body, "indirection");
    json_t *fields = json_object_get(ref, "fields");
    const char *row =
        json_array_size(fields) == 1 ? sluice_pgsql_string(json_array_get(fields, 0)) : NULL;
    const char *field =
        json_array_size(ind) == 1 ? sluice_pgsql_string(json_array_get(ind, 0)) : NULL;
    if (row == NULL || field == NULL || sluice_pgsql_find_column(c, s, NULL, row, ref) != NULL)
        return NULL; /* not (alias).field: a composite column, an array subscript, ... */
    for (const pg_scope *level = s; level != NULL; level = level->parent)
        if (entry_in(level, row) != NULL)
            return sluice_pgsql_find_column(c, s, row, field, ref);
    return NULL;
}

/* The mode of a node's children: only AND keeps a predicate's top level (each conjunct still
 * one guess); OR, NOT, CASE, a test of truth or anything else around a comparison makes it
 * strict, since many guesses per query or one bit of every row could be read through it. */
static pg_mode nested_mode(const char *type, json_t *body, pg_mode mode)
{
    if (mode != PG_PREDICATE)
        return mode;
    const char *op = json_string_value(json_object_get(body, "boolop"));
    bool and = strcmp(type, "BoolExpr") == 0 && op != NULL && strcmp(op, "AND_EXPR") == 0;
    return and || strcmp(type, "List") == 0 ? PG_PREDICATE : PG_STRICT;
}

static void
walk(pg_ctx *c, const pg_scope *s, json_t *node, pg_mode mode, sluice_codefacts_list *out)
{
    if (node == NULL || json_is_null(node) || c->nomem)
        return;
    if (json_is_array(node)) {
        walk_array(c, s, node, mode, out);
        return;
    }
    const char *type = sluice_pgsql_node_type(node);
    json_t *body = type != NULL ? json_object_get(node, type) : NULL;
    if (type == NULL || (json_is_object(node) && json_object_size(node) == 0))
        return;
    if (++c->depth > SLUICE_PGSQL_MAX_DEPTH) {
        sluice_pgsql_violate(c, body, "too_complex", "simplify the expression",
                             "the SQL nests deeper than %u levels", SLUICE_PGSQL_MAX_DEPTH);
        c->depth--;
        return;
    }
    const pg_col *field = NULL, *bare = NULL;
    if (mode == PG_PREDICATE && strcmp(type, "NullTest") == 0 &&
        (bare = bare_base(c, s, json_object_get(body, "arg"))) != NULL &&
        sluice_pgsql_blocked(c, bare->base)) {
        note_blocked_use(c, bare); /* `blocked IS [NOT] NULL` filters by presence only */
    } else if (strcmp(type, "ColumnRef") == 0) {
        sluice_codefacts_list here = { 0 };
        column_ref(c, s, body, &here);
        use_columns(c, body, mode, &here, out);
    } else if (strcmp(type, "A_Indirection") == 0 &&
               (field = sluice_pgsql_field_of_row(c, s, body)) != NULL) {
        sluice_codefacts_list here = { 0 }; /* (c).name: that one column, not the whole row */
        sluice_pgsql_add_all(c, &here, &field->lineage);
        use_columns(c, body, mode, &here, out);
    } else if (strcmp(type, "A_Expr") == 0) {
        a_expr(c, s, body, mode, out);
    } else if (strcmp(type, "FuncCall") == 0) {
        func_call(c, s, body, mode, out);
    } else if (strcmp(type, "SubLink") == 0) {
        sublink(c, s, body, mode, out);
    } else if (strcmp(type, "A_Const") == 0 || strcmp(type, "ParamRef") == 0 ||
               strcmp(type, "SQLValueFunction") == 0 || strcmp(type, "String") == 0 ||
               strcmp(type, "Integer") == 0) {
        /* no columns */
    } else {
        size_t i = 0;
        while (i < sizeof passthrough / sizeof passthrough[0] &&
               strcmp(passthrough[i].type, type) != 0)
            i++;
        if (i == sizeof passthrough / sizeof passthrough[0])
            sluice_pgsql_violate(
                c, body, "unsupported_expression",
                "rewrite the expression with plain operators and allowed functions",
                "the analyzer does not resolve %s expressions", type);
        for (size_t k = 0; i < sizeof passthrough / sizeof passthrough[0] && k < 3 &&
                           passthrough[i].keys[k] != NULL;
             k++)
            walk(c, s, json_object_get(body, passthrough[i].keys[k]), nested_mode(type, body, mode),
                 out);
    }
    c->depth--;
}

void sluice_pgsql_expr(
    pg_ctx *c, const pg_scope *s, json_t *expr, pg_mode mode, sluice_codefacts_list *out)
{
    walk(c, s, expr, mode, out);
}
