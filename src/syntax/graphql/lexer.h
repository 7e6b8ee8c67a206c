/*
 * lexer.h — GraphQL tokens (internal to src/lang/graphql/).
 *
 * Owns: reading one significant token at a byte offset (skipping whitespace, commas, BOMs and
 * comments), decoding string and block-string values (escapes, surrogate pairs, \u{...},
 * BlockStringValue dedent), and the graphql-js wording of every lexical error.
 * Does not own: grammar (parser.c) or limits on token counts (the parser charges them).
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_LEXER_H
#define SLUICE_SYNTAX_GRAPHQL_LEXER_H

#include "core/arena.h"
#include "core/error.h"
#include "syntax/graphql/ast.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gql_tok_kind {
    GT_SOF,
    GT_EOF,
    GT_BANG,
    GT_DOLLAR,
    GT_AMP,
    GT_LPAREN,
    GT_RPAREN,
    GT_SPREAD,
    GT_COLON,
    GT_EQUALS,
    GT_AT,
    GT_LBRACKET,
    GT_RBRACKET,
    GT_LBRACE,
    GT_PIPE,
    GT_RBRACE,
    GT_NAME,
    GT_INT,
    GT_FLOAT,
    GT_STRING,
    GT_BLOCK_STRING,
} gql_tok_kind;

typedef struct gql_token {
    gql_tok_kind kind;
    uint32_t start; /* byte offsets in the text */
    uint32_t end;
    /* Name, Int, Float: the source span. String, BlockString: the decoded value (arena). */
    sluice_gql_str value;
} gql_token;

typedef struct gql_lexer {
    sluice_arena *arena;
    const char *text;
    size_t len;
    const char *source; /* for errors */
    sluice_error *err;
} gql_lexer;

/* Reads the token at or after byte pos into *out. SLUICE_E_INVALID with err set (graphql-js's
 * message, line, column) on a lexical error; SLUICE_E_NOMEM when a string cannot be decoded. */
sluice_status sluice_gql_lex(gql_lexer *lx, size_t pos, gql_token *out);

/* graphql-js's name of a token kind: "Name", "<EOF>", "\"{\"" ... */
const char *sluice_gql_token_kind_desc(gql_tok_kind kind);

/* Sets err to prefix + the formatted text at byte offset of text (line and column computed);
 * returns status. err NULL does nothing. Shared by the lexer, parser and schema builder. */
sluice_status sluice_gql_verror(sluice_arena *arena,
                                sluice_error *err,
                                const char *source,
                                const char *text,
                                size_t len,
                                sluice_status status,
                                size_t offset,
                                const char *prefix,
                                const char *fmt,
                                va_list ap) __attribute__((format(printf, 9, 0)));

/* Sets err to "Syntax Error: <fmt>" at byte offset of the lexer's text; returns status. */
sluice_status
sluice_gql_error_at(gql_lexer *lx, sluice_status status, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
