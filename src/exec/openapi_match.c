/*
 * openapi_match.c — matching calls to operations and checking what they send (see
 * openapi_match.h).
 *
 * Owns: the segment-by-segment match, the parameter rules, the schema check.
 * Does not own: the spec or the request.
 */
#include "exec/openapi_match.h"

#include "core/buf.h"
#include "core/limits.h"
#include "exec/openapi_internal.h"

#include <math.h>
#include <string.h>

static bool is_param(const char *seg)
{
    size_t n = strlen(seg);
    return n >= 2 && seg[0] == '{' && seg[n - 1] == '}';
}

/* The next segment of path (after a '/') into seg; returns the rest, or NULL at the end. */
static const char *next_seg(const char *p, const char **start, size_t *len)
{
    if (*p != '/')
        return NULL;
    *start = ++p;
    while (*p != '\0' && *p != '/')
        p++;
    *len = (size_t)(p - *start);
    return p;
}

const sluice_openapi_op *
sluice_openapi_match_template(const sluice_openapi_spec *spec, const char *method, const char *tmpl)
{
    for (size_t i = 0; i < spec->op_count; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        if (strcmp(op->method, method) != 0)
            continue;
        const char *p = tmpl;
        size_t k = 0;
        bool ok = true;
        const char *s;
        size_t n;
        while (ok && (p = next_seg(p, &s, &n)) != NULL) {
            if (k >= op->seg_count) {
                ok = false;
                break;
            }
            const char *want = op->segs[k++];
            bool hole = memmem(s, n, "{}", 2) != NULL;
            ok = is_param(want) ? n > 0 : !hole && strlen(want) == n && memcmp(want, s, n) == 0;
        }
        if (ok && k == op->seg_count)
            return op;
    }
    return NULL;
}

/* NULL when value obeys the path-parameter rules, else the rule it breaks. */
static const char *param_rule(const char *v, size_t n)
{
    if (n == 0)
        return "it is empty";
    if (n == 2 && v[0] == '.' && v[1] == '.')
        return "it is '..'";
    if (n == 1 && v[0] == '.')
        return "it is '.'";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7F)
            return "it has a control byte";
        if (c == '?' || c == '#' || c == '\\' || c == '%')
            return "it has '?', '#', '\\' or '%' (encoded or double-encoded text)";
        if (c == '.' && i + 1 < n && v[i + 1] == '.')
            return "it has '..'";
    }
    return NULL;
}

const char *sluice_openapi_pct_encode(sluice_arena *arena, const char *s)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~')
            sluice_buf_putc(&b, (char)*p);
        else
            sluice_buf_printf(&b, "%%%02X", *p);
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* Does op's template take path? *bad_rule: the first rule a parameter value breaks. */
static bool try_op(sluice_arena *arena,
                   const sluice_openapi_op *op,
                   const char *path,
                   sluice_buf *url,
                   const char **bad_param,
                   const char **bad_rule)
{
    const char *p = path, *s;
    size_t n, k = 0;
    url->len = 0; /* each operation tried builds its own URL */
    if (url->data != NULL)
        url->data[0] = '\0';
    while ((p = next_seg(p, &s, &n)) != NULL) {
        if (k >= op->seg_count)
            return false;
        const char *want = op->segs[k++];
        if (!is_param(want)) {
            if (strlen(want) != n || memcmp(want, s, n) != 0)
                return false;
            sluice_buf_printf(url, "/%s", want);
            continue;
        }
        const char *rule = param_rule(s, n);
        if (rule != NULL) {
            *bad_param = want;
            *bad_rule = rule;
            return false;
        }
        char *v = sluice_arena_strndup(arena, s, n);
        const char *enc = v != NULL ? sluice_openapi_pct_encode(arena, v) : NULL;
        if (enc == NULL) {
            *bad_param = want;
            *bad_rule = NULL; /* out of memory: the caller fails the call */
            return false;
        }
        sluice_buf_printf(url, "/%s", enc);
    }
    return k == op->seg_count;
}

sluice_status sluice_openapi_match_call(sluice_arena *arena,
                                        const sluice_openapi_spec *spec,
                                        const char *method,
                                        const char *path,
                                        const sluice_openapi_op **op,
                                        const char **url_path,
                                        sluice_error *err)
{
    if (path[0] != '/' || strpbrk(path, "?#\\") != NULL)
        return sluice_error_set(
            err, arena, SLUICE_E_DENIED,
            "the path '%s' %s; a path is the operation's template with its "
            "parameters filled in, and the query goes in the second argument",
            path, path[0] != '/' ? "does not start with '/'" : "has '?', '#' or '\\'");
    sluice_buf url;
    sluice_buf_init(&url, arena, 0);
    const char *bad_param = NULL, *bad_rule = NULL;
    for (size_t i = 0; i < spec->op_count; i++) {
        if (strcmp(spec->ops[i].method, method) != 0)
            continue;
        bool hit = try_op(arena, &spec->ops[i], path, &url, &bad_param, &bad_rule);
        if (!hit && bad_param != NULL && bad_rule == NULL)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        if (hit) {
            if (sluice_buf_status(&url) != SLUICE_OK)
                return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
            *op = &spec->ops[i];
            *url_path = sluice_buf_cstr(&url);
            return SLUICE_OK;
        }
    }
    if (bad_rule != NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the path parameter %s of %s %s is refused: %s", bad_param, method,
                                path, bad_rule);
    return sluice_error_set(err, arena, SLUICE_E_DENIED,
                            "%s %s matches no operation of the spec: the composed path left its "
                            "template",
                            method, path);
}

static bool type_ok(const char *type, const json_t *v)
{
    if (strcmp(type, "string") == 0)
        return json_is_string(v);
    if (strcmp(type, "integer") == 0)
        return json_is_integer(v) ||
               (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
    if (strcmp(type, "number") == 0)
        return json_is_number(v);
    if (strcmp(type, "boolean") == 0)
        return json_is_boolean(v);
    if (strcmp(type, "array") == 0)
        return json_is_array(v);
    if (strcmp(type, "object") == 0)
        return json_is_object(v);
    if (strcmp(type, "null") == 0)
        return json_is_null(v);
    return true;
}

static sluice_status check(sluice_arena *arena,
                           const json_t *doc,
                           const json_t *schema,
                           const json_t *v,
                           const char *where,
                           size_t depth,
                           sluice_error *err)
{
    if (schema != NULL && (schema = sluice_openapi_deref(doc, schema)) == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s: its schema does not resolve",
                                where); /* never for a spec that loaded: fail closed all the same */
    if (!json_is_object(schema))
        return SLUICE_OK;
    if (depth > SLUICE_LIMIT_OPENAPI_NESTING)
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s nests too deep", where);
    const json_t *type = json_object_get(schema, "type");
    bool nullable = json_is_true(json_object_get(schema, "nullable"));
    if (!(nullable && json_is_null(v))) {
        bool ok = !json_is_string(type) || type_ok(json_string_value(type), v);
        for (size_t i = 0; json_is_array(type) && i < json_array_size(type); i++)
            ok = (i == 0 ? false : ok) || type_ok(json_string_value(json_array_get(type, i)) != NULL
                                                      ? json_string_value(json_array_get(type, i))
                                                      : "",
                                                  v); /* 3.1: a list of types */
        if (!ok)
            return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s: expected %s", where,
                                    json_is_string(type) ? json_string_value(type)
                                                         : "another type");
    }
    const json_t *en = json_object_get(schema, "enum");
    if (json_is_array(en)) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(en) && !found; i++)
            found = json_equal(json_array_get(en, i), v);
        if (!found)
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "%s: not one of the allowed values", where);
    }
    if (json_is_object(v)) {
        const json_t *props = json_object_get(schema, "properties");
        const json_t *req = json_object_get(schema, "required");
        for (size_t i = 0; i < json_array_size(req); i++) {
            const char *k = json_string_value(json_array_get(req, i));
            if (k != NULL && json_object_get(v, k) == NULL)
                return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s.%s is required", where, k);
        }
        const char *k;
        json_t *child;
        json_object_foreach((json_t *)v, k, child)
        {
            const json_t *ps = json_object_get(props, k);
            if (ps == NULL && json_is_false(json_object_get(schema, "additionalProperties")))
                return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                        "%s.%s is not a property the operation takes", where, k);
            sluice_status st = check(arena, doc, ps, child,
                                     sluice_arena_printf(arena, "%s.%s", where, k), depth + 1, err);
            if (st != SLUICE_OK)
                return st;
        }
    }
    if (json_is_array(v)) {
        const json_t *items = json_object_get(schema, "items");
        for (size_t i = 0; i < json_array_size(v); i++) {
            sluice_status st =
                check(arena, doc, items, json_array_get(v, i),
                      sluice_arena_printf(arena, "%s[%zu]", where, i), depth + 1, err);
            if (st != SLUICE_OK)
                return st;
        }
    }
    return SLUICE_OK;
}

sluice_status sluice_openapi_check_value(sluice_arena *arena,
                                         const json_t *doc,
                                         const json_t *schema,
                                         const json_t *value,
                                         const char *where,
                                         sluice_error *err)
{
    return check(arena, doc, schema, value, where, 0, err);
}
