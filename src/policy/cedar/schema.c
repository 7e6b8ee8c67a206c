/*
 * schema.c — Cedar JSON schemas and the partial policy validation described in schema.h.
 *
 * The JSON tree is kept (released with the arena) and walked directly: the schema is small
 * and validation runs once per policy load, so no separate type model is built.
 */
#include "policy/cedar/schema.h"

#include "core/limits.h"
#include "core/vec.h"
#include "policy/cedar/ast.h"
#include "policy/cedar/json.h"

#include <string.h>

typedef struct entity_type {
    const char *name; /* qualified: "Ns::User" */
    const char *ns;
    const json_t *decl;
} entity_type;

typedef struct action_decl {
    sluice_cedar_uid uid;
    const char *ns;
    const json_t *decl;
} action_decl;

struct sluice_cedar_schema {
    entity_type *types;
    size_t ntypes;
    action_decl *actions;
    size_t nactions;
    const json_t *root;
};

static const char *qualify(sluice_arena *arena, const char *ns, const char *name)
{
    if (ns[0] == '\0' || strstr(name, "::") != NULL)
        return name;
    return sluice_arena_printf(arena, "%s::%s", ns, name);
}

static const entity_type *find_type(const sluice_cedar_schema *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->ntypes; i++) {
        if (strlen(s->types[i].name) == len && memcmp(s->types[i].name, name, len) == 0)
            return &s->types[i];
    }
    return NULL;
}

static const action_decl *find_action(const sluice_cedar_schema *s, const sluice_cedar_uid *uid)
{
    for (size_t i = 0; i < s->nactions; i++) {
        if (sluice_cedar_uid_eq(&s->actions[i].uid, uid))
            return &s->actions[i];
    }
    return NULL;
}

static void json_release(void *j)
{
    json_decref(j);
}

static sluice_status load_namespace(sluice_arena *arena,
                                    sluice_cedar_schema *s,
                                    const char *ns,
                                    const json_t *body,
                                    entity_type *types,
                                    action_decl *acts)
{
    const char *name;
    json_t *decl;
    json_object_foreach(json_object_get(body, "entityTypes"), name, decl)
    {
        types[s->ntypes].name = qualify(arena, ns, name);
        types[s->ntypes].ns = ns;
        types[s->ntypes++].decl = decl;
    }
    const char *action_type = qualify(arena, ns, "Action");
    json_object_foreach(json_object_get(body, "actions"), name, decl)
    {
        if (action_type == NULL)
            return SLUICE_E_NOMEM;
        sluice_cedar_uid_make(&acts[s->nactions].uid, action_type, strlen(action_type), name,
                              strlen(name));
        acts[s->nactions].ns = ns;
        acts[s->nactions++].decl = decl;
    }
    return SLUICE_OK;
}

sluice_status sluice_cedar_schema_parse_json(sluice_arena *arena,
                                             const char *text,
                                             size_t len,
                                             const char *source,
                                             sluice_cedar_schema **out,
                                             sluice_error *err)
{
    sluice_error scratch;
    cedar_json c = { arena, source != NULL ? source : "<schema>", err != NULL ? err : &scratch };
    sluice_error_clear(c.err);
    json_t *root;
    sluice_status st = sluice_cedar_json_load(&c, text, len, &root);
    if (st != SLUICE_OK)
        return st;
    if (sluice_arena_cleanup_add(arena, json_release, root) != SLUICE_OK)
        return sluice_error_set(c.err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!json_is_object(root))
        return sluice_error_at(c.err, arena, SLUICE_E_INVALID, c.source, 1, 1,
                               "a schema is a JSON object of namespaces");
    size_t ntypes = 0, nactions = 0;
    const char *ns;
    json_t *body;
    json_object_foreach(root, ns, body)
    {
        const json_t *et = json_object_get(body, "entityTypes"),
                     *ac = json_object_get(body, "actions");
        if (!json_is_object(body) || (et != NULL && !json_is_object(et)) ||
            (ac != NULL && !json_is_object(ac)))
            return sluice_error_set(c.err, arena, SLUICE_E_INVALID,
                                    "%s: namespace \"%s\": expected {\"entityTypes\": {...}, "
                                    "\"actions\": {...}}",
                                    c.source, ns);
        ntypes += json_object_size(et);
        nactions += json_object_size(ac);
    }
    sluice_cedar_schema *s = sluice_arena_calloc(arena, 1, sizeof(*s));
    entity_type *types = sluice_arena_calloc(arena, ntypes + 1, sizeof(*types));
    action_decl *acts = sluice_arena_calloc(arena, nactions + 1, sizeof(*acts));
    if (s == NULL || types == NULL || acts == NULL)
        return sluice_error_set(c.err, arena, SLUICE_E_NOMEM, "out of memory");
    s->types = types;
    s->actions = acts;
    s->root = root;
    json_object_foreach(root, ns, body)
    {
        if (load_namespace(arena, s, ns, body, types, acts) != SLUICE_OK)
            return sluice_error_set(c.err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    *out = s;
    return SLUICE_OK;
}

/* ---- validation ---------------------------------------------------------------------- */

#define MAX_CANDIDATES 64

typedef struct checker {
    sluice_arena *arena;
    const sluice_cedar_schema *schema;
    const sluice_cedar_policy *policy;
    sluice_cedar_problem *problems;
    size_t count, cap;
    bool nomem;
    const action_decl *applicable[MAX_CANDIDATES];
    size_t napplicable;
} checker;

static void problem(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(checker *c, const char *fmt, ...)
{
    sluice_cedar_problem *p =
        sluice_vec_grow(c->arena, c->problems, c->count, &c->cap, sizeof(*p), 8);
    if (p == NULL) {
        c->nomem = true;
        return;
    }
    c->problems = p;
    va_list ap;
    va_start(ap, fmt);
    c->problems[c->count].policy = c->policy;
    c->problems[c->count].message = sluice_arena_vprintf(c->arena, fmt, ap);
    va_end(ap);
    if (c->problems[c->count].message == NULL)
        c->nomem = true;
    else
        c->count++;
}

static bool is_action_uid(const sluice_cedar_uid *uid)
{
    return (uid->type_len == 6 && memcmp(uid->type, "Action", 6) == 0) ||
           (uid->type_len > 8 && memcmp(uid->type + uid->type_len - 8, "::Action", 8) == 0);
}

static void check_uid(checker *c, const sluice_cedar_uid *uid)
{
    if (is_action_uid(uid)) {
        if (find_action(c->schema, uid) == NULL)
            problem(c, "action %.*s::\"%.*s\" is not declared in the schema", (int)uid->type_len,
                    uid->type, (int)uid->id_len, uid->id);
    } else if (find_type(c->schema, uid->type, uid->type_len) == NULL) {
        problem(c, "entity type %.*s is not declared in the schema", (int)uid->type_len, uid->type);
    }
}

/* Is action a (transitively, through memberOf) in group g? */
static bool action_in(const sluice_cedar_schema *s,
                      const action_decl *a,
                      const sluice_cedar_uid *g,
                      unsigned depth)
{
    if (sluice_cedar_uid_eq(&a->uid, g))
        return true;
    if (depth > 32)
        return false;
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(a->decl, "memberOf"), i, m)
    {
        const json_t *id = json_object_get(m, "id"), *type = json_object_get(m, "type");
        if (!json_is_string(id))
            continue;
        sluice_cedar_uid parent;
        const char *ptype = json_is_string(type) ? json_string_value(type) : NULL;
        if (ptype != NULL && strstr(ptype, "::") == NULL && a->ns[0] != '\0')
            ptype = a->uid.type; /* "Action" inside a namespace means Ns::Action */
        if (ptype == NULL)
            sluice_cedar_uid_make(&parent, a->uid.type, a->uid.type_len, json_string_value(id),
                                  json_string_length(id));
        else
            sluice_cedar_uid_make(&parent, ptype, strlen(ptype), json_string_value(id),
                                  json_string_length(id));
        const action_decl *pa = find_action(s, &parent);
        if (pa != NULL ? action_in(s, pa, g, depth + 1) : sluice_cedar_uid_eq(&parent, g))
            return true;
    }
    return false;
}

static bool
action_matches(const sluice_cedar_schema *s, const action_decl *a, const cedar_scope *scope)
{
    switch ((cedar_scope_kind)scope->kind) {
    case SCOPE_ANY:
        return true;
    case SCOPE_EQ:
        return sluice_cedar_uid_eq(&a->uid, &scope->uids[0]);
    case SCOPE_IN_LIST:
        for (uint32_t i = 0; i < scope->count; i++) {
            if (action_in(s, a, &scope->uids[i], 0))
                return true;
        }
        return false;
    default:
        return action_in(s, a, &scope->uids[0], 0);
    }
}

/* The one entity type a principal/resource scope pins down, or NULL (any). */
static const char *scope_type(sluice_arena *arena, const cedar_scope *scope)
{
    if (scope->kind == SCOPE_EQ)
        return sluice_arena_strndup(arena, scope->uids[0].type, scope->uids[0].type_len);
    if (scope->kind == SCOPE_IS || scope->kind == SCOPE_IS_IN)
        return sluice_arena_strndup(arena, scope->type, scope->type_len);
    return NULL;
}

static bool applies_to(const action_decl *a, const char *key, const char *type)
{
    if (type == NULL)
        return true;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(a->decl, "appliesTo"), key), i, t)
    {
        const char *name = json_string_value(t);
        if (name == NULL)
            continue;
        const char *q = strstr(name, "::") != NULL || a->ns[0] == '\0' ? name : NULL;
        if (q != NULL ? strcmp(q, type) == 0
                      : (strncmp(type, a->ns, strlen(a->ns)) == 0 &&
                         strncmp(type + strlen(a->ns), "::", 2) == 0 &&
                         strcmp(type + strlen(a->ns) + 2, name) == 0))
            return true;
    }
    return false;
}

/* Resolves a schema type (common type names, EntityOrCommon) in namespace ns. */
static const json_t *resolve(const checker *c, const char *ns, const json_t *t, const char **ens)
{
    *ens = ns;
    for (int hops = 0; hops < 16 && t != NULL; hops++) {
        const char *kind = json_string_value(json_object_get(t, "type"));
        if (kind == NULL)
            return NULL;
        if (strcmp(kind, "EntityOrCommon") == 0)
            kind = json_string_value(json_object_get(t, "name"));
        if (kind == NULL)
            return NULL;
        const json_t *common = json_object_get(
            json_object_get(json_object_get(c->schema->root, ns), "commonTypes"), kind);
        if (common == NULL)
            return t;
        t = common;
    }
    return NULL;
}

typedef struct cand {
    const char *ns;
    const json_t *record; /* a schema type of kind Record */
} cand;

/* Adds the shape of entity type `name` (qualified or relative to ns). */
static void
add_entity_shape(const checker *c, const char *ns, const char *name, cand *out, size_t *n)
{
    const char *q = qualify(c->arena, ns, name);
    const entity_type *et = q != NULL ? find_type(c->schema, q, strlen(q)) : NULL;
    if (et == NULL || *n >= MAX_CANDIDATES)
        return;
    /* No shape is an empty record: any attribute access on it is undeclared. */
    const char *rns;
    out[*n].record = resolve(c, et->ns, json_object_get(et->decl, "shape"), &rns);
    out[(*n)++].ns = rns;
}

/* principal.a.b / resource.a / context.a.b: every step must be a declared attribute of at
 * least one type the variable can have under this policy. */
static void check_chain(checker *c, const cedar_expr *root, const cedar_expr **chain, size_t n)
{
    cand cands[MAX_CANDIDATES];
    size_t ncand = 0;
    const char *var = root->op == VAR_PRINCIPAL  ? "principal"
                      : root->op == VAR_RESOURCE ? "resource"
                      : root->op == VAR_CONTEXT  ? "context"
                                                 : "action";
    if (root->op == VAR_ACTION)
        return;
    for (size_t i = 0; i < c->napplicable; i++) {
        const action_decl *a = c->applicable[i];
        const json_t *applies = json_object_get(a->decl, "appliesTo");
        if (root->op == VAR_CONTEXT) {
            const char *rns;
            const json_t *ctx = resolve(c, a->ns, json_object_get(applies, "context"), &rns);
            if (ctx != NULL && ncand < MAX_CANDIDATES) {
                cands[ncand].ns = rns;
                cands[ncand++].record = ctx;
            }
            continue;
        }
        const cedar_scope *scope =
            root->op == VAR_PRINCIPAL ? &c->policy->principal : &c->policy->resource;
        const char *pinned = scope_type(c->arena, scope);
        size_t k;
        json_t *t;
        json_array_foreach(json_object_get(applies, root->op == VAR_PRINCIPAL ? "principalTypes"
                                                                              : "resourceTypes"),
                           k, t)
        {
            const char *name = json_string_value(t);
            const char *q = name != NULL ? qualify(c->arena, a->ns, name) : NULL;
            if (q != NULL && (pinned == NULL || strcmp(pinned, q) == 0))
                add_entity_shape(c, a->ns, q, cands, &ncand);
        }
    }
    for (size_t step = 0; step < n && ncand > 0; step++) {
        const cedar_expr *e = chain[step];
        cand next[MAX_CANDIDATES];
        size_t nnext = 0;
        bool found = false;
        for (size_t i = 0; i < ncand; i++) {
            char *key = sluice_arena_strndup(c->arena, e->name, e->name_len);
            const json_t *attr =
                key != NULL ? json_object_get(json_object_get(cands[i].record, "attributes"), key)
                            : NULL;
            if (attr == NULL)
                continue;
            found = true;
            const char *rns;
            const json_t *t = resolve(c, cands[i].ns, attr, &rns);
            const char *kind = json_string_value(json_object_get(t, "type"));
            if (kind != NULL && strcmp(kind, "Record") == 0 && nnext < MAX_CANDIDATES) {
                next[nnext].ns = rns;
                next[nnext++].record = t;
            } else if (kind != NULL &&
                       (strcmp(kind, "Entity") == 0 || strcmp(kind, "EntityOrCommon") == 0)) {
                const char *name = json_string_value(json_object_get(t, "name"));
                if (name != NULL)
                    add_entity_shape(c, rns, name, next, &nnext);
            }
        }
        if (!found) {
            problem(c, "attribute `%.*s` is not declared for %s%s", (int)e->name_len, e->name, var,
                    step > 0 ? " (at this depth)" : "");
            return;
        }
        memcpy(cands, next, nnext * sizeof(*next));
        ncand = nnext;
    }
}

/* e is the outermost access of a chain rooted at a variable. The chain array lives in this
 * frame only, never across the recursion of check_expr. */
static void check_var_chain(checker *c, const cedar_expr *e)
{
    const cedar_expr *chain[SLUICE_LIMIT_CEDAR_TREE_DEPTH];
    size_t n = 0;
    for (; e->kind == EX_ATTR && n < SLUICE_LIMIT_CEDAR_TREE_DEPTH; e = e->a)
        chain[n++] = e;
    for (size_t i = 0; i < n / 2; i++) {
        const cedar_expr *t = chain[i];
        chain[i] = chain[n - 1 - i];
        chain[n - 1 - i] = t;
    }
    check_chain(c, e, chain, n);
}

static void check_expr(checker *c, const cedar_expr *e)
{
    if (e == NULL || c->nomem)
        return;
    if (e->kind == EX_LIT && e->lit.kind == SLUICE_CEDAR_ENTITY) {
        check_uid(c, e->lit.u.uid);
        return;
    }
    if (e->kind == EX_IS && find_type(c->schema, e->name, e->name_len) == NULL)
        problem(c, "entity type %.*s is not declared in the schema", (int)e->name_len, e->name);
    if (e->kind == EX_ATTR) {
        const cedar_expr *root = e;
        while (root->kind == EX_ATTR)
            root = root->a;
        if (root->kind == EX_VAR)
            check_var_chain(c, e);
        else
            check_expr(c, root);
        return;
    }
    check_expr(c, e->a);
    check_expr(c, e->b);
    check_expr(c, e->c);
    for (uint32_t i = 0; i < e->nargs; i++)
        check_expr(c, e->args[i]);
}

static void check_scope_uids(checker *c, const cedar_scope *s)
{
    for (uint32_t i = 0; i < s->count; i++)
        check_uid(c, &s->uids[i]);
    if ((s->kind == SCOPE_IS || s->kind == SCOPE_IS_IN) &&
        find_type(c->schema, s->type, s->type_len) == NULL)
        problem(c, "entity type %.*s is not declared in the schema", (int)s->type_len, s->type);
}

static void check_policy(checker *c, const sluice_cedar_policy *p)
{
    c->policy = p;
    size_t before = c->count;
    check_scope_uids(c, &p->principal);
    check_scope_uids(c, &p->action);
    check_scope_uids(c, &p->resource);
    if (c->count > before)
        return; /* unknown names: the applicability check would only repeat them */
    const char *ptype = scope_type(c->arena, &p->principal);
    const char *rtype = scope_type(c->arena, &p->resource);
    c->napplicable = 0;
    for (size_t i = 0; i < c->schema->nactions && c->napplicable < MAX_CANDIDATES; i++) {
        const action_decl *a = &c->schema->actions[i];
        if (action_matches(c->schema, a, &p->action) && applies_to(a, "principalTypes", ptype) &&
            applies_to(a, "resourceTypes", rtype))
            c->applicable[c->napplicable++] = a;
    }
    if (c->napplicable == 0) {
        problem(c, "no action in the schema applies to this policy's scope (check the action "
                   "and the principal and resource types against appliesTo)");
        return;
    }
    for (uint32_t i = 0; i < p->nconds; i++)
        check_expr(c, p->conds[i].expr);
}

sluice_status sluice_cedar_schema_validate(sluice_arena *arena,
                                           const sluice_cedar_schema *schema,
                                           const sluice_cedar_policyset *set,
                                           sluice_cedar_validation *out)
{
    checker c = { .arena = arena, .schema = schema };
    for (size_t i = 0; i < set->count && !c.nomem; i++)
        check_policy(&c, set->items[i]);
    out->problems = c.problems;
    out->count = c.count;
    return c.nomem ? SLUICE_E_NOMEM : SLUICE_OK;
}
