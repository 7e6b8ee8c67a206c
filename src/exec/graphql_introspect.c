/*
 * graphql_introspect.c — the upstream schema fetched by introspection at start-up, as SDL text
 * (see graphql_introspect.h).
 *
 * Owns: the introspection query (types, fields, arguments, input fields, enum values,
 * interfaces, union members, custom directives; type references seven wrappers deep, as
 * graphql-js's getIntrospectionQuery) and printing its answer as SDL: descriptions are dropped,
 * default values kept as the literals the server printed. The SDL then goes through the same
 * schema builder as a file, which refuses anything inconsistent.
 * Does not own: the HTTP exchange (graphql_http.c), building the model (syntax/graphql/).
 */
#include "exec/graphql_introspect.h"

#include "core/buf.h"

#include <string.h>

const char sluice_graphql_introspection_query[] =
    "query SluiceIntrospection { __schema { queryType { name } mutationType { name } "
    "subscriptionType { name } types { kind name "
    "fields(includeDeprecated: true) { name args { ...V } type { ...T } } "
    "inputFields { ...V } interfaces { name } enumValues(includeDeprecated: true) { name } "
    "possibleTypes { name } } directives { name isRepeatable locations args { ...V } } } } "
    "fragment V on __InputValue { name type { ...T } defaultValue } "
    "fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name "
    "ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }";

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

/* A type reference: NON_NULL -> "T!", LIST -> "[T]", else the name. False when malformed. */
static bool type_ref(sluice_buf *b, const json_t *t, int depth)
{
    const char *kind = str(t, "kind");
    if (depth > 8 || !json_is_object(t))
        return false;
    if (strcmp(kind, "NON_NULL") == 0) {
        bool ok = type_ref(b, json_object_get(t, "ofType"), depth + 1);
        sluice_buf_putc(b, '!');
        return ok;
    }
    if (strcmp(kind, "LIST") == 0) {
        sluice_buf_putc(b, '[');
        bool ok = type_ref(b, json_object_get(t, "ofType"), depth + 1);
        sluice_buf_putc(b, ']');
        return ok;
    }
    sluice_buf_puts(b, str(t, "name"));
    return str(t, "name")[0] != '\0';
}

static bool input_values(
    sluice_buf *b, const json_t *list, const char *open, const char *close, const char *sep)
{
    if (json_array_size(list) == 0)
        return true;
    sluice_buf_puts(b, open);
    size_t i;
    const json_t *v;
    bool ok = true;
    json_array_foreach(list, i, v)
    {
        sluice_buf_printf(b, "%s%s: ", i > 0 ? sep : "", str(v, "name"));
        ok = ok && type_ref(b, json_object_get(v, "type"), 0);
        const char *dflt = json_string_value(json_object_get(v, "defaultValue"));
        if (dflt != NULL)
            sluice_buf_printf(b, " = %s", dflt);
    }
    sluice_buf_puts(b, close);
    return ok;
}

static bool names(sluice_buf *b, const json_t *list, const char *lead, const char *sep)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
        sluice_buf_printf(b, "%s%s", i == 0 ? lead : sep, str(v, "name"));
    return true;
}

static bool fields(sluice_buf *b, const json_t *list)
{
    sluice_buf_puts(b, " {\n");
    size_t i;
    const json_t *f;
    bool ok = json_array_size(list) > 0;
    json_array_foreach(list, i, f)
    {
        sluice_buf_printf(b, "  %s", str(f, "name"));
        ok = ok && input_values(b, json_object_get(f, "args"), "(", ")", ", ");
        sluice_buf_puts(b, ": ");
        ok = ok && type_ref(b, json_object_get(f, "type"), 0);
        sluice_buf_putc(b, '\n');
    }
    sluice_buf_puts(b, "}\n");
    return ok;
}

static bool builtin_scalar(const char *name)
{
    static const char *const builtins[] = { "Int", "Float", "String", "Boolean", "ID", NULL };
    for (size_t i = 0; builtins[i] != NULL; i++)
        if (strcmp(name, builtins[i]) == 0)
            return true;
    return false;
}

static bool one_type(sluice_buf *b, const json_t *t)
{
    const char *kind = str(t, "kind"), *name = str(t, "name");
    if (strncmp(name, "__", 2) == 0 || (strcmp(kind, "SCALAR") == 0 && builtin_scalar(name)))
        return true;
    if (strcmp(kind, "SCALAR") == 0) {
        sluice_buf_printf(b, "scalar %s\n", name);
        return true;
    }
    if (strcmp(kind, "OBJECT") == 0 || strcmp(kind, "INTERFACE") == 0) {
        sluice_buf_printf(b, "%s %s", kind[0] == 'O' ? "type" : "interface", name);
        names(b, json_object_get(t, "interfaces"), " implements ", " & ");
        return fields(b, json_object_get(t, "fields"));
    }
    if (strcmp(kind, "UNION") == 0) {
        sluice_buf_printf(b, "union %s", name);
        names(b, json_object_get(t, "possibleTypes"), " = ", " | ");
        sluice_buf_putc(b, '\n');
        return true;
    }
    if (strcmp(kind, "ENUM") == 0) {
        sluice_buf_printf(b, "enum %s", name);
        names(b, json_object_get(t, "enumValues"), " { ", " ");
        sluice_buf_puts(b, " }\n");
        return json_array_size(json_object_get(t, "enumValues")) > 0;
    }
    if (strcmp(kind, "INPUT_OBJECT") == 0) {
        sluice_buf_printf(b, "input %s", name);
        return input_values(b, json_object_get(t, "inputFields"), " {\n  ", "\n}\n", "\n  ");
    }
    return false;
}

static bool directives(sluice_buf *b, const json_t *list)
{
    static const char *const builtins[] = { "include",     "skip",  "deprecated",
                                            "specifiedBy", "oneOf", NULL };
    size_t i;
    const json_t *d;
    bool ok = true;
    json_array_foreach(list, i, d)
    {
        const char *name = str(d, "name");
        bool builtin = false;
        for (size_t k = 0; builtins[k] != NULL; k++)
            builtin = builtin || strcmp(name, builtins[k]) == 0;
        if (builtin)
            continue;
        sluice_buf_printf(b, "directive @%s", name);
        ok = ok && input_values(b, json_object_get(d, "args"), "(", ")", ", ");
        sluice_buf_puts(b, json_is_true(json_object_get(d, "isRepeatable")) ? " repeatable on "
                                                                            : " on ");
        size_t k;
        const json_t *loc;
        json_array_foreach(json_object_get(d, "locations"), k, loc)
            sluice_buf_printf(b, "%s%s", k > 0 ? " | " : "", json_string_value(loc));
        ok = ok && json_array_size(json_object_get(d, "locations")) > 0;
        sluice_buf_putc(b, '\n');
    }
    return ok;
}

sluice_status sluice_graphql_introspection_sdl(
    sluice_arena *arena, const json_t *data, const char **sdl, size_t *len, sluice_error *err)
{
    const json_t *s = json_object_get(data, "__schema");
    const json_t *types = json_object_get(s, "types");
    if (!json_is_array(types) || str(json_object_get(s, "queryType"), "name")[0] == '\0')
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "the upstream's introspection answer has no __schema with types "
                                "and a query type (is introspection disabled there?)");
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    sluice_buf_printf(&b, "schema { query: %s", str(json_object_get(s, "queryType"), "name"));
    const char *m = str(json_object_get(s, "mutationType"), "name");
    const char *sub = str(json_object_get(s, "subscriptionType"), "name");
    if (m[0] != '\0')
        sluice_buf_printf(&b, " mutation: %s", m);
    if (sub[0] != '\0')
        sluice_buf_printf(&b, " subscription: %s", sub);
    sluice_buf_puts(&b, " }\n");
    bool ok = true;
    size_t i;
    const json_t *t;
    json_array_foreach(types, i, t) ok = ok && one_type(&b, t);
    ok = ok && directives(&b, json_object_get(s, "directives"));
    if (sluice_buf_status(&b) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!ok)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "the upstream's introspection answer is malformed (a type without "
                                "fields or values, or a broken type reference)");
    *sdl = sluice_buf_cstr(&b);
    *len = b.len;
    return SLUICE_OK;
}
