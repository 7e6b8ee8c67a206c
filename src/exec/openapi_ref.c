/*
 * openapi_ref.c — local $refs of the OpenAPI reader (see openapi_internal.h), kept lazy.
 *
 * A spec's $refs stay in the document as they are: a reader follows one where it reads it
 * (sluice_openapi_deref, bounded), and the load checks once that every ref a path can reach
 * resolves (sluice_openapi_check_refs, each target walked once). Expanding them instead costs
 * memory in proportion to how often each type is used (GitHub's 13 MB spec became 200 MB) and
 * cannot express a recursive type, which real APIs have (a comment with replies, a tree).
 *
 * Owns: JSON-pointer lookup ("#/components/schemas/User", percent-encoded, with ~0 and ~1
 * escapes and array indexes), the reachability walk and what it treats as data (examples,
 * defaults, enums, extensions), the component name a ref gives a type.
 * Does not own: remote refs (refused: a spec never makes sluice fetch anything).
 */
#include "core/limits.h"
#include "core/vec.h"
#include "exec/openapi_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static const char *ref_of(const json_t *node)
{
    return json_is_object(node) ? json_string_value(json_object_get(node, "$ref")) : NULL;
}

const json_t *sluice_openapi_deref(const json_t *doc, const json_t *node)
{
    for (unsigned i = 0; i <= SLUICE_LIMIT_OPENAPI_REF_DEPTH; i++) {
        const char *ref = ref_of(node);
        if (ref == NULL)
            return node;
        node = strncmp(ref, "#/", 2) == 0 ? pointer(doc, ref + 1) : NULL;
    }
    return NULL; /* a chain the load refused; never reached for a spec that loaded */
}

const char *sluice_openapi_ref_name(const json_t *node)
{
    static const char prefix[] = "#/components/schemas/";
    const char *ref = ref_of(node);
    if (ref == NULL || strncmp(ref, prefix, sizeof prefix - 1) != 0)
        return NULL;
    const char *name = ref + sizeof prefix - 1;
    /* a plain name only: one with escapes or a deeper pointer is shown expanded instead */
    return name[0] != '\0' && strpbrk(name, "/~%") == NULL ? name : NULL;
}

/* --- the load's check -------------------------------------------------------------------- */

typedef struct walk {
    sluice_arena *arena;
    const json_t *doc;
    sluice_error *err;
    json_t *seen;         /* the refs whose targets are walked or queued: {ref: true} */
    const json_t **queue; /* targets still to walk */
    size_t count, cap;
} walk;

static sluice_status nomem(walk *w)
{
    return sluice_error_set(w->err, w->arena, SLUICE_E_NOMEM, "out of memory checking $refs");
}

/* ref must resolve in at most SLUICE_LIMIT_OPENAPI_REF_DEPTH steps; its target is queued to
 * be walked once (walk_target: false for an Example Object, whose contents are data). */
static sluice_status check_ref(walk *w, const char *ref, bool walk_target)
{
    if (strncmp(ref, "#/", 2) != 0) {
        sluice_error_set(w->err, w->arena, SLUICE_E_CONFIG,
                         "$ref '%s' is not local; sluice resolves only refs into this document "
                         "(\"#/components/...\")",
                         ref);
        w->err->key = ref;
        return SLUICE_E_CONFIG;
    }
    if (json_object_get(w->seen, ref) != NULL)
        return SLUICE_OK;
    const json_t *target = pointer(w->doc, ref + 1);
    if (target == NULL) {
        sluice_error_set(w->err, w->arena, SLUICE_E_CONFIG, "$ref '%s' does not resolve", ref);
        w->err->key = ref;
        return SLUICE_E_CONFIG;
    }
    if (sluice_openapi_deref(w->doc, target) == NULL) {
        sluice_error_set(w->err, w->arena, SLUICE_E_CONFIG,
                         "$ref '%s' is a chain of more than %u refs that never reaches a value "
                         "(a ref to itself, or a cycle of refs to refs)",
                         ref, SLUICE_LIMIT_OPENAPI_REF_DEPTH);
        w->err->key = ref;
        return SLUICE_E_CONFIG;
    }
    if (json_object_set_new(w->seen, ref, json_true()) != 0)
        return nomem(w);
    if (!walk_target)
        return SLUICE_OK;
    const json_t **q = sluice_vec_grow_heap(w->queue, w->count + 1, &w->cap, sizeof *q, 64);
    if (q == NULL)
        return nomem(w);
    w->queue = q;
    w->queue[w->count++] = target;
    return SLUICE_OK;
}

/* Keys whose value is data, never a spec structure: a "$ref" inside one is text (GitHub's
 * examples carry git refs named "$ref"). */
static bool data_key(const char *k)
{
    return strcmp(k, "example") == 0 || strcmp(k, "default") == 0 || strcmp(k, "enum") == 0 ||
           strcmp(k, "const") == 0 || strncmp(k, "x-", 2) == 0;
}

/* Keys whose value maps names the spec's author chose to structures: the names are not
 * keywords ("properties": {"default": {...}} is a property called default). */
static bool name_map_key(const char *k)
{
    static const char *const maps[] = {
        "properties", "patternProperties", "$defs",    "definitions", "dependentSchemas",
        "schemas",    "responses",         "headers",  "content",     "requestBodies",
        "parameters", "securitySchemes",   "links",    "callbacks",   "paths",
        "encoding",   "pathItems",         "webhooks", "variables",
    };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        if (strcmp(k, maps[i]) == 0)
            return true;
    return false;
}

static sluice_status walk_node(walk *w, const json_t *node, size_t depth);

/* "examples": a map of Example Objects (each a ref or data) or, in a 3.1 schema, a list of
 * values; only the refs themselves are structure. */
static sluice_status check_example_refs(walk *w, const json_t *examples)
{
    if (!json_is_object(examples))
        return SLUICE_OK;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)examples, k, v)
    {
        sluice_status st = ref_of(v) != NULL ? check_ref(w, ref_of(v), false) : SLUICE_OK;
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status walk_children(walk *w, const json_t *node, bool names, size_t depth)
{
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            sluice_status st = walk_node(w, json_array_get(node, i), depth + 1);
            if (st != SLUICE_OK)
                return st;
        }
        return SLUICE_OK;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)node, k, v)
    {
        sluice_status st = SLUICE_OK;
        if (names) /* k is a name: v is a structure whatever k says */
            st = walk_node(w, v, depth + 1);
        else if (strcmp(k, "examples") == 0)
            st = check_example_refs(w, v);
        else if (!data_key(k))
            st = name_map_key(k) && json_is_object(v) ? walk_children(w, v, true, depth + 1)
                                                      : walk_node(w, v, depth + 1);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status walk_node(walk *w, const json_t *node, size_t depth)
{
    if (depth > SLUICE_LIMIT_OPENAPI_NESTING)
        return sluice_error_set(w->err, w->arena, SLUICE_E_CONFIG,
                                "the spec nests deeper than %u levels",
                                SLUICE_LIMIT_OPENAPI_NESTING);
    const char *ref = ref_of(node);
    if (ref != NULL)
        return check_ref(w, ref, true); /* its siblings (3.1 allows a description) are text */
    if (json_is_object(node) || json_is_array(node))
        return walk_children(w, node, false, depth);
    return SLUICE_OK;
}

sluice_status sluice_openapi_check_refs(sluice_arena *arena,
                                        const json_t *doc,
                                        const json_t *paths,
                                        sluice_error *err)
{
    walk w = { .arena = arena, .doc = doc, .err = err, .seen = json_object() };
    if (w.seen == NULL)
        return nomem(&w);
    sluice_status st = walk_children(&w, paths, true, 0);
    /* each target once, however many refs name it: a recursive type ends here */
    while (st == SLUICE_OK && w.count > 0)
        st = walk_node(&w, w.queue[--w.count], 0);
    free(w.queue);
    json_decref(w.seen);
    return st;
}
