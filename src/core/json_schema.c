/*
 * json_schema.c — checking and validating the JSON Schema subset tool inputs need (see header).
 *
 * Two passes share one keyword table: check() runs once at registration and refuses anything we
 * would not enforce; validate() then trusts the shapes check() approved (it still tests types
 * before use, so an unchecked schema cannot crash it). Paths are a linked chain on the C stack,
 * rendered only when a violation is reported.
 */
#include "core/json_schema.h"

#include "core/buf.h"
#include "core/limits.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *sluice_json_type_name(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

/* A $ref chain may not recurse deeper than this without consuming instance structure. */
#define SCHEMA_MAX_DEPTH (2u * SLUICE_LIMIT_NESTING_DEPTH)
/* Work ceiling for one validation: every (schema, value) visit counts, so a schema whose
 * anyOf/oneOf branches recurse on the same value cannot go exponential on hostile input. */
#define SCHEMA_MAX_STEPS 1000000u
/* uniqueItems compares pairs; larger arrays are refused rather than checked in O(n^2). */
#define SCHEMA_MAX_UNIQUE_ITEMS 4096u
/* How much of a value a message quotes. */
#define SHOW_BYTES 120u

typedef struct path {
    const struct path *parent;
    const char *key; /* property name, or NULL for an array index */
    size_t index;
} path;

static bool is_identifier(const char *s)
{
    if (*s == '\0' || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s != '\0'; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '-'))
            return false;
    }
    return true;
}

static void render_path(sluice_buf *buf, const path *p)
{
    if (p->parent != NULL)
        render_path(buf, p->parent);
    if (p->key == NULL) {
        sluice_buf_printf(buf, "[%zu]", p->index);
    } else if (p->parent == NULL) {
        sluice_buf_puts(buf, p->key);
    } else if (is_identifier(p->key)) {
        sluice_buf_printf(buf, ".%s", p->key);
    } else {
        sluice_buf_putc(buf, '[');
        sluice_buf_json_string(buf, p->key, strlen(p->key));
        sluice_buf_putc(buf, ']');
    }
}

static const char *path_text(sluice_arena *arena, const path *p)
{
    sluice_buf buf;
    sluice_buf_init(&buf, arena, 1024);
    render_path(&buf, p);
    return sluice_buf_status(&buf) == SLUICE_OK ? sluice_buf_cstr(&buf) : "(path too long)";
}

/* A compact, bounded rendering of a value for messages. */
static const char *show(sluice_arena *arena, const json_t *value)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL)
        return "(value)";
    size_t len = strlen(text);
    const char *out = len > SHOW_BYTES
                          ? sluice_arena_printf(arena, "%.*s...", (int)SHOW_BYTES, text)
                          : sluice_arena_strdup(arena, text);
    free(text);
    return out != NULL ? out : "(value)";
}

static sluice_status fail(sluice_error *err,
                          sluice_arena *arena,
                          sluice_status status,
                          const path *at,
                          const char *fmt,
                          ...) __attribute__((format(printf, 5, 6)));

static sluice_status fail(sluice_error *err,
                          sluice_arena *arena,
                          sluice_status status,
                          const path *at,
                          const char *fmt,
                          ...)
{
    if (err == NULL)
        return status;
    const char *where = path_text(arena, at);
    va_list ap;
    va_start(ap, fmt);
    char *what = sluice_arena_vprintf(arena, fmt, ap);
    va_end(ap);
    sluice_error_set(err, arena, status, "%s: %s", where, what != NULL ? what : "invalid");
    err->key = where;
    return status;
}

/* ---- keyword table -------------------------------------------------------------------------- */

typedef enum kw_shape {
    KW_ANNOTATION, /* ignored by validation */
    KW_SCHEMA,     /* one subschema */
    KW_SCHEMA_MAP, /* object of subschemas */
    KW_SCHEMA_LIST,
    KW_COUNT,  /* non-negative integer */
    KW_NUMBER, /* any number */
    KW_POSITIVE,
    KW_BOOL,
    KW_TYPE,
    KW_STRINGS, /* array of strings */
    KW_ANY,     /* enum / const: any JSON (enum must be an array) */
    KW_REF,
} kw_shape;

typedef struct keyword {
    const char *name;
    kw_shape shape;
} keyword;

static const keyword keywords[] = {
    { "title", KW_ANNOTATION },
    { "description", KW_ANNOTATION },
    { "default", KW_ANNOTATION },
    { "examples", KW_ANNOTATION },
    { "$schema", KW_ANNOTATION },
    { "$id", KW_ANNOTATION },
    { "$comment", KW_ANNOTATION },
    { "format", KW_ANNOTATION },
    { "readOnly", KW_ANNOTATION },
    { "writeOnly", KW_ANNOTATION },
    { "deprecated", KW_ANNOTATION },
    { "contentMediaType", KW_ANNOTATION },
    { "contentEncoding", KW_ANNOTATION },
    { "$defs", KW_SCHEMA_MAP },
    { "definitions", KW_SCHEMA_MAP },
    { "properties", KW_SCHEMA_MAP },
    { "additionalProperties", KW_SCHEMA },
    { "items", KW_SCHEMA },
    { "not", KW_SCHEMA },
    { "anyOf", KW_SCHEMA_LIST },
    { "oneOf", KW_SCHEMA_LIST },
    { "allOf", KW_SCHEMA_LIST },
    { "minLength", KW_COUNT },
    { "maxLength", KW_COUNT },
    { "minItems", KW_COUNT },
    { "maxItems", KW_COUNT },
    { "minProperties", KW_COUNT },
    { "maxProperties", KW_COUNT },
    { "minimum", KW_NUMBER },
    { "maximum", KW_NUMBER },
    { "exclusiveMinimum", KW_NUMBER },
    { "exclusiveMaximum", KW_NUMBER },
    { "multipleOf", KW_POSITIVE },
    { "uniqueItems", KW_BOOL },
    { "type", KW_TYPE },
    { "required", KW_STRINGS },
    { "enum", KW_ANY },
    { "const", KW_ANY },
    { "$ref", KW_REF },
};

static const keyword *find_keyword(const char *name)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(keywords[i].name, name) == 0)
            return &keywords[i];
    return NULL;
}

static const char *const type_names[] = { "null",   "boolean", "object", "array",
                                          "number", "string",  "integer" };

static bool known_type(const json_t *t)
{
    if (!json_is_string(t))
        return false;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(json_string_value(t), type_names[i]) == 0)
            return true;
    return false;
}

static const char *const dialects[] = {
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
};

static bool known_dialect(const char *uri)
{
    size_t len = strlen(uri);
    if (len > 0 && uri[len - 1] == '#')
        len--;
    for (size_t i = 0; i < sizeof dialects / sizeof dialects[0]; i++)
        if (strlen(dialects[i]) == len && strncmp(dialects[i], uri, len) == 0)
            return true;
    return false;
}

/* ---- local $ref resolution (JSON pointer, RFC 6901) ------------------------------------------ */

static const json_t *resolve_ref(const json_t *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    if (ref[1] == '\0')
        return root;
    if (ref[1] != '/')
        return NULL; /* plain-name fragments need $anchor, which we do not support */
    const json_t *node = root;
    const char *p = ref + 2;
    char token[256];
    for (;;) {
        size_t n = 0;
        while (*p != '\0' && *p != '/') {
            char c = *p++;
            if (c == '~') {
                if (*p == '0')
                    c = '~';
                else if (*p == '1')
                    c = '/';
                else
                    return NULL;
                p++;
            }
            if (n + 1 >= sizeof token)
                return NULL;
            token[n++] = c;
        }
        token[n] = '\0';
        if (json_is_object(node)) {
            node = json_object_get(node, token);
        } else if (json_is_array(node)) {
            char *end;
            unsigned long idx = strtoul(token, &end, 10);
            if (n == 0 || *end != '\0' || (token[0] == '0' && n > 1))
                return NULL;
            node = json_array_get(node, idx);
        } else {
            return NULL;
        }
        if (node == NULL)
            return NULL;
        if (*p == '\0')
            return node;
        p++;
    }
}

/* ---- check ---------------------------------------------------------------------------------- */

typedef struct check_ctx {
    const json_t *root;
    sluice_arena *arena;
    sluice_error *err;
} check_ctx;

static sluice_status check_schema(check_ctx *c, const json_t *schema, const path *at, size_t depth);

static sluice_status check_ref_target(check_ctx *c, const json_t *value, const path *at)
{
    const char *ref = json_string_value(value);
    const json_t *target = resolve_ref(c->root, ref);
    if (target == NULL)
        return fail(c->err, c->arena, SLUICE_E_UNSUPPORTED, at,
                    "$ref '%s' does not resolve to a schema in this document (only local refs "
                    "such as '#/$defs/name' are supported)",
                    ref);
    /* A chain of bare $refs that never reaches a real schema would loop at validation time. */
    for (size_t hops = 0; json_is_object(target); hops++) {
        const json_t *next = json_object_get(target, "$ref");
        if (!json_is_string(next) || json_object_size(target) != 1)
            return SLUICE_OK;
        if (hops > SCHEMA_MAX_DEPTH)
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "$ref '%s' refers to itself", ref);
        target = resolve_ref(c->root, json_string_value(next));
    }
    return target != NULL ? SLUICE_OK
                          : fail(c->err, c->arena, SLUICE_E_UNSUPPORTED, at,
                                 "$ref '%s' leads to an unresolvable $ref", ref);
}

/* An object of schemas (properties, $defs, ...): each checked as a schema. */
static sluice_status
check_schema_map(check_ctx *c, const json_t *value, const path *at, size_t depth)
{
    if (!json_is_object(value))
        return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be an object of schemas");
    const char *name;
    json_t *sub;
    json_object_foreach((json_t *)value, name, sub)
    {
        path child = { at, name, 0 };
        sluice_status st = check_schema(c, sub, &child, depth + 1);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* A non-empty array of schemas (allOf, anyOf, ...): each checked as a schema. */
static sluice_status
check_schema_list(check_ctx *c, const json_t *value, const path *at, size_t depth)
{
    if (!json_is_array(value) || json_array_size(value) == 0)
        return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be a non-empty array of schemas");
    size_t i;
    json_t *sub;
    json_array_foreach(value, i, sub)
    {
        path child = { at, NULL, i };
        sluice_status st = check_schema(c, sub, &child, depth + 1);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* type: a known type name, or a non-empty array of them. */
static sluice_status check_type_keyword(check_ctx *c, const json_t *value, const path *at)
{
    if (json_is_string(value)) {
        if (!known_type(value))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "unknown type %s",
                        show(c->arena, value));
        return SLUICE_OK;
    }
    if (!json_is_array(value) || json_array_size(value) == 0)
        return fail(c->err, c->arena, SLUICE_E_INVALID, at,
                    "must be a type name or a non-empty array of type names");
    size_t i;
    json_t *t;
    json_array_foreach(value, i, t)
    {
        if (!known_type(t))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "unknown type %s",
                        show(c->arena, t));
    }
    return SLUICE_OK;
}

/* An array of strings (required, ...). */
static sluice_status check_strings_keyword(check_ctx *c, const json_t *value, const path *at)
{
    size_t i;
    json_t *s;
    if (!json_is_array(value))
        return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be an array of strings");
    json_array_foreach(value, i, s)
    {
        if (!json_is_string(s))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at,
                        "must be an array of strings, item %zu is %s", i, sluice_json_type_name(s));
    }
    return SLUICE_OK;
}

static sluice_status
check_keyword(check_ctx *c, const keyword *kw, const json_t *value, const path *at, size_t depth)
{
    switch (kw->shape) {
    case KW_ANNOTATION:
        return SLUICE_OK;
    case KW_SCHEMA:
        return check_schema(c, value, at, depth + 1);
    case KW_SCHEMA_MAP:
        return check_schema_map(c, value, at, depth);
    case KW_SCHEMA_LIST:
        return check_schema_list(c, value, at, depth);
    case KW_COUNT:
        if (!json_is_integer(value) || json_integer_value(value) < 0)
            return fail(c->err, c->arena, SLUICE_E_INVALID, at,
                        "must be a non-negative integer, got %s", show(c->arena, value));
        return SLUICE_OK;
    case KW_NUMBER:
        if (!json_is_number(value))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be a number, got %s",
                        show(c->arena, value));
        return SLUICE_OK;
    case KW_POSITIVE:
        if (!json_is_number(value) || json_number_value(value) <= 0)
            return fail(c->err, c->arena, SLUICE_E_INVALID, at,
                        "must be a number greater than 0, got %s", show(c->arena, value));
        return SLUICE_OK;
    case KW_BOOL:
        if (!json_is_boolean(value))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be true or false");
        return SLUICE_OK;
    case KW_TYPE:
        return check_type_keyword(c, value, at);
    case KW_STRINGS:
        return check_strings_keyword(c, value, at);
    case KW_ANY:
        if (strcmp(kw->name, "enum") == 0 && !json_is_array(value))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be an array");
        return SLUICE_OK;
    case KW_REF:
        if (!json_is_string(value))
            return fail(c->err, c->arena, SLUICE_E_INVALID, at, "must be a string");
        return check_ref_target(c, value, at);
    }
    return SLUICE_OK;
}

static sluice_status check_schema(check_ctx *c, const json_t *schema, const path *at, size_t depth)
{
    if (depth > SCHEMA_MAX_DEPTH)
        return fail(c->err, c->arena, SLUICE_E_LIMIT, at, "schema nested too deeply (limit is %u)",
                    SCHEMA_MAX_DEPTH);
    if (json_is_boolean(schema))
        return SLUICE_OK;
    if (!json_is_object(schema))
        return fail(c->err, c->arena, SLUICE_E_INVALID, at,
                    "a schema must be an object or a boolean, got %s",
                    sluice_json_type_name(schema));
    const char *name;
    json_t *value;
    json_object_foreach((json_t *)schema, name, value)
    {
        path child = { at, name, 0 };
        const keyword *kw = find_keyword(name);
        if (kw == NULL)
            return fail(c->err, c->arena, SLUICE_E_UNSUPPORTED, &child,
                        "unsupported JSON Schema keyword '%s' (sluice refuses constraints it "
                        "cannot enforce; remove it or express it with supported keywords)",
                        name);
        if ((strcmp(name, "$id") == 0 || strcmp(name, "$schema") == 0) && at->parent != NULL)
            return fail(c->err, c->arena, SLUICE_E_UNSUPPORTED, &child,
                        "'%s' is only supported at the root of a schema", name);
        if (strcmp(name, "$schema") == 0 &&
            (!json_is_string(value) || !known_dialect(json_string_value(value))))
            return fail(c->err, c->arena, SLUICE_E_UNSUPPORTED, &child,
                        "unsupported JSON Schema dialect %s (use "
                        "https://json-schema.org/draft/2020-12/schema or draft-07)",
                        show(c->arena, value));
        sluice_status st = check_keyword(c, kw, value, &child, depth);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

sluice_status sluice_json_schema_check(const json_t *schema,
                                       const char *where,
                                       sluice_arena *arena,
                                       sluice_error *err)
{
    check_ctx c = { schema, arena, err };
    path root = { NULL, where != NULL ? where : "schema", 0 };
    return check_schema(&c, schema, &root, 0);
}

/* ---- validate ------------------------------------------------------------------------------- */

typedef struct val_ctx {
    const json_t *root;
    sluice_arena *arena;
    sluice_error *err;
    size_t *steps; /* shared by quiet sub-validations */
} val_ctx;

static sluice_status
validate(val_ctx *v, const json_t *schema, const json_t *inst, const path *at, size_t depth);

static bool is_integral(const json_t *inst)
{
    if (json_is_integer(inst))
        return true;
    if (!json_is_real(inst))
        return false;
    double d = json_real_value(inst);
    return isfinite(d) && floor(d) == d;
}

static bool type_matches(const char *type, const json_t *inst)
{
    if (strcmp(type, "integer") == 0)
        return is_integral(inst);
    if (strcmp(type, "number") == 0)
        return json_is_number(inst);
    return strcmp(type, sluice_json_type_name(inst)) == 0;
}

/* JSON Schema equality: numbers by value (1 == 1.0), containers structurally. */
static bool values_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!values_equal(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *key;
        json_t *va;
        json_object_foreach((json_t *)a, key, va)
        {
            json_t *vb = json_object_get(b, key);
            if (vb == NULL || !values_equal(va, vb))
                return false;
        }
        return true;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

static size_t utf8_length(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

static sluice_status check_type(val_ctx *v, const json_t *type, const json_t *inst, const path *at)
{
    if (json_is_string(type)) {
        if (type_matches(json_string_value(type), inst))
            return SLUICE_OK;
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "expected %s, got %s",
                    json_string_value(type), sluice_json_type_name(inst));
    }
    if (!json_is_array(type))
        return SLUICE_OK;
    sluice_buf want;
    sluice_buf_init(&want, v->arena, 256);
    size_t i;
    json_t *t;
    json_array_foreach(type, i, t)
    {
        if (json_is_string(t) && type_matches(json_string_value(t), inst))
            return SLUICE_OK;
        sluice_buf_printf(&want, "%s%s", i == 0 ? "" : " or ", json_string_value(t));
    }
    return fail(v->err, v->arena, SLUICE_E_INVALID, at, "expected %s, got %s",
                sluice_buf_cstr(&want), sluice_json_type_name(inst));
}

static sluice_status
check_number(val_ctx *v, const json_t *schema, const json_t *inst, const path *at)
{
    if (!json_is_number(inst))
        return SLUICE_OK;
    double x = json_number_value(inst);
    const json_t *k;
    if ((k = json_object_get(schema, "minimum")) != NULL && json_is_number(k) &&
        x < json_number_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must be >= %s, got %s",
                    show(v->arena, k), show(v->arena, inst));
    if ((k = json_object_get(schema, "maximum")) != NULL && json_is_number(k) &&
        x > json_number_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must be <= %s, got %s",
                    show(v->arena, k), show(v->arena, inst));
    if ((k = json_object_get(schema, "exclusiveMinimum")) != NULL && json_is_number(k) &&
        x <= json_number_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must be > %s, got %s",
                    show(v->arena, k), show(v->arena, inst));
    if ((k = json_object_get(schema, "exclusiveMaximum")) != NULL && json_is_number(k) &&
        x >= json_number_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must be < %s, got %s",
                    show(v->arena, k), show(v->arena, inst));
    if ((k = json_object_get(schema, "multipleOf")) != NULL && json_is_number(k) &&
        json_number_value(k) > 0) {
        double q = x / json_number_value(k);
        if (!isfinite(q) || fabs(q - round(q)) > 1e-9)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must be a multiple of %s, got %s",
                        show(v->arena, k), show(v->arena, inst));
    }
    return SLUICE_OK;
}

static sluice_status check_count(val_ctx *v,
                                 const json_t *schema,
                                 const char *min_kw,
                                 const char *max_kw,
                                 size_t n,
                                 const char *unit,
                                 const path *at)
{
    const json_t *k;
    if ((k = json_object_get(schema, min_kw)) != NULL && json_is_integer(k) &&
        (json_int_t)n < json_integer_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must have at least %lld %s, got %zu",
                    (long long)json_integer_value(k), unit, n);
    if ((k = json_object_get(schema, max_kw)) != NULL && json_is_integer(k) &&
        (json_int_t)n > json_integer_value(k))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "must have at most %lld %s, got %zu",
                    (long long)json_integer_value(k), unit, n);
    return SLUICE_OK;
}

static sluice_status
check_object(val_ctx *v, const json_t *schema, const json_t *inst, const path *at, size_t depth)
{
    const json_t *required = json_object_get(schema, "required");
    size_t i;
    json_t *name;
    json_array_foreach(required, i, name)
    {
        if (json_is_string(name) && json_object_get(inst, json_string_value(name)) == NULL) {
            path child = { at, json_string_value(name), 0 };
            sluice_status st = fail(v->err, v->arena, SLUICE_E_INVALID, at,
                                    "missing required property '%s'", json_string_value(name));
            if (v->err != NULL)
                v->err->key = path_text(v->arena, &child);
            return st;
        }
    }
    const json_t *props = json_object_get(schema, "properties");
    const json_t *extra = json_object_get(schema, "additionalProperties");
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)inst, key, value)
    {
        path child = { at, key, 0 };
        const json_t *sub = json_object_get(props, key);
        if (sub == NULL && json_is_false(extra)) {
            sluice_buf allowed;
            sluice_buf_init(&allowed, v->arena, 512);
            const char *pname;
            json_t *ignored;
            json_object_foreach((json_t *)props, pname, ignored)
            {
                sluice_buf_printf(&allowed, "%s%s", allowed.len == 0 ? "" : ", ", pname);
            }
            return fail(v->err, v->arena, SLUICE_E_INVALID, &child,
                        "unexpected property (allowed: %s)",
                        allowed.len > 0 ? sluice_buf_cstr(&allowed) : "none");
        }
        if (sub == NULL)
            sub = extra;
        if (sub != NULL) {
            sluice_status st = validate(v, sub, value, &child, depth + 1);
            if (st != SLUICE_OK)
                return st;
        }
    }
    return check_count(v, schema, "minProperties", "maxProperties", json_object_size(inst),
                       "properties", at);
}

static sluice_status
check_array(val_ctx *v, const json_t *schema, const json_t *inst, const path *at, size_t depth)
{
    sluice_status st =
        check_count(v, schema, "minItems", "maxItems", json_array_size(inst), "items", at);
    if (st != SLUICE_OK)
        return st;
    const json_t *items = json_object_get(schema, "items");
    size_t i;
    json_t *item;
    json_array_foreach(inst, i, item)
    {
        path child = { at, NULL, i };
        if (items != NULL && (st = validate(v, items, item, &child, depth + 1)) != SLUICE_OK)
            return st;
    }
    if (json_is_true(json_object_get(schema, "uniqueItems"))) {
        size_t n = json_array_size(inst);
        if (n > SCHEMA_MAX_UNIQUE_ITEMS)
            return fail(v->err, v->arena, SLUICE_E_LIMIT, at,
                        "too many items to check uniqueItems (limit is %u)",
                        SCHEMA_MAX_UNIQUE_ITEMS);
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                if (values_equal(json_array_get(inst, a), json_array_get(inst, b)))
                    return fail(v->err, v->arena, SLUICE_E_INVALID, at,
                                "items [%zu] and [%zu] are equal; items must be unique", a, b);
    }
    return SLUICE_OK;
}

/* A quiet branch ran out of budget: the whole validation stops, with a message. A limit is never
 * mistaken for a mismatch (that would let anyOf try the next branch and keep spending). */
static sluice_status limit_reached(val_ctx *v, const path *at)
{
    if (*v->steps > SCHEMA_MAX_STEPS)
        return fail(v->err, v->arena, SLUICE_E_LIMIT, at,
                    "too much work to validate this value (limit is %u schema checks)",
                    SCHEMA_MAX_STEPS);
    return fail(v->err, v->arena, SLUICE_E_LIMIT, at, "nested too deeply (limit is %u)",
                SCHEMA_MAX_DEPTH);
}

/* anyOf / oneOf / allOf / not. Branch failures are collected quietly; only the verdict speaks. */
static sluice_status check_combinators(
    val_ctx *v, const json_t *schema, const json_t *inst, const path *at, size_t depth)
{
    const json_t *list;
    size_t i;
    json_t *sub;
    if ((list = json_object_get(schema, "allOf")) != NULL) {
        json_array_foreach(list, i, sub)
        {
            sluice_status st = validate(v, sub, inst, at, depth + 1);
            if (st != SLUICE_OK)
                return st;
        }
    }
    const char *names[2] = { "anyOf", "oneOf" };
    for (int n = 0; n < 2; n++) {
        if ((list = json_object_get(schema, names[n])) == NULL)
            continue;
        size_t matches = 0;
        sluice_error first;
        sluice_error_clear(&first);
        json_array_foreach(list, i, sub)
        {
            sluice_error branch;
            sluice_error_clear(&branch);
            /* Only the first branch's mismatch is ever reported, so only it pays for messages. */
            val_ctx quiet = { v->root, v->arena, i == 0 && v->err != NULL ? &branch : NULL,
                              v->steps };
            sluice_status st = validate(&quiet, sub, inst, at, depth + 1);
            if (st == SLUICE_E_LIMIT)
                return limit_reached(v, at);
            if (st == SLUICE_OK)
                matches++;
            else if (i == 0)
                first = branch;
        }
        if (matches == 0)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at,
                        "does not match any of the %zu schemas in %s (first mismatch: %s)",
                        json_array_size(list), names[n],
                        first.message != NULL ? first.message : "unknown");
        if (n == 1 && matches > 1)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at,
                        "matches %zu of the schemas in oneOf, expected exactly one", matches);
    }
    if ((sub = json_object_get(schema, "not")) != NULL) {
        val_ctx quiet = { v->root, v->arena, NULL, v->steps };
        sluice_status st = validate(&quiet, sub, inst, at, depth + 1);
        if (st == SLUICE_E_LIMIT)
            return limit_reached(v, at);
        if (st == SLUICE_OK)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at,
                        "must not match the schema in 'not'");
    }
    return SLUICE_OK;
}

static sluice_status
validate(val_ctx *v, const json_t *schema, const json_t *inst, const path *at, size_t depth)
{
    if (depth > SCHEMA_MAX_DEPTH)
        return fail(v->err, v->arena, SLUICE_E_LIMIT, at, "nested too deeply (limit is %u)",
                    SCHEMA_MAX_DEPTH);
    if (++*v->steps > SCHEMA_MAX_STEPS)
        return fail(v->err, v->arena, SLUICE_E_LIMIT, at,
                    "too much work to validate this value (limit is %u schema checks)",
                    SCHEMA_MAX_STEPS);
    if (json_is_false(schema))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "no value is allowed here");
    if (!json_is_object(schema))
        return SLUICE_OK;
    sluice_status st;
    const json_t *k;
    if ((k = json_object_get(schema, "$ref")) != NULL && json_is_string(k)) {
        const json_t *target = resolve_ref(v->root, json_string_value(k));
        if (target == NULL)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at, "unresolvable $ref '%s'",
                        json_string_value(k));
        if ((st = validate(v, target, inst, at, depth + 1)) != SLUICE_OK)
            return st;
    }
    if ((k = json_object_get(schema, "type")) != NULL &&
        (st = check_type(v, k, inst, at)) != SLUICE_OK)
        return st;
    if ((k = json_object_get(schema, "const")) != NULL && !values_equal(k, inst))
        return fail(v->err, v->arena, SLUICE_E_INVALID, at, "expected %s, got %s",
                    show(v->arena, k), show(v->arena, inst));
    if ((k = json_object_get(schema, "enum")) != NULL && json_is_array(k)) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(k) && !found; i++)
            found = values_equal(json_array_get(k, i), inst);
        if (!found)
            return fail(v->err, v->arena, SLUICE_E_INVALID, at, "expected one of %s, got %s",
                        show(v->arena, k), show(v->arena, inst));
    }
    if (json_is_string(inst)) {
        size_t n = utf8_length(json_string_value(inst), json_string_length(inst));
        if ((st = check_count(v, schema, "minLength", "maxLength", n, "characters", at)) !=
            SLUICE_OK)
            return st;
    }
    if ((st = check_number(v, schema, inst, at)) != SLUICE_OK)
        return st;
    if (json_is_object(inst) && (st = check_object(v, schema, inst, at, depth)) != SLUICE_OK)
        return st;
    if (json_is_array(inst) && (st = check_array(v, schema, inst, at, depth)) != SLUICE_OK)
        return st;
    return check_combinators(v, schema, inst, at, depth);
}

sluice_status sluice_json_schema_validate(const json_t *schema,
                                          const json_t *instance,
                                          const char *root,
                                          sluice_arena *arena,
                                          sluice_error *err)
{
    size_t steps = 0;
    val_ctx v = { schema, arena, err, &steps };
    path top = { NULL, root != NULL ? root : "value", 0 };
    return validate(&v, schema, instance, &top, 0);
}
