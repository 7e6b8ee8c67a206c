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
#include "core/path_template.h"
#include "exec/openapi_internal.h"

#include <math.h>
#include <string.h>

/* The operation of method whose template path matches best (the fewest segments taken by
 * spanning parameters; the first in the spec on a tie), or NULL. at: as
 * sluice_path_template_match's, for the operation returned. */
static const sluice_openapi_op *best_op(
    const sluice_openapi_spec *spec, const char *method, const char *path, bool holes, size_t *at)
{
    const sluice_openapi_op *best = NULL;
    int best_taken = -1;
    size_t tried[SLUICE_PATH_MAX_SEGMENTS + 1];
    for (size_t i = 0; i < spec->op_count && best_taken != 0; i++) {
        const sluice_openapi_op *op = &spec->ops[i];
        if (strcmp(op->method, method) != 0)
            continue;
        int taken = sluice_path_template_match(op->path, op->spanning, path, holes, tried);
        if (taken >= 0 && (best_taken < 0 || taken < best_taken)) {
            best = op;
            best_taken = taken;
            if (at != NULL)
                memcpy(at, tried, sizeof tried);
        }
    }
    return best;
}

const sluice_openapi_op *
sluice_openapi_match_template(const sluice_openapi_spec *spec, const char *method, const char *tmpl)
{
    return best_op(spec, method, tmpl, true, NULL);
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

/* How many of a template's segments are literal text. */
static size_t literal_segments(const char *tmpl)
{
    sluice_path_segment t[SLUICE_PATH_MAX_SEGMENTS];
    size_t n = sluice_path_split(tmpl, t, SLUICE_PATH_MAX_SEGMENTS), literal = 0;
    for (size_t i = 0; n != SIZE_MAX && i < n; i++)
        literal += !sluice_path_is_param(t[i].text, t[i].len);
    return literal;
}

/* The call site's template: the literal parts joined with "{}" for each hole, and where each
 * hole's "{}" starts in it (hole k at off[k]). NULL on NOMEM. */
static const char *
site_template(sluice_arena *arena, const char *const *parts, size_t count, size_t *off)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    for (size_t i = 0; i < count; i++) {
        if (i % 2 == 1) {
            off[i / 2] = b.len;
            sluice_buf_puts(&b, "{}");
        } else {
            sluice_buf_puts(&b, parts[i]);
        }
    }
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* The text of the template segment seg with each hole in it replaced by its value. */
static char *fill_segment(sluice_arena *arena,
                          const char *tmpl,
                          sluice_path_segment seg,
                          const char *const *parts,
                          const size_t *off,
                          size_t holes)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t from = (size_t)(seg.text - tmpl), to = from + seg.len, k = 0;
    while (k < holes && off[k] < from)
        k++;
    for (size_t i = from; i < to;) {
        if (k < holes && off[k] == i) {
            sluice_buf_puts(&b, parts[2 * k + 1]);
            i += 2;
            k++;
        } else {
            sluice_buf_putc(&b, tmpl[i++]);
        }
    }
    /* a copy the caller may cut at each '/' */
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_arena_strdup(arena, sluice_buf_cstr(&b))
                                              : NULL;
}

/* One call site being matched: the parts the plan sent (literal text and ${...} values
 * alternating), the site's template they make, where each hole's "{}" stands in it, and the URL
 * path built from the matched operation. */
typedef struct call_site {
    sluice_arena *arena;
    sluice_error *err;
    const char *method;
    const char *const *parts;
    size_t holes;
    size_t *off;
    const char *tmpl;
    sluice_buf url;
} call_site;

/* The site's template from its parts: refused when the path is computed at run time, lost a
 * byte on the way (a NUL in a value), or is not an absolute path without query or fragment. */
static sluice_status site_read(call_site *s, const char *path, size_t count)
{
    if (count == 0 || count % 2 == 0)
        return sluice_error_set(s->err, s->arena, SLUICE_E_DENIED,
                                "the path of %s is computed at run time; it must be a string or "
                                "a template literal, so the call matches the operation validate "
                                "approved at its call site",
                                s->method);
    s->holes = count / 2;
    s->off = sluice_arena_alloc(s->arena, (s->holes + 1) * sizeof *s->off);
    s->tmpl = s->off != NULL ? site_template(s->arena, s->parts, count, s->off) : NULL;
    size_t composed = 0;
    for (size_t i = 0; i < count; i++)
        composed += strlen(s->parts[i]);
    if (s->tmpl == NULL)
        return sluice_error_set(s->err, s->arena, SLUICE_E_NOMEM, "out of memory");
    /* the parts are what the plan sent: a value that lost bytes on the way (a NUL) is not */
    if (composed != strlen(path))
        return sluice_error_set(s->err, s->arena, SLUICE_E_DENIED,
                                "the path of %s has a NUL byte in a ${...} value", s->method);
    if (s->tmpl[0] != '/' || strpbrk(s->tmpl, "?#\\") != NULL)
        return sluice_error_set(
            s->err, s->arena, SLUICE_E_DENIED,
            "the path '%s' %s; a path is the operation's template with its "
            "parameters filled in, and the query goes in the second argument",
            s->tmpl, s->tmpl[0] != '/' ? "does not start with '/'" : "has '?', '#' or '\\'");
    return SLUICE_OK;
}

/* Appends v, the filled text of one template segment that parameter param of o takes, to the
 * URL: a value fills one segment unless its parameter may span segments, and a '/' in it is
 * refused, not encoded, since many servers and proxies decode %2F before they route. A spanning
 * one's segments obey the rules alone and are encoded alone. */
static sluice_status site_put_value(
    call_site *s, const sluice_openapi_op *o, sluice_path_segment param, bool spans, char *v)
{
    for (char *seg = v, *slash;; seg = slash + 1) {
        slash = spans ? strchr(seg, '/') : NULL;
        size_t n = slash != NULL ? (size_t)(slash - seg) : strlen(seg);
        const char *rule = sluice_path_value_rule(seg, n);
        if (rule == NULL && !spans && memchr(seg, '/', n) != NULL)
            rule = "it has '/', and the parameter takes one path segment (a value may "
                   "fill its own parameter only, never reach another operation)";
        if (rule != NULL) /* the value is not quoted: it may carry a blocked field */
            return sluice_error_set(s->err, s->arena, SLUICE_E_DENIED,
                                    "the path parameter %.*s of %s %s (%s) is refused: %s",
                                    (int)param.len, param.text, s->method, s->tmpl, o->id, rule);
        if (slash != NULL)
            *slash = '\0';
        const char *enc = sluice_openapi_pct_encode(s->arena, seg);
        if (enc == NULL)
            return sluice_error_set(s->err, s->arena, SLUICE_E_NOMEM, "out of memory");
        sluice_buf_printf(&s->url, "/%s", enc);
        if (slash == NULL)
            return SLUICE_OK;
    }
}

/* The URL path of o at this site: o's literal segments, and each parameter's values from the
 * site's segments at[i] to at[i + 1] (best_op's match), checked and percent-encoded. */
static sluice_status site_url(call_site *s, const sluice_openapi_op *o, const size_t *at)
{
    sluice_path_segment t[SLUICE_PATH_MAX_SEGMENTS], p[SLUICE_PATH_MAX_SEGMENTS];
    size_t tn = sluice_path_split(o->path, t, SLUICE_PATH_MAX_SEGMENTS);
    sluice_path_split(s->tmpl, p, SLUICE_PATH_MAX_SEGMENTS);
    sluice_buf_init(&s->url, s->arena, 0);
    for (size_t i = 0; i < tn; i++) {
        if (!sluice_path_is_param(t[i].text, t[i].len)) {
            sluice_buf_printf(&s->url, "/%.*s", (int)t[i].len, t[i].text);
            continue;
        }
        bool spans = i < 64 && (o->spanning & ((uint64_t)1 << i)) != 0;
        for (size_t k = at[i]; k < at[i + 1]; k++) {
            char *v = fill_segment(s->arena, s->tmpl, p[k], s->parts, s->off, s->holes);
            if (v == NULL)
                return sluice_error_set(s->err, s->arena, SLUICE_E_NOMEM, "out of memory");
            sluice_status st = site_put_value(s, o, t[i], spans, v);
            if (st != SLUICE_OK)
                return st;
        }
    }
    if (sluice_buf_status(&s->url) != SLUICE_OK)
        return sluice_error_set(s->err, s->arena, SLUICE_E_NOMEM, "out of memory");
    return SLUICE_OK;
}

/* Refuses a URL that another operation of the spec matches more specifically: the upstream
 * routes the URL, not the template, so a value that spells another operation's literal
 * (/users/{id} with "me" beside /users/me; a spanning value ending in another operation's
 * suffix) would run that operation there. More specifically: fewer segments taken by spanning
 * parameters, or as few and more literal segments (OpenAPI: concrete paths match before
 * templated ones). */
static sluice_status
site_refuse_other(call_site *s, const sluice_openapi_spec *spec, const sluice_openapi_op *o)
{
    const char *sent = sluice_buf_cstr(&s->url);
    int own = sluice_path_template_match(o->path, o->spanning, sent, false, NULL);
    size_t own_literals = literal_segments(o->path);
    for (size_t i = 0; i < spec->op_count; i++) {
        const sluice_openapi_op *other = &spec->ops[i];
        if (other == o || strcmp(other->method, s->method) != 0)
            continue;
        int taken = sluice_path_template_match(other->path, other->spanning, sent, false, NULL);
        if (taken >= 0 && (own < 0 || taken < own ||
                           (taken == own && literal_segments(other->path) > own_literals)))
            return sluice_error_set(s->err, s->arena, SLUICE_E_DENIED,
                                    "%s %s at this call site is %s, and the values filled in "
                                    "make the path of %s, which the upstream would run; a value "
                                    "may fill its own parameter only",
                                    s->method, s->tmpl, o->id, other->id);
    }
    return SLUICE_OK;
}

sluice_status sluice_openapi_match_call(sluice_arena *arena,
                                        const sluice_openapi_spec *spec,
                                        const char *method,
                                        const char *path,
                                        const char *const *parts,
                                        size_t count,
                                        const sluice_openapi_op **op,
                                        const char **url_path,
                                        sluice_error *err)
{
    call_site s = { .arena = arena, .err = err, .method = method, .parts = parts };
    sluice_status st = site_read(&s, path, count);
    if (st != SLUICE_OK)
        return st;
    /* the site's template decides the operation, as it did at validate: a value can fill its
     * own parameter and nothing else, so "u1/notes" in /users/${id} is never /users/{id}/notes */
    size_t at[SLUICE_PATH_MAX_SEGMENTS + 1];
    const sluice_openapi_op *o = best_op(spec, method, s.tmpl, true, at);
    if (o == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "%s %s matches no operation of the spec: the path left "
                                "its template",
                                method, s.tmpl);
    st = site_url(&s, o, at);
    if (st == SLUICE_OK)
        st = site_refuse_other(&s, spec, o);
    if (st != SLUICE_OK)
        return st;
    *op = o;
    *url_path = sluice_buf_cstr(&s.url);
    return SLUICE_OK;
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
