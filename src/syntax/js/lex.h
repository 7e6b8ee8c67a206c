/*
 * lex.h — the tokens of the JavaScript plan language (a subset of ECMAScript 2023).
 *
 * Owns: the token kinds, the UTF-16 string type every later stage shares (JavaScript strings are
 * UTF-16 code units, so lengths, indexing and sort order must be too), and the lexer that turns a
 * whole plan into a token array (template literals included, with their substitutions).
 * Does not own: grammar (parse.h), refusals of constructs (the parser names them), canonical
 * hashing (lang/js/), or evaluation.
 */
#ifndef SLUICE_SYNTAX_JS_LEX_H
#define SLUICE_SYNTAX_JS_LEX_H

#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>
#include <stdint.h>

/* A JavaScript string: len UTF-16 code units. Immutable once built; arena-owned. */
typedef struct sluice_js_str {
    size_t len;
    uint16_t u[];
} sluice_js_str;

typedef enum sluice_js_tok_kind {
    SLUICE_JS_T_EOF = 0,
    SLUICE_JS_T_IDENT,    /* identifiers and keywords (the parser tells them apart) */
    SLUICE_JS_T_NUMBER,   /* num holds the value */
    SLUICE_JS_T_STRING,   /* str holds the cooked value */
    SLUICE_JS_T_TEMPLATE, /* one template chunk: `...${, }...${, }...` or `...`; str cooked */
    SLUICE_JS_T_PUNCT,    /* text holds the punctuator */
} sluice_js_tok_kind;

/* Template chunk flags (tok.flags). */
#define SLUICE_JS_TPL_HEAD 1u /* starts with ` */
#define SLUICE_JS_TPL_TAIL 2u /* ends with ` */

typedef struct sluice_js_tok {
    sluice_js_tok_kind kind;
    unsigned flags;
    int newline_before; /* a line break separates it from the previous token */
    const char *text;   /* the source bytes of the token */
    size_t len;
    size_t offset;
    uint32_t line, column; /* 1-based */
    double num;
    const sluice_js_str *str;
} sluice_js_tok;

typedef struct sluice_js_tokens {
    sluice_js_tok *toks; /* count tokens, the last one SLUICE_JS_T_EOF */
    size_t count;
} sluice_js_tokens;

/* Lexes code (len bytes, need not be NUL-terminated) into out, in arena. Comments and
 * whitespace are dropped. Failure: SLUICE_E_INVALID with err at the offending line/column and
 * what was expected (unterminated string, bad escape, regular expression literals, which the
 * language does not have); SLUICE_E_LIMIT past SLUICE_LIMIT_CODE_BYTES or SLUICE_LIMIT_JS_TOKENS
 * (the message names the limit); SLUICE_E_NOMEM. */
sluice_status sluice_js_lex(
    sluice_arena *arena, const char *code, size_t len, sluice_js_tokens *out, sluice_error *err);

/* "<what> (limit is <limit>)": the one wording of every limit of the plan language (lexer,
 * parser, interpreter), printing the ceiling's value, never its name. In arena; what itself on
 * NOMEM. */
const char *sluice_js_limit_text(sluice_arena *arena, const char *what, size_t limit);

/* True when tok is the punctuator p or the identifier/keyword p. */
int sluice_js_tok_is(const sluice_js_tok *tok, const char *p);

/* Builds a string from UTF-8 bytes (invalid bytes become U+FFFD). NULL on NOMEM. */
sluice_js_str *sluice_js_str_from_utf8(sluice_arena *arena, const char *s, size_t len);

/* A string of len units copied from u. NULL on NOMEM. */
sluice_js_str *sluice_js_str_new(sluice_arena *arena, const uint16_t *u, size_t len);

/* True when a equals the ASCII text s. */
int sluice_js_str_eq_ascii(const sluice_js_str *a, const char *s);

/* True when a and b hold the same units. */
int sluice_js_str_eq(const sluice_js_str *a, const sluice_js_str *b);

/* UTF-8 (lone surrogates as U+FFFD), NUL-terminated, in arena. NULL on NOMEM. */
char *sluice_js_str_utf8(sluice_arena *arena, const sluice_js_str *s);

#endif
