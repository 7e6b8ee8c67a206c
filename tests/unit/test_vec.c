/*
 * test_vec.c — the one growth step (core/vec.h): doubling from the first capacity, the items
 * copied, the array untouched when memory runs out or the size overflows (an allocator of its
 * own is then not even asked), room for a need reached at once, and the heap form.
 */
#include "core/vec.h"
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_vec_grow_doubles_and_keeps_the_items(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    int *items = NULL;
    size_t count = 0, cap = 0;
    for (int i = 0; i < 100; i++) {
        int *n = sluice_vec_grow(a, items, count, &cap, sizeof *n, 8);
        assert_non_null(n);
        items = n;
        items[count++] = i;
        assert_true(cap >= count);
    }
    assert_int_equal(cap, 128); /* 8, 16, 32, 64, 128 */
    for (int i = 0; i < 100; i++)
        assert_int_equal(items[i], i);
    /* room left: the same array back */
    assert_ptr_equal(sluice_vec_grow(a, items, count, &cap, sizeof *items, 8), items);
    sluice_arena_free(a);
}

static void test_vec_grow_fails_cleanly_when_the_arena_does(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    size_t cap = 0;
    int *items = sluice_vec_grow(a, NULL, 0, &cap, sizeof *items, 4);
    assert_non_null(items);
    items[0] = 7;
    size_t count = 4;
    cap = 4;
    sluice_arena_fail_at(1);
    assert_null(sluice_vec_grow(a, items, count, &cap, sizeof *items, 4));
    sluice_arena_fail_at(0);
    assert_int_equal(cap, 4);
    assert_int_equal(items[0], 7);
    sluice_arena_free(a);
}

typedef struct counting {
    size_t calls;
    size_t budget; /* bytes it will still give */
} counting;

static void *counted(void *ctx, size_t bytes)
{
    counting *c = ctx;
    c->calls++;
    if (bytes > c->budget)
        return NULL;
    c->budget -= bytes;
    return calloc(1, bytes);
}

static void test_vec_grow_in_asks_its_allocator_and_stops_at_its_refusal(void **state)
{
    (void)state;
    counting c = { .budget = 64 };
    sluice_vec_alloc al = { counted, &c };
    size_t cap = 0;
    char *first = sluice_vec_grow_in(&al, NULL, 0, &cap, 1, 16);
    assert_non_null(first);
    assert_int_equal(cap, 16);
    memcpy(first, "0123456789abcdef", 16);
    char *second = sluice_vec_grow_in(&al, first, 16, &cap, 1, 16);
    assert_non_null(second);
    assert_int_equal(cap, 32);
    assert_memory_equal(second, "0123456789abcdef", 16);
    /* 16 bytes left of the budget: the 64-byte step is refused, the array stays as it was */
    assert_null(sluice_vec_grow_in(&al, second, 32, &cap, 1, 16));
    assert_int_equal(cap, 32);
    assert_int_equal(c.calls, 3);
    free(first);
    free(second);
}

static void test_vec_grow_in_refuses_an_overflowing_size_without_allocating(void **state)
{
    (void)state;
    counting c = { .budget = SIZE_MAX };
    sluice_vec_alloc al = { counted, &c };
    size_t cap = SIZE_MAX / 2 + 1;
    assert_null(sluice_vec_grow_in(&al, (void *)&c, cap, &cap, 1, 16));
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    cap = 1u << 20;
    assert_null(sluice_vec_grow_in(&al, (void *)&c, cap, &cap, SIZE_MAX / 4, 16));
    assert_int_equal(c.calls, 0);
}

static void test_vec_reserve_reaches_the_need_and_keeps_the_old_items(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    size_t cap = 0;
    int *items = sluice_vec_reserve(a, NULL, 3, &cap, sizeof *items, 4);
    assert_non_null(items);
    assert_int_equal(cap, 4);
    items[3] = 9; /* by index: every slot of the capacity is kept */
    assert_ptr_equal(sluice_vec_reserve(a, items, 4, &cap, sizeof *items, 4), items);
    int *n = sluice_vec_reserve(a, items, 37, &cap, sizeof *n, 4);
    assert_non_null(n);
    assert_int_equal(cap, 64); /* 4 doubled until >= 37 */
    assert_int_equal(n[3], 9);
    assert_int_equal(n[4], 0); /* the new part is zeroed */
    sluice_arena_fail_at(1);
    assert_null(sluice_vec_reserve(a, n, 65, &cap, sizeof *n, 4));
    sluice_arena_fail_at(0);
    assert_int_equal(cap, 64);
    assert_null(sluice_vec_reserve(a, n, SIZE_MAX, &cap, sizeof *n, 4)); /* overflows */
    assert_int_equal(cap, 64);
    sluice_arena_free(a);
}

static void test_vec_grow_heap_reaches_the_need(void **state)
{
    (void)state;
    size_t cap = 0;
    char *b = sluice_vec_grow_heap(NULL, 100, &cap, 1, 16);
    assert_non_null(b);
    assert_int_equal(cap, 128);
    assert_ptr_equal(sluice_vec_grow_heap(b, 128, &cap, 1, 16), b);
    char *n = sluice_vec_grow_heap(b, 129, &cap, 1, 16);
    assert_non_null(n);
    assert_int_equal(cap, 256);
    free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_grow_doubles_and_keeps_the_items),
        cmocka_unit_test(test_vec_grow_fails_cleanly_when_the_arena_does),
        cmocka_unit_test(test_vec_grow_in_asks_its_allocator_and_stops_at_its_refusal),
        cmocka_unit_test(test_vec_grow_in_refuses_an_overflowing_size_without_allocating),
        cmocka_unit_test(test_vec_reserve_reaches_the_need_and_keeps_the_old_items),
        cmocka_unit_test(test_vec_grow_heap_reaches_the_need),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
