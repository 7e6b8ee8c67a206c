/*
 * test_arena.c — the region allocator: alignment, large blocks, cleanups, failure injection.
 */
#include "core/arena.h"
#include "unit.h"

#include <pthread.h>
#include <string.h>

static void test_arena_allocations_are_aligned_and_usable(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    assert_non_null(a);
    for (size_t n = 1; n < 5000; n += 37) {
        unsigned char *p = sluice_arena_alloc(a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        memset(p, 0xAB, n);
    }
    assert_true(sluice_arena_used(a) > 5000);
    sluice_arena_free(a);
}

static void test_arena_calloc_rejects_overflow(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    assert_null(sluice_arena_calloc(a, SIZE_MAX / 2, 4));
    int *z = sluice_arena_calloc(a, 10, sizeof(int));
    assert_non_null(z);
    for (int i = 0; i < 10; i++)
        assert_int_equal(z[i], 0);
    sluice_arena_free(a);
}

static void test_arena_strings_are_copied(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    char src[] = "hello world";
    char *d = sluice_arena_strndup(a, src, 5);
    src[0] = 'J';
    assert_string_equal(d, "hello");
    assert_string_equal(sluice_arena_printf(a, "%s=%d", "n", 42), "n=42");
    assert_null(sluice_arena_strdup(a, NULL));
    sluice_arena_free(a);
}

/* Texts shorter than, exactly at and past the formatter's stack buffer come out whole, and each
 * takes one allocation (an allocation-failure sweep counts on that). */
static void test_arena_printf_any_length(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    char text[1100];
    for (size_t len = 0; len < 1024; len += len < 300 ? 1 : 97) {
        memset(text, 'a' + (int)(len % 26), len);
        text[len] = '\0';
        char *p = sluice_arena_printf(a, "<%s>%zu", text, len);
        assert_non_null(p);
        char want[1200];
        snprintf(want, sizeof want, "<%s>%zu", text, len);
        assert_string_equal(p, want);
    }
    memset(text, 'x', 300);
    text[300] = '\0';
    sluice_arena_fail_at(1);
    assert_null(sluice_arena_printf(a, "%s", text));
    assert_true(sluice_arena_failed(a));
    sluice_arena_free(a);
    a = sluice_arena_new();
    sluice_arena_fail_at(1);
    assert_null(sluice_arena_printf(a, "%s", "short"));
    assert_false(sluice_arena_fail_pending());
    sluice_arena_free(a);
}

static int cleanup_order[4];
static int cleanup_count;

static void record_cleanup(void *data)
{
    cleanup_order[cleanup_count++] = *(int *)data;
}

static void test_arena_cleanups_run_last_first(void **state)
{
    (void)state;
    static int one = 1, two = 2;
    cleanup_count = 0;
    sluice_arena *a = sluice_arena_new();
    assert_int_equal(sluice_arena_cleanup_add(a, record_cleanup, &one), SLUICE_OK);
    assert_int_equal(sluice_arena_cleanup_add(a, record_cleanup, &two), SLUICE_OK);
    sluice_arena_free(a);
    assert_int_equal(cleanup_count, 2);
    assert_int_equal(cleanup_order[0], 2);
    assert_int_equal(cleanup_order[1], 1);
}

static void test_arena_injected_failure_hits_nth_allocation(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_arena_fail_at(3);
    assert_non_null(sluice_arena_alloc(a, 8));
    assert_non_null(sluice_arena_alloc(a, 8));
    assert_null(sluice_arena_alloc(a, 8));
    assert_non_null(sluice_arena_alloc(a, 8));
    sluice_arena_fail_at(0);
    sluice_arena_free(a);
}

static void test_arena_cleanup_runs_even_when_registration_fails(void **state)
{
    (void)state;
    static int three = 3;
    cleanup_count = 0;
    sluice_arena *a = sluice_arena_new();
    sluice_arena_fail_at(1);
    assert_int_equal(sluice_arena_cleanup_add(a, record_cleanup, &three), SLUICE_E_NOMEM);
    assert_int_equal(cleanup_count, 1);
    sluice_arena_free(a);
    assert_int_equal(cleanup_count, 1);
}

static void test_arena_free_null_is_harmless(void **state)
{
    (void)state;
    sluice_arena_free(NULL);
    assert_null(sluice_arena_alloc(NULL, 1));
}

/* A freed arena's blocks serve the next arena of the thread (no page faulted in again), and
 * what they held does not show through: the next arena's memory is written before it is read. */
static void test_arena_blocks_are_reused_by_the_next_arena(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    assert_non_null(a);
    void *first = sluice_arena_alloc(a, 64);
    for (int i = 0; i < 10; i++)
        assert_non_null(sluice_arena_alloc(a, 1500));
    assert_non_null(sluice_arena_alloc(a, 100000)); /* a large block is never kept */
    memset(first, 0xAB, 64);
    sluice_arena_free(a);
    sluice_arena *b = sluice_arena_new();
    assert_non_null(b);
    int *z = sluice_arena_calloc(b, 16, sizeof(int));
    assert_ptr_equal(z, first); /* the first block, freed last, comes back first */
    for (int i = 0; i < 16; i++)
        assert_int_equal(z[i], 0);
    for (int i = 0; i < 300; i++) /* more blocks than the cache keeps: the rest are freed */
        assert_non_null(sluice_arena_alloc(b, 1500));
    sluice_arena_free(b);
}

/* A request past the small limit that fits a standard block takes a kept standard block of its
 * own, whole, and gives it back to the thread with the arena: such texts never reach malloc. */
static void test_arena_mid_size_requests_take_kept_blocks(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    assert_non_null(a);
    unsigned char *mid = sluice_arena_alloc(a, 5000);
    assert_non_null(mid);
    memset(mid, 0xCD, 5000);
    unsigned char *small = sluice_arena_alloc(a, 64); /* still the current block's */
    assert_true(small + 64 <= mid || small >= mid + 5000);
    sluice_arena_free(a);
    sluice_arena *b = sluice_arena_new();
    assert_non_null(b);
    unsigned char *z = sluice_arena_alloc(b, 64); /* the mid-size block, freed last */
    assert_ptr_equal(z, mid);
    for (int i = 0; i < 5; i++) /* the whole standard block is there */
        memset(sluice_arena_alloc(b, 1500), 0xEF, 1500);
    sluice_arena_free(b);
}

static void *arena_thread(void *unused)
{
    (void)unused;
    for (int r = 0; r < 3; r++) {
        sluice_arena *a = sluice_arena_new();
        for (int i = 0; i < 40; i++)
            if (sluice_arena_alloc(a, 1500) == NULL)
                return (void *)1;
        sluice_arena_free(a);
    }
    return NULL;
}

/* A thread's kept blocks go when it exits (LeakSanitizer in CI's sanitizer run reports them
 * otherwise), and threads keep their own: two at once never share a block. */
static void test_arena_thread_cache_is_freed_at_thread_exit(void **state)
{
    (void)state;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, arena_thread, NULL), 0);
    for (int i = 0; i < 2; i++) {
        void *rc = (void *)1;
        assert_int_equal(pthread_join(t[i], &rc), 0);
        assert_null(rc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_allocations_are_aligned_and_usable),
        cmocka_unit_test(test_arena_calloc_rejects_overflow),
        cmocka_unit_test(test_arena_strings_are_copied),
        cmocka_unit_test(test_arena_printf_any_length),
        cmocka_unit_test(test_arena_cleanups_run_last_first),
        cmocka_unit_test(test_arena_injected_failure_hits_nth_allocation),
        cmocka_unit_test(test_arena_cleanup_runs_even_when_registration_fails),
        cmocka_unit_test(test_arena_free_null_is_harmless),
        cmocka_unit_test(test_arena_blocks_are_reused_by_the_next_arena),
        cmocka_unit_test(test_arena_mid_size_requests_take_kept_blocks),
        cmocka_unit_test(test_arena_thread_cache_is_freed_at_thread_exit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
