/*
 * toml_lex.h — the TOML lexer: splits TOML text into tokens (kind + byte span).
 *
 * Owns: token boundaries, string extents (where a string closes, not what it means), control
 * characters and lone carriage returns (as error tokens), and UTF-8 validation of the input.
 * Does not own: meaning. Escapes, numbers, dates and the key/table rules are the parser's
 * (toml.c). The lexer allocates nothing and never fails: bad bytes become error tokens.
 */
#ifndef SLUICE_CONFIG_TOML_LEX_H
#define SLUICE_CONFIG_TOML_LEX_H

#include <stddef.h>

typedef enum sluice_toml_tok_kind {
    SLUICE_TOML_TOK_EOF,
    SLUICE_TOML_TOK_NEWLINE, /* "\n" or "\r\n" */
    SLUICE_TOML_TOK_COMMENT, /* '#' up to (not including) the end of the line */
    SLUICE_TOML_TOK_EQUALS,
    SLUICE_TOML_TOK_DOT, /* key mode only; in value mode '.' belongs to the atom */
    SLUICE_TOML_TOK_COMMA,
    SLUICE_TOML_TOK_LBRACKET,
    SLUICE_TOML_TOK_RBRACKET,
    SLUICE_TOML_TOK_LBRACE,
    SLUICE_TOML_TOK_RBRACE,
    /* Key mode: a bare key [A-Za-z0-9_-]+. Value mode: a number, boolean or date-time atom
     * [A-Za-z0-9_+.:-]+ (a date followed by " HH:" keeps going, for "1979-05-27 07:32:00"). */
    SLUICE_TOML_TOK_BARE,
    SLUICE_TOML_TOK_BASIC,      /* "..." quotes included */
    SLUICE_TOML_TOK_LITERAL,    /* '...' */
    SLUICE_TOML_TOK_ML_BASIC,   /* """...""" */
    SLUICE_TOML_TOK_ML_LITERAL, /* '''...''' */
    SLUICE_TOML_TOK_OTHER,      /* one printable character that starts no token here */
    /* Error tokens. BAD_BYTE: span is a control character or lone CR; `inside` says where.
     * UNTERMINATED: a string whose line or file ended first; span runs from the opener to
     * where it ended. */
    SLUICE_TOML_TOK_BAD_BYTE,
    SLUICE_TOML_TOK_UNTERMINATED,
} sluice_toml_tok_kind;

typedef enum sluice_toml_lex_mode {
    SLUICE_TOML_LEX_KEY,   /* keys and table headers: bare keys and '.' */
    SLUICE_TOML_LEX_VALUE, /* after '=' and inside arrays: value atoms */
} sluice_toml_lex_mode;

typedef struct sluice_toml_token {
    sluice_toml_tok_kind kind;
    size_t start;
    size_t end; /* one past the last byte */
    /* BAD_BYTE and UNTERMINATED: the construct being read (a string kind or COMMENT; EOF when
     * outside any) and where it opened. */
    sluice_toml_tok_kind inside;
    size_t open;
} sluice_toml_token;

/* Skips spaces and tabs from pos, then reads one token of src[0..len). Never reads past len. */
sluice_toml_token
sluice_toml_lex_next(const char *src, size_t len, size_t pos, sluice_toml_lex_mode mode);

/* Offset of the first byte of src[0..len) that is not well-formed UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF included), or len when all of it is. */
size_t sluice_toml_lex_utf8_check(const char *src, size_t len);

#endif
