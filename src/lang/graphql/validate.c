/*
 * validate.c — the spec's validation rules for executable documents (see validate.h).
 *
 * Owns: ExecutableDefinitions, UniqueOperationNames, LoneAnonymousOperation, KnownTypeNames,
 * FragmentsOnCompositeTypes, VariablesAreInputTypes, ScalarLeafs, FieldsOnCorrectType,
 * UniqueFragmentNames, KnownFragmentNames, NoUnusedFragments, PossibleFragmentSpreads,
 * NoFragmentCycles, UniqueVariableNames, NoUndefinedVariables, NoUnusedVariables,
 * KnownDirectives, UniqueDirectivesPerLocation, KnownArgumentNames, UniqueArgumentNames,
 * ValuesOfCorrectType, ProvidedRequiredArguments, VariablesInAllowedPosition,
 * UniqueInputFieldNames; OverlappingFieldsCanBeMerged (overlap.c) once all of these pass.
 * Every definition is checked (as graphql-js does), not only the operation that will run.
 * Does not own: limits, blocked fields, operation selection (operation.c).
 */
#include "lang/graphql/validate.h"

#include "lang/graphql/overlap.h"
#include "lang/graphql/vcommon.h"
#include "syntax/graphql/suggest.h"

#include <stdlib.h>
#include <string.h>

/* One variable use: where it stands and what type that place expects. */
typedef struct usage {
    sluice_gql_str name;
    const sluice_gql_type *type;
    bool location_default; /* the argument or input field has a default */
    uint32_t offset;
    struct usage *next;
} usage;

typedef struct spread {
    sluice_gql_str name;
    uint32_t offset;
    struct spread *next;
} spread;

/* What the walk learns of one operation or fragment definition. */
typedef struct defn {
    const sluice_gql_definition *def;
    usage *usages;
    spread *spreads;
    int mark; /* 0 unvisited, 1 on the stack, 2 done (cycle search); reachability */
    bool reached;
} defn;

typedef struct walker {
    sluice_gql_vctx v;
    defn *defs;
    size_t def_count;
    defn *cur;
} walker;

static const char *const EXECUTABLE_LOCATION[] = {
    [SLUICE_GQL_QUERY] = "QUERY",
    [SLUICE_GQL_MUTATION] = "MUTATION",
    [SLUICE_GQL_SUBSCRIPTION] = "SUBSCRIPTION",
};

/* graphql-js's didYouMean(sub, suggestionList(input, options)): the options within a typo's
 * distance of input, as the sentence that offers them; "" when none is close. */
static const char *did_you_mean(
    walker *w, const char *sub, sluice_gql_str input, const sluice_gql_str *options, size_t count)
{
    sluice_gql_str *names = NULL;
    size_t n = sluice_gql_suggestion_list(w->v.arena, input, options, count, &names);
    return sluice_gql_did_you_mean(w->v.arena, sub, names, n);
}

/* Whether graphql-js's type map holds the built-in scalar t: it adds Int, Float and ID only
 * where the schema refers to them (String and Boolean always: introspection uses them), so
 * "Did you mean" offers them only then. */
static bool in_type_map(const sluice_gql_schema *schema, const sluice_gql_schema_type *t)
{
    if (!t->builtin || t->kind != SLUICE_GQL_KIND_SCALAR ||
        !(sluice_gql_is(t->name.ptr, t->name.len, "Int") ||
          sluice_gql_is(t->name.ptr, t->name.len, "Float") ||
          sluice_gql_is(t->name.ptr, t->name.len, "ID")))
        return true;
    for (const sluice_gql_definition *d = schema->document->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_SCALAR_DEFINITION && sluice_gql_same(d->name, t->name))
            return true; /* restated in the SDL: buildSchema keeps it */
    for (size_t i = 0; i < schema->type_count; i++) {
        const sluice_gql_schema_type *u = schema->types[i];
        for (size_t f = 0; f < u->field_count; f++) {
            if (u->fields[f].named == t)
                return true;
            for (size_t a = 0; a < u->fields[f].arg_count; a++)
                if (u->fields[f].args[a].named == t)
                    return true;
        }
        for (size_t f = 0; f < u->input_field_count; f++)
            if (u->input_fields[f].named == t)
                return true;
    }
    for (size_t i = 0; i < schema->directive_count; i++)
        for (size_t a = 0; a < schema->directives[i].arg_count; a++)
            if (schema->directives[i].args[a].named == t)
                return true;
    return false;
}

/* KnownTypeNames, with graphql-js's suggestions over its type map. */
static void unknown_type(walker *w, uint32_t offset, sluice_gql_str name)
{
    const sluice_gql_schema *schema = w->v.schema;
    sluice_gql_str *options =
        sluice_arena_calloc(w->v.arena, schema->type_count + 1, sizeof *options);
    size_t n = 0;
    for (size_t i = 0; options != NULL && i < schema->type_count; i++)
        if (in_type_map(schema, schema->types[i]))
            options[n++] = schema->types[i]->name;
    sluice_gql_bad(&w->v, offset, "KnownTypeNames", "use a type the schema defines",
                   "Unknown type \"%.*s\".%s", (int)name.len, name.ptr,
                   options != NULL ? did_you_mean(w, NULL, name, options, n) : "");
}

/* ---- values ------------------------------------------------------------------------------ */

static void check_value(walker *w,
                        const sluice_gql_value *value,
                        const sluice_gql_type *type,
                        bool location_default);

static void add_usage(walker *w, const sluice_gql_value *v, const sluice_gql_type *t, bool dflt)
{
    if (w->cur == NULL) {
        /* a variable in a default value or other constant place */
        sluice_gql_bad(&w->v, v->offset, "ValuesOfCorrectType", NULL,
                       "Variable \"$%.*s\" is not allowed in a constant value.", (int)v->text.len,
                       v->text.ptr);
        return;
    }
    usage *u = sluice_arena_calloc(w->v.arena, 1, sizeof *u);
    if (u == NULL) {
        w->v.nomem = true;
        return;
    }
    *u = (usage){ v->text, t, dflt, v->offset, w->cur->usages };
    w->cur->usages = u;
}

static bool int32_text(sluice_gql_str s)
{
    if (s.len > 11)
        return false;
    char buf[16];
    memcpy(buf, s.ptr, s.len);
    buf[s.len] = '\0';
    long long n = strtoll(buf, NULL, 10);
    return n >= -2147483648LL && n <= 2147483647LL;
}

static bool scalar_accepts(const sluice_gql_schema_type *t, const sluice_gql_value *v)
{
    if (!t->builtin)
        return true; /* a custom scalar parses any literal */
    const char *n = t->name.ptr;
    size_t len = t->name.len;
    if (sluice_gql_is(n, len, "Int"))
        return v->kind == SLUICE_GQL_INT && int32_text(v->text);
    if (sluice_gql_is(n, len, "Float"))
        return v->kind == SLUICE_GQL_INT || v->kind == SLUICE_GQL_FLOAT;
    if (sluice_gql_is(n, len, "String"))
        return v->kind == SLUICE_GQL_STRING;
    if (sluice_gql_is(n, len, "Boolean"))
        return v->kind == SLUICE_GQL_BOOLEAN;
    return v->kind == SLUICE_GQL_STRING || v->kind == SLUICE_GQL_INT; /* ID */
}

static void check_object(walker *w, const sluice_gql_value *value, const sluice_gql_schema_type *t)
{
    for (const sluice_gql_object_field *of = value->fields; of != NULL; of = of->next) {
        for (const sluice_gql_object_field *p = value->fields; p != of; p = p->next)
            if (sluice_gql_same(p->name, of->name)) {
                sluice_gql_bad(&w->v, of->offset, "UniqueInputFieldNames", NULL,
                               "There can be only one input field named \"%.*s\".",
                               (int)of->name.len, of->name.ptr);
                break;
            }
        const sluice_gql_schema_input *in = sluice_gql_input_field(t, of->name);
        if (in == NULL) {
            sluice_gql_bad(&w->v, of->offset, "ValuesOfCorrectType",
                           "use one of the fields the input type defines",
                           "Field \"%.*s\" is not defined by type \"%.*s\".", (int)of->name.len,
                           of->name.ptr, (int)t->name.len, t->name.ptr);
            continue;
        }
        check_value(w, of->value, in->type, in->default_value != NULL);
    }
    for (size_t i = 0; i < t->input_field_count; i++) {
        const sluice_gql_schema_input *in = &t->input_fields[i];
        if (in->type->kind != SLUICE_GQL_NON_NULL_TYPE || in->default_value != NULL)
            continue;
        bool found = false;
        for (const sluice_gql_object_field *of = value->fields; !found && of != NULL; of = of->next)
            found = sluice_gql_same(of->name, in->name);
        if (!found)
            sluice_gql_bad(&w->v, value->offset, "ValuesOfCorrectType", NULL,
                           "Field \"%.*s.%.*s\" of required type \"%s\" was not provided.",
                           (int)t->name.len, t->name.ptr, (int)in->name.len, in->name.ptr,
                           sluice_gql_type_text(w->v.arena, in->type));
    }
}

static void expected(walker *w, const sluice_gql_value *value, const sluice_gql_type *type)
{
    sluice_gql_bad(&w->v, value->offset, "ValuesOfCorrectType", NULL,
                   "Expected value of type \"%s\", found %s.",
                   sluice_gql_type_text(w->v.arena, type),
                   sluice_gql_value_text(w->v.arena, value));
}

/* ValuesOfCorrectType on an enum: graphql-js's GraphQLEnumType.parseLiteral messages, with the
 * values within a typo's distance of the literal as printed (a string's quotes count, so "OPEN"
 * where OPEN was meant is offered OPEN). A list or an object prints as "a list"/"an object"
 * here, not graphql-js's full value, so it gets no suggestion rather than a wrong one. */
static void bad_enum(walker *w, const sluice_gql_value *value, const sluice_gql_schema_type *t)
{
    const char *text = sluice_gql_value_text(w->v.arena, value);
    sluice_gql_str printed = { text, strlen(text) };
    bool composite = value->kind == SLUICE_GQL_LIST || value->kind == SLUICE_GQL_OBJECT;
    const char *more =
        composite ? "" : did_you_mean(w, "the enum value", printed, t->values, t->value_count);
    if (value->kind != SLUICE_GQL_ENUM)
        sluice_gql_bad(&w->v, value->offset, "ValuesOfCorrectType", "use one of the enum's values",
                       "Enum \"%.*s\" cannot represent non-enum value: %s.%s", (int)t->name.len,
                       t->name.ptr, printed.ptr, more);
    else
        sluice_gql_bad(&w->v, value->offset, "ValuesOfCorrectType", "use one of the enum's values",
                       "Value \"%s\" does not exist in \"%.*s\" enum.%s", printed.ptr,
                       (int)t->name.len, t->name.ptr, more);
}

/* ValuesOfCorrectType (input coercion of literals) and the variable uses inside value. */
static void check_value(walker *w,
                        const sluice_gql_value *value,
                        const sluice_gql_type *type,
                        bool location_default)
{
    if (value->kind == SLUICE_GQL_VARIABLE) {
        add_usage(w, value, type, location_default);
        return;
    }
    if (type->kind == SLUICE_GQL_NON_NULL_TYPE) {
        if (value->kind == SLUICE_GQL_NULL)
            expected(w, value, type);
        else
            check_value(w, value, type->of, false);
        return;
    }
    if (value->kind == SLUICE_GQL_NULL)
        return;
    if (type->kind == SLUICE_GQL_LIST_TYPE) {
        if (value->kind != SLUICE_GQL_LIST) {
            check_value(w, value, type->of, false);
            return;
        }
        for (const sluice_gql_value *it = value->items; it != NULL; it = it->next)
            check_value(w, it, type->of, false);
        return;
    }
    const sluice_gql_schema_type *t = sluice_gql_named(w->v.schema, type);
    if (t == NULL)
        return; /* an unknown variable type was reported where it was declared */
    bool ok = true;
    switch (t->kind) {
    case SLUICE_GQL_KIND_SCALAR:
        ok = value->kind != SLUICE_GQL_LIST && value->kind != SLUICE_GQL_OBJECT
                 ? scalar_accepts(t, value)
                 : !t->builtin;
        break;
    case SLUICE_GQL_KIND_ENUM:
        if (value->kind != SLUICE_GQL_ENUM || !sluice_gql_enum_has(t, value->text)) {
            bad_enum(w, value, t);
            return;
        }
        break;
    case SLUICE_GQL_KIND_INPUT_OBJECT:
        if (value->kind == SLUICE_GQL_OBJECT)
            check_object(w, value, t);
        else
            ok = false;
        break;
    default:
        break;
    }
    if (!ok)
        expected(w, value, type);
}

/* ---- arguments and directives ------------------------------------------------------------ */

/* The variables inside a value no type is known for (an unknown argument): used, not typed. */
static void note_variables(walker *w, const sluice_gql_value *v)
{
    if (v->kind == SLUICE_GQL_VARIABLE)
        add_usage(w, v, NULL, false);
    for (const sluice_gql_value *i = v->items; i != NULL; i = i->next)
        note_variables(w, i);
    for (const sluice_gql_object_field *f = v->fields; f != NULL; f = f->next)
        note_variables(w, f->value);
}

static void check_arguments(walker *w,
                            const sluice_gql_argument *args,
                            const sluice_gql_schema_input *defs,
                            size_t def_count,
                            uint32_t at,
                            const char *what,
                            sluice_gql_str owner)
{
    for (const sluice_gql_argument *a = args; a != NULL; a = a->next) {
        for (const sluice_gql_argument *p = args; p != a; p = p->next)
            if (sluice_gql_same(p->name, a->name)) {
                sluice_gql_bad(&w->v, a->offset, "UniqueArgumentNames", NULL,
                               "There can be only one argument named \"%.*s\".", (int)a->name.len,
                               a->name.ptr);
                break;
            }
        const sluice_gql_schema_input *d = NULL;
        for (size_t i = 0; d == NULL && i < def_count; i++)
            if (sluice_gql_same(defs[i].name, a->name))
                d = &defs[i];
        if (d == NULL) {
            note_variables(w, a->value);
            /* graphql-js's suggestions: the defined arguments within a typo's distance */
            sluice_gql_str *options =
                sluice_arena_calloc(w->v.arena, def_count + 1, sizeof *options);
            for (size_t i = 0; options != NULL && i < def_count; i++)
                options[i] = defs[i].name;
            sluice_gql_bad(
                &w->v, a->offset, "KnownArgumentNames", "use an argument the schema defines",
                "Unknown argument \"%.*s\" on %s \"%.*s\".%s", (int)a->name.len, a->name.ptr, what,
                (int)owner.len, owner.ptr,
                options != NULL ? did_you_mean(w, NULL, a->name, options, def_count) : "");
            continue;
        }
        check_value(w, a->value, d->type, d->default_value != NULL);
    }
    for (size_t i = 0; i < def_count; i++) {
        if (defs[i].type->kind != SLUICE_GQL_NON_NULL_TYPE || defs[i].default_value != NULL)
            continue;
        bool found = false;
        for (const sluice_gql_argument *a = args; !found && a != NULL; a = a->next)
            found = sluice_gql_same(a->name, defs[i].name);
        if (!found)
            sluice_gql_bad(&w->v, at, "ProvidedRequiredArguments", NULL,
                           "%s \"%.*s\" argument \"%.*s\" of type \"%s\" is required, but it was "
                           "not provided.",
                           what[0] == 'f' ? "Field" : "Directive", (int)owner.len, owner.ptr,
                           (int)defs[i].name.len, defs[i].name.ptr,
                           sluice_gql_type_text(w->v.arena, defs[i].type));
    }
}

static bool location_ok(const sluice_gql_schema_directive *d, const char *location)
{
    for (const sluice_gql_name_list *l = d->locations; l != NULL; l = l->next)
        if (sluice_gql_is(l->name.ptr, l->name.len, location))
            return true;
    return false;
}

static void check_directives(walker *w, const sluice_gql_directive *list, const char *location)
{
    for (const sluice_gql_directive *d = list; d != NULL; d = d->next) {
        const sluice_gql_schema_directive *sd =
            sluice_graphql_schema_directive(w->v.schema, d->name.ptr, d->name.len);
        if (sd == NULL) {
            sluice_gql_bad(&w->v, d->offset, "KnownDirectives",
                           "use @include or @skip, or a directive the schema defines",
                           "Unknown directive \"@%.*s\".", (int)d->name.len, d->name.ptr);
            continue;
        }
        if (!location_ok(sd, location))
            sluice_gql_bad(&w->v, d->offset, "KnownDirectives", NULL,
                           "Directive \"@%.*s\" may not be used on %s.", (int)d->name.len,
                           d->name.ptr, location);
        for (const sluice_gql_directive *p = list; !sd->repeatable && p != d; p = p->next)
            if (sluice_gql_same(p->name, d->name)) {
                sluice_gql_bad(&w->v, d->offset, "UniqueDirectivesPerLocation", NULL,
                               "The directive \"@%.*s\" can only be used once at this location.",
                               (int)d->name.len, d->name.ptr);
                break;
            }
        sluice_gql_str owner = { d->name.ptr, d->name.len };
        check_arguments(w, d->arguments, sd->args, sd->arg_count, d->offset, "directive", owner);
    }
}

/* ---- selections -------------------------------------------------------------------------- */

static void
check_selections(walker *w, const sluice_gql_selection *sel, const sluice_gql_schema_type *parent);

static void check_leaf(walker *w, const sluice_gql_selection *s, const sluice_gql_schema_field *fd)
{
    bool leaf =
        fd->named->kind == SLUICE_GQL_KIND_SCALAR || fd->named->kind == SLUICE_GQL_KIND_ENUM;
    const char *type = sluice_gql_type_text(w->v.arena, fd->type);
    if (leaf && s->selections != NULL)
        sluice_gql_bad(&w->v, s->offset, "ScalarLeafs", "remove the braces after this field",
                       "Field \"%.*s\" must not have a selection since type \"%s\" has no "
                       "subfields.",
                       (int)s->name.len, s->name.ptr, type);
    else if (!leaf && s->selections == NULL)
        sluice_gql_bad(&w->v, s->offset, "ScalarLeafs", "select the fields you need in { }",
                       "Field \"%.*s\" of type \"%s\" must have a selection of subfields. Did "
                       "you mean \"%.*s { ... }\"?",
                       (int)s->name.len, s->name.ptr, type, (int)s->name.len, s->name.ptr);
}

/* graphql-js's getSuggestedTypeNames: on an interface or union, the types that have the field,
 * the most common first (an object type counts once, each interface of it that has the field once
 * more), an interface before its implementations, then natural order. */
typedef struct suggested {
    const sluice_gql_schema_type *type;
    size_t uses;
} suggested;

static bool implements(const sluice_gql_schema_type *sub, const sluice_gql_schema_type *iface)
{
    for (size_t i = 0; i < sub->interface_count; i++)
        if (sub->interfaces[i] == iface)
            return true;
    return false;
}

static int by_use(const void *x, const void *y)
{
    const suggested *a = x, *b = y;
    if (a->uses != b->uses)
        return a->uses > b->uses ? -1 : 1;
    if (a->type->kind == SLUICE_GQL_KIND_INTERFACE && implements(b->type, a->type))
        return -1;
    if (b->type->kind == SLUICE_GQL_KIND_INTERFACE && implements(a->type, b->type))
        return 1;
    return sluice_gql_natural_compare(a->type->name, b->type->name);
}

static size_t suggest_types(walker *w,
                            const sluice_gql_schema_type *t,
                            sluice_gql_str field,
                            sluice_gql_str **out)
{
    const sluice_gql_schema *schema = w->v.schema;
    *out = NULL;
    if (t->kind != SLUICE_GQL_KIND_INTERFACE && t->kind != SLUICE_GQL_KIND_UNION)
        return 0;
    suggested *list = sluice_arena_calloc(w->v.arena, schema->type_count + 1, sizeof *list);
    if (list == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < schema->type_count; i++) {
        const sluice_gql_schema_type *o = schema->types[i];
        if (o->kind != SLUICE_GQL_KIND_OBJECT || !sluice_graphql_schema_possible(t, o) ||
            sluice_graphql_schema_field(o, field.ptr, field.len) == NULL)
            continue;
        list[n++] = (suggested){ o, 1 };
        for (size_t k = 0; k < o->interface_count; k++) {
            const sluice_gql_schema_type *iface = o->interfaces[k];
            if (sluice_graphql_schema_field(iface, field.ptr, field.len) == NULL)
                continue;
            size_t at = 0;
            while (at < n && list[at].type != iface)
                at++;
            if (at == n)
                list[n++] = (suggested){ iface, 0 };
            list[at].uses++;
        }
    }
    if (n == 0)
        return 0;
    qsort(list, n, sizeof *list, by_use);
    sluice_gql_str *names = sluice_arena_calloc(w->v.arena, n, sizeof *names);
    if (names == NULL)
        return 0;
    for (size_t i = 0; i < n; i++)
        names[i] = list[i].type->name;
    *out = names;
    return n;
}

/* FieldsOnCorrectType's message, with graphql-js's suggestions: an inline fragment on a type
 * that has the field, else the field names within a typo's distance. */
static void unknown_field(walker *w, const sluice_gql_selection *s, const sluice_gql_schema_type *t)
{
    sluice_gql_str *names;
    size_t n = suggest_types(w, t, s->name, &names);
    const char *more =
        sluice_gql_did_you_mean(w->v.arena, "to use an inline fragment on", names, n);
    if (n == 0 && t->field_count > 0) {
        sluice_gql_str *options = sluice_arena_calloc(w->v.arena, t->field_count, sizeof *options);
        for (size_t i = 0; options != NULL && i < t->field_count; i++)
            options[i] = t->fields[i].name;
        more = options != NULL ? did_you_mean(w, NULL, s->name, options, t->field_count) : "";
    }
    const char *hint = sluice_arena_printf(
        w->v.arena, "select a field of %.*s; the describe tool with name \"%.*s\" lists them",
        (int)t->name.len, t->name.ptr, (int)t->name.len, t->name.ptr);
    sluice_gql_bad(&w->v, s->offset, "FieldsOnCorrectType", hint,
                   "Cannot query field \"%.*s\" on type \"%.*s\".%s", (int)s->name.len, s->name.ptr,
                   (int)t->name.len, t->name.ptr, more);
}

static void check_field(walker *w, const sluice_gql_selection *s, const sluice_gql_schema_type *t)
{
    check_directives(w, s->directives, "FIELD");
    const sluice_gql_schema_field *fd = sluice_gql_field_def(w->v.schema, t, s->name);
    if (fd == NULL) {
        unknown_field(w, s, t);
        return;
    }
    check_arguments(w, s->arguments, fd->args, fd->arg_count, s->offset, "field", s->name);
    check_leaf(w, s, fd);
    if (s->selections != NULL && !sluice_gql_leaf(fd->named))
        check_selections(w, s->selections, fd->named);
}

static defn *find_defn(walker *w, sluice_gql_str name)
{
    for (size_t i = 0; i < w->def_count; i++)
        if (w->defs[i].def->kind == SLUICE_GQL_FRAGMENT_DEFINITION &&
            sluice_gql_same(w->defs[i].def->name, name))
            return &w->defs[i];
    return NULL;
}

static void not_possible(walker *w,
                         uint32_t at,
                         const char *fragment,
                         const sluice_gql_schema_type *frag_type,
                         const sluice_gql_schema_type *parent)
{
    sluice_gql_bad(&w->v, at, "PossibleFragmentSpreads", NULL,
                   "Fragment %scannot be spread here as objects of type \"%.*s\" can never be "
                   "of type \"%.*s\".",
                   fragment, (int)parent->name.len, parent->name.ptr, (int)frag_type->name.len,
                   frag_type->name.ptr);
}

static void check_spread(walker *w, const sluice_gql_selection *s, const sluice_gql_schema_type *t)
{
    check_directives(w, s->directives, "FRAGMENT_SPREAD");
    spread *sp = sluice_arena_calloc(w->v.arena, 1, sizeof *sp);
    if (sp == NULL) {
        w->v.nomem = true;
        return;
    }
    *sp = (spread){ s->name, s->offset, w->cur != NULL ? w->cur->spreads : NULL };
    if (w->cur != NULL)
        w->cur->spreads = sp;
    defn *d = find_defn(w, s->name);
    if (d == NULL) {
        sluice_gql_bad(&w->v, s->offset, "KnownFragmentNames",
                       "define the fragment or remove "
                       "the spread",
                       "Unknown fragment \"%.*s\".", (int)s->name.len, s->name.ptr);
        return;
    }
    const sluice_gql_schema_type *ft = sluice_gql_type_named(w->v.schema, d->def->type_condition);
    if (ft != NULL && sluice_gql_composite(ft) && !sluice_gql_overlap(w->v.schema, ft, t))
        not_possible(w, s->offset,
                     sluice_arena_printf(w->v.arena, "\"%.*s\" ", (int)s->name.len, s->name.ptr),
                     ft, t);
}

static void check_inline(walker *w, const sluice_gql_selection *s, const sluice_gql_schema_type *t)
{
    check_directives(w, s->directives, "INLINE_FRAGMENT");
    const sluice_gql_schema_type *ft = t;
    if (s->type_condition.ptr != NULL) {
        ft = sluice_gql_type_named(w->v.schema, s->type_condition);
        if (ft == NULL) {
            unknown_type(w, s->offset, s->type_condition);
            return;
        }
        if (!sluice_gql_composite(ft)) {
            sluice_gql_bad(&w->v, s->offset, "FragmentsOnCompositeTypes", NULL,
                           "Fragment cannot condition on non composite type \"%.*s\".",
                           (int)ft->name.len, ft->name.ptr);
            return;
        }
        if (!sluice_gql_overlap(w->v.schema, ft, t))
            not_possible(w, s->offset, "", ft, t);
    }
    check_selections(w, s->selections, ft);
}

static void
check_selections(walker *w, const sluice_gql_selection *sel, const sluice_gql_schema_type *parent)
{
    for (const sluice_gql_selection *s = sel; s != NULL; s = s->next) {
        if (s->kind == SLUICE_GQL_FIELD)
            check_field(w, s, parent);
        else if (s->kind == SLUICE_GQL_FRAGMENT_SPREAD)
            check_spread(w, s, parent);
        else
            check_inline(w, s, parent);
    }
}

/* ---- definitions ------------------------------------------------------------------------- */

static void check_variable_definitions(walker *w, const sluice_gql_definition *op)
{
    for (const sluice_gql_variable_definition *vd = op->variables; vd != NULL; vd = vd->next) {
        for (const sluice_gql_variable_definition *p = op->variables; p != vd; p = p->next)
            if (sluice_gql_same(p->name, vd->name)) {
                sluice_gql_bad(&w->v, vd->offset, "UniqueVariableNames", NULL,
                               "There can be only one variable named \"$%.*s\".", (int)vd->name.len,
                               vd->name.ptr);
                break;
            }
        check_directives(w, vd->directives, "VARIABLE_DEFINITION");
        const sluice_gql_schema_type *t = sluice_gql_named(w->v.schema, vd->type);
        if (t == NULL) {
            unknown_type(w, vd->type->offset, sluice_gql_type_name(vd->type));
            continue;
        }
        if (!sluice_gql_input(t)) {
            sluice_gql_bad(&w->v, vd->type->offset, "VariablesAreInputTypes", NULL,
                           "Variable \"$%.*s\" cannot be non-input type \"%s\".", (int)vd->name.len,
                           vd->name.ptr, sluice_gql_type_text(w->v.arena, vd->type));
            continue;
        }
        if (vd->default_value != NULL) {
            defn *saved = w->cur;
            w->cur = NULL; /* a default is constant */
            check_value(w, vd->default_value, vd->type, false);
            w->cur = saved;
        }
    }
}

static void check_fragment(walker *w, const sluice_gql_definition *d)
{
    check_directives(w, d->directives, "FRAGMENT_DEFINITION");
    const sluice_gql_schema_type *t = sluice_gql_type_named(w->v.schema, d->type_condition);
    if (t == NULL) {
        unknown_type(w, d->offset, d->type_condition);
        return;
    }
    if (!sluice_gql_composite(t)) {
        sluice_gql_bad(&w->v, d->offset, "FragmentsOnCompositeTypes", NULL,
                       "Fragment \"%.*s\" cannot condition on non composite type \"%.*s\".",
                       (int)d->name.len, d->name.ptr, (int)t->name.len, t->name.ptr);
        return;
    }
    check_selections(w, d->selections, t);
}

static void check_operation(walker *w, const sluice_gql_definition *d)
{
    check_directives(w, d->directives, EXECUTABLE_LOCATION[d->operation]);
    check_variable_definitions(w, d);
    const sluice_gql_schema_type *root = d->operation == SLUICE_GQL_QUERY ? w->v.schema->query
                                         : d->operation == SLUICE_GQL_MUTATION
                                             ? w->v.schema->mutation
                                             : w->v.schema->subscription;
    if (root == NULL) {
        sluice_gql_bad(&w->v, d->offset, "KnownOperationTypes", NULL,
                       "The %s operation is not supported by the schema.",
                       d->operation == SLUICE_GQL_MUTATION ? "mutation" : "subscription");
        return;
    }
    check_selections(w, d->selections, root);
}

/* ExecutableDefinitions, UniqueOperationNames, UniqueFragmentNames, LoneAnonymousOperation. */
static void check_document_shape(walker *w, const sluice_gql_document *doc)
{
    size_t ops = 0, anonymous = 0;
    for (size_t i = 0; i < w->def_count; i++) {
        const sluice_gql_definition *d = w->defs[i].def;
        ops += d->kind == SLUICE_GQL_OPERATION_DEFINITION;
        anonymous += d->kind == SLUICE_GQL_OPERATION_DEFINITION && d->name.ptr == NULL;
        for (size_t k = 0; d->name.ptr != NULL && k < i; k++) {
            const sluice_gql_definition *p = w->defs[k].def;
            if (p->kind == d->kind && p->name.ptr != NULL && sluice_gql_same(p->name, d->name)) {
                bool op = d->kind == SLUICE_GQL_OPERATION_DEFINITION;
                sluice_gql_bad(&w->v, d->offset,
                               op ? "UniqueOperationNames" : "UniqueFragmentNames", NULL,
                               "There can be only one %s named \"%.*s\".",
                               op ? "operation" : "fragment", (int)d->name.len, d->name.ptr);
                break;
            }
        }
    }
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next)
        if (d->kind != SLUICE_GQL_OPERATION_DEFINITION && d->kind != SLUICE_GQL_FRAGMENT_DEFINITION)
            sluice_gql_bad(&w->v, d->offset, "ExecutableDefinitions",
                           "send only operations and fragments; the schema is the server's",
                           "The %s definition is not executable.",
                           d->name.ptr != NULL ? sluice_arena_printf(w->v.arena, "\"%.*s\"",
                                                                     (int)d->name.len, d->name.ptr)
                                               : "schema");
    if (anonymous > 0 && ops > 1)
        for (size_t i = 0; i < w->def_count; i++)
            if (w->defs[i].def->kind == SLUICE_GQL_OPERATION_DEFINITION &&
                w->defs[i].def->name.ptr == NULL)
                sluice_gql_bad(&w->v, w->defs[i].def->offset, "LoneAnonymousOperation",
                               "name every operation",
                               "This anonymous operation must be the "
                               "only defined operation.");
}

/* NoFragmentCycles: depth-first from each fragment; a spread to a fragment on the stack. */
static void find_cycles(walker *w, defn *d)
{
    d->mark = 1;
    for (spread *s = d->spreads; s != NULL; s = s->next) {
        defn *t = find_defn(w, s->name);
        if (t == NULL)
            continue;
        if (t->mark == 1)
            sluice_gql_bad(&w->v, s->offset, "NoFragmentCycles",
                           "a fragment may not include "
                           "itself, directly or not",
                           "Cannot spread fragment \"%.*s\" within itself.", (int)s->name.len,
                           s->name.ptr);
        else if (t->mark == 0)
            find_cycles(w, t);
    }
    d->mark = 2;
}

static void reach(walker *w, defn *d)
{
    if (d->reached)
        return;
    d->reached = true;
    for (spread *s = d->spreads; s != NULL; s = s->next) {
        defn *t = find_defn(w, s->name);
        if (t != NULL)
            reach(w, t);
    }
}

static const sluice_gql_variable_definition *declared(const sluice_gql_definition *op,
                                                      sluice_gql_str name)
{
    for (const sluice_gql_variable_definition *vd = op->variables; vd != NULL; vd = vd->next)
        if (sluice_gql_same(vd->name, name))
            return vd;
    return NULL;
}

/* VariablesInAllowedPosition for one use of a declared variable. */
static void check_position(walker *w, const sluice_gql_variable_definition *vd, const usage *u)
{
    const sluice_gql_type *var = vd->type;
    const sluice_gql_type *loc = u->type;
    if (loc->kind == SLUICE_GQL_NON_NULL_TYPE && var->kind != SLUICE_GQL_NON_NULL_TYPE) {
        bool has_default = vd->default_value != NULL && vd->default_value->kind != SLUICE_GQL_NULL;
        if (!has_default && !u->location_default)
            goto bad;
        loc = loc->of;
    }
    if (sluice_gql_subtype(var, loc))
        return;
bad:
    sluice_gql_bad(&w->v, u->offset, "VariablesInAllowedPosition", NULL,
                   "Variable \"$%.*s\" of type \"%s\" used in position expecting type \"%s\".",
                   (int)u->name.len, u->name.ptr, sluice_gql_type_text(w->v.arena, vd->type),
                   sluice_gql_type_text(w->v.arena, u->type));
}

static bool used_in(const defn *d, sluice_gql_str name)
{
    for (const usage *u = d->usages; u != NULL; u = u->next)
        if (sluice_gql_same(u->name, name))
            return true;
    return false;
}

/* NoUndefinedVariables, NoUnusedVariables, VariablesInAllowedPosition over the operation and
 * every fragment it reaches. */
static void check_operation_variables(walker *w, defn *op)
{
    for (size_t i = 0; i < w->def_count; i++)
        w->defs[i].reached = false;
    reach(w, op);
    for (size_t i = 0; i < w->def_count; i++) {
        if (!w->defs[i].reached)
            continue;
        for (const usage *u = w->defs[i].usages; u != NULL; u = u->next) {
            const sluice_gql_variable_definition *vd = declared(op->def, u->name);
            if (vd == NULL)
                sluice_gql_bad(
                    &w->v, u->offset, "NoUndefinedVariables",
                    "declare it in the operation: query Name($var: Type)",
                    op->def->name.ptr != NULL
                        ? "Variable \"$%.*s\" is not defined by operation \"%s\"."
                        : "Variable \"$%.*s\" is not defined.%s",
                    (int)u->name.len, u->name.ptr,
                    op->def->name.ptr != NULL
                        ? sluice_arena_strndup(w->v.arena, op->def->name.ptr, op->def->name.len)
                        : "");
            else if (u->type != NULL && sluice_gql_named(w->v.schema, vd->type) != NULL)
                check_position(w, vd, u);
        }
    }
    for (const sluice_gql_variable_definition *vd = op->def->variables; vd != NULL; vd = vd->next) {
        bool used = false;
        for (size_t i = 0; !used && i < w->def_count; i++)
            used = w->defs[i].reached && used_in(&w->defs[i], vd->name);
        if (!used)
            sluice_gql_bad(&w->v, vd->offset, "NoUnusedVariables", "remove the variable",
                           "Variable \"$%.*s\" is never used%s.", (int)vd->name.len, vd->name.ptr,
                           op->def->name.ptr != NULL
                               ? sluice_arena_printf(w->v.arena, " in operation \"%.*s\"",
                                                     (int)op->def->name.len, op->def->name.ptr)
                               : "");
    }
}

static void check_graph(walker *w)
{
    for (size_t i = 0; i < w->def_count; i++)
        if (w->defs[i].def->kind == SLUICE_GQL_FRAGMENT_DEFINITION && w->defs[i].mark == 0)
            find_cycles(w, &w->defs[i]);
    for (size_t i = 0; i < w->def_count; i++)
        if (w->defs[i].def->kind == SLUICE_GQL_OPERATION_DEFINITION)
            check_operation_variables(w, &w->defs[i]);
    for (size_t i = 0; i < w->def_count; i++)
        w->defs[i].reached = false;
    for (size_t i = 0; i < w->def_count; i++)
        if (w->defs[i].def->kind == SLUICE_GQL_OPERATION_DEFINITION)
            reach(w, &w->defs[i]);
    for (size_t i = 0; i < w->def_count; i++)
        if (w->defs[i].def->kind == SLUICE_GQL_FRAGMENT_DEFINITION && !w->defs[i].reached)
            sluice_gql_bad(&w->v, w->defs[i].def->offset, "NoUnusedFragments",
                           "remove the fragment or spread it", "Fragment \"%.*s\" is never used.",
                           (int)w->defs[i].def->name.len, w->defs[i].def->name.ptr);
}

sluice_status sluice_graphql_validate(sluice_arena *arena,
                                      const sluice_gql_document *doc,
                                      const sluice_gql_schema *schema,
                                      sluice_codefacts *f)
{
    walker w = { .v = { arena, doc, schema, f, false } };
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next)
        w.def_count +=
            d->kind == SLUICE_GQL_OPERATION_DEFINITION || d->kind == SLUICE_GQL_FRAGMENT_DEFINITION;
    w.defs = sluice_arena_calloc(arena, w.def_count + 1, sizeof *w.defs);
    if (w.defs == NULL)
        return SLUICE_E_NOMEM;
    size_t n = 0;
    for (const sluice_gql_definition *d = doc->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_OPERATION_DEFINITION || d->kind == SLUICE_GQL_FRAGMENT_DEFINITION)
            w.defs[n++].def = d;
    check_document_shape(&w, doc);
    for (size_t i = 0; i < w.def_count; i++) {
        w.cur = &w.defs[i];
        if (w.defs[i].def->kind == SLUICE_GQL_OPERATION_DEFINITION)
            check_operation(&w, w.defs[i].def);
        else
            check_fragment(&w, w.defs[i].def);
    }
    w.cur = NULL;
    check_graph(&w);
    /* on a document the other rules accept: field definitions and types are then known */
    if (f->violation_count == 0 && !w.v.nomem)
        sluice_graphql_check_overlaps(&w.v);
    if (w.v.nomem || f->incomplete) {
        f->incomplete = true;
        return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}
