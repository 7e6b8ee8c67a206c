/*
 * test_utf8.c — the shared UTF-8 helpers: every scalar value round-trips through encode and
 * decode; ill-formed sequences (overlong, surrogate, above U+10FFFF, truncated, stray
 * continuation) are refused; and the shared hex digit reader.
 */
#include "core/hash.h"
#include "core/utf8.h"
#include "unit.h"

#include <string.h>

static void test_every_scalar_value_round_trips(void **state)
{
    (void)state;
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        char out[SLUICE_UTF8_MAX_BYTES];
        size_t n = sluice_utf8_encode(cp, out);
        assert_int_equal(n, cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
        uint32_t back = 0xFFFFFFFF;
        assert_int_equal(sluice_utf8_decode(out, n, &back), n);
        assert_int_equal(back, cp);
        if (n > 1)
            assert_int_equal(sluice_utf8_decode(out, n - 1, NULL), 0); /* truncated */
    }
}

static void test_ill_formed_sequences_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {
        "\x80",             /* stray continuation */
        "\xc0\x80",         /* overlong NUL */
        "\xc1\xbf",         /* overlong */
        "\xe0\x80\xaf",     /* overlong '/' */
        "\xf0\x80\x80\xaf", /* overlong */
        "\xed\xa0\x80",     /* U+D800, a surrogate */
        "\xed\xbf\xbf",     /* U+DFFF */
        "\xf4\x90\x80\x80", /* U+110000 */
        "\xf8\x88\x80\x80", /* five-byte lead */
        "\xff",
        "\xc3\x28", /* bad continuation */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(sluice_utf8_decode(bad[i], strlen(bad[i]), NULL), 0);
    assert_int_equal(sluice_utf8_decode("", 0, NULL), 0);
}

static void test_hex_digit(void **state)
{
    (void)state;
    const char *digits = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        assert_int_equal(sluice_hex_digit((unsigned char)digits[i]), i);
        if (i >= 10)
            assert_int_equal(sluice_hex_digit((unsigned char)(digits[i] - 'a' + 'A')), i);
    }
    const char *not_hex = "gG/:@`\x00\xff x";
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(sluice_hex_digit((unsigned char)not_hex[i]), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_scalar_value_round_trips),
        cmocka_unit_test(test_ill_formed_sequences_are_refused),
        cmocka_unit_test(test_hex_digit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
