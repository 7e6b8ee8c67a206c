/*
 * arena.c — region allocator (see arena.h), after nginx pools and PostgreSQL memory contexts.
 *
 * Small requests bump a pointer inside the current block; large ones get a block of their own
 * so a big allocation never wastes the rest of a block. Nothing is freed singly.
 */
#include "core/arena.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE  8192u
#define ARENA_LARGE_LIMIT 2048u

typedef struct arena_block {
    struct arena_block *next;
    size_t size;
    size_t used;
    max_align_t data[]; /* aligned payload */
} arena_block;

typedef struct arena_cleanup {
    struct arena_cleanup *next;
    void (*fn)(void *);
    void *data;
} arena_cleanup;

struct sluice_arena {
    arena_block *current; /* small allocations come from here */
    arena_block *blocks;  /* every other block, including large ones */
    arena_cleanup *cleanups;
    size_t used;
    bool failed; /* an allocation from here returned NULL */
};

/* Failure injection (see globals.c): counts down across all arenas. */
extern atomic_long sluice_arena_fail_countdown;

bool sluice_arena_fault_point(void)
{
    long left = atomic_load(&sluice_arena_fail_countdown);
    while (left > 0) {
        if (atomic_compare_exchange_weak(&sluice_arena_fail_countdown, &left, left - 1))
            return left == 1;
    }
    return false;
}

void sluice_arena_fail_at(long nth)
{
    atomic_store(&sluice_arena_fail_countdown, nth > 0 ? nth : 0);
}

long sluice_arena_fail_remaining(void)
{
    long left = atomic_load(&sluice_arena_fail_countdown);
    return left > 0 ? left : 0;
}

bool sluice_arena_fail_pending(void)
{
    return sluice_arena_fail_remaining() > 0;
}

bool sluice_arena_failed(const sluice_arena *arena)
{
    return arena == NULL || arena->failed;
}

static arena_block *block_new(size_t payload)
{
    if (payload > SIZE_MAX - sizeof(arena_block))
        return NULL;
    arena_block *b = malloc(sizeof(arena_block) + payload);
    if (b == NULL)
        return NULL;
    b->next = NULL;
    b->size = payload;
    b->used = 0;
    return b;
}

sluice_arena *sluice_arena_new(void)
{
    if (sluice_arena_fault_point())
        return NULL;
    sluice_arena *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    a->current = block_new(ARENA_BLOCK_SIZE);
    if (a->current == NULL) {
        free(a);
        return NULL;
    }
    return a;
}

static void free_chain(arena_block *b)
{
    while (b != NULL) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
}

void sluice_arena_free(sluice_arena *arena)
{
    if (arena == NULL)
        return;
    for (arena_cleanup *c = arena->cleanups; c != NULL; c = c->next)
        c->fn(c->data);
    free_chain(arena->current);
    free_chain(arena->blocks);
    free(arena);
}

void sluice_arena_reset(sluice_arena *arena)
{
    if (arena == NULL)
        return;
    for (arena_cleanup *c = arena->cleanups; c != NULL; c = c->next)
        c->fn(c->data);
    arena->cleanups = NULL;
    free_chain(arena->blocks);
    arena->blocks = NULL;
    arena->current->next = NULL;
    arena->current->used = 0;
    arena->used = 0;
}

static size_t align_up(size_t n)
{
    size_t a = _Alignof(max_align_t);
    return (n + a - 1) & ~(a - 1);
}

/* Every NULL an arena hands out goes through here, so the failure is remembered. */
static void *arena_fail(sluice_arena *arena)
{
    arena->failed = true;
    return NULL;
}

void *sluice_arena_alloc(sluice_arena *arena, size_t size)
{
    if (arena == NULL)
        return NULL;
    if (sluice_arena_fault_point())
        return arena_fail(arena);
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX / 2)
        return arena_fail(arena);
    size_t need = align_up(size);
    if (need > ARENA_LARGE_LIMIT) {
        arena_block *big = block_new(need);
        if (big == NULL)
            return arena_fail(arena);
        big->used = need;
        big->next = arena->blocks;
        arena->blocks = big;
        arena->used += need;
        return big->data;
    }
    arena_block *cur = arena->current;
    if (cur->size - cur->used < need) {
        arena_block *fresh = block_new(ARENA_BLOCK_SIZE);
        if (fresh == NULL)
            return arena_fail(arena);
        cur->next = arena->blocks;
        arena->blocks = cur;
        arena->current = fresh;
        cur = fresh;
    }
    void *p = (char *)cur->data + cur->used;
    cur->used += need;
    arena->used += need;
    return p;
}

void *sluice_arena_calloc(sluice_arena *arena, size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total))
        return arena != NULL ? arena_fail(arena) : NULL;
    void *p = sluice_arena_alloc(arena, total);
    if (p != NULL)
        memset(p, 0, total);
    return p;
}

char *sluice_arena_strndup(sluice_arena *arena, const char *s, size_t len)
{
    if (s == NULL || len == SIZE_MAX)
        return NULL;
    char *p = sluice_arena_alloc(arena, len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *sluice_arena_strdup(sluice_arena *arena, const char *s)
{
    return s == NULL ? NULL : sluice_arena_strndup(arena, s, strlen(s));
}

char *sluice_arena_vprintf(sluice_arena *arena, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *p = sluice_arena_alloc(arena, (size_t)n + 1);
    if (p == NULL)
        return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *sluice_arena_printf(sluice_arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = sluice_arena_vprintf(arena, fmt, ap);
    va_end(ap);
    return p;
}

sluice_status sluice_arena_cleanup_add(sluice_arena *arena, void (*fn)(void *), void *data)
{
    arena_cleanup *c = sluice_arena_alloc(arena, sizeof(*c));
    if (c == NULL) {
        fn(data);
        return SLUICE_E_NOMEM;
    }
    c->fn = fn;
    c->data = data;
    c->next = arena->cleanups;
    arena->cleanups = c;
    return SLUICE_OK;
}

size_t sluice_arena_used(const sluice_arena *arena)
{
    return arena == NULL ? 0 : arena->used;
}
