/*
 * vec.h — growing an array by doubling: the one growth step for the arrays built item by item
 * across the code (arena arrays, and malloc'd buffers that outlive a request).
 *
 * Owns: the capacity arithmetic (first capacity, doubling, overflow checked before any
 * multiplication) and the copy into the larger array. Does not own: the array's count, what the
 * items are, or any limit on how many there may be (callers check their named limits first).
 *
 * Use, for an arena array `items` with `count` and `cap`:
 *     T *n = sluice_vec_grow(arena, v->items, v->count, &v->cap, sizeof *n, 8);
 *     if (n == NULL)
 *         return SLUICE_E_NOMEM;
 *     v->items = n;
 *     v->items[v->count++] = item;
 */
#ifndef SLUICE_CORE_VEC_H
#define SLUICE_CORE_VEC_H

#include "core/arena.h"

#include <stddef.h>

/* Room for one more item after the first count of an arena array of *cap items of elem bytes:
 * items itself while count < *cap; otherwise a new zeroed arena array of twice the capacity
 * (first when *cap is 0) holding a copy of the count items, and *cap updated. NULL when memory
 * runs out or the size overflows; then items and *cap are unchanged and still valid. */
void *sluice_vec_grow(
    sluice_arena *arena, void *items, size_t count, size_t *cap, size_t elem, size_t first);

/* sluice_vec_grow for room up to need items, where items do not arrive one by one (a block at a
 * time, or by index): items while need <= *cap; otherwise a new zeroed arena array of the first
 * doubling of *cap (first when *cap is 0) that is >= need, holding a copy of all *cap old items
 * (so items must hold *cap of them). NULL when memory runs out or the size overflows; items and
 * *cap are then unchanged. */
void *sluice_vec_reserve(
    sluice_arena *arena, void *items, size_t need, size_t *cap, size_t elem, size_t first);

/* The same for a malloc'd array that must hold need items: realloc to the first power-of-two
 * multiple of first (or of *cap when it is not 0) that is >= need. Returns the array to use
 * (items while need <= *cap), NULL on failure (items untouched, still the caller's to free). */
void *sluice_vec_grow_heap(void *items, size_t need, size_t *cap, size_t elem, size_t first);

/* Where sluice_vec_grow_in takes memory from: alloc(ctx, bytes) returns bytes of memory that
 * live as long as the array must, or NULL. */
typedef struct sluice_vec_alloc {
    void *(*alloc)(void *ctx, size_t bytes);
    void *ctx;
} sluice_vec_alloc;

/* sluice_vec_grow with memory from a of its own (the JavaScript interpreter charges every
 * allocation to the plan's memory limit: exec/js sluice_jsi_grow). The new array is not zeroed
 * unless a zeroes it. NULL when a fails or the size overflows (a is then not called). */
void *sluice_vec_grow_in(
    const sluice_vec_alloc *a, void *items, size_t count, size_t *cap, size_t elem, size_t first);

#endif
