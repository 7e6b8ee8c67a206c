/*
 * types.c — questions about GraphQL types, selections and blocked names over the schema model
 * and the syntax tree (see types.h).
 */
#include "syntax/graphql/types.h"

#include <string.h>
#include <strings.h>

bool sluice_gql_same(sluice_gql_str a, sluice_gql_str b)
{
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

bool sluice_gql_is(const char *p, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(p, name, len) == 0;
}

sluice_gql_str sluice_gql_type_name(const sluice_gql_type *t)
{
    while (t->kind != SLUICE_GQL_NAMED_TYPE)
        t = t->of;
    return t->name;
}

const sluice_gql_schema_type *sluice_gql_type_named(const sluice_gql_schema *s, sluice_gql_str name)
{
    return sluice_graphql_schema_type(s, name.ptr, name.len);
}

const sluice_gql_schema_type *sluice_gql_named(const sluice_gql_schema *s, const sluice_gql_type *t)
{
    return sluice_gql_type_named(s, sluice_gql_type_name(t));
}

const char *sluice_gql_type_text(sluice_arena *arena, const sluice_gql_type *t)
{
    const char *s = NULL;
    switch (t->kind) {
    case SLUICE_GQL_NAMED_TYPE:
        s = sluice_arena_strndup(arena, t->name.ptr, t->name.len);
        break;
    case SLUICE_GQL_LIST_TYPE:
        s = sluice_arena_printf(arena, "[%s]", sluice_gql_type_text(arena, t->of));
        break;
    case SLUICE_GQL_NON_NULL_TYPE:
        s = sluice_arena_printf(arena, "%s!", sluice_gql_type_text(arena, t->of));
        break;
    }
    return s != NULL ? s : "?";
}

const char *sluice_gql_value_text(sluice_arena *arena, const sluice_gql_value *v)
{
    const char *s = NULL;
    switch (v->kind) {
    case SLUICE_GQL_VARIABLE:
        s = sluice_arena_printf(arena, "$%.*s", (int)v->text.len, v->text.ptr);
        break;
    case SLUICE_GQL_STRING:
        s = sluice_arena_printf(arena, "\"%.*s\"", (int)(v->text.len > 40 ? 40 : v->text.len),
                                v->text.ptr);
        break;
    case SLUICE_GQL_BOOLEAN:
        s = v->boolean ? "true" : "false";
        break;
    case SLUICE_GQL_NULL:
        s = "null";
        break;
    case SLUICE_GQL_LIST:
        s = "a list";
        break;
    case SLUICE_GQL_OBJECT:
        s = "an object";
        break;
    default:
        s = sluice_arena_strndup(arena, v->text.ptr, v->text.len);
        break;
    }
    return s != NULL ? s : "?";
}

const sluice_gql_schema_input *sluice_gql_input_field(const sluice_gql_schema_type *t,
                                                      sluice_gql_str name)
{
    for (size_t i = 0; i < t->input_field_count; i++)
        if (sluice_gql_same(t->input_fields[i].name, name))
            return &t->input_fields[i];
    return NULL;
}

bool sluice_gql_enum_has(const sluice_gql_schema_type *t, sluice_gql_str value)
{
    for (size_t i = 0; i < t->value_count; i++)
        if (sluice_gql_same(t->values[i], value))
            return true;
    return false;
}

bool sluice_gql_composite(const sluice_gql_schema_type *t)
{
    return t->kind == SLUICE_GQL_KIND_OBJECT || t->kind == SLUICE_GQL_KIND_INTERFACE ||
           t->kind == SLUICE_GQL_KIND_UNION;
}

bool sluice_gql_input(const sluice_gql_schema_type *t)
{
    return t->kind == SLUICE_GQL_KIND_SCALAR || t->kind == SLUICE_GQL_KIND_ENUM ||
           t->kind == SLUICE_GQL_KIND_INPUT_OBJECT;
}

bool sluice_gql_leaf(const sluice_gql_schema_type *t)
{
    return t->kind == SLUICE_GQL_KIND_SCALAR || t->kind == SLUICE_GQL_KIND_ENUM;
}

static bool can_be(const sluice_gql_schema_type *abstract, const sluice_gql_schema_type *object)
{
    return abstract == object || sluice_graphql_schema_possible(abstract, object);
}

bool sluice_gql_overlap(const sluice_gql_schema *s,
                        const sluice_gql_schema_type *a,
                        const sluice_gql_schema_type *b)
{
    if (a == b)
        return true;
    if (a->kind == SLUICE_GQL_KIND_OBJECT)
        return can_be(b, a);
    if (b->kind == SLUICE_GQL_KIND_OBJECT)
        return can_be(a, b);
    for (size_t i = 0; i < s->type_count; i++) {
        const sluice_gql_schema_type *o = s->types[i];
        if (o->kind == SLUICE_GQL_KIND_OBJECT && can_be(a, o) && can_be(b, o))
            return true;
    }
    return false;
}

bool sluice_gql_subtype(const sluice_gql_type *var, const sluice_gql_type *loc)
{
    if (loc->kind == SLUICE_GQL_NON_NULL_TYPE)
        return var->kind == SLUICE_GQL_NON_NULL_TYPE && sluice_gql_subtype(var->of, loc->of);
    if (var->kind == SLUICE_GQL_NON_NULL_TYPE)
        return sluice_gql_subtype(var->of, loc);
    if (loc->kind == SLUICE_GQL_LIST_TYPE)
        return var->kind == SLUICE_GQL_LIST_TYPE && sluice_gql_subtype(var->of, loc->of);
    if (var->kind == SLUICE_GQL_LIST_TYPE)
        return false;
    return sluice_gql_same(var->name, loc->name);
}

bool sluice_gql_introspection_root(sluice_gql_str name)
{
    return sluice_gql_is(name.ptr, name.len, "__schema") ||
           sluice_gql_is(name.ptr, name.len, "__type");
}

const sluice_gql_schema_field *sluice_gql_field_def(const sluice_gql_schema *s,
                                                    const sluice_gql_schema_type *t,
                                                    sluice_gql_str name)
{
    if (t == s->query && sluice_gql_is(name.ptr, name.len, "__schema"))
        return s->meta_schema;
    if (t == s->query && sluice_gql_is(name.ptr, name.len, "__type"))
        return s->meta_type;
    if (sluice_gql_composite(t) && sluice_gql_is(name.ptr, name.len, "__typename"))
        return s->meta_typename;
    return sluice_graphql_schema_field(t, name.ptr, name.len);
}

bool sluice_gql_meta_type(const sluice_gql_schema_type *t)
{
    return t->builtin && t->name.len > 2 && t->name.ptr[0] == '_' && t->name.ptr[1] == '_';
}

const sluice_gql_definition *sluice_gql_select_operation(const sluice_gql_document *doc,
                                                         const char *operation_name)
{
    const sluice_gql_definition *found = NULL;
    size_t n = 0;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next) {
        if (d->kind != SLUICE_GQL_OPERATION_DEFINITION)
            continue;
        n++;
        if (operation_name == NULL)
            found = d;
        else if (d->name.ptr != NULL && sluice_gql_is(d->name.ptr, d->name.len, operation_name))
            return d;
    }
    return operation_name == NULL && n == 1 ? found : NULL;
}

bool sluice_gql_blocked(const sluice_strlist *const blocked[2],
                        const char *type,
                        size_t type_len,
                        const char *field,
                        size_t field_len)
{
    for (size_t k = 0; k < 2; k++) {
        const sluice_strlist *l = blocked[k];
        for (size_t i = 0; l != NULL && i < l->count; i++) {
            const char *item = l->items[i];
            const char *dot = strrchr(item, '.');
            const char *name = dot != NULL ? dot + 1 : item;
            if (strlen(name) != field_len || strncasecmp(name, field, field_len) != 0)
                continue;
            if (dot == NULL ||
                ((size_t)(dot - item) == type_len && strncasecmp(item, type, type_len) == 0))
                return true;
        }
    }
    return false;
}

/* Blocked on object or interface o itself, or on an interface it implements: a field an
 * interface blocks is blocked in every implementation, whichever type the selection names. */
static bool blocked_or_inherited(const sluice_strlist *const blocked[2],
                                 const sluice_gql_schema_type *o,
                                 sluice_gql_str name)
{
    if (sluice_gql_blocked(blocked, o->name.ptr, o->name.len, name.ptr, name.len))
        return true;
    for (size_t i = 0; i < o->interface_count; i++)
        if (sluice_gql_blocked(blocked, o->interfaces[i]->name.ptr, o->interfaces[i]->name.len,
                               name.ptr, name.len))
            return true;
    return false;
}

bool sluice_gql_blocked_on(const sluice_strlist *const blocked[2],
                           const sluice_gql_schema *schema,
                           const sluice_gql_schema_type *t,
                           sluice_gql_str name)
{
    if (blocked_or_inherited(blocked, t, name))
        return true;
    if (t->kind == SLUICE_GQL_KIND_OBJECT)
        return false;
    /* through an interface or union: blocked when it is on any type it can be */
    for (size_t i = 0; i < schema->type_count; i++) {
        const sluice_gql_schema_type *o = schema->types[i];
        if (o->kind == SLUICE_GQL_KIND_OBJECT && sluice_graphql_schema_possible(t, o) &&
            blocked_or_inherited(blocked, o, name))
            return true;
    }
    return false;
}
