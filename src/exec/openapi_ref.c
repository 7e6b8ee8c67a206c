/*
 * openapi_ref.c — local $ref resolution for the OpenAPI reader (see openapi_internal.h).
 *
 * Owns: JSON-pointer lookup ("#/components/schemas/User", with ~0 and ~1 escapes), the bounded
 * recursive copy, cycle refusal (a ref reached again while it is being resolved).
 * Does not own: remote refs (refused: a spec never makes sluice fetch anything).
 */
#include "core/limits.h"
#include "exec/openapi_internal.h"

#include <stdint.h>
#include <string.h>

typedef struct resolver {
    sluice_arena *arena;
    const json_t *doc;
    const char *stack[SLUICE_LIMIT_OPENAPI_REF_DEPTH];
    size_t depth;
    sluice_error *err;
} resolver;

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The array element a decimal segment names ("0", "12"; no sign, no leading zero), or NULL. */
static const json_t *array_index(const json_t *a, const char *seg)
{
    size_t i = 0;
    if (seg[0] == '\0' || (seg[0] == '0' && seg[1] != '\0'))
        return NULL;
    for (const char *c = seg; *c != '\0'; c++) {
        if (*c < '0' || *c > '9' || i > SIZE_MAX / 10 - 1)
            return NULL;
        i = i * 10 + (size_t)(*c - '0');
    }
    return json_array_get(a, i);
}

/* The node at pointer (after "#"), or NULL. A $ref is a URI fragment, so its segments may be
 * percent-encoded ("#/paths/~1users~1%7Bid%7D") before the JSON-pointer escapes apply (RFC 6901
 * section 6); a segment under an array is its index. */
static const json_t *pointer(const json_t *doc, const char *p)
{
    const json_t *cur = doc;
    while (cur != NULL && *p == '/') {
        p++;
        char seg[256];
        size_t n = 0;
        while (*p != '\0' && *p != '/' && n + 1 < sizeof seg) {
            char c = *p++;
            if (c == '%' && hex_digit(p[0]) >= 0 && hex_digit(p[1]) >= 0) {
                c = (char)(hex_digit(p[0]) * 16 + hex_digit(p[1]));
                p += 2;
            }
            if (c == '~' && (*p == '0' || *p == '1')) {
                c = *p == '0' ? '~' : '/';
                p++;
            }
            if (c == '\0')
                return NULL; /* %00 names nothing */
            seg[n++] = c;
        }
        if (*p != '\0' && *p != '/')
            return NULL; /* a segment longer than any real name */
        seg[n] = '\0';
        cur = json_is_object(cur)  ? json_object_get(cur, seg)
              : json_is_array(cur) ? array_index(cur, seg)
                                   : NULL;
    }
    return *p == '\0' ? cur : NULL;
}

static json_t *copy(resolver *r, const json_t *node, size_t nesting);

static json_t *follow(resolver *r, const char *ref, size_t nesting)
{
    if (strncmp(ref, "#/", 2) != 0) {
        sluice_error_set(r->err, r->arena, SLUICE_E_CONFIG,
                         "$ref '%s' is not local; sluice resolves only refs into this document "
                         "(\"#/components/...\")",
                         ref);
        r->err->key = ref;
        return NULL;
    }
    for (size_t i = 0; i < r->depth; i++)
        if (strcmp(r->stack[i], ref) == 0) {
            sluice_error_set(r->err, r->arena, SLUICE_E_CONFIG,
                             "$ref '%s' refers to itself (a cycle); sluice refuses recursive "
                             "schemas: flatten it",
                             ref);
            r->err->key = ref;
            return NULL;
        }
    if (r->depth >= SLUICE_LIMIT_OPENAPI_REF_DEPTH) {
        sluice_error_set(r->err, r->arena, SLUICE_E_CONFIG,
                         "$ref '%s' chains more than %u refs deep", ref,
                         SLUICE_LIMIT_OPENAPI_REF_DEPTH);
        r->err->key = ref;
        return NULL;
    }
    const json_t *target = pointer(r->doc, ref + 1);
    if (target == NULL) {
        sluice_error_set(r->err, r->arena, SLUICE_E_CONFIG, "$ref '%s' does not resolve", ref);
        r->err->key = ref;
        return NULL;
    }
    r->stack[r->depth++] = ref;
    json_t *v = copy(r, target, nesting + 1);
    r->depth--;
    return v;
}

static json_t *copy(resolver *r, const json_t *node, size_t nesting)
{
    if (nesting > SLUICE_LIMIT_OPENAPI_NESTING) {
        sluice_error_set(r->err, r->arena, SLUICE_E_CONFIG, "the spec nests deeper than %u levels",
                         SLUICE_LIMIT_OPENAPI_NESTING);
        return NULL;
    }
    if (json_is_object(node)) {
        const json_t *ref = json_object_get(node, "$ref");
        if (json_is_string(ref))
            return follow(r, json_string_value(ref), nesting);
        json_t *o = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)node, k, v)
        {
            json_t *c = o != NULL ? copy(r, v, nesting + 1) : NULL;
            if (c == NULL || json_object_set_new(o, k, c) != 0) {
                json_decref(o);
                return NULL;
            }
        }
        return o;
    }
    if (json_is_array(node)) {
        json_t *a = json_array();
        for (size_t i = 0; a != NULL && i < json_array_size(node); i++) {
            json_t *c = copy(r, json_array_get(node, i), nesting + 1);
            if (c == NULL || json_array_append_new(a, c) != 0) {
                json_decref(a);
                return NULL;
            }
        }
        return a;
    }
    return json_deep_copy(node);
}

json_t *sluice_openapi_resolve(sluice_arena *arena,
                               const json_t *doc,
                               const json_t *node,
                               sluice_error *err)
{
    resolver r = { .arena = arena, .doc = doc, .err = err };
    json_t *v = copy(&r, node, 0);
    if (v == NULL && err != NULL && err->message == NULL)
        sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory resolving $refs");
    return v;
}
