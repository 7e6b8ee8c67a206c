/*
 * vec.c — growing an array by doubling (see vec.h).
 */
#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

/* The capacity >= need reached by doubling from start; 0 on overflow. */
static size_t doubled(size_t start, size_t need, size_t elem)
{
    size_t cap = start > 0 ? start : 1, bytes;
    while (cap < need) {
        if (__builtin_mul_overflow(cap, (size_t)2, &cap))
            return 0;
    }
    return __builtin_mul_overflow(cap, elem, &bytes) ? 0 : cap;
}

/* What one growth asks for: room for need items of elem bytes, the first copy of the old ones
 * kept, doubling from first when the array has no capacity yet. */
typedef struct want {
    size_t need, copy, elem, first;
} want;

/* Room for w.need items in an array from a; items while *cap is enough. */
static void *reserve_in(const sluice_vec_alloc *a, void *items, size_t *cap, want w)
{
    if (w.need <= *cap)
        return items;
    size_t ncap = doubled(*cap > 0 ? *cap : w.first, w.need, w.elem);
    void *n = ncap > 0 ? a->alloc(a->ctx, ncap * w.elem) : NULL;
    if (n == NULL)
        return NULL;
    if (w.copy > 0)
        memcpy(n, items, w.copy * w.elem);
    *cap = ncap;
    return n;
}

void *sluice_vec_grow_in(
    const sluice_vec_alloc *a, void *items, size_t count, size_t *cap, size_t elem, size_t first)
{
    if (count < *cap)
        return items;
    return reserve_in(a, items, cap, (want){ count + 1, count, elem, first });
}

static void *arena_zeroed(void *arena, size_t bytes)
{
    return sluice_arena_calloc(arena, 1, bytes);
}

void *sluice_vec_grow(
    sluice_arena *arena, void *items, size_t count, size_t *cap, size_t elem, size_t first)
{
    return sluice_vec_grow_in(&(sluice_vec_alloc){ arena_zeroed, arena }, items, count, cap, elem,
                              first);
}

void *sluice_vec_reserve(
    sluice_arena *arena, void *items, size_t need, size_t *cap, size_t elem, size_t first)
{
    return reserve_in(&(sluice_vec_alloc){ arena_zeroed, arena }, items, cap,
                      (want){ need, *cap, elem, first });
}

void *sluice_vec_grow_heap(void *items, size_t need, size_t *cap, size_t elem, size_t first)
{
    if (need <= *cap)
        return items;
    size_t ncap = doubled(*cap > 0 ? *cap : first, need, elem);
    void *n = ncap > 0 ? realloc(items, ncap * elem) : NULL;
    if (n == NULL)
        return NULL;
    *cap = ncap;
    return n;
}
