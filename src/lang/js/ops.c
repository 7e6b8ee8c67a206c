/*
 * ops.c — the operations of the OpenAPI backend a plan's call sites are resolved against, read
 * from the backend's normalized operations document (sluice_schema.document, written by
 * exec/openapi_decl.c:
 * {"operations":[{"id","method","path","action","idempotent","query","spanning"}]}).
 *
 * Owns: reading that document and matching a call site (method + a template whose "{}" are the
 * plan's ${...} holes) to one operation, by core/path_template.h's rule (the run time's too).
 * Does not own: the run-time match of the composed path (exec/openapi_match.c does it again).
 */
#include "lang/js/ops.h"

#include "config/suggest.h"
#include "core/buf.h"
#include "core/path_template.h"
#include "syntax/js/parse.h"

#include <string.h>

static sluice_action action_of(const char *s)
{
    if (s != NULL && strcmp(s, "read") == 0)
        return SLUICE_ACTION_READ;
    if (s != NULL && strcmp(s, "delete") == 0)
        return SLUICE_ACTION_DELETE;
    if (s != NULL && strcmp(s, "write") == 0)
        return SLUICE_ACTION_WRITE;
    return SLUICE_ACTION_ADMIN; /* unknown: the most severe */
}

sluice_status
sluice_js_ops_read(sluice_arena *arena, const char *document, size_t len, sluice_js_ops *out)
{
    memset(out, 0, sizeof *out);
    json_t *doc = json_loadb(document, len, 0, NULL);
    const json_t *ops = json_object_get(doc, "operations");
    if (!json_is_array(ops)) {
        json_decref(doc);
        return SLUICE_E_INVALID;
    }
    out->ops = sluice_arena_calloc(arena, json_array_size(ops) + 1, sizeof *out->ops);
    for (size_t i = 0; out->ops != NULL && i < json_array_size(ops); i++) {
        const json_t *o = json_array_get(ops, i);
        sluice_js_apiop *op = &out->ops[out->count++];
        op->id = sluice_arena_strdup(arena, json_string_value(json_object_get(o, "id")));
        op->method = sluice_arena_strdup(arena, json_string_value(json_object_get(o, "method")));
        op->path = sluice_arena_strdup(arena, json_string_value(json_object_get(o, "path")));
        op->action = action_of(json_string_value(json_object_get(o, "action")));
        op->idempotent = json_is_true(json_object_get(o, "idempotent"));
        op->spanning = (uint64_t)json_integer_value(json_object_get(o, "spanning"));
        const json_t *query = json_object_get(o, "query");
        op->query = sluice_arena_calloc(arena, json_array_size(query) + 1, sizeof *op->query);
        for (size_t k = 0; op->query != NULL && k < json_array_size(query); k++) {
            op->query[k] = sluice_arena_strdup(arena, json_string_value(json_array_get(query, k)));
            if (op->query[op->query_count++] == NULL)
                op->query = NULL;
        }
        if (op->id == NULL || op->method == NULL || op->path == NULL || op->query == NULL)
            out->ops = NULL;
    }
    json_decref(doc);
    return out->ops != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

const sluice_js_apiop *
sluice_js_ops_match(const sluice_js_ops *ops, const char *method, const char *tmpl)
{
    const sluice_js_apiop *best = NULL;
    int best_taken = -1;
    for (size_t i = 0; i < ops->count && best_taken != 0; i++) {
        if (strcmp(ops->ops[i].method, method) != 0)
            continue;
        int taken =
            sluice_path_template_match(ops->ops[i].path, ops->ops[i].spanning, tmpl, true, NULL);
        if (taken >= 0 && (best_taken < 0 || taken < best_taken)) {
            best = &ops->ops[i];
            best_taken = taken;
        }
    }
    return best;
}

/* "'a', 'b' and 'c'" (at most 12, then "and N more") of op's query parameters, or NULL. */
static const char *query_names(sluice_arena *arena, const sluice_js_apiop *op)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t shown = op->query_count < 12 ? op->query_count : 12;
    for (size_t k = 0; k < shown; k++)
        sluice_buf_printf(&b, "%s'%s'",
                          k == 0                                       ? ""
                          : k + 1 == shown && shown == op->query_count ? " and "
                                                                       : ", ",
                          op->query[k]);
    if (shown < op->query_count)
        sluice_buf_printf(&b, " and %zu more", op->query_count - shown);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* Each literal segment tmpl gives a parameter of op obeys the rule the run applies to it. */
static void check_path(sluice_codefacts *f,
                       const sluice_js_apiop *op,
                       const char *tmpl,
                       const sluice_js_node *call)
{
    size_t at[SLUICE_PATH_MAX_SEGMENTS + 1];
    sluice_path_segment t[SLUICE_PATH_MAX_SEGMENTS], p[SLUICE_PATH_MAX_SEGMENTS];
    if (sluice_path_template_match(op->path, op->spanning, tmpl, true, at) < 0)
        return;
    size_t tn = sluice_path_split(op->path, t, SLUICE_PATH_MAX_SEGMENTS);
    sluice_path_split(tmpl, p, SLUICE_PATH_MAX_SEGMENTS);
    for (size_t i = 0; i < tn; i++) {
        if (!sluice_path_is_param(t[i].text, t[i].len))
            continue;
        for (size_t k = at[i]; k < at[i + 1]; k++) {
            const char *rule = memmem(p[k].text, p[k].len, "{}", 2) != NULL
                                   ? NULL /* a hole: its value is checked when the run has it */
                                   : sluice_path_value_rule(p[k].text, p[k].len);
            if (rule != NULL) {
                sluice_codefacts_violate(
                    f, "js_path", call->line, call->column, NULL,
                    "the path segment '%.*s' at line %u fills %.*s of %s, which the run refuses: "
                    "%s",
                    (int)p[k].len, p[k].text, call->line, (int)t[i].len, t[i].text, op->id, rule);
                return;
            }
        }
    }
}

void sluice_js_ops_check_call(sluice_arena *arena,
                              sluice_codefacts *f,
                              const sluice_js_apiop *op,
                              const char *tmpl,
                              const sluice_js_node *call)
{
    check_path(f, op, tmpl, call);
    /* a method that sends a body takes its second argument as the body, not as the query */
    if (sluice_openapi_method_sends_body(op->method))
        return;
    const sluice_js_node *q = call->n > 1 ? call->list[1] : NULL;
    for (size_t i = 0; q != NULL && q->kind == SLUICE_JS_OBJECT && i < q->n; i++) {
        const sluice_js_node *p = q->list[i];
        if (p->kind != SLUICE_JS_PROPERTY || (p->flags & SLUICE_JS_F_COMPUTED) ||
            p->a->kind != SLUICE_JS_STR)
            continue; /* a computed key: the run checks it against the same list */
        const char *key = sluice_js_str_utf8(arena, p->a->str);
        if (key == NULL) {
            f->incomplete = true;
            return;
        }
        sluice_suggest near;
        sluice_suggest_init(&near, key);
        bool known = false;
        for (size_t k = 0; k < op->query_count && !known; k++) {
            known = strcmp(op->query[k], key) == 0;
            sluice_suggest_consider(&near, op->query[k]);
        }
        if (known)
            continue;
        const char *best = sluice_suggest_best(&near);
        const char *names = best == NULL ? query_names(arena, op) : NULL;
        const char *hint = best != NULL ? sluice_arena_printf(arena, "did you mean '%s'?", best)
                           : op->query_count == 0
                               ? sluice_arena_printf(arena, "%s takes no query parameters", op->id)
                               : sluice_arena_printf(arena, "its query parameters are %s",
                                                     names != NULL ? names : "(out of memory)");
        sluice_codefacts_violate(f, "openapi_query_parameter", p->line, p->column, hint,
                                 "'%s' at line %u is not a query parameter of %s%s%s", key, p->line,
                                 op->id, hint != NULL ? "; " : "", hint != NULL ? hint : "");
    }
}

const sluice_js_apiop *sluice_js_ops_find(const sluice_js_ops *ops, const char *id)
{
    for (size_t i = 0; ops != NULL && i < ops->count; i++)
        if (strcmp(ops->ops[i].id, id) == 0)
            return &ops->ops[i];
    return NULL;
}

/* Whether key names a {param} of op's path. */
static bool is_path_param(const sluice_js_apiop *op, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strchr(op->path, '{'); p != NULL; p = strchr(p + 1, '{'))
        if (strncmp(p + 1, key, n) == 0 && p[n + 1] == '}')
            return true;
    return false;
}

/* The literal text a property's value gives a path parameter: a string, or an integer as
 * String() writes it; NULL when the value is computed (a hole). */
static const char *literal_text(sluice_arena *arena, const sluice_js_node *v)
{
    if (v->kind == SLUICE_JS_STR)
        return sluice_js_str_utf8(arena, v->str);
    if (v->kind == SLUICE_JS_NUM && v->num == (double)(int64_t)v->num && v->num >= 0 &&
        v->num < 1e15)
        return sluice_arena_printf(arena, "%lld", (long long)v->num);
    return NULL;
}

/* Checks each literal key of the args object o against op's parameters. *exact: o is an object
 * literal whose keys are all written out (no spread, no computed key). */
static void check_sdk_keys(sluice_arena *arena,
                           sluice_codefacts *f,
                           const sluice_js_apiop *op,
                           const sluice_js_node *o,
                           bool *exact)
{
    *exact = o->kind == SLUICE_JS_OBJECT;
    for (size_t i = 0; o->kind == SLUICE_JS_OBJECT && i < o->n; i++) {
        const sluice_js_node *p = o->list[i];
        if (p->kind != SLUICE_JS_PROPERTY || (p->flags & SLUICE_JS_F_COMPUTED) ||
            p->a->kind != SLUICE_JS_STR) {
            *exact = false; /* a spread or computed key: the run checks what it holds */
            continue;
        }
        const char *key = sluice_js_str_utf8(arena, p->a->str);
        if (key == NULL) {
            f->incomplete = true;
            return;
        }
        bool body = sluice_openapi_method_sends_body(op->method);
        sluice_suggest near;
        sluice_suggest_init(&near, key);
        bool known = is_path_param(op, key) || (body && strcmp(key, "body") == 0);
        for (size_t k = 0; !body && k < op->query_count && !known; k++) {
            known = strcmp(op->query[k], key) == 0;
            sluice_suggest_consider(&near, op->query[k]);
        }
        if (known)
            continue;
        for (const char *t = strchr(op->path, '{'); t != NULL; t = strchr(t + 1, '{')) {
            const char *e = strchr(t, '}');
            const char *name =
                e != NULL ? sluice_arena_printf(arena, "%.*s", (int)(e - t - 1), t + 1) : NULL;
            if (name != NULL)
                sluice_suggest_consider(&near, name);
        }
        if (body)
            sluice_suggest_consider(&near, "body");
        const char *best = sluice_suggest_best(&near);
        const char *hint =
            best != NULL ? sluice_arena_printf(arena, "did you mean '%s'?", best)
                         : sluice_arena_printf(arena,
                                               "args holds %s's path%s parameters by name%s (see "
                                               "code-mode://schema)",
                                               op->id, body ? "" : " and query",
                                               body ? " and its request body as `body`" : "");
        sluice_codefacts_violate(f, "openapi_parameter", p->line, p->column, hint,
                                 "'%s' at line %u is not a parameter of %s%s%s", key, p->line,
                                 op->id, hint != NULL ? "; " : "", hint != NULL ? hint : "");
    }
}

/* The last property of object literal o named key (JavaScript keeps the last), or NULL. */
static const sluice_js_node *property(sluice_arena *arena, const sluice_js_node *o, const char *key)
{
    const sluice_js_node *found = NULL;
    for (size_t i = 0; o != NULL && o->kind == SLUICE_JS_OBJECT && i < o->n; i++) {
        const sluice_js_node *p = o->list[i];
        const char *k = p->kind == SLUICE_JS_PROPERTY && !(p->flags & SLUICE_JS_F_COMPUTED) &&
                                p->a->kind == SLUICE_JS_STR
                            ? sluice_js_str_utf8(arena, p->a->str)
                            : NULL;
        if (k != NULL && strcmp(k, key) == 0)
            found = p;
    }
    return found;
}

const char *sluice_js_ops_sdk_template(sluice_arena *arena,
                                       sluice_codefacts *f,
                                       const sluice_js_apiop *op,
                                       const sluice_js_node *call)
{
    const sluice_js_node *args = call->n > 0 ? call->list[0] : NULL;
    if (call->n > 1 || (args != NULL && args->kind == SLUICE_JS_SPREAD))
        sluice_codefacts_violate(f, "openapi_parameter", call->line, call->column,
                                 "pass one object: api.getUser({ id: args.id })",
                                 "api.%s at line %u takes one argument, an object of its "
                                 "parameters",
                                 op->id, call->line);
    bool exact = false;
    if (args != NULL && args->kind != SLUICE_JS_SPREAD)
        check_sdk_keys(arena, f, op, args, &exact);
    if (args == NULL)
        exact = true; /* no parameters at all */
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    for (const char *p = op->path; *p != '\0';) {
        const char *e = *p == '{' ? strchr(p, '}') : NULL;
        if (e == NULL) {
            sluice_buf_putc(&b, *p++);
            continue;
        }
        const char *name = sluice_arena_printf(arena, "%.*s", (int)(e - p - 1), p + 1);
        const sluice_js_node *prop =
            exact && name != NULL && args != NULL ? property(arena, args, name) : NULL;
        const char *lit = prop != NULL ? literal_text(arena, prop->b) : NULL;
        const char *rule = lit != NULL ? sluice_path_value_rule(lit, strlen(lit)) : NULL;
        if (exact && name != NULL && prop == NULL)
            sluice_codefacts_violate(
                f, "openapi_parameter", call->line, call->column,
                sluice_arena_printf(arena, "add it: api.%s({ %s: ... })", op->id, name),
                "api.%s at line %u needs the path parameter '%s'", op->id, call->line, name);
        else if (rule != NULL)
            sluice_codefacts_violate(f, "js_path", prop->line, prop->column, NULL,
                                     "the value of '%s' at line %u fills {%s} of %s, which the "
                                     "run refuses: %s",
                                     name, prop->line, name, op->id, rule);
        /* a literal fills its parameter as the path form's literal segment would; anything
         * else, or text the template would read as more than one segment, is a hole */
        bool literal = lit != NULL && rule == NULL && strpbrk(lit, "/{}") == NULL;
        sluice_buf_puts(&b, literal ? lit : "{}");
        p = e + 1;
    }
    if (sluice_buf_status(&b) != SLUICE_OK || sluice_arena_failed(arena)) {
        f->incomplete = true;
        return NULL;
    }
    return sluice_buf_cstr(&b);
}
