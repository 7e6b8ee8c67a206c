/*
 * test_key_store.c — rotating the token key in a running process: a token signed with K1 still
 * opens after the files are rotated to K2 (K1 previous), a key never in the ring is refused, a
 * failed re-read (missing, invalid, readable by others) keeps the working keys, a requested
 * reload re-reads what no stamp can see (the environment), a replaced ring stays valid while a
 * reader holds it, and readers on several threads never see a torn or freed ring while the main
 * thread rotates.
 */
#include "core/limits.h"
#include "token/key_store.h"
#include "token/token.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOW 1800000000

static char dir[64];
static char current_path[128], previous_path[128];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-keystore-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(current_path, sizeof current_path, "%s/current.key", dir);
    snprintf(previous_path, sizeof previous_path, "%s/previous.key", dir);
    return 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Replaces path atomically (new file, mode, rename), the way docs/security.md says to rotate. */
static void put_file(const char *path, const char *text, mode_t mode)
{
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(tmp, mode), 0);
    assert_int_equal(rename(tmp, path), 0);
}

static void new_line(const char *id, char line[SLUICE_LIMIT_SECRET_LINE_BYTES])
{
    assert_int_equal(sluice_secret_generate(id, line, SLUICE_LIMIT_SECRET_LINE_BYTES), SLUICE_OK);
}

static sluice_token_claims claims_for_test(void)
{
    sluice_token_claims c;
    memset(&c, 0, sizeof c);
    sluice_hash_sha256("SELECT 1", 8, c.code_hash);
    sluice_hash_sha256("ctx", 3, c.context_hash);
    sluice_hash_sha256("{}", 2, c.variables_hash);
    c.user_id = "alice";
    c.session_id = "s1";
    c.server_id = "test";
    c.action = SLUICE_ACTION_READ;
    c.risk = SLUICE_RISK_LOW;
    return c;
}

/* A token signed with the store's current key. */
static char *sign_with_store(sluice_key_store *ks, sluice_arena *arena)
{
    sluice_token_claims c = claims_for_test();
    char *token = NULL;
    const sluice_secret_ring *ring = sluice_key_store_acquire(ks);
    assert_int_equal(sluice_token_issue(ring, &c, NOW, 300, arena, &token, NULL), SLUICE_OK);
    sluice_key_store_release(ks, ring);
    return token;
}

/* A token signed with a key that was never in any store. */
static char *sign_with_line(const char *line, sluice_arena *arena)
{
    char copy[SLUICE_LIMIT_SECRET_LINE_BYTES];
    memcpy(copy, line, SLUICE_LIMIT_SECRET_LINE_BYTES);
    sluice_secret *key = NULL;
    assert_int_equal(sluice_secret_parse(copy, strlen(copy), "k0", &key, NULL, NULL), SLUICE_OK);
    sluice_secret_ring *ring = NULL;
    assert_int_equal(sluice_secret_ring_new(key, &ring), SLUICE_OK);
    sluice_token_claims c = claims_for_test();
    char *token = NULL;
    assert_int_equal(sluice_token_issue(ring, &c, NOW, 300, arena, &token, NULL), SLUICE_OK);
    sluice_secret_ring_free(ring);
    return token;
}

static sluice_token_problem
open_with_store(sluice_key_store *ks, const char *token, sluice_arena *arena)
{
    sluice_token_claims got;
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    sluice_error err = { 0 };
    const sluice_secret_ring *ring = sluice_key_store_acquire(ks);
    sluice_token_check check = { token, strlen(token), ring, NOW + 1 };
    sluice_token_open(&check, arena, &got, &problem, &err);
    sluice_key_store_release(ks, ring);
    return problem;
}

static const char *signing_id(sluice_key_store *ks)
{
    static char id[SLUICE_SECRET_KEY_ID_MAX + 1];
    const sluice_secret_ring *ring = sluice_key_store_acquire(ks);
    snprintf(id, sizeof id, "%s", sluice_secret_key_id(sluice_secret_ring_current(ring)));
    sluice_key_store_release(ks, ring);
    return id;
}

static sluice_key_store *open_files(sluice_arena *arena)
{
    const sluice_key_sources src = { current_path, NULL, previous_path, NULL };
    sluice_key_store *ks = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_key_store_open(&src, &ks, arena, &err), SLUICE_OK);
    return ks;
}

/* K1 signs; the files become K2 current, K1 previous; no restart, no signal: K1's token opens,
 * new tokens are K2's, and K0 (never in the ring) is refused before and after. */
static void test_key_store_rotates_on_file_change(void **state)
{
    (void)state;
    char k0[SLUICE_LIMIT_SECRET_LINE_BYTES], k1[SLUICE_LIMIT_SECRET_LINE_BYTES],
        k2[SLUICE_LIMIT_SECRET_LINE_BYTES];
    char kold[SLUICE_LIMIT_SECRET_LINE_BYTES];
    new_line("k0", k0);
    new_line("k1", k1);
    new_line("k2", k2);
    new_line("kold", kold);
    put_file(current_path, k1, 0600);
    put_file(previous_path, kold, 0600);
    sluice_arena *arena = sluice_arena_new();
    sluice_key_store *ks = open_files(arena);
    char *t1 = sign_with_store(ks, arena);
    char *t0 = sign_with_line(k0, arena);
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);
    assert_int_equal(open_with_store(ks, t0, arena), SLUICE_TOKEN_UNKNOWN_KEY);

    put_file(previous_path, k1, 0600); /* step 1: the current key becomes the previous one too */
    assert_string_equal(signing_id(ks), "k1");
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);
    put_file(current_path, k2, 0600); /* step 2: the new key */
    assert_string_equal(signing_id(ks), "k2");
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);
    assert_int_equal(open_with_store(ks, t0, arena), SLUICE_TOKEN_UNKNOWN_KEY);
    char *t2 = sign_with_store(ks, arena);
    assert_non_null(strstr(t2, ".")); /* a token, signed with k2 below */
    sluice_token_claims got;
    const sluice_secret_ring *ring = sluice_key_store_acquire(ks);
    sluice_token_check check = { t2, strlen(t2), ring, NOW + 1 };
    assert_int_equal(sluice_token_open(&check, arena, &got, NULL, NULL), SLUICE_OK);
    assert_string_equal(got.key_id, "k2");
    sluice_key_store_release(ks, ring);

    /* The next rotation drops K1: its tokens stop opening. */
    put_file(previous_path, k2, 0600);
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_UNKNOWN_KEY);
    sluice_key_store_close(ks);
    sluice_arena_free(arena);
}

/* A re-read that fails keeps the ring in use: missing file, invalid line, a file others may
 * read, a previous key clashing with the current one. Fixing the file is picked up. */
static void test_key_store_failed_reload_keeps_keys(void **state)
{
    (void)state;
    char k1[SLUICE_LIMIT_SECRET_LINE_BYTES], kold[SLUICE_LIMIT_SECRET_LINE_BYTES],
        k2[SLUICE_LIMIT_SECRET_LINE_BYTES];
    char clash[SLUICE_LIMIT_SECRET_LINE_BYTES];
    new_line("k1", k1);
    new_line("kold", kold);
    new_line("k2", k2);
    new_line("kold", clash); /* same id as the previous key, other bytes */
    put_file(current_path, k1, 0600);
    put_file(previous_path, kold, 0600);
    sluice_arena *arena = sluice_arena_new();
    sluice_key_store *ks = open_files(arena);
    char *t1 = sign_with_store(ks, arena);
    sluice_error err = { 0 };

    put_file(current_path, "sluice-key-v1 k2 not-base64!\n", 0600);
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);
    assert_string_equal(signing_id(ks), "k1");
    assert_int_equal(sluice_key_store_reload(ks, "test", arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "not valid base64url"));

    put_file(current_path, k2, 0644);
    assert_int_equal(sluice_key_store_reload(ks, "test", arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "chmod 600"));
    assert_string_equal(signing_id(ks), "k1");

    assert_int_equal(unlink(current_path), 0);
    assert_int_equal(sluice_key_store_reload(ks, "test", arena, &err), SLUICE_E_CONFIG);
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);
    assert_string_equal(signing_id(ks), "k1");

    put_file(current_path, clash, 0600);
    assert_int_equal(sluice_key_store_reload(ks, "test", arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "two token keys have the id 'kold'"));
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_OK);

    put_file(current_path, k2, 0600); /* fixed: picked up without a request */
    assert_string_equal(signing_id(ks), "k2");
    assert_int_equal(open_with_store(ks, t1, arena), SLUICE_TOKEN_UNKNOWN_KEY); /* not previous */
    sluice_key_store_close(ks);
    sluice_arena_free(arena);
}

/* The environment has no stamp: only a request (SIGHUP) re-reads it. */
static void test_key_store_request_rereads_env(void **state)
{
    (void)state;
    char k1[SLUICE_LIMIT_SECRET_LINE_BYTES], k2[SLUICE_LIMIT_SECRET_LINE_BYTES];
    new_line("k1", k1);
    new_line("k2", k2);
    setenv("SLUICE_TEST_KS_KEY", k1, 1);
    sluice_arena *arena = sluice_arena_new();
    const sluice_key_sources src = { NULL, "SLUICE_TEST_KS_KEY", NULL, NULL };
    sluice_key_store *ks = NULL;
    assert_int_equal(sluice_key_store_open(&src, &ks, arena, NULL), SLUICE_OK);
    setenv("SLUICE_TEST_KS_KEY", k2, 1);
    assert_string_equal(signing_id(ks), "k1");
    sluice_key_store_request_reload(ks);
    assert_string_equal(signing_id(ks), "k2");
    setenv("SLUICE_TEST_KS_KEY", "garbage", 1);
    sluice_key_store_request_reload(ks);
    sluice_key_store_refresh(ks);
    assert_string_equal(signing_id(ks), "k2"); /* fail safe: never an empty ring */
    unsetenv("SLUICE_TEST_KS_KEY");
    sluice_key_store_close(ks);
    sluice_arena_free(arena);
}

/* A reader keeps using the ring it holds across a rotation; it is freed on release (ASan sees a
 * use after free or a leak if either is wrong). */
static void test_key_store_held_ring_survives_rotation(void **state)
{
    (void)state;
    char k1[SLUICE_LIMIT_SECRET_LINE_BYTES], k2[SLUICE_LIMIT_SECRET_LINE_BYTES];
    new_line("k1", k1);
    new_line("k2", k2);
    put_file(current_path, k1, 0600);
    put_file(previous_path, k1, 0600);
    sluice_arena *arena = sluice_arena_new();
    sluice_key_store *ks = open_files(arena);
    const sluice_secret_ring *held = sluice_key_store_acquire(ks);
    put_file(current_path, k2, 0600);
    put_file(previous_path, k2, 0600);
    assert_int_equal(sluice_key_store_reload(ks, "test", arena, NULL), SLUICE_OK);
    assert_string_equal(signing_id(ks), "k2");
    uint8_t mac[SLUICE_SECRET_MAC_BYTES];
    const sluice_secret *k = sluice_secret_ring_find(held, "k1", 2);
    assert_non_null(k);
    sluice_secret_mac(k, "x", 1, mac);
    assert_true(sluice_secret_mac_verify(k, "x", 1, mac));
    assert_null(sluice_secret_ring_find(held, "k2", 2));
    sluice_key_store_release(ks, held);
    sluice_key_store_close(ks);
    sluice_arena_free(arena);
}

/* ---- readers during reloads ------------------------------------------------------------------ */

#define READERS          4
#define READS_PER_THREAD 2000
#define ROTATIONS        200

typedef struct reader_state {
    sluice_key_store *ks;
    atomic_int *stop;
    int reads, bad;
} reader_state;

/* Signs with the ring's current key and verifies through the same ring by id: a torn or freed
 * ring fails here (or in ASan/TSan). cmocka asserts are not thread-safe, so it counts. */
static void *reader(void *arg)
{
    reader_state *r = arg;
    for (int i = 0; i < READS_PER_THREAD && !atomic_load(r->stop); i++) {
        const sluice_secret_ring *ring = sluice_key_store_acquire(r->ks);
        const sluice_secret *cur = sluice_secret_ring_current(ring);
        const char *id = sluice_secret_key_id(cur);
        uint8_t mac[SLUICE_SECRET_MAC_BYTES];
        sluice_secret_mac(cur, &i, sizeof i, mac);
        const sluice_secret *found = sluice_secret_ring_find(ring, id, strlen(id));
        if (found == NULL || !sluice_secret_mac_verify(found, &i, sizeof i, mac))
            r->bad++;
        sluice_key_store_release(r->ks, ring);
        r->reads++;
    }
    return NULL;
}

static void test_key_store_readers_during_reloads(void **state)
{
    (void)state;
    char lines[2][SLUICE_LIMIT_SECRET_LINE_BYTES];
    new_line("ka", lines[0]);
    new_line("kb", lines[1]);
    put_file(current_path, lines[0], 0600);
    put_file(previous_path, lines[0], 0600);
    sluice_arena *arena = sluice_arena_new();
    sluice_key_store *ks = open_files(arena);
    atomic_int stop;
    atomic_init(&stop, 0);
    reader_state rs[READERS];
    pthread_t threads[READERS];
    for (int i = 0; i < READERS; i++) {
        rs[i] = (reader_state){ ks, &stop, 0, 0 };
        assert_int_equal(pthread_create(&threads[i], NULL, reader, &rs[i]), 0);
    }
    int reloaded = 0;
    for (int i = 0; i < ROTATIONS; i++) {
        put_file(current_path, lines[(i + 1) % 2], 0600);
        put_file(previous_path, lines[i % 2], 0600);
        if (i % 2 == 0)
            reloaded += sluice_key_store_reload(ks, "test", arena, NULL) == SLUICE_OK;
        else
            sluice_key_store_request_reload(ks);
    }
    atomic_store(&stop, 1);
    int reads = 0;
    for (int i = 0; i < READERS; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(rs[i].bad, 0);
        reads += rs[i].reads;
    }
    assert_int_equal(reloaded, ROTATIONS / 2);
    assert_true(reads > 0);
    assert_string_equal(signing_id(ks), "ka"); /* the last rotation (i = 199) made ka current */
    sluice_key_store_close(ks);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_store_rotates_on_file_change),
        cmocka_unit_test(test_key_store_failed_reload_keeps_keys),
        cmocka_unit_test(test_key_store_request_rereads_env),
        cmocka_unit_test(test_key_store_held_ring_survives_rotation),
        cmocka_unit_test(test_key_store_readers_during_reloads),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
