/*
 * amplify.c — which statements are provably too small to need the bounded child.
 *
 * Owns: the two judgements that let a statement skip a fork. sluice_sql_tree_bounded reads the
 * parse tree before anything binds: DuckDB folds constant expressions while binding, and only
 * a function that can make its result larger than its input (repeat, lpad, range, list_*, ...)
 * turns a short text into a large fold; with every function tagged SLUICE_SQL_BOUNDED
 * (functions.c) and short constants, the fold is no larger than the text; and with subquery
 * expressions nested at most SLUICE_SQL_FAST_SUBQUERY_NESTING deep, at most
 * SLUICE_SQL_FAST_RELATIONS table references and SLUICE_SQL_FAST_OBJECTS objects in all, planning
 * takes no time to speak of (DuckDB's optimizer is super-linear in each and cannot be
 * interrupted) — so bounds.c binds in the server. sluice_sql_plan_node_bounded judges each object
 * of the bound plan (views and macros expanded; plan_walk.c's scan asks it of every one as it
 * passes): with only ordinary operators, scans and BOUNDED functions, every value a row carries is
 * no larger than a value in a table or the text, and the engine's own memory_limit (hash tables,
 * sorts, materialized CTEs are in its buffer manager) and interrupt (checked between vectors)
 * govern the run, so the executor may run it in-process. DuckDB's known blind spots — lists and
 * strings built inside one vector (range, repeat, string_agg, list), recursion, windowed
 * aggregates' segment trees — are each excluded here. Does not own: the tags (functions.c), the
 * child (bounds.c, exec/bounded.c), or the refusals: a statement judged false here is only slower,
 * never refused.
 *
 * Both judgements are allowlists over node kinds: a kind this file does not name is false, so a
 * new DuckDB node can only cost a fork.
 */
#include "core/limits.h"
#include "lang/sql/internal.h"
#include "syntax/sqltree/duckdb_tree.h"

#include <string.h>

/* Deeper than any plan the analyzer accepts (plan_walk.c refuses past its own depth). */
#define AMPLIFY_MAX_DEPTH (SLUICE_LIMIT_SQL_PLAN_DEPTH * 4u)

static bool in(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (s[0] == list[i][0] && strcmp(s, list[i]) == 0) /* the first byte settles most */
            return true;
    return false;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A type object ({"id": ...}) that holds other values: LIST, ARRAY, MAP, STRUCT, UNION. */
static bool nested_type(const sluice_tree *type)
{
    static const char *const nested[] = { "LIST", "ARRAY", "MAP", "STRUCT", "UNION", NULL };
    return type == NULL || in(sluice_sqltree_str(type, "id"), nested);
}

/* Whether all_nodes can say anything of v at depth but true: a container, or any value past the
 * depth limit (false there). Most values are strings and numbers: not a call each. */
static bool worth_judging(const sluice_tree *v, size_t depth)
{
    return sluice_tree_is_object(v) || sluice_tree_is_array(v) || depth > AMPLIFY_MAX_DEPTH;
}

static bool tree_node(const sluice_tree *node, const char *cls);

/* What all_nodes has counted so far over the whole statement (not per path). */
typedef struct tree_budget {
    size_t objects;
    size_t relations;
} tree_budget;

/* Whether node, an object, still fits the budget once counted: a table reference (an object
 * without a class whose type names one) counts as a relation, and every object as an object. */
static bool within_budget(const sluice_tree *node, const char *cls, tree_budget *b)
{
    static const char *const relations[] = { "BASE_TABLE", "SUBQUERY", "EXPRESSION_LIST", NULL };
    if (*cls == '\0' && in(sluice_sqltree_str(node, "type"), relations) &&
        ++b->relations > SLUICE_SQL_FAST_RELATIONS)
        return false;
    return ++b->objects <= SLUICE_SQL_FAST_OBJECTS;
}

/* Every object in v passes tree_node, no path nests more than SLUICE_SQL_FAST_SUBQUERY_NESTING
 * subquery expressions (subqueries: how many v sits inside), and the statement stays within
 * budget; arrays and objects are walked to the bottom. The tree is the bind unit's arena tree
 * (core/tree.h). */
static bool all_nodes(const sluice_tree *v, size_t depth, unsigned subqueries, tree_budget *budget)
{
    if (depth > AMPLIFY_MAX_DEPTH)
        return false;
    size_t i;
    const sluice_tree *child;
    if (sluice_tree_is_array(v)) {
        sluice_tree_foreach(v, i, child)
        {
            if (worth_judging(child, depth + 1) && !all_nodes(child, depth + 1, subqueries, budget))
                return false;
        }
        return true;
    }
    if (!sluice_tree_is_object(v))
        return true;
    const char *cls = sluice_sqltree_str(v, "class");
    if (!tree_node(v, cls) || !within_budget(v, cls, budget))
        return false;
    if (strcmp(cls, "SUBQUERY") == 0 && ++subqueries > SLUICE_SQL_FAST_SUBQUERY_NESTING)
        return false;
    const char *key;
    sluice_tree_foreach_member(v, i, key, child)
    {
        (void)key;
        if (worth_judging(child, depth + 1) && !all_nodes(child, depth + 1, subqueries, budget))
            return false;
    }
    return true;
}

/* ---- the parse tree (before binding) ------------------------------------------------------ */

static const char *const tree_operators[] = {
    "OPERATOR_NOT",   "OPERATOR_IS_NULL",  "OPERATOR_IS_NOT_NULL", "COMPARE_IN",
    "COMPARE_NOT_IN", "OPERATOR_COALESCE", "OPERATOR_NULLIF",      NULL,
};

static const char *const tree_classes[] = {
    "COLUMN_REF", "COMPARISON", "CONJUNCTION", "CASE",    "SUBQUERY",
    "STAR",       "BETWEEN",    "PARAMETER",   "COLLATE", NULL,
};

/* Query nodes, table references, modifiers and ORDER BY terms: the shapes of a SELECT. */
static const char *const tree_shapes[] = {
    "SELECT_NODE",
    "SET_OPERATION_NODE",
    "CTE_NODE",
    "RECURSIVE_CTE_NODE",
    "BASE_TABLE",
    "JOIN",
    "SUBQUERY",
    "EXPRESSION_LIST",
    "EMPTY",
    "ORDER_MODIFIER",
    "LIMIT_MODIFIER",
    "LIMIT_PERCENT_MODIFIER",
    "DISTINCT_MODIFIER",
    "ORDER_DEFAULT",
    "ASCENDING",
    "DESCENDING",
    NULL,
};

static bool small_constant(const sluice_tree *node)
{
    const sluice_tree *value = sluice_tree_get(node, "value");
    const sluice_tree *v = sluice_tree_get(value, "value");
    if (sluice_tree_is_true(sluice_tree_get(value, "is_null")))
        return true;
    if (nested_type(sluice_tree_get(value, "type")))
        return false;
    return !sluice_tree_is_string(v) ||
           sluice_tree_string_length(v) <= SLUICE_SQL_FAST_CONSTANT_BYTES;
}

/* node is an object, cls its "class" ("" when it has none). */
static bool tree_node(const sluice_tree *node, const char *cls)
{
    if (*cls != '\0') {
        if (strcmp(cls, "FUNCTION") == 0 || strcmp(cls, "WINDOW") == 0)
            return sluice_sql_function_growth(sluice_sqltree_str(node, "function_name")) ==
                   SLUICE_SQL_BOUNDED;
        if (strcmp(cls, "CONSTANT") == 0)
            return small_constant(node);
        if (strcmp(cls, "CAST") == 0)
            return !nested_type(sluice_tree_get(node, "cast_type"));
        if (strcmp(cls, "OPERATOR") == 0)
            return in(sluice_sqltree_str(node, "type"), tree_operators);
        return in(cls, tree_classes);
    }
    const char *type = sluice_sqltree_str(node, "type");
    return *type == '\0' || ends_with(type, "_TYPE_INFO") || in(type, tree_shapes);
}

bool sluice_sql_tree_bounded(const sluice_tree *tree)
{
    const sluice_tree *stmts = sluice_tree_get(tree, "statements");
    tree_budget budget = { 0, 0 };
    return sluice_tree_size(stmts) == 1 && all_nodes(stmts, 0, 0, &budget);
}

/* ---- the bound plan (before running in-process) ------------------------------------------- */

static const char *const plan_operators[] = {
    "LOGICAL_PROJECTION",
    "LOGICAL_FILTER",
    "LOGICAL_AGGREGATE_AND_GROUP_BY",
    "LOGICAL_ORDER_BY",
    "LOGICAL_LIMIT",
    "LOGICAL_TOP_N",
    "LOGICAL_COMPARISON_JOIN",
    "LOGICAL_CROSS_PRODUCT",
    "LOGICAL_ANY_JOIN",
    "LOGICAL_DELIM_JOIN",
    "LOGICAL_DELIM_GET",
    "LOGICAL_MATERIALIZED_CTE",
    "LOGICAL_CTE_REF",
    "LOGICAL_WINDOW",
    "LOGICAL_UNION",
    "LOGICAL_EXCEPT",
    "LOGICAL_INTERSECT",
    "LOGICAL_DISTINCT",
    "LOGICAL_EMPTY_RESULT",
    "LOGICAL_DUMMY_SCAN",
    "LOGICAL_EXPRESSION_GET",
    "LOGICAL_CHUNK_GET",
    NULL,
};

static const char *const plan_classes[] = {
    "BOUND_REF",        "BOUND_COLUMN_REF",  "BOUND_CONSTANT",
    "BOUND_COMPARISON", "BOUND_CONJUNCTION", "BOUND_CASE",
    "BOUND_BETWEEN",    "BOUND_PARAMETER",   NULL,
};

static bool plan_expression(const sluice_tree *node, const char *cls)
{
    if (strcmp(cls, "BOUND_FUNCTION") == 0 || strcmp(cls, "BOUND_AGGREGATE") == 0)
        return sluice_sql_function_growth(sluice_sqltree_str(node, "name")) == SLUICE_SQL_BOUNDED;
    if (strcmp(cls, "BOUND_WINDOW") == 0)
        /* ranking and offsets read the partition; a windowed aggregate builds a segment tree
         * outside the buffer manager */
        return strcmp(sluice_sqltree_str(node, "type"), "WINDOW_AGGREGATE") != 0 &&
               (sluice_tree_get(node, "name") == NULL ||
                sluice_sql_function_growth(sluice_sqltree_str(node, "name")) == SLUICE_SQL_BOUNDED);
    if (strcmp(cls, "BOUND_CAST") == 0)
        return !nested_type(sluice_tree_get(node, "return_type"));
    if (strcmp(cls, "BOUND_OPERATOR") == 0)
        return in(sluice_sqltree_str(node, "type"), tree_operators);
    return in(cls, plan_classes);
}

bool sluice_sql_plan_node_bounded(const sluice_tree *node, const char *cls, const char *type)
{
    if (*cls != '\0')
        return plan_expression(node, cls);
    if (strncmp(type, "LOGICAL_", 8) != 0)
        return true; /* a part of an operator (filters, conditions, types): judged by content */
    if (strcmp(type, "LOGICAL_GET") == 0)
        return strcmp(sluice_sqltree_str(node, "name"), "seq_scan") == 0;
    return in(type, plan_operators);
}
