/*
 * test_hash_memo.c — a memo answers exactly SHA-256 of the bytes it is given: the same bytes split
 * any way, a prefix or an extension of what it holds, inputs taking turns, inputs at and past
 * its capacity, and empty parts; and a prefix memo's state, finished after any suffix, is the
 * SHA-256 of the prefix and suffix together, under the same changes.
 */
#include "core/hash_memo.h"
#include "unit.h"

#include <string.h>

/* Asserts the memo's hash of parts equals the one-shot hash of text[0..len) (their bytes). */
static void same_as_sha256(
    sluice_hash_memo *memo, const sluice_hash_part *parts, size_t n, const char *text, size_t len)
{
    uint8_t want[SLUICE_HASH_BYTES], got[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, len, want);
    sluice_hash_memo_sha256(memo, parts, n, got);
    assert_memory_equal(got, want, SLUICE_HASH_BYTES);
}

static void test_every_split_prefix_and_extension(void **state)
{
    (void)state;
    static sluice_hash_memo memo;
    const char *text = "language\0default\0schema-version\0route";
    size_t len = 38;
    for (int round = 0; round < 2; round++) /* a miss, then (the same bytes) a hit */
        for (size_t cut = 0; cut <= len; cut++) {
            sluice_hash_part two[2] = { { text, cut }, { text + cut, len - cut } };
            same_as_sha256(&memo, two, 2, text, len);
            sluice_hash_part prefix = { text, cut }; /* never the longer input's hash */
            same_as_sha256(&memo, &prefix, 1, text, cut);
            sluice_hash_part three[3] = { { text, cut }, { "", 0 }, { text + cut, len - cut } };
            same_as_sha256(&memo, three, 3, text, len);
            sluice_hash_part longer[2] = { { text, len }, { "x", 1 } };
            char ext[40];
            memcpy(ext, text, len);
            ext[len] = 'x';
            same_as_sha256(&memo, longer, 2, ext, len + 1);
        }
}

static void test_inputs_taking_turns_and_one_byte_apart(void **state)
{
    (void)state;
    static sluice_hash_memo memo;
    char a[64], b[64];
    memset(a, 'a', sizeof a);
    memcpy(b, a, sizeof b);
    for (size_t at = 0; at < sizeof b; at++) {
        b[at] = 'b';
        sluice_hash_part pa = { a, sizeof a }, pb = { b, sizeof b };
        same_as_sha256(&memo, &pa, 1, a, sizeof a);
        same_as_sha256(&memo, &pb, 1, b, sizeof b);
        same_as_sha256(&memo, &pb, 1, b, sizeof b);
        b[at] = 'a';
    }
}

static void test_capacity_and_past_it(void **state)
{
    (void)state;
    static sluice_hash_memo memo;
    static char big[SLUICE_HASH_MEMO_BYTES + 2];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    for (size_t len = SLUICE_HASH_MEMO_BYTES - 1; len <= sizeof big; len++)
        for (int round = 0; round < 2; round++) {
            sluice_hash_part halves[2] = { { big, len / 2 }, { big + len / 2, len - len / 2 } };
            same_as_sha256(&memo, halves, 2, big, len);
            big[0] ^= 1; /* the next round's bytes differ in their first byte */
            sluice_hash_part whole = { big, len };
            same_as_sha256(&memo, &whole, 1, big, len);
            big[0] ^= 1;
        }
    sluice_hash_part none = { NULL, 0 };
    same_as_sha256(&memo, &none, 1, "", 0);
    same_as_sha256(&memo, NULL, 0, "", 0);
}

/* Asserts that the prefix memo's state for parts, fed suffix and finished, is the one-shot hash
 * of text[0..len) (the parts' bytes and then the suffix's). */
static void prefix_same_as_sha256(sluice_hash_prefix_memo *memo,
                                  const sluice_hash_part *parts,
                                  size_t n,
                                  const char *suffix,
                                  const char *text,
                                  size_t len)
{
    uint8_t want[SLUICE_HASH_BYTES], got[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, len, want);
    sluice_hash_state h;
    sluice_hash_prefix_memo_start(memo, parts, n, &h);
    sluice_hash_update(&h, suffix, strlen(suffix));
    sluice_hash_finish(&h, got);
    assert_memory_equal(got, want, SLUICE_HASH_BYTES);
}

static void test_prefix_state_with_any_suffix(void **state)
{
    (void)state;
    static sluice_hash_prefix_memo memo;
    static char text[SLUICE_HASH_MEMO_BYTES + 80];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + i % 23);
    static const size_t lens[] = {
        0, 1, 55, 63, 64, 65, 70, 128, 200, SLUICE_HASH_MEMO_BYTES, SLUICE_HASH_MEMO_BYTES + 1
    };
    static const char *const suffixes[] = { "", "x",
                                            "a suffix of more than one block's worth of "
                                            "bytes, so that the state goes on compressing" };
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
        for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++)
            for (int round = 0; round < 3; round++) { /* a miss, a hit, a change at the end */
                size_t len = lens[l], sl = strlen(suffixes[k]);
                if (round == 2 && len > 0)
                    text[len - 1] ^= 1;
                char whole[sizeof text + 128];
                memcpy(whole, text, len);
                memcpy(whole + len, suffixes[k], sl);
                sluice_hash_part halves[2] = { { text, len / 2 },
                                               { text + len / 2, len - len / 2 } };
                prefix_same_as_sha256(&memo, halves, 2, suffixes[k], whole, len + sl);
                if (round == 2 && len > 0)
                    text[len - 1] ^= 1;
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_split_prefix_and_extension),
        cmocka_unit_test(test_inputs_taking_turns_and_one_byte_apart),
        cmocka_unit_test(test_capacity_and_past_it),
        cmocka_unit_test(test_prefix_state_with_any_suffix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
