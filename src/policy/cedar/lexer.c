/*
 * lexer.c — Cedar tokenizer (see lexer.h). Allocates nothing; one call per token.
 */
#include "policy/cedar/lexer.h"

#include <stdbool.h>

static bool is_ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(unsigned char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Skips whitespace and // comments; returns the next significant offset. */
static size_t skip_blank(const char *t, size_t len, size_t pos)
{
    while (pos < len) {
        unsigned char c = (unsigned char)t[pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            pos++;
        } else if (c == '/' && pos + 1 < len && t[pos + 1] == '/') {
            while (pos < len && t[pos] != '\n')
                pos++;
        } else {
            break;
        }
    }
    return pos;
}

static cedar_token tok(cedar_tok_kind kind, size_t off, size_t len)
{
    cedar_token t = { kind, (uint32_t)off, (uint32_t)len };
    return t;
}

/* Two-character operators first, then single characters. */
static cedar_token lex_punct(const char *t, size_t len, size_t pos)
{
    char c = t[pos], n = pos + 1 < len ? t[pos + 1] : '\0';
    switch (c) {
    case ':':
        return n == ':' ? tok(TK_PATHSEP, pos, 2) : tok(TK_COLON, pos, 1);
    case '=':
        return n == '=' ? tok(TK_EQ, pos, 2) : tok(TK_ASSIGN, pos, 1);
    case '!':
        return n == '=' ? tok(TK_NE, pos, 2) : tok(TK_NOT, pos, 1);
    case '<':
        return n == '=' ? tok(TK_LE, pos, 2) : tok(TK_LT, pos, 1);
    case '>':
        return n == '=' ? tok(TK_GE, pos, 2) : tok(TK_GT, pos, 1);
    case '&':
        return n == '&' ? tok(TK_AND, pos, 2) : tok(TK_ILLEGAL, pos, 1);
    case '|':
        return n == '|' ? tok(TK_OR, pos, 2) : tok(TK_ILLEGAL, pos, 1);
    case '@':
        return tok(TK_AT, pos, 1);
    case '(':
        return tok(TK_LPAREN, pos, 1);
    case ')':
        return tok(TK_RPAREN, pos, 1);
    case '[':
        return tok(TK_LBRACKET, pos, 1);
    case ']':
        return tok(TK_RBRACKET, pos, 1);
    case '{':
        return tok(TK_LBRACE, pos, 1);
    case '}':
        return tok(TK_RBRACE, pos, 1);
    case ',':
        return tok(TK_COMMA, pos, 1);
    case ';':
        return tok(TK_SEMI, pos, 1);
    case '.':
        return tok(TK_DOT, pos, 1);
    case '+':
        return tok(TK_PLUS, pos, 1);
    case '-':
        return tok(TK_MINUS, pos, 1);
    case '*':
        return tok(TK_STAR, pos, 1);
    case '?':
        return tok(TK_QUESTION, pos, 1);
    default: {
        /* Report a whole UTF-8 character so the error quotes something printable. */
        size_t n_len = 1;
        while (pos + n_len < len && ((unsigned char)t[pos + n_len] & 0xC0) == 0x80 && n_len < 4)
            n_len++;
        return tok(TK_ILLEGAL, pos, n_len);
    }
    }
}

cedar_token sluice_cedar_lex(const char *t, size_t len, size_t pos)
{
    pos = skip_blank(t, len, pos);
    if (pos >= len)
        return tok(TK_EOF, len, 0);
    unsigned char c = (unsigned char)t[pos];
    size_t end = pos + 1;
    if (is_ident_start(c)) {
        while (end < len && is_ident_char((unsigned char)t[end]))
            end++;
        return tok(TK_IDENT, pos, end - pos);
    }
    if (c >= '0' && c <= '9') {
        while (end < len && t[end] >= '0' && t[end] <= '9')
            end++;
        return tok(TK_INT, pos, end - pos);
    }
    if (c == '"') {
        while (end < len && t[end] != '"') {
            if (t[end] == '\\' && end + 1 < len)
                end++;
            end++;
        }
        if (end >= len)
            return tok(TK_UNTERMINATED, pos, len - pos);
        return tok(TK_STR, pos, end + 1 - pos);
    }
    return lex_punct(t, len, pos);
}
