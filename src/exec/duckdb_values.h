/*
 * duckdb_values.h — DuckDB vectors to JSON values and type names, for the DuckDB executor.
 *
 * Owns: the mapping of every DuckDB type this build knows to the JSON conventions in
 * executor.h, and the test for types it cannot convert (those are cast to VARCHAR by the query
 * wrapper in duckdb.c).
 * Does not own: fetching (duckdb.c).
 */
#ifndef SLUICE_EXEC_DUCKDB_VALUES_H
#define SLUICE_EXEC_DUCKDB_VALUES_H

#include "core/arena.h"
#include "core/buf.h"
#include "exec/values.h"

#include <duckdb.h>
#include <jansson.h>
#include <stdbool.h>

/* The value at row of vec (of logical type type) as a new JSON value; NULL when out of memory. */
json_t *sluice_duck_value(duckdb_vector vec, duckdb_logical_type type, idx_t row);

/* Row row of chunk (ncols columns of the given types) written straight into acc's rows text
 * (sluice_exec_rows_init_text), each value as sluice_duck_value would convert it and the rows
 * text would print it, without a json_t but for nested, enum, BLOB and BIT values. *more false:
 * a limit was reached (exec/values.h); SLUICE_E_NOMEM when the text could not grow. */
sluice_status sluice_duck_row_text(sluice_exec_rows *acc,
                                   duckdb_data_chunk chunk,
                                   const duckdb_logical_type *types,
                                   idx_t ncols,
                                   idx_t row,
                                   bool *more);

/* True when sluice_duck_value converts type (recursively for nested types). */
bool sluice_duck_type_supported(duckdb_logical_type type);

/* Appends name quoted as a DuckDB identifier ("a""b") to b (its own failure contract). */
void sluice_duck_put_ident(sluice_buf *b, const char *name);

/* SQL text of a type: "INTEGER", "DECIMAL(18,2)", "VARCHAR[]", "STRUCT(a INTEGER)", ... */
char *sluice_duck_type_text(sluice_arena *arena, duckdb_logical_type type);

#endif
