/*
 * graphql_shape.c — the response walk: the upstream's `data` read with the validated operation,
 * so a blocked field never leaves whatever alias or fragment asked for it, keys the operation did
 * not ask for are dropped, and lists are capped (see graphql_shape.h).
 *
 * Owns: matching each response key to the field selections that produce it (aliases resolved,
 * fragments and inline fragments followed, their type conditions kept as the field's parent
 * type), the blocked test on every match (a key is blocked when any selection behind it is),
 * strip or refuse, and the list cap.
 * Does not own: validation (which already refuses blocked selections: this is the second
 * line), the HTTP exchange.
 */
#include "exec/graphql_shape.h"

#include "core/limits.h"
#include "syntax/graphql/graphql.h"
#include "syntax/graphql/model_cache.h"
#include "syntax/graphql/types.h"

#include <string.h>

/* One selection set that applies at a response level, with the type it is read on. */
typedef struct frame {
    const sluice_gql_selection *sel;
    const sluice_gql_schema_type *type;
    struct frame *next;
} frame;

typedef struct shaper {
    sluice_arena *arena;
    const sluice_gql_document *doc;
    const sluice_gql_schema *schema;
    sluice_exec_walk *sh;
    sluice_error *err;
    bool nomem;
    bool refused;
    unsigned fragment_depth;
} shaper;

static const sluice_gql_definition *fragment(const shaper *s, sluice_gql_str name)
{
    for (const sluice_gql_definition *d = s->doc->definitions; d != NULL; d = d->next)
        if (d->kind == SLUICE_GQL_FRAGMENT_DEFINITION && sluice_gql_same(d->name, name))
            return d;
    return NULL;
}

static frame *
push(shaper *s, frame *list, const sluice_gql_selection *sel, const sluice_gql_schema_type *t)
{
    frame *f = sluice_arena_alloc(s->arena, sizeof *f);
    if (f == NULL) {
        s->nomem = true;
        return list;
    }
    *f = (frame){ sel, t, list };
    return f;
}

typedef struct match {
    bool found;
    bool blocked;
    bool leaf;
    frame *children; /* the sub-selections of every field behind the key */
} match;

static void match_in(shaper *s,
                     const sluice_gql_selection *sel,
                     const sluice_gql_schema_type *t,
                     const char *key,
                     match *m)
{
    for (const sluice_gql_selection *x = sel; x != NULL && !s->nomem; x = x->next) {
        if (x->kind != SLUICE_GQL_FIELD) {
            const sluice_gql_definition *fd =
                x->kind == SLUICE_GQL_FRAGMENT_SPREAD ? fragment(s, x->name) : NULL;
            sluice_gql_str cond = fd != NULL ? fd->type_condition : x->type_condition;
            const sluice_gql_selection *inner = fd != NULL ? fd->selections : x->selections;
            const sluice_gql_schema_type *ft =
                cond.ptr != NULL ? sluice_gql_type_named(s->schema, cond) : t;
            if (ft == NULL || (x->kind == SLUICE_GQL_FRAGMENT_SPREAD && fd == NULL) ||
                s->fragment_depth >= SLUICE_LIMIT_GRAPHQL_DEPTH)
                continue;
            s->fragment_depth++;
            match_in(s, inner, ft, key, m);
            s->fragment_depth--;
            continue;
        }
        sluice_gql_str rk = x->alias.ptr != NULL ? x->alias : x->name;
        if (!sluice_gql_is(rk.ptr, rk.len, key))
            continue;
        m->found = true;
        if (sluice_gql_is(x->name.ptr, x->name.len, "__typename") ||
            sluice_gql_introspection_root(x->name)) {
            m->leaf = true;
            continue;
        }
        if (sluice_gql_blocked_on(s->sh->blocked, s->schema, t, x->name))
            m->blocked = true;
        const sluice_gql_schema_field *fd =
            sluice_graphql_schema_field(t, x->name.ptr, x->name.len);
        if (fd == NULL) {
            m->blocked = true; /* validated, so this cannot be: treat as not ours to return */
            continue;
        }
        if (sluice_gql_leaf(fd->named))
            m->leaf = true;
        else if (x->selections != NULL)
            m->children = push(s, m->children, x->selections, fd->named);
    }
}

static void walk_value(shaper *s, json_t *v, frame *frames, const char *path);

static void walk_object(shaper *s, json_t *obj, frame *frames, const char *path)
{
    const char *key;
    json_t *val;
    void *tmp;
    json_object_foreach_safe(obj, tmp, key, val)
    {
        match m = { 0 };
        for (frame *f = frames; f != NULL; f = f->next)
            match_in(s, f->sel, f->type, key, &m);
        const char *here = sluice_arena_printf(s->arena, "%s%s%s", path, path[0] ? "." : "", key);
        if (here == NULL) {
            s->nomem = true;
            return;
        }
        if (m.blocked || !m.found) {
            if (m.blocked && s->sh->first_hit == NULL)
                s->sh->first_hit = here;
            if (m.blocked && s->sh->refuse) {
                s->refused = true;
                return;
            }
            json_object_del(obj, key);
            s->sh->stripped++;
            continue;
        }
        if (!m.leaf || m.children != NULL)
            walk_value(s, val, m.children, here);
        if (s->refused || s->nomem)
            return;
    }
}

static void walk_value(shaper *s, json_t *v, frame *frames, const char *path)
{
    if (json_is_object(v)) {
        walk_object(s, v, frames, path);
        return;
    }
    if (!json_is_array(v))
        return;
    int64_t cap = s->sh->max_list_items;
    while (cap > 0 && (int64_t)json_array_size(v) > cap) {
        json_array_remove(v, json_array_size(v) - 1);
        s->sh->truncated = true;
    }
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item)
    {
        walk_value(s, item, frames, path);
        if (s->refused || s->nomem)
            return;
    }
}

sluice_status
sluice_graphql_shape(sluice_arena *arena, json_t *data, sluice_exec_walk *sh, sluice_error *err)
{
    shaper s = { .arena = arena, .sh = sh, .err = err };
    sluice_gql_document *doc = NULL;
    sluice_status st =
        sluice_graphql_parse(arena, sh->code, sh->code_len, "operation", NULL, &doc, err);
    if (st == SLUICE_OK && sh->document_model != NULL)
        s.schema = sh->document_model;
    else if (st == SLUICE_OK)
        st = sluice_graphql_model(arena, sh->document, sh->document_len, &s.schema, err);
    if (st != SLUICE_OK)
        return st;
    s.doc = doc;
    const sluice_gql_definition *op = sluice_gql_select_operation(doc, sh->operation_name);
    const sluice_gql_schema_type *root = op == NULL                             ? NULL
                                         : op->operation == SLUICE_GQL_MUTATION ? s.schema->mutation
                                         : op->operation == SLUICE_GQL_SUBSCRIPTION
                                             ? NULL
                                             : s.schema->query;
    if (root == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "the operation to shape the response with was not found");
    frame top = { op->selections, root, NULL };
    walk_value(&s, data, &top, "");
    if (s.nomem)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory shaping the response");
    if (s.refused)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the response holds the blocked field at %s; "
                                "graphql_blocked_output = \"refuse\" withholds the whole result",
                                sh->first_hit);
    return SLUICE_OK;
}
