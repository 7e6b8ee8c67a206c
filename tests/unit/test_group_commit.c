/*
 * test_group_commit.c — the leader/follower group commit: writers that arrive while a sync runs
 * share the next one, nobody is acknowledged before a sync that covers them, a failed sync fails
 * every uncovered waiter and every later writer, and per-record mode syncs once per record.
 */
#include "core/group_commit.h"
#include "unit.h"

#include <stdatomic.h>
#include <string.h>

#define WRITERS 8

typedef struct fixture {
    pthread_mutex_t lock;
    sluice_group_commit gc;
    atomic_int written;    /* writers that took their ticket */
    atomic_int syncs;      /* sync() calls */
    atomic_bool fail_next; /* the next sync fails */
    bool hold_first;       /* the first sync waits until every writer has written */
    int begins;            /* begin() calls (under the lock) */
    bool acked[WRITERS + 1];
    bool results[WRITERS + 1];
} fixture;

static fixture fx;

static void begin(void *ctx)
{
    fixture *f = ctx;
    f->begins++;
}

static bool sync_cb(void *ctx)
{
    fixture *f = ctx;
    int n = atomic_fetch_add(&f->syncs, 1);
    while (n == 0 && f->hold_first && atomic_load(&f->written) < WRITERS)
        ; /* spin: the other writers append meanwhile, without the lock */
    return !atomic_exchange(&f->fail_next, false);
}

static const sluice_group_commit_ops ops = { begin, sync_cb };

static void *writer(void *arg)
{
    int me = (int)(intptr_t)arg;
    pthread_mutex_lock(&fx.lock);
    bool ok = sluice_group_commit_reserve(&fx.gc, &fx.lock);
    uint64_t ticket = ok ? sluice_group_commit_ticket(&fx.gc) : 0;
    atomic_fetch_add(&fx.written, 1);
    if (ok)
        ok = sluice_group_commit_wait(&fx.gc, &fx.lock, ticket, &ops, &fx);
    /* Acknowledged means a finished sync covered this ticket. */
    fx.acked[me] = ok && fx.gc.durable >= ticket;
    fx.results[me] = ok;
    pthread_mutex_unlock(&fx.lock);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    memset(&fx, 0, sizeof fx);
    pthread_mutex_init(&fx.lock, NULL);
    return sluice_group_commit_init(&fx.gc, 0) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sluice_group_commit_destroy(&fx.gc);
    pthread_mutex_destroy(&fx.lock);
    return 0;
}

static void run_writers(int n)
{
    pthread_t t[WRITERS];
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* The first writer leads a sync that is held until all eight have written: the other seven
 * are covered by exactly one more sync. */
static void test_group_commit_shares_one_sync(void **state)
{
    (void)state;
    fx.hold_first = true;
    run_writers(WRITERS);
    assert_int_equal(atomic_load(&fx.syncs), 2);
    assert_int_equal(fx.begins, 2);
    assert_int_equal(fx.gc.durable, WRITERS);
    for (int i = 1; i <= WRITERS; i++)
        assert_true(fx.acked[i]);
}

/* The held first sync fails: nobody is acknowledged, and a later writer is refused at once. */
static void test_group_commit_failure_fails_closed(void **state)
{
    (void)state;
    fx.hold_first = true;
    atomic_store(&fx.fail_next, true);
    run_writers(WRITERS);
    for (int i = 1; i <= WRITERS; i++)
        assert_false(fx.results[i]);
    assert_true(fx.gc.failed);
    assert_int_equal(fx.gc.durable, 0);
    pthread_mutex_lock(&fx.lock);
    assert_false(sluice_group_commit_reserve(&fx.gc, &fx.lock));
    pthread_mutex_unlock(&fx.lock);
}

/* A ticket a successful sync covered stays acknowledged after a later sync fails. */
static void test_group_commit_durable_before_failure_stays(void **state)
{
    (void)state;
    run_writers(1);
    assert_true(fx.results[1]);
    atomic_store(&fx.fail_next, true);
    pthread_mutex_lock(&fx.lock);
    uint64_t ticket = sluice_group_commit_ticket(&fx.gc);
    assert_false(sluice_group_commit_wait(&fx.gc, &fx.lock, ticket, &ops, &fx));
    assert_true(sluice_group_commit_wait(&fx.gc, &fx.lock, 1, &ops, &fx));
    pthread_mutex_unlock(&fx.lock);
}

/* Per-record mode: the mutex is held through the sync, so each record gets its own. */
static void test_group_commit_per_record(void **state)
{
    (void)state;
    fx.gc.per_record = true;
    run_writers(WRITERS);
    assert_int_equal(atomic_load(&fx.syncs), WRITERS);
    for (int i = 1; i <= WRITERS; i++)
        assert_true(fx.acked[i]);
}

/* max_unsynced: a writer waits before writing while the bound is reached, then proceeds. */
static void test_group_commit_bounds_unsynced(void **state)
{
    (void)state;
    fx.gc.max_unsynced = 1;
    run_writers(WRITERS);
    assert_int_equal(atomic_load(&fx.syncs), WRITERS);
    assert_int_equal(fx.gc.durable, WRITERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_group_commit_shares_one_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_commit_failure_fails_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_commit_durable_before_failure_stays, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_group_commit_per_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_commit_bounds_unsynced, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
