/*
 * tree.c — the arena value tree (see tree.h).
 *
 * A container grows by doubling into fresh arena memory (core/vec.h); the old array stays in the
 * arena until it is freed (at most as much again as the final one), the price of never freeing
 * singly.
 */
#include "core/tree.h"

#include "core/vec.h"

#include <stdint.h>
#include <string.h>

/* Room to start with: most plan objects have a handful of keys, most arrays one or two items. */
#define FIRST_MEMBERS 8u
#define FIRST_ITEMS   4u

static sluice_tree *node(sluice_arena *arena, sluice_tree_kind kind)
{
    sluice_tree *t = sluice_arena_alloc(arena, sizeof(*t));
    if (t != NULL)
        *t = (sluice_tree){ .kind = kind };
    return t;
}

_Static_assert(sizeof(sluice_tree) % _Alignof(sluice_tree_member) == 0 &&
                   sizeof(sluice_tree) % _Alignof(sluice_tree *) == 0,
               "a container's first room starts aligned right after it");

/* The container and its first room in one allocation: nearly every container gets a member,
 * and growing from no room cost a second (zeroed) allocation per container. */
static sluice_tree *container(sluice_arena *arena, sluice_tree_kind kind, size_t room, size_t elem)
{
    sluice_tree *t = sluice_arena_alloc(arena, sizeof(*t) + room * elem);
    if (t != NULL)
        *t = (sluice_tree){ .kind = kind, .cap = room };
    return t;
}

sluice_tree *sluice_tree_object(sluice_arena *arena)
{
    sluice_tree *t =
        container(arena, SLUICE_TREE_OBJECT, FIRST_MEMBERS, sizeof(sluice_tree_member));
    if (t != NULL)
        t->u.members = (sluice_tree_member *)(t + 1);
    return t;
}

sluice_tree *sluice_tree_array(sluice_arena *arena)
{
    sluice_tree *t = container(arena, SLUICE_TREE_ARRAY, FIRST_ITEMS, sizeof(sluice_tree *));
    if (t != NULL)
        t->u.items = (sluice_tree **)(t + 1);
    return t;
}

/* The node and its copy in one allocation: a plan carries hundreds of strings. */
sluice_tree *sluice_tree_string(sluice_arena *arena, const char *s, size_t n)
{
    if (s == NULL || n > SIZE_MAX / 2)
        return NULL;
    sluice_tree *t = sluice_arena_alloc(arena, sizeof(*t) + n + 1);
    if (t == NULL)
        return NULL;
    char *copy = (char *)(t + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    *t = (sluice_tree){ .kind = SLUICE_TREE_STRING, .n = n, .u.string = copy };
    return t;
}

sluice_tree *sluice_tree_number(sluice_arena *arena, double v)
{
    sluice_tree *t = node(arena, SLUICE_TREE_NUMBER);
    if (t != NULL)
        t->u.number = v;
    return t;
}

sluice_tree *sluice_tree_bool(sluice_arena *arena, bool v)
{
    return node(arena, v ? SLUICE_TREE_TRUE : SLUICE_TREE_FALSE);
}

sluice_tree *sluice_tree_null(sluice_arena *arena)
{
    return node(arena, SLUICE_TREE_NULL);
}

/* One of 32 bits for key, from its first two bytes. An object's key_bits has the bit of every key
 * it was given, so a clear bit proves key new and sluice_tree_set appends without comparing it to
 * each member; a set bit (a repeated key, or another key with the same bit) compares as before, so
 * a repeated key still replaces in place. sluice_tree_del leaves the bit: a stale bit only costs
 * a compare. DuckDB's serializer never repeats a key in an object, so the comparing found nothing
 * (~15k instructions a validate of seed 000); with the bits 4-6 sets in 100 compare (seed 000,
 * the 1,000-row statement). */
static uint32_t key_bit(const char *key)
{
    unsigned h = (unsigned char)key[0] * 7u;
    if (key[0] != '\0')
        h += (unsigned char)key[1];
    return 1u << (h & 31u);
}

static void put(sluice_tree *obj, const char *key, sluice_tree *v, uint32_t bit)
{
    obj->key_bits |= bit;
    obj->u.members[obj->n++] = (sluice_tree_member){ key, v };
}

/* sluice_tree_set when key may be there already or obj has no room: never inlined, so that the
 * common append saves no registers for these calls (gcc -O2 inlined it and saved six). */
__attribute__((noinline)) static sluice_status
set_slow(sluice_arena *arena, sluice_tree *obj, const char *key, sluice_tree *v, uint32_t bit)
{
    for (size_t i = 0; (obj->key_bits & bit) != 0 && i < obj->n; i++) {
        const char *k = obj->u.members[i].key;
        if (k == key || (k[0] == key[0] && strcmp(k, key) == 0)) {
            obj->u.members[i].value = v;
            return SLUICE_OK;
        }
    }
    if (obj->n == obj->cap) {
        sluice_tree_member *m =
            sluice_vec_grow(arena, obj->u.members, obj->n, &obj->cap, sizeof *m, FIRST_MEMBERS);
        if (m == NULL)
            return SLUICE_E_NOMEM;
        obj->u.members = m;
    }
    put(obj, key, v, bit);
    return SLUICE_OK;
}

sluice_status
sluice_tree_set(sluice_arena *arena, sluice_tree *obj, const char *key, sluice_tree *v)
{
    if (obj == NULL || obj->kind != SLUICE_TREE_OBJECT || key == NULL || v == NULL)
        return SLUICE_E_INVALID;
    uint32_t bit = key_bit(key);
    if ((obj->key_bits & bit) != 0 || obj->n == obj->cap)
        return set_slow(arena, obj, key, v, bit);
    put(obj, key, v, bit);
    return SLUICE_OK;
}

sluice_status sluice_tree_append(sluice_arena *arena, sluice_tree *arr, sluice_tree *v)
{
    if (arr == NULL || arr->kind != SLUICE_TREE_ARRAY || v == NULL)
        return SLUICE_E_INVALID;
    if (arr->n == arr->cap) {
        sluice_tree **items =
            sluice_vec_grow(arena, arr->u.items, arr->n, &arr->cap, sizeof *items, FIRST_ITEMS);
        if (items == NULL)
            return SLUICE_E_NOMEM;
        arr->u.items = items;
    }
    arr->u.items[arr->n++] = v;
    return SLUICE_OK;
}

void sluice_tree_pop(sluice_tree *arr)
{
    if (sluice_tree_size(arr) > 0)
        arr->n--;
}

void sluice_tree_del(sluice_tree *obj, const char *key)
{
    size_t n = sluice_tree_member_count(obj);
    for (size_t i = 0; key != NULL && i < n; i++)
        if (strcmp(obj->u.members[i].key, key) == 0) {
            memmove(obj->u.members + i, obj->u.members + i + 1,
                    (n - i - 1) * sizeof(sluice_tree_member));
            obj->n--;
            return;
        }
}

static sluice_status
from_json(sluice_arena *arena, const json_t *v, size_t depth, sluice_tree **out);

static sluice_status
object_from_json(sluice_arena *arena, const json_t *v, size_t depth, sluice_tree *t)
{
    const char *key;
    json_t *m;
    json_object_foreach((json_t *)v, key, m)
    {
        sluice_tree *c = NULL;
        sluice_status st = from_json(arena, m, depth + 1, &c);
        const char *k = st == SLUICE_OK ? sluice_arena_strdup(arena, key) : NULL;
        if (st == SLUICE_OK && k == NULL)
            st = SLUICE_E_NOMEM;
        if (st == SLUICE_OK)
            st = sluice_tree_set(arena, t, k, c);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status
from_json(sluice_arena *arena, const json_t *v, size_t depth, sluice_tree **out)
{
    if (depth > SLUICE_TREE_MAX_DEPTH)
        return SLUICE_E_LIMIT;
    sluice_tree *t = NULL;
    sluice_status st = SLUICE_OK;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        if ((t = sluice_tree_object(arena)) != NULL)
            st = object_from_json(arena, v, depth, t);
        break;
    case JSON_ARRAY:
        t = sluice_tree_array(arena);
        for (size_t i = 0; t != NULL && st == SLUICE_OK && i < json_array_size(v); i++) {
            sluice_tree *c = NULL;
            st = from_json(arena, json_array_get(v, i), depth + 1, &c);
            if (st == SLUICE_OK)
                st = sluice_tree_append(arena, t, c);
        }
        break;
    case JSON_STRING:
        t = sluice_tree_string(arena, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
    case JSON_REAL:
        t = sluice_tree_number(arena, json_number_value(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        t = sluice_tree_bool(arena, json_is_true(v));
        break;
    case JSON_NULL:
        t = sluice_tree_null(arena);
        break;
    }
    if (st != SLUICE_OK)
        return st;
    if (t == NULL)
        return SLUICE_E_NOMEM;
    *out = t;
    return SLUICE_OK;
}

sluice_status sluice_tree_from_json(sluice_arena *arena, const json_t *v, sluice_tree **out)
{
    if (v == NULL || out == NULL)
        return SLUICE_E_INVALID;
    return from_json(arena, v, 0, out);
}

const sluice_tree *sluice_tree_get(const sluice_tree *obj, const char *key)
{
    if (obj == NULL || obj->kind != SLUICE_TREE_OBJECT || key == NULL)
        return NULL;
    for (size_t i = 0; i < obj->n; i++) {
        const char *k = obj->u.members[i].key;
        if (k[0] == key[0] && strcmp(k, key) == 0)
            return obj->u.members[i].value;
    }
    return NULL;
}
