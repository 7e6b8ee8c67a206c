/*
 * graphql.h — GraphQL syntax: parse a document, print its canonical form, hash it.
 *
 * Owns: the public entry points of src/syntax/graphql/ (lexer.c, parser.c, printer.c) and the
 * parse limits. Errors are graphql-js 16's wording ("Syntax Error: Expected Name, found
 * <EOF>.") with a 1-based line and column (in characters) in the sluice_error, so what a client
 * sees matches what every GraphQL tool says about the same document.
 * Does not own: validation against a schema, execution, CodeFacts (the pipeline's front end).
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_H
#define SLUICE_SYNTAX_GRAPHQL_H

#include "core/arena.h"
#include "core/error.h"
#include "syntax/graphql/ast.h"

#include <stddef.h>

/* Ceilings for one parse. A zero field means the operation default from core/limits.h
 * (SLUICE_LIMIT_GRAPHQL_*); a larger value is capped at the schema ceiling
 * (SLUICE_LIMIT_GRAPHQL_SDL_*) and the depth never passes SLUICE_LIMIT_GRAPHQL_DEPTH. An
 * upstream SDL schema uses sluice_graphql_sdl_limits(); config's graphql_max_tokens and
 * graphql_max_chars may be passed here to refuse early. */
typedef struct sluice_graphql_limits {
    size_t max_bytes;   /* document size in bytes */
    size_t max_tokens;  /* significant tokens (graphql-js's maxTokens) */
    unsigned max_depth; /* nesting of selection sets, list/object values and list types */
} sluice_graphql_limits;

/* The limits for a schema file: larger documents, same recursion bound. */
sluice_graphql_limits sluice_graphql_sdl_limits(void);

/* Parses text[0..len) (need not be NUL-terminated; must outlive the tree) into *out.
 * limits NULL = operation defaults. Returns SLUICE_OK, SLUICE_E_INVALID (syntax: err has
 * message, line, column, offset), SLUICE_E_LIMIT (a ceiling hit: err names it, its value and
 * where) or SLUICE_E_NOMEM. *out is set only on SLUICE_OK. source names the text in errors. */
sluice_status sluice_graphql_parse(sluice_arena *arena,
                                   const char *text,
                                   size_t len,
                                   const char *source,
                                   const sluice_graphql_limits *limits,
                                   sluice_gql_document **out,
                                   sluice_error *err);

/* The canonical text of doc, byte for byte what graphql-js 16's print(parse(text)) gives:
 * whitespace, commas and comments normalised, literals, order and selections kept.
 * NUL-terminated in arena, *out_len without the NUL. NULL on allocation failure. */
char *sluice_graphql_print(sluice_arena *arena, const sluice_gql_document *doc, size_t *out_len);

/* Parses text and writes the lower-case hex SHA-256 of its canonical form into out_hex (65
 * bytes with the NUL). Same failures as sluice_graphql_parse (out_hex untouched then). */
sluice_status sluice_graphql_canonical_hash(sluice_arena *arena,
                                            const char *text,
                                            size_t len,
                                            const sluice_graphql_limits *limits,
                                            char out_hex[65],
                                            sluice_error *err);

#endif
