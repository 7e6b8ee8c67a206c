/*
 * lex.c — the plan language's lexer (see lex.h): a whole plan into a token array.
 *
 * Owns: whitespace, comments, identifiers, numbers, string and template literals with their
 * escapes (cooked into UTF-16), punctuators, and the token/size limits.
 * Does not own: deciding what a token means (parse.c).
 */
#include "syntax/js/lex.h"

#include "core/hash.h"
#include "core/limits.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    sluice_arena *arena;
    const char *src;
    size_t len, pos;
    uint32_t line;
    size_t line_start;
    sluice_js_tok *toks;
    size_t count, cap;
    int saw_newline; /* a line break since the last token (for automatic semicolons) */
    /* brace stack: 1 = a `${` substitution, 0 = an ordinary brace */
    unsigned char braces[SLUICE_LIMIT_JS_NESTING];
    size_t brace_depth;
    sluice_error *err;
    /* cooked string scratch */
    uint16_t *buf;
    size_t buf_len, buf_cap;
} lexer;

static sluice_status fail(lexer *lx, size_t at, const char *msg, const char *hint)
{
    size_t line, col;
    sluice_error_locate(lx->src, lx->len, at, &line, &col);
    sluice_error_at(lx->err, lx->arena, SLUICE_E_INVALID, "<code>", line, col, "%s", msg);
    if (hint != NULL)
        sluice_error_hint(lx->err, lx->arena, "%s", hint);
    lx->err->offset = at;
    return SLUICE_E_INVALID;
}

sluice_js_str *sluice_js_str_new(sluice_arena *arena, const uint16_t *u, size_t len)
{
    sluice_js_str *s = sluice_arena_alloc(arena, sizeof *s + (len + 1) * sizeof(uint16_t));
    if (s == NULL)
        return NULL;
    s->len = len;
    if (len > 0)
        memcpy(s->u, u, len * sizeof(uint16_t));
    return s;
}

/* Decodes one UTF-8 sequence at s[*i] (advancing *i); U+FFFD for a bad one. */
static uint32_t utf8_next(const char *s, size_t len, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = len - *i;
    uint32_t c = p[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    if (n == 0 || n > left) {
        (*i)++;
        return 0xFFFD;
    }
    if (n == 1) {
        (*i)++;
        return c;
    }
    c &= 0xFFu >> (n + 1);
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        c = (c << 6) | (p[k] & 0x3F);
    }
    static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    *i += n;
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0xFFFD;
    return c;
}

static int put_unit(lexer *lx, uint16_t u)
{
    if (lx->buf_len == lx->buf_cap) {
        uint16_t *nb =
            sluice_vec_grow(lx->arena, lx->buf, lx->buf_len, &lx->buf_cap, sizeof *nb, 64);
        if (nb == NULL)
            return -1;
        lx->buf = nb;
    }
    lx->buf[lx->buf_len++] = u;
    return 0;
}

/* cp as UTF-16 into u: one unit, or a surrogate pair above the BMP. Returns the count. */
static size_t utf16_units(uint32_t cp, uint16_t u[2])
{
    if (cp < 0x10000) {
        u[0] = (uint16_t)cp;
        return 1;
    }
    cp -= 0x10000;
    u[0] = (uint16_t)(0xD800 + (cp >> 10));
    u[1] = (uint16_t)(0xDC00 + (cp & 0x3FF));
    return 2;
}

static int put_cp(lexer *lx, uint32_t cp)
{
    uint16_t u[2];
    size_t n = utf16_units(cp, u);
    for (size_t k = 0; k < n; k++)
        if (put_unit(lx, u[k]) != 0)
            return -1;
    return 0;
}

/* Decoded in place: a UTF-8 sequence of n bytes gives at most n UTF-16 units (4 bytes give a
 * surrogate pair, a bad byte one U+FFFD), so len units always suffice. Every JSON string an
 * upstream sends comes through here. */
sluice_js_str *sluice_js_str_from_utf8(sluice_arena *arena, const char *s, size_t len)
{
    if (len > (SIZE_MAX - sizeof(sluice_js_str)) / sizeof(uint16_t) - 1)
        return NULL;
    sluice_js_str *out = sluice_arena_alloc(arena, sizeof *out + (len + 1) * sizeof(uint16_t));
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len;)
        n += utf16_units(utf8_next(s, len, &i), out->u + n);
    out->len = n;
    return out;
}

int sluice_js_str_eq_ascii(const sluice_js_str *a, const char *s)
{
    size_t n = strlen(s);
    if (a->len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (a->u[i] != (unsigned char)s[i])
            return 0;
    return 1;
}

int sluice_js_str_eq(const sluice_js_str *a, const sluice_js_str *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->u, b->u, a->len * 2) == 0);
}

char *sluice_js_str_utf8(sluice_arena *arena, const sluice_js_str *s)
{
    char *out = sluice_arena_alloc(arena, s->len * 3 + 1);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->u[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s->len && s->u[i + 1] >= 0xDC00 &&
            s->u[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (s->u[i + 1] - 0xDC00);
            i++;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            c = 0xFFFD;
        }
        if (c < 0x80) {
            out[n++] = (char)c;
        } else if (c < 0x800) {
            out[n++] = (char)(0xC0 | (c >> 6));
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[n++] = (char)(0xE0 | (c >> 12));
            out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[n++] = (char)(0xF0 | (c >> 18));
            out[n++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[n++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[n++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[n] = '\0';
    return out;
}

const char *sluice_js_limit_text(sluice_arena *arena, const char *what, size_t limit)
{
    char *t = sluice_arena_printf(arena, "%s (limit is %zu)", what, limit);
    return t != NULL ? t : what;
}

int sluice_js_tok_is(const sluice_js_tok *tok, const char *p)
{
    if (tok->kind != SLUICE_JS_T_PUNCT && tok->kind != SLUICE_JS_T_IDENT)
        return 0;
    size_t n = strlen(p);
    return tok->len == n && memcmp(tok->text, p, n) == 0;
}

static sluice_js_tok *push(lexer *lx, sluice_js_tok_kind kind, size_t start)
{
    if (lx->count + 1 >= SLUICE_LIMIT_JS_TOKENS) {
        fail(
            lx, start,
            sluice_js_limit_text(lx->arena, "the plan has too many tokens", SLUICE_LIMIT_JS_TOKENS),
            "split the work into smaller plans");
        lx->err->status = SLUICE_E_LIMIT;
        return NULL;
    }
    sluice_js_tok *nt = sluice_vec_grow(lx->arena, lx->toks, lx->count, &lx->cap, sizeof *nt, 256);
    if (nt == NULL)
        return NULL;
    lx->toks = nt;
    sluice_js_tok *t = &lx->toks[lx->count++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->newline_before = lx->saw_newline;
    lx->saw_newline = 0;
    t->offset = start;
    t->text = lx->src + start;
    t->line = lx->line;
    t->column = (uint32_t)(start - lx->line_start + 1);
    return t;
}

static int is_id_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static int is_id_part(int c)
{
    return is_id_start(c) || (c >= '0' && c <= '9');
}

static void newline(lexer *lx, size_t after)
{
    lx->line++;
    lx->line_start = after;
}

/* Skips whitespace and comments. Non-OK on an unterminated block comment. */
static sluice_status skip_space(lexer *lx)
{
    while (lx->pos < lx->len) {
        char c = lx->src[lx->pos];
        if (c == '\n') {
            lx->pos++;
            lx->saw_newline = 1;
            newline(lx, lx->pos);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '/') {
            while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
                lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '*') {
            size_t start = lx->pos;
            lx->pos += 2;
            while (lx->pos + 1 < lx->len &&
                   !(lx->src[lx->pos] == '*' && lx->src[lx->pos + 1] == '/')) {
                if (lx->src[lx->pos] == '\n') {
                    lx->saw_newline = 1;
                    newline(lx, lx->pos + 1);
                }
                lx->pos++;
            }
            if (lx->pos + 1 >= lx->len)
                return fail(lx, start, "unterminated comment: expected */", "close it with */");
            lx->pos += 2;
        } else {
            break;
        }
    }
    return SLUICE_OK;
}

/* The one-letter escapes \n \t \r \b \f \v: the code point, or -1 for any other letter. */
static int32_t letter_escape(char c)
{
    switch (c) {
    case 'n':
        return '\n';
    case 't':
        return '\t';
    case 'r':
        return '\r';
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'v':
        return '\v';
    default:
        return -1;
    }
}

/* \xHH after the x; `at` is the backslash, for the message. */
static sluice_status hex_escape(lexer *lx, size_t at, uint32_t *cp)
{
    int h1 = lx->pos + 1 < lx->len ? sluice_hex_digit((unsigned char)lx->src[lx->pos]) : -1;
    int h2 = h1 >= 0 ? sluice_hex_digit((unsigned char)lx->src[lx->pos + 1]) : -1;
    if (h2 < 0)
        return fail(lx, at, "bad \\x escape: expected two hex digits", "write \\x41");
    lx->pos += 2;
    *cp = (uint32_t)(h1 * 16 + h2);
    return SLUICE_OK;
}

/* \u{X...} or \uXXXX after the u, written to the scratch buffer. */
static sluice_status unicode_escape(lexer *lx, size_t at)
{
    uint32_t cp = 0;
    if (lx->pos < lx->len && lx->src[lx->pos] == '{') {
        lx->pos++;
        size_t digits = 0;
        while (lx->pos < lx->len && sluice_hex_digit((unsigned char)lx->src[lx->pos]) >= 0) {
            cp = cp * 16 + (uint32_t)sluice_hex_digit((unsigned char)lx->src[lx->pos++]);
            if (cp > 0x10FFFF)
                return fail(lx, at, "bad \\u{...} escape: code point above 10FFFF", NULL);
            digits++;
        }
        if (digits == 0 || lx->pos >= lx->len || lx->src[lx->pos] != '}')
            return fail(lx, at, "bad \\u{...} escape: expected hex digits and }",
                        "write \\u{1F600}");
        lx->pos++;
        return put_cp(lx, cp) == 0 ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    for (int k = 0; k < 4; k++) {
        int h = lx->pos < lx->len ? sluice_hex_digit((unsigned char)lx->src[lx->pos]) : -1;
        if (h < 0)
            return fail(lx, at, "bad \\u escape: expected four hex digits", "write \\u00e9");
        cp = cp * 16 + (uint32_t)h;
        lx->pos++;
    }
    /* a surrogate escape stays one unit: pairs of \uD83D\uDE00 combine by themselves */
    return put_unit(lx, (uint16_t)cp) == 0 ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* Reads an escape after the backslash at lx->pos - 1 into the scratch buffer. */
static sluice_status escape(lexer *lx, int in_template)
{
    size_t at = lx->pos - 1;
    if (lx->pos >= lx->len)
        return fail(lx, at, "unterminated escape sequence", NULL);
    char c = lx->src[lx->pos++];
    int32_t letter = letter_escape(c);
    uint32_t cp = 0;
    sluice_status st;
    if (letter >= 0)
        return put_cp(lx, (uint32_t)letter) == 0 ? SLUICE_OK : SLUICE_E_NOMEM;
    switch (c) {
    case '\r': /* a line continuation: nothing is written */
        if (lx->pos < lx->len && lx->src[lx->pos] == '\n')
            lx->pos++;
        newline(lx, lx->pos);
        return SLUICE_OK;
    case '\n':
        newline(lx, lx->pos);
        return SLUICE_OK;
    case '0':
        if (lx->pos < lx->len && lx->src[lx->pos] >= '0' && lx->src[lx->pos] <= '9')
            return fail(lx, at, "octal escape sequences are not allowed", "write \\u0000 or \\x00");
        cp = 0;
        break;
    case 'x':
        if ((st = hex_escape(lx, at, &cp)) != SLUICE_OK)
            return st;
        break;
    case 'u':
        return unicode_escape(lx, at);
    default:
        if (c >= '1' && c <= '9')
            return fail(lx, at,
                        in_template ? "octal escapes are not allowed in template literals"
                                    : "octal escape sequences are not allowed",
                        "write \\u0031 for the digit");
        lx->pos--;
        cp = utf8_next(lx->src, lx->len, &lx->pos);
        break;
    }
    return put_cp(lx, cp) == 0 ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status lex_string(lexer *lx)
{
    size_t start = lx->pos;
    char q = lx->src[lx->pos++];
    lx->buf_len = 0;
    uint32_t line = lx->line;
    size_t col = start - lx->line_start + 1;
    for (;;) {
        if (lx->pos >= lx->len || lx->src[lx->pos] == '\n' || lx->src[lx->pos] == '\r')
            return fail(lx, start, "unterminated string literal: expected a closing quote",
                        "close the string on the same line, or use a template literal");
        char c = lx->src[lx->pos];
        if (c == q) {
            lx->pos++;
            break;
        }
        if (c == '\\') {
            lx->pos++;
            sluice_status st = escape(lx, 0);
            if (st != SLUICE_OK)
                return st;
            continue;
        }
        if (put_cp(lx, utf8_next(lx->src, lx->len, &lx->pos)) != 0)
            return SLUICE_E_NOMEM;
    }
    sluice_js_tok *t = push(lx, SLUICE_JS_T_STRING, start);
    if (t == NULL)
        return lx->err->status == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
    t->line = line;
    t->column = (uint32_t)col;
    t->len = lx->pos - start;
    t->str = sluice_js_str_new(lx->arena, lx->buf, lx->buf_len);
    return t->str != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* A template chunk starting at lx->pos (just after ` or the } closing a substitution). */
static sluice_status lex_template(lexer *lx, size_t start, unsigned head)
{
    lx->buf_len = 0;
    uint32_t line = lx->line;
    size_t col = start - lx->line_start + 1;
    unsigned flags = head;
    for (;;) {
        if (lx->pos >= lx->len)
            return fail(lx, start, "unterminated template literal: expected `", "close it with `");
        char c = lx->src[lx->pos];
        if (c == '`') {
            lx->pos++;
            flags |= SLUICE_JS_TPL_TAIL;
            break;
        }
        if (c == '$' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '{') {
            lx->pos += 2;
            if (lx->brace_depth >= SLUICE_LIMIT_JS_NESTING)
                return fail(lx, start, "template substitutions nest too deep", NULL);
            lx->braces[lx->brace_depth++] = 1;
            break;
        }
        if (c == '\\') {
            lx->pos++;
            sluice_status st = escape(lx, 1);
            if (st != SLUICE_OK)
                return st;
            continue;
        }
        if (c == '\r') { /* <CR><LF> and <CR> are cooked as <LF> */
            lx->pos++;
            if (lx->pos < lx->len && lx->src[lx->pos] == '\n')
                lx->pos++;
            newline(lx, lx->pos);
            if (put_unit(lx, '\n') != 0)
                return SLUICE_E_NOMEM;
            continue;
        }
        if (c == '\n')
            newline(lx, lx->pos + 1);
        if (put_cp(lx, utf8_next(lx->src, lx->len, &lx->pos)) != 0)
            return SLUICE_E_NOMEM;
    }
    sluice_js_tok *t = push(lx, SLUICE_JS_T_TEMPLATE, start);
    if (t == NULL)
        return lx->err->status == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
    t->line = line;
    t->column = (uint32_t)col;
    t->flags = flags;
    t->len = lx->pos - start;
    t->str = sluice_js_str_new(lx->arena, lx->buf, lx->buf_len);
    return t->str != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* Digits of a radix with numeric separators; -1 when none or a separator is misplaced. */
static double digits(lexer *lx, int radix, size_t *count)
{
    double v = 0;
    *count = 0;
    int last_sep = 1;
    while (lx->pos < lx->len) {
        char c = lx->src[lx->pos];
        if (c == '_') {
            if (last_sep)
                return -1;
            last_sep = 1;
            lx->pos++;
            continue;
        }
        int d = sluice_hex_digit((unsigned char)c);
        if (d < 0 || d >= radix)
            break;
        v = v * radix + d;
        (*count)++;
        last_sep = 0;
        lx->pos++;
    }
    if (*count > 0 && last_sep)
        return -1;
    return v;
}

static sluice_status lex_number(lexer *lx)
{
    size_t start = lx->pos;
    double v;
    const char *s = lx->src;
    if (s[lx->pos] == '0' && lx->pos + 1 < lx->len && strchr("xXoObB", s[lx->pos + 1]) != NULL &&
        s[lx->pos + 1] != '\0') {
        char k = s[lx->pos + 1];
        int radix = (k == 'x' || k == 'X') ? 16 : (k == 'o' || k == 'O') ? 8 : 2;
        lx->pos += 2;
        size_t n;
        v = digits(lx, radix, &n);
        if (n == 0 || v < 0)
            return fail(lx, start, "bad number literal: expected digits after the prefix", NULL);
    } else {
        if (s[lx->pos] == '0' && lx->pos + 1 < lx->len &&
            ((s[lx->pos + 1] >= '0' && s[lx->pos + 1] <= '9') || s[lx->pos + 1] == '_'))
            return fail(lx, start, "legacy octal number literals are not allowed",
                        "write 0o17 for octal, or drop the leading zero");
        /* collect the literal without separators and let strtod round it exactly */
        char tmp[512];
        size_t n = 0;
        int seen_e = 0, seen_dot = 0;
        while (lx->pos < lx->len && n + 2 < sizeof tmp) {
            char c = s[lx->pos];
            if (c >= '0' && c <= '9') {
                tmp[n++] = c;
            } else if (c == '_' && n > 0 && tmp[n - 1] >= '0' && tmp[n - 1] <= '9' &&
                       lx->pos + 1 < lx->len && s[lx->pos + 1] >= '0' && s[lx->pos + 1] <= '9') {
                /* separator: skipped */
            } else if (c == '.' && !seen_dot && !seen_e) {
                seen_dot = 1;
                tmp[n++] = c;
            } else if ((c == 'e' || c == 'E') && !seen_e) {
                seen_e = 1;
                tmp[n++] = 'e';
                if (lx->pos + 1 < lx->len && (s[lx->pos + 1] == '+' || s[lx->pos + 1] == '-'))
                    tmp[n++] = s[++lx->pos];
                if (lx->pos + 1 >= lx->len || s[lx->pos + 1] < '0' || s[lx->pos + 1] > '9')
                    return fail(lx, start, "bad number literal: expected digits after the exponent",
                                NULL);
            } else {
                break;
            }
            lx->pos++;
        }
        if (n + 2 >= sizeof tmp)
            return fail(lx, start, "number literal too long", NULL);
        tmp[n] = '\0';
        v = strtod(tmp, NULL);
    }
    if (lx->pos < lx->len && lx->src[lx->pos] == 'n')
        return fail(lx, start, "BigInt literals are not part of the plan language",
                    "use ordinary numbers");
    if (lx->pos < lx->len && is_id_part((unsigned char)lx->src[lx->pos]))
        return fail(lx, lx->pos, "an identifier cannot start right after a number", NULL);
    sluice_js_tok *t = push(lx, SLUICE_JS_T_NUMBER, start);
    if (t == NULL)
        return lx->err->status == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
    t->len = lx->pos - start;
    t->num = v;
    return SLUICE_OK;
}

static const char *const puncts[] = {
    ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "?\?=", "=>",
    "==",   "!=",  "<=",  ">=",  "&&",  "||",  "??",  "?.",  "++",  "--",  "+=",   "-=",
    "*=",   "/=",  "%=",  "&=",  "|=",  "^=",  "**",  "<<",  ">>",  "{",   "}",    "(",
    ")",    "[",   "]",   ";",   ",",   "<",   ">",   "+",   "-",   "*",   "/",    "%",
    "&",    "|",   "^",   "!",   "~",   "?",   ":",   "=",   ".",   "@",   "#",
};

static sluice_status lex_punct(lexer *lx)
{
    size_t start = lx->pos;
    for (size_t i = 0; i < sizeof puncts / sizeof puncts[0]; i++) {
        size_t n = strlen(puncts[i]);
        if (n > lx->len - lx->pos || memcmp(lx->src + lx->pos, puncts[i], n) != 0)
            continue;
        /* `?.5` is a conditional and a number, not optional chaining */
        if (n == 2 && puncts[i][0] == '?' && puncts[i][1] == '.' && lx->pos + 2 < lx->len &&
            lx->src[lx->pos + 2] >= '0' && lx->src[lx->pos + 2] <= '9')
            continue;
        if (puncts[i][0] == '{' && n == 1) {
            if (lx->brace_depth >= SLUICE_LIMIT_JS_NESTING)
                return fail(lx, start,
                            sluice_js_limit_text(lx->arena, "braces nest too deep",
                                                 SLUICE_LIMIT_JS_NESTING),
                            "flatten the plan");
            lx->braces[lx->brace_depth++] = 0;
        }
        if (puncts[i][0] == '}' && n == 1 && lx->brace_depth > 0 &&
            lx->braces[--lx->brace_depth] == 1) {
            lx->pos++;
            return lex_template(lx, start, 0);
        }
        sluice_js_tok *t = push(lx, SLUICE_JS_T_PUNCT, start);
        if (t == NULL)
            return lx->err->status == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
        t->len = n;
        lx->pos += n;
        return SLUICE_OK;
    }
    unsigned char c = (unsigned char)lx->src[start];
    if (c >= 0x80)
        return fail(lx, start, "only ASCII letters, digits, _ and $ may form identifiers",
                    "rename the variable with ASCII letters; non-ASCII text belongs in strings");
    return fail(lx, start, "unexpected character", NULL);
}

static sluice_status lex_one(lexer *lx)
{
    char c = lx->src[lx->pos];
    if (is_id_start((unsigned char)c)) {
        size_t start = lx->pos;
        while (lx->pos < lx->len && is_id_part((unsigned char)lx->src[lx->pos]))
            lx->pos++;
        if (lx->pos < lx->len &&
            (lx->src[lx->pos] == '\\' || (unsigned char)lx->src[lx->pos] >= 0x80))
            return fail(lx, lx->pos, "only ASCII letters, digits, _ and $ may form identifiers",
                        NULL);
        sluice_js_tok *t = push(lx, SLUICE_JS_T_IDENT, start);
        if (t == NULL)
            return lx->err->status == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_NOMEM;
        t->len = lx->pos - start;
        t->str = sluice_js_str_from_utf8(lx->arena, t->text, t->len);
        return t->str != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && lx->pos + 1 < lx->len &&
                                   lx->src[lx->pos + 1] >= '0' && lx->src[lx->pos + 1] <= '9'))
        return lex_number(lx);
    if (c == '"' || c == '\'')
        return lex_string(lx);
    if (c == '`') {
        size_t start = lx->pos++;
        return lex_template(lx, start, SLUICE_JS_TPL_HEAD);
    }
    return lex_punct(lx);
}

sluice_status sluice_js_lex(
    sluice_arena *arena, const char *code, size_t len, sluice_js_tokens *out, sluice_error *err)
{
    lexer lx = { .arena = arena, .src = code, .len = len, .line = 1, .err = err };
    if (len > SLUICE_LIMIT_CODE_BYTES) {
        char *what = sluice_arena_printf(arena, "the plan is %zu bytes", len);
        return sluice_error_set(err, arena, SLUICE_E_LIMIT, "%s",
                                sluice_js_limit_text(arena,
                                                     what != NULL ? what : "the plan is too long",
                                                     SLUICE_LIMIT_CODE_BYTES));
    }
    /* Refused anywhere, even inside a string literal where JavaScript allows it: the code
     * travels as a C string (the audit record, the hash a token binds), so text after a NUL
     * would run without being recorded; execute refuses it for the same reason. */
    const char *nul = memchr(code, '\0', len);
    if (nul != NULL) {
        size_t at = (size_t)(nul - code);
        char *msg =
            sluice_arena_printf(arena, "the plan contains a NUL byte at byte offset %zu", at);
        sluice_status st = fail(&lx, at, msg != NULL ? msg : "the plan contains a NUL byte",
                                "remove the NUL byte; inside a string write it as \\0 or \\u0000");
        err->key = "nul_byte";
        return st;
    }
    for (;;) {
        sluice_status st = skip_space(&lx);
        if (st != SLUICE_OK)
            return st;
        if (lx.pos >= lx.len)
            break;
        st = lex_one(&lx);
        if (st != SLUICE_OK) {
            if (st == SLUICE_E_NOMEM)
                return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory lexing");
            return st;
        }
    }
    sluice_js_tok *t = push(&lx, SLUICE_JS_T_EOF, lx.pos);
    if (t == NULL)
        return lx.err->status == SLUICE_E_LIMIT
                   ? SLUICE_E_LIMIT
                   : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory lexing");
    out->toks = lx.toks;
    out->count = lx.count;
    return SLUICE_OK;
}
