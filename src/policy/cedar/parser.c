/*
 * parser.c — Cedar policy text to AST: hand-written recursive descent, one function per rule.
 *
 * Owns: the grammar (policies, scopes, conditions, expressions), string unescaping, folding of
 * negative integer literals, desugaring (`e has a.b` -> `e has a && e.a has b`,
 * `e is T in x` -> `e is T && e in x`), parse errors "<source>:<line>:<col>: <what> near
 * '<tok>'" and the nesting guard (SLUICE_LIMIT_NESTING_DEPTH).
 * Does not own: evaluation (eval.c) or extension argument checking (errors at evaluation time,
 * as in Cedar; valid literal arguments are folded to values here so evaluation is cheap).
 */
#include "core/hash.h"
#include "core/limits.h"
#include "core/utf8.h"
#include "core/vec.h"
#include "policy/cedar/ast.h"
#include "policy/cedar/lexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    sluice_arena *arena;
    const char *text;
    size_t len;
    const char *source;
    cedar_token tok;
    uint32_t prev_end; /* end of the last consumed token, for spans */
    unsigned depth;
    bool failed;
    sluice_error *err;
} parser;

/* ---- tokens and errors ---------------------------------------------------------------- */

static void advance(parser *p)
{
    p->prev_end = p->tok.off + p->tok.len;
    p->tok = sluice_cedar_lex(p->text, p->len, p->prev_end);
}

static bool tok_is(const parser *p, const char *word)
{
    size_t n = strlen(word);
    return p->tok.kind == TK_IDENT && p->tok.len == n && memcmp(p->text + p->tok.off, word, n) == 0;
}

/* Records the first error only: later ones are consequences. Always returns false. */
static bool fail_at(parser *p, cedar_token at, sluice_status status, const char *what)
{
    if (p->failed)
        return false;
    p->failed = true;
    size_t line, col;
    sluice_error_locate(p->text, p->len, at.off, &line, &col);
    if (at.kind == TK_EOF) {
        sluice_error_at(p->err, p->arena, status, p->source, line, col, "%s near end of input",
                        what);
        return false;
    }
    /* Quote at most 40 bytes of the token, and never past the end of its line. */
    size_t shown = 0;
    while (shown < at.len && shown < 40 && p->text[at.off + shown] != '\n')
        shown++;
    sluice_error_at(p->err, p->arena, status, p->source, line, col, "%s near '%.*s%s'", what,
                    (int)shown, p->text + at.off, shown < at.len ? "..." : "");
    return false;
}

static bool fail(parser *p, const char *what)
{
    if (p->tok.kind == TK_ILLEGAL)
        return fail_at(p, p->tok, SLUICE_E_INVALID, "unexpected character");
    if (p->tok.kind == TK_UNTERMINATED)
        return fail_at(p, p->tok, SLUICE_E_INVALID, "unterminated string literal");
    return fail_at(p, p->tok, SLUICE_E_INVALID, what);
}

static bool expect(parser *p, cedar_tok_kind kind, const char *what)
{
    if (p->tok.kind != kind)
        return fail(p, what);
    advance(p);
    return true;
}

static bool expect_word(parser *p, const char *word, const char *what)
{
    if (!tok_is(p, word))
        return fail(p, what);
    advance(p);
    return true;
}

static bool nomem(parser *p)
{
    if (!p->failed) {
        p->failed = true;
        sluice_error_set(p->err, p->arena, SLUICE_E_NOMEM, "out of memory parsing policies");
    }
    return false;
}

/* ---- strings -------------------------------------------------------------------------- */

/* \u{1-6 hex digits}, a Unicode scalar value; i points after the 'u'. */
static bool unescape_unicode(const char *s, size_t end, size_t *i, uint32_t *cp)
{
    if (*i >= end || s[*i] != '{')
        return false;
    size_t k = *i + 1, n = 0;
    uint32_t v = 0;
    while (k < end && sluice_hex_digit((unsigned char)s[k]) >= 0 && n < 7) {
        v = v * 16 + (uint32_t)sluice_hex_digit((unsigned char)s[k++]);
        n++;
    }
    if (n == 0 || n > 6 || k >= end || s[k] != '}' || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return false;
    *i = k + 1;
    *cp = v;
    return true;
}

/* Decodes the current string token (Cedar's escapes; `\*` too when star is given, marking the
 * '*' wildcards). The result is NUL-terminated. Only `\*` is a literal star in a pattern: a star
 * written as `\x2a` or `\u{2a}` is a wildcard, as in Cedar (checked against cedar-wasm). */
static bool decode_string(parser *p, char **out, uint32_t *out_len, uint8_t **star)
{
    const char *s = p->text + p->tok.off + 1;
    size_t n = p->tok.len - 2, o = 0;
    char *buf = sluice_arena_alloc(p->arena, n + 1);
    uint8_t *marks = star != NULL ? sluice_arena_calloc(p->arena, n + 1, 1) : NULL;
    if (buf == NULL || (star != NULL && marks == NULL))
        return nomem(p);
    for (size_t i = 0; i < n;) {
        char c = s[i++];
        if (c != '\\') {
            if (marks != NULL && c == '*')
                marks[o] = 1;
            buf[o++] = c;
            continue;
        }
        char e = i < n ? s[i++] : '\0';
        /* the one-character escapes: escaped[k] stands for meant[k] */
        static const char escaped[] = "nrt0\\'\"", meant[] = "\n\r\t\0\\'\"";
        const char *simple = memchr(escaped, e, sizeof escaped - 1);
        if (simple != NULL) {
            buf[o++] = meant[simple - escaped];
            continue;
        }
        uint32_t cp = 0;
        switch (e) {
        case '*':
            if (marks == NULL)
                return fail(p, "the escape `\\*` is only allowed in `like` patterns");
            buf[o++] = '*';
            break;
        case 'x':
            if (i + 1 < n && sluice_hex_digit((unsigned char)s[i]) >= 0 &&
                sluice_hex_digit((unsigned char)s[i + 1]) >= 0 &&
                sluice_hex_digit((unsigned char)s[i]) < 8) {
                buf[o] = (char)(sluice_hex_digit((unsigned char)s[i]) * 16 +
                                sluice_hex_digit((unsigned char)s[i + 1]));
                if (marks != NULL && buf[o] == '*')
                    marks[o] = 1;
                o++;
                i += 2;
                break;
            }
            return fail(p, "invalid escape `\\x` (expected two hex digits up to 7f)");
        case 'u':
            if (!unescape_unicode(s, n, &i, &cp))
                return fail(p, "invalid escape `\\u` (expected \\u{hex} naming a character)");
            if (marks != NULL && cp == '*')
                marks[o] = 1;
            o += sluice_utf8_encode(cp, buf + o); /* never longer than "\u{..}" */
            break;
        default:
            return fail(p, "invalid escape in string literal");
        }
    }
    buf[o] = '\0';
    *out = buf;
    *out_len = (uint32_t)o;
    if (star != NULL)
        *star = marks;
    return true;
}

/* ---- nodes ---------------------------------------------------------------------------- */

static const char *const reserved[] = { "true", "false", "if",  "then",    "else", "in",
                                        "is",   "like",  "has", "__cedar", NULL };

static bool is_reserved(const char *s, size_t len)
{
    for (size_t i = 0; reserved[i] != NULL; i++) {
        if (strlen(reserved[i]) == len && memcmp(reserved[i], s, len) == 0)
            return true;
    }
    return false;
}

/* Attribute names and record keys written as identifiers may not be reserved words. */
static bool check_ident(parser *p)
{
    if (is_reserved(p->text + p->tok.off, p->tok.len))
        return fail(p, "this identifier is reserved and cannot be used");
    return true;
}

static cedar_expr *node(parser *p, cedar_expr_kind kind, uint32_t start)
{
    cedar_expr *e = sluice_arena_calloc(p->arena, 1, sizeof(*e));
    if (e == NULL) {
        nomem(p);
        return NULL;
    }
    e->kind = (uint8_t)kind;
    e->depth = 1;
    e->off = start;
    e->len = p->prev_end > start ? p->prev_end - start : 0;
    return e;
}

static unsigned height(const cedar_expr *e)
{
    return e != NULL ? e->depth : 0;
}

/* Sets e's height from its children, refusing trees evaluation could not walk safely. */
static cedar_expr *link(parser *p, cedar_expr *e)
{
    if (e == NULL)
        return NULL;
    unsigned h = height(e->a);
    if (height(e->b) > h)
        h = height(e->b);
    if (height(e->c) > h)
        h = height(e->c);
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (height(e->args[i]) > h)
            h = height(e->args[i]);
    }
    if (h + 1 > SLUICE_LIMIT_CEDAR_TREE_DEPTH) {
        fail_at(p, p->tok, SLUICE_E_LIMIT, "expression nests too deeply (limit is 1000 levels)");
        return NULL;
    }
    e->depth = (uint16_t)(h + 1);
    return e;
}

static cedar_expr *binary(parser *p, cedar_expr_kind kind, cedar_expr *a, cedar_expr *b)
{
    cedar_expr *e = node(p, kind, a->off);
    if (e != NULL) {
        e->a = a;
        e->b = b;
    }
    return link(p, e);
}

static bool enter(parser *p)
{
    if (++p->depth > SLUICE_LIMIT_NESTING_DEPTH)
        return fail_at(p, p->tok, SLUICE_E_LIMIT, "expression nests too deeply (limit is 128)");
    return true;
}

static cedar_expr *parse_expr(parser *p);

/* path := IDENT ('::' IDENT)* — stops before '::' STR (an entity reference). Returns the
 * path text re-joined without blanks. */
static bool parse_path(parser *p, char **out, uint32_t *out_len, bool *then_string)
{
    sluice_buf b;
    sluice_buf_init(&b, p->arena, 4096);
    *then_string = false;
    if (p->tok.kind != TK_IDENT)
        return fail(p, "expected a name");
    if (!check_ident(p))
        return false;
    sluice_buf_append(&b, p->text + p->tok.off, p->tok.len);
    advance(p);
    while (p->tok.kind == TK_PATHSEP) {
        cedar_token sep = p->tok;
        advance(p);
        if (p->tok.kind == TK_STR) {
            *then_string = true;
            break;
        }
        if (p->tok.kind != TK_IDENT)
            return fail_at(p, sep, SLUICE_E_INVALID, "expected a name or a string after '::'");
        if (!check_ident(p))
            return false;
        sluice_buf_puts(&b, "::");
        sluice_buf_append(&b, p->text + p->tok.off, p->tok.len);
        advance(p);
    }
    if (sluice_buf_status(&b) != SLUICE_OK)
        return fail(p, "name too long");
    *out = b.data;
    *out_len = (uint32_t)b.len;
    return true;
}

/* entity := path '::' STR */
static bool parse_entity(parser *p, sluice_cedar_uid *uid)
{
    char *type, *id;
    uint32_t type_len, id_len;
    bool then_string;
    if (!parse_path(p, &type, &type_len, &then_string))
        return false;
    if (!then_string)
        return fail(p, "expected an entity reference like Type::\"id\"");
    if (!decode_string(p, &id, &id_len, NULL))
        return false;
    advance(p);
    sluice_cedar_uid_make(uid, type, type_len, id, id_len);
    return true;
}

typedef struct fn_info {
    const char *name;
    cedar_fn fn;
    uint8_t nargs; /* not counting the receiver; eval.c keeps the same table for extensions */
    bool method;
} fn_info;

static const fn_info functions[] = {
    { "ip", FN_IP, 1, false },
    { "decimal", FN_DECIMAL, 1, false },
    { "datetime", FN_DATETIME, 1, false },
    { "duration", FN_DURATION, 1, false },
    { "contains", FN_CONTAINS, 1, true },
    { "containsAll", FN_CONTAINS_ALL, 1, true },
    { "containsAny", FN_CONTAINS_ANY, 1, true },
    { "isEmpty", FN_IS_EMPTY, 0, true },
    { "getTag", FN_GET_TAG, 1, true },
    { "hasTag", FN_HAS_TAG, 1, true },
    { "isIpv4", FN_IS_IPV4, 0, true },
    { "isIpv6", FN_IS_IPV6, 0, true },
    { "isLoopback", FN_IS_LOOPBACK, 0, true },
    { "isMulticast", FN_IS_MULTICAST, 0, true },
    { "isInRange", FN_IS_IN_RANGE, 1, true },
    { "lessThan", FN_LESS_THAN, 1, true },
    { "lessThanOrEqual", FN_LESS_THAN_OR_EQUAL, 1, true },
    { "greaterThan", FN_GREATER_THAN, 1, true },
    { "greaterThanOrEqual", FN_GREATER_THAN_OR_EQUAL, 1, true },
    { "offset", FN_OFFSET, 1, true },
    { "durationSince", FN_DURATION_SINCE, 1, true },
    { "toDate", FN_TO_DATE, 0, true },
    { "toTime", FN_TO_TIME, 0, true },
    { "toMilliseconds", FN_TO_MILLISECONDS, 0, true },
    { "toSeconds", FN_TO_SECONDS, 0, true },
    { "toMinutes", FN_TO_MINUTES, 0, true },
    { "toHours", FN_TO_HOURS, 0, true },
    { "toDays", FN_TO_DAYS, 0, true },
};

static const fn_info *find_fn(const char *name, size_t len, bool method)
{
    for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
        if (functions[i].method == method && strlen(functions[i].name) == len &&
            memcmp(functions[i].name, name, len) == 0)
            return &functions[i];
    }
    return NULL;
}

/* args := '(' [expr (',' expr)*] ')' ; also '[' ... ']' for sets. */
static bool parse_list(parser *p, cedar_tok_kind close, cedar_expr ***out, uint32_t *count)
{
    cedar_expr *items[64], **heap = NULL;
    size_t n = 0, cap = 64;
    cedar_expr **dst = items;
    while (p->tok.kind != close) {
        if (n > 0 && !expect(p, TK_COMMA,
                             close == TK_RPAREN ? "expected ',' or ')'" : "expected ',' or ']'"))
            return false;
        if (n > 0 && p->tok.kind == close)
            break; /* a trailing comma */
        cedar_expr *e = parse_expr(p);
        if (e == NULL)
            return false;
        cedar_expr **room = sluice_vec_grow(p->arena, dst, n, &cap, sizeof(*room), 64);
        if (room == NULL)
            return nomem(p);
        if (room != dst)
            dst = heap = room;
        dst[n++] = e;
    }
    advance(p);
    *out = heap;
    if (heap == NULL && n > 0) {
        *out = sluice_arena_alloc(p->arena, n * sizeof(**out));
        if (*out == NULL)
            return nomem(p);
        memcpy(*out, items, n * sizeof(**out));
    }
    *count = (uint32_t)n;
    return true;
}

/* A call to an extension constructor with a valid literal argument becomes a literal. */
static void fold_constructor(parser *p, cedar_expr *e)
{
    if (e->nargs != 1 || e->args[0]->kind != EX_LIT || e->args[0]->lit.kind != SLUICE_CEDAR_STRING)
        return;
    const char *s = e->args[0]->lit.u.s;
    size_t n = e->args[0]->lit.len;
    int64_t l;
    sluice_cedar_value v = { 0 };
    if (e->op == FN_IP) {
        sluice_cedar_ip *ip = sluice_arena_alloc(p->arena, sizeof(*ip));
        if (ip == NULL || sluice_cedar_ip_parse(s, n, ip) != NULL)
            return;
        v.kind = SLUICE_CEDAR_IPADDR;
        v.u.ip = ip;
    } else {
        const char *why = e->op == FN_DECIMAL    ? sluice_cedar_decimal_parse(s, n, &l)
                          : e->op == FN_DATETIME ? sluice_cedar_datetime_parse(s, n, &l)
                                                 : sluice_cedar_duration_parse(s, n, &l);
        if (why != NULL)
            return;
        v.kind = e->op == FN_DECIMAL    ? SLUICE_CEDAR_DECIMAL
                 : e->op == FN_DATETIME ? SLUICE_CEDAR_DATETIME
                                        : SLUICE_CEDAR_DURATION;
        v.u.l = l;
    }
    e->kind = EX_LIT;
    e->lit = v;
}

static cedar_expr *parse_call(parser *p, cedar_token name, cedar_expr *receiver, uint32_t start)
{
    const fn_info *fn = find_fn(p->text + name.off, name.len, receiver != NULL);
    if (fn == NULL) {
        fail_at(p, name, SLUICE_E_INVALID,
                receiver != NULL ? "not a valid method" : "not a valid function");
        return NULL;
    }
    advance(p); /* '(' */
    cedar_expr **args;
    uint32_t nargs;
    if (!parse_list(p, TK_RPAREN, &args, &nargs))
        return NULL;
    if (nargs != fn->nargs && fn->fn <= FN_HAS_TAG && fn->method) {
        fail_at(p, name, SLUICE_E_INVALID,
                fn->nargs == 0 ? "this call takes no arguments"
                               : "this call takes exactly one argument");
        return NULL;
    }
    cedar_expr *e = node(p, receiver != NULL ? EX_METHOD : EX_CALL, start);
    /* A wrong arity for an extension function or method is an evaluation error in Cedar, not
     * a parse error (only the built-in set and tag methods are checked here); eval.c reports
     * it. */
    if (e == NULL)
        return NULL;
    e->op = (uint8_t)fn->fn;
    e->a = receiver;
    e->args = args;
    e->nargs = nargs;
    if (receiver == NULL)
        fold_constructor(p, e);
    return link(p, e);
}

static int field_key_cmp(const void *x, const void *y)
{
    const sluice_cedar_field *a = x, *b = y;
    return sluice_cedar_key_cmp(a->key, a->key_len, b->key, b->key_len);
}

/* record := '{' [key ':' expr (',' key ':' expr)*] '}' with key := IDENT | STR */
static cedar_expr *parse_record(parser *p, uint32_t start)
{
    sluice_cedar_field fields[256];
    cedar_expr *values[256];
    size_t n = 0;
    advance(p);
    while (p->tok.kind != TK_RBRACE) {
        if (n > 0 && !expect(p, TK_COMMA, "expected ',' or '}'"))
            return NULL;
        if (n > 0 && p->tok.kind == TK_RBRACE)
            break; /* a trailing comma */
        if (n == 256) {
            fail_at(p, p->tok, SLUICE_E_LIMIT, "too many fields in a record (limit is 256)");
            return NULL;
        }
        char *key;
        uint32_t key_len;
        if (p->tok.kind == TK_STR) {
            if (!decode_string(p, &key, &key_len, NULL))
                return NULL;
        } else if (p->tok.kind == TK_IDENT) {
            if (!check_ident(p))
                return NULL;
            key = sluice_arena_strndup(p->arena, p->text + p->tok.off, p->tok.len);
            key_len = p->tok.len;
            if (key == NULL)
                return nomem(p), NULL;
        } else {
            fail(p, "expected a field name");
            return NULL;
        }
        cedar_token key_tok = p->tok;
        advance(p);
        if (!expect(p, TK_COLON, "expected ':' after a field name"))
            return NULL;
        for (size_t k = 0; k < n; k++) {
            if (sluice_cedar_key_cmp(fields[k].key, fields[k].key_len, key, key_len) == 0) {
                fail_at(p, key_tok, SLUICE_E_INVALID, "duplicate key in record literal");
                return NULL;
            }
        }
        values[n] = parse_expr(p);
        if (values[n] == NULL)
            return NULL;
        fields[n].key = key;
        fields[n].key_len = key_len;
        fields[n].value = sluice_cedar_value_long((int64_t)n); /* original position */
        n++;
    }
    advance(p);
    qsort(fields, n, sizeof(fields[0]), field_key_cmp);
    cedar_expr *e = node(p, EX_RECORD, start);
    sluice_cedar_field *keys = sluice_arena_calloc(p->arena, n ? n : 1, sizeof(*keys));
    cedar_expr **args = sluice_arena_calloc(p->arena, n ? n : 1, sizeof(*args));
    if (e == NULL || keys == NULL || args == NULL)
        return nomem(p), NULL;
    for (size_t k = 0; k < n; k++) {
        keys[k] = fields[k];
        args[k] = values[fields[k].value.u.l];
    }
    e->keys = keys;
    e->args = args;
    e->nargs = (uint32_t)n;
    return link(p, e);
}

/* An identifier in expression position: a variable, true/false, an entity, or a call. */
static cedar_expr *parse_name(parser *p, uint32_t start)
{
    cedar_token name = p->tok;
    static const char *const vars[] = { "principal", "action", "resource", "context" };
    cedar_token after = sluice_cedar_lex(p->text, p->len, name.off + name.len);
    if (after.kind == TK_PATHSEP) {
        cedar_expr *e = node(p, EX_LIT, start);
        sluice_cedar_uid *uid = sluice_arena_alloc(p->arena, sizeof(*uid));
        if (e == NULL || uid == NULL)
            return nomem(p), NULL;
        if (!parse_entity(p, uid))
            return NULL;
        e->len = p->prev_end - start;
        e->lit.kind = SLUICE_CEDAR_ENTITY;
        e->lit.u.uid = uid;
        return e;
    }
    if (after.kind == TK_LPAREN) {
        advance(p);
        return parse_call(p, name, NULL, start);
    }
    advance(p);
    cedar_expr *e = node(p, EX_LIT, start);
    if (e == NULL)
        return NULL;
    const char *s = p->text + name.off;
    if (name.len == 4 && memcmp(s, "true", 4) == 0) {
        e->lit = sluice_cedar_value_bool(true);
        return e;
    }
    if (name.len == 5 && memcmp(s, "false", 5) == 0) {
        e->lit = sluice_cedar_value_bool(false);
        return e;
    }
    for (int v = 0; v < 4; v++) {
        if (strlen(vars[v]) == name.len && memcmp(vars[v], s, name.len) == 0) {
            e->kind = EX_VAR;
            e->op = (uint8_t)v;
            return e;
        }
    }
    fail_at(p, name, SLUICE_E_INVALID,
            is_reserved(s, name.len) ? "unexpected keyword"
                                     : "invalid variable (expected principal, action, "
                                       "resource or context)");
    return NULL;
}

/* The value of an INT token; false (with an error) past 2^63 (allowed only when negated). */
static bool int_value(parser *p, uint64_t *out)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < p->tok.len; i++) {
        unsigned d = (unsigned)(p->text[p->tok.off + i] - '0');
        if (v > (UINT64_MAX - d) / 10 || v * 10 + d > (uint64_t)INT64_MAX + 1)
            return fail_at(p, p->tok, SLUICE_E_INVALID, "integer literal is too large");
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* primary := INT | STR | name | '(' expr ')' | '[' list ']' | '{' record '}' */
static cedar_expr *parse_primary(parser *p)
{
    uint32_t start = p->tok.off;
    cedar_expr *e;
    switch (p->tok.kind) {
    case TK_INT: {
        uint64_t v = 0;
        if (!int_value(p, &v))
            return NULL;
        if (v > (uint64_t)INT64_MAX) {
            fail_at(p, p->tok, SLUICE_E_INVALID, "integer literal is too large");
            return NULL;
        }
        advance(p);
        e = node(p, EX_LIT, start);
        if (e != NULL)
            e->lit = sluice_cedar_value_long((int64_t)v);
        return e;
    }
    case TK_STR: {
        char *s;
        uint32_t n;
        if (!decode_string(p, &s, &n, NULL))
            return NULL;
        advance(p);
        e = node(p, EX_LIT, start);
        if (e != NULL)
            e->lit = sluice_cedar_value_string(s, n);
        return e;
    }
    case TK_IDENT:
        return parse_name(p, start);
    case TK_LPAREN:
        advance(p);
        e = parse_expr(p);
        if (e == NULL || !expect(p, TK_RPAREN, "expected ')'"))
            return NULL;
        return e;
    case TK_LBRACKET: {
        advance(p);
        cedar_expr **items;
        uint32_t n;
        if (!parse_list(p, TK_RBRACKET, &items, &n))
            return NULL;
        e = node(p, EX_SET, start);
        if (e != NULL) {
            e->args = items;
            e->nargs = n;
        }
        return link(p, e);
    }
    case TK_LBRACE:
        return parse_record(p, start);
    default:
        fail(p, "expected an expression");
        return NULL;
    }
}

/* member := primary ('.' IDENT ['(' list ')'] | '[' STR ']')* */
static cedar_expr *parse_member(parser *p, cedar_expr *e)
{
    while (e != NULL && (p->tok.kind == TK_DOT || p->tok.kind == TK_LBRACKET)) {
        bool dot = p->tok.kind == TK_DOT;
        advance(p);
        cedar_token name = p->tok;
        if (dot) {
            if (p->tok.kind == TK_IDENT && !check_ident(p))
                return NULL;
            if (!expect(p, TK_IDENT, "expected an attribute or method name after '.'"))
                return NULL;
            if (p->tok.kind == TK_LPAREN) {
                e = parse_call(p, name, e, e->off);
                continue;
            }
        } else if (p->tok.kind != TK_STR) {
            fail(p, "expected a string attribute name inside '[ ]'");
            return NULL;
        }
        cedar_expr *attr = node(p, EX_ATTR, e->off);
        if (attr == NULL)
            return NULL;
        attr->a = e;
        if (dot) {
            attr->name = sluice_arena_strndup(p->arena, p->text + name.off, name.len);
            attr->name_len = name.len;
            if (attr->name == NULL)
                return nomem(p), NULL;
        } else {
            char *s;
            if (!decode_string(p, &s, &attr->name_len, NULL))
                return NULL;
            attr->name = s;
            advance(p);
            if (!expect(p, TK_RBRACKET, "expected ']'"))
                return NULL;
        }
        attr->len = p->prev_end - attr->off;
        e = link(p, attr);
    }
    return e;
}

/* unary := ('!'{0,4} | '-'{0,4}) member ; '-' INT folds to a literal (so i64::MIN parses). */
static cedar_expr *parse_unary(parser *p)
{
    uint32_t start = p->tok.off;
    cedar_tok_kind op = p->tok.kind;
    unsigned count = 0;
    while ((op == TK_NOT || op == TK_MINUS) && p->tok.kind == op) {
        if (++count > 4) {
            fail(p, "too many occurrences of a unary operator (limit is 4)");
            return NULL;
        }
        advance(p);
    }
    if (count > 0 && (p->tok.kind == TK_NOT || p->tok.kind == TK_MINUS)) {
        fail(p, "mixing '!' and '-' needs parentheses");
        return NULL;
    }
    cedar_expr *e;
    cedar_token after = sluice_cedar_lex(p->text, p->len, p->tok.off + p->tok.len);
    if (op == TK_MINUS && count > 0 && p->tok.kind == TK_INT && after.kind != TK_DOT &&
        after.kind != TK_LBRACKET) {
        uint64_t v = 0;
        if (!int_value(p, &v))
            return NULL;
        advance(p);
        e = node(p, EX_LIT, start);
        if (e == NULL)
            return NULL;
        e->lit = sluice_cedar_value_long((int64_t)(0 - v));
        count--;
    } else {
        e = parse_member(p, parse_primary(p));
    }
    while (e != NULL && count-- > 0) {
        cedar_expr *u = node(p, op == TK_NOT ? EX_NOT : EX_NEG, start);
        if (u == NULL)
            return NULL;
        u->a = e;
        e = link(p, u);
    }
    return e;
}

/* A left-associative binary level: operand (op operand)*, where op is one of two tokens (the same
 * one twice when the level has one) building the matching kind. */
typedef struct left_level {
    cedar_tok_kind op[2];
    cedar_expr_kind kind[2];
    cedar_expr *(*operand)(parser *p);
} left_level;

static cedar_expr *parse_left(parser *p, const left_level *l)
{
    cedar_expr *e = l->operand(p);
    while (e != NULL && (p->tok.kind == l->op[0] || p->tok.kind == l->op[1])) {
        cedar_expr_kind k = p->tok.kind == l->op[0] ? l->kind[0] : l->kind[1];
        advance(p);
        cedar_expr *r = l->operand(p);
        e = r != NULL ? binary(p, k, e, r) : NULL;
    }
    return e;
}

/* mult := unary ('*' unary)* */
static cedar_expr *parse_mult(parser *p)
{
    static const left_level level = { { TK_STAR, TK_STAR }, { EX_MUL, EX_MUL }, parse_unary };
    return parse_left(p, &level);
}

/* add := mult (('+' | '-') mult)* */
static cedar_expr *parse_add(parser *p)
{
    static const left_level level = { { TK_PLUS, TK_MINUS }, { EX_ADD, EX_SUB }, parse_mult };
    return parse_left(p, &level);
}

static bool at_relop(const parser *p, cedar_expr_kind *kind)
{
    switch (p->tok.kind) {
    case TK_EQ:
        *kind = EX_EQ;
        return true;
    case TK_NE:
        *kind = EX_NE;
        return true;
    case TK_LT:
        *kind = EX_LT;
        return true;
    case TK_LE:
        *kind = EX_LE;
        return true;
    case TK_GT:
        *kind = EX_GT;
        return true;
    case TK_GE:
        *kind = EX_GE;
        return true;
    default:
        break;
    }
    if (tok_is(p, "in")) {
        *kind = EX_IN;
        return true;
    }
    if (tok_is(p, "has") || tok_is(p, "like") || tok_is(p, "is")) {
        *kind = EX_HAS; /* any of the three: the caller re-checks which */
        return true;
    }
    return false;
}

/* has_key := IDENT ('.' IDENT)* | STR ; builds `e has a && e.a has b ...`. */
static cedar_expr *parse_has(parser *p, cedar_expr *e)
{
    cedar_expr *chain = NULL, *obj = e;
    do {
        if (chain != NULL)
            advance(p); /* '.' */
        cedar_token key = p->tok;
        char *name;
        uint32_t name_len;
        if (key.kind == TK_STR && chain == NULL) {
            if (!decode_string(p, &name, &name_len, NULL))
                return NULL;
        } else if (key.kind == TK_IDENT) {
            if (!check_ident(p))
                return NULL;
            name = sluice_arena_strndup(p->arena, p->text + key.off, key.len);
            name_len = key.len;
            if (name == NULL)
                return nomem(p), NULL;
        } else {
            fail(p, "expected an attribute name after 'has'");
            return NULL;
        }
        advance(p);
        cedar_expr *has = node(p, EX_HAS, e->off);
        cedar_expr *next = node(p, EX_ATTR, e->off);
        if (has == NULL || next == NULL)
            return NULL;
        has->a = obj;
        has->name = next->name = name;
        has->name_len = next->name_len = name_len;
        next->a = obj;
        if (link(p, has) == NULL || link(p, next) == NULL)
            return NULL;
        chain = chain == NULL ? has : binary(p, EX_AND, chain, has);
        obj = next;
        if (key.kind == TK_STR)
            break;
    } while (chain != NULL && p->tok.kind == TK_DOT);
    return chain;
}

static cedar_expr *parse_like(parser *p, cedar_expr *e)
{
    if (p->tok.kind != TK_STR) {
        fail(p, "expected a pattern string after 'like'");
        return NULL;
    }
    char *pat;
    uint32_t n;
    uint8_t *star;
    if (!decode_string(p, &pat, &n, &star))
        return NULL;
    advance(p);
    cedar_expr *like = node(p, EX_LIKE, e->off);
    if (like != NULL) {
        like->a = e;
        like->pat = (const uint8_t *)pat;
        like->pat_len = n;
        like->star = star;
    }
    return link(p, like);
}

/* `e is T [in x]` */
static cedar_expr *parse_is(parser *p, cedar_expr *e)
{
    char *type;
    uint32_t type_len;
    bool then_string;
    if (p->tok.kind != TK_IDENT) {
        fail(p, "expected an entity type name after 'is'");
        return NULL;
    }
    if (!parse_path(p, &type, &type_len, &then_string))
        return NULL;
    if (then_string) {
        fail(p, "expected an entity type name after 'is', not an entity");
        return NULL;
    }
    cedar_expr *is = node(p, EX_IS, e->off);
    if (is == NULL)
        return NULL;
    is->a = e;
    is->name = type;
    is->name_len = type_len;
    if (link(p, is) == NULL)
        return NULL;
    if (!tok_is(p, "in"))
        return is;
    advance(p);
    cedar_expr *in = parse_add(p);
    return in != NULL ? binary(p, EX_AND, is, binary(p, EX_IN, e, in)) : NULL;
}

/* relation := add [relop add | 'has' key | 'like' STR | 'is' path ['in' add]] */
static cedar_expr *parse_relation(parser *p)
{
    cedar_expr *e = parse_add(p);
    cedar_expr_kind kind;
    if (e == NULL || !at_relop(p, &kind))
        return e;
    if (tok_is(p, "has")) {
        advance(p);
        e = parse_has(p, e);
    } else if (tok_is(p, "like")) {
        advance(p);
        e = parse_like(p, e);
    } else if (tok_is(p, "is")) {
        advance(p);
        e = parse_is(p, e);
    } else {
        advance(p);
        cedar_expr *r = parse_add(p);
        e = r != NULL ? binary(p, kind, e, r) : NULL;
    }
    if (e != NULL && at_relop(p, &kind)) {
        fail(p, "multiple relational operators (==, <, in, has, ...) need parentheses");
        return NULL;
    }
    return e;
}

/* and := relation ('&&' relation)* */
static cedar_expr *parse_and(parser *p)
{
    static const left_level level = { { TK_AND, TK_AND }, { EX_AND, EX_AND }, parse_relation };
    return parse_left(p, &level);
}

/* or := and ('||' and)* */
static cedar_expr *parse_or(parser *p)
{
    static const left_level level = { { TK_OR, TK_OR }, { EX_OR, EX_OR }, parse_and };
    return parse_left(p, &level);
}

/* expr := 'if' expr 'then' expr 'else' expr | or */
static cedar_expr *parse_expr(parser *p)
{
    if (!enter(p))
        return NULL;
    cedar_expr *e;
    if (tok_is(p, "if")) {
        uint32_t start = p->tok.off;
        advance(p);
        cedar_expr *c = parse_expr(p), *t = NULL, *f = NULL;
        if (c != NULL && expect_word(p, "then", "expected 'then'"))
            t = parse_expr(p);
        if (t != NULL && expect_word(p, "else", "expected 'else'"))
            f = parse_expr(p);
        e = f != NULL ? node(p, EX_IF, start) : NULL;
        if (e != NULL) {
            e->a = c;
            e->b = t;
            e->c = f;
        }
        e = link(p, e);
    } else {
        e = parse_or(p);
    }
    p->depth--;
    return e;
}

/* ---- policies ------------------------------------------------------------------------- */

/* Cedar requires the entities in an action scope to be actions (Action, Ns::Action). */
static bool check_action_uid(parser *p, const sluice_cedar_uid *uid, uint32_t at)
{
    bool ok = (uid->type_len == 6 && memcmp(uid->type, "Action", 6) == 0) ||
              (uid->type_len > 8 && memcmp(uid->type + uid->type_len - 8, "::Action", 8) == 0);
    if (ok)
        return true;
    cedar_token t = { TK_IDENT, at, uid->type_len };
    return fail_at(p, t, SLUICE_E_INVALID, "expected an entity of type Action in the action scope");
}

#define TEMPLATES_UNSUPPORTED "templates (?principal, ?resource) are not supported"

/* The one entity after '==' or 'in' in a scope (an action scope's must be an Action). */
static bool parse_scope_entity(parser *p, cedar_scope *scope, bool is_action)
{
    if (p->tok.kind == TK_QUESTION)
        return fail(p, TEMPLATES_UNSUPPORTED);
    scope->count = 1;
    scope->uids = sluice_arena_alloc(p->arena, sizeof(*scope->uids));
    uint32_t at = p->tok.off;
    if (scope->uids == NULL)
        return nomem(p);
    return parse_entity(p, scope->uids) && (!is_action || check_action_uid(p, scope->uids, at));
}

/* principal|resource [== entity | in entity | is path [in entity]] ; action [== e | in e |
 * in [e, ...]] */
static bool parse_scope(parser *p, const char *var, cedar_scope *scope)
{
    char what[64];
    snprintf(what, sizeof(what), "expected '%s'", var);
    if (!expect_word(p, var, what))
        return false;
    bool is_action = strcmp(var, "action") == 0;
    scope->kind = SCOPE_ANY;
    if (p->tok.kind == TK_QUESTION)
        return fail(p, TEMPLATES_UNSUPPORTED);
    if (p->tok.kind == TK_EQ) {
        advance(p);
        scope->kind = SCOPE_EQ;
        return parse_scope_entity(p, scope, is_action);
    }
    if (tok_is(p, "is") && !is_action) {
        advance(p);
        char *type;
        bool then_string;
        if (!parse_path(p, &type, &scope->type_len, &then_string))
            return false;
        if (then_string)
            return fail(p, "expected an entity type name after 'is'");
        scope->type = type;
        scope->kind = SCOPE_IS;
        if (!tok_is(p, "in"))
            return true;
        scope->kind = SCOPE_IS_IN;
    } else if (!tok_is(p, "in")) {
        return true;
    } else {
        scope->kind = SCOPE_IN;
    }
    advance(p); /* 'in' */
    if (p->tok.kind == TK_LBRACKET && is_action) {
        advance(p);
        sluice_cedar_uid list[256];
        size_t n = 0;
        while (p->tok.kind != TK_RBRACKET) {
            if (n > 0 && !expect(p, TK_COMMA, "expected ',' or ']'"))
                return false;
            if (n > 0 && p->tok.kind == TK_RBRACKET)
                break; /* a trailing comma */
            if (n == 256)
                return fail_at(p, p->tok, SLUICE_E_LIMIT, "too many actions (limit is 256)");
            uint32_t at = p->tok.off;
            if (!parse_entity(p, &list[n]) || !check_action_uid(p, &list[n], at))
                return false;
            n++;
        }
        advance(p);
        scope->kind = SCOPE_IN_LIST;
        scope->count = (uint32_t)n;
        scope->uids = sluice_arena_calloc(p->arena, n ? n : 1, sizeof(*scope->uids));
        if (scope->uids == NULL)
            return nomem(p);
        memcpy(scope->uids, list, n * sizeof(*list));
        return true;
    }
    return parse_scope_entity(p, scope, is_action);
}

/* annotation := '@' IDENT ['(' STR ')'] */
static bool parse_annotations(parser *p, sluice_cedar_policy *pol)
{
    cedar_annotation list[64];
    size_t n = 0;
    while (p->tok.kind == TK_AT) {
        advance(p);
        cedar_token name = p->tok;
        if (!expect(p, TK_IDENT, "expected an annotation name after '@'"))
            return false;
        char *value = "";
        if (p->tok.kind == TK_LPAREN) {
            advance(p);
            uint32_t vlen;
            if (p->tok.kind != TK_STR)
                return fail(p, "expected a string annotation value");
            if (!decode_string(p, &value, &vlen, NULL))
                return false;
            advance(p);
            if (!expect(p, TK_RPAREN, "expected ')' after the annotation value"))
                return false;
        }
        char *key = sluice_arena_strndup(p->arena, p->text + name.off, name.len);
        if (key == NULL)
            return nomem(p);
        for (size_t k = 0; k < n; k++) {
            if (strcmp(list[k].name, key) == 0)
                return fail_at(p, name, SLUICE_E_INVALID, "duplicate annotation");
        }
        if (n == 64)
            return fail_at(p, name, SLUICE_E_LIMIT, "too many annotations (limit is 64)");
        list[n].name = key;
        list[n++].value = value;
    }
    pol->annotations = sluice_arena_calloc(p->arena, n ? n : 1, sizeof(*list));
    if (pol->annotations == NULL)
        return nomem(p);
    memcpy(pol->annotations, list, n * sizeof(*list));
    pol->nannotations = (uint32_t)n;
    return true;
}

static bool parse_conditions(parser *p, sluice_cedar_policy *pol)
{
    cedar_cond list[64];
    size_t n = 0;
    while (tok_is(p, "when") || tok_is(p, "unless")) {
        if (n == 64)
            return fail_at(p, p->tok, SLUICE_E_LIMIT, "too many conditions (limit is 64)");
        list[n].unless = tok_is(p, "unless");
        advance(p);
        if (!expect(p, TK_LBRACE, "expected '{' to open the condition"))
            return false;
        if (p->tok.kind == TK_RBRACE)
            return fail(p, "a condition needs an expression");
        list[n].expr = parse_expr(p);
        if (list[n].expr == NULL || !expect(p, TK_RBRACE, "expected '}' to close the condition"))
            return false;
        n++;
    }
    pol->conds = sluice_arena_calloc(p->arena, n ? n : 1, sizeof(*list));
    if (pol->conds == NULL)
        return nomem(p);
    memcpy(pol->conds, list, n * sizeof(*list));
    pol->nconds = (uint32_t)n;
    return true;
}

/* policy := annotation* ('permit' | 'forbid') '(' principal ',' action ',' resource ')'
 *           (('when' | 'unless') '{' expr '}')* ';' */
static sluice_cedar_policy *parse_policy(parser *p)
{
    sluice_cedar_policy *pol = sluice_arena_calloc(p->arena, 1, sizeof(*pol));
    if (pol == NULL)
        return nomem(p), NULL;
    uint32_t start = p->tok.off;
    if (!parse_annotations(p, pol))
        return NULL;
    if (tok_is(p, "forbid"))
        pol->forbid = true;
    else if (!tok_is(p, "permit"))
        return fail(p, "expected 'permit' or 'forbid'"), NULL;
    advance(p);
    if (!expect(p, TK_LPAREN, "expected '(' after the effect") ||
        !parse_scope(p, "principal", &pol->principal) ||
        !expect(p, TK_COMMA, "expected ',' after the principal") ||
        !parse_scope(p, "action", &pol->action) ||
        !expect(p, TK_COMMA, "expected ',' after the action") ||
        !parse_scope(p, "resource", &pol->resource) ||
        (p->tok.kind == TK_COMMA && (advance(p), false)) || /* a trailing comma is allowed */
        !expect(p, TK_RPAREN, "expected ')' to close the scope") || !parse_conditions(p, pol) ||
        !expect(p, TK_SEMI, "expected ';' to end the policy"))
        return NULL;
    pol->text = p->text + start;
    pol->text_len = p->prev_end - start;
    size_t col;
    sluice_error_locate(p->text, p->len, start, &pol->first_line, &col);
    sluice_error_locate(p->text, p->len, p->prev_end - 1, &pol->last_line, &col);
    return pol;
}

static void parser_init(parser *p,
                        sluice_arena *arena,
                        const char *text,
                        size_t len,
                        const char *source,
                        sluice_error *err)
{
    memset(p, 0, sizeof(*p));
    p->arena = arena;
    p->text = text;
    p->len = len;
    p->source = source != NULL ? source : "<policies>";
    p->err = err;
    p->tok = sluice_cedar_lex(text, len, 0);
}

static sluice_status parser_status(const parser *p)
{
    return p->err != NULL && p->err->status != SLUICE_OK ? p->err->status : SLUICE_E_INVALID;
}

sluice_cedar_policyset *sluice_cedar_policyset_new(sluice_arena *arena)
{
    return sluice_arena_calloc(arena, 1, sizeof(sluice_cedar_policyset));
}

static bool set_push(sluice_arena *arena, sluice_cedar_policyset *set, sluice_cedar_policy *pol)
{
    sluice_cedar_policy **items =
        sluice_vec_grow(arena, set->items, set->count, &set->cap, sizeof(*items), 8);
    if (items == NULL)
        return false;
    set->items = items;
    set->items[set->count++] = pol;
    return true;
}

sluice_status sluice_cedar_policyset_parse(sluice_arena *arena,
                                           const char *text,
                                           size_t len,
                                           const char *source,
                                           sluice_cedar_policyset **out,
                                           sluice_error *err)
{
    sluice_error scratch;
    if (err == NULL)
        err = &scratch;
    sluice_error_clear(err);
    parser p;
    parser_init(&p, arena, text, len, source, err);
    sluice_cedar_policyset *set = sluice_cedar_policyset_new(arena);
    if (set == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing policies");
    while (p.tok.kind != TK_EOF) {
        sluice_cedar_policy *pol = parse_policy(&p);
        if (pol == NULL)
            return parser_status(&p);
        pol->id = sluice_arena_printf(arena, "policy%zu", set->count);
        if (pol->id == NULL || !set_push(arena, set, pol))
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing policies");
    }
    *out = set;
    return SLUICE_OK;
}

sluice_status sluice_cedar_policyset_add(sluice_arena *arena,
                                         sluice_cedar_policyset *set,
                                         const char *id,
                                         const char *text,
                                         size_t len,
                                         const char *source,
                                         sluice_error *err)
{
    sluice_error scratch;
    if (err == NULL)
        err = &scratch;
    sluice_error_clear(err);
    for (size_t i = 0; i < set->count; i++) {
        if (strcmp(set->items[i]->id, id) == 0)
            return sluice_error_set(err, arena, SLUICE_E_INVALID, "duplicate policy id '%s'", id);
    }
    parser p;
    parser_init(&p, arena, text, len, source, err);
    sluice_cedar_policy *pol = parse_policy(&p);
    if (pol == NULL)
        return parser_status(&p);
    if (p.tok.kind != TK_EOF) {
        fail(&p, "expected exactly one policy");
        return parser_status(&p);
    }
    pol->id = sluice_arena_strdup(arena, id);
    if (pol->id == NULL || !set_push(arena, set, pol))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory parsing policies");
    return SLUICE_OK;
}

sluice_status sluice_cedar_uid_parse(
    sluice_arena *arena, const char *text, size_t len, sluice_cedar_uid *uid, sluice_error *err)
{
    sluice_error scratch;
    if (err == NULL)
        err = &scratch;
    sluice_error_clear(err);
    parser p;
    parser_init(&p, arena, text, len, "<entity>", err);
    if (!parse_entity(&p, uid))
        return parser_status(&p);
    if (p.tok.kind != TK_EOF) {
        fail(&p, "unexpected text after the entity reference");
        return parser_status(&p);
    }
    return SLUICE_OK;
}

size_t sluice_cedar_policyset_count(const sluice_cedar_policyset *set)
{
    return set->count;
}

const sluice_cedar_policy *sluice_cedar_policyset_get(const sluice_cedar_policyset *set,
                                                      size_t index)
{
    return index < set->count ? set->items[index] : NULL;
}

const char *sluice_cedar_policy_id(const sluice_cedar_policy *policy)
{
    return policy->id;
}

bool sluice_cedar_policy_is_forbid(const sluice_cedar_policy *policy)
{
    return policy->forbid;
}

const char *sluice_cedar_policy_annotation(const sluice_cedar_policy *policy, const char *name)
{
    for (uint32_t i = 0; i < policy->nannotations; i++) {
        if (strcmp(policy->annotations[i].name, name) == 0)
            return policy->annotations[i].value;
    }
    return NULL;
}

size_t sluice_cedar_policy_first_line(const sluice_cedar_policy *policy)
{
    return policy->first_line;
}

size_t sluice_cedar_policy_last_line(const sluice_cedar_policy *policy)
{
    return policy->last_line;
}

const char *sluice_cedar_policy_text(const sluice_cedar_policy *policy, size_t *len)
{
    *len = policy->text_len;
    return policy->text;
}
