/*
 * lexer.h (lang/sql) — the SQL tokenizer both SQL analyzers share (DuckDB's in lang/sql, the
 * PostgreSQL one in lang/pgsql, which bounds the text with it before libpg_query parses it).
 *
 * Owns: token kinds, sluice_sql_lex and where a second statement starts (lexer.c).
 * Does not own: what the tokens mean (the engines' parsers decide).
 */
#ifndef SLUICE_LANG_SQL_LEXER_H
#define SLUICE_LANG_SQL_LEXER_H

#include <stddef.h>

typedef enum sluice_sql_token {
    SLUICE_SQL_TK_END = 0,
    SLUICE_SQL_TK_SPACE,
    SLUICE_SQL_TK_COMMENT,
    SLUICE_SQL_TK_WORD,   /* keyword or unquoted identifier */
    SLUICE_SQL_TK_QUOTED, /* "identifier" */
    SLUICE_SQL_TK_STRING, /* 'text', E'text', $$text$$, $tag$text$tag$ */
    SLUICE_SQL_TK_NUMBER,
    SLUICE_SQL_TK_PARAM, /* ?, $1, $name */
    SLUICE_SQL_TK_SEMI,
    SLUICE_SQL_TK_OTHER,   /* operators and punctuation */
    SLUICE_SQL_TK_ILLEGAL, /* an unterminated string, identifier or comment */
} sluice_sql_token;

/* Scans one token at text[pos..len): returns its length (>= 1 unless at the end) and writes the
 * kind. Allocates nothing; never reads past len. */
size_t sluice_sql_lex(const char *text, size_t len, size_t pos, sluice_sql_token *kind);

/* Byte offset where the second statement starts (the first token after the first top-level ';'
 * that is not space or comment), or len when there is none. */
size_t sluice_sql_second_statement(const char *text, size_t len);

#endif
