/*
 * test_replay.c — single use of approval tokens: in memory, across a restart, expiry, growth,
 * torn files, one process per store, and many threads racing for the same ids.
 */
#include "core/hash.h"
#include "state/replay.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW 1800000000

static char dir[64];
static char path[128];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-replay-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/used", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int fresh_file(void **state)
{
    (void)state;
    remove(path);
    return 0;
}

static void id_of(uint32_t n, uint8_t *id)
{
    uint8_t seed[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };
    uint8_t hash[SLUICE_HASH_BYTES];
    sluice_hash_sha256(seed, sizeof seed, hash);
    memcpy(id, hash, SLUICE_REPLAY_ID_BYTES);
}

static size_t lines_in(const char *file)
{
    FILE *f = fopen(file, "r");
    assert_non_null(f);
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void test_replay_single_use_in_memory(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    assert_int_equal(sluice_replay_open(NULL, NOW, &store, NULL, NULL), SLUICE_OK);
    uint8_t a[SLUICE_REPLAY_ID_BYTES], b[SLUICE_REPLAY_ID_BYTES];
    id_of(1, a);
    id_of(2, b);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW), SLUICE_E_DENIED);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW + 100), SLUICE_E_DENIED);
    assert_int_equal(sluice_replay_consume(store, b, NOW + 300, NOW), SLUICE_OK);
    assert_int_equal(sluice_replay_count(store), 2);
    sluice_replay_close(store);
}

static void test_replay_refused_across_restart(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    uint8_t a[SLUICE_REPLAY_ID_BYTES], b[SLUICE_REPLAY_ID_BYTES];
    id_of(10, a);
    id_of(11, b);
    assert_int_equal(sluice_replay_open(path, NOW, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW), SLUICE_OK);
    sluice_replay_close(store);

    assert_int_equal(sluice_replay_open(path, NOW + 10, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_count(store), 1);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW + 10), SLUICE_E_DENIED);
    assert_int_equal(sluice_replay_consume(store, b, NOW + 300, NOW + 10), SLUICE_OK);
    sluice_replay_close(store);

    assert_int_equal(sluice_replay_open(path, NOW + 20, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW + 20), SLUICE_E_DENIED);
    assert_int_equal(sluice_replay_consume(store, b, NOW + 300, NOW + 20), SLUICE_E_DENIED);
    sluice_replay_close(store);
}

static void test_replay_expired_entries_dropped(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    assert_int_equal(sluice_replay_open(path, NOW, &store, NULL, NULL), SLUICE_OK);
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    for (uint32_t i = 0; i < 10; i++) {
        id_of(100 + i, id);
        assert_int_equal(sluice_replay_consume(store, id, NOW + (i < 4 ? 50 : 500), NOW),
                         SLUICE_OK);
    }
    sluice_replay_close(store);
    assert_int_equal(lines_in(path), 10);

    /* At NOW + 50 the four short-lived ids have expired: dropped and compacted away. */
    assert_int_equal(sluice_replay_open(path, NOW + 50, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_count(store), 6);
    assert_int_equal(lines_in(path), 6);
    id_of(109, id);
    assert_int_equal(sluice_replay_consume(store, id, NOW + 500, NOW + 50), SLUICE_E_DENIED);
    sluice_replay_close(store);
}

static void test_replay_torn_and_garbage_lines_skipped(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    uint8_t a[SLUICE_REPLAY_ID_BYTES];
    id_of(7, a);
    assert_int_equal(sluice_replay_open(path, NOW, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW), SLUICE_OK);
    sluice_replay_close(store);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("not a line\nzz000000000000000000000000000000 1900000000\n", f);
    fputs("0123456789abcdef0123456789abcdef 99999999999999999999999\n", f);
    fputs("0123456789abcdef0123456789abc", f); /* torn by a crash */
    fclose(f);
    assert_int_equal(sluice_replay_open(path, NOW, &store, NULL, NULL), SLUICE_OK);
    assert_int_equal(sluice_replay_count(store), 1);
    assert_int_equal(sluice_replay_consume(store, a, NOW + 300, NOW), SLUICE_E_DENIED);
    sluice_replay_close(store);
    assert_int_equal(lines_in(path), 1);
}

static void test_replay_one_process_per_store(void **state)
{
    (void)state;
    sluice_replay *first = NULL, *second = NULL;
    assert_int_equal(sluice_replay_open(path, NOW, &first, NULL, NULL), SLUICE_OK);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    assert_int_equal(sluice_replay_open(path, NOW, &second, arena, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "another sluice process is using it"));
    sluice_replay_close(first);
    assert_int_equal(sluice_replay_open(path, NOW, &second, NULL, NULL), SLUICE_OK);
    sluice_replay_close(second);
    sluice_arena_free(arena);
}

static void test_replay_grows_and_stays_single_use(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    assert_int_equal(sluice_replay_open(NULL, NOW, &store, NULL, NULL), SLUICE_OK);
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    for (uint32_t i = 0; i < 5000; i++) {
        id_of(i, id);
        assert_int_equal(sluice_replay_consume(store, id, NOW + 300, NOW), SLUICE_OK);
    }
    for (uint32_t i = 0; i < 5000; i++) {
        id_of(i, id);
        assert_int_equal(sluice_replay_consume(store, id, NOW + 300, NOW + 1), SLUICE_E_DENIED);
    }
    assert_int_equal(sluice_replay_count(store), 5000);
    /* Once they expire, rebuilding for new ids drops them instead of growing. */
    for (uint32_t i = 0; i < 5000; i++) {
        id_of(10000 + i, id);
        assert_int_equal(sluice_replay_consume(store, id, NOW + 900, NOW + 600), SLUICE_OK);
    }
    assert_true(sluice_replay_count(store) <= 5000 + 1);
    sluice_replay_close(store);
}

typedef struct race {
    sluice_replay *store;
    int wins;
} race;

static void *racer(void *arg)
{
    race *r = arg;
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    for (uint32_t i = 0; i < 500; i++) {
        id_of(50000 + i, id);
        if (sluice_replay_consume(r->store, id, NOW + 300, NOW) == SLUICE_OK)
            r->wins++;
    }
    return NULL;
}

/* Four threads present the same 500 tokens: each is accepted exactly once in all. */
static void test_replay_threads_race_once(void **state)
{
    (void)state;
    sluice_replay *store = NULL;
    assert_int_equal(sluice_replay_open(path, NOW, &store, NULL, NULL), SLUICE_OK);
    race r[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (race){ store, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, racer, &r[i]), 0);
    }
    int total = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        total += r[i].wins;
    }
    assert_int_equal(total, 500);
    sluice_replay_close(store);
    assert_int_equal(lines_in(path), 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_replay_single_use_in_memory, fresh_file),
        cmocka_unit_test_setup(test_replay_refused_across_restart, fresh_file),
        cmocka_unit_test_setup(test_replay_expired_entries_dropped, fresh_file),
        cmocka_unit_test_setup(test_replay_torn_and_garbage_lines_skipped, fresh_file),
        cmocka_unit_test_setup(test_replay_one_process_per_store, fresh_file),
        cmocka_unit_test_setup(test_replay_grows_and_stays_single_use, fresh_file),
        cmocka_unit_test_setup(test_replay_threads_race_once, fresh_file),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
