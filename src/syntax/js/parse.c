/*
 * parse.c — the plan language's recursive-descent parser (see parse.h).
 *
 * Owns: statements, expressions (precedence climbing), patterns, arrow-function detection by
 * scanning the token array, automatic semicolon insertion (the newline rule), the refusals and
 * the syntax limits.
 * Does not own: tokens (lex.c) or meaning (interp.c).
 */
#include "syntax/js/parse.h"

#include "core/limits.h"
#include "core/vec.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
    sluice_arena *arena;
    const char *src;
    size_t src_len;
    sluice_js_tok *t;
    size_t n, i;
    sluice_error *err;
    sluice_status st; /* first failure; OK while parsing goes well */
    size_t nodes;
    size_t depth, max_depth;
    int in_function;            /* nesting of function bodies, for `return` */
    int in_loop;                /* loops (and switches) around, for break */
    int in_iteration;           /* loops around, for continue */
    struct label_scope *labels; /* the labels around, innermost first, within this function */
    /* array literals with holes: refused unless they turn out to be patterns ([, x] = a) */
    struct hole_note {
        const sluice_js_node *arr;
        const sluice_js_tok *hole;
    } * holes;
    size_t nholes, holes_cap;
} parser;

/* One enclosing label, for break/continue label; loop: it names a loop (continue may use it). */
typedef struct label_scope {
    const sluice_js_str *name;
    bool loop;
    struct label_scope *up;
} label_scope;

#define CHECK(x)         \
    do {                 \
        if ((x) == NULL) \
            return NULL; \
    } while (0)

static const sluice_js_tok *peek(parser *p)
{
    return &p->t[p->i];
}

static const sluice_js_tok *peek_at(parser *p, size_t k)
{
    return &p->t[p->i + k < p->n ? p->i + k : p->n - 1];
}

static int at(parser *p, const char *s)
{
    return sluice_js_tok_is(peek(p), s);
}

static const sluice_js_tok *next(parser *p)
{
    const sluice_js_tok *t = &p->t[p->i];
    if (p->i + 1 < p->n)
        p->i++;
    return t;
}

static void *
failv(parser *p, const sluice_js_tok *t, const char *rule, const char *hint, const char *msg)
{
    if (p->st != SLUICE_OK)
        return NULL;
    p->st = SLUICE_E_INVALID;
    sluice_error_at(p->err, p->arena, SLUICE_E_INVALID, "<code>", t->line, t->column, "%s", msg);
    p->err->key = rule;
    p->err->offset = t->offset;
    p->err->length = t->len;
    if (hint != NULL)
        sluice_error_hint(p->err, p->arena, "%s", hint);
    return NULL;
}

/* "expected X but found Y at line L, column C" */
static void *expected(parser *p, const char *what)
{
    const sluice_js_tok *t = peek(p);
    char found[48];
    if (t->kind == SLUICE_JS_T_EOF)
        snprintf(found, sizeof found, "the end of the plan");
    else
        snprintf(found, sizeof found, "'%.*s'", (int)(t->len > 30 ? 30 : t->len), t->text);
    char *msg = sluice_arena_printf(p->arena, "expected %s but found %s at line %u, column %u",
                                    what, found, t->line, t->column);
    return failv(p, t, "syntax_error", NULL, msg != NULL ? msg : "syntax error");
}

static void *refuse(parser *p, const sluice_js_tok *t, const char *construct, const char *hint)
{
    char *msg = sluice_arena_printf(p->arena, "%s is not allowed in a plan (line %u, column %u)",
                                    construct, t->line, t->column);
    return failv(p, t, "js_refused", hint, msg != NULL ? msg : construct);
}

static void *limit(parser *p, const char *what, size_t n)
{
    failv(p, peek(p), "js_limit", "split the plan or simplify it",
          sluice_js_limit_text(p->arena, what, n));
    p->st = SLUICE_E_LIMIT;
    p->err->status = SLUICE_E_LIMIT;
    return NULL;
}

static sluice_js_node *node(parser *p, sluice_js_kind kind, const sluice_js_tok *t)
{
    if (++p->nodes > SLUICE_LIMIT_JS_NODES)
        return limit(p, "the plan has too many syntax nodes", SLUICE_LIMIT_JS_NODES);
    sluice_js_node *nd = sluice_arena_calloc(p->arena, 1, sizeof *nd);
    if (nd == NULL) {
        if (p->st == SLUICE_OK) {
            p->st = SLUICE_E_NOMEM;
            sluice_error_set(p->err, p->arena, SLUICE_E_NOMEM, "out of memory parsing");
        }
        return NULL;
    }
    nd->kind = (uint16_t)kind;
    nd->line = t->line;
    nd->column = t->column;
    return nd;
}

/* A growable node list built on the arena. */
typedef struct nlist {
    sluice_js_node **items;
    size_t n, cap;
} nlist;

static int nl_push(parser *p, nlist *l, sluice_js_node *nd)
{
    sluice_js_node **ni = sluice_vec_grow(p->arena, l->items, l->n, &l->cap, sizeof *ni, 4);
    if (ni == NULL) {
        if (p->st == SLUICE_OK) {
            p->st = SLUICE_E_NOMEM;
            sluice_error_set(p->err, p->arena, SLUICE_E_NOMEM, "out of memory parsing");
        }
        return -1;
    }
    l->items = ni;
    l->items[l->n++] = nd;
    return 0;
}

static void nl_set(sluice_js_node *nd, nlist *l)
{
    nd->list = l->items;
    nd->n = l->n;
}

static int enter(parser *p)
{
    if (++p->depth > SLUICE_LIMIT_JS_NESTING) {
        limit(p, "the plan nests too deep", SLUICE_LIMIT_JS_NESTING);
        return -1;
    }
    if (p->depth > p->max_depth)
        p->max_depth = p->depth;
    return 0;
}

static void leave(parser *p)
{
    p->depth--;
}

static const sluice_js_tok *expect(parser *p, const char *s)
{
    if (!at(p, s)) {
        char what[16];
        snprintf(what, sizeof what, "'%s'", s);
        return expected(p, what);
    }
    return next(p);
}

/* Automatic semicolon insertion: a `;`, or a `}` / end / line break ahead. */
static int semicolon(parser *p)
{
    if (at(p, ";")) {
        next(p);
        return 0;
    }
    const sluice_js_tok *t = peek(p);
    if (at(p, "}") || t->kind == SLUICE_JS_T_EOF || t->newline_before)
        return 0;
    expected(p, "';' or a line break");
    return -1;
}

static const char *const reserved[] = {
    "break",     "case",      "catch",   "class",  "const",  "continue",   "debugger",
    "default",   "delete",    "do",      "else",   "export", "extends",    "finally",
    "for",       "function",  "if",      "import", "in",     "instanceof", "new",
    "return",    "super",     "switch",  "this",   "throw",  "try",        "typeof",
    "var",       "void",      "while",   "with",   "yield",  "let",        "static",
    "enum",      "await",     "null",    "true",   "false",  "implements", "package",
    "protected", "interface", "private", "public",
};

static int is_reserved(const sluice_js_tok *t)
{
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (sluice_js_tok_is(t, reserved[i]))
            return 1;
    return 0;
}

/* Globals that would reach outside the plan: refused wherever they are named. */
static const char *const forbidden_names[] = {
    "eval",           "Function",
    "globalThis",     "window",
    "global",         "self",
    "process",        "require",
    "module",         "exports",
    "arguments",      "Reflect",
    "Proxy",          "Symbol",
    "WebAssembly",    "setTimeout",
    "setInterval",    "setImmediate",
    "queueMicrotask", "fetch",
    "XMLHttpRequest", "importScripts",
    "Atomics",        "SharedArrayBuffer",
    "WeakRef",        "FinalizationRegistry",
    "__proto__",      "constructor",
    "prototype",
};

static const char *forbidden(const sluice_js_str *name)
{
    for (size_t i = 0; i < sizeof forbidden_names / sizeof forbidden_names[0]; i++)
        if (sluice_js_str_eq_ascii(name, forbidden_names[i]))
            return forbidden_names[i];
    return NULL;
}

/* Property names that reach prototypes. */
static int prototype_key(const sluice_js_str *s)
{
    return sluice_js_str_eq_ascii(s, "__proto__") || sluice_js_str_eq_ascii(s, "constructor") ||
           sluice_js_str_eq_ascii(s, "prototype") ||
           sluice_js_str_eq_ascii(s, "__defineGetter__") ||
           sluice_js_str_eq_ascii(s, "__defineSetter__") ||
           sluice_js_str_eq_ascii(s, "__lookupGetter__") ||
           sluice_js_str_eq_ascii(s, "__lookupSetter__");
}

static void *refuse_name(parser *p, const sluice_js_tok *t, const char *name)
{
    char *what = sluice_arena_printf(p->arena, "'%s'", name);
    const char *hint = "plans have no access to the host; only api, mcp, args and the built-in "
                       "data methods exist";
    if (strcmp(name, "__proto__") == 0 || strcmp(name, "constructor") == 0 ||
        strcmp(name, "prototype") == 0)
        hint = "prototype access is refused; use plain objects and their own properties";
    return refuse(p, t, what != NULL ? what : name, hint);
}

static sluice_js_node *ident_node(parser *p)
{
    const sluice_js_tok *t = peek(p);
    if (t->kind != SLUICE_JS_T_IDENT || is_reserved(t))
        return expected(p, "a name");
    const char *bad = forbidden(t->str);
    if (bad != NULL)
        return refuse_name(p, t, bad);
    sluice_js_node *nd = node(p, SLUICE_JS_IDENT, t);
    CHECK(nd);
    nd->str = t->str;
    next(p);
    return nd;
}

static sluice_js_node *parse_assign(parser *p);
static sluice_js_node *parse_expr(parser *p);
static sluice_js_node *parse_statement(parser *p);
static sluice_js_node *parse_block(parser *p);
static sluice_js_node *parse_unary(parser *p);
static sluice_js_node *parse_binding(parser *p);

/* Index of the ')' matching the '(' at token k, or 0. */
static size_t matching_paren(parser *p, size_t k)
{
    int depth = 0;
    for (size_t j = k; j < p->n; j++) {
        if (sluice_js_tok_is(&p->t[j], "("))
            depth++;
        else if (sluice_js_tok_is(&p->t[j], ")") && --depth == 0)
            return j;
    }
    return 0;
}

static int arrow_ahead(parser *p)
{
    const sluice_js_tok *t = peek(p);
    size_t k = 0;
    if (sluice_js_tok_is(t, "async") && !peek_at(p, 1)->newline_before &&
        (peek_at(p, 1)->kind == SLUICE_JS_T_IDENT || sluice_js_tok_is(peek_at(p, 1), "(")))
        k = 1;
    const sluice_js_tok *s = peek_at(p, k);
    if (s->kind == SLUICE_JS_T_IDENT && !sluice_js_tok_is(s, "async") && !is_reserved(s))
        return sluice_js_tok_is(peek_at(p, k + 1), "=>");
    if (s->kind == SLUICE_JS_T_IDENT && sluice_js_tok_is(s, "async"))
        return sluice_js_tok_is(peek_at(p, k + 1), "=>");
    if (sluice_js_tok_is(s, "(")) {
        size_t close = matching_paren(p, p->i + k);
        return close != 0 && close + 1 < p->n && sluice_js_tok_is(&p->t[close + 1], "=>");
    }
    return 0;
}

/* params -> '(' [binding ['=' assign] {',' ...}] [',' '...' binding] ')'
 * Function parameters: ( pattern [= default], ..., ...rest ). */
static int parse_params(parser *p, nlist *params)
{
    if (expect(p, "(") == NULL)
        return -1;
    while (!at(p, ")")) {
        sluice_js_node *param;
        if (at(p, "...")) {
            const sluice_js_tok *t = next(p);
            param = node(p, SLUICE_JS_REST, t);
            if (param == NULL || (param->a = parse_binding(p)) == NULL)
                return -1;
        } else {
            param = parse_binding(p);
            if (param == NULL)
                return -1;
        }
        if (nl_push(p, params, param) != 0)
            return -1;
        if (param->kind == SLUICE_JS_REST && !at(p, ")")) {
            expected(p, "')' after the rest parameter");
            return -1;
        }
        if (!at(p, ")") && expect(p, ",") == NULL)
            return -1;
    }
    next(p);
    return 0;
}

/* A function's body sees none of the loops and labels around it. */
typedef struct jump_context {
    int in_loop, in_iteration;
    label_scope *labels;
} jump_context;

static jump_context enter_function(parser *p)
{
    jump_context saved = { p->in_loop, p->in_iteration, p->labels };
    p->in_loop = p->in_iteration = 0;
    p->labels = NULL;
    return saved;
}

static void leave_function(parser *p, jump_context saved)
{
    p->in_loop = saved.in_loop;
    p->in_iteration = saved.in_iteration;
    p->labels = saved.labels;
}

static sluice_js_node *function_body(parser *p, sluice_js_node *fn)
{
    jump_context saved = enter_function(p);
    p->in_function++;
    fn->a = parse_block(p);
    p->in_function--;
    leave_function(p, saved);
    return fn->a != NULL ? fn : NULL;
}

/* arrow -> ['async'] (name | params) '=>' (block | assign) */
static sluice_js_node *parse_arrow(parser *p)
{
    const sluice_js_tok *t = peek(p);
    sluice_js_node *fn = node(p, SLUICE_JS_FUNC, t);
    CHECK(fn);
    fn->flags = SLUICE_JS_F_ARROW;
    if (sluice_js_tok_is(t, "async") && !sluice_js_tok_is(peek_at(p, 1), "=>")) {
        fn->flags |= SLUICE_JS_F_ASYNC;
        next(p);
    }
    nlist params = { 0 };
    if (at(p, "(")) {
        if (parse_params(p, &params) != 0)
            return NULL;
    } else {
        sluice_js_node *id = ident_node(p);
        CHECK(id);
        if (nl_push(p, &params, id) != 0)
            return NULL;
    }
    nl_set(fn, &params);
    CHECK(expect(p, "=>"));
    if (enter(p) != 0)
        return NULL;
    if (at(p, "{")) {
        CHECK(function_body(p, fn));
    } else {
        fn->flags |= SLUICE_JS_F_EXPR_BODY;
        jump_context saved = enter_function(p);
        fn->a = parse_assign(p);
        leave_function(p, saved);
        CHECK(fn->a);
    }
    leave(p);
    return fn;
}

/* function -> ['async'] 'function' [name] params block */
static sluice_js_node *parse_function(parser *p, int is_async, int need_name)
{
    const sluice_js_tok *t = peek(p);
    CHECK(expect(p, "function"));
    if (at(p, "*"))
        return refuse(p, peek(p), "a generator function (function*)", "use an ordinary function");
    sluice_js_node *fn = node(p, SLUICE_JS_FUNC, t);
    CHECK(fn);
    if (is_async)
        fn->flags |= SLUICE_JS_F_ASYNC;
    if (peek(p)->kind == SLUICE_JS_T_IDENT && !at(p, "(")) {
        sluice_js_node *id = ident_node(p);
        CHECK(id);
        fn->str = id->str;
    } else if (need_name) {
        return expected(p, "the function's name");
    }
    nlist params = { 0 };
    if (parse_params(p, &params) != 0)
        return NULL;
    nl_set(fn, &params);
    if (enter(p) != 0)
        return NULL;
    CHECK(function_body(p, fn));
    leave(p);
    return fn;
}

/* template -> '`' chars {'${' expr '}' chars} '`' */
static sluice_js_node *parse_template(parser *p)
{
    const sluice_js_tok *t = peek(p);
    sluice_js_node *tpl = node(p, SLUICE_JS_TEMPLATE, t);
    CHECK(tpl);
    nlist parts = { 0 };
    for (;;) {
        const sluice_js_tok *c = peek(p);
        if (c->kind != SLUICE_JS_T_TEMPLATE)
            return expected(p, "the rest of the template literal");
        sluice_js_node *q = node(p, SLUICE_JS_STR, c);
        CHECK(q);
        q->str = c->str;
        next(p);
        if (nl_push(p, &parts, q) != 0)
            return NULL;
        if (c->flags & SLUICE_JS_TPL_TAIL)
            break;
        sluice_js_node *e = parse_expr(p);
        CHECK(e);
        if (nl_push(p, &parts, e) != 0)
            return NULL;
    }
    nl_set(tpl, &parts);
    return tpl;
}

/* key -> name | string | number | '[' assign ']'
 * A property key: name, string, number (as its string), or [computed]. */
static sluice_js_node *parse_key(parser *p, sluice_js_node *prop)
{
    const sluice_js_tok *t = peek(p);
    if (at(p, "[")) {
        next(p);
        prop->flags |= SLUICE_JS_F_COMPUTED;
        prop->a = parse_assign(p);
        CHECK(prop->a);
        CHECK(expect(p, "]"));
        return prop->a;
    }
    sluice_js_node *k = node(p, SLUICE_JS_STR, t);
    CHECK(k);
    if (t->kind == SLUICE_JS_T_IDENT || t->kind == SLUICE_JS_T_STRING) {
        k->str = t->str;
    } else if (t->kind == SLUICE_JS_T_NUMBER) {
        /* numeric keys become their canonical string at run time */
        k->kind = SLUICE_JS_NUM;
        k->num = t->num;
    } else {
        return expected(p, "a property name");
    }
    if (k->str != NULL && prototype_key(k->str))
        return refuse_name(p, t, "__proto__");
    next(p);
    prop->a = k;
    return k;
}

/* object -> '{' [prop {',' prop} [',']] '}'
 *   prop -> key ':' assign | name ['=' assign] | '...' assign | key params block */
static sluice_js_node *parse_object(parser *p)
{
    const sluice_js_tok *t = next(p); /* { */
    sluice_js_node *obj = node(p, SLUICE_JS_OBJECT, t);
    CHECK(obj);
    nlist props = { 0 };
    if (enter(p) != 0)
        return NULL;
    while (!at(p, "}")) {
        const sluice_js_tok *pt = peek(p);
        sluice_js_node *prop;
        if (at(p, "...")) {
            next(p);
            prop = node(p, SLUICE_JS_SPREAD, pt);
            CHECK(prop);
            prop->a = parse_assign(p);
            CHECK(prop->a);
        } else {
            if ((sluice_js_tok_is(pt, "get") || sluice_js_tok_is(pt, "set")) &&
                !sluice_js_tok_is(peek_at(p, 1), ":") && !sluice_js_tok_is(peek_at(p, 1), ",") &&
                !sluice_js_tok_is(peek_at(p, 1), "}") && !sluice_js_tok_is(peek_at(p, 1), "("))
                return refuse(p, pt, sluice_js_tok_is(pt, "get") ? "a getter" : "a setter",
                              "write a plain property with its value");
            if (sluice_js_tok_is(pt, "async") && !sluice_js_tok_is(peek_at(p, 1), ":") &&
                !sluice_js_tok_is(peek_at(p, 1), ",") && !sluice_js_tok_is(peek_at(p, 1), "}"))
                return refuse(p, pt, "a method definition",
                              "write the property as name: async (...) => ...");
            prop = node(p, SLUICE_JS_PROPERTY, pt);
            CHECK(prop);
            CHECK(parse_key(p, prop));
            if (at(p, ":")) {
                next(p);
                prop->b = parse_assign(p);
                CHECK(prop->b);
            } else if (at(p, "(")) {
                return refuse(p, pt, "a method definition",
                              "write the property as name: (...) => ...");
            } else if (pt->kind == SLUICE_JS_T_IDENT && !(prop->flags & SLUICE_JS_F_COMPUTED)) {
                if (is_reserved(pt))
                    return expected(p, "':' after the property name");
                const char *bad = forbidden(pt->str);
                if (bad != NULL)
                    return refuse_name(p, pt, bad);
                prop->flags |= SLUICE_JS_F_SHORTHAND;
                prop->b = node(p, SLUICE_JS_IDENT, pt);
                CHECK(prop->b);
                prop->b->str = pt->str;
                if (at(p, "=")) { /* only valid once the literal becomes a pattern */
                    const sluice_js_tok *eq = next(p);
                    sluice_js_node *ap = node(p, SLUICE_JS_ASSIGN_PAT, eq);
                    CHECK(ap);
                    ap->a = prop->b;
                    ap->b = parse_assign(p);
                    CHECK(ap->b);
                    prop->b = ap;
                }
            } else {
                return expected(p, "':' after the property name");
            }
        }
        if (nl_push(p, &props, prop) != 0)
            return NULL;
        if (!at(p, "}") && expect(p, ",") == NULL)
            return NULL;
    }
    next(p);
    leave(p);
    nl_set(obj, &props);
    return obj;
}

/* Remembers that arr (an array literal so far) has a hole at tok. 0, or -1 on NOMEM. */
static int note_hole(parser *p, const sluice_js_node *arr, const sluice_js_tok *tok)
{
    if (p->nholes > 0 && p->holes[p->nholes - 1].arr == arr)
        return 0;
    struct hole_note *h =
        sluice_vec_grow(p->arena, p->holes, p->nholes, &p->holes_cap, sizeof *h, 8);
    if (h == NULL) {
        if (p->st == SLUICE_OK) {
            p->st = SLUICE_E_NOMEM;
            sluice_error_set(p->err, p->arena, SLUICE_E_NOMEM, "out of memory parsing");
        }
        return -1;
    }
    p->holes = h;
    p->holes[p->nholes++] = (struct hole_note){ arr, tok };
    return 0;
}

/* An array literal that kept a hole (it did not become a pattern) is refused: plans' arrays
 * have no holes, and a hole read as undefined would be visited by filter/forEach/keys where
 * JavaScript skips it, a silent difference from Node. */
static void refuse_literal_holes(parser *p)
{
    for (size_t i = 0; i < p->nholes && p->st == SLUICE_OK; i++)
        if (p->holes[i].arr->kind == SLUICE_JS_ARRAY)
            refuse(p, p->holes[i].hole, "a hole in an array literal ([a, , b])",
                   "write undefined or null explicitly; holes are allowed in destructuring "
                   "([, x] = list)");
}

/* array -> '[' [(assign | '...' assign | hole) {',' ...}] ']'   (holes: see note_hole) */
static sluice_js_node *parse_array(parser *p)
{
    const sluice_js_tok *t = next(p); /* [ */
    sluice_js_node *arr = node(p, SLUICE_JS_ARRAY, t);
    CHECK(arr);
    nlist items = { 0 };
    if (enter(p) != 0)
        return NULL;
    while (!at(p, "]")) {
        const sluice_js_tok *it = peek(p);
        sluice_js_node *e;
        if (at(p, ",")) { /* a hole: a NULL element, kept only if the array becomes a pattern */
            if (note_hole(p, arr, it) != 0)
                return NULL;
            if (nl_push(p, &items, NULL) != 0)
                return NULL;
            next(p);
            continue;
        } else if (at(p, "...")) {
            next(p);
            e = node(p, SLUICE_JS_SPREAD, it);
            CHECK(e);
            e->a = parse_assign(p);
            CHECK(e->a);
        } else {
            e = parse_assign(p);
            CHECK(e);
        }
        if (nl_push(p, &items, e) != 0)
            return NULL;
        if (!at(p, "]") && expect(p, ",") == NULL)
            return NULL;
    }
    next(p);
    leave(p);
    nl_set(arr, &items);
    return arr;
}

/* primary -> name | number | string | template | 'true' | 'false' | 'null' | array | object
 *          | function | arrow | '(' expr ')' */
static sluice_js_node *parse_primary(parser *p)
{
    const sluice_js_tok *t = peek(p);
    sluice_js_node *nd;
    switch (t->kind) {
    case SLUICE_JS_T_NUMBER:
        nd = node(p, SLUICE_JS_NUM, t);
        CHECK(nd);
        nd->num = t->num;
        next(p);
        return nd;
    case SLUICE_JS_T_STRING:
        nd = node(p, SLUICE_JS_STR, t);
        CHECK(nd);
        nd->str = t->str;
        next(p);
        return nd;
    case SLUICE_JS_T_TEMPLATE:
        return parse_template(p);
    case SLUICE_JS_T_EOF:
        return expected(p, "an expression");
    default:
        break;
    }
    if (at(p, "(")) {
        next(p);
        if (enter(p) != 0)
            return NULL;
        nd = parse_expr(p);
        CHECK(nd);
        leave(p);
        CHECK(expect(p, ")"));
        nd->flags |= SLUICE_JS_F_PARENS;
        return nd;
    }
    if (at(p, "["))
        return parse_array(p);
    if (at(p, "{"))
        return parse_object(p);
    if (at(p, "/") || at(p, "/="))
        return refuse(p, t, "a regular expression literal",
                      "use string methods: includes, startsWith, split, indexOf");
    if (at(p, "true") || at(p, "false") || at(p, "null")) {
        nd = node(p,
                  at(p, "true")    ? SLUICE_JS_TRUE
                  : at(p, "false") ? SLUICE_JS_FALSE
                                   : SLUICE_JS_NULL,
                  t);
        next(p);
        return nd;
    }
    if (at(p, "function"))
        return parse_function(p, 0, 0);
    if (at(p, "async") && sluice_js_tok_is(peek_at(p, 1), "function") &&
        !peek_at(p, 1)->newline_before) {
        next(p);
        return parse_function(p, 1, 0);
    }
    if (at(p, "this"))
        return refuse(p, t, "'this'", "plans have no objects with methods; pass values explicitly");
    if (at(p, "class"))
        return refuse(p, t, "a class", "use plain objects and functions");
    if (at(p, "import"))
        return refuse(p, t, "'import'", "plans cannot load modules");
    if (at(p, "super"))
        return refuse(p, t, "'super'", NULL);
    if (at(p, "yield"))
        return refuse(p, t, "'yield'", NULL);
    if (t->kind == SLUICE_JS_T_IDENT && !is_reserved(t))
        return ident_node(p);
    return expected(p, "an expression");
}

/* arguments -> '(' [(assign | '...' assign) {',' ...} [',']] ')' */
static sluice_js_node *parse_args(parser *p, sluice_js_node *call)
{
    nlist args = { 0 };
    CHECK(expect(p, "("));
    while (!at(p, ")")) {
        const sluice_js_tok *t = peek(p);
        sluice_js_node *a;
        if (at(p, "...")) {
            next(p);
            a = node(p, SLUICE_JS_SPREAD, t);
            CHECK(a);
            a->a = parse_assign(p);
            CHECK(a->a);
        } else {
            a = parse_assign(p);
            CHECK(a);
        }
        if (nl_push(p, &args, a) != 0)
            return NULL;
        if (!at(p, ")") && expect(p, ",") == NULL)
            return NULL;
    }
    next(p);
    nl_set(call, &args);
    return call;
}

static sluice_js_node *member_name(parser *p, sluice_js_node *m)
{
    const sluice_js_tok *t = peek(p);
    if (at(p, "#"))
        return refuse(p, t, "a private name (#x)", NULL);
    if (t->kind != SLUICE_JS_T_IDENT)
        return expected(p, "a property name after '.'");
    if (prototype_key(t->str)) {
        char *name = sluice_js_str_utf8(p->arena, t->str);
        return refuse_name(p, t, name != NULL ? name : "__proto__");
    }
    m->b = node(p, SLUICE_JS_STR, t);
    CHECK(m->b);
    m->b->str = t->str;
    next(p);
    return m;
}

/* new_expr -> 'new' primary [arguments]   (only the built-in constructors) */
static sluice_js_node *parse_new(parser *p)
{
    const sluice_js_tok *start = next(p);
    const sluice_js_tok *ct = peek(p);
    if (at(p, "."))
        return refuse(p, ct, "'new.target'", NULL);
    sluice_js_node *callee = parse_primary(p);
    CHECK(callee);
    static const char *const ctors[] = { "Error",          "TypeError", "RangeError", "SyntaxError",
                                         "ReferenceError", "Date",      "Map",        "Set" };
    int ok = 0;
    for (size_t i = 0; callee->kind == SLUICE_JS_IDENT && i < sizeof ctors / sizeof ctors[0]; i++)
        if (sluice_js_str_eq_ascii(callee->str, ctors[i]))
            ok = 1;
    if (!ok)
        return refuse(p, ct,
                      "'new' with anything but Error, TypeError, RangeError, Date, Map "
                      "or Set",
                      "build plain objects with { ... }");
    sluice_js_node *e = node(p, SLUICE_JS_NEW, start);
    CHECK(e);
    e->a = callee;
    if (at(p, "("))
        CHECK(parse_args(p, e));
    return e;
}

/* member -> e '.' name | e '?.' (name | '[' expr ']' | arguments) | e '[' expr ']' | e arguments
 * One step of a member/call chain on e at token t; *chain set by '?.'. NULL with the parser's
 * failure set, or e itself when no step follows (*done set). */
static sluice_js_node *
parse_member_step(parser *p, sluice_js_node *e, const sluice_js_tok *t, int *chain, int *done)
{
    uint32_t flags = 0;
    if (at(p, "?.")) {
        next(p);
        *chain = 1;
        flags = SLUICE_JS_F_OPTIONAL;
        if (!at(p, "(") && !at(p, "[")) {
            sluice_js_node *m = node(p, SLUICE_JS_MEMBER, t);
            CHECK(m);
            m->a = e;
            m->flags |= flags;
            CHECK(member_name(p, m));
            return m;
        }
    } else if (at(p, ".")) {
        next(p);
        sluice_js_node *m = node(p, SLUICE_JS_MEMBER, t);
        CHECK(m);
        m->a = e;
        CHECK(member_name(p, m));
        return m;
    } else if (t->kind == SLUICE_JS_T_TEMPLATE && (t->flags & SLUICE_JS_TPL_HEAD)) {
        return refuse(p, t, "a tagged template", "call the function with a string instead");
    } else if (!at(p, "[") && !at(p, "(")) {
        *done = 1;
        return e;
    }
    if (at(p, "(")) {
        sluice_js_node *c = node(p, SLUICE_JS_CALL, t);
        CHECK(c);
        c->a = e;
        c->flags |= flags;
        CHECK(parse_args(p, c));
        return c;
    }
    next(p);
    sluice_js_node *m = node(p, SLUICE_JS_MEMBER, t);
    CHECK(m);
    m->a = e;
    m->flags |= flags | SLUICE_JS_F_COMPUTED;
    m->b = parse_expr(p);
    CHECK(m->b);
    CHECK(expect(p, "]"));
    return m;
}

/* call_member -> (new_expr | primary) member*   (a SLUICE_JS_CHAIN around it when any step is ?.)
 */
static sluice_js_node *parse_call_member(parser *p)
{
    const sluice_js_tok *start = peek(p);
    sluice_js_node *e = at(p, "new") ? parse_new(p) : parse_primary(p);
    CHECK(e);
    int chain = 0, done = 0;
    while (!done) {
        e = parse_member_step(p, e, peek(p), &chain, &done);
        CHECK(e);
    }
    if (chain) {
        sluice_js_node *c = node(p, SLUICE_JS_CHAIN, start);
        CHECK(c);
        c->a = e;
        e = c;
    }
    return e;
}

static int simple_target(const sluice_js_node *e)
{
    return e->kind == SLUICE_JS_IDENT || e->kind == SLUICE_JS_MEMBER;
}

/* postfix -> call_member [('++' | '--')]   (no line break before the operator) */
static sluice_js_node *parse_postfix(parser *p)
{
    sluice_js_node *e = parse_call_member(p);
    CHECK(e);
    const sluice_js_tok *t = peek(p);
    if ((at(p, "++") || at(p, "--")) && !t->newline_before) {
        if (!simple_target(e))
            return failv(p, t, "syntax_error", NULL,
                         "invalid target for ++/--: expected a name or a property");
        next(p);
        sluice_js_node *u = node(p, SLUICE_JS_UPDATE, t);
        CHECK(u);
        u->op = sluice_js_tok_is(t, "++") ? SLUICE_JS_OP_INC : SLUICE_JS_OP_DEC;
        u->a = e;
        return u;
    }
    return e;
}

/* unary -> ('!' | '-' | '+' | '~' | 'typeof' | 'void' | 'delete' | 'await' | '++' | '--')
 *         unary | postfix ['**' unary] */
static sluice_js_node *parse_unary(parser *p)
{
    const sluice_js_tok *t = peek(p);
    static const struct {
        const char *p;
        sluice_js_op op;
    } ops[] = { { "!", SLUICE_JS_OP_NOT },         { "-", SLUICE_JS_OP_NEG },
                { "+", SLUICE_JS_OP_PLUS },        { "~", SLUICE_JS_OP_BITNOT },
                { "typeof", SLUICE_JS_OP_TYPEOF }, { "void", SLUICE_JS_OP_VOID },
                { "delete", SLUICE_JS_OP_DELETE } };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (!at(p, ops[i].p))
            continue;
        next(p);
        if (enter(p) != 0)
            return NULL;
        sluice_js_node *u = node(p, SLUICE_JS_UNARY, t);
        CHECK(u);
        u->op = (uint16_t)ops[i].op;
        u->a = parse_unary(p);
        CHECK(u->a);
        leave(p);
        if (u->op == SLUICE_JS_OP_DELETE && u->a->kind != SLUICE_JS_MEMBER)
            return refuse(p, t, "'delete' of anything but a property", NULL);
        if (at(p, "**"))
            return failv(p, peek(p), "syntax_error", "write (-a) ** b",
                         "a unary expression cannot be the base of '**' without parentheses");
        return u;
    }
    if (at(p, "++") || at(p, "--")) {
        next(p);
        sluice_js_node *u = node(p, SLUICE_JS_UPDATE, t);
        CHECK(u);
        u->op = sluice_js_tok_is(t, "++") ? SLUICE_JS_OP_INC : SLUICE_JS_OP_DEC;
        u->flags |= SLUICE_JS_F_PREFIX;
        u->a = parse_unary(p);
        CHECK(u->a);
        if (!simple_target(u->a))
            return failv(p, t, "syntax_error", NULL,
                         "invalid target for ++/--: expected a name or a property");
        return u;
    }
    if (at(p, "await")) {
        next(p);
        sluice_js_node *u = node(p, SLUICE_JS_AWAIT, t);
        CHECK(u);
        if (enter(p) != 0)
            return NULL;
        u->a = parse_unary(p);
        CHECK(u->a);
        leave(p);
        return u;
    }
    return parse_postfix(p);
}

typedef struct binop {
    const char *p;
    int prec;
    sluice_js_op op;
} binop;

static const binop binops[] = {
    { "??", 1, SLUICE_JS_OP_NULLISH }, { "||", 2, SLUICE_JS_OP_OR },
    { "&&", 3, SLUICE_JS_OP_AND },     { "|", 4, SLUICE_JS_OP_BITOR },
    { "^", 5, SLUICE_JS_OP_BITXOR },   { "&", 6, SLUICE_JS_OP_BITAND },
    { "===", 7, SLUICE_JS_OP_SEQ },    { "!==", 7, SLUICE_JS_OP_SNE },
    { "==", 7, SLUICE_JS_OP_EQ },      { "!=", 7, SLUICE_JS_OP_NE },
    { "<=", 8, SLUICE_JS_OP_LE },      { ">=", 8, SLUICE_JS_OP_GE },
    { "<", 8, SLUICE_JS_OP_LT },       { ">", 8, SLUICE_JS_OP_GT },
    { "in", 8, SLUICE_JS_OP_IN },      { "instanceof", 8, SLUICE_JS_OP_INSTANCEOF },
    { "<<", 9, SLUICE_JS_OP_SHL },     { ">>>", 9, SLUICE_JS_OP_USHR },
    { ">>", 9, SLUICE_JS_OP_SHR },     { "+", 10, SLUICE_JS_OP_ADD },
    { "-", 10, SLUICE_JS_OP_SUB },     { "*", 11, SLUICE_JS_OP_MUL },
    { "/", 11, SLUICE_JS_OP_DIV },     { "%", 11, SLUICE_JS_OP_MOD },
    { "**", 12, SLUICE_JS_OP_EXP },
};

static const binop *binop_at(parser *p)
{
    for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
        if (at(p, binops[i].p))
            return &binops[i];
    return NULL;
}

static int is_logical_mix(const sluice_js_node *e, sluice_js_op op)
{
    /* `a ?? b || c` and `a || b ?? c` are syntax errors without parentheses */
    if (e->kind != SLUICE_JS_LOGICAL || (e->flags & SLUICE_JS_F_PARENS))
        return 0;
    int nullish_a = e->op == SLUICE_JS_OP_NULLISH, nullish_b = op == SLUICE_JS_OP_NULLISH;
    return nullish_a != nullish_b;
}

/* binary -> unary {binop unary}   (precedence climbing from min_prec; ?? never mixes with
 *          && or || unparenthesised) */
static sluice_js_node *parse_binary(parser *p, int min_prec)
{
    sluice_js_node *left = parse_unary(p);
    CHECK(left);
    for (;;) {
        const binop *b = binop_at(p);
        if (b == NULL || b->prec < min_prec)
            break;
        const sluice_js_tok *t = next(p);
        if (enter(p) != 0)
            return NULL;
        /* ** is right-associative; everything else left */
        sluice_js_node *right = parse_binary(p, b->op == SLUICE_JS_OP_EXP ? b->prec : b->prec + 1);
        CHECK(right);
        leave(p);
        int logical =
            b->op == SLUICE_JS_OP_AND || b->op == SLUICE_JS_OP_OR || b->op == SLUICE_JS_OP_NULLISH;
        if (logical && (is_logical_mix(left, b->op) || is_logical_mix(right, b->op)))
            return failv(p, t, "syntax_error", "add parentheses: (a ?? b) || c",
                         "'?\?' cannot be mixed with '||' or '&&' without parentheses");
        sluice_js_node *e = node(p, logical ? SLUICE_JS_LOGICAL : SLUICE_JS_BINARY, t);
        CHECK(e);
        e->op = (uint16_t)b->op;
        e->a = left;
        e->b = right;
        left = e;
    }
    return left;
}

/* conditional -> binary ['?' assign ':' assign] */
static sluice_js_node *parse_conditional(parser *p)
{
    sluice_js_node *test = parse_binary(p, 1);
    CHECK(test);
    if (!at(p, "?"))
        return test;
    const sluice_js_tok *t = next(p);
    sluice_js_node *c = node(p, SLUICE_JS_COND, t);
    CHECK(c);
    if (enter(p) != 0)
        return NULL;
    c->a = test;
    c->b = parse_assign(p);
    CHECK(c->b);
    CHECK(expect(p, ":"));
    c->c = parse_assign(p);
    CHECK(c->c);
    leave(p);
    return c;
}

/* Turns an array/object literal into the pattern it spells (destructuring assignment). */
static sluice_js_node *to_pattern(parser *p, sluice_js_node *e, const sluice_js_tok *t)
{
    switch (e->kind) {
    case SLUICE_JS_IDENT:
    case SLUICE_JS_MEMBER:
        return e;
    case SLUICE_JS_ASSIGN:
        if (e->op != SLUICE_JS_OP_ASSIGN)
            break;
        e->kind = SLUICE_JS_ASSIGN_PAT;
        CHECK(e->a = to_pattern(p, e->a, t));
        return e;
    case SLUICE_JS_ASSIGN_PAT:
    case SLUICE_JS_ARRAY_PAT:
    case SLUICE_JS_OBJECT_PAT:
        return e;
    case SLUICE_JS_ARRAY:
        e->kind = SLUICE_JS_ARRAY_PAT;
        for (size_t i = 0; i < e->n; i++) {
            if (e->list[i] == NULL) /* a hole skips an element */
                continue;
            if (e->list[i]->kind == SLUICE_JS_SPREAD) {
                e->list[i]->kind = SLUICE_JS_REST;
                CHECK(e->list[i]->a = to_pattern(p, e->list[i]->a, t));
            } else {
                CHECK(e->list[i] = to_pattern(p, e->list[i], t));
            }
        }
        return e;
    case SLUICE_JS_OBJECT:
        e->kind = SLUICE_JS_OBJECT_PAT;
        for (size_t i = 0; i < e->n; i++) {
            sluice_js_node *pr = e->list[i];
            if (pr->kind == SLUICE_JS_SPREAD) {
                pr->kind = SLUICE_JS_REST;
                CHECK(pr->a = to_pattern(p, pr->a, t));
            } else {
                CHECK(pr->b = to_pattern(p, pr->b, t));
            }
        }
        return e;
    default:
        break;
    }
    return failv(p, t, "syntax_error", NULL,
                 "invalid assignment target: expected a name, a property or a destructuring "
                 "pattern");
}

/* assign -> arrow | conditional [assignop assign]   (the target a name, member or pattern) */
static sluice_js_node *parse_assign(parser *p)
{
    if (arrow_ahead(p))
        return parse_arrow(p);
    sluice_js_node *left = parse_conditional(p);
    CHECK(left);
    static const struct {
        const char *p;
        sluice_js_op op;
    } ops[] = { { "=", SLUICE_JS_OP_ASSIGN },  { "+=", SLUICE_JS_OP_ADD },
                { "-=", SLUICE_JS_OP_SUB },    { "*=", SLUICE_JS_OP_MUL },
                { "/=", SLUICE_JS_OP_DIV },    { "%=", SLUICE_JS_OP_MOD },
                { "**=", SLUICE_JS_OP_EXP },   { "||=", SLUICE_JS_OP_OR },
                { "&&=", SLUICE_JS_OP_AND },   { "?\?=", SLUICE_JS_OP_NULLISH },
                { "&=", SLUICE_JS_OP_BITAND }, { "|=", SLUICE_JS_OP_BITOR },
                { "^=", SLUICE_JS_OP_BITXOR }, { "<<=", SLUICE_JS_OP_SHL },
                { ">>=", SLUICE_JS_OP_SHR },   { ">>>=", SLUICE_JS_OP_USHR } };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (!at(p, ops[i].p))
            continue;
        const sluice_js_tok *t = next(p);
        if (ops[i].op == SLUICE_JS_OP_ASSIGN && !(left->flags & SLUICE_JS_F_PARENS))
            CHECK(left = to_pattern(p, left, t));
        else if (!simple_target(left))
            return failv(p, t, "syntax_error", NULL,
                         "invalid assignment target: expected a name or a property");
        sluice_js_node *a = node(p, SLUICE_JS_ASSIGN, t);
        CHECK(a);
        a->op = (uint16_t)ops[i].op;
        a->a = left;
        if (enter(p) != 0)
            return NULL;
        a->b = parse_assign(p);
        CHECK(a->b);
        leave(p);
        return a;
    }
    return left;
}

/* expr -> assign {',' assign} */
static sluice_js_node *parse_expr(parser *p)
{
    sluice_js_node *e = parse_assign(p);
    CHECK(e);
    if (!at(p, ","))
        return e;
    sluice_js_node *seq = node(p, SLUICE_JS_SEQ, peek(p));
    CHECK(seq);
    nlist items = { 0 };
    if (nl_push(p, &items, e) != 0)
        return NULL;
    while (at(p, ",")) {
        next(p);
        CHECK(e = parse_assign(p));
        if (nl_push(p, &items, e) != 0)
            return NULL;
    }
    nl_set(seq, &items);
    return seq;
}

/* binding -> (name | array_pattern | object_pattern) ['=' assign]
 * A binding pattern: name, [a, b = 1, ...r], {a, b: c, d = 1, ...r}, with an optional default. */
static sluice_js_node *parse_binding(parser *p)
{
    const sluice_js_tok *t = peek(p);
    sluice_js_node *pat;
    if (at(p, "[") || at(p, "{")) {
        if (enter(p) != 0)
            return NULL;
        pat = at(p, "[") ? parse_array(p) : parse_object(p);
        CHECK(pat);
        leave(p);
        CHECK(pat = to_pattern(p, pat, t));
    } else {
        pat = ident_node(p);
        CHECK(pat);
    }
    if (at(p, "=")) {
        const sluice_js_tok *eq = next(p);
        sluice_js_node *ap = node(p, SLUICE_JS_ASSIGN_PAT, eq);
        CHECK(ap);
        ap->a = pat;
        ap->b = parse_assign(p);
        CHECK(ap->b);
        return ap;
    }
    return pat;
}

/* var_decl -> ('let' | 'const') binding ['=' assign] {',' binding ['=' assign]} */
static sluice_js_node *parse_var(parser *p, int for_head)
{
    const sluice_js_tok *t = next(p); /* const / let */
    sluice_js_node *v = node(p, SLUICE_JS_VAR, t);
    CHECK(v);
    if (sluice_js_tok_is(t, "const"))
        v->flags |= SLUICE_JS_F_CONST;
    nlist decls = { 0 };
    do {
        if (decls.n > 0)
            next(p);
        const sluice_js_tok *dt = peek(p);
        sluice_js_node *d = node(p, SLUICE_JS_DECLARATOR, dt);
        CHECK(d);
        if (at(p, "[") || at(p, "{")) {
            sluice_js_node *pat = at(p, "[") ? parse_array(p) : parse_object(p);
            CHECK(pat);
            CHECK(d->a = to_pattern(p, pat, dt));
        } else {
            CHECK(d->a = ident_node(p));
        }
        if (at(p, "=")) {
            next(p);
            CHECK(d->b = parse_assign(p));
        } else if (!for_head && ((v->flags & SLUICE_JS_F_CONST) || d->a->kind != SLUICE_JS_IDENT)) {
            return expected(p, "'=' and a value (a const or a destructuring needs one)");
        }
        if (nl_push(p, &decls, d) != 0)
            return NULL;
    } while (at(p, ","));
    nl_set(v, &decls);
    return v;
}

/* block -> '{' {statement} '}' */
static sluice_js_node *parse_block(parser *p)
{
    const sluice_js_tok *t = peek(p);
    CHECK(expect(p, "{"));
    sluice_js_node *b = node(p, SLUICE_JS_BLOCK, t);
    CHECK(b);
    if (enter(p) != 0)
        return NULL;
    nlist body = { 0 };
    while (!at(p, "}")) {
        if (peek(p)->kind == SLUICE_JS_T_EOF)
            return expected(p, "'}'");
        sluice_js_node *s = parse_statement(p);
        CHECK(s);
        if (nl_push(p, &body, s) != 0)
            return NULL;
    }
    next(p);
    leave(p);
    nl_set(b, &body);
    return b;
}

static sluice_js_node *loop_body(parser *p, sluice_js_node *loop)
{
    p->in_loop++;
    p->in_iteration++;
    if (enter(p) != 0)
        return NULL;
    loop->d = parse_statement(p);
    leave(p);
    p->in_loop--;
    p->in_iteration--;
    return loop->d != NULL ? loop : NULL;
}

/* for_stmt -> 'for' '(' [var_decl | expr] ';' [expr] ';' [expr] ')' statement
 *          | 'for' '(' (var_decl | target) ('of' | 'in') expr ')' statement */
static sluice_js_node *parse_for(parser *p)
{
    const sluice_js_tok *t = next(p); /* for */
    if (at(p, "await"))
        return refuse(p, peek(p), "'for await'", "await inside the loop body instead");
    CHECK(expect(p, "("));
    sluice_js_node *init = NULL;
    if (at(p, "const") || at(p, "let")) {
        CHECK(init = parse_var(p, 1));
    } else if (at(p, "var")) {
        return refuse(p, peek(p), "'var'", "declare the variable with let or const");
    } else if (!at(p, ";")) {
        /* `x of`/`x in` head: a bare name; otherwise a full expression (no `in` ambiguity
         * arises because for...in needs a bare name or a declaration here) */
        if (peek(p)->kind == SLUICE_JS_T_IDENT &&
            (sluice_js_tok_is(peek_at(p, 1), "of") || sluice_js_tok_is(peek_at(p, 1), "in")))
            CHECK(init = ident_node(p));
        else
            CHECK(init = parse_expr(p));
    }
    if (at(p, "of") || at(p, "in")) {
        int of = at(p, "of");
        next(p);
        if (init == NULL ||
            (init->kind == SLUICE_JS_VAR && (init->n != 1 || init->list[0]->b != NULL)))
            return failv(p, t, "syntax_error", NULL,
                         "for...of/for...in declares exactly one variable without a value");
        if (init->kind != SLUICE_JS_VAR)
            CHECK(init = to_pattern(p, init, t));
        sluice_js_node *loop = node(p, of ? SLUICE_JS_FOR_OF : SLUICE_JS_FOR_IN, t);
        CHECK(loop);
        loop->a = init;
        CHECK(loop->b = of ? parse_assign(p) : parse_expr(p));
        CHECK(expect(p, ")"));
        return loop_body(p, loop);
    }
    if (init != NULL && init->kind == SLUICE_JS_VAR) {
        for (size_t i = 0; i < init->n; i++)
            if (init->list[i]->b == NULL && (init->flags & SLUICE_JS_F_CONST))
                return expected(p, "'=' and a value for the const");
    }
    sluice_js_node *loop = node(p, SLUICE_JS_FOR, t);
    CHECK(loop);
    loop->a = init;
    CHECK(expect(p, ";"));
    if (!at(p, ";"))
        CHECK(loop->b = parse_expr(p));
    CHECK(expect(p, ";"));
    if (!at(p, ")"))
        CHECK(loop->c = parse_expr(p));
    CHECK(expect(p, ")"));
    return loop_body(p, loop);
}

/* try_stmt -> 'try' block ['catch' ['(' binding ')'] block] ['finally' block] */
static sluice_js_node *parse_try(parser *p)
{
    const sluice_js_tok *t = next(p);
    sluice_js_node *tr = node(p, SLUICE_JS_TRY, t);
    CHECK(tr);
    CHECK(tr->a = parse_block(p));
    if (at(p, "catch")) {
        next(p);
        if (at(p, "(")) {
            next(p);
            CHECK(tr->b = parse_binding(p));
            CHECK(expect(p, ")"));
        }
        CHECK(tr->c = parse_block(p));
    }
    if (at(p, "finally")) {
        next(p);
        CHECK(tr->d = parse_block(p));
    }
    if (tr->c == NULL && tr->d == NULL)
        return expected(p, "'catch' or 'finally'");
    return tr;
}

/* switch_stmt -> 'switch' '(' expr ')' '{' {('case' expr | 'default') ':' {statement}} '}' */
static sluice_js_node *parse_switch(parser *p)
{
    const sluice_js_tok *t = next(p);
    sluice_js_node *sw = node(p, SLUICE_JS_SWITCH, t);
    CHECK(sw);
    CHECK(expect(p, "("));
    CHECK(sw->a = parse_expr(p));
    CHECK(expect(p, ")"));
    CHECK(expect(p, "{"));
    if (enter(p) != 0)
        return NULL;
    nlist cases = { 0 };
    int seen_default = 0;
    p->in_loop++;
    while (!at(p, "}")) {
        const sluice_js_tok *ct = peek(p);
        sluice_js_node *c = node(p, SLUICE_JS_CASE, ct);
        CHECK(c);
        if (at(p, "case")) {
            next(p);
            CHECK(c->a = parse_expr(p));
        } else if (at(p, "default")) {
            if (seen_default++)
                return failv(p, ct, "syntax_error", NULL, "a switch has one default at most");
            next(p);
        } else {
            return expected(p, "'case', 'default' or '}'");
        }
        CHECK(expect(p, ":"));
        nlist body = { 0 };
        while (!at(p, "case") && !at(p, "default") && !at(p, "}")) {
            sluice_js_node *s = parse_statement(p);
            CHECK(s);
            if (nl_push(p, &body, s) != 0)
                return NULL;
        }
        nl_set(c, &body);
        if (nl_push(p, &cases, c) != 0)
            return NULL;
    }
    p->in_loop--;
    next(p);
    leave(p);
    nl_set(sw, &cases);
    return sw;
}

static sluice_js_node *simple_stmt(parser *p, sluice_js_node *s)
{
    CHECK(s);
    return semicolon(p) == 0 ? s : NULL;
}

/* func_decl -> ['async'] 'function' name '(' params ')' block */
static sluice_js_node *parse_func_decl(parser *p)
{
    const sluice_js_tok *t = peek(p);
    int is_async = at(p, "async");
    if (is_async)
        next(p);
    sluice_js_node *s = node(p, SLUICE_JS_FUNC_DECL, t);
    CHECK(s);
    CHECK(s->a = parse_function(p, is_async, 1));
    return s;
}

/* if_stmt -> 'if' '(' expr ')' statement ['else' statement] */
static sluice_js_node *parse_if(parser *p)
{
    const sluice_js_tok *t = next(p);
    sluice_js_node *s = node(p, SLUICE_JS_IF, t);
    CHECK(s);
    CHECK(expect(p, "("));
    CHECK(s->a = parse_expr(p));
    CHECK(expect(p, ")"));
    if (enter(p) != 0)
        return NULL;
    CHECK(s->b = parse_statement(p));
    if (at(p, "else")) {
        next(p);
        CHECK(s->c = parse_statement(p));
    }
    leave(p);
    return s;
}

/* while_stmt -> 'while' '(' expr ')' statement | 'do' statement 'while' '(' expr ')' [';'] */
static sluice_js_node *parse_while(parser *p)
{
    int is_do = at(p, "do");
    const sluice_js_tok *t = next(p);
    sluice_js_node *s = node(p, is_do ? SLUICE_JS_DO_WHILE : SLUICE_JS_WHILE, t);
    CHECK(s);
    if (!is_do) {
        CHECK(expect(p, "("));
        CHECK(s->a = parse_expr(p));
        CHECK(expect(p, ")"));
        return loop_body(p, s);
    }
    CHECK(loop_body(p, s));
    CHECK(expect(p, "while"));
    CHECK(expect(p, "("));
    CHECK(s->a = parse_expr(p));
    CHECK(expect(p, ")"));
    if (at(p, ";"))
        next(p);
    return s;
}

/* jump_stmt -> ('break' | 'continue') [label] ';'   (the label on the same line) */
static sluice_js_node *parse_jump(parser *p)
{
    int is_break = at(p, "break");
    const sluice_js_tok *t = next(p);
    sluice_js_node *s = node(p, is_break ? SLUICE_JS_BREAK : SLUICE_JS_CONTINUE, t);
    CHECK(s);
    const sluice_js_tok *l = peek(p);
    if (l->kind == SLUICE_JS_T_IDENT && !l->newline_before && !is_reserved(l)) {
        const label_scope *ls = p->labels;
        while (ls != NULL && !sluice_js_str_eq(ls->name, l->str))
            ls = ls->up;
        char *msg = NULL;
        if (ls == NULL)
            msg = sluice_arena_printf(p->arena, "undefined label '%.*s' at line %u, column %u",
                                      (int)l->len, l->text, l->line, l->column);
        else if (!is_break && !ls->loop)
            msg = sluice_arena_printf(p->arena,
                                      "'continue %.*s' at line %u: the label does not name a loop",
                                      (int)l->len, l->text, l->line);
        if (ls == NULL || (!is_break && !ls->loop))
            return failv(p, l, "syntax_error", NULL, msg != NULL ? msg : "undefined label");
        s->str = l->str;
        next(p);
    } else if (is_break ? p->in_loop == 0 : p->in_iteration == 0) {
        return failv(p, t, "syntax_error", NULL,
                     is_break ? "'break' outside a loop or switch" : "'continue' outside a loop");
    }
    return simple_stmt(p, s);
}

/* labeled -> name ':' statement   (continue may name it only when the statement is a loop) */
static sluice_js_node *parse_labeled(parser *p)
{
    const sluice_js_tok *t = next(p);
    next(p); /* : */
    for (const label_scope *ls = p->labels; ls != NULL; ls = ls->up)
        if (sluice_js_str_eq(ls->name, t->str)) {
            char *msg = sluice_arena_printf(p->arena, "label '%.*s' at line %u is already declared",
                                            (int)t->len, t->text, t->line);
            return failv(p, t, "syntax_error", NULL, msg != NULL ? msg : "duplicate label");
        }
    size_t k = p->i; /* a: b: for (...): both name the loop */
    while (p->t[k].kind == SLUICE_JS_T_IDENT && k + 1 < p->n && sluice_js_tok_is(&p->t[k + 1], ":"))
        k += 2;
    const sluice_js_tok *body = &p->t[k < p->n ? k : p->n - 1];
    label_scope ls = { t->str,
                       sluice_js_tok_is(body, "for") || sluice_js_tok_is(body, "while") ||
                           sluice_js_tok_is(body, "do"),
                       p->labels };
    sluice_js_node *s = node(p, SLUICE_JS_LABELED, t);
    CHECK(s);
    s->str = t->str;
    p->labels = &ls;
    if (enter(p) == 0) {
        s->a = parse_statement(p);
        leave(p);
    }
    p->labels = ls.up;
    return s->a != NULL ? s : NULL;
}

/* statement -> block | ';' | var_decl | func_decl | 'return' [expr] | if_stmt | for_stmt
 *            | while_stmt | jump_stmt | 'throw' expr | try_stmt | switch_stmt | expr ';' */
static sluice_js_node *parse_statement(parser *p)
{
    const sluice_js_tok *t = peek(p);
    sluice_js_node *s;
    if (at(p, "{"))
        return parse_block(p);
    if (at(p, ";")) {
        next(p);
        return node(p, SLUICE_JS_EMPTY, t);
    }
    if (at(p, "const") || (at(p, "let") && (peek_at(p, 1)->kind == SLUICE_JS_T_IDENT ||
                                            sluice_js_tok_is(peek_at(p, 1), "[") ||
                                            sluice_js_tok_is(peek_at(p, 1), "{"))))
        return simple_stmt(p, parse_var(p, 0));
    if (at(p, "var"))
        return refuse(p, t, "'var'", "declare the variable with let or const");
    if (at(p, "function") || (at(p, "async") && sluice_js_tok_is(peek_at(p, 1), "function") &&
                              !peek_at(p, 1)->newline_before))
        return parse_func_decl(p);
    if (at(p, "return")) {
        next(p);
        s = node(p, SLUICE_JS_RETURN, t);
        CHECK(s);
        const sluice_js_tok *n = peek(p);
        if (!at(p, ";") && !at(p, "}") && n->kind != SLUICE_JS_T_EOF && !n->newline_before)
            CHECK(s->a = parse_expr(p));
        return simple_stmt(p, s);
    }
    if (at(p, "if"))
        return parse_if(p);
    if (at(p, "for"))
        return parse_for(p);
    if (at(p, "while") || at(p, "do"))
        return parse_while(p);
    if (at(p, "break") || at(p, "continue"))
        return parse_jump(p);
    if (at(p, "throw")) {
        next(p);
        if (peek(p)->newline_before)
            return expected(p, "a value on the same line as 'throw'");
        s = node(p, SLUICE_JS_THROW, t);
        CHECK(s);
        CHECK(s->a = parse_expr(p));
        return simple_stmt(p, s);
    }
    if (at(p, "try"))
        return parse_try(p);
    if (at(p, "switch"))
        return parse_switch(p);
    if (at(p, "with"))
        return refuse(p, t, "'with'", NULL);
    if (at(p, "debugger"))
        return refuse(p, t, "'debugger'", NULL);
    if (at(p, "class"))
        return refuse(p, t, "a class", "use plain objects and functions");
    if (at(p, "import") || at(p, "export"))
        return refuse(p, t, at(p, "import") ? "'import'" : "'export'",
                      "a plan is one script; it cannot load or export modules");
    if (t->kind == SLUICE_JS_T_IDENT && sluice_js_tok_is(peek_at(p, 1), ":") && !is_reserved(t))
        return parse_labeled(p);
    s = node(p, SLUICE_JS_EXPR_STMT, t);
    CHECK(s);
    CHECK(s->a = parse_expr(p));
    return simple_stmt(p, s);
}

sluice_status sluice_js_parse(
    sluice_arena *arena, const char *code, size_t len, sluice_js_program *out, sluice_error *err)
{
    memset(out, 0, sizeof *out);
    sluice_status st = sluice_js_lex(arena, code, len, &out->tokens, err);
    if (st != SLUICE_OK) {
        if (err->key == NULL)
            err->key = st == SLUICE_E_LIMIT ? "js_limit" : "syntax_error";
        return st;
    }
    parser p = { .arena = arena,
                 .src = code,
                 .src_len = len,
                 .t = out->tokens.toks,
                 .n = out->tokens.count,
                 .err = err,
                 .in_function = 1 };
    sluice_js_node *root = node(&p, SLUICE_JS_PROGRAM, peek(&p));
    nlist body = { 0 };
    while (root != NULL && peek(&p)->kind != SLUICE_JS_T_EOF) {
        sluice_js_node *s = parse_statement(&p);
        if (s == NULL || nl_push(&p, &body, s) != 0)
            break;
    }
    refuse_literal_holes(&p);
    if (p.st != SLUICE_OK || root == NULL)
        return p.st != SLUICE_OK ? p.st : SLUICE_E_NOMEM;
    nl_set(root, &body);
    out->root = root;
    out->node_count = p.nodes;
    out->max_depth = p.max_depth;
    return SLUICE_OK;
}
