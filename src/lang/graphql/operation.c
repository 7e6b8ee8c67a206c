/*
 * operation.c — the analysis of the operation that will run (see validate.h): which one
 * (operationName), its action, the limits counted with fragments expanded and aliases counted,
 * blocked fields in output, introspection, the root-field allow/block lists, the variables
 * coerced against their declared types, and the facts (fields read, outputs with lineage,
 * operations called).
 *
 * Owns: the expanded walk. Fragments are followed at every spread (a fragment on the spread
 * stack is a cycle and is not entered again); the walk stops once
 * SLUICE_LIMIT_GRAPHQL_EXPANDED_FIELDS fields were visited, so a document whose expansion is
 * exponential costs bounded time and is refused. The cost is one per field times the list sizes
 * above it, a connection's first/last (and limit, and graphql_size_arguments) sizing its list
 * fields as GitHub's node limit does; it is counted to the end, so a refusal says the total.
 * Introspection is walked with the introspection types: limited and costed, never a data read.
 * Does not own: the spec rules (validate.c), parsing, risk and explanation (frontend.c).
 */
#include "core/limits.h"
#include "lang/graphql/predicate.h"
#include "lang/graphql/validate.h"
#include "lang/graphql/vcommon.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum {
    LIM_DEPTH,
    LIM_ALIASES,
    LIM_ROOT,
    LIM_DIRECTIVES,
    LIM_COST,
    LIM_EXPANSION,
    LIM_FIELDS,
    LIM_COUNT
};

typedef struct opw {
    sluice_gql_vctx v;
    const sluice_graphql_rules *r;
    const json_t *vars;
    sluice_graphql_facts *x;
    size_t visited;
    bool hit[LIM_COUNT];
    bool stop;
    const sluice_gql_definition *stack[SLUICE_LIMIT_GRAPHQL_DEPTH];
    size_t stack_n;
    char path[SLUICE_LIMIT_GRAPHQL_PATH_CHARS];
    size_t path_len;
    const char *cost_path; /* where the cost first passed graphql_max_cost, or NULL */
    uint32_t cost_at;
} opw;

sluice_graphql_rules sluice_graphql_rules_of(const sluice_config_code_mode *c)
{
    static const sluice_strlist none = { 0 };
    sluice_graphql_rules r = {
        .max_depth = 10,
        .max_aliases = 15,
        .max_root_fields = 20,
        .max_directives = 50,
        .max_tokens = 1000,
        .max_chars = 15000,
        .max_cost = 5000,
        .max_fields = 100,
        .blocked = { &none, &none },
        .allowed_queries = &none,
        .blocked_queries = &none,
        .allowed_mutations = &none,
        .blocked_mutations = &none,
        .delete_mutations = &none,
        .delete_patterns = &none,
        .size_arguments = &none,
    };
    if (c == NULL)
        return r;
    r.max_depth = c->graphql_max_depth;
    r.max_aliases = c->graphql_max_aliases;
    r.max_root_fields = c->graphql_max_root_fields;
    r.max_directives = c->graphql_max_directives;
    r.max_tokens = c->graphql_max_tokens;
    r.max_chars = c->graphql_max_chars;
    r.max_cost = c->graphql_max_cost;
    r.max_fields = c->max_field_count;
    r.action_tags = &c->action_tags;
    r.allow_introspection = c->graphql_allow_introspection;
    r.allow_mutations = c->allow_mutations;
    r.blocked[0] = &c->graphql_blocked_fields;
    r.blocked[1] = &c->blocked_fields;
    r.allowed_queries = &c->allowed_queries;
    r.blocked_queries = &c->blocked_queries;
    r.allowed_mutations = &c->allowed_mutations;
    r.blocked_mutations = &c->blocked_mutations;
    r.delete_mutations = &c->delete_operations;
    r.delete_patterns = &c->graphql_delete_patterns;
    r.size_arguments = &c->graphql_size_arguments;
    return r;
}

/* One of the names config accepts for an action ("read" .. "admin"). */
static sluice_action action_named(const char *name)
{
    for (int a = SLUICE_ACTION_READ; a <= SLUICE_ACTION_ADMIN; a++)
        if (strcasecmp(name, sluice_action_name((sluice_action)a)) == 0)
            return (sluice_action)a;
    return SLUICE_ACTION_ADMIN; /* config refuses any other name; the most severe otherwise */
}

static bool list_eq(const char *item, const char *p, size_t len)
{
    return strlen(item) == len && strncmp(item, p, len) == 0;
}

static bool list_has(const sluice_strlist *l, const char *p, size_t len)
{
    for (size_t i = 0; l != NULL && i < l->count; i++)
        if (list_eq(l->items[i], p, len))
            return true;
    return false;
}

const char *sluice_graphql_operation_name(const json_t *variables)
{
    const json_t *v =
        json_is_object(variables) ? json_object_get(variables, "$operationName") : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- limits -------------------------------------------------------------------------------- */

static const char *const LIMIT_KEY[LIM_COUNT] = {
    "graphql_max_depth", "graphql_max_aliases", "graphql_max_root_fields", "graphql_max_directives",
    "graphql_max_cost",  "graphql_expansion",   "max_field_count",
};

static const char *path_text(const opw *w)
{
    return w->path_len > 0 ? w->path : "(the operation)";
}

/* Reports limit `which` once: its key, its value, what was counted and where. */
static void over(opw *w, int which, int64_t limit, int64_t value, uint32_t at)
{
    if (w->hit[which])
        return;
    w->hit[which] = true;
    if (which == LIM_EXPANSION)
        w->stop = true;
    if (which == LIM_EXPANSION) {
        sluice_gql_bad(&w->v, at, LIMIT_KEY[which], "use fewer and smaller fragments",
                       "the operation expands to more than %u fields (fragments expanded) at %s",
                       SLUICE_LIMIT_GRAPHQL_EXPANDED_FIELDS, path_text(w));
        return;
    }
    sluice_gql_bad(&w->v, at, LIMIT_KEY[which],
                   "ask for less in one operation (fragments count where they are spread), or "
                   "ask an administrator to raise the limit",
                   "%s is %lld; the operation reaches %lld at %s (fragments expanded, aliases "
                   "counted)",
                   LIMIT_KEY[which], (long long)limit, (long long)value, path_text(w));
}

static void count(opw *w, size_t *n, int which, int64_t limit, uint32_t at)
{
    (*n)++;
    if (limit > 0 && (int64_t)*n > limit)
        over(w, which, limit, (int64_t)*n, at);
}

static void count_directives(opw *w, const sluice_gql_directive *d, uint32_t at)
{
    for (; d != NULL; d = d->next)
        count(w, &w->x->directive_count, LIM_DIRECTIVES, w->r->max_directives, at);
}

static size_t push_path(opw *w, sluice_gql_str key)
{
    size_t saved = w->path_len;
    int n = snprintf(w->path + w->path_len, sizeof w->path - w->path_len, "%s%.*s",
                     w->path_len > 0 ? "." : "", (int)key.len, key.ptr);
    if (n > 0)
        w->path_len +=
            (size_t)n < sizeof w->path - w->path_len ? (size_t)n : sizeof w->path - w->path_len - 1;
    return saved;
}

static void pop_path(opw *w, size_t saved)
{
    w->path_len = saved;
    w->path[saved] = '\0';
}

/* ---- fields ------------------------------------------------------------------------------ */

static void add(opw *w, sluice_codefacts_list *list, const char *s)
{
    if (s == NULL || sluice_codefacts_list_add(w->v.f, list, s) != SLUICE_OK)
        w->v.nomem = true;
}

static bool size_argument(const sluice_graphql_rules *r, sluice_gql_str name)
{
    return sluice_gql_is(name.ptr, name.len, "first") ||
           sluice_gql_is(name.ptr, name.len, "last") ||
           sluice_gql_is(name.ptr, name.len, "limit") ||
           list_has(r->size_arguments, name.ptr, name.len);
}

/* The largest list size a size argument of s asks for (a literal, or the variable's value or its
 * default), or -1 when s has none that says a number. */
static int64_t asked_size(opw *w, const sluice_gql_selection *s)
{
    int64_t most = -1;
    for (const sluice_gql_argument *a = s->arguments; a != NULL; a = a->next) {
        if (!size_argument(w->r, a->name))
            continue;
        const sluice_gql_value *v = a->value;
        long long n = -1;
        if (v->kind == SLUICE_GQL_VARIABLE) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)v->text.len, v->text.ptr);
            const json_t *jv = w->vars != NULL ? json_object_get(w->vars, name) : NULL;
            if (json_is_integer(jv))
                n = (long long)json_integer_value(jv);
            for (const sluice_gql_variable_definition *vd = w->x->operation->variables;
                 jv == NULL && vd != NULL; vd = vd->next)
                if (sluice_gql_same(vd->name, v->text))
                    v = vd->default_value != NULL ? vd->default_value : v;
        }
        if (v->kind == SLUICE_GQL_INT) {
            char buf[24];
            size_t len = v->text.len < sizeof buf - 1 ? v->text.len : sizeof buf - 1;
            memcpy(buf, v->text.ptr, len);
            buf[len] = '\0';
            if (sscanf(buf, "%lld", &n) != 1)
                n = -1;
        }
        if (n > most)
            most = n;
    }
    return most;
}

static bool is_list(const sluice_gql_type *t)
{
    if (t->kind == SLUICE_GQL_NON_NULL_TYPE)
        t = t->of;
    return t->kind == SLUICE_GQL_LIST_TYPE;
}

static int64_t times(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > INT64_MAX / 4 / b ? INT64_MAX / 4 : a * b;
}

/* Where the walk is: the multiplier of the selection set (the list sizes above it multiplied),
 * the page size an enclosing connection asked for (first: 100 on a field whose type is not a
 * list), which its list fields (nodes, edges) stand for, and whether it is inside introspection. */
typedef struct place {
    size_t level;
    int64_t mult;
    int64_t pending; /* -1: none */
    bool root, meta;
} place;

static void
walk(opw *w, const sluice_gql_selection *sel, const sluice_gql_schema_type *t, place where);

static void root_field(opw *w, const sluice_gql_selection *s, const sluice_gql_definition *op)
{
    count(w, &w->x->root_field_count, LIM_ROOT, w->r->max_root_fields, s->offset);
    if (sluice_gql_is(s->name.ptr, s->name.len, "__typename"))
        return;
    add(w, &w->v.f->operations, sluice_arena_strndup(w->v.arena, s->name.ptr, s->name.len));
    const char *kind = op->operation == SLUICE_GQL_MUTATION ? "mutation" : "query";
    bool mutation = op->operation == SLUICE_GQL_MUTATION;
    const sluice_strlist *allowed = mutation ? w->r->allowed_mutations : w->r->allowed_queries;
    const sluice_strlist *blocked = mutation ? w->r->blocked_mutations : w->r->blocked_queries;
    if (sluice_gql_introspection_root(s->name))
        return;
    if (list_has(blocked, s->name.ptr, s->name.len))
        sluice_gql_bad(&w->v, s->offset, mutation ? "blocked_mutations" : "blocked_queries", NULL,
                       "the %s field '%.*s' is in %s", kind, (int)s->name.len, s->name.ptr,
                       mutation ? "blocked_mutations" : "blocked_queries");
    else if (mutation && !w->r->allow_mutations && !list_has(allowed, s->name.ptr, s->name.len))
        sluice_gql_bad(&w->v, s->offset, "allowed_mutations",
                       "ask an administrator to list it in allowed_mutations",
                       "the mutation '%.*s' is not in allowed_mutations (allow_mutations is "
                       "false)",
                       (int)s->name.len, s->name.ptr);
    else if (!mutation && allowed->count > 0 && !list_has(allowed, s->name.ptr, s->name.len))
        sluice_gql_bad(&w->v, s->offset, "allowed_queries", NULL,
                       "the query field '%.*s' is not in allowed_queries", (int)s->name.len,
                       s->name.ptr);
    sluice_action act = mutation ? SLUICE_ACTION_WRITE : SLUICE_ACTION_READ;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)s->name.len, s->name.ptr);
    bool del = mutation && list_has(w->r->delete_mutations, s->name.ptr, s->name.len);
    for (size_t i = 0; mutation && !del && i < w->r->delete_patterns->count; i++)
        del = fnmatch(w->r->delete_patterns->items[i], name, 0) == 0;
    if (del)
        act = SLUICE_ACTION_DELETE;
    /* action_tags name schema fields, never the operation name the caller picks */
    const sluice_config_action_tags *tags = w->r->action_tags;
    for (size_t i = 0; tags != NULL && i < tags->count; i++)
        if (list_eq(tags->names[i], s->name.ptr, s->name.len))
            act = action_named(tags->actions[i]);
    if (act > w->v.f->action)
        w->v.f->action = act;
}

static void leaf_output(opw *w,
                        const sluice_gql_schema_type *t,
                        const sluice_gql_selection *s,
                        const sluice_gql_type *type)
{
    sluice_codefacts_output *o = NULL;
    const char *name = sluice_arena_strndup(w->v.arena, w->path, w->path_len);
    if (name == NULL ||
        sluice_codefacts_add_output(w->v.f, name, sluice_gql_type_text(w->v.arena, type), &o) !=
            SLUICE_OK) {
        w->v.nomem = true;
        return;
    }
    add(w, &o->lineage,
        sluice_arena_printf(w->v.arena, "%.*s.%.*s", (int)t->name.len, t->name.ptr,
                            (int)s->name.len, s->name.ptr));
}

/* The cost of one field: the multiplier of its selection set. Reported once, after the walk,
 * with the total, so the refusal says how far over the operation is. */
static void charge(opw *w, int64_t mult, uint32_t offset)
{
    w->x->cost = w->x->cost > INT64_MAX / 4 - mult ? INT64_MAX / 4 : w->x->cost + mult;
    if (w->r->max_cost > 0 && w->x->cost > w->r->max_cost && w->cost_path == NULL) {
        w->cost_path = sluice_arena_strndup(w->v.arena, w->path, w->path_len);
        w->cost_at = offset;
        if (w->cost_path == NULL)
            w->v.nomem = true;
    }
}

/* What s's selection set is multiplied by: a list field's size is its size argument, else the
 * page size its connection asked for, else the default; a connection's own size argument waits
 * for its list fields. GitHub counts its node limit the same way. */
static place
inner(opw *w, const sluice_gql_selection *s, const sluice_gql_schema_field *fd, place where)
{
    int64_t asked = asked_size(w, s);
    place in = { where.level + 1, where.mult, -1, false, where.meta };
    if (is_list(fd->type))
        in.mult = times(where.mult, asked >= 0           ? asked
                                    : where.pending >= 0 ? where.pending
                                                         : SLUICE_LIMIT_GRAPHQL_DEFAULT_LIST_SIZE);
    else
        in.pending = asked;
    return in;
}

static void facts_of_field(opw *w,
                           const sluice_gql_selection *s,
                           const sluice_gql_schema_type *t,
                           const sluice_gql_schema_field *fd)
{
    add(w, &w->v.f->resources_read, sluice_arena_strndup(w->v.arena, t->name.ptr, t->name.len));
    add(w, &w->v.f->fields_read,
        sluice_arena_printf(w->v.arena, "%.*s.%.*s", (int)t->name.len, t->name.ptr,
                            (int)s->name.len, s->name.ptr));
    if (sluice_gql_blocked_on(w->r->blocked, w->v.schema, t, s->name))
        sluice_gql_bad(&w->v, s->offset, "graphql_blocked_fields",
                       "remove it from the selection; a blocked field may be used in a "
                       "filter argument, never returned",
                       "the field %.*s.%.*s is blocked and may not be returned (selected at "
                       "%s)",
                       (int)t->name.len, t->name.ptr, (int)s->name.len, s->name.ptr, w->path);
    for (const sluice_gql_argument *a = s->arguments; a != NULL; a = a->next)
        for (size_t i = 0; i < fd->arg_count; i++)
            if (sluice_gql_same(fd->args[i].name, a->name))
                sluice_graphql_judge_argument(&w->v, w->r->blocked, w->vars, w->x->operation, t, a,
                                              &fd->args[i]);
    if (sluice_gql_leaf(fd->named))
        leaf_output(w, t, s, fd->type);
}

static void
field(opw *w, const sluice_gql_selection *s, const sluice_gql_schema_type *t, place where)
{
    size_t saved = push_path(w, s->alias.ptr != NULL ? s->alias : s->name);
    count(w, &w->x->field_count, LIM_FIELDS, w->r->max_fields, s->offset);
    if (s->alias.ptr != NULL)
        count(w, &w->x->alias_count, LIM_ALIASES, w->r->max_aliases, s->offset);
    count_directives(w, s->directives, s->offset);
    if (where.root)
        root_field(w, s, w->x->operation);
    if (where.level + 1 > w->v.f->depth)
        w->v.f->depth = where.level + 1;
    if (w->r->max_depth > 0 && (int64_t)(where.level + 1) > w->r->max_depth)
        over(w, LIM_DEPTH, w->r->max_depth, (int64_t)(where.level + 1), s->offset);
    const sluice_gql_schema_field *fd = sluice_gql_field_def(w->v.schema, t, s->name);
    if (fd != NULL && fd != w->v.schema->meta_typename) {
        /* introspection is schema, not data: limited and costed, never a read of a field */
        bool meta = where.meta || fd == w->v.schema->meta_schema || fd == w->v.schema->meta_type;
        if (meta && !where.meta) {
            w->x->introspection = true;
            add(w, &w->v.f->fields_read,
                sluice_arena_strndup(w->v.arena, s->name.ptr, s->name.len));
        }
        charge(w, where.mult, s->offset);
        if (!meta)
            facts_of_field(w, s, t, fd);
        if (!sluice_gql_leaf(fd->named) && s->selections != NULL) {
            place in = inner(w, s, fd, where);
            in.meta = meta;
            walk(w, s->selections, fd->named, in);
        }
    }
    pop_path(w, saved);
}

static const sluice_gql_definition *fragment(opw *w, sluice_gql_str name)
{
    for (const sluice_gql_definition *d = w->v.doc->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_FRAGMENT_DEFINITION && sluice_gql_same(d->name, name))
            return d;
    return NULL;
}

static void
walk(opw *w, const sluice_gql_selection *sel, const sluice_gql_schema_type *t, place where)
{
    for (const sluice_gql_selection *s = sel; s != NULL && !w->stop; s = s->next) {
        if (++w->visited > SLUICE_LIMIT_GRAPHQL_EXPANDED_FIELDS) {
            over(w, LIM_EXPANSION, 0, 0, s->offset);
            return;
        }
        if (s->kind == SLUICE_GQL_FIELD) {
            field(w, s, t, where);
            continue;
        }
        count_directives(w, s->directives, s->offset);
        const sluice_gql_definition *fd = NULL;
        sluice_gql_str cond = s->type_condition;
        const sluice_gql_selection *inner_sel = s->selections;
        if (s->kind == SLUICE_GQL_FRAGMENT_SPREAD) {
            fd = fragment(w, s->name);
            if (fd == NULL)
                continue;
            bool cycle = false;
            for (size_t i = 0; i < w->stack_n; i++)
                cycle = cycle || w->stack[i] == fd;
            if (cycle || w->stack_n >= SLUICE_LIMIT_GRAPHQL_DEPTH)
                continue; /* NoFragmentCycles reported it */
            w->stack[w->stack_n++] = fd;
            count_directives(w, fd->directives, fd->offset);
            cond = fd->type_condition;
            inner_sel = fd->selections;
        }
        const sluice_gql_schema_type *ft =
            cond.ptr != NULL ? sluice_gql_type_named(w->v.schema, cond) : t;
        if (ft != NULL && sluice_gql_composite(ft))
            walk(w, inner_sel, ft, where);
        if (fd != NULL)
            w->stack_n--;
    }
}

/* ---- variables --------------------------------------------------------------------------- */

static bool coerce(opw *w, const json_t *v, const sluice_gql_type *type, const char **why);

static bool coerce_named(opw *w, const json_t *v, const sluice_gql_schema_type *t, const char **why)
{
    const char *n = t->name.ptr;
    size_t len = t->name.len;
    if (t->kind == SLUICE_GQL_KIND_SCALAR) {
        if (!t->builtin)
            return true;
        if (sluice_gql_is(n, len, "Int"))
            return json_is_integer(v) && json_integer_value(v) >= -2147483648LL &&
                   json_integer_value(v) <= 2147483647LL;
        if (sluice_gql_is(n, len, "Float"))
            return json_is_number(v);
        if (sluice_gql_is(n, len, "String"))
            return json_is_string(v);
        if (sluice_gql_is(n, len, "Boolean"))
            return json_is_boolean(v);
        return json_is_string(v) || json_is_integer(v);
    }
    if (t->kind == SLUICE_GQL_KIND_ENUM) {
        if (!json_is_string(v))
            return false;
        sluice_gql_str s = { json_string_value(v), json_string_length(v) };
        return sluice_gql_enum_has(t, s);
    }
    if (t->kind != SLUICE_GQL_KIND_INPUT_OBJECT || !json_is_object(v))
        return false;
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)v, key, item)
    {
        sluice_gql_str k = { key, strlen(key) };
        const sluice_gql_schema_input *in = sluice_gql_input_field(t, k);
        if (in == NULL) {
            *why = sluice_arena_printf(w->v.arena, "field \"%s\" is not defined by \"%.*s\"", key,
                                       (int)len, n);
            return false;
        }
        if (!coerce(w, item, in->type, why))
            return false;
    }
    for (size_t i = 0; i < t->input_field_count; i++) {
        const sluice_gql_schema_input *in = &t->input_fields[i];
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)in->name.len, in->name.ptr);
        if (in->type->kind == SLUICE_GQL_NON_NULL_TYPE && in->default_value == NULL &&
            json_object_get(v, name) == NULL) {
            *why = sluice_arena_printf(w->v.arena, "field \"%s\" is required", name);
            return false;
        }
    }
    return true;
}

static bool coerce(opw *w, const json_t *v, const sluice_gql_type *type, const char **why)
{
    if (type->kind == SLUICE_GQL_NON_NULL_TYPE)
        return !json_is_null(v) && coerce(w, v, type->of, why);
    if (json_is_null(v))
        return true;
    if (type->kind == SLUICE_GQL_LIST_TYPE) {
        if (!json_is_array(v))
            return coerce(w, v, type->of, why);
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item) if (!coerce(w, item, type->of, why)) return false;
        return true;
    }
    const sluice_gql_schema_type *t = sluice_gql_named(w->v.schema, type);
    return t != NULL && coerce_named(w, v, t, why);
}

static void check_variables(opw *w, const sluice_gql_definition *op)
{
    for (const sluice_gql_variable_definition *vd = op->variables; vd != NULL; vd = vd->next) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)vd->name.len, vd->name.ptr);
        const json_t *v = w->vars != NULL ? json_object_get(w->vars, name) : NULL;
        const char *type = sluice_gql_type_text(w->v.arena, vd->type);
        const char *why = NULL;
        if (v == NULL) {
            if (vd->type->kind == SLUICE_GQL_NON_NULL_TYPE && vd->default_value == NULL)
                sluice_gql_bad(&w->v, vd->offset, "graphql_variables",
                               "pass it in variables (bound in the token, never spliced)",
                               "Variable \"$%s\" of required type \"%s\" was not provided.", name,
                               type);
        } else if (!coerce(w, v, vd->type, &why)) {
            sluice_gql_bad(&w->v, vd->offset, "graphql_variables", NULL,
                           "Variable \"$%s\" got an invalid value for type \"%s\"%s%s.", name, type,
                           why != NULL ? ": " : "", why != NULL ? why : "");
        }
    }
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)w->vars, key, item)
    {
        sluice_gql_str k = { key, strlen(key) };
        bool known = strcmp(key, "$operationName") == 0;
        for (const sluice_gql_variable_definition *vd = op->variables; !known && vd != NULL;
             vd = vd->next)
            known = sluice_gql_same(vd->name, k);
        if (!known)
            sluice_gql_bad(&w->v, op->offset, "graphql_variables",
                           "declare it in the operation or remove it from variables",
                           "the variable \"%s\" is not declared by the operation", key);
    }
}

/* ---- the operation ----------------------------------------------------------------------- */

static bool choose(opw *w, const char *operation_name)
{
    const sluice_gql_definition *op = sluice_gql_select_operation(w->v.doc, operation_name);
    if (op != NULL) {
        w->x->operation = op;
        return true;
    }
    size_t n = 0;
    for (const sluice_gql_definition *d = w->v.doc->definitions; d != NULL; d = d->next)
        n += d->kind == SLUICE_GQL_OPERATION_DEFINITION;
    if (operation_name != NULL)
        sluice_gql_bad(&w->v, 0, "graphql_operation_name", "name one of the document's operations",
                       "Unknown operation named \"%s\".", operation_name);
    else if (n == 0)
        sluice_gql_bad(&w->v, 0, "graphql_operation_name", "write one query or mutation",
                       "the document has no operation");
    else
        sluice_gql_bad(&w->v, 0, "graphql_operation_name",
                       "pass \"$operationName\": \"<name>\" in variables to choose one",
                       "the document has %zu operations; say which one to run", n);
    return false;
}

sluice_status sluice_graphql_analyze_operation(sluice_arena *arena,
                                               const sluice_gql_document *doc,
                                               const sluice_gql_schema *schema,
                                               const sluice_graphql_rules *rules,
                                               const json_t *variables,
                                               const char *operation_name,
                                               sluice_codefacts *f,
                                               sluice_graphql_facts *x)
{
    opw *w = sluice_arena_calloc(arena, 1, sizeof *w);
    if (w == NULL)
        return SLUICE_E_NOMEM;
    *w = (opw){ .v = { arena, doc, schema, f, false }, .r = rules, .vars = variables, .x = x };
    x->document = doc;
    x->schema = schema;
    x->token_count = doc->token_count;
    if (choose(w, operation_name)) {
        const sluice_gql_definition *op = x->operation;
        x->operation_name =
            op->name.ptr != NULL ? sluice_arena_strndup(arena, op->name.ptr, op->name.len) : "";
        static const char *const types[] = { "query", "mutation", "subscription" };
        static const char *const kinds[] = { "QUERY", "MUTATION", "SUBSCRIPTION" };
        x->operation_type = types[op->operation];
        f->statement_kind = kinds[op->operation];
        /* raised by each root field (root_field): its kind, delete lists, action_tags */
        f->action = SLUICE_ACTION_READ;
        f->call_count = 1;
        if (op->operation == SLUICE_GQL_SUBSCRIPTION)
            sluice_gql_bad(&w->v, op->offset, "graphql_subscriptions", "ask with a query instead",
                           "subscriptions are not supported");
        const sluice_gql_schema_type *root =
            op->operation == SLUICE_GQL_MUTATION ? schema->mutation : schema->query;
        count_directives(w, op->directives, op->offset);
        for (const sluice_gql_variable_definition *vd = op->variables; vd != NULL; vd = vd->next)
            count_directives(w, vd->directives, vd->offset);
        if (root != NULL && op->operation != SLUICE_GQL_SUBSCRIPTION)
            walk(w, op->selections, root, (place){ 0, 1, -1, true, false });
        if (w->cost_path != NULL)
            sluice_gql_bad(&w->v, w->cost_at, LIMIT_KEY[LIM_COST],
                           "ask for fewer items (first/last/limit multiply what they select), or "
                           "ask an administrator to raise the limit",
                           "graphql_max_cost is %lld; the operation costs %lld (one per field, "
                           "times the list sizes above it; fragments expanded, aliases counted) "
                           "and passes the limit at %s",
                           (long long)rules->max_cost, (long long)x->cost,
                           w->cost_path[0] != '\0' ? w->cost_path : "(the operation)");
        if (x->introspection && !rules->allow_introspection)
            f->action = SLUICE_ACTION_ADMIN;
        check_variables(w, op);
        f->complexity = x->cost;
        f->estimated_rows = -1;
        /* the computed cost is the estimate validate_code reports (issue 24) */
        f->estimated_cost = (double)x->cost;
        f->estimate_kind = SLUICE_ESTIMATE_GRAPHQL_COST;
    }
    if (w->v.nomem || f->incomplete || sluice_arena_failed(arena)) {
        f->incomplete = true;
        return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}
