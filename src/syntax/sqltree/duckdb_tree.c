/*
 * duckdb_tree.c — readers of DuckDB's serialized trees (see duckdb_tree.h).
 */
#include "syntax/sqltree/duckdb_tree.h"

#include <stdint.h>
#include <string.h>

/* Offsets arrive as numbers (reals); a statement is never near 1e15 bytes, and 2^64 - 1 (no
 * position) is far above it. */
static size_t offset_of(double loc)
{
    return loc >= 0 && loc < 1e15 ? (size_t)loc : SIZE_MAX;
}

const char *sluice_sqltree_str(const sluice_tree *node, const char *key)
{
    const char *s = sluice_tree_string_value(sluice_tree_get(node, key));
    return s != NULL ? s : "";
}

size_t sluice_sqltree_location(const sluice_tree *node)
{
    return offset_of(sluice_tree_number_value(sluice_tree_get(node, "query_location")));
}

const sluice_tree *sluice_sqltree_constant(const sluice_tree *expr)
{
    if (strcmp(sluice_sqltree_str(expr, "class"), "CAST") == 0)
        expr = sluice_tree_get(expr, "child");
    return strcmp(sluice_sqltree_str(expr, "class"), "CONSTANT") == 0
               ? sluice_tree_get(expr, "value")
               : NULL;
}

const char *sluice_sqltree_json_str(const json_t *node, const char *key)
{
    const char *s = json_string_value(json_object_get(node, key));
    return s != NULL ? s : "";
}

bool sluice_sqltree_json_is(const json_t *node, const char *key, const char *value)
{
    return strcmp(sluice_sqltree_json_str(node, key), value) == 0;
}

size_t sluice_sqltree_json_location(const json_t *node)
{
    return offset_of(json_number_value(json_object_get(node, "query_location")));
}

const json_t *sluice_sqltree_json_constant(const json_t *expr)
{
    if (sluice_sqltree_json_is(expr, "class", "CAST"))
        expr = json_object_get(expr, "child");
    return sluice_sqltree_json_is(expr, "class", "CONSTANT") ? json_object_get(expr, "value")
                                                             : NULL;
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
