/*
 * scratch.h — query mode's per-session scratch database: an in-memory engine hardened like code
 * mode's (no external access, settings locked, no extensions) whose only allowed directory and
 * temp folder is the session's spill folder, and the loader's way in: tables created from
 * declared columns and filled through the engine's appender, never through SQL text built from
 * the data.
 *
 * Owns: opening the session database, CREATE/DROP of session tables (identifiers quoted, types
 * from a fixed list), appending JSON rows. Does not own: which rows arrive (querymode/), what
 * may be queried (the SQL front end and the executor's statement gate), session lifetimes.
 * Engine-neutral for its callers: the implementation lives in exec/duckdb_scratch.c and
 * exec/duckdb_import.c, on the engine (exec/duckdb.h); a session database is an ordinary
 * sluice_executor for queries. Opening one is the engine's own (exec/duckdb.c, with the served
 * database's hardening list), declared below it in scratch_open.h.
 *
 * Threads: one caller at a time per session database (query mode holds the session's lock).
 */
#ifndef SLUICE_EXEC_SCRATCH_H
#define SLUICE_EXEC_SCRATCH_H

#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"
#include "exec/scratch_open.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest table or column name (DuckDB allows more; nobody needs it). */
#define SLUICE_SCRATCH_NAME_MAX 63u

/* True for a plain identifier sluice accepts as a table or column name: [A-Za-z_][A-Za-z0-9_]*,
 * at most SLUICE_SCRATCH_NAME_MAX bytes. */
bool sluice_scratch_name_ok(const char *name);

/* True for a column type a session table may have: VARCHAR, BIGINT, INTEGER, DOUBLE, BOOLEAN,
 * DATE, TIMESTAMP, DECIMAL(p,s) (case-insensitive). */
bool sluice_scratch_type_ok(const char *type);

typedef struct sluice_scratch_table sluice_scratch_table;

/* Replaces table (dropped first if it exists) by an empty one with these columns, and opens an
 * appender on it. Names must pass sluice_scratch_name_ok and types sluice_scratch_type_ok
 * (SLUICE_E_INVALID naming the offender). *out lives in arena; end it with
 * sluice_scratch_finish. */
sluice_status sluice_scratch_create(sluice_executor *ex,
                                    const char *table,
                                    const sluice_exec_column *columns,
                                    size_t column_count,
                                    sluice_arena *arena,
                                    sluice_scratch_table **out,
                                    sluice_error *err);

/* Appends one row: a JSON array of exactly column_count values (null, string, integer, real,
 * boolean; objects and arrays are stored as their compact JSON text). The engine casts each
 * value to its column's type; a value that does not fit is SLUICE_E_INVALID naming the row and
 * column. After any failure the table refuses further rows. */
sluice_status sluice_scratch_append(sluice_scratch_table *t, const json_t *row, sluice_error *err);

/* Flushes and closes the appender. keep = false (a cancelled or failed load) drops the table.
 * The rows appended so far become visible on success. Safe to call once after any failure. */
sluice_status sluice_scratch_finish(sluice_scratch_table *t, bool keep, sluice_error *err);

/* The parse tree of sql (DuckDB's json_serialize_sql: the first statement's "node"), parsed
 * only — nothing is bound or run, so no table needs to exist. *out is NULL when sql is not one
 * parseable SELECT (the caller's analysis reports why); it lives in arena. Numbers come back as
 * reals. SLUICE_E_ENGINE / SLUICE_E_NOMEM when the parser itself cannot run. */
sluice_status sluice_scratch_parse(
    sluice_executor *ex, const char *sql, sluice_arena *arena, json_t **out, sluice_error *err);

/* One condition on a row: column op value (op "=", ">=", ">", "<=", "<"; several values for
 * "=" mean IN), each value bound as text and cast to type (a sluice_scratch_type_ok type). */
typedef struct sluice_scratch_filter {
    const char *column;
    const char *type;
    const char *op;
    const char *const *values;
    size_t value_count;
} sluice_scratch_filter;

/* Most filters and bound values one sluice_scratch_distinct takes. */
#define SLUICE_SCRATCH_MAX_FILTERS 32u
#define SLUICE_SCRATCH_MAX_BOUND   512u

/* The distinct non-null values of table.column as text among the rows passing every filter (at
 * most max + 1, so the caller can tell "more than max"), sorted. Names must pass
 * sluice_scratch_name_ok, types sluice_scratch_type_ok, ops the list above (SLUICE_E_INVALID);
 * SLUICE_E_LIMIT past the limits above; SLUICE_E_ENGINE when the table or column does not exist.
 * Values are bound, never spliced. Strings in arena. */
sluice_status sluice_scratch_distinct(sluice_executor *ex,
                                      const char *table,
                                      const char *column,
                                      const sluice_scratch_filter *filters,
                                      size_t filter_count,
                                      size_t max,
                                      sluice_arena *arena,
                                      const char ***values,
                                      size_t *count,
                                      sluice_error *err);

/* A file source: format "csv", "parquet", "json" or "auto" (by the path's suffix). */
typedef struct sluice_scratch_import {
    const char *path; /* absolute, no quote characters */
    const char *format;
    const sluice_exec_column *columns; /* declared (read and cast), or NULL: the file's own */
    size_t column_count;
    int64_t max_rows;
    size_t max_bytes; /* the file's size cap */
    /* results */
    sluice_exec_column *out_columns; /* in arena */
    size_t out_column_count;
    int64_t rows;
    bool truncated;
} sluice_scratch_import;

/* Reads a file into a new session table (replacing one of that name). The file is read by a
 * transient engine of its own, allowed that one path and locked before it reads; the session
 * database never gets file access. The file's columns keep their names when they are plain
 * identifiers (others are skipped) and their types when sluice_scratch_type_ok allows them
 * (others become VARCHAR). Errors: SLUICE_E_INVALID (bad path or format, a file that does not
 * parse or lacks a declared column: the engine's message), SLUICE_E_LIMIT (larger than
 * max_bytes), SLUICE_E_IO (cannot stat it), SLUICE_E_ENGINE. */
sluice_status sluice_scratch_import_file(sluice_executor *ex,
                                         const char *table,
                                         sluice_scratch_import *im,
                                         sluice_arena *arena,
                                         sluice_error *err);

/* Drops table if it exists. SLUICE_E_INVALID for a bad name, SLUICE_E_ENGINE otherwise. */
sluice_status
sluice_scratch_drop(sluice_executor *ex, const char *table, sluice_arena *arena, sluice_error *err);

#endif
