/*
 * parsetree.c — facts from the parse tree of a SELECT (DuckDB json_serialize_sql), gathered
 * before anything is bound.
 *
 * Owns: the statement's shape as written (joins, subqueries, CTE names, WHERE, GROUP BY,
 * ORDER BY, the literal LIMIT, window functions, functions called) and the refusals that must
 * happen before binding, because binding itself would act: SHOW/SUMMARIZE/DESCRIBE (query)
 * (they read the catalog or every column; DESCRIBE <table> is allowed, see note_describe), table
 * functions outside the allowlist (read_csv binds by opening the file; query() hides SQL in a
 * string) and table names that are file paths (replacement scans). Does not own: lineage
 * (plan_walk.c, which sees views, macros and stars resolved).
 */
#include "core/buf.h"
#include "core/error.h"
#include "core/limits.h"
#include "lang/sql/internal.h"
#include "syntax/sqltree/duckdb_tree.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

typedef struct tree_walk {
    sluice_sql_ctx *ctx;
    size_t depth;
} tree_walk;

void sluice_sql_locate_node(const sluice_sql_ctx *ctx,
                            const sluice_tree *node,
                            size_t *line,
                            size_t *column)
{
    *line = *column = 0;
    size_t at = sluice_sqltree_location(node);
    if (at < ctx->code_len)
        sluice_error_locate(ctx->code, ctx->code_len, at, line, column);
}

static void refuse_show(tree_walk *w, const sluice_tree *node)
{
    const char *what = sluice_sqltree_str(node, "show_type");
    if (strcmp(what, "SUMMARY") == 0)
        what = "SUMMARIZE"; /* the keyword the reader wrote */
    sluice_codefacts_violate(w->ctx->facts, "statement_not_allowed", 0, 0,
                             "read the code-mode://schema resource for tables and columns; "
                             "aggregate with SELECT for statistics",
                             "%s is not allowed in code mode: it reports on the catalog or on "
                             "every column, including blocked ones",
                             *what != '\0' ? what : "SHOW");
}

/* True when every key of node is in keys (NULL-terminated). */
static bool only_keys(const sluice_tree *node, const char *const *keys)
{
    size_t m;
    const char *key;
    const sluice_tree *v;
    sluice_tree_foreach_member(node, m, key, v)
    {
        (void)v;
        size_t i = 0;
        while (keys[i] != NULL && strcmp(keys[i], key) != 0)
            i++;
        if (keys[i] == NULL)
            return false;
    }
    return true;
}

/* The table DESCRIBE <table> names: its SHOW_REF holds exactly `SELECT * FROM <table>` with
 * the star not written (DESCRIBE SELECT ... writes it). NULL for DESCRIBE (query), SHOW,
 * SUMMARIZE or anything else. */
static const sluice_tree *described_table(const sluice_tree *show)
{
    static const char *const show_keys[] = { "type", "query_location", "query", "show_type", NULL };
    static const char *const query_keys[] = { "type", "select_list", "from_table",
                                              "aggregate_handling", NULL };
    static const char *const star_keys[] = { "class", "type", "query_location", "columns", NULL };
    static const char *const table_keys[] = { "type",        "query_location", "table_name",
                                              "schema_name", "catalog_name",   NULL };
    const sluice_tree *q = sluice_tree_get(show, "query");
    const sluice_tree *list = sluice_tree_get(q, "select_list");
    const sluice_tree *star = sluice_tree_at(list, 0);
    const sluice_tree *from = sluice_tree_get(q, "from_table");
    if (strcmp(sluice_sqltree_str(show, "show_type"), "DESCRIBE") != 0 ||
        !only_keys(show, show_keys) || strcmp(sluice_sqltree_str(q, "type"), "SELECT_NODE") != 0 ||
        !only_keys(q, query_keys) || sluice_tree_size(list) != 1 ||
        strcmp(sluice_sqltree_str(star, "class"), "STAR") != 0 || !only_keys(star, star_keys) ||
        sluice_tree_is_true(sluice_tree_get(star, "columns")) ||
        sluice_tree_number_value(sluice_tree_get(star, "query_location")) < 1.8e19 ||
        strcmp(sluice_sqltree_str(from, "type"), "BASE_TABLE") != 0 || !only_keys(from, table_keys))
        return NULL;
    return from;
}

/* DESCRIBE <table or view> shows the names and types code-mode://schema already publishes: the
 * table counts as read (so sql_allowed_tables / sql_blocked_tables apply) and the blocked
 * fields that apply to it are marked in a warning, as the schema resource marks them. */
static void note_describe(tree_walk *w, const sluice_tree *table)
{
    sluice_codefacts *f = w->ctx->facts;
    const char *name = sluice_sqltree_str(table, "table_name");
    const char *schema = sluice_sqltree_str(table, "schema_name");
    const char *t = *schema == '\0' || strcmp(schema, "main") == 0
                        ? name
                        : sluice_sql_dotted(w->ctx->arena, schema, name);
    /* the table rules (sql_blocked_tables) see only tables_read: no entry, no DESCRIBE */
    if (t == NULL || sluice_codefacts_list_add(f, &f->resources_read, t) != SLUICE_OK) {
        sluice_codefacts_violate(f, "unanalyzable", 0, 0, NULL,
                                 "out of memory while analyzing DESCRIBE");
        return;
    }
    for (size_t i = 0; i < w->ctx->blocked_count; i++) {
        const sluice_sql_blocked *b = &w->ctx->blocked[i];
        if (b->table == NULL || strcasecmp(b->table, name) == 0)
            sluice_codefacts_warn(f,
                                  "%s.%s%s is a blocked field [join/filter only]: it may be "
                                  "compared with = but is never returned",
                                  name, b->column, b->table == NULL ? " (where present)" : "");
    }
}

static void check_table_function(tree_walk *w, const sluice_tree *node)
{
    const sluice_tree *fn = sluice_tree_get(node, "function");
    const char *name = sluice_sqltree_str(fn, "function_name");
    const char *why = sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, name);
    if (why == NULL)
        return;
    size_t line, column;
    sluice_sql_locate_node(w->ctx, node, &line, &column);
    sluice_codefacts_violate(w->ctx->facts, "blocked_function", line, column,
                             "query the tables listed in the code-mode://schema resource; only "
                             "range, generate_series and unnest may be used as table functions",
                             "table function %s() is not allowed: %s", name, why);
}

/* FROM 'file.csv' and FROM "dir/x.parquet" bind as replacement scans that open files. No
 * catalog table name we expose contains these characters. */
static void check_base_table(tree_walk *w, const sluice_tree *node)
{
    const char *name = sluice_sqltree_str(node, "table_name");
    if (strpbrk(name, "/\\.:*?") == NULL)
        return;
    size_t line, column;
    sluice_sql_locate_node(w->ctx, node, &line, &column);
    sluice_codefacts_violate(w->ctx->facts, "blocked_function", line, column,
                             "query the tables listed in the code-mode://schema resource",
                             "'%s' looks like a file path; reading files is not allowed", name);
}

static void note_function(tree_walk *w, const sluice_tree *node, bool window)
{
    const char *name = sluice_sqltree_str(node, "function_name");
    if (*name == '\0')
        return;
    const char *why = sluice_sql_function_denied(name);
    if (why != NULL) {
        size_t line, column;
        sluice_sql_locate_node(w->ctx, node, &line, &column);
        sluice_codefacts_violate(w->ctx->facts, "blocked_function", line, column,
                                 "use the functions listed in docs/sql.md",
                                 "function %s() is not allowed: %s", name, why);
    }
    /* operators (+, ||, ~~) are functions to DuckDB but not to the reader */
    if (isalpha((unsigned char)name[0]) || name[0] == '_')
        sluice_codefacts_list_add(w->ctx->facts, &w->ctx->facts->functions,
                                  strcmp(name, "count_star") == 0 ? "count" : name);
    if (window)
        sluice_sql_ext(w->ctx->facts)->window_count++;
}

/* "c.id" from a COLUMN_REF's column_names; NULL for any other expression. */
static const char *column_ref(tree_walk *w, const sluice_tree *e)
{
    if (strcmp(sluice_sqltree_str(e, "class"), "COLUMN_REF") != 0)
        return NULL;
    sluice_buf b;
    sluice_buf_init(&b, w->ctx->arena, 256);
    size_t i;
    const sluice_tree *n;
    sluice_tree_foreach(sluice_tree_get(e, "column_names"), i, n)
    {
        if (i > 0)
            sluice_buf_putc(&b, '.');
        sluice_buf_puts(&b, sluice_tree_string_value(n) != NULL ? sluice_tree_string_value(n) : "");
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* A literal as the reader wrote it: 'text', a number, or a typed literal (DATE '2026-04-01'
 * arrives as a cast of a string constant). NULL for anything else. */
static const char *literal(tree_walk *w, const sluice_tree *e)
{
    const sluice_tree *v = sluice_tree_get(sluice_sqltree_constant(e), "value");
    if (sluice_tree_is_string(v))
        return sluice_arena_printf(w->ctx->arena, "'%s'", sluice_tree_string_value(v));
    if (sluice_tree_is_number(v))
        return sluice_arena_printf(w->ctx->arena, "%g", sluice_tree_number_value(v));
    return NULL;
}

/* "c.plan = 'enterprise'" for column-versus-literal comparisons, else NULL. */
static const char *simple_predicate(tree_walk *w, const sluice_tree *e)
{
    if (strcmp(sluice_sqltree_str(e, "class"), "COMPARISON") != 0)
        return NULL;
    const char *col = column_ref(w, sluice_tree_get(e, "left"));
    const char *lit = literal(w, sluice_tree_get(e, "right"));
    const char *op = sluice_sqltree_comparison(sluice_sqltree_str(e, "type"), false);
    return col != NULL && lit != NULL && op != NULL
               ? sluice_arena_printf(w->ctx->arena, "%s %s %s", col, op, lit)
               : NULL;
}

static void collect_filter_columns(tree_walk *w, const sluice_tree *v, size_t depth)
{
    if (depth > SLUICE_LIMIT_SQL_PLAN_DEPTH)
        return;
    const char *c = sluice_tree_is_object(v) ? simple_predicate(w, v) : NULL;
    if (c == NULL && sluice_tree_is_object(v))
        c = column_ref(w, v);
    if (c != NULL) {
        sluice_codefacts_list_add(w->ctx->facts, &sluice_sql_ext(w->ctx->facts)->filter_columns, c);
        return;
    }
    if (sluice_tree_is_object(v) && strcmp(sluice_sqltree_str(v, "class"), "SUBQUERY") == 0)
        return;
    const char *key;
    const sluice_tree *child;
    size_t i;
    if (sluice_tree_is_object(v)) {
        sluice_tree_foreach_member(v, i, key, child)
        {
            (void)key;
            collect_filter_columns(w, child, depth + 1);
        }
    } else if (sluice_tree_is_array(v)) {
        sluice_tree_foreach(v, i, child)
        {
            collect_filter_columns(w, child, depth + 1);
        }
    }
}

static void note_join(tree_walk *w, const sluice_tree *node)
{
    sluice_sql_ext(w->ctx->facts)->join_count++;
    const sluice_tree *cond = sluice_tree_get(node, "condition");
    const char *l = column_ref(w, sluice_tree_get(cond, "left"));
    const char *r = column_ref(w, sluice_tree_get(cond, "right"));
    if (l != NULL && r != NULL && strcmp(sluice_sqltree_str(cond, "type"), "COMPARE_EQUAL") == 0) {
        const char *k = sluice_arena_printf(w->ctx->arena, "%s = %s", l, r);
        sluice_codefacts_list_add(w->ctx->facts, &sluice_sql_ext(w->ctx->facts)->join_keys, k);
    }
    size_t i;
    const sluice_tree *u;
    sluice_tree_foreach(sluice_tree_get(node, "using_columns"), i, u)
    {
        sluice_codefacts_list_add(w->ctx->facts, &sluice_sql_ext(w->ctx->facts)->join_keys,
                                  sluice_tree_string_value(u));
    }
}

static void note_select_node(tree_walk *w, const sluice_tree *node)
{
    sluice_codefacts *f = w->ctx->facts;
    const sluice_tree *where = sluice_tree_get(node, "where_clause");
    if (where != NULL) {
        sluice_sql_ext(f)->has_where = true;
        collect_filter_columns(w, where, 0);
    }
    if (sluice_tree_size(sluice_tree_get(node, "group_expressions")) > 0)
        sluice_sql_ext(f)->has_group_by = true;
    /* DuckDB marks GROUP BY ALL this way, with no group expressions until it binds */
    if (strcmp(sluice_sqltree_str(node, "aggregate_handling"), "FORCE_AGGREGATES") == 0)
        sluice_sql_ext(f)->has_group_by = sluice_sql_ext(f)->group_by_all = true;
}

static void note_ctes(tree_walk *w, const sluice_tree *node)
{
    const sluice_tree *map = sluice_tree_get(sluice_tree_get(node, "cte_map"), "map");
    size_t i;
    const sluice_tree *e;
    sluice_tree_foreach(map, i, e)
    {
        const char *name = sluice_sqltree_str(e, "key");
        if (*name != '\0')
            sluice_codefacts_list_add(w->ctx->facts, &sluice_sql_ext(w->ctx->facts)->cte_names,
                                      name);
    }
}

static void note_modifiers(tree_walk *w, const sluice_tree *node, bool top)
{
    size_t i;
    const sluice_tree *m;
    sluice_tree_foreach(sluice_tree_get(node, "modifiers"), i, m)
    {
        const char *type = sluice_sqltree_str(m, "type");
        if (strcmp(type, "ORDER_MODIFIER") == 0 && top)
            sluice_sql_ext(w->ctx->facts)->has_order_by = true;
        if ((strcmp(type, "LIMIT_MODIFIER") == 0 || strcmp(type, "LIMIT_PERCENT_MODIFIER") == 0) &&
            top && sluice_tree_get(m, "limit") != NULL) {
            sluice_sql_ext(w->ctx->facts)->has_limit = true;
            const sluice_tree *lim = sluice_tree_get(m, "limit");
            const sluice_tree *v = sluice_tree_get(sluice_tree_get(lim, "value"), "value");
            if (strcmp(type, "LIMIT_MODIFIER") == 0 &&
                strcmp(sluice_sqltree_str(lim, "class"), "CONSTANT") == 0 &&
                sluice_tree_is_number(v)) {
                double d = sluice_tree_number_value(v);
                if (d >= 0 && d == floor(d))
                    sluice_sql_ext(w->ctx->facts)->limit_value =
                        d >= 9.2e18 ? INT64_MAX : (int64_t)d;
            }
        }
    }
}

static void walk(tree_walk *w, const sluice_tree *v);

/* Whether walk(w, v) can do anything: for a container, or for any value once the depth limit is
 * reached (walk reports it there). A string, number or boolean below the limit leaves w as it
 * was, so it is not walked: most values of a parse tree are such leaves, a call each. */
static bool worth_walking(const tree_walk *w, const sluice_tree *v)
{
    return sluice_tree_is_object(v) || sluice_tree_is_array(v) ||
           w->depth >= SLUICE_LIMIT_SQL_PLAN_DEPTH;
}

static void walk_object(tree_walk *w, const sluice_tree *node)
{
    const char *type = sluice_sqltree_str(node, "type");
    const char *cls = sluice_sqltree_str(node, "class");
    if (*cls != '\0') {
        if (strcmp(cls, "FUNCTION") == 0)
            note_function(w, node, false);
        else if (strcmp(cls, "WINDOW") == 0)
            note_function(w, node, true);
        else if (strcmp(cls, "SUBQUERY") == 0)
            sluice_sql_ext(w->ctx->facts)->subquery_count++;
    } else if (strcmp(type, "SELECT_NODE") == 0 || strcmp(type, "SET_OPERATION_NODE") == 0 ||
               strcmp(type, "RECURSIVE_CTE_NODE") == 0 || strcmp(type, "CTE_NODE") == 0) {
        if (strcmp(type, "SELECT_NODE") == 0)
            note_select_node(w, node);
        note_ctes(w, node);
    } else if (strcmp(type, "SHOW_REF") == 0) {
        const sluice_tree *table = described_table(node);
        if (table != NULL)
            note_describe(w, table);
        else
            refuse_show(w, node);
    } else if (strcmp(type, "TABLE_FUNCTION") == 0) {
        check_table_function(w, node);
    } else if (strcmp(type, "BASE_TABLE") == 0) {
        check_base_table(w, node);
    } else if (strcmp(type, "JOIN") == 0) {
        note_join(w, node);
    } else if (strcmp(type, "SUBQUERY") == 0) {
        sluice_sql_ext(w->ctx->facts)->subquery_count++;
    }
    size_t i;
    const char *key;
    const sluice_tree *child;
    sluice_tree_foreach_member(node, i, key, child)
    {
        (void)key;
        if (worth_walking(w, child))
            walk(w, child);
    }
}

static void walk(tree_walk *w, const sluice_tree *v)
{
    if (w->depth >= SLUICE_LIMIT_SQL_PLAN_DEPTH) {
        if (w->depth == SLUICE_LIMIT_SQL_PLAN_DEPTH)
            sluice_codefacts_violate(w->ctx->facts, "too_complex", 0, 0,
                                     "split the statement or flatten its nesting",
                                     "the statement nests too deeply to analyze (limit is %u)",
                                     SLUICE_LIMIT_SQL_PLAN_DEPTH);
        w->depth = SLUICE_LIMIT_SQL_PLAN_DEPTH + 1;
        return;
    }
    w->depth++;
    if (sluice_tree_is_object(v)) {
        walk_object(w, v);
    } else if (sluice_tree_is_array(v)) {
        size_t i;
        const sluice_tree *e;
        sluice_tree_foreach(v, i, e)
        {
            if (worth_walking(w, e))
                walk(w, e);
        }
    }
    if (w->depth <= SLUICE_LIMIT_SQL_PLAN_DEPTH)
        w->depth--;
}

sluice_status sluice_sql_parsetree_facts(sluice_sql_ctx *ctx)
{
    ctx->parse_tree = sluice_sql_serialize_sql(ctx, &ctx->parse_tree_text);
    if (ctx->parse_tree == NULL)
        return SLUICE_OK; /* violation already added */
    if (sluice_tree_is_true(sluice_tree_get(ctx->parse_tree, "error"))) {
        ctx->parse_tree = NULL; /* not a query node: the statement type decides (statement.c) */
        return SLUICE_OK;
    }
    tree_walk w = { ctx, 0 };
    const sluice_tree *stmts = sluice_tree_get(ctx->parse_tree, "statements");
    const sluice_tree *node = sluice_tree_get(sluice_tree_at(stmts, 0), "node");
    if (sluice_tree_size(stmts) != 1 || node == NULL) {
        sluice_codefacts_violate(ctx->facts, "statement_not_allowed", 0, 0, NULL,
                                 "the statement did not parse into exactly one query");
        return SLUICE_OK;
    }
    /* ORDER BY and LIMIT of the outermost query are the statement's; inner ones only shape
     * subqueries */
    note_modifiers(&w, node, true);
    walk(&w, node);
    return SLUICE_OK;
}
