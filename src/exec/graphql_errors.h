/*
 * graphql_errors.h — what the caller is told of an upstream GraphQL server's `errors`.
 *
 * An upstream's error messages are its own text and may quote any value it holds: a resolver
 * that names the record it failed on ("no credit record for ... with ssn 123-45-6789"),
 * graphql-js serialising a value of the wrong type ("Int cannot represent non-integer value:
 * ..."), a message in any encoding. sluice never sees the blocked values (it does not ask for
 * them), so it cannot look for them; instead it keeps only words it knows are not data.
 *
 * Owns: the message filter. Kept: the names of the schema (types, fields, arguments, input
 * fields: never enum values, which are values a field can hold), a fixed vocabulary of the words
 * error messages are made of (graphql-js's and common servers'), numbers of at most two digits,
 * and punctuation; every other word becomes "…". `path`, `locations` and `extensions` are never
 * passed on (extensions carry records, paths carry the caller's aliases and indexes only).
 * Does not own: the HTTP exchange (graphql_http.c).
 */
#ifndef SLUICE_EXEC_GRAPHQL_ERRORS_H
#define SLUICE_EXEC_GRAPHQL_ERRORS_H

#include "core/arena.h"
#include "syntax/graphql/schema.h"

#include <jansson.h>

/* The messages of errors (the response's `errors` array), each filtered, joined with "; ", at
 * most max_bytes (a longer text is cut at a character boundary and ends with "…"), in arena;
 * NULL when out of memory. schema may be NULL: then only the vocabulary is kept. */
const char *sluice_graphql_error_text(sluice_arena *arena,
                                      const json_t *errors,
                                      const sluice_gql_schema *schema,
                                      size_t max_bytes);

#endif
