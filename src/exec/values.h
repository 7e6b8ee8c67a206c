/*
 * values.h — what every executor shares when it turns engine output into a result: JSON values
 * for text and bytes, the row accumulator that enforces max_rows / max_bytes, variable checks
 * and the binding of a variable by its JSON kind,
 * the clock, and the timeout / cancellation messages.
 *
 * Owns: the result conventions listed in executor.h that do not depend on an engine.
 * Does not own: any engine's types (exec/duckdb.c, exec/sqlite.c convert their own values).
 */
#ifndef SLUICE_EXEC_VALUES_H
#define SLUICE_EXEC_VALUES_H

#include "core/buf.h"
#include "exec/executor.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A JSON string from bytes that should be UTF-8; invalid sequences become U+FFFD, never an
 * error, so hostile data cannot make a result unencodable. NULL only when out of memory. */
json_t *sluice_exec_json_text(const char *s, size_t len);

/* Base64 (standard alphabet, padded) of the bytes, as a JSON string. */
json_t *sluice_exec_json_blob(const void *data, size_t len);

/* A JSON number, or the strings "NaN", "Infinity", "-Infinity" which JSON cannot carry. */
json_t *sluice_exec_json_real(double value);

/* The JSON text of values as the rows text holds them, appended to b (whose sticky status says
 * whether it fit): the same bytes as jansson's compact dump of the value, but for reals, which
 * print shortest (8943927.12, not 8943927.1199999992). text_real writes NaN and the infinities
 * as the strings sluice_exec_json_real makes; text_string writes s as sluice_exec_json_text would
 * hold it (invalid UTF-8 as U+FFFD). text_value: false when out of memory. */
void sluice_exec_text_integer(sluice_buf *b, int64_t value);
void sluice_exec_text_real(sluice_buf *b, double value);
void sluice_exec_text_string(sluice_buf *b, const char *s, size_t len);
bool sluice_exec_text_value(sluice_buf *b, const json_t *value);

/* Rows gathered under the limits. The array is owned by the arena given to init; NULL when the
 * rows are gathered as text only (sluice_exec_rows_init_text). */
typedef struct sluice_exec_rows {
    json_t *rows;
    size_t count;
    size_t bytes;    /* compact JSON size of rows so far, brackets and commas included */
    sluice_buf text; /* each row's compact JSON and a newline: measured once, shown as is */
    bool truncated;
    const char *truncated_by;
    int64_t max_rows;
    size_t max_bytes;
} sluice_exec_rows;

sluice_status
sluice_exec_rows_init(sluice_exec_rows *acc, sluice_arena *arena, const sluice_exec_limits *limits);

/* Takes ownership of row. *more becomes false once a limit is reached (the row that reached it
 * is dropped and truncated is set): the caller stops fetching. */
sluice_status sluice_exec_rows_add(sluice_exec_rows *acc, json_t *row, bool *more);

/* Rows gathered as text only, for a request with rows_text_only: the engine writes each value
 * straight into acc->text, and no tree of the rows is built (the result's rows stay NULL).
 * Per row: sluice_exec_rows_room (false once max_rows rows were kept: the result is truncated,
 * *more false, stop), then the row's compact JSON array written at the end of acc->text from
 * start = acc->text.len, then sluice_exec_rows_end_text (drops the row's text again when it would
 * pass max_bytes; SLUICE_E_NOMEM when acc->text failed). */
sluice_status sluice_exec_rows_init_text(sluice_exec_rows *acc,
                                         sluice_arena *arena,
                                         const sluice_exec_limits *limits);
bool sluice_exec_rows_room(sluice_exec_rows *acc, bool *more);
sluice_status sluice_exec_rows_end_text(sluice_exec_rows *acc, size_t start, bool *more);

/* Copies the accumulator into the result. */
void sluice_exec_rows_finish(const sluice_exec_rows *acc, sluice_exec_result *out);

/* Looks up the variable a parameter refers to; name has no sigil ("id", "1"). Marks it used in
 * used[] (one flag per json_object key, in iteration order). NULL when absent. */
const json_t *sluice_exec_variable(const json_t *vars, const char *name, bool *used);

/* How an engine binds a value to parameter i (1-based) of its prepared statement, one op per JSON
 * kind a variable may have; each returns the engine's own code, 0 when bound. */
typedef struct sluice_exec_bind_ops {
    int (*text)(void *stmt, size_t i, const char *s, size_t len);
    int (*integer)(void *stmt, size_t i, int64_t v);
    int (*real)(void *stmt, size_t i, double v);
    int (*boolean)(void *stmt, size_t i, bool v);
    int (*null)(void *stmt, size_t i);
} sluice_exec_bind_ops;

/* One statement to bind through an engine's ops, and where a refusal goes. */
typedef struct sluice_exec_binding {
    const sluice_exec_bind_ops *ops;
    void *stmt;
    sluice_arena *arena;
    sluice_error *err;
} sluice_exec_binding;

/* Binds the variable v (named name) to parameter i: SLUICE_OK with *rc the engine's code (0:
 * bound; the engine words its own failure), or SLUICE_E_INVALID naming the variable when v is an
 * array or an object: only a string, number, boolean or null is bound, so that the same
 * variables mean the same on every engine and a value never becomes SQL text. */
sluice_status sluice_exec_bind(
    const sluice_exec_binding *b, size_t i, const char *name, const json_t *v, int *rc);

/* After binding: the first variable no parameter used is an error (so a typo is not silently
 * ignored); SLUICE_OK when all were used. used has json_object_size(vars) flags. */
sluice_status sluice_exec_variables_all_used(const json_t *vars,
                                             const bool *used,
                                             sluice_arena *arena,
                                             sluice_error *err);

/* Monotonic milliseconds: sluice_clock_monotonic_ms(NULL), kept under this name for
 * exec/postgres.c until its rewrite (issue 21) calls the clock directly. */
int64_t sluice_exec_now_ms(void);

/* "the query was stopped after 30 s (execution_timeout_seconds)" as SLUICE_E_TIMEOUT. */
sluice_status
sluice_exec_timeout_error(sluice_error *err, sluice_arena *arena, const sluice_exec_limits *limits);

/* "the query was cancelled by the client" as SLUICE_E_CANCELLED. */
sluice_status sluice_exec_cancelled_error(sluice_error *err, sluice_arena *arena);

#endif
