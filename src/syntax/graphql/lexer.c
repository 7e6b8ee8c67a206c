/*
 * lexer.c — GraphQL tokenizer (see lexer.h), written to the October 2021 spec and the current
 * draft, and to graphql-js 16's choices where the spec leaves room (control characters are
 * allowed in strings and comments; error texts and the offset each error points at).
 *
 * The source is UTF-8; graphql-js counts in UTF-16 units. Where its error messages quote a
 * slice of N UTF-16 units, slice_units() reproduces that, with U+FFFD where graphql-js would cut
 * a surrogate pair in half. Bytes that are not UTF-8 are "Invalid character" errors.
 * Strings are scanned twice: once to validate and measure, once to decode into an arena buffer
 * of the exact size, so a long document of short strings costs no more than its length.
 */
#include "syntax/graphql/lexer.h"

#include "core/buf.h"
#include "core/utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- characters ----------------------------------------------------------------------- */

/* The byte at pos, or -1 past the end (graphql-js's charCodeAt gives NaN there). */
static int at(const gql_lexer *lx, size_t pos)
{
    return pos < lx->len ? (unsigned char)lx->text[pos] : -1;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_continue(int c)
{
    return is_name_start(c) || is_digit(c);
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static bool is_scalar(uint32_t cp)
{
    return cp <= 0xD7FF || (cp >= 0xE000 && cp <= 0x10FFFF);
}

/* The length of the UTF-8 character at pos (< lx->len) and its code point in *cp (may be NULL);
 * 0 when the bytes there are not well-formed UTF-8 (overlong, surrogate, beyond U+10FFFF,
 * truncated). */
static size_t char_at(const gql_lexer *lx, size_t pos, uint32_t *cp)
{
    return sluice_utf8_decode(lx->text + pos, lx->len - pos, cp);
}

/* graphql-js's printCodePointAt: "<EOF>", "x" for printable ASCII ('"' for a quote), else
 * U+XXXX. Bytes that are not UTF-8 have no code point; they are named by value. */
static const char *describe_char(gql_lexer *lx, size_t pos)
{
    if (pos >= lx->len)
        return "<EOF>";
    uint32_t cp;
    if (char_at(lx, pos, &cp) == 0)
        return sluice_arena_printf(lx->arena, "byte 0x%02X (not UTF-8)",
                                   (unsigned char)lx->text[pos]);
    if (cp == '"')
        return "'\"'";
    if (cp >= 0x20 && cp <= 0x7E)
        return sluice_arena_printf(lx->arena, "\"%c\"", (char)cp);
    return sluice_arena_printf(lx->arena, "U+%04X", (unsigned)cp);
}

/* The text of `units` UTF-16 units from pos (as JavaScript's slice), for quoting an escape. */
static const char *slice_units(gql_lexer *lx, size_t pos, size_t units)
{
    sluice_buf b;
    sluice_buf_init(&b, lx->arena, 0);
    while (units > 0 && pos < lx->len) {
        uint32_t cp;
        size_t n = char_at(lx, pos, &cp);
        if (n == 0) {
            sluice_buf_puts(&b, "\xEF\xBF\xBD");
            pos++;
            units--;
            continue;
        }
        size_t u = cp >= 0x10000 ? 2 : 1;
        if (u > units) {
            sluice_buf_puts(&b, "\xEF\xBF\xBD"); /* half a surrogate pair in graphql-js */
            break;
        }
        if (cp == 0)
            sluice_buf_puts(&b, "\xEF\xBF\xBD"); /* a C message cannot hold NUL */
        else
            sluice_buf_append(&b, lx->text + pos, n);
        pos += n;
        units -= u;
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "";
}

/* ---- errors --------------------------------------------------------------------------- */

void sluice_graphql_locate(
    const char *text, size_t len, size_t offset, size_t *out_line, size_t *out_column)
{
    size_t line = 1, column = 1;
    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < offset && text[i + 1] == '\n')
                i++; /* \r\n ends one line */
            line++;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            column++; /* characters, not UTF-8 continuation bytes */
        }
    }
    *out_line = line;
    *out_column = column;
}

sluice_status sluice_gql_verror(sluice_arena *arena,
                                sluice_error *err,
                                const char *source,
                                const char *text,
                                size_t len,
                                sluice_status status,
                                size_t offset,
                                const char *prefix,
                                const char *fmt,
                                va_list ap)
{
    if (err == NULL)
        return status;
    char *what = sluice_arena_vprintf(arena, fmt, ap);
    size_t line, col;
    sluice_graphql_locate(text, len, offset, &line, &col);
    sluice_error_at(err, arena, status, source, line, col, "%s%s", prefix,
                    what != NULL ? what : "(out of memory formatting the error)");
    err->offset = offset;
    return status;
}

sluice_status
sluice_gql_error_at(gql_lexer *lx, sluice_status status, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_status st = sluice_gql_verror(lx->arena, lx->err, lx->source, lx->text, lx->len, status,
                                         offset, "Syntax Error: ", fmt, ap);
    va_end(ap);
    return st;
}

static sluice_status nomem(gql_lexer *lx)
{
    return sluice_error_set(lx->err, lx->arena, SLUICE_E_NOMEM, "out of memory reading GraphQL");
}

const char *sluice_gql_token_kind_desc(gql_tok_kind kind)
{
    static const char *const names[] = {
        [GT_SOF] = "<SOF>",      [GT_EOF] = "<EOF>",      [GT_BANG] = "\"!\"",
        [GT_DOLLAR] = "\"$\"",   [GT_AMP] = "\"&\"",      [GT_LPAREN] = "\"(\"",
        [GT_RPAREN] = "\")\"",   [GT_SPREAD] = "\"...\"", [GT_COLON] = "\":\"",
        [GT_EQUALS] = "\"=\"",   [GT_AT] = "\"@\"",       [GT_LBRACKET] = "\"[\"",
        [GT_RBRACKET] = "\"]\"", [GT_LBRACE] = "\"{\"",   [GT_PIPE] = "\"|\"",
        [GT_RBRACE] = "\"}\"",   [GT_NAME] = "Name",      [GT_INT] = "Int",
        [GT_FLOAT] = "Float",    [GT_STRING] = "String",  [GT_BLOCK_STRING] = "BlockString",
    };
    return names[kind];
}

/* ---- tokens --------------------------------------------------------------------------- */

static sluice_status token(gql_token *out, gql_tok_kind kind, const char *t, size_t s, size_t e)
{
    out->kind = kind;
    out->start = (uint32_t)s;
    out->end = (uint32_t)e;
    out->value.ptr = t + s;
    out->value.len = e - s;
    return SLUICE_OK;
}

/* Digit+ starting at pos; *end after the last. */
static sluice_status read_digits(gql_lexer *lx, size_t pos, size_t *end)
{
    if (!is_digit(at(lx, pos)))
        return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos,
                                   "Invalid number, expected digit but got: %s.",
                                   describe_char(lx, pos));
    while (is_digit(at(lx, pos)))
        pos++;
    *end = pos;
    return SLUICE_OK;
}

/* IntValue | FloatValue: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, not followed by a
 * digit, '.' or a name start. */
static sluice_status read_number(gql_lexer *lx, size_t start, gql_token *out)
{
    size_t pos = start;
    bool is_float = false;
    sluice_status st;
    if (at(lx, pos) == '-')
        pos++;
    if (at(lx, pos) == '0') {
        pos++;
        if (is_digit(at(lx, pos)))
            return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos,
                                       "Invalid number, unexpected digit after 0: %s.",
                                       describe_char(lx, pos));
    } else if ((st = read_digits(lx, pos, &pos)) != SLUICE_OK) {
        return st;
    }
    if (at(lx, pos) == '.') {
        is_float = true;
        if ((st = read_digits(lx, pos + 1, &pos)) != SLUICE_OK)
            return st;
    }
    if (at(lx, pos) == 'e' || at(lx, pos) == 'E') {
        is_float = true;
        pos++;
        if (at(lx, pos) == '+' || at(lx, pos) == '-')
            pos++;
        if ((st = read_digits(lx, pos, &pos)) != SLUICE_OK)
            return st;
    }
    if (at(lx, pos) == '.' || is_name_start(at(lx, pos)))
        return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos,
                                   "Invalid number, expected digit but got: %s.",
                                   describe_char(lx, pos));
    return token(out, is_float ? GT_FLOAT : GT_INT, lx->text, start, pos);
}

/* Four hex digits at pos as a number, or -1 when any is not a hex digit. */
static int32_t hex16(const gql_lexer *lx, size_t pos)
{
    int32_t v = 0;
    for (size_t i = 0; i < 4; i++) {
        int d = hex_value(at(lx, pos + i));
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* \u{X...}: 1 or more hex digits (at most 8 characters between the braces, as graphql-js reads
 * them) naming a Unicode scalar value. p is the backslash. */
static sluice_status escape_braced(gql_lexer *lx, size_t p, uint32_t *cp, size_t *size)
{
    uint32_t point = 0;
    size_t n = 3;
    while (n < 12) {
        int c = at(lx, p + n++);
        if (c == '}') {
            if (n < 5 || !is_scalar(point))
                break;
            *cp = point;
            *size = n;
            return SLUICE_OK;
        }
        int d = hex_value(c);
        point = d < 0 ? 0xFFFFFFFFu : (point << 4) | (uint32_t)d;
        if (point & 0x80000000u) /* graphql-js's 32-bit arithmetic went negative */
            break;
    }
    return sluice_gql_error_at(lx, SLUICE_E_INVALID, p, "Invalid Unicode escape sequence: \"%s\".",
                               slice_units(lx, p, n));
}

/* \uXXXX, or a \uD8xx\uDCxx surrogate pair forming one supplementary character. */
static sluice_status escape_fixed(gql_lexer *lx, size_t p, uint32_t *cp, size_t *size)
{
    int32_t code = hex16(lx, p + 2);
    if (code >= 0 && is_scalar((uint32_t)code)) {
        *cp = (uint32_t)code;
        *size = 6;
        return SLUICE_OK;
    }
    if (code >= 0xD800 && code <= 0xDBFF && at(lx, p + 6) == '\\' && at(lx, p + 7) == 'u') {
        int32_t trail = hex16(lx, p + 8);
        if (trail >= 0xDC00 && trail <= 0xDFFF) {
            *cp = 0x10000u + (((uint32_t)code - 0xD800u) << 10) + ((uint32_t)trail - 0xDC00u);
            *size = 12;
            return SLUICE_OK;
        }
    }
    return sluice_gql_error_at(lx, SLUICE_E_INVALID, p, "Invalid Unicode escape sequence: \"%s\".",
                               slice_units(lx, p, 6));
}

static sluice_status escape_char(gql_lexer *lx, size_t p, uint32_t *cp)
{
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    int c = at(lx, p + 1);
    const char *hit = c > 0 ? strchr(from, c) : NULL;
    if (hit == NULL)
        return sluice_gql_error_at(lx, SLUICE_E_INVALID, p,
                                   "Invalid character escape sequence: \"%s\".",
                                   slice_units(lx, p, 2));
    *cp = (unsigned char)to[hit - from];
    return SLUICE_OK;
}

static sluice_status escape(gql_lexer *lx, size_t p, uint32_t *cp, size_t *size)
{
    if (at(lx, p + 1) == 'u')
        return at(lx, p + 2) == '{' ? escape_braced(lx, p, cp, size)
                                    : escape_fixed(lx, p, cp, size);
    *size = 2;
    return escape_char(lx, p, cp);
}

/* Copies the source character at *pos into out (when given) at *o; moves both on. Bytes that
 * are not UTF-8 are an error inside strings too. */
static sluice_status source_char(gql_lexer *lx, size_t *pos, char *out, size_t *o)
{
    size_t n = char_at(lx, *pos, NULL);
    if (n == 0)
        return sluice_gql_error_at(lx, SLUICE_E_INVALID, *pos,
                                   "Invalid character within String: %s.", describe_char(lx, *pos));
    if (out != NULL)
        memcpy(out + *o, lx->text + *pos, n);
    *o += n;
    *pos += n;
    return SLUICE_OK;
}

/* One pass over a "..." string from start: with out NULL it validates and measures
 * (*out_len bytes decoded, *end after the closing quote); with out it decodes. */
static sluice_status
scan_string(gql_lexer *lx, size_t start, char *out, size_t *out_len, size_t *end)
{
    size_t pos = start + 1, o = 0;
    while (pos < lx->len) {
        char c = lx->text[pos];
        if (c == '"') {
            *out_len = o;
            *end = pos + 1;
            return SLUICE_OK;
        }
        if (c == '\\') {
            uint32_t cp = 0;
            size_t n = 0;
            sluice_status st = escape(lx, pos, &cp, &n);
            if (st != SLUICE_OK)
                return st;
            char tmp[4];
            size_t w = sluice_utf8_encode(cp, out != NULL ? out + o : tmp);
            o += w;
            pos += n;
            continue;
        }
        if (c == '\n' || c == '\r')
            break;
        sluice_status st = source_char(lx, &pos, out, &o);
        if (st != SLUICE_OK)
            return st;
    }
    return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos, "Unterminated string.");
}

/* The raw lines of a block string from start: \""" becomes """, every line terminator one \n.
 * Measures with out NULL, fills otherwise. */
static sluice_status
scan_block(gql_lexer *lx, size_t start, char *out, size_t *out_len, size_t *end)
{
    size_t pos = start + 3, o = 0;
    while (pos < lx->len) {
        char c = lx->text[pos];
        if (c == '"' && at(lx, pos + 1) == '"' && at(lx, pos + 2) == '"') {
            *out_len = o;
            *end = pos + 3;
            return SLUICE_OK;
        }
        if (c == '\\' && at(lx, pos + 1) == '"' && at(lx, pos + 2) == '"' &&
            at(lx, pos + 3) == '"') {
            if (out != NULL)
                memcpy(out + o, "\"\"\"", 3);
            o += 3;
            pos += 4;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (out != NULL)
                out[o] = '\n';
            o++;
            pos += (c == '\r' && at(lx, pos + 1) == '\n') ? 2 : 1;
            continue;
        }
        sluice_status st = source_char(lx, &pos, out, &o);
        if (st != SLUICE_OK)
            return st;
    }
    return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos, "Unterminated string.");
}

static size_t leading_blank(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    return i;
}

/* The spec's BlockStringValue(): drop the common indentation of every line but the first,
 * then leading and trailing blank lines. raw (n bytes, lines split by \n) is rewritten into
 * out (n + 1 bytes); returns the length. */
static size_t dedent(const char *raw, size_t n, char *out)
{
    size_t common = SIZE_MAX, first = SIZE_MAX, last = 0, line = 0;
    bool any = false;
    for (size_t s = 0; s <= n; line++) {
        const char *nl = memchr(raw + s, '\n', n - s);
        size_t e = nl != NULL ? (size_t)(nl - raw) : n;
        size_t ind = leading_blank(raw + s, e - s);
        if (ind < e - s) {
            if (!any)
                first = line;
            any = true;
            last = line;
            if (line != 0 && ind < common)
                common = ind;
        }
        s = e + 1;
    }
    size_t o = 0;
    line = 0;
    for (size_t s = 0; any && s <= n; line++) {
        const char *nl = memchr(raw + s, '\n', n - s);
        size_t e = nl != NULL ? (size_t)(nl - raw) : n;
        if (line >= first && line <= last) {
            size_t from = s;
            if (line != 0)
                from += (common < e - s ? common : e - s);
            if (line > first)
                out[o++] = '\n';
            memcpy(out + o, raw + from, e - from);
            o += e - from;
        }
        s = e + 1;
    }
    out[o] = '\0';
    return o;
}

/* A String or BlockString token from start: scanned once to validate and measure, once to
 * decode into exactly-sized arena memory (a block string is then dedented). */
static sluice_status read_quoted(gql_lexer *lx, size_t start, gql_tok_kind kind, gql_token *out)
{
    sluice_status (*scan)(gql_lexer *, size_t, char *, size_t *, size_t *) =
        kind == GT_STRING ? scan_string : scan_block;
    size_t n, end;
    sluice_status st = scan(lx, start, NULL, &n, &end);
    if (st != SLUICE_OK)
        return st;
    char *value = sluice_arena_alloc(lx->arena, n + 1);
    char *raw = kind == GT_STRING ? value : sluice_arena_alloc(lx->arena, n + 1);
    if (raw == NULL || value == NULL)
        return nomem(lx);
    (void)scan(lx, start, raw, &n, &end);
    raw[n] = '\0';
    token(out, kind, lx->text, start, end);
    out->value.ptr = value;
    out->value.len = kind == GT_STRING ? n : dedent(raw, n, value);
    return SLUICE_OK;
}

/* A character no token starts with. */
static sluice_status unexpected_char(gql_lexer *lx, size_t pos)
{
    if (lx->text[pos] == '\'')
        return sluice_gql_error_at(
            lx, SLUICE_E_INVALID, pos,
            "Unexpected single quote character ('), did you mean to use a double quote (\")?");
    if (char_at(lx, pos, NULL) == 0)
        return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos, "Invalid character: %s.",
                                   describe_char(lx, pos));
    return sluice_gql_error_at(lx, SLUICE_E_INVALID, pos, "Unexpected character: %s.",
                               describe_char(lx, pos));
}

static gql_tok_kind punctuator(char c)
{
    switch (c) {
    case '!':
        return GT_BANG;
    case '$':
        return GT_DOLLAR;
    case '&':
        return GT_AMP;
    case '(':
        return GT_LPAREN;
    case ')':
        return GT_RPAREN;
    case ':':
        return GT_COLON;
    case '=':
        return GT_EQUALS;
    case '@':
        return GT_AT;
    case '[':
        return GT_LBRACKET;
    case ']':
        return GT_RBRACKET;
    case '{':
        return GT_LBRACE;
    case '|':
        return GT_PIPE;
    case '}':
        return GT_RBRACE;
    default:
        return GT_SOF; /* not a punctuator */
    }
}

/* Skips Ignored (whitespace, line terminators, commas, BOMs, comments) from pos. A comment
 * ends at a line terminator or at bytes that are not UTF-8 (which the caller then reports). */
static size_t skip_ignored(const gql_lexer *lx, size_t pos)
{
    while (pos < lx->len) {
        unsigned char c = (unsigned char)lx->text[pos];
        if (c == ' ' || c == '\t' || c == ',' || c == '\n' || c == '\r') {
            pos++;
        } else if (c == 0xEF && at(lx, pos + 1) == 0xBB && at(lx, pos + 2) == 0xBF) {
            pos += 3;
        } else if (c == '#') {
            pos++;
            while (pos < lx->len && lx->text[pos] != '\n' && lx->text[pos] != '\r') {
                size_t n = char_at(lx, pos, NULL);
                if (n == 0)
                    break; /* the byte that is not UTF-8 is the next token's error */
                pos += n;
            }
        } else {
            break;
        }
    }
    return pos;
}

sluice_status sluice_gql_lex(gql_lexer *lx, size_t pos, gql_token *out)
{
    pos = skip_ignored(lx, pos);
    if (pos >= lx->len)
        return token(out, GT_EOF, lx->text, lx->len, lx->len);
    char c = lx->text[pos];
    gql_tok_kind p = punctuator(c);
    if (p != GT_SOF)
        return token(out, p, lx->text, pos, pos + 1);
    if (c == '.' && at(lx, pos + 1) == '.' && at(lx, pos + 2) == '.')
        return token(out, GT_SPREAD, lx->text, pos, pos + 3);
    if (c == '"')
        return read_quoted(
            lx, pos, at(lx, pos + 1) == '"' && at(lx, pos + 2) == '"' ? GT_BLOCK_STRING : GT_STRING,
            out);
    if (is_digit(c) || c == '-')
        return read_number(lx, pos, out);
    if (is_name_start(c)) {
        size_t end = pos + 1;
        while (is_name_continue(at(lx, end)))
            end++;
        return token(out, GT_NAME, lx->text, pos, end);
    }
    return unexpected_char(lx, pos);
}
