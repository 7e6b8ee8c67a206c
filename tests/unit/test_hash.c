/*
 * test_hash.c — SHA-256 against published vectors, streaming = one-shot, HMAC-SHA256 against
 * libsodium's for keys of every kind of length, hex and base64url round trips, and the strict
 * decoders refusing every non-canonical spelling.
 */
#include "core/hash.h"
#include "unit.h"

#include <sodium.h>
#include <string.h>

static void hex_of(const char *data, size_t len, char *out)
{
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(data, len, h);
    sluice_hash_hex(h, sizeof h, out);
}

static void test_hash_sha256_vectors(void **state)
{
    (void)state;
    char hex[SLUICE_HASH_HEX_CHARS + 1];
    hex_of("abc", 3, hex); /* FIPS 180-2 B.1 */
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    hex_of(NULL, 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_hash_streaming_equals_one_shot(void **state)
{
    (void)state;
    const char *text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    uint8_t one[SLUICE_HASH_BYTES], streamed[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, strlen(text), one);
    sluice_hash_state st;
    sluice_hash_start(&st);
    sluice_hash_update(&st, text, 10);
    sluice_hash_update(&st, text + 10, 0);
    sluice_hash_update(&st, text + 10, strlen(text) - 10);
    sluice_hash_finish(&st, streamed);
    assert_memory_equal(one, streamed, SLUICE_HASH_BYTES);
    char hex[SLUICE_HASH_HEX_CHARS + 1];
    sluice_hash_hex(one, sizeof one, hex); /* FIPS 180-2 B.2 */
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* Checks one-shot and streaming (in two pieces at every cut, and in 1-to-7-byte pieces) against
 * libsodium's SHA-256 of the same bytes. */
static void expect_sodium_sha256(const uint8_t *data, size_t len, bool every_cut)
{
    uint8_t want[SLUICE_HASH_BYTES], got[SLUICE_HASH_BYTES];
    crypto_hash_sha256(want, data, len);
    sluice_hash_sha256(data, len, got);
    if (memcmp(got, want, sizeof want) != 0)
        fail_msg("one-shot SHA-256 of %zu bytes differs from libsodium's", len);
    sluice_hash_state st;
    for (size_t cut = every_cut ? 0 : len; cut <= len; cut++) {
        sluice_hash_start(&st);
        sluice_hash_update(&st, data, cut);
        sluice_hash_update(&st, data + cut, len - cut);
        sluice_hash_finish(&st, got);
        if (memcmp(got, want, sizeof want) != 0)
            fail_msg("SHA-256 of %zu bytes fed as %zu + %zu differs from libsodium's", len, cut,
                     len - cut);
    }
    sluice_hash_start(&st);
    for (size_t at = 0, step = 1; at < len; at += step, step = step % 7 + 1)
        sluice_hash_update(&st, data + at, step < len - at ? step : len - at);
    sluice_hash_finish(&st, got);
    if (memcmp(got, want, sizeof want) != 0)
        fail_msg("SHA-256 of %zu bytes fed in small pieces differs from libsodium's", len);
}

/* len random bytes (libsodium's), to be freed. */
static uint8_t *random_bytes(size_t len)
{
    assert_int_equal(sluice_hash_init(), SLUICE_OK);
    uint8_t *data = malloc(len);
    assert_non_null(data);
    randombytes_buf(data, len);
    return data;
}

/* The SHA-256 is libsodium's at every length 0..300 (each place the padding can fall, across
 * block edges) and for a few large inputs, so changing the library under it changes no
 * code_hash, audit chain or MAC. */
static void test_hash_sha256_matches_libsodium(void **state)
{
    (void)state;
    enum { LARGE = (1 << 20) + 13 };
    uint8_t *data = random_bytes(LARGE);
    for (size_t len = 0; len <= 300; len++)
        expect_sodium_sha256(data, len, true);
    static const size_t large[] = { 4095, 4096, 65536 + 55, LARGE };
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        expect_sodium_sha256(data, large[i], false);
    free(data);
}

/* RFC 4231 test case 2 (a key shorter than the hash) and 6 (a key longer than a block). */
static void test_hash_hmac_vectors(void **state)
{
    (void)state;
    unsigned char long_key[131];
    memset(long_key, 0xaa, sizeof long_key);
    const struct {
        const void *key;
        size_t key_len;
        const char *data, *want;
    } cases[] = {
        { "Jefe", 4, "what do ya want for nothing?",
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
        { long_key, sizeof long_key, "Test Using Larger Than Block-Size Key - Hash Key First",
          "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_hash_hmac_key h;
        uint8_t mac[SLUICE_HASH_BYTES];
        char hex[SLUICE_HASH_HEX_CHARS + 1];
        sluice_hash_hmac_init(&h, cases[i].key, cases[i].key_len);
        sluice_hash_hmac(&h, cases[i].data, strlen(cases[i].data), mac);
        sluice_hash_hex(mac, sizeof mac, hex);
        assert_string_equal(hex, cases[i].want);
    }
}

/* The token key (32-64 bytes, token/secret.c) and the caller assertion's (32 bytes or more,
 * any length: exec/caller_assertion.c) against crypto_auth_hmacsha256 at every data length to
 * 300 and at 1 MiB, one keyed state serving every MAC. */
static void test_hash_hmac_matches_libsodium(void **state)
{
    (void)state;
    enum { LARGE = (1 << 20) + 7 };
    uint8_t *data = random_bytes(LARGE);
    static const size_t key_lens[] = { 0, 1, 31, 32, 33, 63, 64, 65, 100, 128, 1000 };
    uint8_t key[1000];
    for (size_t k = 0; k < sizeof key_lens / sizeof key_lens[0]; k++) {
        randombytes_buf(key, sizeof key);
        sluice_hash_hmac_key h;
        sluice_hash_hmac_init(&h, key, key_lens[k]);
        for (size_t n = 0; n <= 301; n++) {
            size_t len = n <= 300 ? n : LARGE;
            uint8_t want[crypto_auth_hmacsha256_BYTES], got[SLUICE_HASH_BYTES];
            crypto_auth_hmacsha256_state s;
            crypto_auth_hmacsha256_init(&s, key, key_lens[k]);
            crypto_auth_hmacsha256_update(&s, data, len);
            crypto_auth_hmacsha256_final(&s, want);
            sluice_hash_hmac(&h, data, len, got);
            if (memcmp(want, got, sizeof got) != 0)
                fail_msg("key of %zu bytes, data of %zu: not libsodium's MAC", key_lens[k], len);
        }
    }
    free(data);
}

static void test_hash_unhex_is_strict(void **state)
{
    (void)state;
    uint8_t out[2] = { 0 };
    assert_int_equal(sluice_hash_unhex("aB09", 4, out, 2), SLUICE_OK);
    assert_int_equal(out[0], 0xab);
    assert_int_equal(out[1], 0x09);
    assert_int_equal(sluice_hash_unhex("ab0", 3, out, 2), SLUICE_E_INVALID);
    assert_int_equal(sluice_hash_unhex("ab0g", 4, out, 2), SLUICE_E_INVALID);
    assert_int_equal(sluice_hash_unhex("ab 0", 4, out, 2), SLUICE_E_INVALID);
    assert_int_equal(sluice_hash_unhex("ab09ff", 6, out, 2), SLUICE_E_INVALID);
    assert_int_equal(out[0], 0xab); /* untouched on failure */
}

static void test_hash_b64url_round_trip_and_strictness(void **state)
{
    (void)state;
    uint8_t bytes[5] = { 0xfb, 0xff, 0x00, 0x10, 0x7f };
    char text[SLUICE_HASH_B64URL_CHARS(5) + 1];
    for (size_t n = 0; n <= 5; n++) {
        sluice_hash_b64url_encode(bytes, n, text);
        assert_int_equal(strlen(text), SLUICE_HASH_B64URL_CHARS(n));
    }
    assert_string_equal(text, "-_8AEH8");
    uint8_t out[8];
    size_t len = 0;
    assert_int_equal(sluice_hash_b64url_decode(text, 7, out, sizeof out, &len), SLUICE_OK);
    assert_int_equal(len, 5);
    assert_memory_equal(out, bytes, 5);
    static const char *const refused[] = {
        "",           /* empty */
        "-_8AEH8=",   /* padding */
        "+/8AEH8",    /* standard alphabet */
        "-_8A EH8",   /* whitespace */
        "-_8AEH9",    /* non-zero unused bits: a second spelling of the same bytes */
        "-_8AE",      /* a lone 6-bit group cannot end the text */
        "-_8AEH\xb8", /* high bit set: libsodium 1.0.18 would read it as '8' */
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (sluice_hash_b64url_decode(refused[i], strlen(refused[i]), out, sizeof out, &len) !=
            SLUICE_E_INVALID)
            fail_msg("accepted '%s'", refused[i]);
    }
    assert_int_equal(sluice_hash_b64url_decode(text, 7, out, 4, &len), SLUICE_E_LIMIT);
}

/* The public encoder writes libsodium's characters at every length (each tail: 0, 1 and 2 bytes
 * past a group of 3) for random bytes, and for the bytes that reach each end of the alphabet. */
static void test_hash_b64url_public_matches_libsodium(void **state)
{
    (void)state;
    assert_int_equal(sluice_hash_init(), SLUICE_OK);
    enum { MAX = 200 };
    uint8_t bytes[MAX];
    char fast[SLUICE_HASH_B64URL_CHARS(MAX) + 1], slow[SLUICE_HASH_B64URL_CHARS(MAX) + 1];
    for (int round = 0; round < 4; round++) {
        if (round == 0)
            memset(bytes, 0x00, sizeof bytes);
        else if (round == 1)
            memset(bytes, 0xff, sizeof bytes);
        else
            randombytes_buf(bytes, sizeof bytes);
        for (size_t n = 0; n <= MAX; n++) {
            memset(fast, '*', sizeof fast);
            sluice_hash_b64url_encode_public(bytes, n, fast);
            sluice_hash_b64url_encode(bytes, n, slow);
            assert_int_equal(strlen(fast), SLUICE_HASH_B64URL_CHARS(n));
            assert_string_equal(fast, slow);
        }
    }
    uint8_t all[256];
    for (size_t i = 0; i < sizeof all; i++)
        all[i] = (uint8_t)i;
    char a[SLUICE_HASH_B64URL_CHARS(256) + 1], b[SLUICE_HASH_B64URL_CHARS(256) + 1];
    sluice_hash_b64url_encode_public(all, sizeof all, a);
    sluice_hash_b64url_encode(all, sizeof all, b);
    assert_string_equal(a, b);
    sluice_hash_b64url_encode_public((const uint8_t *)"\xfb\xff\x00\x10\x7f", 5, a);
    assert_string_equal(a, "-_8AEH8");
}

static void test_hash_equal(void **state)
{
    (void)state;
    assert_true(sluice_hash_equal("abcd", "abcd", 4));
    assert_false(sluice_hash_equal("abcd", "abce", 4));
    assert_true(sluice_hash_equal("x", "y", 0));
    assert_int_equal(sluice_hash_init(), SLUICE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_sha256_vectors),
        cmocka_unit_test(test_hash_streaming_equals_one_shot),
        cmocka_unit_test(test_hash_sha256_matches_libsodium),
        cmocka_unit_test(test_hash_hmac_vectors),
        cmocka_unit_test(test_hash_hmac_matches_libsodium),
        cmocka_unit_test(test_hash_unhex_is_strict),
        cmocka_unit_test(test_hash_b64url_round_trip_and_strictness),
        cmocka_unit_test(test_hash_b64url_public_matches_libsodium),
        cmocka_unit_test(test_hash_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
