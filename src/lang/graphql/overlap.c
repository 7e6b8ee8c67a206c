/*
 * overlap.c — OverlappingFieldsCanBeMerged (spec 5.3.2), as graphql-js 16.15 decides it: two
 * fields with the same response name (alias or name) that could apply to the same object must
 * be the same field with the same arguments, return types that can merge, and sub-selections
 * that merge in turn, fragments and inline fragments followed.
 *
 * Owns: the rule, its memo tables (collected fields per parent type and selection set, the
 * fragments compared with each collection, the fragment pairs compared) and its work budget:
 * graphql-js meters the same steps with MAX_COMPLEXITY_BUDGET and aborts validation past it;
 * sluice refuses the document past SLUICE_LIMIT_GRAPHQL_OVERLAP_BUDGET (rule
 * graphql_overlap_budget). graphql-js also memoizes overlapping-name lists and argument
 * comparisons; sluice does not, so it spends at least as much: near the boundary it may refuse
 * what graphql-js accepts, never the reverse.
 * The first conflict found refuses the document (one violation: accept/reject is what matters,
 * and the first conflict says what to change). Selections inside __schema/__type have no
 * types here, as in graphql-js (the rule looks fields up without the meta fields), so only
 * names and arguments are compared.
 * Does not own: the other rules (validate.c), limits of the operation (operation.c).
 */
#include "lang/graphql/overlap.h"

#include "core/limits.h"
#include "core/vec.h"

#include <string.h>

typedef struct fdetail {
    const sluice_gql_schema_type *parent; /* NULL: unknown */
    const sluice_gql_selection *node;
    const sluice_gql_schema_field *def; /* NULL: unknown field, union member, __typename */
    bool simple_leaf;                   /* no arguments, no selection set */
} fdetail;

typedef struct group {
    sluice_gql_str name; /* the response name */
    fdetail *items;
    size_t count, cap;
} group;

typedef struct collected {
    const sluice_gql_schema_type *parent;
    const sluice_gql_selection *set;
    group *groups;
    size_t group_count, group_cap;
    uint32_t *index;           /* open addressing over groups: group number + 1, 0 = free */
    size_t index_size;         /* a power of two, at least twice the fields */
    sluice_gql_str *fragments; /* spread names, unique, in order */
    size_t fragment_count, fragment_cap;
    /* comparedFragments, by fragment number: 0 not yet, 1 exclusively, 2 not exclusively */
    uint8_t *compared;
    struct collected *next;
} collected;

typedef struct fpair {
    uint32_t a, b; /* fragment numbers, a < b */
    bool exclusive;
    struct fpair *next;
} fpair;

#define OV_BUCKETS      256u
#define OV_PAIR_BUCKETS 4096u

typedef struct ov {
    sluice_gql_vctx *v;
    collected *cache[OV_BUCKETS];
    fpair **pairs; /* OV_PAIR_BUCKETS chains, allocated at the first pair */
    /* the fragment definitions by number, and an open-addressing index of their names */
    const sluice_gql_definition **frags;
    uint32_t frag_count;
    uint32_t *frag_index;
    size_t frag_index_size;
    int64_t budget;
    bool aborted;
    /* the first conflict */
    bool found;
    sluice_gql_str response;
    const char *reason;
    uint32_t offset;
} ov;

static bool stop(const ov *c)
{
    return c->found || c->aborted || c->v->nomem;
}

static void spend(ov *c, int64_t cost)
{
    c->budget -= cost;
    if (c->budget < 0)
        c->aborted = true;
}

/* Room for one more item in *items (core/vec.h); false (nomem set) when memory runs out. */
static bool grow(ov *c, void **items, size_t *cap, size_t count, size_t size)
{
    void *fresh = sluice_vec_grow(c->v->arena, *items, count, cap, size, 4);
    if (fresh == NULL) {
        c->v->nomem = true;
        return false;
    }
    *items = fresh;
    return true;
}

static size_t hash_ptr(const void *a, const void *b)
{
    uintptr_t h = (uintptr_t)a * 31u + (uintptr_t)b;
    return (size_t)((h >> 4) ^ (h >> 12)) % OV_BUCKETS;
}

static size_t hash_str(sluice_gql_str s)
{
    size_t h = 5381;
    for (size_t i = 0; i < s.len; i++)
        h = h * 33u + (unsigned char)s.ptr[i];
    return h;
}

/* ---- collecting fields ------------------------------------------------------------------- */

/* The group of response name in r, or NULL; *slot is where it would go in the index. */
static group *group_of(const collected *r, sluice_gql_str name, size_t *slot)
{
    size_t mask = r->index_size - 1;
    for (size_t i = hash_str(name) & mask;; i = (i + 1) & mask) {
        *slot = i;
        if (r->index[i] == 0)
            return NULL;
        if (sluice_gql_same(r->groups[r->index[i] - 1].name, name))
            return &r->groups[r->index[i] - 1];
    }
}

static void
add_field(ov *c, collected *r, const sluice_gql_schema_type *parent, const sluice_gql_selection *s)
{
    sluice_gql_str name = s->alias.ptr != NULL ? s->alias : s->name;
    size_t slot = 0;
    group *g = group_of(r, name, &slot);
    if (g == NULL) {
        if (!grow(c, (void **)&r->groups, &r->group_cap, r->group_count, sizeof *r->groups))
            return;
        g = &r->groups[r->group_count++];
        *g = (group){ .name = name };
        r->index[slot] = (uint32_t)r->group_count;
    }
    if (!grow(c, (void **)&g->items, &g->cap, g->count, sizeof *g->items))
        return;
    bool fields = parent != NULL && (parent->kind == SLUICE_GQL_KIND_OBJECT ||
                                     parent->kind == SLUICE_GQL_KIND_INTERFACE);
    g->items[g->count++] = (fdetail){
        .parent = parent,
        .node = s,
        .def = fields ? sluice_graphql_schema_field(parent, s->name.ptr, s->name.len) : NULL,
        .simple_leaf = s->arguments == NULL && s->selections == NULL,
    };
}

static void add_fragment(ov *c, collected *r, sluice_gql_str name)
{
    for (size_t i = 0; i < r->fragment_count; i++)
        if (sluice_gql_same(r->fragments[i], name))
            return;
    if (grow(c, (void **)&r->fragments, &r->fragment_cap, r->fragment_count, sizeof *r->fragments))
        r->fragments[r->fragment_count++] = name;
}

static void collect_into(ov *c,
                         collected *r,
                         const sluice_gql_schema_type *parent,
                         const sluice_gql_selection *set)
{
    for (const sluice_gql_selection *s = set; s != NULL && !c->v->nomem; s = s->next) {
        if (s->kind == SLUICE_GQL_FIELD)
            add_field(c, r, parent, s);
        else if (s->kind == SLUICE_GQL_FRAGMENT_SPREAD)
            add_fragment(c, r, s->name);
        else
            collect_into(c, r,
                         s->type_condition.ptr != NULL
                             ? sluice_gql_type_named(c->v->schema, s->type_condition)
                             : parent,
                         s->selections);
    }
}

static size_t count_fields(const sluice_gql_selection *set, unsigned depth)
{
    size_t n = 0;
    for (const sluice_gql_selection *s = set; s != NULL && depth < SLUICE_LIMIT_GRAPHQL_DEPTH;
         s = s->next)
        n += s->kind == SLUICE_GQL_FIELD             ? 1
             : s->kind == SLUICE_GQL_INLINE_FRAGMENT ? count_fields(s->selections, depth + 1)
                                                     : 0;
    return n;
}

/* The fields of set under parent, grouped by response name, and its spreads; NULL on NOMEM. */
static collected *
collect(ov *c, const sluice_gql_schema_type *parent, const sluice_gql_selection *set)
{
    size_t b = hash_ptr(parent, set);
    for (collected *r = c->cache[b]; r != NULL; r = r->next)
        if (r->parent == parent && r->set == set)
            return r;
    collected *r = sluice_arena_calloc(c->v->arena, 1, sizeof *r);
    if (r == NULL) {
        c->v->nomem = true;
        return NULL;
    }
    r->parent = parent;
    r->set = set;
    r->index_size = 8;
    while (r->index_size < 2 * count_fields(set, 0) + 2)
        r->index_size *= 2;
    r->index = sluice_arena_calloc(c->v->arena, r->index_size, sizeof *r->index);
    if (r->index == NULL) {
        c->v->nomem = true;
        return NULL;
    }
    collect_into(c, r, parent, set);
    r->next = c->cache[b];
    c->cache[b] = r;
    return c->v->nomem ? NULL : r;
}

/* getFragment's number: the last definition of that name, as graphql-js's map keeps it;
 * UINT32_MAX when there is none. */
static uint32_t fragment_number(const ov *c, sluice_gql_str name)
{
    size_t mask = c->frag_index_size - 1;
    for (size_t i = hash_str(name) & mask; c->frag_index[i] != 0; i = (i + 1) & mask)
        if (sluice_gql_same(c->frags[c->frag_index[i] - 1]->name, name))
            return c->frag_index[i] - 1;
    return UINT32_MAX;
}

static bool index_fragments(ov *c)
{
    for (const sluice_gql_definition *d = c->v->doc->definitions; d != NULL; d = d->next)
        c->frag_count += d->kind == SLUICE_GQL_FRAGMENT_DEFINITION;
    c->frag_index_size = 8;
    while (c->frag_index_size < 2 * (size_t)c->frag_count + 2)
        c->frag_index_size *= 2;
    c->frags = sluice_arena_calloc(c->v->arena, c->frag_count + 1, sizeof *c->frags);
    c->frag_index = sluice_arena_calloc(c->v->arena, c->frag_index_size, sizeof *c->frag_index);
    if (c->frags == NULL || c->frag_index == NULL)
        return false;
    uint32_t n = 0;
    size_t mask = c->frag_index_size - 1;
    for (const sluice_gql_definition *d = c->v->doc->definitions; d != NULL; d = d->next) {
        if (d->kind != SLUICE_GQL_FRAGMENT_DEFINITION)
            continue;
        size_t i = hash_str(d->name) & mask;
        while (c->frag_index[i] != 0 &&
               !sluice_gql_same(c->frags[c->frag_index[i] - 1]->name, d->name))
            i = (i + 1) & mask;
        c->frags[n] = d;
        c->frag_index[i] = ++n; /* a later definition of the name replaces the earlier */
    }
    return true;
}

static collected *fragment_fields(ov *c, const sluice_gql_definition *frag)
{
    return collect(c, sluice_gql_type_named(c->v->schema, frag->type_condition), frag->selections);
}

/* ---- comparing values, types, fields ----------------------------------------------------- */

/* stringifyValue equality: kind and text (as written), a string's block flag, list items in
 * order, object fields sorted by name: the rule runs only on documents whose other rules
 * passed, so input field names are unique and "sorted equal" is "same names, same values". */
static bool same_value(const sluice_gql_value *a, const sluice_gql_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SLUICE_GQL_NULL:
        return true;
    case SLUICE_GQL_BOOLEAN:
        return a->boolean == b->boolean;
    case SLUICE_GQL_STRING:
        return a->block == b->block && sluice_gql_same(a->text, b->text);
    case SLUICE_GQL_LIST: {
        const sluice_gql_value *x = a->items, *y = b->items;
        for (; x != NULL && y != NULL; x = x->next, y = y->next)
            if (!same_value(x, y))
                return false;
        return x == NULL && y == NULL;
    }
    case SLUICE_GQL_OBJECT: {
        size_t n = 0, m = 0;
        for (const sluice_gql_object_field *f = a->fields; f != NULL; f = f->next)
            n++;
        for (const sluice_gql_object_field *f = b->fields; f != NULL; f = f->next)
            m++;
        if (n != m)
            return false;
        for (const sluice_gql_object_field *x = a->fields; x != NULL; x = x->next) {
            const sluice_gql_object_field *y = b->fields;
            while (y != NULL && !sluice_gql_same(x->name, y->name))
                y = y->next;
            if (y == NULL || !same_value(x->value, y->value))
                return false;
        }
        return true;
    }
    default: /* variable name, Int/Float as written, enum name */
        return sluice_gql_same(a->text, b->text);
    }
}

static size_t argument_count(const sluice_gql_argument *a)
{
    size_t n = 0;
    for (; a != NULL; a = a->next)
        n++;
    return n;
}

static bool same_arguments(ov *c, const sluice_gql_selection *x, const sluice_gql_selection *y)
{
    if (x->arguments == NULL)
        return y->arguments == NULL;
    if (argument_count(x->arguments) != argument_count(y->arguments))
        return false;
    for (const sluice_gql_argument *a = x->arguments; a != NULL; a = a->next) {
        spend(c, 1);
        const sluice_gql_argument *match = NULL; /* the last of that name, as a Map keeps it */
        for (const sluice_gql_argument *b = y->arguments; b != NULL; b = b->next)
            if (sluice_gql_same(a->name, b->name))
                match = b;
        if (match == NULL || !same_value(a->value, match->value))
            return false;
    }
    return true;
}

/* doTypesConflict: wrappers by node (each field's type is its own), named types by identity. */
static bool types_conflict(ov *c, const sluice_gql_type *a, const sluice_gql_type *b)
{
    if (a == b)
        return false;
    if (a->kind == SLUICE_GQL_NAMED_TYPE && b->kind == SLUICE_GQL_NAMED_TYPE) {
        const sluice_gql_schema_type *ta = sluice_gql_named(c->v->schema, a);
        const sluice_gql_schema_type *tb = sluice_gql_named(c->v->schema, b);
        if (ta == tb)
            return false;
        spend(c, 1);
        return (ta != NULL && sluice_gql_leaf(ta)) || (tb != NULL && sluice_gql_leaf(tb));
    }
    spend(c, 1);
    if (a->kind == SLUICE_GQL_LIST_TYPE)
        return b->kind == SLUICE_GQL_LIST_TYPE ? types_conflict(c, a->of, b->of) : true;
    if (b->kind == SLUICE_GQL_LIST_TYPE)
        return true;
    if (a->kind == SLUICE_GQL_NON_NULL_TYPE)
        return b->kind == SLUICE_GQL_NON_NULL_TYPE ? types_conflict(c, a->of, b->of) : true;
    return b->kind == SLUICE_GQL_NON_NULL_TYPE;
}

static void
conflict(ov *c, sluice_gql_str response, const sluice_gql_selection *at, const char *reason)
{
    if (c->found)
        return;
    c->found = true;
    c->response = response;
    c->reason = reason != NULL ? reason : "they cannot be merged";
    c->offset = at->offset;
}

static void between(ov *c, bool exclusive, collected *r1, collected *r2);
static void fields_and_fragment(ov *c, bool exclusive, collected *r, sluice_gql_str name);
static void fragments_pair(ov *c, bool exclusive, sluice_gql_str n1, sluice_gql_str n2);

/* (H)-(J): two sub-selection sets. */
static void sub_selections(ov *c,
                           bool exclusive,
                           const sluice_gql_schema_type *t1,
                           const sluice_gql_selection *s1,
                           const sluice_gql_schema_type *t2,
                           const sluice_gql_selection *s2)
{
    collected *r1 = collect(c, t1, s1);
    collected *r2 = collect(c, t2, s2);
    if (r1 == NULL || r2 == NULL)
        return;
    between(c, exclusive, r1, r2);
    for (size_t i = 0; i < r2->fragment_count && !stop(c); i++)
        fields_and_fragment(c, exclusive, r1, r2->fragments[i]);
    for (size_t i = 0; i < r1->fragment_count && !stop(c); i++)
        fields_and_fragment(c, exclusive, r2, r1->fragments[i]);
    for (size_t i = 0; i < r1->fragment_count && !stop(c); i++)
        for (size_t j = 0; j < r2->fragment_count && !stop(c); j++)
            fragments_pair(c, exclusive, r1->fragments[i], r2->fragments[j]);
}

static void find_conflict(
    ov *c, bool parents_exclusive, sluice_gql_str response, const fdetail *f1, const fdetail *f2)
{
    bool exclusive =
        parents_exclusive ||
        (f1->parent != f2->parent && f1->parent != NULL && f2->parent != NULL &&
         f1->parent->kind == SLUICE_GQL_KIND_OBJECT && f2->parent->kind == SLUICE_GQL_KIND_OBJECT);
    spend(c, 2);
    const sluice_gql_selection *n1 = f1->node, *n2 = f2->node;
    const sluice_gql_type *t1 = f1->def != NULL ? f1->def->type : NULL;
    const sluice_gql_type *t2 = f2->def != NULL ? f2->def->type : NULL;
    if (f1->simple_leaf && f2->simple_leaf && t1 == t2 && sluice_gql_same(n1->name, n2->name))
        return;
    sluice_arena *a = c->v->arena;
    if (!exclusive && !sluice_gql_same(n1->name, n2->name)) {
        conflict(c, response, n2,
                 sluice_arena_printf(a, "\"%.*s\" and \"%.*s\" are different fields",
                                     (int)n1->name.len, n1->name.ptr, (int)n2->name.len,
                                     n2->name.ptr));
        return;
    }
    if (!exclusive && !same_arguments(c, n1, n2)) {
        conflict(c, response, n2, "they have differing arguments");
        return;
    }
    if (t1 != NULL && t2 != NULL && types_conflict(c, t1, t2)) {
        conflict(c, response, n2,
                 sluice_arena_printf(a, "they return conflicting types \"%s\" and \"%s\"",
                                     sluice_gql_type_text(a, t1), sluice_gql_type_text(a, t2)));
        return;
    }
    if (n1->selections != NULL && n2->selections != NULL && !stop(c))
        sub_selections(c, exclusive, f1->def != NULL ? f1->def->named : NULL, n1->selections,
                       f2->def != NULL ? f2->def->named : NULL, n2->selections);
}

/* (A): pairs of one collection with the same response name. */
static void within(ov *c, const collected *r)
{
    for (size_t g = 0; g < r->group_count && !stop(c); g++)
        for (size_t i = 0; i < r->groups[g].count && !stop(c); i++)
            for (size_t j = i + 1; j < r->groups[g].count && !stop(c); j++)
                find_conflict(c, false, r->groups[g].name, &r->groups[g].items[i],
                              &r->groups[g].items[j]);
}

static void between(ov *c, bool exclusive, collected *r1, collected *r2)
{
    if (r1->group_count == 0 || r2->group_count == 0)
        return;
    for (size_t g = 0; g < r1->group_count && !stop(c); g++) {
        spend(c, 1);
        const group *x = &r1->groups[g];
        size_t slot = 0;
        const group *y = group_of(r2, x->name, &slot);
        for (size_t i = 0; y != NULL && i < x->count && !stop(c); i++)
            for (size_t j = 0; j < y->count && !stop(c); j++)
                find_conflict(c, exclusive, x->name, &x->items[i], &y->items[j]);
    }
}

/* (D)-(E): a collection against a fragment and what it spreads. */
static void fields_and_fragment(ov *c, bool exclusive, collected *r, sluice_gql_str name)
{
    spend(c, 1);
    if (r->group_count == 0 || stop(c))
        return;
    uint32_t k = fragment_number(c, name);
    if (k == UINT32_MAX)
        return; /* graphql-js memoizes the name, then finds no fragment: the same outcome */
    if (r->compared == NULL &&
        (r->compared = sluice_arena_calloc(c->v->arena, c->frag_count, 1)) == NULL) {
        c->v->nomem = true;
        return;
    }
    if (r->compared[k] == 2 || (r->compared[k] == 1 && exclusive))
        return; /* a non-exclusive comparison covers an exclusive one */
    r->compared[k] = exclusive ? 1 : 2;
    collected *r2 = fragment_fields(c, c->frags[k]);
    if (r2 == NULL || r2 == r)
        return;
    between(c, exclusive, r, r2);
    for (size_t i = 0; i < r2->fragment_count && !stop(c); i++)
        fields_and_fragment(c, exclusive, r, r2->fragments[i]);
}

/* PairSet over fragment numbers: the pair's entry, or NULL (allocating the table: NOMEM
 * sets nomem). */
static fpair *pair_find(ov *c, uint32_t a, uint32_t b, size_t *bucket)
{
    if (c->pairs == NULL &&
        (c->pairs = sluice_arena_calloc(c->v->arena, OV_PAIR_BUCKETS, sizeof *c->pairs)) == NULL) {
        c->v->nomem = true;
        return NULL;
    }
    *bucket = ((size_t)a * 2654435761u + b) % OV_PAIR_BUCKETS;
    for (fpair *p = c->pairs[*bucket]; p != NULL; p = p->next)
        if (p->a == a && p->b == b)
            return p;
    return NULL;
}

/* (F)-(G): two fragments and what each spreads. A pair compared as not exclusive covers the
 * exclusive comparison too. */
static void fragments_pair(ov *c, bool exclusive, sluice_gql_str n1, sluice_gql_str n2)
{
    spend(c, 2);
    if (stop(c) || sluice_gql_same(n1, n2))
        return;
    uint32_t k1 = fragment_number(c, n1), k2 = fragment_number(c, n2);
    if (k1 == UINT32_MAX || k2 == UINT32_MAX)
        return; /* graphql-js records the pair, then finds no fragment: the same outcome */
    size_t bucket = 0;
    uint32_t lo = k1 < k2 ? k1 : k2, hi = k1 < k2 ? k2 : k1;
    fpair *p = pair_find(c, lo, hi, &bucket);
    if (c->v->nomem || (p != NULL && (exclusive || p->exclusive == exclusive)))
        return;
    if (p == NULL) {
        if ((p = sluice_arena_calloc(c->v->arena, 1, sizeof *p)) == NULL) {
            c->v->nomem = true;
            return;
        }
        *p = (fpair){ lo, hi, exclusive, c->pairs[bucket] };
        c->pairs[bucket] = p;
    }
    p->exclusive = exclusive;
    collected *r1 = fragment_fields(c, c->frags[k1]);
    collected *r2 = fragment_fields(c, c->frags[k2]);
    if (r1 == NULL || r2 == NULL)
        return;
    between(c, exclusive, r1, r2);
    for (size_t i = 0; i < r2->fragment_count && !stop(c); i++)
        fragments_pair(c, exclusive, n1, r2->fragments[i]);
    for (size_t i = 0; i < r1->fragment_count && !stop(c); i++)
        fragments_pair(c, exclusive, r1->fragments[i], n2);
}

/* findConflictsWithinSelectionSet. */
static void within_set(ov *c, const sluice_gql_schema_type *parent, const sluice_gql_selection *set)
{
    collected *r = collect(c, parent, set);
    if (r == NULL)
        return;
    within(c, r);
    if (r->fragment_count == 0 || (r->group_count == 0 && r->fragment_count < 2))
        return;
    for (size_t i = 0; i < r->fragment_count && !stop(c); i++) {
        fields_and_fragment(c, false, r, r->fragments[i]);
        for (size_t j = i + 1; j < r->fragment_count && !stop(c); j++)
            fragments_pair(c, false, r->fragments[i], r->fragments[j]);
    }
}

/* Every selection set of the document, in document order, as the visitor enters them; those
 * directly inside an inline fragment were collected with their parent's. */
static void visit(ov *c,
                  const sluice_gql_schema_type *parent,
                  const sluice_gql_selection *set,
                  bool in_inline,
                  unsigned depth)
{
    if (stop(c) || set == NULL || depth > SLUICE_LIMIT_GRAPHQL_DEPTH)
        return;
    if (!in_inline && (set->next != NULL || set->kind == SLUICE_GQL_INLINE_FRAGMENT))
        within_set(c, parent, set);
    for (const sluice_gql_selection *s = set; s != NULL && !stop(c); s = s->next) {
        if (s->kind == SLUICE_GQL_FIELD && s->selections != NULL) {
            bool fields = parent != NULL && (parent->kind == SLUICE_GQL_KIND_OBJECT ||
                                             parent->kind == SLUICE_GQL_KIND_INTERFACE);
            const sluice_gql_schema_field *fd =
                fields ? sluice_graphql_schema_field(parent, s->name.ptr, s->name.len) : NULL;
            visit(c, fd != NULL ? fd->named : NULL, s->selections, false, depth + 1);
        } else if (s->kind == SLUICE_GQL_INLINE_FRAGMENT) {
            const sluice_gql_schema_type *t =
                s->type_condition.ptr != NULL
                    ? sluice_gql_type_named(c->v->schema, s->type_condition)
                    : parent;
            visit(c, t, s->selections, true, depth + 1);
        }
    }
}

static const sluice_gql_schema_type *root_of(const sluice_gql_schema *s,
                                             const sluice_gql_definition *d)
{
    return d->operation == SLUICE_GQL_QUERY      ? s->query
           : d->operation == SLUICE_GQL_MUTATION ? s->mutation
                                                 : s->subscription;
}

void sluice_graphql_check_overlaps(sluice_gql_vctx *v)
{
    ov *c = sluice_arena_calloc(v->arena, 1, sizeof *c);
    if (c == NULL) {
        v->nomem = true;
        return;
    }
    c->v = v;
    c->budget = SLUICE_LIMIT_GRAPHQL_OVERLAP_BUDGET;
    if (!index_fragments(c)) {
        v->nomem = true;
        return;
    }
    for (const sluice_gql_definition *d = v->doc->definitions; d != NULL && !stop(c); d = d->next) {
        if (d->kind == SLUICE_GQL_OPERATION_DEFINITION)
            visit(c, root_of(v->schema, d), d->selections, false, 0);
        else if (d->kind == SLUICE_GQL_FRAGMENT_DEFINITION)
            visit(c, sluice_gql_type_named(v->schema, d->type_condition), d->selections, false, 0);
    }
    if (c->aborted && !c->found)
        sluice_gql_bad(v, 0, "graphql_overlap_budget",
                       "use fewer fields with the same response name and fewer fragment spreads",
                       "checking that fields with the same response name can be merged took "
                       "more than %u steps (the limit, as graphql-js's MAX_COMPLEXITY_BUDGET); "
                       "the document is refused",
                       SLUICE_LIMIT_GRAPHQL_OVERLAP_BUDGET);
    else if (c->found)
        sluice_gql_bad(v, c->offset, "OverlappingFieldsCanBeMerged",
                       "use different aliases on the fields to fetch both",
                       "Fields \"%.*s\" conflict because %s. Use different aliases on the fields "
                       "to fetch both if this was intentional.",
                       (int)c->response.len, c->response.ptr, c->reason);
}
