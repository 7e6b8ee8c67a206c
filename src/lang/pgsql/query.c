/*
 * query.c — queries of the PostgreSQL analyzer: SELECT (FROM items, WHERE, GROUP BY, HAVING,
 * ORDER BY, LIMIT, the SELECT list with `*` expanded from the catalog), VALUES, set operations,
 * CTEs (recursive ones to a fixed point), subqueries (LATERAL too), joins (ON, USING), views
 * (through their definitions, read from the catalog at start-up) and the set-returning functions
 * the allowlist names. Each yields a relation: columns with their lineage.
 *
 * Does not own: expressions and the predicate rules (expr.c).
 */
#include "core/vec.h"
#include "lang/pgsql/internal.h"

#include <stdio.h>
#include <string.h>

static pg_rel empty_rel(void)
{
    return (pg_rel){ 0 };
}

static pg_col *new_cols(pg_ctx *c, size_t n)
{
    pg_col *cols = sluice_arena_calloc(c->arena, n + 1, sizeof(*cols));
    if (cols == NULL)
        c->nomem = true;
    return cols;
}

static void add_entry(pg_ctx *c, pg_scope *s, const char *alias, pg_rel rel)
{
    pg_entry *n = sluice_vec_grow(c->arena, s->entries, s->count, &s->cap, sizeof(*n), 8);
    if (n == NULL) {
        c->nomem = true;
        return;
    }
    s->entries = n;
    s->entries[s->count++] = (pg_entry){ alias, rel };
}

/* Renames columns by an alias list (AS t(a, b)); fewer names keep the rest. */
static pg_rel rename_cols(pg_ctx *c, pg_rel rel, json_t *names, json_t *at)
{
    size_t n = json_array_size(names);
    if (n == 0)
        return rel;
    if (n > rel.count) {
        sluice_pgsql_violate(c, at, "unknown_column", NULL,
                             "the alias names %zu columns; there are %zu", n, rel.count);
        return rel;
    }
    pg_col *cols = new_cols(c, rel.count);
    if (cols == NULL)
        return rel;
    memcpy(cols, rel.cols, rel.count * sizeof(*cols));
    for (size_t i = 0; i < n; i++)
        cols[i].name = sluice_pgsql_string(json_array_get(names, i));
    return (pg_rel){ cols, rel.count };
}

static const sluice_schema_table *catalog_table(pg_ctx *c, const char *schema, const char *name)
{
    for (size_t i = 0; c->schema != NULL && i < c->schema->table_count; i++) {
        const sluice_schema_table *t = &c->schema->tables[i];
        if (!t->hidden && strcmp(t->name, name) == 0 &&
            (schema == NULL || (t->schema != NULL && strcmp(t->schema, schema) == 0)))
            return t;
    }
    return NULL;
}

/* A view's definition, resolved like a subquery; its columns keep the view's names. */
static pg_rel view_rel(pg_ctx *c, const sluice_schema_table *t, json_t *at)
{
    pg_rel rel = empty_rel();
    json_t *tree = NULL;
    if (sluice_pgsql_parse(c, t->definition, &tree) != SLUICE_OK) {
        c->nomem = true;
        return rel;
    }
    json_t *stmts = json_object_get(tree, "stmts");
    if (json_array_size(stmts) != 1) {
        sluice_pgsql_violate(c, at, "unresolvable_view", NULL,
                             "the definition of view %s cannot be read", t->name);
    } else {
        rel = sluice_pgsql_query(c, NULL, NULL, json_object_get(json_array_get(stmts, 0), "stmt"));
        if (rel.count != t->column_count)
            sluice_pgsql_violate(c, at, "unresolvable_view", NULL,
                                 "view %s resolves to %zu columns; the catalog lists %zu", t->name,
                                 rel.count, t->column_count);
        for (size_t i = 0; i < rel.count && i < t->column_count; i++)
            rel.cols[i].name = t->columns[i].name;
    }
    return rel; /* the tree lives as long as the arena: names point into it */
}

/* A base table's columns; the table counts as read, or as written (a change's target). */
static pg_rel table_rel(pg_ctx *c, const sluice_schema_table *t, bool written)
{
    pg_col *cols = new_cols(c, t->column_count);
    if (cols == NULL)
        return empty_rel();
    sluice_pgsql_add(c, written ? &c->facts->resources_written : &c->facts->resources_read,
                     t->name);
    for (size_t i = 0; i < t->column_count; i++) {
        cols[i].name = t->columns[i].name;
        cols[i].type = t->columns[i].type;
        cols[i].base = sluice_arena_printf(c->arena, "%s.%s", t->name, t->columns[i].name);
        if (cols[i].base == NULL)
            c->nomem = true;
        sluice_pgsql_add(c, &cols[i].lineage, cols[i].base);
    }
    return (pg_rel){ cols, t->column_count };
}

/* A NOT MATERIALIZED CTE is planned once per reference: a chain of them, each naming the one
 * before twice, has PostgreSQL plan 2^n copies (12 levels, 700 bytes: its backend grew until
 * the OOM killer took it, restarting the whole server). So its FROM items (nested copies included)
 * count at every reference, not where it is defined; the sum saturates past the bound. */
static void count_inlined_use(pg_ctx *c, const pg_cte *cte)
{
    size_t room = SLUICE_PGSQL_MAX_RELATIONS + 1;
    if (cte->inlined)
        c->relations = c->relations >= room || cte->relations >= room - c->relations
                           ? room
                           : c->relations + cte->relations;
}

static const pg_cte *find_cte(const pg_cte *ctes, const char *name)
{
    for (; ctes != NULL; ctes = ctes->next)
        if (strcmp(ctes->name, name) == 0)
            return ctes;
    return NULL;
}

static void range_var(pg_ctx *c, pg_scope *s, json_t *body)
{
    const char *name = json_string_value(json_object_get(body, "relname"));
    const char *schema = json_string_value(json_object_get(body, "schemaname"));
    json_t *alias = json_object_get(body, "alias");
    const char *alias_name = json_string_value(json_object_get(alias, "aliasname"));
    if (name == NULL || json_object_get(body, "catalogname") != NULL) {
        sluice_pgsql_violate(c, body, "unknown_table", NULL, "a table reference is not resolvable");
        return;
    }
    const pg_cte *cte = schema == NULL ? find_cte(s->ctes, name) : NULL;
    const sluice_schema_table *t = cte == NULL ? catalog_table(c, schema, name) : NULL;
    pg_rel rel;
    if (cte != NULL && cte->pending) {
        sluice_pgsql_violate(
            c, body, "unsupported_query", "define each CTE before the CTEs that use it",
            "CTE %s is used before it is defined (a forward reference in WITH RECURSIVE, "
            "or its own first term)",
            name);
        return;
    } else if (cte != NULL) {
        rel = cte->rel;
        count_inlined_use(c, cte);
    } else if (t == NULL) {
        sluice_pgsql_violate(c, body, "unknown_table",
                             "use the tables listed in the code-mode://schema resource",
                             "table %s%s%s is not known or not exposed",
                             schema != NULL ? schema : "", schema != NULL ? "." : "", name);
        return;
    } else if (t->is_view) {
        if (++c->depth > SLUICE_PGSQL_MAX_DEPTH) {
            sluice_pgsql_violate(c, body, "too_complex", NULL, "views nest too deeply");
            return;
        }
        rel = view_rel(c, t, body);
        c->depth--;
    } else {
        rel = table_rel(c, t, false);
    }
    add_entry(c, s, alias_name != NULL ? alias_name : name,
              rename_cols(c, rel, json_object_get(alias, "colnames"), body));
}

static void range_subselect(pg_ctx *c, pg_scope *s, json_t *body)
{
    bool lateral = json_is_true(json_object_get(body, "lateral"));
    json_t *alias = json_object_get(body, "alias");
    sluice_sql_ext(c->facts)->subquery_count++;
    pg_rel rel =
        sluice_pgsql_query(c, lateral ? s : s->parent, s->ctes, json_object_get(body, "subquery"));
    const char *name = json_string_value(json_object_get(alias, "aliasname"));
    add_entry(c, s, name != NULL ? name : "",
              rename_cols(c, rel, json_object_get(alias, "colnames"), body));
}

/* The columns one set-returning function in FROM yields: unnest(a, b, ...) one per argument,
 * the others one. */
static size_t function_width(json_t *call, const char *fname)
{
    size_t args = json_array_size(json_object_get(call, "args"));
    return strcmp(fname, "unnest") == 0 && args > 1 ? args : 1;
}

/* The OUT parameter name of a set-returning function's one column (json_array_elements ->
 * "value"), which the alias does not replace; NULL when the column takes the function's or the
 * alias's name. */
static const char *out_name(const char *fname)
{
    return strncmp(fname, "json", 4) == 0 && strstr(fname, "_array_elements") != NULL ? "value"
                                                                                      : NULL;
}

/* generate_series(1, 10) AS g(i), unnest(a, b) AS u(x, y), ROWS FROM (f(), g()), WITH
 * ORDINALITY: each column is computed from its function's arguments (never a base column, so it
 * can never stand in for a blocked one); the ordinality column from nothing. */
static void range_function(pg_ctx *c, pg_scope *s, json_t *body)
{
    json_t *fns = json_object_get(body, "functions");
    json_t *alias = json_object_get(body, "alias");
    json_t *colnames = json_object_get(alias, "colnames");
    const char *alias_name = json_string_value(json_object_get(alias, "aliasname"));
    bool ordinality = json_is_true(json_object_get(body, "ordinality"));
    size_t n = json_array_size(fns), width = ordinality ? 1 : 0;
    const char *first = NULL;
    for (size_t f = 0; f < n; f++) {
        json_t *items =
            json_object_get(sluice_pgsql_node_body(json_array_get(fns, f), "List"), "items");
        json_t *call = sluice_pgsql_node_body(json_array_get(items, 0), "FuncCall");
        json_t *names = json_object_get(call, "funcname");
        const char *fname = sluice_pgsql_string(json_array_get(names, json_array_size(names) - 1));
        if (call == NULL || fname == NULL || json_array_size(names) > 2 ||
            !sluice_pgsql_table_function_allowed(fname) ||
            json_array_size(json_object_get(
                sluice_pgsql_node_body(json_array_get(items, 1), "List"), "items")) > 0) {
            sluice_pgsql_violate(
                c, body, "function_not_allowed", "in FROM use generate_series(...) or unnest(...)",
                "this function in FROM is not allowed (only the set-returning functions "
                "on the allowlist)");
            return;
        }
        first = first != NULL ? first : fname;
        width += function_width(call, fname);
    }
    if (n == 0 || json_array_size(colnames) > width) {
        sluice_pgsql_violate(c, body, "unknown_column", NULL,
                             "the alias names %zu columns; there are %zu",
                             json_array_size(colnames), width);
        return;
    }
    pg_col *cols = new_cols(c, width);
    if (cols == NULL)
        return;
    size_t k = 0;
    for (size_t f = 0; f < n; f++) {
        json_t *items =
            json_object_get(sluice_pgsql_node_body(json_array_get(fns, f), "List"), "items");
        json_t *call = sluice_pgsql_node_body(json_array_get(items, 0), "FuncCall");
        json_t *names = json_object_get(call, "funcname");
        const char *fname = sluice_pgsql_string(json_array_get(names, json_array_size(names) - 1));
        sluice_codefacts_list lineage = { 0 };
        /* its arguments decide how many rows (and which) come back: no blocked column */
        sluice_pgsql_expr(c, s, json_array_get(items, 0), PG_STRICT, &lineage);
        for (size_t w = function_width(call, fname); w > 0; w--, k++) {
            cols[k].lineage = lineage;
            cols[k].name = out_name(fname) != NULL ? out_name(fname) : fname;
        }
    }
    if (ordinality)
        cols[k++].name = "ordinality";
    /* One column without an OUT name takes the alias's name, as PostgreSQL does. */
    if (width == 1 && alias_name != NULL && out_name(first) == NULL)
        cols[0].name = alias_name;
    for (size_t i = 0; i < json_array_size(colnames); i++)
        cols[i].name = sluice_pgsql_string(json_array_get(colnames, i));
    add_entry(c, s, alias_name != NULL ? alias_name : first, (pg_rel){ cols, width });
}

static void from_item(pg_ctx *c, pg_scope *s, json_t *node);

/* "o.customer_id = c.id" for the explanation, when the condition is that simple. */
static void note_join_key(pg_ctx *c, json_t *quals)
{
    json_t *e = sluice_pgsql_node_body(quals, "A_Expr");
    json_t *l = sluice_pgsql_node_body(json_object_get(e, "lexpr"), "ColumnRef");
    json_t *r = sluice_pgsql_node_body(json_object_get(e, "rexpr"), "ColumnRef");
    json_t *lf = json_object_get(l, "fields"), *rf = json_object_get(r, "fields");
    if (json_array_size(lf) != 2 || json_array_size(rf) != 2)
        return;
    char key[512];
    snprintf(key, sizeof key, "%s.%s = %s.%s", sluice_pgsql_string(json_array_get(lf, 0)),
             sluice_pgsql_string(json_array_get(lf, 1)), sluice_pgsql_string(json_array_get(rf, 0)),
             sluice_pgsql_string(json_array_get(rf, 1)));
    sluice_pgsql_add(c, &sluice_sql_ext(c->facts)->join_keys, key);
}

static void release_json(void *p)
{
    json_decref(p);
}

/* The names a NATURAL join equates: the columns both sides have, as a list of String nodes
 * (what USING (...) would be); NULL on NOMEM. */
static json_t *natural_keys(pg_ctx *c, const pg_scope *s, size_t left, size_t right)
{
    json_t *keys = json_array();
    if (keys == NULL || sluice_arena_cleanup_add(c->arena, release_json, keys) != SLUICE_OK) {
        c->nomem = true;
        return NULL;
    }
    for (size_t i = left; i < right; i++)
        for (size_t k = 0; k < s->entries[i].rel.count; k++) {
            const char *name = s->entries[i].rel.cols[k].name;
            bool both = false;
            for (size_t j = right; name != NULL && j < s->count; j++)
                for (size_t m = 0; m < s->entries[j].rel.count; m++)
                    both = both || (s->entries[j].rel.cols[m].name != NULL &&
                                    strcmp(s->entries[j].rel.cols[m].name, name) == 0);
            if (both)
                json_array_append_new(keys, json_pack("{s:{s:s}}", "String", "sval", name));
        }
    return keys;
}

/* Two base-table columns compared for equality, one of them blocked: both are used in a
 * predicate, and the other is tainted. */
static void equal_bases(pg_ctx *c, const pg_col *const sides[2])
{
    for (int side = 0; side < 2; side++) {
        sluice_pgsql_add(c, &c->facts->blocked_used, sides[side]->base);
        c->facts->blocked_in_predicate = true;
        if (!sluice_pgsql_blocked(c, sides[side]->base))
            sluice_pgsql_add(c, &c->new_taint, sides[side]->base);
    }
}

/* USING (k): an equality of the two sides' k, so the taint rule applies to it as to ON. */
static void
using_keys(pg_ctx *c, pg_scope *s, size_t left, size_t right, json_t *body, json_t *keys)
{
    for (size_t k = 0; k < json_array_size(keys); k++) {
        const char *name = sluice_pgsql_string(json_array_get(keys, k));
        const pg_col *cols[2] = { NULL, NULL };
        for (size_t i = left; name != NULL && i < s->count; i++)
            for (size_t j = 0; j < s->entries[i].rel.count; j++)
                if (strcmp(s->entries[i].rel.cols[j].name, name) == 0)
                    cols[i < right ? 0 : 1] = &s->entries[i].rel.cols[j];
        if (cols[0] == NULL || cols[1] == NULL) {
            sluice_pgsql_violate(c, body, "unknown_column", NULL,
                                 "USING (%s) names no column of both sides",
                                 name != NULL ? name : "?");
            continue;
        }
        bool blocked = sluice_pgsql_lineage_blocked(c, &cols[0]->lineage) ||
                       sluice_pgsql_lineage_blocked(c, &cols[1]->lineage);
        if (!blocked)
            continue;
        if (cols[0]->base == NULL || cols[1]->base == NULL) {
            sluice_pgsql_violate(c, body, "blocked_predicate", NULL,
                                 "USING (%s) compares a blocked column with a computed value",
                                 name);
            continue;
        }
        equal_bases(c, cols);
    }
}

static bool key_listed(json_t *keys, const char *name)
{
    for (size_t k = 0; name != NULL && k < json_array_size(keys); k++)
        if (strcmp(sluice_pgsql_string(json_array_get(keys, k)), name) == 0)
            return true;
    return false;
}

/* (a JOIN b ...) AS j: the join's entries become one, j, whose columns are the merged keys (their
 * lineage from both sides) and then every other column, as PostgreSQL orders them. */
static void collapse_join(pg_ctx *c, pg_scope *s, size_t left, json_t *keys, json_t *alias)
{
    size_t total = 0;
    for (size_t i = left; i < s->count; i++)
        total += s->entries[i].rel.count;
    pg_col *cols = new_cols(c, total);
    if (cols == NULL)
        return;
    size_t n = 0;
    for (size_t k = 0; k < json_array_size(keys); k++) {
        const char *name = sluice_pgsql_string(json_array_get(keys, k));
        pg_col *m = &cols[n++];
        m->name = name;
        bool first = true;
        for (size_t i = left; i < s->count; i++)
            for (size_t j = 0; j < s->entries[i].rel.count; j++) {
                const pg_col *x = &s->entries[i].rel.cols[j];
                if (x->name == NULL || strcmp(x->name, name) != 0)
                    continue;
                sluice_pgsql_add_all(c, &m->lineage, &x->lineage);
                m->base = first ? x->base
                          : m->base != NULL && x->base != NULL && strcmp(m->base, x->base) == 0
                              ? m->base
                              : NULL;
                first = false;
            }
    }
    for (size_t i = left; i < s->count; i++)
        for (size_t j = 0; j < s->entries[i].rel.count; j++)
            if (!key_listed(keys, s->entries[i].rel.cols[j].name))
                cols[n++] = s->entries[i].rel.cols[j];
    s->count = left;
    const char *name = json_string_value(json_object_get(alias, "aliasname"));
    add_entry(c, s, name != NULL ? name : "",
              rename_cols(c, (pg_rel){ cols, n }, json_object_get(alias, "colnames"), alias));
}

static void join_expr(pg_ctx *c, pg_scope *s, json_t *body)
{
    sluice_sql_ext(c->facts)->join_count++;
    if (json_object_get(body, "join_using_alias") != NULL) {
        sluice_pgsql_violate(c, body, "unsupported_join", "write JOIN ... USING (...) without AS",
                             "a USING alias is not analyzed");
        return;
    }
    size_t left = s->count;
    from_item(c, s, json_object_get(body, "larg"));
    size_t right = s->count;
    from_item(c, s, json_object_get(body, "rarg"));
    json_t *keys = json_is_true(json_object_get(body, "isNatural"))
                       ? natural_keys(c, s, left, right)
                       : json_object_get(body, "usingClause");
    using_keys(c, s, left, right, body, keys);
    json_t *quals = json_object_get(body, "quals");
    note_join_key(c, quals);
    sluice_codefacts_list ignore = { 0 };
    sluice_pgsql_expr(c, s, quals, PG_PREDICATE, &ignore);
    json_t *alias = json_object_get(body, "alias");
    if (alias != NULL)
        collapse_join(c, s, left, keys, alias);
}

static void from_item(pg_ctx *c, pg_scope *s, json_t *node)
{
    const char *type = sluice_pgsql_node_type(node);
    json_t *body = type != NULL ? json_object_get(node, type) : NULL;
    if (type != NULL && strcmp(type, "JoinExpr") != 0)
        c->relations++; /* planning bound: frontend.c checks SLUICE_PGSQL_MAX_RELATIONS */
    if (type != NULL && strcmp(type, "RangeVar") == 0)
        range_var(c, s, body);
    else if (type != NULL && strcmp(type, "RangeSubselect") == 0)
        range_subselect(c, s, body);
    else if (type != NULL && strcmp(type, "JoinExpr") == 0)
        join_expr(c, s, body);
    else if (type != NULL && strcmp(type, "RangeFunction") == 0)
        range_function(c, s, body);
    else
        sluice_pgsql_violate(c, body, "unsupported_from",
                             "read from tables, views, subqueries or CTEs",
                             "%s in FROM is not analyzed", type != NULL ? type : "this item");
}

void sluice_pgsql_from_list(pg_ctx *c, pg_scope *s, json_t *from)
{
    for (size_t i = 0; i < json_array_size(from); i++)
        from_item(c, s, json_array_get(from, i));
    if (json_array_size(from) > 1)
        sluice_sql_ext(c->facts)->join_count += json_array_size(from) - 1;
}

bool sluice_pgsql_target(pg_ctx *c, pg_scope *s, json_t *body)
{
    const char *name = json_string_value(json_object_get(body, "relname"));
    const char *schema = json_string_value(json_object_get(body, "schemaname"));
    const sluice_schema_table *t = name != NULL && json_object_get(body, "catalogname") == NULL
                                       ? catalog_table(c, schema, name)
                                       : NULL;
    if (t == NULL || t->is_view) {
        sluice_pgsql_violate(c, body, "unknown_table",
                             "change one of the tables listed in the code-mode://schema resource",
                             "%s %s is not a table that can be changed here",
                             t != NULL ? "view" : "table", name != NULL ? name : "?");
        return false;
    }
    const char *alias =
        json_string_value(json_object_get(json_object_get(body, "alias"), "aliasname"));
    add_entry(c, s, alias != NULL ? alias : name, table_rel(c, t, true));
    return true;
}

/* ---- the SELECT list ---- */

/* The last name of a names list (a function's or a type's). */
static const char *last_name(json_t *names)
{
    return sluice_pgsql_string(json_array_get(names, json_array_size(names) - 1));
}

/* The name PostgreSQL gives an unnamed SELECT-list value (FigureColname in its parser), and how
 * strongly (2: a column's or function's own name; 1: a fallback such as "case" or a cast's type;
 * 0: "?column?"). Names matter: a name sluice did not give a column would resolve elsewhere. */
static const char *derived_name(json_t *val, int *strength)
{
    static const struct {
        const char *type, *name;
        int strength;
    } fixed[] = {
        { "CaseExpr", "case", 1 },         { "A_ArrayExpr", "array", 1 },
        { "RowExpr", "row", 1 },           { "CoalesceExpr", "coalesce", 2 },
        { "GroupingFunc", "grouping", 2 },
    };
    const char *type = sluice_pgsql_node_type(val);
    json_t *body = type != NULL ? json_object_get(val, type) : NULL;
    *strength = 2;
    if (type == NULL) {
        *strength = 0;
        return "?column?";
    }
    if (strcmp(type, "ColumnRef") == 0) {
        const char *s = last_name(json_object_get(body, "fields"));
        if (s != NULL)
            return s;
    } else if (strcmp(type, "FuncCall") == 0) {
        const char *s = last_name(json_object_get(body, "funcname"));
        if (s != NULL)
            return s;
    } else if (strcmp(type, "A_Indirection") == 0) {
        const char *s = last_name(json_object_get(body, "indirection"));
        return s != NULL ? s : derived_name(json_object_get(body, "arg"), strength);
    } else if (strcmp(type, "TypeCast") == 0) {
        const char *s = derived_name(json_object_get(body, "arg"), strength);
        if (*strength > 1)
            return s;
        json_t *tn = json_object_get(body, "typeName");
        json_t *names = json_object_get(sluice_pgsql_node_body(tn, "TypeName") != NULL
                                            ? sluice_pgsql_node_body(tn, "TypeName")
                                            : tn,
                                        "names");
        s = last_name(names);
        *strength = 1;
        return s != NULL ? s : "?column?";
    } else if (strcmp(type, "MinMaxExpr") == 0) {
        const char *op = json_string_value(json_object_get(body, "op"));
        return op != NULL && strcmp(op, "IS_LEAST") == 0 ? "least" : "greatest";
    } else if (strcmp(type, "A_Expr") == 0) {
        const char *kind = json_string_value(json_object_get(body, "kind"));
        if (kind != NULL && strcmp(kind, "AEXPR_NULLIF") == 0)
            return "nullif";
    } else if (strcmp(type, "SubLink") == 0) {
        const char *kind = json_string_value(json_object_get(body, "subLinkType"));
        if (kind != NULL && strcmp(kind, "EXISTS_SUBLINK") == 0)
            return "exists";
        if (kind != NULL && strcmp(kind, "ARRAY_SUBLINK") == 0)
            return "array";
        if (kind != NULL && strcmp(kind, "EXPR_SUBLINK") == 0) {
            json_t *sub = sluice_pgsql_node_body(json_object_get(body, "subselect"), "SelectStmt");
            json_t *rt = sluice_pgsql_node_body(
                json_array_get(json_object_get(sub, "targetList"), 0), "ResTarget");
            const char *s = json_string_value(json_object_get(rt, "name"));
            if (s != NULL)
                return s;
            if (rt != NULL)
                return derived_name(json_object_get(rt, "val"), strength);
        }
    } else if (strcmp(type, "SQLValueFunction") == 0) {
        /* current_date, current_user, ...: PostgreSQL names it after the function; sluice
         * refuses to guess which (an unknown name is refused where it is used) */
        return "?column?";
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(type, fixed[i].type) == 0) {
            *strength = fixed[i].strength;
            return fixed[i].name;
        }
    *strength = 0;
    return "?column?";
}

/* The type of a SELECT-list value when its form says it: a cast names it, count() is bigint, a
 * literal has its kind; NULL otherwise (the engine's type is in the result's columns). */
static const char *value_type(json_t *val)
{
    json_t *cast = sluice_pgsql_node_body(val, "TypeCast");
    if (cast != NULL) {
        json_t *names = json_object_get(
            sluice_pgsql_node_body(json_object_get(cast, "typeName"), "TypeName"), "names");
        if (names == NULL)
            names = json_object_get(json_object_get(cast, "typeName"), "names");
        return sluice_pgsql_string(json_array_get(names, json_array_size(names) - 1));
    }
    json_t *fn = sluice_pgsql_node_body(val, "FuncCall");
    json_t *fname = json_object_get(fn, "funcname");
    const char *name = sluice_pgsql_string(json_array_get(fname, json_array_size(fname) - 1));
    if (name != NULL && strcmp(name, "count") == 0 && json_object_get(fn, "over") == NULL)
        return "bigint";
    json_t *k = sluice_pgsql_node_body(val, "A_Const");
    if (k == NULL)
        return NULL;
    if (json_object_get(k, "ival") != NULL)
        return "integer";
    if (json_object_get(k, "sval") != NULL)
        return "text";
    if (json_object_get(k, "boolval") != NULL)
        return "boolean";
    return json_object_get(k, "fval") != NULL ? "numeric" : NULL;
}

/* `*` or `t.*` in the SELECT list: the columns themselves, by name. */
static bool
expand_star(pg_ctx *c, const pg_scope *s, json_t *val, pg_col **cols, size_t *count, size_t *cap)
{
    json_t *ref = sluice_pgsql_node_body(val, "ColumnRef");
    json_t *f = json_object_get(ref, "fields");
    size_t n = json_array_size(f);
    if (n == 0 || sluice_pgsql_node_body(json_array_get(f, n - 1), "A_Star") == NULL)
        return false;
    const char *q = n >= 2 ? sluice_pgsql_string(json_array_get(f, n - 2)) : NULL;
    for (size_t i = 0; i < s->count; i++) {
        if (q != NULL && strcmp(s->entries[i].alias, q) != 0)
            continue;
        const pg_rel *rel = &s->entries[i].rel;
        pg_col *ncols =
            sluice_vec_reserve(c->arena, *cols, *count + rel->count, cap, sizeof(**cols), 8);
        if (ncols == NULL) {
            c->nomem = true;
            return true;
        }
        *cols = ncols;
        memcpy(*cols + *count, rel->cols, rel->count * sizeof(**cols));
        *count += rel->count;
        for (size_t j = 0; j < rel->count; j++)
            sluice_pgsql_add_all(c, &c->facts->fields_read, &rel->cols[j].lineage);
    }
    return true;
}

/* A value computed from a blocked column is evaluated whether it is returned or not, and an
 * error raised (or not) while computing it answers a question about the value: a materialized
 * CTE's unused CASE WHEN substr(ssn, 1, 1) > 'm' THEN name::int END is a binary search (session
 * 16's probe). The first such column is remembered; frontend.c refuses it unless an output
 * already refused the statement. A bare column and a bare IS [NOT] NULL compute nothing more
 * than the allowed uses. */
static void note_computed(pg_ctx *c, json_t *val, const pg_col *col)
{
    json_t *test = sluice_pgsql_node_body(val, "NullTest");
    if (c->computed != NULL || col->base != NULL ||
        (test != NULL &&
         sluice_pgsql_node_body(json_object_get(test, "arg"), "ColumnRef") != NULL) ||
        !sluice_pgsql_lineage_blocked(c, &col->lineage))
        return;
    c->computed = col->name != NULL ? col->name : "?";
}

static pg_rel target_list(pg_ctx *c, const pg_scope *s, json_t *targets)
{
    size_t cap = json_array_size(targets) + 1, count = 0;
    pg_col *cols = new_cols(c, cap);
    for (size_t i = 0; cols != NULL && i < json_array_size(targets); i++) {
        json_t *rt = sluice_pgsql_node_body(json_array_get(targets, i), "ResTarget");
        json_t *val = json_object_get(rt, "val");
        if (expand_star(c, s, val, &cols, &count, &cap))
            continue;
        pg_col *ncols = sluice_vec_grow(c->arena, cols, count, &cap, sizeof(*cols), 8);
        if (ncols == NULL) {
            c->nomem = true;
            break;
        }
        cols = ncols;
        pg_col *col = &cols[count++];
        const char *name = json_string_value(json_object_get(rt, "name"));
        int strength = 0;
        col->name = name != NULL ? name : derived_name(val, &strength);
        json_t *ref = sluice_pgsql_node_body(val, "ColumnRef");
        json_t *f = json_object_get(ref, "fields");
        if (ref != NULL && json_array_size(f) <= 2) {
            const pg_col *src = sluice_pgsql_find_column(
                c, s, json_array_size(f) == 2 ? sluice_pgsql_string(json_array_get(f, 0)) : NULL,
                sluice_pgsql_string(json_array_get(f, json_array_size(f) - 1)), ref);
            col->base = src != NULL ? src->base : NULL;
            col->type = src != NULL ? src->type : NULL;
        }
        if (col->type == NULL)
            col->type = value_type(val);
        sluice_pgsql_expr(c, s, val, PG_VALUE, &col->lineage);
        note_computed(c, val, col);
    }
    return (pg_rel){ cols, cols != NULL ? count : 0 };
}

/* ---- clauses ---- */

/* GROUP BY and DISTINCT ON items: a bare column groups rows without computing anything from
 * its value, so a blocked one is allowed there (and noted); GROUPING SETS, ROLLUP and CUBE
 * group by their members the same way. */
static void group_by(pg_ctx *c, const pg_scope *s, json_t *items)
{
    for (size_t i = 0; i < json_array_size(items); i++) {
        json_t *item = json_array_get(items, i);
        json_t *set = sluice_pgsql_node_body(item, "GroupingSet");
        json_t *row = sluice_pgsql_node_body(item, "RowExpr");
        if (set != NULL || row != NULL) {
            group_by(c, s,
                     json_object_get(set != NULL ? set : row, set != NULL ? "content" : "args"));
            continue;
        }
        json_t *ref = sluice_pgsql_node_body(item, "ColumnRef");
        sluice_codefacts_list lineage = { 0 };
        sluice_pgsql_expr(c, s, item, ref != NULL ? PG_VALUE : PG_STRICT, &lineage);
        for (size_t k = 0; ref != NULL && k < lineage.count; k++)
            if (sluice_pgsql_blocked(c, lineage.items[k])) {
                sluice_pgsql_add(c, &c->facts->blocked_used, lineage.items[k]);
                c->facts->blocked_in_predicate = true;
            }
    }
}

static void limits(pg_ctx *c, const pg_scope *s, json_t *body)
{
    sluice_codefacts_list ignore = { 0 };
    json_t *count = json_object_get(body, "limitCount");
    sluice_pgsql_expr(c, s, count, PG_STRICT, &ignore);
    sluice_pgsql_expr(c, s, json_object_get(body, "limitOffset"), PG_STRICT, &ignore);
    if (count == NULL || c->depth > 1)
        return;
    sluice_sql_facts *x = sluice_sql_ext(c->facts);
    x->has_limit = true;
    json_t *ival =
        json_object_get(json_object_get(sluice_pgsql_node_body(count, "A_Const"), "ival"), "ival");
    x->limit_value = json_is_integer(ival) ? json_integer_value(ival) : -1;
}

static void order_by(pg_ctx *c, pg_scope *s, const pg_rel *outputs, json_t *body)
{
    json_t *sort = json_object_get(body, "sortClause");
    if (json_array_size(sort) == 0)
        return;
    if (c->depth <= 1)
        sluice_sql_ext(c->facts)->has_order_by = true;
    s->outputs = outputs;
    sluice_codefacts_list ignore = { 0 };
    sluice_pgsql_expr(c, s, sort, PG_STRICT, &ignore);
    s->outputs = NULL;
}

/* UNION, INTERSECT and EXCEPT (ALL or not; all but UNION ALL) compare every row with the other
 * side's: as USING does, a blocked value takes part only bare against a base-table column (which
 * is tainted). Before, count(*) over SELECT substr(ssn, 1, 1) ... INTERSECT SELECT 'q' answered a
 * character guess, and EXCEPT the distinct prefixes (session 16's probe). */
static void set_operation_compares(
    pg_ctx *c, json_t *body, const pg_rel *l, const pg_rel *r, const pg_col *cols)
{
    const char *op = json_string_value(json_object_get(body, "op"));
    if (op != NULL && strcmp(op, "SETOP_UNION") == 0 && json_is_true(json_object_get(body, "all")))
        return;
    for (size_t i = 0; cols != NULL && i < l->count; i++) {
        const pg_col *sides[2] = { &l->cols[i], &r->cols[i] };
        if (!sluice_pgsql_lineage_blocked(c, &cols[i].lineage))
            continue;
        if (sides[0]->base == NULL || sides[1]->base == NULL) {
            sluice_pgsql_violate(c, body, "blocked_predicate",
                                 "compare the bare blocked column with another table's column, "
                                 "or use UNION ALL",
                                 "a set operation compares column %s, which is computed from a "
                                 "blocked column, row by row",
                                 cols[i].name != NULL ? cols[i].name : "?");
            return;
        }
        equal_bases(c, sides);
    }
}

static pg_rel set_operation(pg_ctx *c, const pg_scope *parent, const pg_cte *ctes, json_t *body)
{
    pg_rel l = sluice_pgsql_query(c, parent, ctes, json_object_get(body, "larg"));
    pg_rel r = sluice_pgsql_query(c, parent, ctes, json_object_get(body, "rarg"));
    if (l.count != r.count) {
        sluice_pgsql_violate(c, body, "unsupported_query", NULL,
                             "the two sides of a set operation return %zu and %zu columns", l.count,
                             r.count);
        return l;
    }
    pg_col *cols = new_cols(c, l.count);
    for (size_t i = 0; cols != NULL && i < l.count; i++) {
        cols[i].name = l.cols[i].name;
        sluice_pgsql_add_all(c, &cols[i].lineage, &l.cols[i].lineage);
        sluice_pgsql_add_all(c, &cols[i].lineage, &r.cols[i].lineage);
    }
    set_operation_compares(c, body, &l, &r, cols);
    pg_rel rel = { cols, cols != NULL ? l.count : 0 };
    pg_scope s = { .parent = parent, .ctes = ctes };
    order_by(c, &s, &rel, body);
    limits(c, &s, body);
    return rel;
}

/* VALUES rows: each value is an expression in the enclosing scope (its subqueries and window
 * references resolve there, never against a missing one). */
static pg_rel values_lists(pg_ctx *c, const pg_scope *s, json_t *lists)
{
    json_t *first =
        json_object_get(sluice_pgsql_node_body(json_array_get(lists, 0), "List"), "items");
    size_t n = json_array_size(first);
    pg_col *cols = new_cols(c, n);
    for (size_t i = 0; cols != NULL && i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "column%zu", i + 1);
        cols[i].name = sluice_arena_strdup(c->arena, name);
        for (size_t r = 0; r < json_array_size(lists); r++) {
            json_t *items =
                json_object_get(sluice_pgsql_node_body(json_array_get(lists, r), "List"), "items");
            sluice_pgsql_expr(c, s, json_array_get(items, i), PG_VALUE, &cols[i].lineage);
        }
        note_computed(c, NULL, &cols[i]); /* a VALUES cell is computed, even IS NULL */
    }
    return (pg_rel){ cols, cols != NULL ? n : 0 };
}

/* ---- CTEs ---- */

/* A recursive CTE's columns grow until the recursive term adds no lineage. visible: every CTE
 * of the list (WITH RECURSIVE shows them all to each other); cte itself is pending while its
 * first term resolves. */
static void recursive_cte(pg_ctx *c,
                          const pg_scope *parent,
                          const pg_cte *visible,
                          pg_cte *cte,
                          json_t *query,
                          json_t *names)
{
    json_t *body = sluice_pgsql_node_body(query, "SelectStmt");
    const char *op = json_string_value(json_object_get(body, "op"));
    if (op == NULL || strcmp(op, "SETOP_UNION") != 0) {
        cte->rel = sluice_pgsql_query(c, parent, visible, query);
        cte->pending = false;
        return;
    }
    cte->rel = rename_cols(c, sluice_pgsql_query(c, parent, visible, json_object_get(body, "larg")),
                           names, body);
    cte->pending = false;
    for (size_t pass = 0; pass < SLUICE_PGSQL_MAX_TAINT_PASSES; pass++) {
        pg_rel r = sluice_pgsql_query(c, parent, visible, json_object_get(body, "rarg"));
        bool grew = false;
        for (size_t i = 0; i < cte->rel.count && i < r.count; i++) {
            size_t before = cte->rel.cols[i].lineage.count;
            sluice_pgsql_add_all(c, &cte->rel.cols[i].lineage, &r.cols[i].lineage);
            grew = grew || cte->rel.cols[i].lineage.count != before;
            cte->rel.cols[i].base = NULL;
        }
        if (!grew) { /* UNION without ALL drops the rows seen before: it compares them */
            set_operation_compares(c, body, &cte->rel, &cte->rel, cte->rel.cols);
            return;
        }
    }
    sluice_pgsql_violate(c, body, "too_complex", NULL, "the recursive CTE %s does not settle",
                         cte->name);
}

/* SEARCH ... SET seq and CYCLE ... SET mark USING path add columns computed from the CTE's rows
 * (the path is an array of their values): each added column carries every column's lineage. */
static pg_rel search_cycle_columns(pg_ctx *c, pg_rel rel, json_t *body)
{
    json_t *search = json_object_get(body, "search_clause");
    json_t *cycle = json_object_get(body, "cycle_clause");
    const char *added[3] = {
        json_string_value(json_object_get(search, "search_seq_column")),
        json_string_value(json_object_get(cycle, "cycle_mark_column")),
        json_string_value(json_object_get(cycle, "cycle_path_column")),
    };
    size_t extra = 0;
    for (size_t i = 0; i < 3; i++)
        extra += added[i] != NULL;
    if ((search != NULL || cycle != NULL) && extra == 0)
        sluice_pgsql_violate(c, body, "unsupported_query", NULL,
                             "a SEARCH or CYCLE clause names no column");
    if (extra == 0)
        return rel;
    pg_col *cols = new_cols(c, rel.count + extra);
    if (cols == NULL)
        return rel;
    if (rel.count > 0)
        memcpy(cols, rel.cols, rel.count * sizeof(*cols));
    size_t n = rel.count;
    for (size_t i = 0; i < 3; i++) {
        if (added[i] == NULL)
            continue;
        cols[n].name = added[i];
        for (size_t k = 0; k < rel.count; k++)
            sluice_pgsql_add_all(c, &cols[n].lineage, &rel.cols[k].lineage);
        n++;
    }
    return (pg_rel){ cols, n };
}

/* WITH: each CTE sees the ones before it; WITH RECURSIVE shows every CTE of the list to every
 * other, forward references included, as PostgreSQL does. A CTE still pending (a forward
 * reference, or one to itself from its own first term) is refused where it is named, so a name
 * never resolves to a table or an outer CTE that PostgreSQL would not pick (issue 21). */
static const pg_cte *
with_clause(pg_ctx *c, const pg_scope *parent, const pg_cte *ctes, json_t *with)
{
    bool recursive = json_is_true(json_object_get(with, "recursive"));
    json_t *list = json_object_get(with, "ctes");
    size_t n = json_array_size(list);
    if (n == 0)
        return ctes;
    pg_cte *all = sluice_arena_calloc(c->arena, n, sizeof(*all));
    if (all == NULL) {
        c->nomem = true;
        return ctes;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *body = sluice_pgsql_node_body(json_array_get(list, i), "CommonTableExpr");
        all[i].name = json_string_value(json_object_get(body, "ctename"));
        all[i].name = all[i].name != NULL ? all[i].name : "";
        all[i].next = i > 0 ? &all[i - 1] : ctes;
        all[i].pending = true;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *body = sluice_pgsql_node_body(json_array_get(list, i), "CommonTableExpr");
        pg_cte *cte = &all[i];
        json_t *query = json_object_get(body, "ctequery");
        if (*cte->name == '\0' || sluice_pgsql_node_body(query, "SelectStmt") == NULL) {
            sluice_pgsql_violate(c, body, "statement_not_allowed", "a WITH query may only SELECT",
                                 "a WITH query that changes data is not allowed");
            continue;
        }
        sluice_pgsql_add(c, &sluice_sql_ext(c->facts)->cte_names, cte->name);
        c->ctes++;
        json_t *names = json_object_get(body, "aliascolnames");
        cte->inlined = json_is_string(json_object_get(body, "ctematerialized")) &&
                       strcmp(json_string_value(json_object_get(body, "ctematerialized")),
                              "CTEMaterializeNever") == 0;
        size_t before = c->relations;
        if (recursive) {
            recursive_cte(c, parent, &all[n - 1], cte, query, names);
        } else {
            cte->rel = sluice_pgsql_query(c, parent, cte->next, query);
            cte->pending = false;
        }
        if (cte->inlined) { /* counted where it is used (count_inlined_use) */
            cte->relations = c->relations - before;
            c->relations = before;
        }
        cte->rel = rename_cols(c, cte->rel, names, body);
        cte->rel = search_cycle_columns(c, cte->rel, body);
    }
    return &all[n - 1];
}

/* ---- SELECT ---- */

/* Plain DISTINCT groups by every output column: a key, like GROUP BY. A column computed from a
 * blocked (or tainted) one is refused there even when it is never returned (a CTE's or
 * subquery's DISTINCT counts distinct values of the function: the row count carries it); a
 * bare one groups equal values, as GROUP BY may. */
static void plain_distinct(pg_ctx *c, json_t *body, const pg_rel *rel)
{
    json_t *distinct = json_object_get(body, "distinctClause");
    json_t *first = json_array_get(distinct, 0);
    if (json_array_size(distinct) != 1 || !json_is_object(first) || json_object_size(first) != 0)
        return; /* none, or DISTINCT ON (walked strictly above) */
    for (size_t i = 0; i < rel->count; i++) {
        const pg_col *col = &rel->cols[i];
        if (!sluice_pgsql_lineage_blocked(c, &col->lineage))
            continue;
        if (col->base != NULL && sluice_pgsql_blocked(c, col->base)) {
            sluice_pgsql_add(c, &c->facts->blocked_used, col->base);
            c->facts->blocked_in_predicate = true;
            continue;
        }
        sluice_pgsql_violate(
            c, body, "blocked_predicate",
            "group by the bare blocked column, or by columns not computed from it",
            "DISTINCT groups by column %s, which is computed from a blocked column: a "
            "key may only be the bare column",
            col->name != NULL ? col->name : "?");
        return;
    }
}

static pg_rel select_core(pg_ctx *c, pg_scope *s, json_t *body)
{
    sluice_pgsql_from_list(c, s, json_object_get(body, "fromClause"));
    sluice_codefacts_list ignore = { 0 };
    /* Named windows: resolved where OVER names them, and each checked here even if unused. */
    s->windows = json_object_get(body, "windowClause");
    for (size_t i = 0; i < json_array_size(s->windows); i++) {
        json_t *def = sluice_pgsql_node_body(json_array_get(s->windows, i), "WindowDef");
        sluice_pgsql_expr(c, s, json_object_get(def, "partitionClause"), PG_STRICT, &ignore);
        sluice_pgsql_expr(c, s, json_object_get(def, "orderClause"), PG_STRICT, &ignore);
    }
    json_t *where = json_object_get(body, "whereClause");
    if (where != NULL && c->depth <= 1)
        sluice_sql_ext(c->facts)->has_where = true;
    sluice_pgsql_expr(c, s, where, PG_PREDICATE, &ignore);
    pg_rel rel = target_list(c, s, json_object_get(body, "targetList"));
    json_t *group = json_object_get(body, "groupClause");
    if (json_array_size(group) > 0 && c->depth <= 1)
        sluice_sql_ext(c->facts)->has_group_by = true;
    group_by(c, s, group);
    sluice_pgsql_expr(c, s, json_object_get(body, "havingClause"), PG_PREDICATE, &ignore);
    /* DISTINCT ON (...): PostgreSQL sorts by its keys to keep the first row of each, so
     * `DISTINCT ON (ssn) ... LIMIT 1` is `ORDER BY ssn LIMIT 1`: no blocked column at all */
    sluice_pgsql_expr(c, s, json_object_get(body, "distinctClause"), PG_STRICT, &ignore);
    plain_distinct(c, body, &rel);
    order_by(c, s, &rel, body);
    limits(c, s, body);
    return rel;
}

static bool refuse_clauses(pg_ctx *c, json_t *body)
{
    if (json_object_get(body, "intoClause") != NULL)
        sluice_pgsql_violate(c, body, "statement_not_allowed",
                             "drop INTO: results come back to you", "SELECT INTO creates a table");
    else if (json_array_size(json_object_get(body, "lockingClause")) > 0)
        sluice_pgsql_violate(c, body, "statement_not_allowed", "drop FOR UPDATE / FOR SHARE",
                             "row locks are not allowed on the read path");
    else
        return false;
    return true;
}

pg_rel sluice_pgsql_query(pg_ctx *c, const pg_scope *parent, const pg_cte *ctes, json_t *node)
{
    json_t *body = sluice_pgsql_node_body(node, "SelectStmt");
    if (body == NULL && json_is_string(json_object_get(node, "op")))
        body = node; /* the two sides of a set operation come unwrapped */
    if (body == NULL) {
        sluice_pgsql_violate(c, NULL, "statement_not_allowed", "only SELECT queries are analyzed",
                             "a %s is not allowed inside a query",
                             sluice_pgsql_node_type(node) != NULL ? sluice_pgsql_node_type(node)
                                                                  : "statement");
        return empty_rel();
    }
    if (c->nomem || refuse_clauses(c, body))
        return empty_rel();
    if (++c->depth > SLUICE_PGSQL_MAX_DEPTH) {
        sluice_pgsql_violate(c, body, "too_complex", "simplify the query",
                             "queries nest too deeply");
        c->depth--;
        return empty_rel();
    }
    json_t *with = json_object_get(body, "withClause");
    if (with != NULL)
        ctes = with_clause(c, parent, ctes,
                           sluice_pgsql_node_body(with, "WithClause") != NULL
                               ? sluice_pgsql_node_body(with, "WithClause")
                               : with);
    const char *op = json_string_value(json_object_get(body, "op"));
    pg_rel rel;
    if (op != NULL && strcmp(op, "SETOP_NONE") != 0) {
        rel = set_operation(c, parent, ctes, body);
    } else if (json_object_get(body, "valuesLists") != NULL) {
        /* VALUES ... ORDER BY ... LIMIT ...: the clauses follow the same rules as a SELECT's */
        pg_scope s = { .parent = parent, .ctes = ctes };
        rel = values_lists(c, &s, json_object_get(body, "valuesLists"));
        order_by(c, &s, &rel, body);
        limits(c, &s, body);
    } else {
        pg_scope s = { .parent = parent, .ctes = ctes };
        rel = select_core(c, &s, body);
    }
    c->depth--;
    return rel;
}
