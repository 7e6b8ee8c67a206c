/*
 * analyze.c — the static analysis of a JavaScript plan (see js.h): call sites, actions, the
 * upstream-call bound, loops, depth, output fields, and the rules that refuse a plan.
 *
 * Owns: the walk over the syntax tree and what it concludes.
 * Does not own: parsing (syntax/js/parse.c), the canonical hash and the vtable (frontend.c).
 *
 * The call bound: a call site contributes how often it can run — 1 in straight-line code, N
 * inside a callback of .map/.forEach/.flatMap/.filter/... over a value known to hold at most N
 * items (`.slice(0, N)`, an array literal, a const bound to one of those), B - A inside
 * `for (let i = A; i < B; i++)`, and unknown inside while loops and functions called by name.
 * Unknown is not refused: the run enforces max_api_calls on every call.
 */
#include "config/suggest.h"
#include "core/buf.h"
#include "facts/class_policy.h"
#include "lang/js/js.h"
#include "lang/js/mcp_calls.h"
#include "lang/js/ops.h"
#include "syntax/js/parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_SIZED 128

typedef struct walker {
    sluice_codefacts *f;
    sluice_js_facts *x;
    sluice_arena *arena;
    const sluice_config_code_mode *cfg;
    const sluice_js_ops *ops; /* the OpenAPI backend's operations; NULL: none known */
    const json_t *mcp;        /* the downstream servers' catalog (exec/mcp_plan.h), NULL: none */
    sluice_buf why;           /* the bound's terms, "1 + 10 from ... " */
    int64_t bound;            /* -1 once unknown */
    struct {
        const sluice_js_str *name;
        int64_t n;
        uint32_t line;
        const char *origin;
    } sized[MAX_SIZED];
    size_t nsized;
    int in_catch;
} walker;

typedef struct mult {
    int64_t n;       /* how often the code runs; -1 unknown */
    const char *why; /* NULL for 1 */
} mult;

static char *u8(walker *w, const sluice_js_str *s)
{
    char *r = sluice_js_str_utf8(w->arena, s);
    if (r == NULL)
        w->f->incomplete = true;
    return r != NULL ? r : "";
}

static int is_ident(const sluice_js_node *n, const char *name)
{
    return n != NULL && n->kind == SLUICE_JS_IDENT && sluice_js_str_eq_ascii(n->str, name);
}

static int is_member_named(const sluice_js_node *n, const char *name)
{
    return n != NULL && n->kind == SLUICE_JS_MEMBER && !(n->flags & SLUICE_JS_F_COMPUTED) &&
           sluice_js_str_eq_ascii(n->b->str, name);
}

static int literal_int(const sluice_js_node *n, int64_t *out)
{
    if (n == NULL || n->kind != SLUICE_JS_NUM || n->num < 0 || n->num > 1e9 ||
        n->num != floor(n->num))
        return 0;
    *out = (int64_t)n->num;
    return 1;
}

/* At most how many items expr holds, or -1; *line and *origin say where the bound was set. */
static int64_t size_of(walker *w, const sluice_js_node *e, uint32_t *line, const char **origin)
{
    if (e == NULL)
        return -1;
    if (e->kind == SLUICE_JS_CHAIN)
        return size_of(w, e->a, line, origin);
    if (e->kind == SLUICE_JS_ARRAY) {
        for (size_t i = 0; i < e->n; i++)
            if (e->list[i]->kind == SLUICE_JS_SPREAD)
                return -1;
        *line = e->line;
        *origin = "an array literal";
        return (int64_t)e->n;
    }
    if (e->kind == SLUICE_JS_IDENT) {
        for (size_t i = w->nsized; i > 0; i--)
            if (sluice_js_str_eq(w->sized[i - 1].name, e->str)) {
                *line = w->sized[i - 1].line;
                *origin = w->sized[i - 1].origin;
                return w->sized[i - 1].n;
            }
        return -1;
    }
    if (e->kind != SLUICE_JS_CALL || e->a->kind != SLUICE_JS_MEMBER)
        return -1;
    const sluice_js_node *callee = e->a;
    int64_t a, b;
    if (is_member_named(callee, "slice") && e->n == 2 && literal_int(e->list[0], &a) &&
        literal_int(e->list[1], &b)) {
        *line = e->line;
        *origin = sluice_arena_printf(w->arena, ".slice(%lld, %lld)", (long long)a, (long long)b);
        return b > a ? b - a : 0;
    }
    /* these never grow their receiver */
    static const char *const keep[] = { "filter", "sort", "map", "slice", "reverse" };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (is_member_named(callee, keep[i]))
            return size_of(w, callee->a, line, origin);
    return -1;
}

static void add_term(walker *w, mult m)
{
    if (w->bound < 0)
        return;
    if (m.n < 0) {
        w->bound = -1;
        return;
    }
    w->bound += m.n;
    if (w->why.len > 0)
        sluice_buf_puts(&w->why, " + ");
    if (m.why == NULL)
        sluice_buf_printf(&w->why, "%lld", (long long)m.n);
    else
        sluice_buf_printf(&w->why, "%lld from %s", (long long)m.n, m.why);
}

/* Appends the path template n spells to b: a string literal, a template literal (each ${...} a
 * "{}" segment) or a + of such (constant-folded: "/users/" + "u12" is the literal
 * "/users/u12"; a string on either side makes + a concatenation). false when any part is
 * computed. */
static bool append_path(walker *w, sluice_buf *b, const sluice_js_node *p)
{
    if (p->kind == SLUICE_JS_STR) {
        sluice_buf_puts(b, u8(w, p->str));
        return true;
    }
    if (p->kind == SLUICE_JS_TEMPLATE) {
        for (size_t i = 0; i < p->n; i++)
            sluice_buf_puts(b, i % 2 == 0 ? u8(w, p->list[i]->str) : "{}");
        return true;
    }
    return p->kind == SLUICE_JS_BINARY && p->op == SLUICE_JS_OP_ADD && append_path(w, b, p->a) &&
           append_path(w, b, p->b);
}

/* The path template of a call's first argument: "/users/{}" for `/users/${id}`. NULL (and a
 * violation) when it is computed. */
static const char *path_template(walker *w, const sluice_js_node *call, const char *what)
{
    const sluice_js_node *p = call->n > 0 ? call->list[0] : NULL;
    sluice_buf b;
    sluice_buf_init(&b, w->arena, 4096);
    if (p != NULL && append_path(w, &b, p)) {
        if (sluice_buf_status(&b) != SLUICE_OK)
            w->f->incomplete = true;
        return sluice_buf_cstr(&b);
    }
    sluice_codefacts_violate(w->f, "js_dynamic_path", call->line, call->column,
                             "write the path as a string or a template literal: "
                             "api.get(`/users/${id}`)",
                             "the path of %s at line %u is computed; it must be a string or a "
                             "template literal so the operation is known before the plan runs",
                             what, call->line);
    return NULL;
}

static void check_path(walker *w, const sluice_js_node *call, const char *path)
{
    if (path[0] != '/')
        sluice_codefacts_violate(w->f, "js_path", call->line, call->column,
                                 "start the path with '/': the base URL is the server's",
                                 "the path '%s' at line %u does not start with '/'", path,
                                 call->line);
    else if (strstr(path, "..") != NULL || strchr(path, '\\') != NULL || strstr(path, "//") != NULL)
        sluice_codefacts_violate(w->f, "js_path", call->line, call->column, NULL,
                                 "the path '%s' at line %u leaves its template ('..', '\\\\' "
                                 "or '//')",
                                 path, call->line);
}

/* The class policy (facts/class_policy.h): modes, allowlists, blocked methods, operations and
 * paths. The message names the call by the code's own template, never by a run-time value. */
static void check_class(walker *w,
                        const sluice_js_node *call,
                        const char *method,
                        const char *path,
                        const char *op_id,
                        sluice_action act,
                        const char *op)
{
    sluice_class_call v = { .method = method, .path = path, .op_id = op_id, .action = act };
    sluice_class_refusal r;
    if (!sluice_class_policy_allows(w->arena, w->cfg, &v, &r))
        sluice_codefacts_violate(w->f, r.rule, call->line, call->column, r.hint, "%s at line %u %s",
                                 op, call->line, r.why);
}

/* What every API call site records once its operation is known (o) or not (no spec: the
 * method decides): the operation, the action, the reads and writes, the class policy. The path
 * form and the SDK form both end here, so one policy judges both. */
static void record_operation(walker *w,
                             const sluice_js_node *call,
                             const char *method,
                             const char *path,
                             const sluice_js_apiop *o)
{
    const char *op = o != NULL ? o->id : sluice_arena_printf(w->arena, "%s %s", method, path);
    if (op == NULL) {
        w->f->incomplete = true;
        return;
    }
    sluice_action act = o != NULL                       ? o->action
                        : strcmp(method, "GET") == 0    ? SLUICE_ACTION_READ
                        : strcmp(method, "DELETE") == 0 ? SLUICE_ACTION_DELETE
                                                        : SLUICE_ACTION_WRITE;
    bool idempotent = o != NULL ? o->idempotent : act != SLUICE_ACTION_WRITE;
    if (act > w->f->action)
        w->f->action = act;
    sluice_codefacts_list_add(w->f, &w->f->operations, op);
    sluice_codefacts_list_add(
        w->f, act == SLUICE_ACTION_READ ? &w->f->resources_read : &w->f->resources_written, path);
    if (act == SLUICE_ACTION_READ)
        w->x->read_calls++;
    else if (act == SLUICE_ACTION_WRITE)
        w->x->write_calls++;
    else
        w->x->delete_calls++;
    if (act != SLUICE_ACTION_READ && !idempotent && w->in_catch)
        w->x->retries_write = true;
    check_class(w, call, method, path, o != NULL ? o->id : NULL, act,
                o != NULL ? op : sluice_arena_printf(w->arena, "%s %s", method, path));
}

static void record_api_call(walker *w, const sluice_js_node *call, const char *verb, mult m)
{
    char what[32];
    snprintf(what, sizeof what, "api.%s", verb);
    const char *path = path_template(w, call, what);
    add_term(w, m);
    w->f->call_count++;
    if (path == NULL)
        return;
    check_path(w, call, path);
    char method[8];
    size_t i = 0;
    for (; verb[i] != '\0' && i + 1 < sizeof method; i++)
        method[i] = (char)(verb[i] - 'a' + 'A');
    method[i] = '\0';
    const sluice_js_apiop *o = NULL;
    if (w->ops != NULL) {
        /* the spec decides: an operation id, its category; a path it does not declare is no
         * operation at all */
        o = sluice_js_ops_match(w->ops, method, path);
        if (o == NULL) {
            sluice_codefacts_violate(w->f, "openapi_operation", call->line, call->column,
                                     "call one of the operations in code-mode://schema",
                                     "%s %s at line %u matches no operation of the API", method,
                                     path, call->line);
            return;
        }
        sluice_js_ops_check_call(w->arena, w->f, o, path, call);
    }
    record_operation(w, call, method, path, o);
}

/* "did you mean 'x'?" among list, or NULL. */
static const char *nearest(walker *w, const char *word, const sluice_strlist *list)
{
    sluice_suggest near;
    sluice_suggest_init(&near, word);
    for (size_t i = 0; i < list->count; i++)
        sluice_suggest_consider(&near, list->items[i]);
    const char *best = sluice_suggest_best(&near);
    return best != NULL ? sluice_arena_printf(w->arena, "did you mean '%s'?", best) : NULL;
}

/* pmcp's SDK form, api.<operationId>(args) (sdk_operations): the operation by its id, its
 * request composed into the path form's template (lang/js/ops.h), then recorded and judged as
 * that path would be. A name the route does not list is refused, never guessed. */
static void record_sdk_call(walker *w, const sluice_js_node *call, const char *name, mult m)
{
    add_term(w, m);
    w->f->call_count++;
    const sluice_strlist *listed = &w->cfg->sdk_operations;
    if (!sluice_strlist_contains(listed, name)) {
        const char *hint = nearest(w, name, listed);
        sluice_codefacts_violate(
            w->f, "sdk_operations", call->line, call->column,
            hint != NULL ? hint : "call one of the operations in code-mode://schema",
            "api.%s at line %u is not one of this server's sdk_operations%s%s", name, call->line,
            hint != NULL ? "; " : "", hint != NULL ? hint : "");
        return;
    }
    /* no spec to resolve it against: nothing can be composed, so nothing is allowed */
    const sluice_js_apiop *o = w->ops != NULL ? sluice_js_ops_find(w->ops, name) : NULL;
    if (o == NULL) {
        sluice_codefacts_violate(w->f, "openapi_operation", call->line, call->column,
                                 "call one of the operations in code-mode://schema",
                                 "api.%s at line %u is no operation of the API", name, call->line);
        return;
    }
    const char *path = sluice_js_ops_sdk_template(w->arena, w->f, o, call);
    if (path != NULL)
        record_operation(w, call, o->method, path, o);
}

static void record_mcp_call(walker *w, const sluice_js_node *call, mult m)
{
    add_term(w, m);
    w->f->call_count++;
    const sluice_js_node *srv = call->n > 0 ? call->list[0] : NULL;
    const sluice_js_node *tool = call->n > 1 ? call->list[1] : NULL;
    if (srv == NULL || tool == NULL || srv->kind != SLUICE_JS_STR || tool->kind != SLUICE_JS_STR) {
        sluice_codefacts_violate(w->f, "js_dynamic_path", call->line, call->column,
                                 "write mcp.call(\"server\", \"tool\", {...})",
                                 "mcp.call at line %u must name its server and tool with string "
                                 "literals",
                                 call->line);
        return;
    }
    sluice_js_check_mcp_call(w->f, w->x, w->cfg, w->mcp, call, u8(w, srv->str), u8(w, tool->str),
                             w->in_catch > 0);
}

static void walk(walker *w, const sluice_js_node *n, mult m, size_t depth);

/* outer times n; desc says where n comes from (NULL when n is unknown). */
static mult times(walker *w, mult outer, int64_t n, const char *desc)
{
    mult r = { -1, NULL };
    if (outer.n < 0 || n < 0)
        return r;
    r.n = outer.n * n;
    r.why =
        outer.why == NULL ? desc : sluice_arena_printf(w->arena, "%s within %s", desc, outer.why);
    return r;
}

static void walk_list(walker *w, sluice_js_node *const *list, size_t count, mult m, size_t depth)
{
    for (size_t i = 0; i < count; i++)
        walk(w, list[i], m, depth);
}

static const char *const iterating[] = { "map",   "forEach", "flatMap",   "filter", "some",
                                         "every", "find",    "findIndex", "reduce" };

/* A call: api/mcp call sites, callbacks multiplied by their receiver's size. */
static void walk_call(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    const sluice_js_node *callee = n->a;
    if (callee->kind == SLUICE_JS_MEMBER && !(callee->flags & SLUICE_JS_F_COMPUTED) &&
        is_ident(callee->a, "api")) {
        static const char *const verbs[] = { "get", "post", "put", "patch", "delete" };
        const char *verb = NULL;
        for (size_t i = 0; i < 5; i++)
            if (sluice_js_str_eq_ascii(callee->b->str, verbs[i]))
                verb = verbs[i];
        bool sdk = w->cfg != NULL && w->cfg->sdk_operations.count > 0;
        if (sdk && verb != NULL) /* pmcp: SDK mode replaces the path form */
            sluice_codefacts_violate(w->f, "sdk_operations", n->line, n->column,
                                     "call an operation by its id: api.<operationId>(args), as "
                                     "code-mode://schema lists them",
                                     "api.%s at line %u: this server's plans call operations by "
                                     "name (sdk_operations), not by path",
                                     verb, n->line);
        else if (sdk)
            record_sdk_call(w, n, u8(w, callee->b->str), m);
        else if (verb == NULL)
            sluice_codefacts_violate(w->f, "js_api_method", n->line, n->column,
                                     "use api.get, api.post, api.put, api.patch or api.delete",
                                     "api.%s at line %u is not an API method",
                                     u8(w, callee->b->str), n->line);
        else
            record_api_call(w, n, verb, m);
        walk_list(w, n->list, n->n, m, depth);
        return;
    }
    if (is_member_named(callee, "call") && is_ident(callee->a, "mcp")) {
        record_mcp_call(w, n, m);
        walk_list(w, n->list, n->n, m, depth);
        return;
    }
    if (callee->kind == SLUICE_JS_MEMBER && !(callee->flags & SLUICE_JS_F_COMPUTED)) {
        for (size_t i = 0; i < sizeof iterating / sizeof iterating[0]; i++) {
            if (!sluice_js_str_eq_ascii(callee->b->str, iterating[i]) || n->n == 0 ||
                n->list[0]->kind != SLUICE_JS_FUNC)
                continue;
            walk(w, callee->a, m, depth);
            uint32_t line = n->line;
            const char *origin = "";
            int64_t size = size_of(w, callee->a, &line, &origin);
            const char *desc = sluice_arena_printf(w->arena, "%s at line %u, .%s at line %u",
                                                   origin, line, iterating[i], n->line);
            mult inner = times(w, m, size, desc);
            const sluice_js_node *fn = n->list[0];
            walk_list(w, fn->list, fn->n, inner, depth + 1);
            walk(w, fn->a, inner, depth + 1);
            walk_list(w, n->list + 1, n->n - 1, m, depth);
            return;
        }
    }
    walk(w, callee, m, depth);
    walk_list(w, n->list, n->n, m, depth);
}

static void walk_for(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    w->f->loop_count++;
    int64_t a, b;
    int64_t count = -1;
    const sluice_js_node *init = n->a, *test = n->b;
    if (init != NULL && init->kind == SLUICE_JS_VAR && init->n == 1 &&
        init->list[0]->a->kind == SLUICE_JS_IDENT && literal_int(init->list[0]->b, &a) &&
        test != NULL && test->kind == SLUICE_JS_BINARY &&
        (test->op == SLUICE_JS_OP_LT || test->op == SLUICE_JS_OP_LE) &&
        test->a->kind == SLUICE_JS_IDENT && sluice_js_str_eq(test->a->str, init->list[0]->a->str) &&
        literal_int(test->b, &b) && n->c != NULL && n->c->kind == SLUICE_JS_UPDATE &&
        n->c->op == SLUICE_JS_OP_INC)
        count = (b > a ? b - a : 0) + (test->op == SLUICE_JS_OP_LE && b >= a ? 1 : 0);
    if (count < 0)
        w->x->has_unbounded_loop = true;
    walk(w, n->a, m, depth);
    walk(w, n->b, m, depth);
    walk(w, n->c, m, depth);
    walk(w, n->d,
         times(w, m, count,
               sluice_arena_printf(w->arena, "a loop of %lld iterations at line %u",
                                   (long long)count, n->line)),
         depth + 1);
}

static void walk_for_of(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    w->f->loop_count++;
    uint32_t line = n->line;
    const char *origin = "";
    int64_t size = n->kind == SLUICE_JS_FOR_OF ? size_of(w, n->b, &line, &origin) : -1;
    if (size < 0)
        w->x->has_unbounded_loop = true;
    walk(w, n->b, m, depth);
    walk(w, n->d,
         times(w, m, size,
               sluice_arena_printf(w->arena, "%s at line %u, for...of at line %u", origin, line,
                                   n->line)),
         depth + 1);
}

static void check_reserved_binding(walker *w, const sluice_js_node *pat)
{
    if (pat == NULL)
        return;
    if (pat->kind == SLUICE_JS_IDENT) {
        static const char *const names[] = { "api",  "mcp",  "args",   "console", "Promise",
                                             "JSON", "Math", "Object", "Array",   "undefined" };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (sluice_js_str_eq_ascii(pat->str, names[i]))
                sluice_codefacts_violate(
                    w->f, "js_refused", pat->line, pat->column, "pick another name",
                    "'%s' at line %u would shadow a built-in of the plan", names[i], pat->line);
        return;
    }
    check_reserved_binding(w, pat->a);
    if (pat->kind == SLUICE_JS_OBJECT_PAT)
        for (size_t i = 0; i < pat->n; i++)
            check_reserved_binding(w, pat->list[i]->kind == SLUICE_JS_REST ? pat->list[i]
                                                                           : pat->list[i]->b);
    if (pat->kind == SLUICE_JS_ARRAY_PAT)
        for (size_t i = 0; i < pat->n; i++)
            check_reserved_binding(w, pat->list[i]);
}

static void walk_var(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    for (size_t i = 0; i < n->n; i++) {
        const sluice_js_node *d = n->list[i];
        check_reserved_binding(w, d->a);
        walk(w, d->b, m, depth);
        uint32_t line = d->line;
        const char *origin = "";
        int64_t size = (n->flags & SLUICE_JS_F_CONST) && d->a->kind == SLUICE_JS_IDENT
                           ? size_of(w, d->b, &line, &origin)
                           : -1;
        if (size >= 0 && w->nsized < MAX_SIZED) {
            w->sized[w->nsized].name = d->a->str;
            w->sized[w->nsized].n = size;
            w->sized[w->nsized].line = line;
            w->sized[w->nsized].origin = origin;
            w->nsized++;
        }
    }
}

/* while / do-while: the count of turns is unknown, so everything inside is too. */
static void walk_while(walker *w, const sluice_js_node *n, size_t depth)
{
    mult unknown = { -1, NULL };
    w->f->loop_count++;
    w->x->has_unbounded_loop = true;
    walk(w, n->a, unknown, depth);
    walk(w, n->d, unknown, depth + 1);
}

static void walk_try(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    walk(w, n->a, m, depth + 1);
    w->in_catch++;
    walk(w, n->c, m, depth + 1);
    w->in_catch--;
    walk(w, n->d, m, depth + 1);
}

/* `api` or `mcp` (or one of their methods) used as a value: refused, since a call the analyzer
 * cannot see by name could not be counted or checked. */
static void refuse_capability_value(walker *w, const sluice_js_node *n)
{
    if (n->kind == SLUICE_JS_IDENT)
        sluice_codefacts_violate(w->f, "js_refused", n->line, n->column,
                                 "call it directly: api.get(\"/path\")",
                                 "'%s' at line %u is used as a value; plans may only call "
                                 "its methods directly",
                                 sluice_js_str_eq_ascii(n->str, "api") ? "api" : "mcp", n->line);
    else
        sluice_codefacts_violate(w->f, "js_refused", n->line, n->column,
                                 "call it directly: api.get(\"/path\")",
                                 "api/mcp methods at line %u may only be called directly, "
                                 "not passed around",
                                 n->line);
}

static void walk(walker *w, const sluice_js_node *n, mult m, size_t depth)
{
    if (n == NULL || w->f->incomplete)
        return;
    if (depth > w->f->depth)
        w->f->depth = depth;
    mult unknown = { -1, NULL };
    switch (n->kind) {
    case SLUICE_JS_CALL:
        walk_call(w, n, m, depth);
        return;
    case SLUICE_JS_VAR:
        walk_var(w, n, m, depth);
        return;
    case SLUICE_JS_FOR:
        walk_for(w, n, m, depth);
        return;
    case SLUICE_JS_FOR_OF:
    case SLUICE_JS_FOR_IN:
        walk_for_of(w, n, m, depth);
        return;
    case SLUICE_JS_WHILE:
    case SLUICE_JS_DO_WHILE:
        walk_while(w, n, depth);
        return;
    case SLUICE_JS_FUNC:
        /* a function value called by name may run any number of times */
        walk_list(w, n->list, n->n, unknown, depth + 1);
        walk(w, n->a, unknown, depth + 1);
        return;
    case SLUICE_JS_FUNC_DECL:
        walk(w, n->a, m, depth);
        return;
    case SLUICE_JS_TRY:
        walk_try(w, n, m, depth);
        return;
    case SLUICE_JS_IDENT:
        if (is_ident(n, "api") || is_ident(n, "mcp"))
            refuse_capability_value(w, n);
        return;
    case SLUICE_JS_MEMBER:
        if (is_ident(n->a, "api") || is_ident(n->a, "mcp")) {
            refuse_capability_value(w, n);
            return;
        }
        walk(w, n->a, m, depth);
        if (n->flags & SLUICE_JS_F_COMPUTED)
            walk(w, n->b, m, depth);
        return;
    case SLUICE_JS_PROPERTY:
        if (n->flags & SLUICE_JS_F_COMPUTED)
            walk(w, n->a, m, depth);
        walk(w, n->b, m, depth);
        return;
    case SLUICE_JS_BLOCK:
    case SLUICE_JS_PROGRAM:
        walk_list(w, n->list, n->n, m, depth + (n->kind == SLUICE_JS_BLOCK));
        return;
    default:
        walk(w, n->a, m, depth);
        walk(w, n->b, m, depth);
        walk(w, n->c, m, depth);
        walk(w, n->d, m, depth);
        walk_list(w, n->list, n->n, m, depth);
        return;
    }
}

/* Output fields: the keys of an object literal the plan returns, directly or from a .map. */
static void output_fields(walker *w, const sluice_js_node *ret)
{
    const sluice_js_node *e = ret;
    while (e != NULL && e->kind == SLUICE_JS_CALL && is_member_named(e->a, "map") && e->n > 0 &&
           e->list[0]->kind == SLUICE_JS_FUNC) {
        const sluice_js_node *fn = e->list[0];
        e = (fn->flags & SLUICE_JS_F_EXPR_BODY) ? fn->a : NULL;
    }
    if (e == NULL || e->kind != SLUICE_JS_OBJECT)
        return;
    for (size_t i = 0; i < e->n; i++) {
        const sluice_js_node *p = e->list[i];
        if (p->kind != SLUICE_JS_PROPERTY || (p->flags & SLUICE_JS_F_COMPUTED) ||
            p->a->kind != SLUICE_JS_STR)
            continue;
        sluice_codefacts_output *o;
        const char *name = u8(w, p->a->str);
        sluice_codefacts_add_output(w->f, name, "json", &o);
        const sluice_strlist *blocked[2] = { w->cfg != NULL ? &w->cfg->openapi_output_blocked_fields
                                                            : NULL,
                                             w->cfg != NULL ? &w->cfg->blocked_fields : NULL };
        for (size_t b = 0; b < 2; b++)
            for (size_t k = 0; blocked[b] != NULL && k < blocked[b]->count; k++)
                if (strcasecmp(blocked[b]->items[k], name) == 0)
                    sluice_codefacts_violate(
                        w->f, "openapi_output_blocked_fields", p->line, p->column,
                        "leave the field out of the result",
                        "the plan returns '%s' at line %u, a blocked output field", name, p->line);
    }
}

/* Whether the plan may read an output-blocked field's value: it names one (a property, a
 * destructured key, any string literal: `u.ssn`, `{ ssn }`, `u["SSN"]`), or reads fields it
 * does not name (Object.keys/values/entries/assign/fromEntries, JSON.stringify, object spread
 * and rest, for-in). Neither: its result is provably untainted by any value it could match on,
 * since the interpreter's === exception (exec/js/taint.c) holds only for such reads. Sets
 * x->blocked_read to the first reason. */
static void blocked_reads(walker *w, const sluice_js_node *n, const sluice_js_node *parent)
{
    if (n == NULL || w->x->blocked_read != NULL)
        return;
    static const char *const reflective[] = { "keys", "values", "entries", "assign",
                                              "fromEntries" };
    const char *why = NULL;
    if (n->kind == SLUICE_JS_STR) {
        const char *name = u8(w, n->str);
        const sluice_strlist *lists[2] = { w->cfg != NULL ? &w->cfg->openapi_output_blocked_fields
                                                          : NULL,
                                           w->cfg != NULL ? &w->cfg->blocked_fields : NULL };
        for (size_t b = 0; b < 2 && why == NULL; b++)
            for (size_t k = 0; lists[b] != NULL && k < lists[b]->count && why == NULL; k++)
                if (strcasecmp(lists[b]->items[k], name) == 0)
                    why = sluice_arena_printf(w->arena, "names the blocked field '%s' at line %u",
                                              lists[b]->items[k], n->line);
    } else if (n->kind == SLUICE_JS_CALL && n->a->kind == SLUICE_JS_MEMBER &&
               !(n->a->flags & SLUICE_JS_F_COMPUTED)) {
        for (size_t i = 0; i < sizeof reflective / sizeof reflective[0] && why == NULL; i++)
            if (is_ident(n->a->a, "Object") && is_member_named(n->a, reflective[i]))
                why = sluice_arena_printf(w->arena, "enumerates fields (Object.%s) at line %u",
                                          reflective[i], n->line);
        if (why == NULL && is_ident(n->a->a, "JSON") && is_member_named(n->a, "stringify"))
            why = sluice_arena_printf(w->arena, "serializes records (JSON.stringify) at line %u",
                                      n->line);
    } else if ((n->kind == SLUICE_JS_SPREAD && parent != NULL &&
                parent->kind == SLUICE_JS_OBJECT) ||
               (n->kind == SLUICE_JS_REST && parent != NULL &&
                parent->kind == SLUICE_JS_OBJECT_PAT)) {
        why = sluice_arena_printf(w->arena, "copies fields it does not name (...) at line %u",
                                  n->line);
    } else if (n->kind == SLUICE_JS_FOR_IN) {
        why = sluice_arena_printf(w->arena, "enumerates fields (for-in) at line %u", n->line);
    }
    if (why != NULL) {
        w->x->blocked_read = why;
        return;
    }
    const sluice_js_node *kids[4] = { n->a, n->b, n->c, n->d };
    for (size_t i = 0; i < 4; i++)
        blocked_reads(w, kids[i], n);
    for (size_t i = 0; i < n->n; i++)
        blocked_reads(w, n->list[i], n);
}

/* Whether a returned expression declares its shape (openapi_require_output_declaration): an
 * object literal whose keys are all written out (no spread, no computed key), the .map of an
 * array into one, or an array literal of them. Nothing returned is declared too. */
static bool declared_shape(const sluice_js_node *e)
{
    if (e == NULL)
        return true;
    if (e->kind == SLUICE_JS_CALL && is_member_named(e->a, "map") && e->n > 0 &&
        e->list[0]->kind == SLUICE_JS_FUNC)
        return (e->list[0]->flags & SLUICE_JS_F_EXPR_BODY) && e->list[0]->a != NULL &&
               e->list[0]->a->kind == SLUICE_JS_OBJECT && declared_shape(e->list[0]->a);
    if (e->kind == SLUICE_JS_ARRAY) {
        for (size_t i = 0; i < e->n; i++)
            if (e->list[i] == NULL || e->list[i]->kind != SLUICE_JS_OBJECT ||
                !declared_shape(e->list[i]))
                return false;
        return true;
    }
    if (e->kind != SLUICE_JS_OBJECT)
        return false;
    for (size_t i = 0; i < e->n; i++) {
        const sluice_js_node *p = e->list[i];
        if (p->kind != SLUICE_JS_PROPERTY || (p->flags & SLUICE_JS_F_COMPUTED) || p->a == NULL ||
            p->a->kind != SLUICE_JS_STR)
            return false;
    }
    return true;
}

static void find_returns(walker *w, const sluice_js_node *n)
{
    if (n == NULL || n->kind == SLUICE_JS_FUNC)
        return;
    if (n->kind == SLUICE_JS_RETURN) {
        output_fields(w, n->a);
        if (w->cfg != NULL && w->cfg->openapi_require_output_declaration && !declared_shape(n->a))
            sluice_codefacts_violate(
                w->f, "openapi_require_output_declaration", n->line, n->column,
                "return an object literal with named fields, e.g. return { total, rows: "
                "rows.map(r => ({ id: r.id, name: r.name })) }",
                "the result returned at line %u has no declared shape, and "
                "openapi_require_output_declaration = true",
                n->line);
        return;
    }
    find_returns(w, n->a);
    find_returns(w, n->b);
    find_returns(w, n->c);
    find_returns(w, n->d);
    if (n->kind == SLUICE_JS_BLOCK || n->kind == SLUICE_JS_PROGRAM || n->kind == SLUICE_JS_IF ||
        n->kind == SLUICE_JS_TRY)
        for (size_t i = 0; i < n->n; i++)
            find_returns(w, n->list[i]);
}

void sluice_js_analyze_program(sluice_codefacts *f,
                               sluice_js_facts *x,
                               const sluice_js_program *prog,
                               const sluice_config_code_mode *cfg,
                               const sluice_js_ops *ops,
                               const json_t *mcp_catalog);

void sluice_js_analyze_program(sluice_codefacts *f,
                               sluice_js_facts *x,
                               const sluice_js_program *prog,
                               const sluice_config_code_mode *cfg,
                               const sluice_js_ops *ops,
                               const json_t *mcp_catalog)
{
    walker *w = sluice_arena_calloc(f->arena, 1, sizeof *w);
    if (w == NULL) {
        f->incomplete = true;
        return;
    }
    w->f = f;
    w->x = x;
    w->arena = f->arena;
    w->cfg = cfg;
    w->ops = ops;
    w->mcp = mcp_catalog;
    sluice_buf_init(&w->why, f->arena, 4096);
    mult once = { 1, NULL };
    walk(w, prog->root, once, 0);
    find_returns(w, prog->root);
    blocked_reads(w, prog->root, NULL);
    x->call_bound = w->bound;
    x->bound_why = w->bound >= 0 ? (w->why.len > 0 ? sluice_buf_cstr(&w->why) : "no calls")
                                 : "unknown: a loop or a function call has no static bound";
    if (sluice_buf_status(&w->why) != SLUICE_OK)
        f->incomplete = true;
    if (w->bound >= 0) { /* the static bound is the estimate validate_code reports (issue 24) */
        f->estimated_cost = (double)w->bound;
        f->estimate_kind = SLUICE_ESTIMATE_CALL_BOUND;
    }
    int64_t max = cfg != NULL && cfg->max_api_calls > 0 ? cfg->max_api_calls : 50;
    if (w->bound > max)
        sluice_codefacts_violate(f, "max_api_calls", 0, 0,
                                 "raise max_api_calls, or make fewer calls (a smaller .slice)",
                                 "the plan may make %lld upstream calls (%s) but max_api_calls = "
                                 "%lld",
                                 (long long)w->bound, x->bound_why, (long long)max);
    else if (w->bound < 0 && f->call_count > 0)
        sluice_codefacts_warn(f,
                              "the number of upstream calls has no static bound; the run stops "
                              "at max_api_calls = %lld",
                              (long long)max);
    if (x->retries_write)
        sluice_codefacts_warn(f, "a write call inside a catch block may repeat a write that "
                                 "reached the upstream");
}
