/*
 * test_json_write.c — the MCP wire writer against jansson's own json_dumps(JSON_COMPACT |
 * JSON_ENCODE_ANY), byte for byte, over hand-picked and generated values; and its refusals
 * (invalid UTF-8, a cycle, a size limit) where json_dumps would fail or loop; and splices
 * (core/json_splice.h): written as their text, refused by json_dumps, never a partial answer when
 * an allocation fails (a sweep over an execute answer, from its rows text to the wire); and
 * sluice_json_string against json_string.
 */
#include "codemode/present.h"
#include "core/json_splice.h"
#include "core/json_write.h"
#include "core/utf8.h"
#include "oom_sweep.h"
#include "surface/tool_result.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Asserts that our text of v equals json_dumps', and returns nothing. */
static void same_as_jansson(const json_t *v)
{
    char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = 0;
    char *got = sluice_json_write_text(v, &len);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(got, want, len);
    free(want);
    free(got);
}

static void test_scalars_and_containers(void **state)
{
    (void)state;
    const char *texts[] = {
        "null",
        "true",
        "false",
        "0",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "1.5",
        "-0.0",
        "1e300",
        "2.5e-300",
        "0.1",
        "123456789012.0",
        "\"\"",
        "[]",
        "{}",
        "[1,[2,[3,{}]],{\"a\":[]}]",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\","
        "\"text\":\"hello\"}],\"isError\":false}}",
        "{\"z\":1,\"a\":2,\"m\":{\"y\":null,\"b\":[true,false]}}", /* insertion order kept */
        "\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r bs \\b ff \\f\"",
        "\"\\u0001\\u001f\\u007f \\u00e9 \\u2028 \\ud83d\\ude00 \\u4e2d\"",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t e;
        json_t *v = json_loads(texts[i], JSON_DECODE_ANY, &e);
        assert_non_null(v);
        same_as_jansson(v);
        json_decref(v);
    }
}

static void test_strings_with_every_control_byte_and_nul(void **state)
{
    (void)state;
    char bytes[64];
    for (int c = 0; c < 32; c++) {
        bytes[0] = 'x';
        bytes[1] = (char)c;
        bytes[2] = 'y';
        json_t *s = json_stringn(bytes, 3); /* c == 0: an embedded NUL */
        assert_non_null(s);
        same_as_jansson(s);
        json_t *o = json_object();
        json_object_setn_new(o, bytes, 3, json_true()); /* the same as a key */
        same_as_jansson(o);
        json_decref(o);
        json_decref(s);
    }
}

/* Strings are scanned eight bytes at a time: every byte that needs care (an escape, a control
 * byte, a multi-byte or an invalid UTF-8 sequence), at every place of a 24-byte string and at
 * every length up to 24, is found wherever it falls in a word. */
static void test_special_bytes_at_every_place(void **state)
{
    (void)state;
    static const char *const specials[] = {
        "\"", "\\",   "\x01", "\x1f", "\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        " ",  "\x7f", "/"
    };
    static const char *const invalid[] = { "\xff", "\x80", "\xc3", "\xed\xa0\x80" };
    char text[40];
    for (size_t len = 0; len <= 24; len++)
        for (size_t at = 0; at <= len; at++) {
            for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
                size_t n = strlen(specials[k]);
                memset(text, 'a', len);
                memcpy(text + at, specials[k], n);
                memset(text + at + n, 'b', len - at);
                json_t *v = json_stringn(text, len + n);
                assert_non_null(v);
                same_as_jansson(v);
                json_decref(v);
            }
            for (size_t k = 0; k < sizeof invalid / sizeof invalid[0]; k++) {
                if (at == 0 && k == 0 && len > 0)
                    continue; /* 0xFF and more: a splice placeholder (core/json_splice.h) */
                size_t n = strlen(invalid[k]);
                memset(text, 'a', len);
                memcpy(text + at, invalid[k], n);
                memset(text + at + n, 'b', len - at);
                json_t *v = json_stringn_nocheck(text, len + n);
                assert_null(sluice_json_write_text(v, NULL));
                json_decref(v);
            }
        }
}

/* Two bytes that need care at every pair of places in 20 bytes: the writer goes straight to the
 * first of a word's such bytes, and a borrow from it may mark the lanes above (the second must
 * still be found, and nothing between them escaped). */
static void test_two_special_bytes_at_every_pair_of_places(void **state)
{
    (void)state;
    static const char specials[] = { '"', '\\', '\x01', '\x1f', '\n', '\0', '\x7f', ' ', '!' };
    char text[20];
    for (size_t a = 0; a < sizeof text; a++)
        for (size_t b = a + 1; b < sizeof text; b++)
            for (size_t k = 0; k < sizeof specials; k++)
                for (size_t m = 0; m < sizeof specials; m++) {
                    memset(text, 'a', sizeof text);
                    text[a] = specials[k];
                    text[b] = specials[m];
                    json_t *v = json_stringn(text, sizeof text);
                    assert_non_null(v);
                    same_as_jansson(v);
                    json_decref(v);
                }
}

/* Deterministic pseudo-random trees (xorshift), so a failure reproduces. */
static unsigned long long rng = 88172645463325252ull;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)rng;
}

static json_t *random_string(void)
{
    static const unsigned cps[] = { 'a',   '"',   '\\',   '/',     '\n',     0x1b, 0x7f, 0xe9,
                                    0x7ff, 0x800, 0xfffd, 0x10000, 0x10ffff, ' ',  '0',  0 };
    char text[128];
    size_t len = 0, n = next_rand() % 12;
    for (size_t i = 0; i < n; i++)
        len += sluice_utf8_encode(cps[next_rand() % (sizeof cps / sizeof cps[0])], text + len);
    return json_stringn(text, len);
}

static json_t *random_value(int depth)
{
    switch (next_rand() % (depth > 4 ? 5 : 7)) {
    case 0:
        return json_integer((json_int_t)next_rand() - (json_int_t)next_rand());
    case 1:
        return json_real((double)next_rand() / ((double)(next_rand() % 1000) + 1.0));
    case 2:
        return random_string();
    case 3:
        return next_rand() % 2 ? json_true() : json_null();
    case 4:
        return json_false();
    case 5: {
        json_t *a = json_array();
        for (unsigned i = next_rand() % 5; i > 0; i--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (unsigned i = next_rand() % 5; i > 0; i--) {
            json_t *key = random_string();
            json_object_setn_new(o, json_string_value(key), json_string_length(key),
                                 random_value(depth + 1));
            json_decref(key);
        }
        return o;
    }
    }
}

static void test_generated_trees(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        json_t *v = random_value(0);
        assert_non_null(v);
        same_as_jansson(v);
        json_decref(v);
    }
}

/* Writes v through sluice_json_out as a record writer would, value by value; false when v holds
 * a string with a NUL (sluice_json_out takes C strings). A key goes as its escaped text, which
 * sluice_json_out_keyn takes as given. */
static bool replay(sluice_json_out *out, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        sluice_json_out_open(out, '{');
        json_t *o = (json_t *)v; /* jansson's iterator API is not const-correct */
        for (void *it = json_object_iter(o); it != NULL; it = json_object_iter_next(o, it)) {
            json_t *member = json_object_iter_value(it);
            json_t *k = json_stringn(json_object_iter_key(it), json_object_iter_key_len(it));
            char *quoted = sluice_json_write_text(k, NULL);
            json_decref(k);
            assert_non_null(quoted);
            size_t n = strlen(quoted) + 3;
            char *text = malloc(n);
            assert_non_null(text);
            snprintf(text, n, ",%s:", quoted);
            sluice_json_out_keyn(out, text, strlen(text));
            free(text);
            free(quoted);
            if (!replay(out, member))
                return false;
        }
        sluice_json_out_close(out, '}');
        return true;
    }
    case JSON_ARRAY: {
        sluice_json_out_open(out, '[');
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!replay(out, json_array_get(v, i)))
                return false;
        sluice_json_out_close(out, ']');
        return true;
    }
    case JSON_STRING:
        if (strlen(json_string_value(v)) != json_string_length(v))
            return false;
        sluice_json_out_string(out, json_string_value(v));
        return true;
    case JSON_INTEGER:
        sluice_json_out_integer(out, json_integer_value(v));
        return true;
    case JSON_REAL:
        sluice_json_out_real(out, json_real_value(v));
        return true;
    case JSON_TRUE:
    case JSON_FALSE:
        sluice_json_out_bool(out, json_is_true(v));
        return true;
    case JSON_NULL:
        sluice_json_out_null(out);
        return true;
    }
    return false;
}

/* Text written value by value (a record written from its fields) is json_dumps' text of the tree
 * those values make: separators, escapes, numbers. */
static void test_out_writes_what_json_dumps_writes(void **state)
{
    (void)state;
    size_t compared = 0;
    for (int i = 0; i < 2000; i++) {
        json_t *v = random_value(0);
        assert_non_null(v);
        sluice_buf buf;
        sluice_buf_init(&buf, NULL, 0);
        sluice_json_out out = { .buf = &buf };
        if (replay(&out, v)) {
            char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            assert_non_null(want);
            assert_int_equal(sluice_json_out_status(&out), SLUICE_OK);
            assert_int_equal(buf.len, strlen(want));
            assert_memory_equal(buf.data, want, buf.len);
            free(want);
            compared++;
        }
        sluice_buf_dispose(&buf);
        json_decref(v);
    }
    assert_true(compared > 1000);
}

/* A tree's value among values written one by one (a record holding a tree made elsewhere) is
 * json_dumps' text of it there; NULL and a splice placeholder, which json_dumps refuses, mark
 * the text bad. */
static void test_out_value_writes_a_tree_as_json_dumps(void **state)
{
    (void)state;
    for (int i = 0; i < 500; i++) {
        json_t *v = random_value(0);
        assert_non_null(v);
        json_t *whole = json_pack("{s:i, s:O, s:b}", "a", i, "v", v, "z", i % 2);
        assert_non_null(whole);
        char *want = json_dumps(whole, JSON_COMPACT);
        sluice_buf buf;
        sluice_buf_init(&buf, NULL, 0);
        sluice_json_out out = { .buf = &buf };
        sluice_json_out_open(&out, '{');
        sluice_json_out_key(&out, "a");
        sluice_json_out_integer(&out, i);
        sluice_json_out_key(&out, "v");
        sluice_json_out_value(&out, v);
        sluice_json_out_key(&out, "z");
        sluice_json_out_bool(&out, i % 2);
        sluice_json_out_close(&out, '}');
        assert_non_null(want);
        assert_int_equal(sluice_json_out_status(&out), SLUICE_OK);
        assert_string_equal(buf.data, want);
        free(want);
        sluice_buf_dispose(&buf);
        json_decref(whole);
        json_decref(v);
    }
    json_t *splice = sluice_json_splice_new("[1]", 3);
    const json_t *refused[] = { NULL, splice };
    for (size_t i = 0; i < 2; i++) {
        sluice_buf buf;
        sluice_buf_init(&buf, NULL, 0);
        sluice_json_out out = { .buf = &buf };
        sluice_json_out_open(&out, '[');
        sluice_json_out_value(&out, refused[i]);
        sluice_json_out_close(&out, ']');
        assert_int_equal(sluice_json_out_status(&out), SLUICE_E_INVALID);
        sluice_buf_dispose(&buf);
    }
    json_decref(splice);
}

/* A real as jansson writes it ("%.17g", ".0" after an integral value, the exponent without '+'
 * or leading zeros), over hand-picked values and doubles of every exponent (random bits). */
static void test_reals_are_written_as_jansson_writes_them(void **state)
{
    (void)state;
    static const double picked[] = { 0.0,
                                     -0.0,
                                     1.0,
                                     -1.0,
                                     0.1,
                                     1e15,
                                     1e16,
                                     1e17,
                                     1e21,
                                     1e22,
                                     1e-5,
                                     1e-7,
                                     1.5e300,
                                     5e-324,
                                     3.25,
                                     2e100,
                                     1e-100,
                                     123456.0,
                                     4.9e-308,
                                     1.7976931348623157e308,
                                     99999999999999984.0,
                                     1e17 - 16,
                                     -1e17 + 16,
                                     9007199254740993.0,
                                     -42.0,
                                     1e16 + 2,
                                     12345678901234567.0 };
    for (size_t i = 0; i < 20000; i++) {
        double d;
        if (i < sizeof picked / sizeof picked[0]) {
            d = picked[i];
        } else {
            unsigned long long bits = ((unsigned long long)next_rand() << 32) | next_rand();
            memcpy(&d, &bits, sizeof d);
            if (!isfinite(d))
                continue;
            if (i % 2 == 0) /* whole numbers of every size: the fast path's and past it */
                d = (double)(long long)(bits >> (bits % 64)) * (bits % 3 == 0 ? -1 : 1);
        }
        json_t *r = json_real(d);
        assert_non_null(r);
        char *want = json_dumps(r, JSON_COMPACT | JSON_ENCODE_ANY);
        assert_non_null(want);
        sluice_buf buf;
        sluice_buf_init(&buf, NULL, 0);
        sluice_json_out out = { .buf = &buf };
        sluice_json_out_real(&out, d);
        assert_int_equal(sluice_json_out_status(&out), SLUICE_OK);
        assert_string_equal(buf.data, want);
        sluice_buf_dispose(&buf);
        free(want);
        json_decref(r);
    }
}

/* What json_string or json_real would not make is refused: the text is bad, whatever follows. */
static void test_out_refuses_what_jansson_would_not_make(void **state)
{
    (void)state;
    const char *bad_utf8 = "ab\xc3(";
    for (int c = 0; c < 4; c++) {
        sluice_buf buf;
        sluice_buf_init(&buf, NULL, 0);
        sluice_json_out out = { .buf = &buf };
        sluice_json_out_open(&out, '{');
        sluice_json_out_key(&out, "k");
        if (c == 0)
            sluice_json_out_string(&out, NULL);
        else if (c == 1)
            sluice_json_out_string(&out, bad_utf8);
        else
            sluice_json_out_real(&out, c == 2 ? NAN : INFINITY);
        sluice_json_out_key(&out, "after");
        sluice_json_out_string(&out, "fine");
        sluice_json_out_close(&out, '}');
        assert_int_equal(sluice_json_out_status(&out), SLUICE_E_INVALID);
        sluice_buf_dispose(&buf);
    }
    /* and a good record reads as one */
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    sluice_json_out out = { .buf = &buf };
    sluice_json_out_open(&out, '{');
    sluice_json_out_key(&out, "a");
    sluice_json_out_open(&out, '[');
    sluice_json_out_string(&out, "x\"y");
    sluice_json_out_integer(&out, -3);
    sluice_json_out_open(&out, '{');
    sluice_json_out_close(&out, '}');
    sluice_json_out_close(&out, ']');
    sluice_json_out_key(&out, "b");
    sluice_json_out_null(&out);
    sluice_json_out_close(&out, '}');
    assert_int_equal(sluice_json_out_status(&out), SLUICE_OK);
    assert_string_equal(buf.data, "{\"a\":[\"x\\\"y\",-3,{}],\"b\":null}");
    sluice_buf_dispose(&buf);
}

/* A consumer that must read inside the answer expands its splices: the same answer as a tree,
 * every placeholder the tree its text parses to, which json_dumps then writes as the wire did. */
static void test_splices_expand_to_their_trees(void **state)
{
    (void)state;
    const char *meta = "{\"z\":1.5,\"a\":[\"\xc3\xa9\"]}"; /* as sluice's writer writes it */
    json_t *v =
        json_pack("{s:o, s:[o, i], s:s}", "meta", sluice_json_splice_new(meta, strlen(meta)),
                  "list", sluice_json_splice_new("[]", 2), 7, "s", "plain");
    assert_non_null(v);
    json_t *plain = sluice_json_splice_expand(v);
    assert_non_null(plain);
    char *dumped = json_dumps(plain, JSON_COMPACT);
    char *wire = sluice_json_write_text(v, NULL);
    assert_non_null(dumped);
    assert_non_null(wire);
    assert_string_equal(dumped, wire);
    assert_string_equal(dumped, "{\"meta\":{\"z\":1.5,\"a\":[\"\xc3\xa9\"]},\"list\":[[],7],"
                                "\"s\":\"plain\"}");
    free(dumped);
    free(wire);
    json_decref(plain);
    json_t *broken = json_pack("{s:o}", "m", sluice_json_splice_new("{", 1));
    assert_null(sluice_json_splice_expand(broken)); /* never a tree missing what the wire holds */
    json_decref(broken);
    json_decref(v);
}

static void test_invalid_utf8_is_refused(void **state)
{
    (void)state;
    /* "\xff" alone: a placeholder is 0xFF and at least one byte of JSON (core/json_splice.h) */
    const char *bad[] = { "\xff", "a\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\x80" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *s = json_stringn_nocheck(bad[i], strlen(bad[i]));
        size_t len = 12345;
        assert_null(sluice_json_write_text(s, &len));
        assert_int_equal(len, 12345);                /* untouched on failure */
        assert_null(json_dumps(s, JSON_ENCODE_ANY)); /* jansson refuses it too */
        json_decref(s);
    }
}

/* sluice_json_string is json_string: the same value, or NULL where jansson refuses, with any byte
 * (ASCII, control, valid and invalid UTF-8) at any place around the word boundaries. */
static void test_json_string_is_jansson_json_string(void **state)
{
    (void)state;
    static const char *const bytes[] = { "\x01", "\x7f", "\"",   "\xc3\xa9",     "\xf0\x9f\x98\x80",
                                         "\x80", "\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf" };
    char text[40];
    assert_null(sluice_json_string(NULL));
    for (size_t len = 0; len <= 24; len++)
        for (size_t at = 0; at <= len; at++)
            for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++) {
                size_t n = strlen(bytes[k]);
                memset(text, 'a', len);
                memcpy(text + at, bytes[k], n);
                memset(text + at + n, 'b', len - at);
                text[len + n] = '\0';
                json_t *want = json_string(text);
                json_t *got = sluice_json_string(text);
                if (want == NULL) {
                    assert_null(got);
                    continue;
                }
                assert_non_null(got);
                assert_int_equal(json_string_length(got), len + n);
                assert_memory_equal(json_string_value(got), text, len + n + 1);
                json_decref(want);
                json_decref(got);
            }
}

static void test_cycle_and_limit_are_refused(void **state)
{
    (void)state;
    json_t *outer = json_array();
    json_t *inner = json_array();
    json_array_append(outer, inner);
    json_array_append(inner, outer); /* outer -> inner -> outer -> ... */
    assert_null(sluice_json_write_text(outer, NULL));
    json_array_clear(inner); /* break the cycle so both can be freed */
    json_decref(inner);
    json_decref(outer);

    json_t *v = json_pack("{s:s}", "text", "0123456789");
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 8);
    assert_int_equal(sluice_json_write(&buf, v), SLUICE_E_LIMIT);
    sluice_buf_dispose(&buf);
    json_decref(v);
}

static void assert_written(const json_t *v, const char *want)
{
    size_t len = 0;
    char *got = sluice_json_write_text(v, &len);
    assert_non_null(got);
    assert_int_equal(len, strlen(want));
    assert_string_equal(got, want);
    free(got);
}

static void test_splices_are_written_as_their_text(void **state)
{
    (void)state;
    json_t *v = json_pack("{s:o, s:[o, o, o], s:s}", "a", sluice_json_splice_new("[1,2.5]", 7), "b",
                          sluice_json_splice_lines("[1]\n[\"x\\ny\"]\n", 13),
                          sluice_json_splice_lines("", 0), sluice_json_splice_lines("[3]", 3), "e",
                          "after");
    assert_non_null(v);
    assert_written(v, "{\"a\":[1,2.5],\"b\":[[[1],[\"x\\ny\"]],[],[[3]]],\"e\":\"after\"}");
    /* whatever forwards the answer moves the placeholder with it: copies still splice */
    json_t *copy = json_deep_copy(v);
    assert_written(copy, "{\"a\":[1,2.5],\"b\":[[[1],[\"x\\ny\"]],[],[[3]]],\"e\":\"after\"}");
    json_t *nested = json_pack("{s:{s:O}}", "structuredContent", "result", v);
    assert_written(nested, "{\"structuredContent\":{\"result\":{\"a\":[1,2.5],\"b\":[[[1],[\"x\\n"
                           "y\"]],[],[[3]]],\"e\":\"after\"}}}");
    /* any other serializer refuses the placeholder rather than sending it */
    assert_null(json_dumps(v, JSON_COMPACT));
    json_decref(nested);
    json_decref(copy);
    json_decref(v);
    /* data cannot pass for a placeholder: jansson takes no such string from text or bytes */
    assert_null(json_stringn("\xff[1]", 4));
    json_t *parsed = json_loads("\"\\u00ff[1]\"", JSON_DECODE_ANY, NULL); /* "ÿ[1]", UTF-8 */
    assert_non_null(parsed);
    const char *text;
    size_t len;
    assert_false(sluice_json_splice_text(parsed, &text, &len));
    assert_written(parsed, "\"\xc3\xbf[1]\"");
    json_decref(parsed);
}

/* A placeholder that borrows its text is written as that text as it is when written, like one
 * that holds it; refused wherever the other is. */
static void test_borrowed_splices_are_written_as_their_text(void **state)
{
    (void)state;
    char text[] = "{\"k\":[1,\"\xc3\xa9\"]}";
    json_t *v = json_pack("{s:o, s:i}", "m", sluice_json_splice_borrow(text, strlen(text)), "n", 2);
    assert_non_null(v);
    assert_written(v, "{\"m\":{\"k\":[1,\"\xc3\xa9\"]},\"n\":2}");
    json_t *copy = json_deep_copy(v); /* the copy borrows the same text */
    assert_written(copy, "{\"m\":{\"k\":[1,\"\xc3\xa9\"]},\"n\":2}");
    const char *got;
    size_t len;
    assert_true(sluice_json_splice_text(json_object_get(copy, "m"), &got, &len));
    assert_ptr_equal(got, text);
    assert_int_equal(len, strlen(text));
    json_t *plain = sluice_json_splice_expand(v);
    assert_non_null(plain);
    char *dumped = json_dumps(plain, JSON_COMPACT);
    assert_string_equal(dumped, "{\"m\":{\"k\":[1,\"\xc3\xa9\"]},\"n\":2}");
    free(dumped);
    json_decref(plain);
    assert_null(json_dumps(v, JSON_COMPACT));
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    assert_int_equal(sluice_json_write_member(&buf, "m", 1, json_object_get(v, "m")),
                     SLUICE_E_INVALID); /* the audit record's text is json_dumps' own */
    sluice_buf_dispose(&buf);
    json_decref(copy);
    json_decref(v);
    assert_null(sluice_json_splice_borrow(text, 0)); /* a placeholder is one whole value */
    /* data cannot pass for one: jansson takes no string starting 0xFE from text or bytes */
    assert_null(json_stringn("\xfe\x01\x02\x03\x04\x05\x06\x07\x08\x01\0\0\0\0\0\0\0", 17));
}

/* A tool answering with structuredContent only gets its JSON as the text block: written by the
 * MCP writer, so a splice inside reads as its text there too (json_dumps would refuse it and the
 * block would be empty). */
static void test_structured_only_answer_text_holds_the_splice(void **state)
{
    (void)state;
    json_t *structured = json_pack("{s:o}", "rows", sluice_json_splice_lines("[1]\n[2]\n", 8));
    assert_non_null(structured);
    json_t *r = sluice_surface_tool_result(structured, NULL);
    assert_non_null(r);
    const char *text = json_string_value(
        json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
    assert_non_null(text);
    assert_string_equal(text, "{\"rows\":[[1],[2]]}");
    assert_written(r, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"rows\\\":[[1],[2]]}\"}],"
                      "\"structuredContent\":{\"rows\":[[1],[2]]}}");
    json_decref(r);
}

/* An execute answer as surface/tools.c makes it: rows text -> spliced result -> wire text. */
typedef struct splice_case {
    const sluice_exec_result *result;
    const char *want;
} splice_case;

static oom_outcome splice_answer(void *ctx)
{
    const splice_case *c = ctx;
    json_t *structured = sluice_present_result_spliced(c->result);
    json_t *answer = structured != NULL
                         ? json_pack("{s:[{s:s, s:s}], s:o}", "content", "type", "text", "text",
                                     "rows", "structuredContent", structured)
                         : NULL;
    char *text = answer != NULL ? sluice_json_write_text(answer, NULL) : NULL;
    json_decref(answer);
    oom_outcome o = text == NULL                 ? OOM_FAILED
                    : strcmp(text, c->want) == 0 ? OOM_ALLOWED
                                                 : OOM_WRONG;
    free(text);
    return o;
}

static void test_splice_sweep_never_sends_a_partial_answer(void **state)
{
    (void)state;
    sluice_exec_column cols[] = { { "id", "INTEGER" }, { "amount", "DOUBLE" } };
    sluice_exec_result r = { .columns = cols,
                             .column_count = 2,
                             .rows_text = "[1,8943927.12]\n[2,\"NaN\"]\n",
                             .row_count = 2,
                             .elapsed_ms = 3 };
    splice_case c = {
        &r,
        "{\"content\":[{\"type\":\"text\",\"text\":\"rows\"}],\"structuredContent\":{\"columns\":"
        "[{\"name\":\"id\",\"type\":\"INTEGER\"},{\"name\":\"amount\",\"type\":\"DOUBLE\"}],"
        "\"rows\":[[1,8943927.12],[2,\"NaN\"]],\"row_count\":2,\"truncated\":false,"
        "\"elapsed_ms\":3}}",
    };
    oom_count_jansson();
    long points =
        oom_sweep("splice answer", splice_answer, &c, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    json_set_alloc_funcs(malloc, free);
    assert_true(points > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars_and_containers),
        cmocka_unit_test(test_strings_with_every_control_byte_and_nul),
        cmocka_unit_test(test_special_bytes_at_every_place),
        cmocka_unit_test(test_two_special_bytes_at_every_pair_of_places),
        cmocka_unit_test(test_generated_trees),
        cmocka_unit_test(test_out_writes_what_json_dumps_writes),
        cmocka_unit_test(test_out_value_writes_a_tree_as_json_dumps),
        cmocka_unit_test(test_reals_are_written_as_jansson_writes_them),
        cmocka_unit_test(test_out_refuses_what_jansson_would_not_make),
        cmocka_unit_test(test_splices_expand_to_their_trees),
        cmocka_unit_test(test_invalid_utf8_is_refused),
        cmocka_unit_test(test_json_string_is_jansson_json_string),
        cmocka_unit_test(test_cycle_and_limit_are_refused),
        cmocka_unit_test(test_splices_are_written_as_their_text),
        cmocka_unit_test(test_borrowed_splices_are_written_as_their_text),
        cmocka_unit_test(test_structured_only_answer_text_holds_the_splice),
        cmocka_unit_test(test_splice_sweep_never_sends_a_partial_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
