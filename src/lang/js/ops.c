/*
 * ops.c — the operations of the OpenAPI backend a plan's call sites are resolved against, read
 * from the backend's normalized operations document (sluice_schema.document, written by
 * exec/openapi_decl.c: {"operations":[{"id","method","path","action","idempotent"}]}).
 *
 * Owns: reading that document and matching a call site (method + a template whose "{}" are the
 * plan's ${...} holes) to one operation: a literal segment matches a literal or a {param}; a
 * segment with a hole matches only a {param}.
 * Does not own: the run-time match of the composed path (exec/openapi_match.c does it again).
 */
#include "lang/js/ops.h"

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
        if (op->id == NULL || op->method == NULL || op->path == NULL)
            out->ops = NULL;
    }
    json_decref(doc);
    return out->ops != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* The next segment after a '/': *s and *n; returns the rest or NULL at the end. */
static const char *seg(const char *p, const char **s, size_t *n)
{
    if (*p != '/')
        return NULL;
    *s = ++p;
    while (*p != '\0' && *p != '/')
        p++;
    *n = (size_t)(p - *s);
    return p;
}

static bool matches(const char *want_path, const char *tmpl)
{
    const char *a = want_path, *b = tmpl, *ws, *ts;
    size_t wn, tn;
    for (;;) {
        const char *na = seg(a, &ws, &wn), *nb = seg(b, &ts, &tn);
        if (na == NULL || nb == NULL)
            return na == NULL && nb == NULL;
        bool param = wn >= 2 && ws[0] == '{' && ws[wn - 1] == '}';
        bool hole = memmem(ts, tn, "{}", 2) != NULL;
        if (param ? tn == 0 : hole || wn != tn || memcmp(ws, ts, wn) != 0)
            return false;
        a = na;
        b = nb;
    }
}

const sluice_js_apiop *
sluice_js_ops_match(const sluice_js_ops *ops, const char *method, const char *tmpl)
{
    for (size_t i = 0; i < ops->count; i++)
        if (strcmp(ops->ops[i].method, method) == 0 && matches(ops->ops[i].path, tmpl))
            return &ops->ops[i];
    return NULL;
}
