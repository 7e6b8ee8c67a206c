/*
 * openapi_yaml.c — a YAML document as JSON for the OpenAPI reader (see openapi_internal.h).
 *
 * Owns: the conversion from libyaml's document tree, the core-schema scalar resolution.
 * Does not own: what the document means (openapi_spec.c).
 */
#include "core/limits.h"
#include "exec/openapi_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static bool is_plain(const yaml_node_t *n)
{
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* A plain scalar's value per YAML 1.2's core schema. A new reference or NULL (NOMEM). */
static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    size_t len = n->data.scalar.length;
    if (!is_plain(n))
        return json_stringn(s, len);
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        return json_true();
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        return json_false();
    if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
        strcmp(s, "NULL") == 0)
        return json_null();
    char *end = NULL;
    errno = 0;
    long long i = strtoll(s, &end, 10);
    if (end != NULL && *end == '\0' && errno == 0 && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')))
        return json_integer((json_int_t)i);
    double d = strtod(s, &end);
    if (end != NULL && *end == '\0' && isfinite(d) &&
        (s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
        return json_real(d);
    return json_stringn(s, len);
}

static json_t *convert(yaml_document_t *doc, yaml_node_t *n, size_t depth)
{
    if (n == NULL || depth > SLUICE_LIMIT_OPENAPI_NESTING)
        return NULL;
    switch (n->type) {
    case YAML_SCALAR_NODE:
        return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             a != NULL && it < n->data.sequence.items.top; it++) {
            json_t *v = convert(doc, yaml_document_get_node(doc, *it), depth + 1);
            if (v == NULL || json_array_append_new(a, v) != 0) {
                json_decref(a);
                a = NULL;
            }
        }
        return a;
    }
    case YAML_MAPPING_NODE: {
        json_t *o = json_object();
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             o != NULL && p < n->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            json_t *v = convert(doc, yaml_document_get_node(doc, p->value), depth + 1);
            if (k == NULL || k->type != YAML_SCALAR_NODE || v == NULL ||
                json_object_setn_new(o, (const char *)k->data.scalar.value, k->data.scalar.length,
                                     v) != 0) {
                if (k == NULL || k->type != YAML_SCALAR_NODE)
                    json_decref(v);
                json_decref(o);
                o = NULL;
            }
        }
        return o;
    }
    default:
        return NULL;
    }
}

json_t *sluice_openapi_yaml_to_json(
    sluice_arena *arena, const char *name, const char *text, size_t len, sluice_error *err)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading %s", name);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        sluice_error_at(err, arena, SLUICE_E_CONFIG, name, parser.problem_mark.line + 1,
                        parser.problem_mark.column + 1, "%s is not valid YAML: %s", name,
                        parser.problem != NULL ? parser.problem : "parse error");
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    json_t *j = root != NULL ? convert(&doc, root, 0) : NULL;
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (j == NULL)
        sluice_error_set(err, arena, SLUICE_E_CONFIG,
                         "%s: empty, nested deeper than %u levels, a non-scalar mapping key, or "
                         "out of memory",
                         name, SLUICE_LIMIT_OPENAPI_NESTING);
    return j;
}
