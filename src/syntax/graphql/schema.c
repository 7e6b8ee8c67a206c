/*
 * schema.c — SDL to the schema model of schema.h.
 *
 * Owns: merging each type's definition with its extensions, the built-in scalars, directives,
 * introspection types and meta fields (as SDL text parsed like the user's, so they are
 * described once), name lookup
 * (types sorted for binary search), and the checks that make the model safe to validate
 * against. Each refusal points at the definition at fault and says how to fix it.
 * Does not own: parsing (parser.c) or operation validation.
 *
 * Field and value lists are searched linearly: real types have tens of fields, and validation
 * looks up each selected field once.
 */
#include "syntax/graphql/schema.h"

#include "syntax/graphql/lexer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The definition that holds the meta fields: not a type anyone can name. */
#define META "__SluiceMetaFields"

/* What a schema has without saying so (graphql-js's specifiedScalarTypes and
 * specifiedDirectives). A user definition of one of these directives replaces it. */
static const char BUILTINS[] =
    "scalar Int scalar Float scalar String scalar Boolean scalar ID\n"
    "directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT\n"
    "directive @deprecated(reason: String = \"No longer supported\") on FIELD_DEFINITION | "
    "ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE\n"
    "directive @specifiedBy(url: String!) on SCALAR\n"
    "directive @oneOf on INPUT_OBJECT\n"
    /* the introspection types (graphql-js 16's printIntrospectionSchema, descriptions dropped):
     * an introspection document is validated, limited and costed like any other */
    "type __Schema { description: String types: [__Type!]! queryType: __Type! mutationType: "
    "__Type subscriptionType: __Type directives(includeDeprecated: Boolean! = false): "
    "[__Directive!]! }\n"
    "type __Type { kind: __TypeKind! name: String description: String specifiedByURL: String "
    "fields(includeDeprecated: Boolean = false): [__Field!] interfaces: [__Type!] "
    "possibleTypes: [__Type!] enumValues(includeDeprecated: Boolean = false): [__EnumValue!] "
    "inputFields(includeDeprecated: Boolean = false): [__InputValue!] ofType: __Type isOneOf: "
    "Boolean }\n"
    "enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }\n"
    "type __Field { name: String! description: String args(includeDeprecated: Boolean = false): "
    "[__InputValue!]! type: __Type! isDeprecated: Boolean! deprecationReason: String }\n"
    "type __InputValue { name: String! description: String type: __Type! defaultValue: String "
    "isDeprecated: Boolean! deprecationReason: String }\n"
    "type __EnumValue { name: String! description: String isDeprecated: Boolean! "
    "deprecationReason: String }\n"
    "type __Directive { name: String! description: String isRepeatable: Boolean! locations: "
    "[__DirectiveLocation!]! args(includeDeprecated: Boolean = false): [__InputValue!]! "
    "isDeprecated: Boolean! deprecationReason: String }\n"
    "enum __DirectiveLocation { QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION "
    "FRAGMENT_SPREAD INLINE_FRAGMENT VARIABLE_DEFINITION SCHEMA SCALAR OBJECT FIELD_DEFINITION "
    "ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT INPUT_FIELD_DEFINITION "
    "DIRECTIVE_DEFINITION }\n"
    /* the meta fields, as the fields of a type that is built but never listed (META) */
    "type " META " { __schema: __Schema! __type(name: String!): __Type __typename: String! }\n";

/* One type being built: the model, then the definition and extensions that make it. */
typedef struct def_link {
    const sluice_gql_definition *def;
    struct def_link *next;
} def_link;

typedef struct entry {
    sluice_gql_schema_type type; /* first: an entry is its type */
    def_link *defs;
    def_link **tail;
} entry;

typedef struct builder {
    sluice_arena *arena;
    const char *text; /* the user's SDL, for error positions */
    size_t len;
    const char *source;
    sluice_error *err;
    sluice_gql_schema *schema;
    const sluice_gql_definition *schema_def;
} builder;

/* ---- errors and names ----------------------------------------------------------------- */

static sluice_status refuse(builder *b, uint32_t offset, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static sluice_status refuse(builder *b, uint32_t offset, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_gql_verror(b->arena, b->err, b->source, b->text, b->len, SLUICE_E_INVALID, offset,
                      "schema: ", fmt, ap);
    va_end(ap);
    if (hint != NULL && b->err != NULL)
        sluice_error_hint(b->err, b->arena, "%s", hint);
    return SLUICE_E_INVALID;
}

static sluice_status nomem(builder *b)
{
    return sluice_error_set(b->err, b->arena, SLUICE_E_NOMEM, "out of memory building a schema");
}

static bool same(sluice_gql_str a, const char *name, size_t len)
{
    return a.len == len && memcmp(a.ptr, name, len) == 0;
}

static int compare_names(sluice_gql_str a, sluice_gql_str b)
{
    int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
    return c != 0 ? c : (a.len > b.len) - (a.len < b.len);
}

static int compare_types(const void *x, const void *y)
{
    const sluice_gql_schema_type *a = *(const sluice_gql_schema_type *const *)x;
    const sluice_gql_schema_type *b = *(const sluice_gql_schema_type *const *)y;
    int c = compare_names(a->name, b->name);
    return c != 0 ? c : (a->builtin ? -1 : 1) * (a->builtin != b->builtin);
}

static const char *kind_word(sluice_gql_named_kind k)
{
    static const char *const words[] = { "a scalar", "an object type", "an interface",
                                         "a union",  "an enum",        "an input object type" };
    return words[k];
}

/* The model kind a definition or extension kind builds. */
static bool named_kind_of(sluice_gql_definition_kind k, sluice_gql_named_kind *out, bool *ext)
{
    static const struct {
        sluice_gql_definition_kind def, ext;
        sluice_gql_named_kind kind;
    } map[] = {
        { SLUICE_GQL_SCALAR_DEFINITION, SLUICE_GQL_SCALAR_EXTENSION, SLUICE_GQL_KIND_SCALAR },
        { SLUICE_GQL_OBJECT_DEFINITION, SLUICE_GQL_OBJECT_EXTENSION, SLUICE_GQL_KIND_OBJECT },
        { SLUICE_GQL_INTERFACE_DEFINITION, SLUICE_GQL_INTERFACE_EXTENSION,
          SLUICE_GQL_KIND_INTERFACE },
        { SLUICE_GQL_UNION_DEFINITION, SLUICE_GQL_UNION_EXTENSION, SLUICE_GQL_KIND_UNION },
        { SLUICE_GQL_ENUM_DEFINITION, SLUICE_GQL_ENUM_EXTENSION, SLUICE_GQL_KIND_ENUM },
        { SLUICE_GQL_INPUT_DEFINITION, SLUICE_GQL_INPUT_EXTENSION, SLUICE_GQL_KIND_INPUT_OBJECT },
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (map[i].def == k || map[i].ext == k) {
            *out = map[i].kind;
            *ext = map[i].ext == k;
            return true;
        }
    }
    return false;
}

/* ---- lookups -------------------------------------------------------------------------- */

const sluice_gql_schema_type *
sluice_graphql_schema_type(const sluice_gql_schema *schema, const char *name, size_t len)
{
    size_t lo = 0, hi = schema->type_count;
    sluice_gql_str key = { name, len };
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compare_names(schema->types[mid]->name, key);
        if (c == 0)
            return schema->types[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const sluice_gql_schema_field *
sluice_graphql_schema_field(const sluice_gql_schema_type *type, const char *name, size_t len)
{
    for (size_t i = 0; type != NULL && i < type->field_count; i++) {
        if (same(type->fields[i].name, name, len))
            return &type->fields[i];
    }
    return NULL;
}

const sluice_gql_schema_directive *
sluice_graphql_schema_directive(const sluice_gql_schema *schema, const char *name, size_t len)
{
    for (size_t i = 0; i < schema->directive_count; i++) {
        if (same(schema->directives[i].name, name, len))
            return &schema->directives[i];
    }
    return NULL;
}

bool sluice_graphql_schema_possible(const sluice_gql_schema_type *abstract,
                                    const sluice_gql_schema_type *object)
{
    if (abstract == object)
        return true;
    for (size_t i = 0; abstract->kind == SLUICE_GQL_KIND_UNION && i < abstract->member_count; i++) {
        if (abstract->members[i] == object)
            return true;
    }
    for (size_t i = 0; i < object->interface_count; i++) {
        if (object->interfaces[i] == abstract)
            return true;
    }
    return false;
}

static const sluice_gql_schema_type *lookup(builder *b, sluice_gql_str name)
{
    return sluice_graphql_schema_type(b->schema, name.ptr, name.len);
}

static const sluice_gql_type *named_of(const sluice_gql_type *t)
{
    while (t->kind != SLUICE_GQL_NAMED_TYPE)
        t = t->of;
    return t;
}

/* ---- collecting definitions ----------------------------------------------------------- */

static bool is_meta(const sluice_gql_definition *d)
{
    return same(d->name, META, sizeof(META) - 1);
}

static size_t count_type_definitions(const sluice_gql_document *doc)
{
    size_t n = 0;
    sluice_gql_named_kind k;
    bool ext;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next)
        n += named_kind_of(d->kind, &k, &ext) && !ext;
    return n;
}

static sluice_status
add_definitions(builder *b, const sluice_gql_document *doc, bool builtin, size_t *n)
{
    sluice_gql_named_kind k;
    bool ext;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        if (!named_kind_of(d->kind, &k, &ext) || ext || (builtin && is_meta(d)))
            continue;
        entry *e = sluice_arena_calloc(b->arena, 1, sizeof(*e));
        if (e == NULL)
            return nomem(b);
        e->type.kind = k;
        e->type.name = d->name;
        e->type.builtin = builtin;
        e->type.offset = d->offset;
        e->defs = sluice_arena_calloc(b->arena, 1, sizeof(*e->defs));
        if (e->defs == NULL)
            return nomem(b);
        e->defs->def = d;
        e->tail = &e->defs->next;
        b->schema->types[(*n)++] = &e->type;
    }
    return SLUICE_OK;
}

/* Sorts the types and refuses a name defined twice (a built-in scalar may be restated). */
static sluice_status sort_types(builder *b)
{
    sluice_gql_schema *s = b->schema;
    qsort(s->types, s->type_count, sizeof(*s->types), compare_types);
    size_t o = 0;
    for (size_t i = 0; i < s->type_count; i++) {
        sluice_gql_schema_type *t = s->types[i];
        if (o > 0 && compare_names(s->types[o - 1]->name, t->name) == 0) {
            if (s->types[o - 1]->builtin && t->kind == SLUICE_GQL_KIND_SCALAR)
                continue;
            return refuse(b, t->offset, "merge the definitions, or add to one with `extend`",
                          "type \"%.*s\" is defined more than once", (int)t->name.len, t->name.ptr);
        }
        s->types[o++] = t;
    }
    s->type_count = o;
    return SLUICE_OK;
}

/* Attaches each extension to its type; refuses operations and fragments. */
static sluice_status attach_extensions(builder *b, const sluice_gql_document *doc)
{
    sluice_gql_named_kind k;
    bool ext;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        if (d->kind == SLUICE_GQL_OPERATION_DEFINITION || d->kind == SLUICE_GQL_FRAGMENT_DEFINITION)
            return refuse(b, d->offset, "keep operations in the code you send, not in the schema",
                          "a schema holds type definitions, not operations or fragments");
        if (d->kind == SLUICE_GQL_SCHEMA_DEFINITION) {
            if (b->schema_def != NULL)
                return refuse(b, d->offset,
                              "keep one `schema { ... }`; extend it with "
                              "`extend schema`",
                              "the schema is defined more than once");
            b->schema_def = d;
        }
        if (!named_kind_of(d->kind, &k, &ext) || !ext)
            continue;
        entry *e = (entry *)lookup(b, d->name);
        if (e == NULL)
            return refuse(b, d->offset, "define the type before extending it",
                          "cannot extend type \"%.*s\": it is not defined", (int)d->name.len,
                          d->name.ptr);
        if (e->type.kind != k)
            return refuse(b, d->offset, NULL, "cannot extend \"%.*s\" as %s: it is %s",
                          (int)d->name.len, d->name.ptr, kind_word(k), kind_word(e->type.kind));
        def_link *l = sluice_arena_calloc(b->arena, 1, sizeof(*l));
        if (l == NULL)
            return nomem(b);
        l->def = d;
        *e->tail = l;
        e->tail = &l->next;
    }
    return SLUICE_OK;
}

/* ---- members -------------------------------------------------------------------------- */

/* Resolves an argument or input field; input types only. what names it in errors. */
static sluice_status resolve_input(builder *b,
                                   const sluice_gql_input_value *v,
                                   sluice_gql_schema_input *out,
                                   const char *what)
{
    const sluice_gql_type *named = named_of(v->type);
    out->name = v->name;
    out->type = v->type;
    out->default_value = v->default_value;
    out->named = lookup(b, named->name);
    if (out->named == NULL)
        return refuse(b, named->offset, "define the type, or correct its name",
                      "%s has unknown type \"%.*s\"", what, (int)named->name.len, named->name.ptr);
    sluice_gql_named_kind k = out->named->kind;
    if (k != SLUICE_GQL_KIND_SCALAR && k != SLUICE_GQL_KIND_ENUM &&
        k != SLUICE_GQL_KIND_INPUT_OBJECT)
        return refuse(b, named->offset,
                      "arguments and input fields take scalars, enums or "
                      "input types",
                      "%s cannot take \"%.*s\", which is %s", what, (int)named->name.len,
                      named->name.ptr, kind_word(k));
    return SLUICE_OK;
}

static size_t count_inputs(const sluice_gql_input_value *v)
{
    size_t n = 0;
    for (; v != NULL; v = v->next)
        n++;
    return n;
}

/* Resolves a list of input values into a new array; refuses a name used twice. */
static sluice_status resolve_inputs(builder *b,
                                    const sluice_gql_input_value *list,
                                    sluice_gql_schema_input **out,
                                    size_t *count,
                                    const char *owner)
{
    size_t n = count_inputs(list), k = 0;
    *out = sluice_arena_calloc(b->arena, n ? n : 1, sizeof(**out));
    if (*out == NULL)
        return nomem(b);
    for (const sluice_gql_input_value *v = list; v != NULL; v = v->next, k++) {
        const char *what =
            sluice_arena_printf(b->arena, "\"%s%.*s\"", owner, (int)v->name.len, v->name.ptr);
        if (what == NULL)
            return nomem(b);
        for (size_t i = 0; i < k; i++) {
            if (compare_names((*out)[i].name, v->name) == 0)
                return refuse(b, v->offset, NULL, "%s is defined more than once", what);
        }
        sluice_status st = resolve_input(b, v, &(*out)[k], what);
        if (st != SLUICE_OK)
            return st;
    }
    *count = n;
    return SLUICE_OK;
}

static sluice_status resolve_field(builder *b,
                                   const sluice_gql_schema_type *t,
                                   const sluice_gql_field_definition *f,
                                   sluice_gql_schema_field *out)
{
    const sluice_gql_type *named = named_of(f->type);
    out->name = f->name;
    out->type = f->type;
    out->definition = f;
    out->named = lookup(b, named->name);
    if (out->named == NULL)
        return refuse(b, named->offset, "define the type, or correct its name",
                      "field \"%.*s.%.*s\" has unknown type \"%.*s\"", (int)t->name.len,
                      t->name.ptr, (int)f->name.len, f->name.ptr, (int)named->name.len,
                      named->name.ptr);
    if (out->named->kind == SLUICE_GQL_KIND_INPUT_OBJECT)
        return refuse(b, named->offset,
                      "fields return scalars, enums, objects, interfaces or "
                      "unions",
                      "field \"%.*s.%.*s\" cannot return the input type \"%.*s\"", (int)t->name.len,
                      t->name.ptr, (int)f->name.len, f->name.ptr, (int)named->name.len,
                      named->name.ptr);
    char *owner = sluice_arena_printf(b->arena, "%.*s.%.*s(", (int)t->name.len, t->name.ptr,
                                      (int)f->name.len, f->name.ptr);
    if (owner == NULL)
        return nomem(b);
    sluice_gql_schema_input *args;
    sluice_status st = resolve_inputs(b, f->arguments, &args, &out->arg_count, owner);
    out->args = args;
    return st;
}

/* Fields of an object or interface from its definition and every extension. */
static sluice_status build_fields(builder *b, entry *e)
{
    size_t n = 0, k = 0;
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_field_definition *f = l->def->fields; f != NULL; f = f->next)
            n++;
    }
    e->type.fields = sluice_arena_calloc(b->arena, n ? n : 1, sizeof(*e->type.fields));
    if (e->type.fields == NULL)
        return nomem(b);
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_field_definition *f = l->def->fields; f != NULL; f = f->next) {
            if (sluice_graphql_schema_field(&e->type, f->name.ptr, f->name.len) != NULL)
                return refuse(b, f->offset, NULL, "field \"%.*s.%.*s\" is defined more than once",
                              (int)e->type.name.len, e->type.name.ptr, (int)f->name.len,
                              f->name.ptr);
            sluice_status st = resolve_field(b, &e->type, f, &e->type.fields[k]);
            if (st != SLUICE_OK)
                return st;
            e->type.field_count = ++k;
        }
    }
    return SLUICE_OK;
}

/* Interfaces (want INTERFACE) or union members (want OBJECT) from every definition part. */
static sluice_status build_names(builder *b, entry *e, bool interfaces)
{
    size_t n = 0, k = 0;
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_name_list *m = interfaces ? l->def->interfaces : l->def->members;
             m != NULL; m = m->next)
            n++;
    }
    const sluice_gql_schema_type **out = sluice_arena_calloc(b->arena, n ? n : 1, sizeof(*out));
    if (out == NULL)
        return nomem(b);
    sluice_gql_named_kind want = interfaces ? SLUICE_GQL_KIND_INTERFACE : SLUICE_GQL_KIND_OBJECT;
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_name_list *m = interfaces ? l->def->interfaces : l->def->members;
             m != NULL; m = m->next) {
            const sluice_gql_schema_type *t = lookup(b, m->name);
            if (t == NULL || t->kind != want)
                return refuse(b, m->offset, NULL, "\"%.*s\" %s \"%.*s\", which is %s",
                              (int)e->type.name.len, e->type.name.ptr,
                              interfaces ? "implements" : "has the member", (int)m->name.len,
                              m->name.ptr, t == NULL ? "not defined" : kind_word(t->kind));
            out[k++] = t;
        }
    }
    if (interfaces) {
        e->type.interfaces = out;
        e->type.interface_count = k;
    } else {
        e->type.members = out;
        e->type.member_count = k;
    }
    return SLUICE_OK;
}

static sluice_status build_values(builder *b, entry *e)
{
    size_t n = 0;
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_enum_value *v = l->def->values; v != NULL; v = v->next)
            n++;
    }
    e->type.values = sluice_arena_calloc(b->arena, n ? n : 1, sizeof(*e->type.values));
    if (e->type.values == NULL)
        return nomem(b);
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        for (const sluice_gql_enum_value *v = l->def->values; v != NULL; v = v->next) {
            for (size_t i = 0; i < e->type.value_count; i++) {
                if (compare_names(e->type.values[i], v->name) == 0)
                    return refuse(
                        b, v->offset, NULL, "enum value \"%.*s.%.*s\" is defined more than once",
                        (int)e->type.name.len, e->type.name.ptr, (int)v->name.len, v->name.ptr);
            }
            e->type.values[e->type.value_count++] = v->name;
        }
    }
    return SLUICE_OK;
}

static sluice_status build_input_fields(builder *b, entry *e)
{
    size_t n = 0, k = 0;
    for (def_link *l = e->defs; l != NULL; l = l->next)
        n += count_inputs(l->def->input_fields);
    sluice_gql_schema_input *all = sluice_arena_calloc(b->arena, n ? n : 1, sizeof(*all));
    char *owner = sluice_arena_printf(b->arena, "%.*s.", (int)e->type.name.len, e->type.name.ptr);
    if (all == NULL || owner == NULL)
        return nomem(b);
    for (def_link *l = e->defs; l != NULL; l = l->next) {
        sluice_gql_schema_input *part;
        size_t count;
        sluice_status st = resolve_inputs(b, l->def->input_fields, &part, &count, owner);
        if (st != SLUICE_OK)
            return st;
        for (size_t i = 0; i < count; i++) {
            for (size_t j = 0; j < k; j++) {
                if (compare_names(all[j].name, part[i].name) == 0)
                    return refuse(b, l->def->offset, NULL,
                                  "input field \"%s%.*s\" is defined more than once", owner,
                                  (int)part[i].name.len, part[i].name.ptr);
            }
            all[k++] = part[i];
        }
    }
    e->type.input_fields = all;
    e->type.input_field_count = k;
    return SLUICE_OK;
}

static sluice_status build_type(builder *b, entry *e)
{
    switch (e->type.kind) {
    case SLUICE_GQL_KIND_OBJECT:
    case SLUICE_GQL_KIND_INTERFACE: {
        sluice_status st = build_fields(b, e);
        return st != SLUICE_OK ? st : build_names(b, e, true);
    }
    case SLUICE_GQL_KIND_UNION:
        return build_names(b, e, false);
    case SLUICE_GQL_KIND_ENUM:
        return build_values(b, e);
    case SLUICE_GQL_KIND_INPUT_OBJECT:
        return build_input_fields(b, e);
    default:
        return SLUICE_OK;
    }
}

/* An object or interface has every field of every interface it implements (by name; the
 * field types are trusted to the upstream server, which enforced them when it started). */
static sluice_status check_interfaces(builder *b, const sluice_gql_schema_type *t)
{
    for (size_t i = 0; i < t->interface_count; i++) {
        const sluice_gql_schema_type *iface = t->interfaces[i];
        for (size_t f = 0; f < iface->field_count; f++) {
            sluice_gql_str name = iface->fields[f].name;
            if (sluice_graphql_schema_field(t, name.ptr, name.len) == NULL)
                return refuse(b, t->offset, "add the field, or drop the interface",
                              "\"%.*s\" does not provide the field \"%.*s.%.*s\" of its interface",
                              (int)t->name.len, t->name.ptr, (int)iface->name.len, iface->name.ptr,
                              (int)name.len, name.ptr);
        }
    }
    return SLUICE_OK;
}

/* ---- directives and roots ------------------------------------------------------------- */

static sluice_status add_directives(builder *b, const sluice_gql_document *doc, bool builtin)
{
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        if (d->kind != SLUICE_GQL_DIRECTIVE_DEFINITION)
            continue;
        sluice_gql_schema_directive *dir =
            (sluice_gql_schema_directive *)sluice_graphql_schema_directive(b->schema, d->name.ptr,
                                                                           d->name.len);
        if (dir == NULL)
            dir = &b->schema->directives[b->schema->directive_count++];
        else if (!dir->builtin) /* a user definition replaces a built-in one, once */
            return refuse(b, d->offset, NULL, "directive \"@%.*s\" is defined more than once",
                          (int)d->name.len, d->name.ptr);
        dir->builtin = builtin;
        char *owner = sluice_arena_printf(b->arena, "@%.*s(", (int)d->name.len, d->name.ptr);
        if (owner == NULL)
            return nomem(b);
        dir->name = d->name;
        dir->locations = d->members;
        dir->repeatable = d->repeatable;
        sluice_gql_schema_input *args;
        sluice_status st = resolve_inputs(b, d->input_fields, &args, &dir->arg_count, owner);
        if (st != SLUICE_OK)
            return st;
        dir->args = args;
    }
    return SLUICE_OK;
}

static sluice_status root(builder *b, const sluice_gql_operation_type *o)
{
    const sluice_gql_schema_type *t = lookup(b, o->type);
    if (t == NULL || t->kind != SLUICE_GQL_KIND_OBJECT)
        return refuse(b, o->offset, NULL, "the root type \"%.*s\" is %s, not an object type",
                      (int)o->type.len, o->type.ptr,
                      t == NULL ? "not defined" : kind_word(t->kind));
    const sluice_gql_schema_type **slot = o->operation == SLUICE_GQL_QUERY ? &b->schema->query
                                          : o->operation == SLUICE_GQL_MUTATION
                                              ? &b->schema->mutation
                                              : &b->schema->subscription;
    if (*slot != NULL)
        return refuse(b, o->offset, NULL, "the root type for %s is given more than once",
                      o->operation == SLUICE_GQL_QUERY      ? "query"
                      : o->operation == SLUICE_GQL_MUTATION ? "mutation"
                                                            : "subscription");
    *slot = t;
    return SLUICE_OK;
}

/* Roots from schema { } and its extensions, else the conventional names. */
static sluice_status find_roots(builder *b, const sluice_gql_document *doc)
{
    bool explicit_roots = false;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        if (d->kind != SLUICE_GQL_SCHEMA_DEFINITION && d->kind != SLUICE_GQL_SCHEMA_EXTENSION)
            continue;
        explicit_roots = true;
        for (const sluice_gql_operation_type *o = d->operation_types; o != NULL; o = o->next) {
            sluice_status st = root(b, o);
            if (st != SLUICE_OK)
                return st;
        }
    }
    if (!explicit_roots) {
        const sluice_gql_schema_type *q = sluice_graphql_schema_type(b->schema, "Query", 5);
        const sluice_gql_schema_type *m = sluice_graphql_schema_type(b->schema, "Mutation", 8);
        const sluice_gql_schema_type *s = sluice_graphql_schema_type(b->schema, "Subscription", 12);
        b->schema->query = q != NULL && q->kind == SLUICE_GQL_KIND_OBJECT ? q : NULL;
        b->schema->mutation = m != NULL && m->kind == SLUICE_GQL_KIND_OBJECT ? m : NULL;
        b->schema->subscription = s != NULL && s->kind == SLUICE_GQL_KIND_OBJECT ? s : NULL;
    }
    if (b->schema->query == NULL)
        return refuse(b, 0,
                      "define `type Query { ... }`, or name the query type in `schema { "
                      "query: ... }`",
                      "the schema has no query type");
    return SLUICE_OK;
}

/* The meta fields, from the META definition, in the order it declares them. */
static sluice_status build_meta(builder *b, const sluice_gql_document *builtins)
{
    entry *e = sluice_arena_calloc(b->arena, 1, sizeof(*e));
    if (e == NULL)
        return nomem(b);
    for (const sluice_gql_definition *d = builtins->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_OBJECT_DEFINITION && is_meta(d)) {
            def_link only = { d, NULL };
            e->type = (sluice_gql_schema_type){ .kind = SLUICE_GQL_KIND_OBJECT, .name = d->name };
            e->defs = &only;
            sluice_status st = build_fields(b, e);
            e->defs = NULL;
            if (st != SLUICE_OK)
                return st;
        }
    if (e->type.field_count != 3)
        return refuse(b, 0, NULL, "the built-in meta fields are missing (a bug in sluice)");
    b->schema->meta_schema = &e->type.fields[0];
    b->schema->meta_type = &e->type.fields[1];
    b->schema->meta_typename = &e->type.fields[2];
    return SLUICE_OK;
}

/* ---- entry point ---------------------------------------------------------------------- */

static sluice_status
build(builder *b, const sluice_gql_document *builtins, const sluice_gql_document *user)
{
    sluice_gql_schema *s = b->schema;
    size_t n = count_type_definitions(builtins) + count_type_definitions(user), directives = 0;
    for (const sluice_gql_document *doc = builtins; doc != NULL; doc = doc == user ? NULL : user) {
        for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next)
            directives += d->kind == SLUICE_GQL_DIRECTIVE_DEFINITION;
    }
    s->types = sluice_arena_calloc(b->arena, n, sizeof(*s->types));
    s->directives = sluice_arena_calloc(b->arena, directives, sizeof(*s->directives));
    if (s->types == NULL || s->directives == NULL)
        return nomem(b);
    sluice_status st;
    if ((st = add_definitions(b, builtins, true, &s->type_count)) != SLUICE_OK ||
        (st = add_definitions(b, user, false, &s->type_count)) != SLUICE_OK ||
        (st = sort_types(b)) != SLUICE_OK || (st = attach_extensions(b, user)) != SLUICE_OK ||
        (st = add_directives(b, builtins, true)) != SLUICE_OK ||
        (st = add_directives(b, user, false)) != SLUICE_OK)
        return st;
    for (size_t i = 0; i < s->type_count; i++) {
        if ((st = build_type(b, (entry *)s->types[i])) != SLUICE_OK)
            return st;
    }
    for (size_t i = 0; i < s->type_count; i++) {
        if ((st = check_interfaces(b, s->types[i])) != SLUICE_OK)
            return st;
    }
    if ((st = build_meta(b, builtins)) != SLUICE_OK)
        return st;
    return find_roots(b, user);
}

sluice_status sluice_graphql_schema_build(sluice_arena *arena,
                                          const char *sdl,
                                          size_t len,
                                          const char *source,
                                          sluice_gql_schema **out,
                                          sluice_error *err)
{
    sluice_graphql_limits limits = sluice_graphql_sdl_limits();
    sluice_gql_document *builtins, *user;
    sluice_status st = sluice_graphql_parse(arena, BUILTINS, sizeof(BUILTINS) - 1, "<builtins>",
                                            &limits, &builtins, err);
    if (st != SLUICE_OK)
        return st;
    if ((st = sluice_graphql_parse(arena, sdl, len, source, &limits, &user, err)) != SLUICE_OK)
        return st;
    builder b = { arena, sdl, len, source != NULL ? source : "<schema>", err, NULL, NULL };
    b.schema = sluice_arena_calloc(arena, 1, sizeof(*b.schema));
    if (b.schema == NULL)
        return nomem(&b);
    b.schema->document = user;
    if ((st = build(&b, builtins, user)) != SLUICE_OK)
        return st;
    *out = b.schema;
    return SLUICE_OK;
}
