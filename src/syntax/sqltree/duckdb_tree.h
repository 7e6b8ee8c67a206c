/*
 * duckdb_tree.h — readers of DuckDB's serialized trees: the parse tree json_serialize_sql gives
 * and the bound plan, as the bind unit's arena trees (core/tree.h: lang/sql's facts,
 * amplification, blocked-predicate checks and plan walk), and query mode's parse trees, which
 * are still jansson values (querymode/pushdown.c). One place that knows how a member, a source
 * position, a constant and a comparison are spelled in them.
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
const char *sluice_sqltree_str(const sluice_tree *node, const char *key);

/* The byte offset in the statement's text DuckDB recorded for node ("query_location"), or
 * SIZE_MAX when it recorded none (nodes DuckDB made itself carry 2^64 - 1). A node without the
 * member reads as offset 0, as DuckDB never omits it. */
size_t sluice_sqltree_location(const sluice_tree *node);

/* The value object ({"type": {"id": ...}, "is_null": ..., "value": ...}) of a parse tree's
 * constant expression, seen through one CAST (a typed literal such as DATE '2026-04-01' arrives
 * as a cast of a string constant); NULL when expr is not a constant. */
const sluice_tree *sluice_sqltree_constant(const sluice_tree *expr);

/* The same reads on a parse tree held as jansson values (query mode), and whether node's string
 * member key equals value. */
const char *sluice_sqltree_json_str(const json_t *node, const char *key);
bool sluice_sqltree_json_is(const json_t *node, const char *key, const char *value);
size_t sluice_sqltree_json_location(const json_t *node);
const json_t *sluice_sqltree_json_constant(const json_t *expr);

/* The operator of a comparison's expression type ("COMPARE_EQUAL" -> "=", NOTEQUAL "<>",
 * LESSTHAN "<", GREATERTHAN ">", ..OREQUALTO "<=" / ">="), or, flipped, the operator that holds
 * with the operands swapped ("<" becomes ">"); NULL for any other type. */
const char *sluice_sqltree_comparison(const char *type, bool flipped);

#endif
