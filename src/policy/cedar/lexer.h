/*
 * lexer.h — Cedar tokens.
 *
 * Owns: splitting policy text into tokens (kind + byte span), skipping blanks and // comments.
 * Does not own: keywords (identifiers; the parser decides by position) or string unescaping
 * (parser.c, because `\*` means something only inside a `like` pattern).
 */
#ifndef SLUICE_POLICY_CEDAR_LEXER_H
#define SLUICE_POLICY_CEDAR_LEXER_H

#include <stddef.h>
#include <stdint.h>

typedef enum cedar_tok_kind {
    TK_EOF,
    TK_ILLEGAL,      /* a byte no token starts with */
    TK_UNTERMINATED, /* a string with no closing quote */
    TK_IDENT,
    TK_INT,
    TK_STR, /* span includes the quotes; escapes not yet decoded */
    TK_AT,
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACKET,
    TK_RBRACKET,
    TK_LBRACE,
    TK_RBRACE,
    TK_COMMA,
    TK_SEMI,
    TK_COLON,
    TK_PATHSEP, /* :: */
    TK_DOT,
    TK_EQ, /* == */
    TK_NE, /* != */
    TK_LT,
    TK_LE,
    TK_GT,
    TK_GE,
    TK_AND, /* && */
    TK_OR,  /* || */
    TK_NOT, /* ! */
    TK_PLUS,
    TK_MINUS,
    TK_STAR,
    TK_QUESTION,
    TK_ASSIGN, /* a lone '=' (always an error, but a nicer one) */
} cedar_tok_kind;

typedef struct cedar_token {
    cedar_tok_kind kind;
    uint32_t off; /* byte offset in the text */
    uint32_t len;
} cedar_token;

/* Reads the token starting at or after pos (blanks and comments skipped). Never fails: bad
 * input is TK_ILLEGAL or TK_UNTERMINATED with the offending span. */
cedar_token sluice_cedar_lex(const char *text, size_t len, size_t pos);

#endif
