/*
 * duckdb_tree.h — readers of DuckDB's serialized trees: the parse tree json_serialize_sql gives
 * (lang/sql's facts, amplification and blocked-predicate checks; query mode's pushdown), as
 * jansson values, and the bound plan (lang/sql/plan_walk.c), as the bind unit's arena tree. One
 * place that knows how a member, a source position, a constant and a comparison are spelled in
 * them.
 *
 * Owns: reading those shapes. Does not own: walking a tree, or deciding anything from it (each
 * reader's caller does); DuckDB's type ids (duckdb_type.h).
 */
#ifndef SLUICE_SYNTAX_SQLTREE_DUCKDB_TREE_H
#define SLUICE_SYNTAX_SQLTREE_DUCKDB_TREE_H

#include "core/tree.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* node's string member key; "" when node is NULL or the member is missing or not a string. */
const char *sluice_sqltree_str(const json_t *node, const char *key);

/* Whether node's string member key equals value. */
bool sluice_sqltree_is(const json_t *node, const char *key, const char *value);

/* The byte offset in the statement's text DuckDB recorded for node ("query_location"), or
 * SIZE_MAX when it recorded none (nodes DuckDB made itself carry 2^64 - 1). A node without the
 * member reads as offset 0, as DuckDB never omits it. */
size_t sluice_sqltree_location(const json_t *node);

/* The same two reads on the bound plan, which arrives as the bind unit's arena tree
 * (core/tree.h) rather than jansson values. */
const char *sluice_sqltree_plan_str(const sluice_tree *node, const char *key);
size_t sluice_sqltree_plan_location(const sluice_tree *node);

/* The value object ({"type": {"id": ...}, "is_null": ..., "value": ...}) of a constant
 * expression, seen through one CAST (a typed literal such as DATE '2026-04-01' arrives as a cast
 * of a string constant); NULL when expr is not a constant. */
const json_t *sluice_sqltree_constant(const json_t *expr);

/* The operator of a comparison's expression type ("COMPARE_EQUAL" -> "=", NOTEQUAL "<>",
 * LESSTHAN "<", GREATERTHAN ">", ..OREQUALTO "<=" / ">="), or, flipped, the operator that holds
 * with the operands swapped ("<" becomes ">"); NULL for any other type. */
const char *sluice_sqltree_comparison(const char *type, bool flipped);

#endif
