/*
 * entities.c — the entity store: uid -> attributes, tags and (transitive) ancestors.
 *
 * Owns: loading Cedar's entities JSON, the hash index, and the transitive closure of the parent
 * relation, computed once at load so `in` is a lookup per decision. A parent that is not itself
 * in the store is still an ancestor (as in Cedar); only stored entities pass ancestry on.
 * Does not own: value conversion (json.c).
 */
#include "policy/cedar/json.h"

#include <string.h>

const cedar_entity *sluice_cedar_entities_find(const sluice_cedar_entities *s,
                                               const sluice_cedar_uid *uid)
{
    if (s == NULL || s->count == 0)
        return NULL;
    for (size_t i = uid->hash & s->mask;; i = (i + 1) & s->mask) {
        uint32_t slot = s->slots[i];
        if (slot == 0)
            return NULL;
        if (sluice_cedar_uid_eq(&s->items[slot - 1].uid, uid))
            return &s->items[slot - 1];
    }
}

bool sluice_cedar_entities_in(const sluice_cedar_entities *s,
                              const sluice_cedar_uid *a,
                              const sluice_cedar_uid *b)
{
    if (sluice_cedar_uid_eq(a, b))
        return true;
    const cedar_entity *e = sluice_cedar_entities_find(s, a);
    if (e == NULL)
        return false;
    for (uint32_t i = 0; i < e->nancestors; i++) {
        if (sluice_cedar_uid_eq(e->ancestors[i], b))
            return true;
    }
    return false;
}

sluice_cedar_entities *sluice_cedar_entities_empty(sluice_arena *arena)
{
    return sluice_arena_calloc(arena, 1, sizeof(sluice_cedar_entities));
}

/* Indexes items; false when a uid appears twice (dup set to its index). */
static bool build_index(sluice_arena *arena, sluice_cedar_entities *s, size_t *dup, bool *nomem)
{
    size_t cap = 16;
    while (cap < s->count * 2)
        cap *= 2;
    s->slots = sluice_arena_calloc(arena, cap, sizeof(*s->slots));
    *nomem = s->slots == NULL;
    if (*nomem)
        return false;
    s->mask = cap - 1;
    for (size_t k = 0; k < s->count; k++) {
        size_t i = s->items[k].uid.hash & s->mask;
        for (; s->slots[i] != 0; i = (i + 1) & s->mask) {
            if (sluice_cedar_uid_eq(&s->items[s->slots[i] - 1].uid, &s->items[k].uid)) {
                *dup = k;
                return false;
            }
        }
        s->slots[i] = (uint32_t)(k + 1);
    }
    return true;
}

/* Depth-first walk over parents; seen[] (stamped per root) keeps each ancestor once. Ancestors
 * not in the store are collected but not walked through. Reaching root again is a cycle, which
 * Cedar rejects (*cycle set). */
static bool closure(sluice_arena *arena,
                    sluice_cedar_entities *s,
                    size_t root,
                    uint32_t *seen,
                    uint32_t *stack,
                    const sluice_cedar_uid **tmp,
                    size_t tmp_cap,
                    bool *cycle)
{
    size_t n = 0, top = 0;
    uint32_t stamp = (uint32_t)root + 1;
    seen[root] = stamp;
    stack[top++] = (uint32_t)root;
    while (top > 0) {
        const cedar_entity *e = &s->items[stack[--top]];
        for (uint32_t p = 0; p < e->nparents; p++) {
            const sluice_cedar_uid *parent = &e->parents[p];
            const cedar_entity *pe = sluice_cedar_entities_find(s, parent);
            if (pe != NULL) {
                size_t idx = (size_t)(pe - s->items);
                if (idx == root)
                    *cycle = true;
                if (seen[idx] == stamp)
                    continue;
                seen[idx] = stamp;
                stack[top++] = (uint32_t)idx;
                parent = &pe->uid;
            } else {
                bool dup = false;
                for (size_t k = 0; k < n && !dup; k++)
                    dup = sluice_cedar_uid_eq(tmp[k], parent);
                if (dup)
                    continue;
            }
            if (n < tmp_cap)
                tmp[n++] = parent;
        }
    }
    cedar_entity *e = &s->items[root];
    e->nancestors = (uint32_t)n;
    e->ancestors = sluice_arena_alloc(arena, (n ? n : 1) * sizeof(*e->ancestors));
    if (e->ancestors == NULL)
        return false;
    memcpy(e->ancestors, tmp, n * sizeof(*tmp));
    return true;
}

static sluice_status compute_ancestors(cedar_json *c, sluice_cedar_entities *s)
{
    size_t total_parents = 0;
    for (size_t i = 0; i < s->count; i++)
        total_parents += s->items[i].nparents;
    size_t n = s->count ? s->count : 1;
    uint32_t *seen = sluice_arena_calloc(c->arena, n, sizeof(*seen));
    /* each entity is pushed at most once per walk */
    uint32_t *stack = sluice_arena_calloc(c->arena, n, sizeof(*stack));
    const sluice_cedar_uid **tmp =
        sluice_arena_calloc(c->arena, total_parents ? total_parents : 1, sizeof(*tmp));
    if (seen == NULL || stack == NULL || tmp == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
    for (size_t i = 0; i < s->count; i++) {
        bool cycle = false;
        if (!closure(c->arena, s, i, seen, stack, tmp, total_parents, &cycle))
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        if (cycle) {
            sluice_buf b;
            sluice_buf_init(&b, c->arena, 512);
            sluice_cedar_uid_print(&b, &s->items[i].uid);
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "%s: the parent hierarchy has a cycle through %s", c->source,
                                    sluice_buf_cstr(&b));
        }
    }
    return SLUICE_OK;
}

/* Action entities are those whose type's last name is `Action` (Action, Ns::Action). */
static bool is_action_type(const sluice_cedar_uid *uid)
{
    return (uid->type_len == 6 && memcmp(uid->type, "Action", 6) == 0) ||
           (uid->type_len > 8 && memcmp(uid->type + uid->type_len - 8, "::Action", 8) == 0);
}

static sluice_status load_entity(cedar_json *c, const json_t *j, size_t index, cedar_entity *e)
{
    char path[48];
    snprintf(path, sizeof(path), "[%zu]", index);
    const json_t *uid = json_object_get(j, "uid"), *attrs = json_object_get(j, "attrs");
    const json_t *parents = json_object_get(j, "parents"), *tags = json_object_get(j, "tags");
    if (!json_is_object(j) || uid == NULL || !json_is_object(attrs) || !json_is_array(parents))
        return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                "%s: %s: expected {\"uid\": {...}, \"attrs\": {...}, "
                                "\"parents\": [...]} (\"tags\" optional)",
                                c->source, path);
    sluice_status st = sluice_cedar_json_uid(c, uid, path, &e->uid);
    if (st == SLUICE_OK)
        st = sluice_cedar_json_value(c, attrs, path, 1, &e->attrs);
    if (st == SLUICE_OK && tags != NULL) {
        if (!json_is_object(tags))
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "%s: %s.tags: expected an object", c->source, path);
        st = sluice_cedar_json_value(c, tags, path, 1, &e->tags);
    } else {
        e->tags.kind = SLUICE_CEDAR_RECORD;
    }
    if (st != SLUICE_OK)
        return st;
    e->nparents = (uint32_t)json_array_size(parents);
    e->parents = sluice_arena_calloc(c->arena, e->nparents ? e->nparents : 1, sizeof(*e->parents));
    if (e->parents == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < e->nparents && st == SLUICE_OK; i++) {
        st = sluice_cedar_json_uid(c, json_array_get(parents, i), path, &e->parents[i]);
        if (st == SLUICE_OK && is_action_type(&e->uid) && !is_action_type(&e->parents[i]))
            return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                    "%s: %s: an action can only have actions as parents", c->source,
                                    path);
    }
    return st;
}

sluice_status
sluice_cedar_entities_from_json(cedar_json *c, const json_t *root, sluice_cedar_entities **out)
{
    if (!json_is_array(root))
        return sluice_error_at(c->err, c->arena, SLUICE_E_INVALID, c->source, 1, 1,
                               "entities must be a JSON array of entity objects");
    sluice_cedar_entities *s = sluice_cedar_entities_empty(c->arena);
    size_t n = json_array_size(root);
    if (s == NULL ||
        (s->items = sluice_arena_calloc(c->arena, n ? n : 1, sizeof(*s->items))) == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
    s->count = n;
    for (size_t i = 0; i < n; i++) {
        sluice_status st = load_entity(c, json_array_get(root, i), i, &s->items[i]);
        if (st != SLUICE_OK)
            return st;
    }
    size_t dup = 0;
    bool nomem;
    if (!build_index(c->arena, s, &dup, &nomem)) {
        if (nomem)
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        sluice_buf b;
        sluice_buf_init(&b, c->arena, 512);
        sluice_cedar_uid_print(&b, &s->items[dup].uid);
        return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID,
                                "%s: [%zu]: duplicate entity %s", c->source, dup,
                                sluice_buf_cstr(&b));
    }
    sluice_status st = compute_ancestors(c, s);
    if (st == SLUICE_OK)
        *out = s;
    return st;
}

sluice_status sluice_cedar_entities_parse_json(sluice_arena *arena,
                                               const char *text,
                                               size_t len,
                                               const char *source,
                                               sluice_cedar_entities **out,
                                               sluice_error *err)
{
    sluice_error scratch;
    cedar_json c = { arena, source != NULL ? source : "<entities>", err != NULL ? err : &scratch };
    sluice_error_clear(c.err);
    json_t *root;
    sluice_status st = sluice_cedar_json_load(&c, text, len, &root);
    if (st != SLUICE_OK)
        return st;
    st = sluice_cedar_entities_from_json(&c, root, out);
    json_decref(root);
    return st;
}
