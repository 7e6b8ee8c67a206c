/*
 * test_apikey.c — static API keys: both header forms, wrong and missing keys, the challenge,
 * and every way a config entry can be refused.
 */
#include "auth/apikey.h"
#include "core/limits.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

/* SHA-256("abc"), the FIPS 180-2 test vector. */
#define ABC_SHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define ENV_KEY    "k3y-from-the-environment-0123456789"

static sluice_arena *arena;

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    setenv("SLUICE_TEST_API_KEY", ENV_KEY, 1);
    setenv("SLUICE_TEST_SHORT_KEY", "short", 1);
    unsetenv("SLUICE_TEST_UNSET_KEY");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_arena_free(arena);
    return 0;
}

static const char *analysts[] = { "analysts", "finance" };

static sluice_authenticator *two_keys(void)
{
    sluice_config_api_key keys[2] = {
        { .user = "alice", .groups = { analysts, 2 }, .sha256_hex = ABC_SHA256, .line = 3 },
        { .user = "bob", .env = "SLUICE_TEST_API_KEY", .line = 7 },
    };
    sluice_authenticator *auth = NULL;
    sluice_error err;
    assert_int_equal(sluice_apikey_new(keys, 2, &auth, arena, &err), SLUICE_OK);
    return auth;
}

static sluice_status run(sluice_authenticator *auth,
                         const char *authorization,
                         const char *api_key,
                         sluice_identity *who,
                         sluice_auth_failure *failure)
{
    sluice_auth_request rq = { authorization, api_key, "http://127.0.0.1:8808/mcp" };
    memset(who, 0, sizeof *who);
    memset(failure, 0, sizeof *failure);
    return auth->authenticate(auth, arena, &rq, who, failure);
}

static void test_apikey_accepts_bearer_and_header(void **state)
{
    (void)state;
    sluice_authenticator *auth = two_keys();
    sluice_identity who;
    sluice_auth_failure f;
    assert_int_equal(run(auth, "Bearer abc", NULL, &who, &f), SLUICE_OK);
    assert_string_equal(who.user_id, "alice");
    assert_string_equal(who.method, "api-key");
    assert_int_equal(who.group_count, 2);
    assert_true(sluice_identity_in_group(&who, "finance"));
    assert_false(sluice_identity_in_group(&who, "admins"));
    assert_int_equal(run(auth, NULL, ENV_KEY, &who, &f), SLUICE_OK);
    assert_string_equal(who.user_id, "bob");
    assert_int_equal(run(auth, "bearer   " ENV_KEY " ", NULL, &who, &f), SLUICE_OK);
    assert_string_equal(who.user_id, "bob");
    auth->destroy(auth);
}

static void test_apikey_rejects_wrong_and_missing_keys(void **state)
{
    (void)state;
    sluice_authenticator *auth = two_keys();
    sluice_identity who;
    sluice_auth_failure f;
    assert_int_equal(run(auth, "Bearer abd", NULL, &who, &f), SLUICE_E_AUTH);
    assert_string_equal(f.www_authenticate, "Bearer realm=\"sluice\", error=\"invalid_token\"");
    assert_string_equal(f.message, "invalid API key");
    assert_null(who.user_id);
    /* A prefix or an extension of a valid key is not that key. */
    assert_int_equal(run(auth, NULL, "ab", &who, &f), SLUICE_E_AUTH);
    assert_int_equal(run(auth, NULL, "abcd", &who, &f), SLUICE_E_AUTH);
    assert_int_equal(run(auth, NULL, NULL, &who, &f), SLUICE_E_AUTH);
    assert_string_equal(f.www_authenticate, "Bearer realm=\"sluice\"");
    assert_string_equal(
        f.message, "missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'");
    assert_int_equal(run(auth, "Basic YWxpY2U6YWJj", "abc", &who, &f), SLUICE_E_AUTH);
    assert_string_equal(f.message,
                        "unsupported Authorization scheme: send 'Authorization: Bearer <key>'");
    assert_int_equal(run(auth, "Bearer ", NULL, &who, &f), SLUICE_E_AUTH);
    assert_int_equal(run(auth, "Bearerabc", NULL, &who, &f), SLUICE_E_AUTH);
    char *huge = malloc(SLUICE_LIMIT_CREDENTIAL_BYTES + 2);
    memset(huge, 'a', SLUICE_LIMIT_CREDENTIAL_BYTES + 1);
    huge[SLUICE_LIMIT_CREDENTIAL_BYTES + 1] = '\0';
    assert_int_equal(run(auth, NULL, huge, &who, &f), SLUICE_E_AUTH);
    free(huge);
    auth->destroy(auth);
}

static void expect_config_error(sluice_config_api_key key, const char *message)
{
    sluice_authenticator *auth = NULL;
    sluice_error err;
    assert_int_equal(sluice_apikey_new(&key, 1, &auth, arena, &err), SLUICE_E_CONFIG);
    assert_null(auth);
    assert_string_equal(err.message, message);
}

static void test_apikey_config_errors(void **state)
{
    (void)state;
    expect_config_error((sluice_config_api_key){ .user = "carol", .line = 4 },
                        "api key for user 'carol' (line 4): set exactly one of key_sha256 and "
                        "key_env");
    expect_config_error(
        (sluice_config_api_key){
            .user = "carol", .sha256_hex = ABC_SHA256, .env = "SLUICE_TEST_API_KEY", .line = 4 },
        "api key for user 'carol' (line 4): set exactly one of key_sha256 and "
        "key_env");
    expect_config_error((sluice_config_api_key){ .user = "carol", .sha256_hex = "abc", .line = 5 },
                        "api key for user 'carol' (line 5): key_sha256 must be 64 hex characters "
                        "(the SHA-256 of the key, e.g. from 'printf %s KEY | sha256sum')");
    expect_config_error(
        (sluice_config_api_key){
            .user = "carol",
            .sha256_hex = "zz7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            .line = 5 },
        "api key for user 'carol' (line 5): key_sha256 must be 64 hex characters (the SHA-256 of "
        "the key, e.g. from 'printf %s KEY | sha256sum')");
    expect_config_error(
        (sluice_config_api_key){ .user = "dan", .env = "SLUICE_TEST_UNSET_KEY", .line = 9 },
        "api key for user 'dan' (line 9): environment variable "
        "'SLUICE_TEST_UNSET_KEY' is not set");
    expect_config_error(
        (sluice_config_api_key){ .user = "dan", .env = "SLUICE_TEST_SHORT_KEY", .line = 9 },
        "api key for user 'dan' (line 9): the key in 'SLUICE_TEST_SHORT_KEY' "
        "must be 16 to 4096 characters long (it has 5)");
    expect_config_error((sluice_config_api_key){ .sha256_hex = ABC_SHA256, .line = 2 },
                        "api key on line 2 has no user");
}

static void test_apikey_with_no_keys_refuses_everyone(void **state)
{
    (void)state;
    sluice_authenticator *auth = NULL;
    assert_int_equal(sluice_apikey_new(NULL, 0, &auth, arena, NULL), SLUICE_OK);
    sluice_identity who;
    sluice_auth_failure f;
    assert_int_equal(run(auth, "Bearer abc", NULL, &who, &f), SLUICE_E_AUTH);
    auth->destroy(auth);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apikey_accepts_bearer_and_header),
        cmocka_unit_test(test_apikey_rejects_wrong_and_missing_keys),
        cmocka_unit_test(test_apikey_config_errors),
        cmocka_unit_test(test_apikey_with_no_keys_refuses_everyone),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
