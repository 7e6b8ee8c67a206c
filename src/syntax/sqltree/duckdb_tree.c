/*
 * duckdb_tree.c — readers of DuckDB's serialized trees (see duckdb_tree.h).
 */
#include "syntax/sqltree/duckdb_tree.h"

#include <stdint.h>
#include <string.h>

const char *sluice_sqltree_str(const json_t *node, const char *key)
{
    const char *s = json_string_value(json_object_get(node, key));
    return s != NULL ? s : "";
}

bool sluice_sqltree_is(const json_t *node, const char *key, const char *value)
{
    return strcmp(sluice_sqltree_str(node, key), value) == 0;
}

size_t sluice_sqltree_location(const json_t *node)
{
    /* Offsets arrive as JSON reals; a statement is never near 1e15 bytes, and 2^64 - 1 (no
     * position) is far above it. */
    double loc = json_number_value(json_object_get(node, "query_location"));
    return loc >= 0 && loc < 1e15 ? (size_t)loc : SIZE_MAX;
}

const char *sluice_sqltree_plan_str(const sluice_tree *node, const char *key)
{
    const char *s = sluice_tree_string_value(sluice_tree_get(node, key));
    return s != NULL ? s : "";
}

size_t sluice_sqltree_plan_location(const sluice_tree *node)
{
    /* as sluice_sqltree_location */
    double loc = sluice_tree_number_value(sluice_tree_get(node, "query_location"));
    return loc >= 0 && loc < 1e15 ? (size_t)loc : SIZE_MAX;
}

const json_t *sluice_sqltree_constant(const json_t *expr)
{
    if (sluice_sqltree_is(expr, "class", "CAST"))
        expr = json_object_get(expr, "child");
    return sluice_sqltree_is(expr, "class", "CONSTANT") ? json_object_get(expr, "value") : NULL;
}

const char *sluice_sqltree_comparison(const char *type, bool flipped)
{
    static const struct {
        const char *type, *op, *flip;
    } ops[] = {
        { "COMPARE_EQUAL", "=", "=" },
        { "COMPARE_NOTEQUAL", "<>", "<>" },
        { "COMPARE_LESSTHAN", "<", ">" },
        { "COMPARE_GREATERTHAN", ">", "<" },
        { "COMPARE_LESSTHANOREQUALTO", "<=", ">=" },
        { "COMPARE_GREATERTHANOREQUALTO", ">=", "<=" },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(type, ops[i].type) == 0)
            return flipped ? ops[i].flip : ops[i].op;
    return NULL;
}
