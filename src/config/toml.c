/*
 * toml.c — the TOML 1.0 parser: tokens in, a tree of values in the caller's arena out.
 *
 * Owns: the grammar (recursive descent, one function per rule, depth-guarded), decoding strings,
 * numbers and date-times, the table rules (what a [header], a [[header]], a dotted key or an
 * inline table may define or extend), and every syntax error message.
 * Does not own: token boundaries and byte-level checks (toml_lex.c), the tree's storage and
 * accessors (toml_tree.c), or what keys mean (config.c).
 *
 * Every table remembers how it came to be (its origin, toml_tree.h), which is all the
 * redefinition rules need: a header may define a table that only exists implicitly, dotted keys
 * may extend tables they created, nothing may extend an inline table or a static array.
 */
#include "config/toml.h"

#include "config/toml_lex.h"
#include "config/toml_tree.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/utf8.h"
#include "core/vec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef sluice_toml_token token;
typedef sluice_toml_value value;
typedef sluice_toml_entry entry;
typedef sluice_toml_origin origin;

/* A 1-based line and column. Found by scanning forward from the last one asked for, so the
 * parser asks in source order (errors aside) and the whole parse stays linear. */
typedef struct place {
    size_t line, column;
} place;

/* A dotted key as read: its decoded parts and where each starts. */
typedef struct key_part {
    const char *text;
    size_t len;
    size_t offset, end; /* source span */
    place at;
} key_part;

typedef struct key_path {
    key_part *parts; /* `few` until a key has more parts than that, then arena memory */
    key_part few[4];
    size_t count, cap;
    size_t start, end; /* source span, for messages */
} key_path;

typedef struct parser {
    sluice_arena *arena;
    const char *src;
    size_t len;
    const char *source;
    sluice_error *err;
    size_t base; /* 3 when the text starts with a UTF-8 byte order mark, which we skip */
    size_t pos;
    /* Cache of the last token peeked, so peek-then-advance lexes once. */
    bool cached;
    size_t cached_pos;
    sluice_toml_lex_mode cached_mode;
    token cached_tok;
    /* Line and column of byte cur_off; positions are asked for in increasing order. */
    size_t cur_off, cur_line, cur_col;
    value *root;
    value *table; /* where key/value pairs go now */
} parser;

/* ------------------------------------------------------------------------------------------ */
/* Positions and errors                                                                        */

static void locate(parser *p, size_t offset, size_t *line, size_t *column)
{
    if (offset > p->len)
        offset = p->len;
    if (offset < p->cur_off) {
        p->cur_off = p->base;
        p->cur_line = 1;
        p->cur_col = 1;
    }
    for (size_t i = p->cur_off; i < offset; i++) {
        unsigned char c = (unsigned char)p->src[i];
        if (c == '\n') {
            p->cur_line++;
            p->cur_col = 1;
        } else if ((c & 0xC0) != 0x80) {
            p->cur_col++;
        }
    }
    p->cur_off = offset;
    *line = p->cur_line;
    *column = p->cur_col;
}

static sluice_status
fail_v(parser *p, sluice_status status, size_t offset, size_t length, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
static sluice_status
fail_v(parser *p, sluice_status status, size_t offset, size_t length, const char *fmt, va_list ap)
{
    size_t line, column;
    locate(p, offset, &line, &column);
    if (p->err == NULL)
        return status;
    char *msg = sluice_arena_vprintf(p->arena, fmt, ap);
    sluice_error_at(p->err, p->arena, status, p->source, line, column, "%s",
                    msg != NULL ? msg : "out of memory while reporting an error");
    p->err->offset = offset;
    p->err->length = length;
    return status;
}

static sluice_status fail(parser *p, size_t offset, size_t length, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static sluice_status fail(parser *p, size_t offset, size_t length, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_status status = fail_v(p, SLUICE_E_INVALID, offset, length, fmt, ap);
    va_end(ap);
    return status;
}

static sluice_status fail_nomem(parser *p)
{
    if (p->err != NULL)
        sluice_error_set(p->err, p->arena, SLUICE_E_NOMEM, "out of memory while parsing %s",
                         p->source != NULL ? p->source : "TOML");
    return SLUICE_E_NOMEM;
}

static sluice_status fail_limit(parser *p, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sluice_status fail_limit(parser *p, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_status status = fail_v(p, SLUICE_E_LIMIT, offset, 1, fmt, ap);
    va_end(ap);
    return status;
}

static sluice_status fail_depth(parser *p, size_t offset)
{
    return fail_limit(p, offset, "too deeply nested (limit is %u)", SLUICE_LIMIT_NESTING_DEPTH);
}

/* Text of src[start..end) for a message: at most 40 bytes, control bytes as \xNN. */
static const char *quote_span(parser *p, size_t start, size_t end)
{
    char out[200];
    size_t n = 0;
    bool cut = false;
    for (size_t i = start; i < end && i < p->len; i++) {
        if (i - start >= 40) {
            cut = true;
            break;
        }
        unsigned char c = (unsigned char)p->src[i];
        if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        } else {
            out[n++] = (char)c;
        }
    }
    if (cut) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    const char *s = sluice_arena_strndup(p->arena, out, n);
    return s != NULL ? s : "";
}

/* How a token reads in "found X": 'text', newline or end of file. */
static const char *describe(parser *p, token t)
{
    if (t.kind == SLUICE_TOML_TOK_EOF)
        return "end of file";
    if (t.kind == SLUICE_TOML_TOK_NEWLINE)
        return "newline";
    if (t.kind == SLUICE_TOML_TOK_COMMENT)
        return "comment";
    const char *s = sluice_arena_printf(p->arena, "'%s'", quote_span(p, t.start, t.end));
    return s != NULL ? s : "token";
}

static const char *string_kind_name(sluice_toml_tok_kind kind)
{
    switch (kind) {
    case SLUICE_TOML_TOK_ML_BASIC:
    case SLUICE_TOML_TOK_ML_LITERAL:
        return "multi-line string";
    case SLUICE_TOML_TOK_COMMENT:
        return "comment";
    default:
        return "string";
    }
}

/* Reports an error token (bad byte, unterminated string) in words. */
static sluice_status fail_lex(parser *p, token t)
{
    size_t line, column;
    if (t.kind == SLUICE_TOML_TOK_UNTERMINATED) {
        locate(p, t.open, &line, &column);
        return fail(p, t.end, 1, "unterminated %s (opened at line %zu, column %zu)",
                    string_kind_name(t.inside), line, column);
    }
    unsigned char c = (unsigned char)p->src[t.start];
    const char *where = t.inside == SLUICE_TOML_TOK_EOF ? "" : " in a ";
    const char *what = t.inside == SLUICE_TOML_TOK_EOF ? "" : string_kind_name(t.inside);
    if (c == '\r')
        return fail(p, t.start, 1,
                    "carriage return without a line feed%s%s; TOML lines end in LF or CR LF", where,
                    what);
    if (t.inside == SLUICE_TOML_TOK_BASIC || t.inside == SLUICE_TOML_TOK_ML_BASIC)
        return fail(p, t.start, 1,
                    "control character U+%04X is not allowed in a %s; write it as \\u%04X", c, what,
                    c);
    return fail(p, t.start, 1, "control character U+%04X is not allowed%s%s", c, where, what);
}

/* "expected X, found Y" — or the lexer's own complaint when Y is an error token. */
static sluice_status fail_expected(parser *p, token t, const char *expected)
{
    if (t.kind == SLUICE_TOML_TOK_BAD_BYTE || t.kind == SLUICE_TOML_TOK_UNTERMINATED)
        return fail_lex(p, t);
    return fail(p, t.start, t.end - t.start, "expected %s, found %s", expected, describe(p, t));
}

/* ------------------------------------------------------------------------------------------ */
/* Tokens                                                                                      */

static token peek(parser *p, sluice_toml_lex_mode mode)
{
    if (!p->cached || p->cached_pos != p->pos || p->cached_mode != mode) {
        p->cached_tok = sluice_toml_lex_next(p->src, p->len, p->pos, mode);
        p->cached = true;
        p->cached_pos = p->pos;
        p->cached_mode = mode;
    }
    return p->cached_tok;
}

static void advance(parser *p, token t)
{
    p->pos = t.end;
}

/* ------------------------------------------------------------------------------------------ */
/* The tree                                                                                    */

static place place_of(parser *p, size_t offset)
{
    place at;
    locate(p, offset, &at.line, &at.column);
    return at;
}

static value *new_value(parser *p, sluice_toml_type type, origin how, size_t depth, place at)
{
    value *v = sluice_arena_calloc(p->arena, 1, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->type = type;
    v->origin = how;
    v->depth = depth;
    v->line = at.line;
    v->column = at.column;
    return v;
}

static sluice_status table_add(parser *p, value *t, const key_part *k, value *v)
{
    bool ok = sluice_toml_tree_add(p->arena, t, k->text, k->len, k->at.line, k->at.column, v);
    return ok ? SLUICE_OK : fail_nomem(p);
}

static sluice_status array_push(parser *p, value *a, value *item)
{
    return sluice_toml_tree_push(p->arena, a, item) ? SLUICE_OK : fail_nomem(p);
}

/* A new table under parent (depth checked), added as key k. */
static sluice_status add_table(parser *p, value *parent, const key_part *k, origin how, value **out)
{
    if (parent->depth + 1 > SLUICE_LIMIT_NESTING_DEPTH)
        return fail_depth(p, k->offset);
    value *t = new_value(p, SLUICE_TOML_TABLE, how, parent->depth + 1, k->at);
    if (t == NULL)
        return fail_nomem(p);
    sluice_status st = table_add(p, parent, k, t);
    if (st == SLUICE_OK)
        *out = t;
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Keys                                                                                        */

/* The dotted key as the user wrote it, for messages. */
static const char *key_text(parser *p, const key_path *k)
{
    return quote_span(p, k->start, k->end);
}

/* The first n parts as written ("a.b"), for messages about a table on the way. */
static const char *key_prefix(parser *p, const key_path *k, size_t n)
{
    return quote_span(p, k->start, k->parts[n - 1].end);
}

static const char *type_article(sluice_toml_type type)
{
    switch (type) {
    case SLUICE_TOML_INTEGER:
    case SLUICE_TOML_ARRAY:
        return "an";
    default:
        return "a";
    }
}

static sluice_status decode_basic(parser *p, token t, bool multiline, const char **out, size_t *n);

/* simple-key = quoted-key / unquoted-key ; quoted-key = basic-string / literal-string */
static sluice_status parse_simple_key(parser *p, key_part *out)
{
    token t = peek(p, SLUICE_TOML_LEX_KEY);
    out->offset = t.start;
    out->at = place_of(p, t.start);
    switch (t.kind) {
    case SLUICE_TOML_TOK_BARE:
        out->text = sluice_arena_strndup(p->arena, p->src + t.start, t.end - t.start);
        out->len = t.end - t.start;
        break;
    case SLUICE_TOML_TOK_LITERAL:
        out->text = sluice_arena_strndup(p->arena, p->src + t.start + 1, t.end - t.start - 2);
        out->len = t.end - t.start - 2;
        break;
    case SLUICE_TOML_TOK_BASIC: {
        sluice_status st = decode_basic(p, t, false, &out->text, &out->len);
        if (st != SLUICE_OK)
            return st;
        break;
    }
    case SLUICE_TOML_TOK_ML_BASIC:
    case SLUICE_TOML_TOK_ML_LITERAL:
        return fail(p, t.start, 3, "a multi-line string cannot be a key; use \"...\" or '...'");
    default:
        return fail_expected(p, t, "a key");
    }
    if (out->text == NULL)
        return fail_nomem(p);
    out->end = t.end;
    advance(p, t);
    return SLUICE_OK;
}

/* key = simple-key *( ws '.' ws simple-key ) */
static sluice_status parse_key(parser *p, key_path *k)
{
    memset(k, 0, sizeof(*k));
    k->parts = k->few;
    k->cap = sizeof(k->few) / sizeof(k->few[0]);
    k->start = peek(p, SLUICE_TOML_LEX_KEY).start;
    for (;;) {
        key_part *grown = sluice_vec_grow(p->arena, k->parts, k->count, &k->cap, sizeof(*grown),
                                          sizeof(k->few) / sizeof(k->few[0]));
        if (grown == NULL)
            return fail_nomem(p);
        k->parts = grown;
        sluice_status st = parse_simple_key(p, &k->parts[k->count]);
        if (st != SLUICE_OK)
            return st;
        k->count++;
        k->end = p->pos;
        token dot = peek(p, SLUICE_TOML_LEX_KEY);
        if (dot.kind != SLUICE_TOML_TOK_DOT)
            return SLUICE_OK;
        if (k->count >= SLUICE_LIMIT_NESTING_DEPTH)
            return fail_depth(p, dot.start);
        advance(p, dot);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Strings                                                                                     */

/* \uXXXX or \UXXXXXXXX at src[at] (the backslash); writes UTF-8 to out. */
static sluice_status decode_unicode(parser *p, size_t at, size_t end, char *out, size_t *out_len)
{
    size_t digits = p->src[at + 1] == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (size_t k = 0; k < digits; k++) {
        size_t i = at + 2 + k;
        int h = i < end ? sluice_hex_digit((unsigned char)p->src[i]) : -1;
        if (h < 0)
            return fail(p, at, 2, "invalid escape '%s': \\%c needs %zu hex digits",
                        quote_span(p, at, i < end ? i + 1 : end), p->src[at + 1], digits);
        cp = cp << 4 | (uint32_t)h;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(p, at, digits + 2, "invalid escape '%s': U+%04X is not a Unicode scalar value",
                    quote_span(p, at, at + 2 + digits), (unsigned)cp);
    *out_len = sluice_utf8_encode(cp, out);
    return SLUICE_OK;
}

/* The character a one-letter escape stands for, or NUL when e is none of them. (\e and \xHH
 * are TOML 1.1; in 1.0 they are errors.) */
static char simple_escape(char e)
{
    switch (e) {
    case 'b':
        return '\b';
    case 't':
        return '\t';
    case 'n':
        return '\n';
    case 'f':
        return '\f';
    case 'r':
        return '\r';
    case '"':
        return '"';
    case '\\':
        return '\\';
    default:
        return '\0';
    }
}

/* After a line-ending backslash: skips spaces, tabs and newlines. Returns the new offset, or
 * the backslash's own offset when what follows is not only whitespace up to a newline. */
static size_t skip_line_continuation(const char *src, size_t i, size_t end)
{
    size_t j = i + 1;
    while (j < end && (src[j] == ' ' || src[j] == '\t'))
        j++;
    if (j >= end || (src[j] != '\n' && src[j] != '\r'))
        return i;
    while (j < end && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r'))
        j++;
    return j;
}

/* Content start after the opener: a newline right after a multi-line opener is trimmed. */
static size_t content_start(const char *src, token t, size_t quotes)
{
    size_t i = t.start + quotes;
    if (quotes == 3) {
        if (src[i] == '\n')
            i++;
        else if (src[i] == '\r' && src[i + 1] == '\n')
            i += 2;
    }
    return i;
}

/* basic-string = '"' *basic-char '"' ; ml-basic-string = '"""' [newline] ml-basic-body '"""' */
static sluice_status decode_basic(parser *p, token t, bool multiline, const char **out, size_t *n)
{
    size_t quotes = multiline ? 3 : 1;
    size_t i = content_start(p->src, t, quotes), end = t.end - quotes;
    char *buf = sluice_arena_alloc(p->arena, end - i + 1);
    if (buf == NULL)
        return fail_nomem(p);
    size_t len = 0;
    while (i < end) {
        char c = p->src[i];
        if (c != '\\') {
            buf[len++] = c;
            i++;
            continue;
        }
        char e = i + 1 < end ? p->src[i + 1] : '\0';
        char simple = simple_escape(e);
        if (simple != '\0') {
            buf[len++] = simple;
            i += 2;
        } else if (e == 'u' || e == 'U') {
            size_t k = 0;
            sluice_status st = decode_unicode(p, i, end, buf + len, &k);
            if (st != SLUICE_OK)
                return st;
            len += k;
            i += e == 'u' ? 6 : 10;
        } else if (multiline && skip_line_continuation(p->src, i, end) != i) {
            i = skip_line_continuation(p->src, i, end);
        } else {
            size_t w = i + 1 < end ? i + 2 : i + 1;
            while (w < end && ((unsigned char)p->src[w] & 0xC0) == 0x80)
                w++;
            return fail(p, i, w - i, "invalid escape '%s' in %s", quote_span(p, i, w),
                        multiline ? "multi-line string" : "string");
        }
    }
    buf[len] = '\0';
    *out = buf;
    *n = len;
    return SLUICE_OK;
}

static sluice_status decode_string(parser *p, token t, const char **out, size_t *n)
{
    switch (t.kind) {
    case SLUICE_TOML_TOK_BASIC:
        return decode_basic(p, t, false, out, n);
    case SLUICE_TOML_TOK_ML_BASIC:
        return decode_basic(p, t, true, out, n);
    default: {
        size_t quotes = t.kind == SLUICE_TOML_TOK_ML_LITERAL ? 3 : 1;
        size_t i = content_start(p->src, t, quotes);
        *n = t.end - quotes - i;
        *out = sluice_arena_strndup(p->arena, p->src + i, *n);
        return *out != NULL ? SLUICE_OK : fail_nomem(p);
    }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Numbers                                                                                     */

static bool is_digit_of(unsigned char c, int radix)
{
    int h = sluice_hex_digit(c);
    return h >= 0 && h < radix && (radix == 16 || (c >= '0' && c <= '9'));
}

/* Digits of the given radix with underscores only between two digits; s[i..n) up to the first
 * other character. Returns the end, or SIZE_MAX when an underscore is misplaced. */
static size_t scan_digits(const char *s, size_t i, size_t n, int radix)
{
    size_t start = i;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '_') {
            if (i == start || i + 1 >= n || !is_digit_of((unsigned char)s[i + 1], radix))
                return SIZE_MAX;
        } else if (!is_digit_of(c, radix)) {
            break;
        }
        i++;
    }
    return i;
}

/* A number or date-time atom for a message, straight from the source: atoms hold only
 * [A-Za-z0-9_+.:-] and one space, so they need no escaping (and no allocation). */
#define SHOWN(t)    (int)((t).end - (t).start > 40 ? 40 : (t).end - (t).start), p->src + (t).start
#define SHOWN_DT(r) (int)((r)->n > 40 ? 40 : (r)->n), (r)->s

/* integer = dec-int / hex-int / oct-int / bin-int */
static sluice_status parse_integer(parser *p, token t, value *v)
{
    const char *s = p->src + t.start;
    size_t n = t.end - t.start, i = 0;
    int radix = 10;
    bool negative = false;
    if (s[0] == '+' || s[0] == '-') {
        negative = s[0] == '-';
        i = 1;
    }
    if (n - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
        if (i > 0)
            return fail(p, t.start, n,
                        "a sign is not allowed on a hex, octal or binary "
                        "integer ('%.*s')",
                        SHOWN(t));
        radix = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
        i = 2;
    }
    size_t end = scan_digits(s, i, n, radix);
    if (end == SIZE_MAX)
        return fail(p, t.start, n, "invalid number '%.*s': an underscore must sit between digits",
                    SHOWN(t));
    if (end == i || end != n)
        return fail(p, t.start, n, "invalid number '%.*s'", SHOWN(t));
    if (radix == 10 && s[i] == '0' && n - i > 1)
        return fail(p, t.start, n, "invalid number '%.*s': leading zeros are not allowed",
                    SHOWN(t));
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, acc = 0;
    for (; i < n; i++) {
        if (s[i] == '_')
            continue;
        uint64_t d = (uint64_t)sluice_hex_digit((unsigned char)s[i]);
        if (acc > (limit - d) / (uint64_t)radix)
            return fail(p, t.start, n,
                        "integer '%.*s' does not fit in 64 bits (range is "
                        "-9223372036854775808 to 9223372036854775807)",
                        SHOWN(t));
        acc = acc * (uint64_t)radix + d;
    }
    v->type = SLUICE_TOML_INTEGER;
    v->as.integer = negative ? (int64_t)(0 - acc) : (int64_t)acc;
    return SLUICE_OK;
}

/* float = float-int-part ( exp / frac [ exp ] ) / special-float */
static sluice_status parse_float(parser *p, token t, value *v)
{
    const char *s = p->src + t.start;
    size_t n = t.end - t.start, i = 0;
    if (s[0] == '+' || s[0] == '-')
        i = 1;
    if (n - i == 3 && (memcmp(s + i, "inf", 3) == 0 || memcmp(s + i, "nan", 3) == 0)) {
        v->type = SLUICE_TOML_FLOAT;
        v->as.real =
            s[i] == 'i' ? (s[0] == '-' ? -INFINITY : INFINITY) : (s[0] == '-' ? -NAN : NAN);
        return SLUICE_OK;
    }
    /* Each part names what it lacks, so "1." and "1e" say more than "invalid number". */
    const char *why = NULL;
    size_t int_start = i;
    i = scan_digits(s, i, n, 10);
    if (i == SIZE_MAX)
        why = "an underscore must sit between digits";
    else if (i == int_start)
        why = "a float needs digits before the '.' or exponent (write 0.5, not .5)";
    else if (s[int_start] == '0' && i - int_start > 1)
        why = "leading zeros are not allowed";
    if (why == NULL && i < n && s[i] == '.') {
        size_t frac = i + 1;
        i = scan_digits(s, frac, n, 10);
        if (i == SIZE_MAX)
            why = "an underscore must sit between digits";
        else if (i == frac)
            why = "the '.' must be followed by digits (write 1.0, not 1.)";
    }
    if (why == NULL && i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t exp = i + 1;
        if (exp < n && (s[exp] == '+' || s[exp] == '-'))
            exp++;
        i = scan_digits(s, exp, n, 10);
        if (i == SIZE_MAX)
            why = "an underscore must sit between digits";
        else if (i == exp)
            why = "the exponent needs digits (write 1e5)";
    }
    if (why != NULL)
        return fail(p, t.start, n, "invalid number '%.*s': %s", SHOWN(t), why);
    if (i != n)
        return fail(p, t.start, n, "invalid number '%.*s'", SHOWN(t));
    char *clean = sluice_arena_alloc(p->arena, n + 1);
    if (clean == NULL)
        return fail_nomem(p);
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (s[j] != '_')
            clean[k++] = s[j];
    }
    clean[k] = '\0';
    v->type = SLUICE_TOML_FLOAT;
    v->as.real = strtod(clean, NULL);
    return SLUICE_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Dates and times                                                                             */

/* n decimal digits at s[at]; -1 when any is not a digit. */
static int read_digits(const char *s, size_t len, size_t at, size_t n)
{
    int acc = 0;
    if (at + n > len)
        return -1;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[at + k];
        if (c < '0' || c > '9')
            return -1;
        acc = acc * 10 + (c - '0');
    }
    return acc;
}

static int days_in_month(int year, int month)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

typedef struct dt_reader {
    parser *p;
    token t;
    const char *s;
    size_t n;
    char out[64]; /* the normalised form */
    size_t out_len;
} dt_reader;

static void dt_emit(dt_reader *r, const char *s, size_t n)
{
    if (r->out_len + n < sizeof(r->out)) {
        memcpy(r->out + r->out_len, s, n);
        r->out_len += n;
    }
}

static sluice_status dt_range(dt_reader *r, const char *what, int got, int lo, int hi)
{
    return fail(r->p, r->t.start, r->n,
                "invalid date-time '%.*s': %s %02d is out of range (%02d-%02d)", SHOWN_DT(r), what,
                got, lo, hi);
}

/* full-date = date-fullyear "-" date-month "-" date-mday */
static sluice_status dt_date(dt_reader *r)
{
    int year = read_digits(r->s, r->n, 0, 4), month = read_digits(r->s, r->n, 5, 2),
        day = read_digits(r->s, r->n, 8, 2);
    if (year < 0 || month < 0 || day < 0 || r->s[4] != '-' || r->s[7] != '-')
        return fail(r->p, r->t.start, r->n,
                    "invalid date-time '%.*s': expected a date as YYYY-MM-DD", SHOWN_DT(r));
    if (month < 1 || month > 12)
        return dt_range(r, "month", month, 1, 12);
    int last = days_in_month(year, month);
    if (day < 1 || day > last)
        return fail(r->p, r->t.start, r->n,
                    "invalid date-time '%.*s': day %02d is out of range for %04d-%02d (01-%02d)",
                    SHOWN_DT(r), day, year, month, last);
    dt_emit(r, r->s, 10);
    return SLUICE_OK;
}

/* partial-time = time-hour ":" time-minute ":" time-second [ time-secfrac ]; returns the end */
static sluice_status dt_time(dt_reader *r, size_t at, size_t *end)
{
    int hour = read_digits(r->s, r->n, at, 2), minute = read_digits(r->s, r->n, at + 3, 2),
        second = read_digits(r->s, r->n, at + 6, 2);
    if (hour < 0 || minute < 0 || second < 0 || r->s[at + 2] != ':' || r->s[at + 5] != ':')
        return fail(r->p, r->t.start, r->n,
                    "invalid date-time '%.*s': expected a time as HH:MM:SS (seconds are required)",
                    SHOWN_DT(r));
    if (hour > 23)
        return dt_range(r, "hour", hour, 0, 23);
    if (minute > 59)
        return dt_range(r, "minute", minute, 0, 59);
    if (second > 60)
        return dt_range(r, "second", second, 0, 60);
    dt_emit(r, r->s + at, 8);
    size_t i = at + 8;
    if (i < r->n && r->s[i] == '.') {
        size_t digits = 0;
        while (i + 1 + digits < r->n && read_digits(r->s, r->n, i + 1 + digits, 1) >= 0)
            digits++;
        if (digits == 0)
            return fail(r->p, r->t.start, r->n,
                        "invalid date-time '%.*s': expected digits after the '.'", SHOWN_DT(r));
        /* toml-test writes at least milliseconds: 17:45:56.6 is 17:45:56.600 */
        dt_emit(r, r->s + i, digits + 1);
        for (size_t pad = digits; pad < 3; pad++)
            dt_emit(r, "0", 1);
        i += digits + 1;
    }
    *end = i;
    return SLUICE_OK;
}

/* time-offset = "Z" / time-numoffset ; time-numoffset = ( "+" / "-" ) time-hour ":" time-minute */
static sluice_status dt_offset(dt_reader *r, size_t at, bool *has_offset)
{
    *has_offset = at < r->n;
    if (at == r->n)
        return SLUICE_OK;
    if ((r->s[at] == 'Z' || r->s[at] == 'z') && at + 1 == r->n) {
        dt_emit(r, "Z", 1);
        return SLUICE_OK;
    }
    int hour = read_digits(r->s, r->n, at + 1, 2), minute = read_digits(r->s, r->n, at + 4, 2);
    if ((r->s[at] != '+' && r->s[at] != '-') || hour < 0 || minute < 0 || r->s[at + 3] != ':' ||
        at + 6 != r->n)
        return fail(r->p, r->t.start, r->n,
                    "invalid date-time '%.*s': expected Z or an offset as +HH:MM after the time",
                    SHOWN_DT(r));
    if (hour > 23)
        return dt_range(r, "offset hour", hour, 0, 23);
    if (minute > 59)
        return dt_range(r, "offset minute", minute, 0, 59);
    dt_emit(r, r->s + at, 6);
    return SLUICE_OK;
}

/* date-time = offset-date-time / local-date-time / local-date / local-time */
static sluice_status parse_datetime(parser *p, token t, value *v)
{
    dt_reader r = { p, t, p->src + t.start, t.end - t.start, { 0 }, 0 };
    sluice_status st;
    size_t end;
    if (r.n > 2 && r.s[2] == ':') {
        st = dt_time(&r, 0, &end);
        if (st == SLUICE_OK && end != r.n)
            st = fail(p, t.start, r.n, "invalid date-time '%.*s': unexpected text after the time",
                      SHOWN(t));
        v->type = SLUICE_TOML_TIME_LOCAL;
    } else {
        st = r.n >= 10 ? dt_date(&r)
                       : fail(p, t.start, r.n,
                              "invalid date-time '%.*s': expected a date as YYYY-MM-DD", SHOWN(t));
        v->type = SLUICE_TOML_DATE_LOCAL;
        if (st == SLUICE_OK && r.n > 10) {
            char sep = r.s[10];
            if (sep != 'T' && sep != 't' && sep != ' ')
                return fail(p, t.start, r.n,
                            "invalid date-time '%.*s': expected 'T' between date and time",
                            SHOWN(t));
            dt_emit(&r, "T", 1);
            bool has_offset = false;
            st = dt_time(&r, 11, &end);
            if (st == SLUICE_OK)
                st = dt_offset(&r, end, &has_offset);
            v->type = has_offset ? SLUICE_TOML_DATETIME : SLUICE_TOML_DATETIME_LOCAL;
        }
    }
    if (st != SLUICE_OK)
        return st;
    v->as.str.text = sluice_arena_strndup(p->arena, r.out, r.out_len);
    v->as.str.len = r.out_len;
    return v->as.str.text != NULL ? SLUICE_OK : fail_nomem(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Values                                                                                      */

static bool span_is(parser *p, token t, const char *word)
{
    size_t n = strlen(word);
    return t.end - t.start == n && memcmp(p->src + t.start, word, n) == 0;
}

/* boolean / float / integer / date-time, told apart by their shape */
static sluice_status parse_atom(parser *p, token t, value *v)
{
    const char *s = p->src + t.start;
    size_t n = t.end - t.start;
    if (span_is(p, t, "true") || span_is(p, t, "false")) {
        v->type = SLUICE_TOML_BOOL;
        v->as.boolean = s[0] == 't';
        return SLUICE_OK;
    }
    bool digits4 = n >= 5 && read_digits(s, n, 0, 4) >= 0 && s[4] == '-';
    if ((n > 2 && s[2] == ':' && read_digits(s, n, 0, 2) >= 0) || digits4)
        return parse_datetime(p, t, v);
    size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_')) {
        bool radix =
            n - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b');
        if (!radix &&
            (memchr(s, '.', n) != NULL || memchr(s, 'e', n) != NULL || memchr(s, 'E', n) != NULL))
            return parse_float(p, t, v);
        return parse_integer(p, t, v);
    }
    if (n - i == 3 && (memcmp(s + i, "inf", 3) == 0 || memcmp(s + i, "nan", 3) == 0))
        return parse_float(p, t, v);
    return fail(p, t.start, n, "expected a value, found '%s' (strings must be quoted: \"%s\")",
                quote_span(p, t.start, t.end), quote_span(p, t.start, t.end));
}

static sluice_status parse_value(parser *p, size_t depth, value **out);
static sluice_status parse_keyval(parser *p, value *table);

/* ws-comment-newline = *( wschar / [ comment ] newline ) */
static token skip_comments_and_newlines(parser *p)
{
    for (;;) {
        token t = peek(p, SLUICE_TOML_LEX_VALUE);
        if (t.kind != SLUICE_TOML_TOK_NEWLINE && t.kind != SLUICE_TOML_TOK_COMMENT)
            return t;
        advance(p, t);
    }
}

/* array = '[' ws-comment-newline [ array-values ] ws-comment-newline ']'
 * array-values = val ws-comment-newline [ ',' ws-comment-newline array-values ] */
static sluice_status parse_array(parser *p, value *array)
{
    token open = peek(p, SLUICE_TOML_LEX_VALUE);
    advance(p, open);
    for (;;) {
        token t = skip_comments_and_newlines(p);
        if (t.kind == SLUICE_TOML_TOK_RBRACKET) {
            advance(p, t);
            return SLUICE_OK;
        }
        value *item;
        sluice_status st = parse_value(p, array->depth + 1, &item);
        if (st == SLUICE_OK)
            st = array_push(p, array, item);
        if (st != SLUICE_OK)
            return st;
        t = skip_comments_and_newlines(p);
        if (t.kind == SLUICE_TOML_TOK_COMMA) {
            advance(p, t);
        } else if (t.kind == SLUICE_TOML_TOK_RBRACKET) {
            advance(p, t);
            return SLUICE_OK;
        } else {
            size_t line, column;
            locate(p, open.start, &line, &column);
            const char *want = sluice_arena_printf(
                p->arena,
                "',' or ']' after an array element (array opened at line %zu, column %zu)", line,
                column);
            return fail_expected(p, t, want != NULL ? want : "',' or ']'");
        }
    }
}

static sluice_status fail_inline_newline(parser *p, token t)
{
    return fail(p, t.start, 1,
                "newline is not allowed inside an inline table; put it on one line or use a "
                "[table]");
}

/* inline-table = '{' ws [ keyval *( ws ',' ws keyval ) ] ws '}' */
static sluice_status parse_inline_table(parser *p, value *table)
{
    token open = peek(p, SLUICE_TOML_LEX_KEY);
    advance(p, open);
    token t = peek(p, SLUICE_TOML_LEX_KEY);
    if (t.kind == SLUICE_TOML_TOK_RBRACE) {
        advance(p, t);
        sluice_toml_tree_seal(table);
        return SLUICE_OK;
    }
    for (;;) {
        if (t.kind == SLUICE_TOML_TOK_NEWLINE || t.kind == SLUICE_TOML_TOK_COMMENT)
            return fail_inline_newline(p, t);
        sluice_status st = parse_keyval(p, table);
        if (st != SLUICE_OK)
            return st;
        t = peek(p, SLUICE_TOML_LEX_KEY);
        if (t.kind == SLUICE_TOML_TOK_RBRACE)
            break;
        if (t.kind == SLUICE_TOML_TOK_NEWLINE || t.kind == SLUICE_TOML_TOK_COMMENT)
            return fail_inline_newline(p, t);
        if (t.kind != SLUICE_TOML_TOK_COMMA) {
            size_t line, column;
            locate(p, open.start, &line, &column);
            const char *want = sluice_arena_printf(
                p->arena, "',' or '}' in inline table (opened at line %zu, column %zu)", line,
                column);
            return fail_expected(p, t, want != NULL ? want : "',' or '}'");
        }
        token comma = t;
        advance(p, comma);
        t = peek(p, SLUICE_TOML_LEX_KEY);
        if (t.kind == SLUICE_TOML_TOK_RBRACE)
            return fail(p, comma.start, 1,
                        "trailing comma is not allowed in an inline table; remove the ','");
    }
    advance(p, t);
    sluice_toml_tree_seal(table);
    return SLUICE_OK;
}

static bool is_string_token(sluice_toml_tok_kind kind)
{
    return kind == SLUICE_TOML_TOK_BASIC || kind == SLUICE_TOML_TOK_LITERAL ||
           kind == SLUICE_TOML_TOK_ML_BASIC || kind == SLUICE_TOML_TOK_ML_LITERAL;
}

/* val = string / boolean / array / inline-table / date-time / float / integer */
static sluice_status parse_value(parser *p, size_t depth, value **out)
{
    token t = peek(p, SLUICE_TOML_LEX_VALUE);
    if (depth > SLUICE_LIMIT_NESTING_DEPTH)
        return fail_depth(p, t.start);
    value *v = new_value(p, SLUICE_TOML_STRING, ORIGIN_NONE, depth, place_of(p, t.start));
    if (v == NULL)
        return fail_nomem(p);
    sluice_status st;
    if (is_string_token(t.kind)) {
        st = decode_string(p, t, &v->as.str.text, &v->as.str.len);
        advance(p, t);
    } else if (t.kind == SLUICE_TOML_TOK_LBRACKET) {
        v->type = SLUICE_TOML_ARRAY;
        v->origin = ARRAY_STATIC;
        st = parse_array(p, v);
    } else if (t.kind == SLUICE_TOML_TOK_LBRACE) {
        v->type = SLUICE_TOML_TABLE;
        v->origin = TABLE_DOTTED; /* extendable by its own keys until sealed at '}' */
        st = parse_inline_table(p, v);
    } else if (t.kind == SLUICE_TOML_TOK_BARE) {
        st = parse_atom(p, t, v);
        advance(p, t);
    } else {
        st = fail_expected(p, t, "a value");
    }
    if (st == SLUICE_OK)
        *out = v;
    return st;
}

/* Walks the parts of k before the last from table, creating tables for dotted keys, and
 * returns the table that receives the last part. */
static sluice_status walk_dotted(parser *p, value *table, const key_path *k, value **out)
{
    for (size_t i = 0; i + 1 < k->count; i++) {
        const key_part *part = &k->parts[i];
        entry *e = sluice_toml_tree_find(table, part->text, part->len);
        if (e == NULL) {
            sluice_status st = add_table(p, table, part, TABLE_DOTTED, &table);
            if (st != SLUICE_OK)
                return st;
            continue;
        }
        value *v = e->value;
        const char *name = key_prefix(p, k, i + 1);
        if (v->type != SLUICE_TOML_TABLE)
            return fail(p, part->offset, part->len,
                        "cannot add keys to '%s': it is %s %s (defined at line %zu), not a table",
                        name, type_article(v->type), sluice_toml_type_name(v->type), e->line);
        if (v->origin == TABLE_INLINE)
            return fail(p, part->offset, part->len,
                        "cannot add keys to inline table '%s' (defined at line %zu): an inline "
                        "table is complete when closed",
                        name, e->line);
        if (v->origin == TABLE_HEADER)
            return fail(p, part->offset, part->len,
                        "cannot add keys to table '%s' with dotted keys: it is defined by its "
                        "own [header] at line %zu; add them there",
                        name, v->line);
        v->origin = TABLE_DOTTED;
        table = v;
    }
    *out = table;
    return SLUICE_OK;
}

/* keyval = key keyval-sep val */
static sluice_status parse_keyval(parser *p, value *table)
{
    key_path k;
    sluice_status st = parse_key(p, &k);
    if (st != SLUICE_OK)
        return st;
    token eq = peek(p, SLUICE_TOML_LEX_VALUE);
    if (eq.kind != SLUICE_TOML_TOK_EQUALS) {
        const char *want = sluice_arena_printf(p->arena, "'=' after key '%s'", key_text(p, &k));
        if (eq.kind == SLUICE_TOML_TOK_BAD_BYTE || eq.kind == SLUICE_TOML_TOK_UNTERMINATED)
            return fail_lex(p, eq);
        return fail(p, eq.start, eq.end - eq.start, "expected %s", want != NULL ? want : "'='");
    }
    advance(p, eq);
    value *target = NULL;
    st = walk_dotted(p, table, &k, &target);
    if (st != SLUICE_OK)
        return st;
    const key_part *last = &k.parts[k.count - 1];
    entry *dup = sluice_toml_tree_find(target, last->text, last->len);
    if (dup != NULL)
        return fail(p, last->offset, last->len, "duplicate key '%s' (first defined at line %zu)",
                    key_text(p, &k), dup->line);
    value *v;
    st = parse_value(p, target->depth + 1, &v);
    if (st != SLUICE_OK)
        return st;
    return table_add(p, target, last, v);
}

/* ------------------------------------------------------------------------------------------ */
/* Table headers                                                                               */

/* Walks the parts of a header key before the last, creating implicit tables; a part naming an
 * array of tables continues in its last element. */
static sluice_status walk_header(parser *p, const key_path *k, value **out)
{
    value *table = p->root;
    for (size_t i = 0; i + 1 < k->count; i++) {
        const key_part *part = &k->parts[i];
        entry *e = sluice_toml_tree_find(table, part->text, part->len);
        if (e == NULL) {
            sluice_status st = add_table(p, table, part, TABLE_IMPLICIT, &table);
            if (st != SLUICE_OK)
                return st;
            continue;
        }
        value *v = e->value;
        const char *name = key_prefix(p, k, i + 1);
        if (v->type == SLUICE_TOML_ARRAY && v->origin == ARRAY_OF_TABLES) {
            table = v->as.array.items[v->as.array.count - 1];
        } else if (v->type == SLUICE_TOML_TABLE && v->origin != TABLE_INLINE) {
            table = v;
        } else if (v->type == SLUICE_TOML_TABLE) {
            return fail(p, part->offset, part->len,
                        "cannot add a table under inline table '%s' (defined at line %zu): an "
                        "inline table is complete when closed",
                        name, e->line);
        } else {
            return fail(p, part->offset, part->len,
                        "cannot add a table under '%s': it is %s %s (defined at line %zu)", name,
                        v->origin == ARRAY_STATIC ? "a static" : type_article(v->type),
                        sluice_toml_type_name(v->type), e->line);
        }
    }
    *out = table;
    return SLUICE_OK;
}

/* Defines [k] in parent: new, or an implicit table made explicit. */
static sluice_status define_table(parser *p, value *parent, const key_path *k)
{
    const key_part *last = &k->parts[k->count - 1];
    entry *e = sluice_toml_tree_find(parent, last->text, last->len);
    if (e == NULL)
        return add_table(p, parent, last, TABLE_HEADER, &p->table);
    value *v = e->value;
    const char *name = key_text(p, k);
    if (v->type == SLUICE_TOML_TABLE && v->origin == TABLE_IMPLICIT) {
        v->origin = TABLE_HEADER; /* now placed at its header, not where it was implied */
        v->line = last->at.line;
        v->column = last->at.column;
        p->table = v;
        return SLUICE_OK;
    }
    if (v->type == SLUICE_TOML_TABLE && v->origin == TABLE_HEADER)
        return fail(p, last->offset, last->len, "table [%s] is already defined at line %zu", name,
                    v->line);
    if (v->type == SLUICE_TOML_TABLE)
        return fail(p, last->offset, last->len, "table [%s] is already defined by %s at line %zu",
                    name, v->origin == TABLE_INLINE ? "an inline table" : "dotted keys", e->line);
    if (v->origin == ARRAY_OF_TABLES)
        return fail(p, last->offset, last->len,
                    "'%s' is an array of tables (defined at line %zu); use [[%s]] to add an "
                    "element",
                    name, v->line, name);
    return fail(p, last->offset, last->len,
                "cannot define table [%s]: the key is already %s %s (defined at line %zu)", name,
                type_article(v->type), sluice_toml_type_name(v->type), e->line);
}

/* Appends a table to the array of tables [[k]] in parent, creating the array if new. Both sit at
 * the '[[' (config.c reports a missing key of an element there). */
static sluice_status append_table(parser *p, value *parent, const key_path *k, place at)
{
    const key_part *last = &k->parts[k->count - 1];
    entry *e = sluice_toml_tree_find(parent, last->text, last->len);
    value *array;
    if (e == NULL) {
        if (parent->depth + 2 > SLUICE_LIMIT_NESTING_DEPTH)
            return fail_depth(p, last->offset);
        array = new_value(p, SLUICE_TOML_ARRAY, ARRAY_OF_TABLES, parent->depth + 1, at);
        if (array == NULL)
            return fail_nomem(p);
        sluice_status st = table_add(p, parent, last, array);
        if (st != SLUICE_OK)
            return st;
    } else if (e->value->type == SLUICE_TOML_ARRAY && e->value->origin == ARRAY_OF_TABLES) {
        array = e->value;
    } else {
        value *v = e->value;
        return fail(p, last->offset, last->len,
                    "cannot use [[%s]]: the key is already %s %s (defined at line %zu)",
                    key_text(p, k), v->origin == ARRAY_STATIC ? "a static" : type_article(v->type),
                    sluice_toml_type_name(v->type), e->line);
    }
    value *table = new_value(p, SLUICE_TOML_TABLE, TABLE_HEADER, array->depth + 1, at);
    if (table == NULL)
        return fail_nomem(p);
    p->table = table;
    return array_push(p, array, table);
}

/* table = std-table / array-table
 * std-table = '[' ws key ws ']' ; array-table = '[[' ws key ws ']]' */
static sluice_status parse_header(parser *p)
{
    token open = peek(p, SLUICE_TOML_LEX_KEY);
    bool aot = open.end < p->len && p->src[open.end] == '[';
    place at = place_of(p, open.start);
    p->pos = open.end + (aot ? 1 : 0);
    key_path k;
    sluice_status st = parse_key(p, &k);
    if (st != SLUICE_OK)
        return st;
    token close = peek(p, SLUICE_TOML_LEX_KEY);
    bool closed = close.kind == SLUICE_TOML_TOK_RBRACKET &&
                  (!aot || (close.end < p->len && p->src[close.end] == ']'));
    if (!closed) {
        const char *want = sluice_arena_printf(p->arena, "'%s' to close the header [%s%s",
                                               aot ? "]]" : "]", aot ? "[" : "", key_text(p, &k));
        return fail_expected(p, close, want != NULL ? want : "']'");
    }
    p->pos = close.end + (aot ? 1 : 0);
    value *parent = NULL;
    st = walk_header(p, &k, &parent);
    if (st != SLUICE_OK)
        return st;
    return aot ? append_table(p, parent, &k, at) : define_table(p, parent, &k);
}

/* ------------------------------------------------------------------------------------------ */
/* Document                                                                                    */

/* After a key/value or header: [comment] then newline or end of file. */
static sluice_status expect_line_end(parser *p, const char *after)
{
    token t = peek(p, SLUICE_TOML_LEX_KEY);
    if (t.kind == SLUICE_TOML_TOK_COMMENT) {
        advance(p, t);
        t = peek(p, SLUICE_TOML_LEX_KEY);
    }
    if (t.kind == SLUICE_TOML_TOK_NEWLINE || t.kind == SLUICE_TOML_TOK_EOF) {
        advance(p, t);
        return SLUICE_OK;
    }
    const char *want = sluice_arena_printf(p->arena, "a newline after %s", after);
    return fail_expected(p, t, want != NULL ? want : "a newline");
}

/* toml = expression *( newline expression )
 * expression = ws [ comment ] / ws keyval ws [ comment ] / ws table ws [ comment ] */
static sluice_status parse_document(parser *p)
{
    for (;;) {
        token t = peek(p, SLUICE_TOML_LEX_KEY);
        sluice_status st;
        switch (t.kind) {
        case SLUICE_TOML_TOK_EOF:
            return SLUICE_OK;
        case SLUICE_TOML_TOK_NEWLINE:
        case SLUICE_TOML_TOK_COMMENT:
            advance(p, t);
            continue;
        case SLUICE_TOML_TOK_LBRACKET:
            st = parse_header(p);
            if (st == SLUICE_OK)
                st = expect_line_end(p, "the table header");
            break;
        case SLUICE_TOML_TOK_BARE:
        case SLUICE_TOML_TOK_BASIC:
        case SLUICE_TOML_TOK_LITERAL:
        case SLUICE_TOML_TOK_ML_BASIC:
        case SLUICE_TOML_TOK_ML_LITERAL:
            st = parse_keyval(p, p->table);
            if (st == SLUICE_OK)
                st = expect_line_end(p, "the value");
            break;
        default:
            st = fail_expected(p, t, "a key or a [table] header");
            break;
        }
        if (st != SLUICE_OK)
            return st;
    }
}

sluice_status sluice_toml_parse(sluice_arena *arena,
                                const char *src,
                                size_t len,
                                const char *source,
                                sluice_toml_value **out_root,
                                sluice_error *err)
{
    parser p = { 0 };
    p.arena = arena;
    p.src = src;
    p.len = len;
    p.source = source;
    p.err = err;
    p.cur_line = 1;
    p.cur_col = 1;
    if (len > SLUICE_LIMIT_TOML_BYTES) {
        if (err != NULL)
            sluice_error_set(err, arena, SLUICE_E_LIMIT, "%s is too large (%zu bytes; limit is %u)",
                             source != NULL ? source : "TOML input", len, SLUICE_LIMIT_TOML_BYTES);
        return SLUICE_E_LIMIT;
    }
    size_t bad = sluice_toml_lex_utf8_check(src, len);
    if (bad < len)
        return fail(&p, bad, 1, "invalid UTF-8 (byte 0x%02x); save the file as UTF-8",
                    (unsigned char)src[bad]);
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        p.base = 3;
        p.pos = 3;
        p.cur_off = 3;
    }
    p.root = new_value(&p, SLUICE_TOML_TABLE, TABLE_HEADER, 0, place_of(&p, p.base));
    if (p.root == NULL)
        return fail_nomem(&p);
    p.table = p.root;
    sluice_status st = parse_document(&p);
    if (st == SLUICE_OK)
        *out_root = p.root;
    return st;
}
