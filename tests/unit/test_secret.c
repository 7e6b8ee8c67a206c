/*
 * test_secret.c — signing keys: format, minimum length, file permissions, the environment
 * variable path, wiping of the text they came from, HMAC, keyring.
 */
#include "core/limits.h"
#include "token/secret.h"
#include "unit.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-secret-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A key line whose secret is the n bytes at secret. */
static void line_of(char *out, size_t cap, const char *id, const uint8_t *secret, size_t n)
{
    char b64[200];
    sodium_bin2base64(b64, sizeof b64, secret, n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    snprintf(out, cap, "sluice-key-v1 %s %s\n", id, b64);
}

/* A key line whose secret is n bytes of value v. */
static void line_with(char *out, size_t cap, const char *id, size_t n, unsigned char v)
{
    uint8_t secret[128];
    memset(secret, v, n);
    line_of(out, cap, id, secret, n);
}

static sluice_status
parse(const char *text, sluice_secret **key, sluice_arena *arena, sluice_error *err)
{
    char copy[512];
    size_t len = strlen(text);
    memcpy(copy, text, len);
    return sluice_secret_parse(copy, len, "test", key, arena, err);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void test_secret_accepts_generated_key(void **state)
{
    (void)state;
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    assert_int_equal(sluice_secret_generate("prod-2026", line, sizeof line), SLUICE_OK);
    sluice_secret *key = NULL;
    assert_int_equal(parse(line, &key, NULL, NULL), SLUICE_OK);
    assert_string_equal(sluice_secret_key_id(key), "prod-2026");
    sluice_secret_free(key);
    /* Default ids are k<date>-<hex>, and two keys never share material. */
    char a[SLUICE_LIMIT_SECRET_LINE_BYTES], b[SLUICE_LIMIT_SECRET_LINE_BYTES];
    assert_int_equal(sluice_secret_generate(NULL, a, sizeof a), SLUICE_OK);
    assert_int_equal(sluice_secret_generate(NULL, b, sizeof b), SLUICE_OK);
    assert_memory_equal(a, "sluice-key-v1 k", 15);
    assert_string_not_equal(strrchr(a, ' '), strrchr(b, ' '));
    assert_int_equal(sluice_secret_generate("bad id", a, sizeof a), SLUICE_E_INVALID);
    assert_int_equal(sluice_secret_generate("x", a, 16), SLUICE_E_LIMIT);
}

static void test_secret_short_key_refused(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    char line[256];
    line_with(line, sizeof line, "k", 31, 7);
    sluice_secret *key = NULL;
    sluice_error err;
    assert_int_equal(parse(line, &key, arena, &err), SLUICE_E_CONFIG);
    assert_null(key);
    assert_string_equal(err.message,
                        "test: the key has 31 bytes; at least 32 random bytes are required; make "
                        "one with `sluice keygen -o FILE` (or `sluice keygen` for a line to put "
                        "in the environment variable)");
    line_with(line, sizeof line, "k", 32, 7);
    assert_int_equal(parse(line, &key, arena, &err), SLUICE_OK);
    sluice_secret_free(key);
    line_with(line, sizeof line, "k", 65, 7);
    assert_int_equal(parse(line, &key, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "longer than 64 bytes"));
    sluice_arena_free(arena);
}

static void test_secret_malformed_lines_refused(void **state)
{
    (void)state;
    char good[256];
    line_with(good, sizeof good, "k", 32, 9);
    const char *b64 = strrchr(good, ' ') + 1;
    char bad[8][300];
    snprintf(bad[0], sizeof bad[0], "%s", b64);                        /* bare secret */
    snprintf(bad[1], sizeof bad[1], "sluice-key-v2 k %s", b64);        /* other version */
    snprintf(bad[2], sizeof bad[2], "sluice-key-v1 k/1 %s", b64);      /* bad id */
    snprintf(bad[3], sizeof bad[3], "sluice-key-v1  %s", b64);         /* empty id */
    snprintf(bad[4], sizeof bad[4], "sluice-key-v1 k %.42s=", b64);    /* padded */
    snprintf(bad[5], sizeof bad[5], "sluice-key-v1 k %s extra", b64);  /* trailing field */
    snprintf(bad[6], sizeof bad[6], "sluice-key-v1 k %.42s\xc1", b64); /* high-bit byte */
    snprintf(bad[7], sizeof bad[7], "%s", "");
    for (size_t i = 0; i < 8; i++) {
        sluice_secret *key = NULL;
        if (parse(bad[i], &key, NULL, NULL) != SLUICE_E_CONFIG)
            fail_msg("case %zu accepted", i);
    }
}

static void test_secret_parse_wipes_its_input(void **state)
{
    (void)state;
    char line[256], zero[256] = { 0 };
    line_with(line, sizeof line, "k", 32, 0x5a);
    size_t len = strlen(line);
    sluice_secret *key = NULL;
    assert_int_equal(sluice_secret_parse(line, len, "test", &key, NULL, NULL), SLUICE_OK);
    assert_memory_equal(line, zero, len);
    sluice_secret_free(key);
    /* Refused keys are wiped too. */
    line_with(line, sizeof line, "k", 16, 0x5a);
    len = strlen(line);
    assert_int_equal(sluice_secret_parse(line, len, "test", &key, NULL, NULL), SLUICE_E_CONFIG);
    assert_memory_equal(line, zero, len);
}

static void test_secret_file_permissions(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/key", dir);
    line_with(line, sizeof line, "filekey", 32, 3);
    static const mode_t refused[] = { 0644, 0640, 0604, 0660, 0602, 0620, 0601, 0610 };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        write_file(path, line, refused[i]);
        sluice_secret *key = NULL;
        sluice_error err;
        assert_int_equal(sluice_secret_load_file(path, &key, arena, &err), SLUICE_E_CONFIG);
        char want[512];
        snprintf(want, sizeof want,
                 "%s: the key file is accessible by group or others (mode %04o); run `chmod 600 "
                 "%s`",
                 path, (unsigned)refused[i], path);
        assert_string_equal(err.message, want);
    }
    static const mode_t accepted[] = { 0600, 0400 };
    for (size_t i = 0; i < 2; i++) {
        write_file(path, line, accepted[i]);
        sluice_secret *key = NULL;
        assert_int_equal(sluice_secret_load_file(path, &key, arena, NULL), SLUICE_OK);
        assert_string_equal(sluice_secret_key_id(key), "filekey");
        sluice_secret_free(key);
    }
    /* A directory and a missing file are refused with the file named. */
    sluice_secret *key = NULL;
    sluice_error err;
    assert_int_equal(chmod(dir, 0700), 0);
    assert_int_equal(sluice_secret_load_file(dir, &key, arena, &err), SLUICE_E_CONFIG);
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(sluice_secret_load_file(path, &key, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "sluice keygen"));
    sluice_arena_free(arena);
}

static void test_secret_env_var(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    char line[256];
    line_with(line, sizeof line, "envkey", 48, 1);
    line[strlen(line) - 1] = '\0'; /* as $(sluice keygen) would leave it */
    setenv("SLUICE_TEST_KEY", line, 1);
    sluice_secret *key = NULL;
    assert_int_equal(sluice_secret_load_env("SLUICE_TEST_KEY", &key, arena, NULL), SLUICE_OK);
    assert_string_equal(sluice_secret_key_id(key), "envkey");
    sluice_secret_free(key);
    sluice_error err;
    unsetenv("SLUICE_TEST_KEY");
    assert_int_equal(sluice_secret_load_env("SLUICE_TEST_KEY", &key, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "environment variable SLUICE_TEST_KEY is not set"));
    line_with(line, sizeof line, "envkey", 8, 1);
    setenv("SLUICE_TEST_KEY", line, 1);
    assert_int_equal(sluice_secret_load_env("SLUICE_TEST_KEY", &key, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "environment variable SLUICE_TEST_KEY: the key has 8"));
    unsetenv("SLUICE_TEST_KEY");
    sluice_arena_free(arena);
}

/* The HMAC is HMAC-SHA256: for a 32-byte key it equals libsodium's crypto_auth_hmacsha256. */
static void test_secret_mac_is_hmac_sha256(void **state)
{
    (void)state;
    char line[256];
    line_with(line, sizeof line, "k", 32, 0x42);
    sluice_secret *key = NULL;
    assert_int_equal(parse(line, &key, NULL, NULL), SLUICE_OK);
    uint8_t raw[32], mac[32], want[32];
    memset(raw, 0x42, sizeof raw);
    crypto_auth_hmacsha256(want, (const unsigned char *)"payload", 7, raw);
    sluice_secret_mac(key, "payload", 7, mac);
    assert_memory_equal(mac, want, 32);
    assert_true(sluice_secret_mac_verify(key, "payload", 7, mac));
    mac[31] ^= 1;
    assert_false(sluice_secret_mac_verify(key, "payload", 7, mac));
    assert_false(sluice_secret_mac_verify(key, "payloae", 7, want));
    sluice_secret_free(key);
}

/* The longest key (64 bytes), MACed again and again from the state keyed once at load: each MAC
 * equals HMAC-SHA256 keyed from the raw bytes, so no MAC consumes the kept state. */
static void test_secret_mac_repeats_from_the_keyed_state(void **state)
{
    (void)state;
    char line[256];
    line_with(line, sizeof line, "k", SLUICE_SECRET_MAX_BYTES, 0x5a);
    sluice_secret *key = NULL;
    assert_int_equal(parse(line, &key, NULL, NULL), SLUICE_OK);
    uint8_t raw[SLUICE_SECRET_MAX_BYTES];
    memset(raw, 0x5a, sizeof raw);
    const char *payloads[] = { "", "payload",
                               "a longer payload that spans more than one block of "
                               "SHA-256's sixty-four bytes, and then some more" };
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
            size_t n = strlen(payloads[i]);
            uint8_t mac[32], want[32];
            crypto_auth_hmacsha256_state h;
            crypto_auth_hmacsha256_init(&h, raw, sizeof raw);
            crypto_auth_hmacsha256_update(&h, (const unsigned char *)payloads[i], n);
            crypto_auth_hmacsha256_final(&h, want);
            sluice_secret_mac(key, payloads[i], n, mac);
            assert_memory_equal(mac, want, 32);
            assert_true(sluice_secret_mac_verify(key, payloads[i], n, want));
        }
    sluice_secret_free(key);
}

/* Random keys of every length class (shortest, odd, one under a block, a whole block) MAC every
 * data length 0..300 and a few large ones to exactly libsodium's HMAC-SHA256 keyed from the raw
 * bytes: the tokens and MACs main's binary wrote stay valid. */
static void test_secret_mac_matches_libsodium_at_every_length(void **state)
{
    (void)state;
    enum { LARGE = (1 << 20) + 13 };
    uint8_t *data = malloc(LARGE);
    assert_non_null(data);
    randombytes_buf(data, LARGE);
    static const size_t key_lens[] = { SLUICE_SECRET_MIN_BYTES, 33, 47, 63,
                                       SLUICE_SECRET_MAX_BYTES };
    static const size_t large[] = { 4096, 65536 + 7, LARGE };
    for (size_t k = 0; k < sizeof key_lens / sizeof key_lens[0]; k++) {
        uint8_t raw[SLUICE_SECRET_MAX_BYTES];
        randombytes_buf(raw, key_lens[k]);
        char line[256];
        line_of(line, sizeof line, "k", raw, key_lens[k]);
        sluice_secret *key = NULL;
        assert_int_equal(parse(line, &key, NULL, NULL), SLUICE_OK);
        for (size_t i = 0; i <= 300 + sizeof large / sizeof large[0]; i++) {
            size_t n = i <= 300 ? i : large[i - 301];
            uint8_t mac[32], want[32];
            crypto_auth_hmacsha256_state h;
            crypto_auth_hmacsha256_init(&h, raw, key_lens[k]);
            crypto_auth_hmacsha256_update(&h, data, n);
            crypto_auth_hmacsha256_final(&h, want);
            sluice_secret_mac(key, data, n, mac);
            if (memcmp(mac, want, sizeof want) != 0)
                fail_msg("MAC of %zu bytes with a %zu-byte key differs from libsodium's", n,
                         key_lens[k]);
            assert_true(sluice_secret_mac_verify(key, data, n, want));
        }
        sluice_secret_free(key);
    }
    free(data);
}

static void test_secret_ring_rejects_duplicate_ids(void **state)
{
    (void)state;
    char a[256], b[256];
    line_with(a, sizeof a, "same", 32, 1);
    line_with(b, sizeof b, "same", 32, 2);
    sluice_secret *ka = NULL, *kb = NULL;
    assert_int_equal(parse(a, &ka, NULL, NULL), SLUICE_OK);
    assert_int_equal(parse(b, &kb, NULL, NULL), SLUICE_OK);
    sluice_secret_ring *ring = NULL;
    assert_int_equal(sluice_secret_ring_new(ka, &ring), SLUICE_OK);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    assert_int_equal(sluice_secret_ring_add_previous(ring, kb, arena, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "two token keys have the id 'same'"));
    assert_ptr_equal(sluice_secret_ring_find(ring, "same", 4), ka);
    assert_null(sluice_secret_ring_find(ring, "sam", 3));
    sluice_secret_ring_free(ring);
    sluice_arena_free(arena);
}

static void test_secret_ring_load_from_config(void **state)
{
    (void)state;
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/current", dir);
    line_with(line, sizeof line, "cur", 32, 4);
    write_file(path, line, 0600);
    line_with(line, sizeof line, "old", 32, 5);
    setenv("SLUICE_TEST_OLD", line, 1);
    sluice_arena *arena = sluice_arena_new();
    sluice_secret_ring *ring = NULL;
    sluice_error err;
    assert_int_equal(
        sluice_secret_ring_load(path, NULL, NULL, "SLUICE_TEST_OLD", &ring, arena, &err),
        SLUICE_OK);
    assert_string_equal(sluice_secret_key_id(sluice_secret_ring_current(ring)), "cur");
    assert_non_null(sluice_secret_ring_find(ring, "old", 3));
    sluice_secret_ring_free(ring);
    assert_int_equal(sluice_secret_ring_load(NULL, NULL, NULL, NULL, &ring, arena, &err),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "token_secret_file or token_secret_env is required"));
    assert_int_equal(
        sluice_secret_ring_load(path, "SLUICE_TEST_OLD", NULL, NULL, &ring, arena, &err),
        SLUICE_E_CONFIG);
    unsetenv("SLUICE_TEST_OLD");
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_accepts_generated_key),
        cmocka_unit_test(test_secret_short_key_refused),
        cmocka_unit_test(test_secret_malformed_lines_refused),
        cmocka_unit_test(test_secret_parse_wipes_its_input),
        cmocka_unit_test(test_secret_file_permissions),
        cmocka_unit_test(test_secret_env_var),
        cmocka_unit_test(test_secret_mac_is_hmac_sha256),
        cmocka_unit_test(test_secret_mac_repeats_from_the_keyed_state),
        cmocka_unit_test(test_secret_mac_matches_libsodium_at_every_length),
        cmocka_unit_test(test_secret_ring_rejects_duplicate_ids),
        cmocka_unit_test(test_secret_ring_load_from_config),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
