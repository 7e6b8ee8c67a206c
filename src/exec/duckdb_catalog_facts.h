/*
 * duckdb_catalog_facts.h — what DuckDB's catalog says about a schema beyond names and types,
 * for code-mode://schema: primary and foreign keys (duckdb_constraints()) and the few distinct
 * values of enum-like text columns.
 *
 * Owns: those two reads into an already listed schema (exec/duckdb.c lists tables and columns
 * first). Does not own: which columns are blocked or hidden (set later by the rules; the schema
 * resource never shows a blocked column's values) nor how the facts are worded (codemode/guide.c).
 */
#ifndef SLUICE_EXEC_DUCKDB_CATALOG_FACTS_H
#define SLUICE_EXEC_DUCKDB_CATALOG_FACTS_H

#include "core/arena.h"
#include "exec/schema.h"

#include <duckdb.h>

/* Marks primary-key columns and sets references ("table.column") of foreign-key columns.
 * SLUICE_E_NOMEM when memory runs out; a catalog that cannot be read leaves the schema as it
 * was (SLUICE_OK: the keys are a help, not a guarantee). */
sluice_status
sluice_duckdb_schema_keys(duckdb_connection conn, sluice_arena *arena, sluice_schema *s);

/* Sets values on the text columns of tables up to SLUICE_LIMIT_SCHEMA_VALUES_ROWS rows whose
 * distinct values are few (at most SLUICE_LIMIT_SCHEMA_VALUES, each short, each repeated),
 * probing at most SLUICE_LIMIT_SCHEMA_VALUES_COLUMNS columns. SLUICE_E_NOMEM when memory runs
 * out; a probe that fails leaves that column without values. */
sluice_status
sluice_duckdb_schema_values(duckdb_connection conn, sluice_arena *arena, sluice_schema *s);

#endif
