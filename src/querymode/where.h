/*
 * where.h — the `where` argument of `load`: a conjunction of simple comparisons
 * (`Date >= '2026-01-01' AND Status = 'paid'`), parsed so each can be pushed onto a request
 * parameter. Never executed as SQL.
 *
 * Owns: the grammar term (AND term)*, term = column op literal | column IN (literal, ...) |
 * column BETWEEN literal AND literal, op one of = >= > <= <, literal a 'string' ('' escapes a
 * quote), a number, DATE 'x' or TIMESTAMP 'x'. BETWEEN becomes two terms (>= and <=); IN is one
 * "=" term with several values (the load fans out over them). Does not own: which parameter a
 * term maps to (fanout.c).
 */
#ifndef SLUICE_QUERYMODE_WHERE_H
#define SLUICE_QUERYMODE_WHERE_H

#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>

/* Longest where text and most terms in one. */
#define SLUICE_QM_WHERE_MAX_BYTES 4096u
#define SLUICE_QM_WHERE_MAX_TERMS 32u
/* Most values in one IN list. */
#define SLUICE_QM_WHERE_MAX_IN 256u

typedef struct sluice_qm_term {
    const char *column;
    const char *op; /* "=", ">=", ">", "<=", "<" (static) */
    const char **values;
    size_t value_count; /* >= 1; more than one only for "=" (an IN list) */
    size_t column_at;   /* 1-based position of the column in the text */
} sluice_qm_term;

/* Parses text into terms (in arena). SLUICE_E_INVALID with the 1-based column of the problem
 * and what is expected there; SLUICE_E_LIMIT past the limits above. */
sluice_status sluice_qm_where_parse(
    const char *text, sluice_arena *arena, sluice_qm_term **out, size_t *count, sluice_error *err);

#endif
