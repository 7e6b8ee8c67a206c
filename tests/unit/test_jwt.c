/*
 * test_jwt.c — bearer JWTs: the JWK → PEM encoder against Node's own PEM, every token the
 * vectors script mints (tests/unit/data/jwt/make_vectors.mjs) accepted or refused for the
 * right reason, kid ambiguity, private keys in a JWKS, JWKS reload on mtime change, the
 * challenge, the metadata document, and JWT-or-API-key routing.
 */
#include "auth/apikey.h"
#include "auth/either.h"
#include "auth/jwk.h"
#include "auth/jwt.h"
#include "auth/prm.h"
#include "config/checks.h"
#include "unit.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA    SLUICE_SOURCE_DIR "/tests/unit/data/jwt/"
#define AUD     "https://mcp.example.com/mcp"
#define PRM_URL "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
#define ABC_SHA "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static sluice_arena *arena;
static json_t *vectors;
static int64_t now;

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    vectors = json_load_file(DATA "tokens.json", 0, NULL);
    assert_non_null(vectors);
    now = json_integer_value(json_object_get(vectors, "now"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(vectors);
    sluice_arena_free(arena);
    return 0;
}

static const char *token(const char *name)
{
    const char *t = json_string_value(json_object_get(json_object_get(vectors, "tokens"), name));
    assert_non_null(t);
    return t;
}

static sluice_authenticator *make(const char *jwks, const char *secret)
{
    sluice_jwt_options o = {
        .jwks_file = jwks,
        .hs256_secret_file = secret,
        .issuer = "https://as.example.com",
        .audience = AUD,
        .clock_skew_seconds = 60,
        .resource_metadata_url = PRM_URL,
    };
    sluice_authenticator *auth = NULL;
    sluice_error err = { 0 };
    sluice_status st = sluice_jwt_new(&o, &auth, arena, &err);
    if (st != SLUICE_OK)
        print_error("sluice_jwt_new: %s\n", err.message);
    assert_int_equal(st, SLUICE_OK);
    return auth;
}

/* Verifies a named vector; returns the problem (NULL when accepted). */
static const char *check(sluice_authenticator *auth, const char *name, sluice_identity *who)
{
    const char *t = token(name);
    const char *problem = NULL;
    sluice_identity id = { 0 };
    sluice_status st = sluice_jwt_verify(auth, arena, t, strlen(t), now, &id, &problem);
    assert_true(st == SLUICE_OK ? problem == NULL : problem != NULL);
    if (who != NULL)
        *who = id;
    return st == SLUICE_OK ? NULL : problem;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(sluice_checks_read_file(arena, path, 1 << 20, true, &text, &len), 0);
    return text;
}

static void test_jwk_pem_matches_node(void **state)
{
    (void)state;
    char *text = slurp(DATA "jwks.json");
    sluice_jwks keys;
    sluice_error err = { 0 };
    assert_int_equal(sluice_jwks_parse(arena, text, strlen(text), &keys, &err), SLUICE_OK);
    assert_int_equal(keys.count, 2); /* the Ed25519 key is skipped */
    assert_int_equal(keys.keys[0].kind, SLUICE_JWK_RSA);
    assert_string_equal(keys.keys[0].kid, "rsa-1");
    assert_string_equal(keys.keys[0].pem, slurp(DATA "rsa-1.pem"));
    assert_int_equal(keys.keys[1].kind, SLUICE_JWK_EC_P256);
    assert_string_equal(keys.keys[1].pem, slurp(DATA "ec-1.pem"));
}

static void test_jwks_refuses_bad_documents(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "[]",
        "{\"keys\": 3}",
        "{\"keys\": [{\"kty\": \"RSA\", \"n\": \"AQAB\", \"e\": \"AQAB\"}]}", /* 24-bit RSA */
        "{\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-256\", \"x\": \"AQAB\", \"y\": \"AQAB\"}]}",
        "{\"keys\": [{\"kty\": \"RSA\", \"n\": \"!!\", \"e\": \"AQAB\"}]}",
        "{\"keys\": [{\"kty\": \"oct\", \"k\": \"c2VjcmV0\"}]}", /* a secret in a public file */
        "{\"keys\": [7]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sluice_jwks keys;
        sluice_error err = { 0 };
        assert_int_not_equal(sluice_jwks_parse(arena, bad[i], strlen(bad[i]), &keys, &err),
                             SLUICE_OK);
        assert_non_null(err.message);
    }
    char *priv = slurp(DATA "jwks_private.json");
    sluice_jwks keys;
    sluice_error err = { 0 };
    assert_int_equal(sluice_jwks_parse(arena, priv, strlen(priv), &keys, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "private key material"));
}

static void test_jwt_accepts_valid_tokens(void **state)
{
    (void)state;
    sluice_authenticator *auth = make(DATA "jwks.json", DATA "hs256.secret");
    sluice_identity who;
    assert_null(check(auth, "valid_rs256", &who));
    assert_string_equal(who.user_id, "alice");
    assert_string_equal(who.method, "jwt");
    assert_int_equal(who.group_count, 2);
    assert_string_equal(who.groups[0], "analysts");
    assert_string_equal(who.groups[1], "ops");
    assert_null(check(auth, "valid_es256", &who));
    assert_string_equal(who.user_id, "bob");
    assert_int_equal(who.group_count, 2); /* "readers  writers": space-separated */
    assert_string_equal(who.groups[1], "writers");
    assert_null(check(auth, "valid_hs256", NULL));
    assert_null(check(auth, "rs256_no_kid", NULL));
    assert_null(check(auth, "aud_array", NULL));
    assert_null(check(auth, "expired_within_skew", NULL));
    assert_null(check(auth, "nbf_within_skew", NULL));
    auth->destroy(auth);
}

static void test_jwt_refuses_each_bad_token(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *problem;
    } cases[] = {
        { "expired", "expired" },
        { "not_yet_valid", "not valid yet" },
        { "no_exp", "no exp" },
        { "wrong_audience", "another audience" },
        { "no_audience", "another audience" },
        { "wrong_issuer", "another issuer" },
        { "wrong_signature", "signature" },
        { "alg_none", "alg is not accepted" },
        { "eddsa", "alg is not accepted" },
        { "rs384", "alg is not accepted" },
        { "hs256_with_public_key", "signature" }, /* HS256 only ever uses the secret file */
        { "es256_claiming_rsa_kid", "no key" },
        { "unknown_kid", "no key" },
        { "crit_header", "critical" },
        { "no_user", "user claim" },
        { "groups_not_strings", "non-string" },
    };
    sluice_authenticator *auth = make(DATA "jwks.json", DATA "hs256.secret");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *problem = check(auth, cases[i].name, NULL);
        if (problem == NULL || strstr(problem, cases[i].problem) == NULL)
            fail_msg("%s: got '%s', want '%s'", cases[i].name, problem ? problem : "accepted",
                     cases[i].problem);
    }
    const char *problem = NULL;
    sluice_identity who;
    static const char *const junk[] = {
        "", "a.b", "a.b.c.d", "eyJhbGciOiJub25lIn0.e30.", "not a token", "....", "%%.%%.%%"
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        assert_int_equal(
            sluice_jwt_verify(auth, arena, junk[i], strlen(junk[i]), now, &who, &problem),
            SLUICE_E_AUTH);
    auth->destroy(auth);
    /* Without a secret file HS256 is not an algorithm at all. */
    auth = make(DATA "jwks.json", NULL);
    problem = check(auth, "valid_hs256", NULL);
    assert_non_null(problem);
    assert_non_null(strstr(problem, "alg is not accepted"));
    auth->destroy(auth);
}

static void test_jwt_refuses_ambiguous_kid(void **state)
{
    (void)state;
    sluice_authenticator *auth = make(DATA "jwks_dup_kid.json", NULL);
    const char *problem = check(auth, "dup_kid", NULL);
    assert_non_null(problem);
    assert_non_null(strstr(problem, "several keys"));
    problem = check(auth, "rs256_no_kid", NULL);
    assert_non_null(problem);
    assert_non_null(strstr(problem, "several keys"));
    auth->destroy(auth);
}

static void test_jwt_refuses_bad_config(void **state)
{
    (void)state;
    sluice_jwt_options o = { .jwks_file = DATA "jwks_private.json",
                             .issuer = "i",
                             .audience = AUD,
                             .resource_metadata_url = PRM_URL };
    sluice_authenticator *auth = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_jwt_new(&o, &auth, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "jwks_private.json"));
    o.jwks_file = DATA "missing.json";
    assert_int_equal(sluice_jwt_new(&o, &auth, arena, &err), SLUICE_E_CONFIG);
    o.jwks_file = NULL;
    o.hs256_secret_file = DATA "rsa-1.pem"; /* long enough */
    assert_int_equal(sluice_jwt_new(&o, &auth, arena, &err), SLUICE_OK);
    auth->destroy(auth);
    o.hs256_secret_file = DATA "../../test_jwt.c/../nothing";
    assert_int_equal(sluice_jwt_new(&o, &auth, arena, &err), SLUICE_E_CONFIG);
}

static void copy_file(const char *from, const char *to, time_t mtime)
{
    char *text = slurp(from);
    FILE *f = fopen(to, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    struct timespec times[2] = { { mtime, 0 }, { mtime, 0 } };
    assert_int_equal(utimensat(AT_FDCWD, to, times, 0), 0);
}

static void test_jwt_reloads_jwks_when_it_changes(void **state)
{
    (void)state;
    char path[] = "/tmp/sluice-jwks-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    copy_file(DATA "jwks_dup_kid.json", path, 1000);
    sluice_authenticator *auth = make(path, NULL);
    assert_non_null(check(auth, "valid_rs256", NULL)); /* kid rsa-1 unknown yet */
    copy_file(DATA "jwks.json", path, 2000);
    assert_null(check(auth, "valid_rs256", NULL));
    assert_null(check(auth, "valid_es256", NULL));
    /* A broken rewrite keeps the keys that were there. */
    FILE *f = fopen(path, "w");
    fputs("{\"keys\": [", f);
    fclose(f);
    struct timespec times[2] = { { 3000, 0 }, { 3000, 0 } };
    utimensat(AT_FDCWD, path, times, 0);
    assert_null(check(auth, "valid_rs256", NULL));
    auth->destroy(auth);
    unlink(path);
}

static void test_jwt_challenges(void **state)
{
    (void)state;
    sluice_authenticator *auth = make(DATA "jwks.json", NULL);
    sluice_identity who;
    sluice_auth_failure failure = { 0 };
    sluice_auth_request rq = { NULL, NULL, AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_E_AUTH);
    assert_string_equal(failure.www_authenticate,
                        "Bearer realm=\"sluice\", resource_metadata=\"" PRM_URL "\"");
    char *bearer = sluice_arena_printf(arena, "Bearer %s", token("wrong_audience"));
    rq.authorization = bearer;
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_E_AUTH);
    assert_non_null(strstr(failure.www_authenticate, "resource_metadata=\"" PRM_URL "\""));
    assert_non_null(strstr(failure.www_authenticate, "error=\"invalid_token\""));
    assert_non_null(strstr(failure.www_authenticate, "error_description=\""));
    /* The token itself never appears in what goes back or to the log. */
    assert_null(strstr(failure.www_authenticate, token("wrong_audience")));
    assert_null(strstr(failure.message, token("wrong_audience")));
    auth->destroy(auth);
}

static void test_prm_documents(void **state)
{
    (void)state;
    const char *servers[] = { "https://as.example.com" };
    sluice_strlist as = { servers, 1 }, scopes = { NULL, 0 };
    sluice_prm prm = { AUD, &as, &scopes, "demo" };
    const char *paths[] = { "/.well-known/oauth-protected-resource",
                            "/.well-known/oauth-protected-resource/mcp" };
    for (int i = 0; i < 2; i++) {
        const char *doc = sluice_prm_get(&prm, paths[i], arena);
        assert_non_null(doc);
        json_t *j = json_loads(doc, 0, NULL);
        assert_string_equal(json_string_value(json_object_get(j, "resource")), AUD);
        assert_string_equal(
            json_string_value(json_array_get(json_object_get(j, "authorization_servers"), 0)),
            "https://as.example.com");
        assert_string_equal(
            json_string_value(json_array_get(json_object_get(j, "bearer_methods_supported"), 0)),
            "header");
        assert_string_equal(json_string_value(json_object_get(j, "resource_name")), "demo");
        json_decref(j);
    }
    assert_null(sluice_prm_get(&prm, "/.well-known/oauth-protected-resource/other", arena));
    assert_null(sluice_prm_get(&prm, "/.well-known/oauth-protected-resource/mcpx", arena));
    assert_null(sluice_prm_get(&prm, "/mcp", arena));
    assert_string_equal(sluice_prm_metadata_url(arena, AUD), PRM_URL);
    assert_string_equal(sluice_prm_metadata_url(arena, "http://127.0.0.1:8808/mcp"),
                        "http://127.0.0.1:8808/.well-known/oauth-protected-resource/mcp");
    assert_string_equal(sluice_prm_metadata_url(arena, "https://h.example"),
                        "https://h.example/.well-known/oauth-protected-resource");
    assert_null(sluice_prm_metadata_url(arena, "ftp://h/mcp"));
}

static void test_either_routes_by_credential(void **state)
{
    (void)state;
    sluice_config_api_key keys[1] = { { .user = "carol", .sha256_hex = ABC_SHA, .line = 1 } };
    sluice_authenticator *apikey = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_apikey_new(keys, 1, &apikey, arena, &err), SLUICE_OK);
    sluice_authenticator *auth = NULL;
    assert_int_equal(sluice_auth_either_new(make(DATA "jwks.json", NULL), apikey, &auth),
                     SLUICE_OK);
    sluice_identity who;
    sluice_auth_failure failure = { 0 };
    sluice_auth_request rq = { "Bearer abc", NULL, AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_OK);
    assert_string_equal(who.user_id, "carol");
    rq = (sluice_auth_request){ NULL, "abc", AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_OK);
    assert_string_equal(who.method, "api-key");
    /* A JWT is judged as a JWT only, never retried as an API key. */
    rq = (sluice_auth_request){ sluice_arena_printf(arena, "Bearer %s", token("wrong_signature")),
                                NULL, AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_E_AUTH);
    assert_non_null(strstr(failure.www_authenticate, "invalid_token"));
    rq = (sluice_auth_request){ NULL, NULL, AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_E_AUTH);
    assert_non_null(strstr(failure.www_authenticate, "resource_metadata"));
    rq = (sluice_auth_request){ "Bearer wrong-key", NULL, AUD };
    assert_int_equal(auth->authenticate(auth, arena, &rq, &who, &failure), SLUICE_E_AUTH);
    auth->destroy(auth);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jwk_pem_matches_node),
        cmocka_unit_test(test_jwks_refuses_bad_documents),
        cmocka_unit_test(test_jwt_accepts_valid_tokens),
        cmocka_unit_test(test_jwt_refuses_each_bad_token),
        cmocka_unit_test(test_jwt_refuses_ambiguous_kid),
        cmocka_unit_test(test_jwt_refuses_bad_config),
        cmocka_unit_test(test_jwt_reloads_jwks_when_it_changes),
        cmocka_unit_test(test_jwt_challenges),
        cmocka_unit_test(test_prm_documents),
        cmocka_unit_test(test_either_routes_by_credential),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
