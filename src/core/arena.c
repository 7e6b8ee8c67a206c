/*
 * arena.c — region allocator (see arena.h), after nginx pools and PostgreSQL memory contexts.
 *
 * Small requests bump a pointer inside the current block; larger ones get a block of their own
 * (a standard block up to its size, else one of their size) so a big allocation never wastes the
 * rest of the current block. Nothing is freed singly.
 *
 * Standard blocks a freed arena leaves are kept, per thread, for the next arena (block_cache):
 * a request's arena gives back its ~25 blocks at once, which takes malloc's top chunk over its
 * trim threshold, so glibc returns the pages and the next request faults every one back in
 * (in the VM bench/jsinterp runs on, ~20-60 us a fault: the budgets plan of seed 000 spent more
 * time in page faults than in the interpreter, docs/benchmarks.md).
 */
#include "core/arena.h"

#include <pthread.h>
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

/* Up to ARENA_CACHE_BLOCKS standard blocks (256 KiB) per thread: enough for one ordinary
 * request's arena, so a worker reuses its own memory request after request, while what an
 * idle thread holds stays bounded. Per thread, so no lock is taken and fork() (exec/bounded.c)
 * leaves the child a consistent cache; a thread's blocks are freed when it exits. */
#define ARENA_CACHE_BLOCKS 32u

typedef struct {
    arena_block *head;
    unsigned count;
    bool keyed; /* the exit destructor is registered for this thread */
} block_cache_t;

static _Thread_local block_cache_t block_cache;
static pthread_key_t block_cache_key;
static pthread_once_t block_cache_once = PTHREAD_ONCE_INIT;
static bool block_cache_key_made;

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
/* A cached block is poisoned, so a use after its arena was freed is still reported. */
#define CACHE_POISON(b)   ASAN_POISON_MEMORY_REGION((b)->data, (b)->size)
#define CACHE_UNPOISON(b) ASAN_UNPOISON_MEMORY_REGION((b)->data, (b)->size)
#else
#define CACHE_POISON(b)   ((void)(b))
#define CACHE_UNPOISON(b) ((void)(b))
#endif

static void block_cache_drop(void *unused)
{
    (void)unused;
    arena_block *b = block_cache.head;
    while (b != NULL) {
        arena_block *next = b->next;
        CACHE_UNPOISON(b);
        free(b);
        b = next;
    }
    block_cache.head = NULL;
    block_cache.count = 0;
    block_cache.keyed = false; /* an arena freed by a later destructor registers again */
}

static void block_cache_make_key(void)
{
    block_cache_key_made = pthread_key_create(&block_cache_key, block_cache_drop) == 0;
}

/* Keeps b for the next arena of this thread; false when the cache is full (or this thread's
 * blocks could not be freed at its exit): the caller frees b. */
static bool block_cache_put(arena_block *b)
{
    if (b->size != ARENA_BLOCK_SIZE || block_cache.count >= ARENA_CACHE_BLOCKS)
        return false;
    if (!block_cache.keyed) {
        pthread_once(&block_cache_once, block_cache_make_key);
        /* the value only has to be non-NULL for the destructor to run at the thread's exit */
        if (!block_cache_key_made || pthread_setspecific(block_cache_key, &block_cache) != 0)
            return false;
        block_cache.keyed = true;
    }
    b->next = block_cache.head;
    CACHE_POISON(b);
    block_cache.head = b;
    block_cache.count++;
    return true;
}

static arena_block *block_new(size_t payload)
{
    if (payload == ARENA_BLOCK_SIZE && block_cache.head != NULL) {
        arena_block *b = block_cache.head;
        CACHE_UNPOISON(b);
        block_cache.head = b->next;
        block_cache.count--;
        b->next = NULL;
        b->used = 0;
        return b;
    }
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
        if (!block_cache_put(b))
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
        /* Up to a standard block's size it takes one (from the thread's cache): a request's few
         * 2-8 KiB texts then never reach malloc, whose large-chunk path first consolidates every
         * freed small chunk of the process (DuckDB's, jansson's) and touches each of them. */
        arena_block *big = block_new(need <= ARENA_BLOCK_SIZE ? ARENA_BLOCK_SIZE : need);
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
    /* Most texts fit the stack buffer: formatted once and copied, instead of formatted twice
     * (once to measure, once to write). Only a longer one is formatted again. */
    char small[256];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *p = sluice_arena_alloc(arena, (size_t)n + 1);
    if (p == NULL)
        return NULL;
    if ((size_t)n < sizeof small)
        memcpy(p, small, (size_t)n + 1);
    else
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
