/*
 * toml_lex.c — the TOML lexer (see toml_lex.h).
 *
 * Owns: token boundaries and the byte-level rules (control characters, CR only before LF, UTF-8
 * well-formedness). Does not own: escapes, numbers, dates or tables (toml.c).
 *
 * TOML is context sensitive: "1.5" is a float after '=' but two keys in "1.5 = x", so the
 * parser tells the lexer which mode it is in. Like SQLite's sqlite3GetToken(), it allocates
 * nothing and turns bad input into error tokens that the parser reports.
 */
#include "config/toml_lex.h"

#include <stdbool.h>
#include <stdint.h>

typedef sluice_toml_token token;

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_bare_key_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '-';
}

/* Value atoms take every character a number, boolean or date-time can hold, so that "1.5e+3",
 * "0x_ff" or "1979-05-27T07:32:00Z" arrive whole and the parser can name what is wrong. */
static bool is_atom_char(unsigned char c)
{
    return is_bare_key_char(c) || c == '+' || c == '.' || c == ':';
}

/* TOML forbids U+0000..U+001F (tab aside) and U+007F outside newlines. */
static bool is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

static token make(sluice_toml_tok_kind kind, size_t start, size_t end)
{
    token t = { kind, start, end, SLUICE_TOML_TOK_EOF, start };
    return t;
}

static token bad_byte(size_t at, sluice_toml_tok_kind inside, size_t open)
{
    token t = { SLUICE_TOML_TOK_BAD_BYTE, at, at + 1, inside, open };
    return t;
}

/* Length of the UTF-8 character starting at src[pos] (input is validated, so trust the lead). */
static size_t char_length(const char *src, size_t len, size_t pos)
{
    unsigned char c = (unsigned char)src[pos];
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return pos + n <= len ? n : len - pos;
}

static size_t count_run(const char *src, size_t len, size_t pos, char c)
{
    size_t n = 0;
    while (pos + n < len && src[pos + n] == c)
        n++;
    return n;
}

/* Single-line basic ("...") or literal ('...') string starting at its quote. */
static token lex_line_string(const char *src, size_t len, size_t start, sluice_toml_tok_kind kind)
{
    char quote = src[start];
    size_t i = start + 1;
    while (i < len) {
        unsigned char c = (unsigned char)src[i];
        if (c == (unsigned char)quote)
            return make(kind, start, i + 1);
        if (c == '\n' || (c == '\r' && i + 1 < len && src[i + 1] == '\n'))
            break;
        if (is_control(c))
            return bad_byte(i, kind, start);
        /* An escaped quote or backslash does not end the string; other escapes are checked
         * when the parser decodes it. */
        if (kind == SLUICE_TOML_TOK_BASIC && c == '\\' && i + 1 < len &&
            (src[i + 1] == '"' || src[i + 1] == '\\'))
            i += 2;
        else
            i++;
    }
    token t = make(SLUICE_TOML_TOK_UNTERMINATED, start, i);
    t.inside = kind;
    return t;
}

/* Multi-line string starting at its three quotes. The closing run may hold up to five quotes:
 * the first one or two belong to the content. */
static token lex_ml_string(const char *src, size_t len, size_t start, sluice_toml_tok_kind kind)
{
    char quote = src[start];
    size_t i = start + 3;
    while (i < len) {
        unsigned char c = (unsigned char)src[i];
        if (c == (unsigned char)quote) {
            size_t run = count_run(src, len, i, quote);
            if (run >= 3)
                return make(kind, start, i + (run > 5 ? 5 : run));
            i += run;
            continue;
        }
        if (c == '\r' && i + 1 < len && src[i + 1] == '\n') {
            i += 2;
            continue;
        }
        if (c != '\n' && is_control(c))
            return bad_byte(i, kind, start);
        if (kind == SLUICE_TOML_TOK_ML_BASIC && c == '\\' && i + 1 < len &&
            (src[i + 1] == '"' || src[i + 1] == '\\'))
            i += 2;
        else
            i++;
    }
    token t = make(SLUICE_TOML_TOK_UNTERMINATED, start, len);
    t.inside = kind;
    return t;
}

static token lex_string(const char *src, size_t len, size_t start)
{
    bool basic = src[start] == '"';
    if (count_run(src, len, start, src[start]) >= 3)
        return lex_ml_string(src, len, start,
                             basic ? SLUICE_TOML_TOK_ML_BASIC : SLUICE_TOML_TOK_ML_LITERAL);
    return lex_line_string(src, len, start,
                           basic ? SLUICE_TOML_TOK_BASIC : SLUICE_TOML_TOK_LITERAL);
}

static token lex_comment(const char *src, size_t len, size_t start)
{
    size_t i = start + 1;
    while (i < len && src[i] != '\n') {
        unsigned char c = (unsigned char)src[i];
        if (c == '\r' && i + 1 < len && src[i + 1] == '\n')
            break;
        if (is_control(c))
            return bad_byte(i, SLUICE_TOML_TOK_COMMENT, start);
        i++;
    }
    return make(SLUICE_TOML_TOK_COMMENT, start, i);
}

/* "YYYY-MM-DD" followed by " HH:" is one date-time whose separator is a space. */
static bool date_then_space_time(const char *src, size_t len, size_t start, size_t end)
{
    if (end - start != 10 || end + 3 >= len || src[end] != ' ')
        return false;
    const unsigned char *s = (const unsigned char *)src + start;
    for (size_t k = 0; k < 10; k++) {
        bool dash = k == 4 || k == 7;
        if (dash ? s[k] != '-' : !is_digit(s[k]))
            return false;
    }
    const unsigned char *t = (const unsigned char *)src + end + 1;
    return is_digit(t[0]) && is_digit(t[1]) && t[2] == ':';
}

static token lex_bare(const char *src, size_t len, size_t start, sluice_toml_lex_mode mode)
{
    size_t i = start;
    if (mode == SLUICE_TOML_LEX_KEY) {
        while (i < len && is_bare_key_char((unsigned char)src[i]))
            i++;
        return make(SLUICE_TOML_TOK_BARE, start, i);
    }
    while (i < len && is_atom_char((unsigned char)src[i]))
        i++;
    if (date_then_space_time(src, len, start, i)) {
        i++;
        while (i < len && is_atom_char((unsigned char)src[i]))
            i++;
    }
    return make(SLUICE_TOML_TOK_BARE, start, i);
}

sluice_toml_token
sluice_toml_lex_next(const char *src, size_t len, size_t pos, sluice_toml_lex_mode mode)
{
    while (pos < len && (src[pos] == ' ' || src[pos] == '\t'))
        pos++;
    if (pos >= len)
        return make(SLUICE_TOML_TOK_EOF, len, len);
    unsigned char c = (unsigned char)src[pos];
    switch (c) {
    case '\n':
        return make(SLUICE_TOML_TOK_NEWLINE, pos, pos + 1);
    case '\r':
        if (pos + 1 < len && src[pos + 1] == '\n')
            return make(SLUICE_TOML_TOK_NEWLINE, pos, pos + 2);
        return bad_byte(pos, SLUICE_TOML_TOK_EOF, pos);
    case '#':
        return lex_comment(src, len, pos);
    case '=':
        return make(SLUICE_TOML_TOK_EQUALS, pos, pos + 1);
    case ',':
        return make(SLUICE_TOML_TOK_COMMA, pos, pos + 1);
    case '[':
        return make(SLUICE_TOML_TOK_LBRACKET, pos, pos + 1);
    case ']':
        return make(SLUICE_TOML_TOK_RBRACKET, pos, pos + 1);
    case '{':
        return make(SLUICE_TOML_TOK_LBRACE, pos, pos + 1);
    case '}':
        return make(SLUICE_TOML_TOK_RBRACE, pos, pos + 1);
    case '"':
    case '\'':
        return lex_string(src, len, pos);
    default:
        break;
    }
    if (mode == SLUICE_TOML_LEX_KEY && c == '.')
        return make(SLUICE_TOML_TOK_DOT, pos, pos + 1);
    if (mode == SLUICE_TOML_LEX_KEY ? is_bare_key_char(c) : is_atom_char(c))
        return lex_bare(src, len, pos, mode);
    if (is_control(c))
        return bad_byte(pos, SLUICE_TOML_TOK_EOF, pos);
    return make(SLUICE_TOML_TOK_OTHER, pos, pos + char_length(src, len, pos));
}

/* Well-formed UTF-8 per RFC 3629 table 3-7: the second byte's range depends on the lead. */
size_t sluice_toml_lex_utf8_check(const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* above U+10FFFF */
        } else {
            return i;
        }
        if (i + n > len || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k < n; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return i;
        }
        i += n;
    }
    return len;
}
