/*
 * tree.h — a JSON-shaped value tree allocated in an arena: objects (key/value arrays in insertion
 * order), arrays, strings, numbers, booleans and null.
 *
 * Owns: building such a tree in one arena (nginx-pool style: no node is freed alone, the arena
 * frees them all) and reading it with calls shaped like jansson's, so a reader written against
 * jansson values ports one call for one call. Made for DuckDB's bound plan (issue 23): the bind
 * unit (exec/duckdb_plan.cpp) writes it and lang/sql's walker reads it, where a jansson DOM cost
 * a malloc, a hash and a free per node. Does not own: JSON text (no parser, no printer: the tree
 * is never exchanged), or deciding anything from a tree.
 *
 * Every reader takes NULL and a node of any kind, and answers as jansson does for a value of the
 * wrong kind (NULL, 0, false), so a missing or misshapen member is never a crash.
 */
#ifndef SLUICE_CORE_TREE_H
#define SLUICE_CORE_TREE_H

#include "core/arena.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_tree sluice_tree;

typedef enum sluice_tree_kind {
    SLUICE_TREE_NULL = 0,
    SLUICE_TREE_FALSE,
    SLUICE_TREE_TRUE,
    SLUICE_TREE_NUMBER, /* a double, as json_loads(JSON_DECODE_INT_AS_REAL) reads every number */
    SLUICE_TREE_STRING, /* UTF-8 bytes with a length, NUL-terminated for the reader */
    SLUICE_TREE_OBJECT,
    SLUICE_TREE_ARRAY,
} sluice_tree_kind;

/* ---- building (every node and copy in arena; NULL when an allocation fails) ---------------- */

/* An empty object or array. */
sluice_tree *sluice_tree_object(sluice_arena *arena);
sluice_tree *sluice_tree_array(sluice_arena *arena);

/* A string holding a copy of the n bytes at s (which need not be terminated). The caller checks
 * the bytes are what it wants to hold (the bind unit refuses a NUL and invalid UTF-8 first, as
 * jansson does). */
sluice_tree *sluice_tree_string(sluice_arena *arena, const char *s, size_t n);

/* A number (any double: the writer refuses NaN and infinity first if it must). */
sluice_tree *sluice_tree_number(sluice_arena *arena, double v);

/* true, false (by v), or null. */
sluice_tree *sluice_tree_bool(sluice_arena *arena, bool v);
sluice_tree *sluice_tree_null(sluice_arena *arena);

/* Sets obj's member key to v, as json_object_set does: a key already there keeps its place and
 * takes v; a new key goes last. key is NOT copied: it must live as long as the tree (a string
 * literal, such as the property names DuckDB's serializer passes, or arena memory).
 * SLUICE_E_INVALID when obj is not an object or key or v is NULL; SLUICE_E_NOMEM. */
sluice_status
sluice_tree_set(sluice_arena *arena, sluice_tree *obj, const char *key, sluice_tree *v);

/* Appends v to arr. SLUICE_E_INVALID when arr is not an array or v is NULL; SLUICE_E_NOMEM. */
sluice_status sluice_tree_append(sluice_arena *arena, sluice_tree *arr, sluice_tree *v);

/* Removes arr's last element (json_array_remove of the last); nothing for an empty array or
 * anything else. */
void sluice_tree_pop(sluice_tree *arr);

/* Removes obj's member key, the members after it moving up a place (json_object_del); nothing
 * when there is none. */
void sluice_tree_del(sluice_tree *obj, const char *key);

/* A copy of the jansson value v in arena (*out; untouched on failure): integers become numbers
 * as json_loads(JSON_DECODE_INT_AS_REAL) would have read them, keys and strings are copied.
 * For the routes that still get JSON text from DuckDB (lang/sql's C API route). Nesting past
 * SLUICE_TREE_MAX_DEPTH is SLUICE_E_LIMIT (jansson's own parser stops at 2048 too);
 * SLUICE_E_INVALID for a NULL v; SLUICE_E_NOMEM. */
#define SLUICE_TREE_MAX_DEPTH 2048u
sluice_status sluice_tree_from_json(sluice_arena *arena, const json_t *v, sluice_tree **out);

/* ---- reading (as jansson answers: NULL, 0 or false for NULL or a value of another kind) ---- */

/* The node, in the header only so that the small readers below inline: the walkers ask them for
 * every member of every node, where a call each cost more than the read. Build and change a
 * tree only through the functions above. */
typedef struct sluice_tree_member {
    const char *key;
    sluice_tree *value;
} sluice_tree_member;

struct sluice_tree {
    sluice_tree_kind kind;
    uint32_t key_bits; /* an object's: a bit per key it was given (tree.c's key_bit), in padding */
    size_t n;          /* members or elements; a string's length */
    size_t cap;        /* room in members / items */
    union {
        double number;
        const char *string;
        sluice_tree_member *members;
        sluice_tree **items;
    } u;
};

/* v's kind; SLUICE_TREE_NULL for NULL. */
static inline sluice_tree_kind sluice_tree_kind_of(const sluice_tree *v)
{
    return v != NULL ? v->kind : SLUICE_TREE_NULL;
}

static inline bool sluice_tree_is_object(const sluice_tree *v)
{
    return v != NULL && v->kind == SLUICE_TREE_OBJECT;
}

static inline bool sluice_tree_is_array(const sluice_tree *v)
{
    return v != NULL && v->kind == SLUICE_TREE_ARRAY;
}

static inline bool sluice_tree_is_string(const sluice_tree *v)
{
    return v != NULL && v->kind == SLUICE_TREE_STRING;
}

static inline bool sluice_tree_is_number(const sluice_tree *v)
{
    return v != NULL && v->kind == SLUICE_TREE_NUMBER;
}

static inline bool sluice_tree_is_true(const sluice_tree *v)
{
    return v != NULL && v->kind == SLUICE_TREE_TRUE;
}

/* The member key of obj, or NULL (json_object_get). */
const sluice_tree *sluice_tree_get(const sluice_tree *obj, const char *key);

/* Members of obj (0 for anything else), and the key and value of member i in insertion order
 * (NULL past the end): json_object_foreach's order. */
static inline size_t sluice_tree_member_count(const sluice_tree *obj)
{
    return sluice_tree_is_object(obj) ? obj->n : 0;
}

static inline const char *sluice_tree_member_key(const sluice_tree *obj, size_t i)
{
    return i < sluice_tree_member_count(obj) ? obj->u.members[i].key : NULL;
}

static inline const sluice_tree *sluice_tree_member_value(const sluice_tree *obj, size_t i)
{
    return i < sluice_tree_member_count(obj) ? obj->u.members[i].value : NULL;
}

/* Elements of arr (0 for anything else: json_array_size), element i or NULL (json_array_get). */
static inline size_t sluice_tree_size(const sluice_tree *arr)
{
    return sluice_tree_is_array(arr) ? arr->n : 0;
}

static inline const sluice_tree *sluice_tree_at(const sluice_tree *arr, size_t i)
{
    return i < sluice_tree_size(arr) ? arr->u.items[i] : NULL;
}

/* A string's bytes (NUL-terminated) or NULL; its length or 0 (json_string_value / _length). */
static inline const char *sluice_tree_string_value(const sluice_tree *v)
{
    return sluice_tree_is_string(v) ? v->u.string : NULL;
}

static inline size_t sluice_tree_string_length(const sluice_tree *v)
{
    return sluice_tree_is_string(v) ? v->n : 0;
}

/* A number's value, 0.0 for anything else (json_number_value). */
static inline double sluice_tree_number_value(const sluice_tree *v)
{
    return sluice_tree_is_number(v) ? v->u.number : 0.0;
}

/* for (i, e) over arr's elements, as json_array_foreach. */
#define sluice_tree_foreach(arr, i, e) \
    for ((i) = 0; (i) < sluice_tree_size(arr) && ((e) = sluice_tree_at((arr), (i))) != NULL; (i)++)

/* for (i, key, v) over obj's members in insertion order, as json_object_foreach. */
#define sluice_tree_foreach_member(obj, i, key, v)                        \
    for ((i) = 0; (i) < sluice_tree_member_count(obj) &&                  \
                  ((key) = sluice_tree_member_key((obj), (i))) != NULL && \
                  ((v) = sluice_tree_member_value((obj), (i))) != NULL;   \
         (i)++)

#endif
