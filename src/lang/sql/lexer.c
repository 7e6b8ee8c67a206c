/*
 * lexer.c — splits SQL text (DuckDB/PostgreSQL lexical rules) into tokens.
 *
 * Owns: token boundaries only: whitespace, -- and nested block comments, quoted strings
 * ('..' with '' escapes, E'..' with backslash escapes, $$..$$ and $tag$..$tag$), quoted
 * identifiers, numbers, parameters, ';' and operators. Used to canonicalize non-SELECT
 * statements and to say where a second statement starts.
 * Does not own: deciding what the text means; DuckDB's parser does that and is the authority.
 * Like sqlite3GetToken(): returns a length, writes a kind, allocates nothing, never aborts.
 */
#include "lang/sql/lexer.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static bool is_word_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80;
}

static bool is_word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Length of a quoted run starting at p (the opening quote q), doubling q escapes it; with
 * backslash, \x escapes too. 0 when unterminated. */
static size_t quoted(const char *t, size_t len, size_t p, char q, bool backslash)
{
    for (size_t i = p + 1; i < len; i++) {
        if (backslash && t[i] == '\\') {
            i++;
            continue;
        }
        if (t[i] == q) {
            if (i + 1 < len && t[i + 1] == q) {
                i++;
                continue;
            }
            return i + 1 - p;
        }
    }
    return 0;
}

/* $tag$ ... $tag$ (tag may be empty). Returns 0 when p does not open a dollar quote or it is
 * unterminated (*open tells which). */
static size_t dollar_quoted(const char *t, size_t len, size_t p, bool *open)
{
    size_t i = p + 1;
    while (i < len && t[i] != '$' && (isalnum((unsigned char)t[i]) || t[i] == '_'))
        i++;
    *open = i < len && t[i] == '$' && !(i > p + 1 && isdigit((unsigned char)t[p + 1]));
    if (!*open)
        return 0;
    size_t tag_len = i + 1 - p;
    for (size_t j = i + 1; j + tag_len <= len; j++)
        if (t[j] == '$' && memcmp(t + j, t + p, tag_len) == 0)
            return j + tag_len - p;
    return 0;
}

static size_t block_comment(const char *t, size_t len, size_t p)
{
    size_t depth = 0;
    for (size_t i = p; i + 1 < len; i++) {
        if (t[i] == '/' && t[i + 1] == '*') {
            depth++;
            i++;
        } else if (t[i] == '*' && t[i + 1] == '/') {
            i++;
            if (--depth == 0)
                return i + 1 - p;
        }
    }
    return 0;
}

static size_t number(const char *t, size_t len, size_t p)
{
    size_t i = p;
    while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '.' || t[i] == '_'))
        i++;
    /* exponent sign: 1e-5 */
    if (i < len && (t[i] == '-' || t[i] == '+') && i > p && (t[i - 1] == 'e' || t[i - 1] == 'E'))
        return number(t, len, i + 1) + (i + 1 - p);
    return i - p;
}

size_t sluice_sql_lex(const char *t, size_t len, size_t p, sluice_sql_token *kind)
{
    if (p >= len) {
        *kind = SLUICE_SQL_TK_END;
        return 0;
    }
    unsigned char c = (unsigned char)t[p];
    size_t n;
    if (isspace(c)) {
        for (n = 1; p + n < len && isspace((unsigned char)t[p + n]); n++)
            ;
        *kind = SLUICE_SQL_TK_SPACE;
        return n;
    }
    if (c == '-' && p + 1 < len && t[p + 1] == '-') {
        for (n = 2; p + n < len && t[p + n] != '\n'; n++)
            ;
        *kind = SLUICE_SQL_TK_COMMENT;
        return n;
    }
    if (c == '/' && p + 1 < len && t[p + 1] == '*') {
        n = block_comment(t, len, p);
        *kind = n > 0 ? SLUICE_SQL_TK_COMMENT : SLUICE_SQL_TK_ILLEGAL;
        return n > 0 ? n : len - p;
    }
    if ((c == 'e' || c == 'E') && p + 1 < len && t[p + 1] == '\'') {
        n = quoted(t, len, p + 1, '\'', true);
        *kind = n > 0 ? SLUICE_SQL_TK_STRING : SLUICE_SQL_TK_ILLEGAL;
        return n > 0 ? n + 1 : len - p;
    }
    if (c == '\'' || c == '"') {
        n = quoted(t, len, p, (char)c, false);
        *kind = n == 0 ? SLUICE_SQL_TK_ILLEGAL
                       : (c == '\'' ? SLUICE_SQL_TK_STRING : SLUICE_SQL_TK_QUOTED);
        return n > 0 ? n : len - p;
    }
    if (c == '$') {
        bool open;
        n = dollar_quoted(t, len, p, &open);
        if (open) {
            *kind = n > 0 ? SLUICE_SQL_TK_STRING : SLUICE_SQL_TK_ILLEGAL;
            return n > 0 ? n : len - p;
        }
        for (n = 1; p + n < len && is_word_char((unsigned char)t[p + n]); n++)
            ;
        *kind = SLUICE_SQL_TK_PARAM;
        return n;
    }
    if (c == '?') {
        *kind = SLUICE_SQL_TK_PARAM;
        return 1;
    }
    if (c == ';') {
        *kind = SLUICE_SQL_TK_SEMI;
        return 1;
    }
    if (isdigit(c) || (c == '.' && p + 1 < len && isdigit((unsigned char)t[p + 1]))) {
        *kind = SLUICE_SQL_TK_NUMBER;
        return number(t, len, p);
    }
    if (is_word_start(c)) {
        for (n = 1; p + n < len && is_word_char((unsigned char)t[p + n]); n++)
            ;
        *kind = SLUICE_SQL_TK_WORD;
        return n;
    }
    *kind = SLUICE_SQL_TK_OTHER;
    return 1;
}

size_t sluice_sql_second_statement(const char *text, size_t len)
{
    size_t p = 0;
    bool after_semi = false;
    while (p < len) {
        sluice_sql_token k;
        size_t n = sluice_sql_lex(text, len, p, &k);
        if (n == 0 || k == SLUICE_SQL_TK_ILLEGAL)
            return len;
        if (after_semi && k != SLUICE_SQL_TK_SPACE && k != SLUICE_SQL_TK_COMMENT &&
            k != SLUICE_SQL_TK_SEMI)
            return p;
        if (k == SLUICE_SQL_TK_SEMI)
            after_semi = true;
        p += n;
    }
    return len;
}
