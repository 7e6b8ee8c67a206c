/*
 * test_admin_key.c — the one administrator-key check (transport/http_admin_key.c) as an attacker
 * would try it: near-miss keys (a prefix, one byte more, other case of the key, a key past the
 * credential limit, another scheme, no header), the bound on guessing under a manual clock (the
 * eleventh check fails even with the right key, until the window ends), the same bound under 32
 * threads guessing at once (no more than ten wrong keys are ever compared in one window), and
 * the refusal texts (429 names the limit's value).
 */
#include "core/limits.h"
#include "transport/http_admin_key.h"
#include "unit.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY   "admin-key-0123456789abcdef"
#define START 1800000000

static sluice_manual_clock clock_;
static sluice_admin_key key;

static void open_key(void)
{
    setenv("SLUICE_TEST_ADMIN_KEY", KEY, 1);
    sluice_manual_clock_init(&clock_, START);
    sluice_config_admin admin = { .key_env = "SLUICE_TEST_ADMIN_KEY" };
    sluice_error err = { 0 };
    assert_int_equal(sluice_admin_key_init(&key, &clock_.clock, &admin, NULL, &err), SLUICE_OK);
}

static void test_only_the_exact_key_passes(void **state)
{
    (void)state;
    open_key();
    char longer[SLUICE_LIMIT_CREDENTIAL_BYTES + 32];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(longer, "Bearer " KEY, strlen("Bearer " KEY));
    const char *wrong[] = { NULL,
                            "",
                            "Bearer ",
                            "Bearer " KEY "x",
                            "Bearer admin-key-0123456789abcde",
                            "Bearer ADMIN-KEY-0123456789ABCDEF",
                            "Basic " KEY,
                            "Bearer  " KEY,
                            KEY,
                            longer };
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++)
        assert_int_equal(sluice_admin_key_check(&key, wrong[i]), SLUICE_ADMIN_BAD_KEY);
    /* ten wrong: the window is spent; in the next one the scheme is case-insensitive (RFC
     * 7235), the key is not */
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_THROTTLED);
    sluice_manual_clock_advance_ms(&clock_, SLUICE_ADMIN_FAILURE_WINDOW_S * 1000LL);
    assert_int_equal(sluice_admin_key_check(&key, "bearer " KEY), SLUICE_ADMIN_OK);
}

static void test_the_eleventh_check_fails_even_right_until_the_window_ends(void **state)
{
    (void)state;
    open_key();
    /* right keys do not use up the bound */
    for (int i = 0; i < 3 * SLUICE_ADMIN_FAILURES_PER_WINDOW; i++)
        assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_OK);
    for (int i = 0; i < SLUICE_ADMIN_FAILURES_PER_WINDOW; i++)
        assert_int_equal(sluice_admin_key_check(&key, "Bearer wrong-key-0123456789"),
                         SLUICE_ADMIN_BAD_KEY);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_THROTTLED);
    sluice_manual_clock_advance_ms(&clock_, (SLUICE_ADMIN_FAILURE_WINDOW_S - 1) * 1000LL);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_THROTTLED);
    char body[256];
    const char *challenge = "unset";
    assert_int_equal(
        sluice_admin_key_refusal(&key, SLUICE_ADMIN_THROTTLED, body, sizeof body, &challenge), 429);
    assert_null(challenge);
    assert_string_equal(body, "{\"error\":\"too many wrong administrator keys (limit is 10 per 60 "
                              "s); try again in 1 s\"}");
    /* a wall clock stepped back does not open the window early */
    sluice_manual_clock_advance_ms(&clock_, -3600 * 1000LL);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_THROTTLED);
    sluice_manual_clock_advance_ms(&clock_, (3600 + 1) * 1000LL);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_OK);
    assert_int_equal(
        sluice_admin_key_refusal(&key, SLUICE_ADMIN_BAD_KEY, body, sizeof body, &challenge), 401);
    assert_string_equal(challenge, "Bearer realm=\"sluice-admin\"");
    assert_string_equal(body, "{\"error\":\"send the administrator key ([admin]) as "
                              "'Authorization: Bearer <key>'\"}");
}

#define GUESSERS 32
#define GUESSES  8

static atomic_int compared_wrong;
static atomic_int go;

static void *guess(void *arg)
{
    (void)arg;
    while (!atomic_load(&go)) {
    }
    for (int i = 0; i < GUESSES; i++)
        if (sluice_admin_key_check(&key, "Bearer wrong-key-0123456789") == SLUICE_ADMIN_BAD_KEY)
            atomic_fetch_add(&compared_wrong, 1);
    return NULL;
}

static void test_concurrent_guesses_cannot_pass_the_bound(void **state)
{
    (void)state;
    open_key();
    pthread_t t[GUESSERS];
    atomic_store(&compared_wrong, 0);
    atomic_store(&go, 0);
    for (int i = 0; i < GUESSERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, guess, NULL), 0);
    atomic_store(&go, 1);
    for (int i = 0; i < GUESSERS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&compared_wrong), SLUICE_ADMIN_FAILURES_PER_WINDOW);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_THROTTLED);
}

static void test_a_bad_configured_key_is_refused_at_start(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config_admin none = { 0 };
    assert_int_equal(sluice_admin_key_init(&key, NULL, &none, arena, &err), SLUICE_E_NOT_FOUND);
    sluice_config_admin hex = { .key_sha256 = "abcd" };
    assert_int_equal(sluice_admin_key_init(&key, NULL, &hex, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "64 hex digits"));
    setenv("SLUICE_TEST_ADMIN_SHORT", "short-key", 1);
    sluice_config_admin shortkey = { .key_env = "SLUICE_TEST_ADMIN_SHORT" };
    assert_int_equal(sluice_admin_key_init(&key, NULL, &shortkey, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "SLUICE_TEST_ADMIN_SHORT"));
    assert_non_null(strstr(err.message, "16 to"));
    sluice_config_admin unset = { .key_env = "SLUICE_TEST_ADMIN_UNSET" };
    unsetenv("SLUICE_TEST_ADMIN_UNSET");
    assert_int_equal(sluice_admin_key_init(&key, NULL, &unset, arena, &err), SLUICE_E_CONFIG);
    /* key_sha256: the digest of the key, so the key itself need not be in the file */
    unsigned char digest[32];
    char hexd[65];
    crypto_hash_sha256(digest, (const unsigned char *)KEY, strlen(KEY));
    sodium_bin2hex(hexd, sizeof hexd, digest, sizeof digest);
    sluice_config_admin good = { .key_sha256 = hexd };
    assert_int_equal(sluice_admin_key_init(&key, NULL, &good, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_admin_key_check(&key, "Bearer " KEY), SLUICE_ADMIN_OK);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_exact_key_passes),
        cmocka_unit_test(test_the_eleventh_check_fails_even_right_until_the_window_ends),
        cmocka_unit_test(test_concurrent_guesses_cannot_pass_the_bound),
        cmocka_unit_test(test_a_bad_configured_key_is_refused_at_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
