/*
 * test_toml.c — the TOML parser: values, positions, table rules, limits and error messages.
 *
 * Breadth lives in the toml-test corpus (tests/toml/) and the smol-toml differential test
 * (tests/diff/); these pin the behaviours config.c relies on and the exact error texts.
 */
#include "config/toml.h"
#include "core/limits.h"
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sluice_arena *arena;

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    return arena == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_arena_free(arena);
    sluice_arena_fail_at(0);
    return 0;
}

static const sluice_toml_value *parse_ok(const char *text)
{
    sluice_toml_value *root = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_toml_parse(arena, text, strlen(text), "t.toml", &root, &err);
    if (st != SLUICE_OK)
        fail_msg("unexpected error: %s:%zu:%zu: %s", err.source, err.line, err.column, err.message);
    assert_non_null(root);
    return root;
}

/* Parses text, expects failure with exactly this status, place and message. */
static void expect_error(
    const char *text, sluice_status status, size_t line, size_t column, const char *message)
{
    sluice_toml_value *root = (sluice_toml_value *)(uintptr_t)0x1;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_toml_parse(arena, text, strlen(text), "t.toml", &root, &err);
    assert_int_equal(st, status);
    assert_ptr_equal(root, (sluice_toml_value *)(uintptr_t)0x1); /* untouched on failure */
    assert_string_equal(err.message, message);
    assert_string_equal(err.source, "t.toml");
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, column);
}

static const sluice_toml_value *get(const sluice_toml_value *t, const char *key)
{
    const sluice_toml_value *v = sluice_toml_table_get(t, key);
    assert_non_null(v);
    return v;
}

/* ---- values ---- */

static void test_toml_parses_every_scalar_kind(void **state)
{
    (void)state;
    const sluice_toml_value *root =
        parse_ok("s = \"hi\"\ni = -42\nf = 6.5e-1\nb = true\n"
                 "odt = 1979-05-27 07:32:00.5z\nldt = 1979-05-27T07:32:00\n"
                 "ld = 1979-05-27\nlt = 07:32:00.123456\n");
    size_t len;
    assert_string_equal(sluice_toml_string(get(root, "s"), &len), "hi");
    assert_int_equal(len, 2);
    assert_int_equal(sluice_toml_integer(get(root, "i")), -42);
    assert_true(sluice_toml_float(get(root, "f")) == 0.65);
    assert_true(sluice_toml_bool(get(root, "b")));
    assert_int_equal(sluice_toml_type_of(get(root, "odt")), SLUICE_TOML_DATETIME);
    assert_string_equal(sluice_toml_datetime_text(get(root, "odt")), "1979-05-27T07:32:00.500Z");
    assert_int_equal(sluice_toml_type_of(get(root, "ldt")), SLUICE_TOML_DATETIME_LOCAL);
    assert_string_equal(sluice_toml_datetime_text(get(root, "ldt")), "1979-05-27T07:32:00");
    assert_int_equal(sluice_toml_type_of(get(root, "ld")), SLUICE_TOML_DATE_LOCAL);
    assert_int_equal(sluice_toml_type_of(get(root, "lt")), SLUICE_TOML_TIME_LOCAL);
    assert_string_equal(sluice_toml_datetime_text(get(root, "lt")), "07:32:00.123456");
}

static void test_toml_integers_span_int64_in_every_radix(void **state)
{
    (void)state;
    const sluice_toml_value *root =
        parse_ok("min = -9223372036854775808\nmax = 9_223_372_036_854_775_807\n"
                 "hex = 0x7FFF_ffff_FFFF_FFFF\noct = 0o755\nbin = 0b1010\nzero = -0\n");
    assert_true(sluice_toml_integer(get(root, "min")) == INT64_MIN);
    assert_true(sluice_toml_integer(get(root, "max")) == INT64_MAX);
    assert_true(sluice_toml_integer(get(root, "hex")) == INT64_MAX);
    assert_int_equal(sluice_toml_integer(get(root, "oct")), 0755);
    assert_int_equal(sluice_toml_integer(get(root, "bin")), 10);
    assert_int_equal(sluice_toml_integer(get(root, "zero")), 0);
}

static void test_toml_floats_include_signed_inf_and_nan(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("a = -inf\nb = +nan\nc = 1_000.0_1\nd = 1e1_0\n");
    assert_true(isinf(sluice_toml_float(get(root, "a"))) && sluice_toml_float(get(root, "a")) < 0);
    assert_true(isnan(sluice_toml_float(get(root, "b"))));
    assert_true(sluice_toml_float(get(root, "c")) == 1000.01);
    assert_true(sluice_toml_float(get(root, "d")) == 1e10);
}

static void test_toml_decodes_escapes_and_multiline_continuations(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("a = \"tab\\there \\u00e9 \\U0001F600\"\n"
                                             "b = \"\"\"\nline one \\\n     line two\"\"\"\n"
                                             "c = '''\nC:\\raw\\'''\n"
                                             "d = \"\"\"\"quoted\"\"\"\"\n");
    assert_string_equal(sluice_toml_string(get(root, "a"), NULL),
                        "tab\there \xc3\xa9 \xf0\x9f\x98\x80");
    assert_string_equal(sluice_toml_string(get(root, "b"), NULL), "line one line two");
    assert_string_equal(sluice_toml_string(get(root, "c"), NULL), "C:\\raw\\");
    assert_string_equal(sluice_toml_string(get(root, "d"), NULL), "\"quoted\"");
}

static void test_toml_keys_may_hold_nul_and_report_their_length(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("\"a\\u0000b\" = 1\n");
    assert_int_equal(sluice_toml_table_count(root), 1);
    assert_int_equal(sluice_toml_table_key_length(root, 0), 3);
    assert_memory_equal(sluice_toml_table_key(root, 0), "a\0b", 3);
}

static void test_toml_tables_keep_insertion_order(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("zeta = 1\nalpha = 2\n[mid]\n[[arr]]\n[[arr]]\n");
    assert_int_equal(sluice_toml_table_count(root), 4);
    assert_string_equal(sluice_toml_table_key(root, 0), "zeta");
    assert_string_equal(sluice_toml_table_key(root, 1), "alpha");
    assert_string_equal(sluice_toml_table_key(root, 2), "mid");
    assert_string_equal(sluice_toml_table_key(root, 3), "arr");
    assert_int_equal(sluice_toml_array_count(get(root, "arr")), 2);
    assert_null(sluice_toml_table_get(root, "absent"));
}

static void test_toml_dotted_keys_and_headers_build_nested_tables(void **state)
{
    (void)state;
    const sluice_toml_value *root =
        parse_ok("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
                 "[fruit.apple.texture]\nsmooth = true\n[x.y.z]\n[x]\nw = 1\n");
    const sluice_toml_value *apple = get(get(root, "fruit"), "apple");
    assert_string_equal(sluice_toml_string(get(apple, "color"), NULL), "red");
    assert_true(sluice_toml_bool(get(get(apple, "taste"), "sweet")));
    assert_true(sluice_toml_bool(get(get(apple, "texture"), "smooth")));
    assert_int_equal(sluice_toml_integer(get(get(root, "x"), "w")), 1);
    assert_int_equal(sluice_toml_type_of(get(get(get(root, "x"), "y"), "z")), SLUICE_TOML_TABLE);
}

static void test_toml_records_key_and_value_positions(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("# c\n[server]\n  port =   8080\n");
    const sluice_toml_value *server = get(root, "server");
    assert_int_equal(sluice_toml_line(server), 2);
    assert_int_equal(sluice_toml_column(server), 2);
    size_t line, column;
    sluice_toml_table_key_position(server, 0, &line, &column);
    assert_int_equal(line, 3);
    assert_int_equal(column, 3);
    assert_int_equal(sluice_toml_line(get(server, "port")), 3);
    assert_int_equal(sluice_toml_column(get(server, "port")), 12);
}

static void test_toml_accessors_on_the_wrong_type_return_zero_values(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("s = \"x\"\n");
    const sluice_toml_value *s = get(root, "s");
    size_t len = 99;
    assert_int_equal(sluice_toml_integer(s), 0);
    assert_true(sluice_toml_float(s) == 0.0);
    assert_false(sluice_toml_bool(s));
    assert_string_equal(sluice_toml_datetime_text(s), "");
    assert_int_equal(sluice_toml_table_count(s), 0);
    assert_int_equal(sluice_toml_array_count(s), 0);
    assert_null(sluice_toml_array_get(s, 0));
    assert_null(sluice_toml_table_get(s, "x"));
    assert_string_equal(sluice_toml_string(root, &len), "");
    assert_int_equal(len, 0);
    assert_string_equal(sluice_toml_type_name(SLUICE_TOML_DATETIME_LOCAL), "local datetime");
}

static void test_toml_skips_a_byte_order_mark(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("\xEF\xBB\xBF"
                                             "a = 1\n");
    assert_int_equal(sluice_toml_integer(get(root, "a")), 1);
    size_t line, column;
    sluice_toml_table_key_position(root, 0, &line, &column);
    assert_int_equal(column, 1);
}

static void test_toml_large_tables_find_every_key(void **state)
{
    (void)state;
    char *text = malloc(5000 * 24);
    assert_non_null(text);
    size_t n = 0;
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(text + n, 24, "key%d = %d\n", i, i);
    sluice_toml_value *root = NULL;
    assert_int_equal(sluice_toml_parse(arena, text, n, "big.toml", &root, NULL), SLUICE_OK);
    free(text);
    assert_int_equal(sluice_toml_table_count(root), 5000);
    char key[16];
    for (int i = 0; i < 5000; i += 7) {
        snprintf(key, sizeof key, "key%d", i);
        assert_int_equal(sluice_toml_integer(get(root, key)), i);
    }
}

/* ---- errors (whole message, line and column) ---- */

static void test_toml_rejects_duplicate_key(void **state)
{
    (void)state;
    expect_error("host = \"a\"\nport = 1\nport = 2\n", SLUICE_E_INVALID, 3, 1,
                 "duplicate key 'port' (first defined at line 2)");
}

static void test_toml_rejects_duplicate_key_in_a_large_table(void **state)
{
    (void)state;
    expect_error("a=1\nb=2\nc=3\nd=4\ne=5\nf=6\ng=7\nh=8\ni=9\nj=10\nd = 11\n", SLUICE_E_INVALID,
                 11, 1, "duplicate key 'd' (first defined at line 4)");
}

static void test_toml_rejects_key_without_equals(void **state)
{
    (void)state;
    expect_error("[server]\nread_only-true\n", SLUICE_E_INVALID, 2, 15,
                 "expected '=' after key 'read_only-true'");
}

static void test_toml_rejects_unterminated_string(void **state)
{
    (void)state;
    expect_error("a = 1\nb = 2\nname = \"sluice\n", SLUICE_E_INVALID, 3, 15,
                 "unterminated string (opened at line 3, column 8)");
}

static void test_toml_rejects_unterminated_multiline_string(void **state)
{
    (void)state;
    expect_error("s = '''\nabc\n", SLUICE_E_INVALID, 3, 1,
                 "unterminated multi-line string (opened at line 1, column 5)");
}

static void test_toml_rejects_invalid_escape(void **state)
{
    (void)state;
    expect_error("s = \"a\\qb\"\n", SLUICE_E_INVALID, 1, 7, "invalid escape '\\q' in string");
}

static void test_toml_rejects_surrogate_unicode_escape(void **state)
{
    (void)state;
    expect_error("s = \"\\uD800\"\n", SLUICE_E_INVALID, 1, 6,
                 "invalid escape '\\uD800': U+D800 is not a Unicode scalar value");
}

static void test_toml_rejects_toml_1_1_escapes(void **state)
{
    (void)state;
    expect_error("s = \"\\e\"\n", SLUICE_E_INVALID, 1, 6, "invalid escape '\\e' in string");
}

static void test_toml_rejects_control_character_in_string(void **state)
{
    (void)state;
    expect_error("s = \"a\x01\"\n", SLUICE_E_INVALID, 1, 7,
                 "control character U+0001 is not allowed in a string; write it as \\u0001");
}

static void test_toml_rejects_bare_carriage_return(void **state)
{
    (void)state;
    expect_error("a = 1\rb = 2\n", SLUICE_E_INVALID, 1, 6,
                 "carriage return without a line feed; TOML lines end in LF or CR LF");
}

static void test_toml_rejects_invalid_utf8(void **state)
{
    (void)state;
    expect_error("a = \"\xC3\x28\"\n", SLUICE_E_INVALID, 1, 6,
                 "invalid UTF-8 (byte 0xc3); save the file as UTF-8");
}

static void test_toml_rejects_unquoted_string_value(void **state)
{
    (void)state;
    expect_error("mode = fast\n", SLUICE_E_INVALID, 1, 8,
                 "expected a value, found 'fast' (strings must be quoted: \"fast\")");
}

static void test_toml_rejects_integer_overflow(void **state)
{
    (void)state;
    expect_error("n = 9223372036854775808\n", SLUICE_E_INVALID, 1, 5,
                 "integer '9223372036854775808' does not fit in 64 bits (range is "
                 "-9223372036854775808 to 9223372036854775807)");
}

static void test_toml_rejects_leading_zeros(void **state)
{
    (void)state;
    expect_error("n = 0123\n", SLUICE_E_INVALID, 1, 5,
                 "invalid number '0123': leading zeros are not allowed");
}

static void test_toml_rejects_misplaced_underscore(void **state)
{
    (void)state;
    expect_error("n = 1__2\n", SLUICE_E_INVALID, 1, 5,
                 "invalid number '1__2': an underscore must sit between digits");
}

static void test_toml_rejects_february_29_outside_leap_years(void **state)
{
    (void)state;
    parse_ok("ok = 2000-02-29\n");
    expect_error("d = 2100-02-29\n", SLUICE_E_INVALID, 1, 5,
                 "invalid date-time '2100-02-29': day 29 is out of range for 2100-02 (01-28)");
}

static void test_toml_accepts_leap_second(void **state)
{
    (void)state;
    const sluice_toml_value *root = parse_ok("t = 1990-12-31T23:59:60Z\n");
    assert_string_equal(sluice_toml_datetime_text(get(root, "t")), "1990-12-31T23:59:60Z");
    expect_error("t = 23:59:61\n", SLUICE_E_INVALID, 1, 5,
                 "invalid date-time '23:59:61': second 61 is out of range (00-60)");
}

static void test_toml_rejects_time_without_seconds(void **state)
{
    (void)state;
    expect_error("t = 07:32\n", SLUICE_E_INVALID, 1, 5,
                 "invalid date-time '07:32': expected a time as HH:MM:SS (seconds are required)");
}

static void test_toml_rejects_table_defined_twice(void **state)
{
    (void)state;
    expect_error("[a]\nx = 1\n[b]\n[a]\n", SLUICE_E_INVALID, 4, 2,
                 "table [a] is already defined at line 1");
}

static void test_toml_rejects_header_for_a_dotted_table(void **state)
{
    (void)state;
    expect_error("a.b = 1\n[a]\n", SLUICE_E_INVALID, 2, 2,
                 "table [a] is already defined by dotted keys at line 1");
}

static void test_toml_rejects_dotted_keys_into_a_header_table(void **state)
{
    (void)state;
    expect_error("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", SLUICE_E_INVALID, 4, 3,
                 "cannot add keys to table 'b.c' with dotted keys: it is defined by its own "
                 "[header] at line 1; add them there");
}

static void test_toml_rejects_extending_an_inline_table(void **state)
{
    (void)state;
    expect_error("a = { b = 1 }\n[a.c]\n", SLUICE_E_INVALID, 2, 2,
                 "cannot add a table under inline table 'a' (defined at line 1): an inline table "
                 "is complete when closed");
}

static void test_toml_rejects_array_of_tables_over_a_static_array(void **state)
{
    (void)state;
    expect_error("fruit = []\n[[fruit]]\n", SLUICE_E_INVALID, 2, 3,
                 "cannot use [[fruit]]: the key is already a static array (defined at line 1)");
}

static void test_toml_rejects_trailing_comma_in_inline_table(void **state)
{
    (void)state;
    expect_error("t = { a = 1, }\n", SLUICE_E_INVALID, 1, 12,
                 "trailing comma is not allowed in an inline table; remove the ','");
}

static void test_toml_rejects_newline_in_inline_table(void **state)
{
    (void)state;
    expect_error("t = { a = 1,\n b = 2 }\n", SLUICE_E_INVALID, 1, 13,
                 "newline is not allowed inside an inline table; put it on one line or use a "
                 "[table]");
}

static void test_toml_rejects_unclosed_array_naming_its_opener(void **state)
{
    (void)state;
    expect_error("a = [1,\n 2\nb = 3\n", SLUICE_E_INVALID, 3, 1,
                 "expected ',' or ']' after an array element (array opened at line 1, column 5), "
                 "found 'b'");
}

static void test_toml_rejects_two_values_on_a_line(void **state)
{
    (void)state;
    expect_error("a = 1 b = 2\n", SLUICE_E_INVALID, 1, 7,
                 "expected a newline after the value, found 'b'");
}

/* Runs one case of data/toml/errors.txt; returns false (after printing why) on a mismatch. */
static bool run_error_case(const char *name, const char *input, const char *expected)
{
    sluice_toml_value *root = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_toml_parse(arena, input, strlen(input), "t.toml", &root, &err);
    char got[512] = "accepted";
    if (st != SLUICE_OK)
        snprintf(got, sizeof got, "%zu:%zu: %s", err.line, err.column, err.message);
    if (st == SLUICE_E_INVALID && strcmp(got, expected) == 0)
        return true;
    fprintf(stderr, "%s:\n  expected: %s\n  actual:   %s\n", name, expected, got);
    return false;
}

static void test_toml_error_table_cases(void **state)
{
    (void)state;
    FILE *f = fopen(SLUICE_SOURCE_DIR "/tests/unit/data/toml/errors.txt", "r");
    assert_non_null(f);
    char line[1024], name[256] = "", input[4096] = "";
    size_t cases = 0, failed = 0, len = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "=== ", 4) == 0) {
            snprintf(name, sizeof name, "%s", line + 4);
            name[strcspn(name, "\n")] = '\0';
            len = 0;
            input[0] = '\0';
        } else if (strncmp(line, "--- ", 4) == 0) {
            line[strcspn(line, "\n")] = '\0';
            cases++;
            failed += run_error_case(name, input, line + 4) ? 0 : 1;
        } else if (name[0] != '\0' && len + strlen(line) < sizeof input) {
            memcpy(input + len, line, strlen(line) + 1);
            len += strlen(line);
        }
    }
    fclose(f);
    printf("%zu toml error cases\n", cases);
    assert_true(cases >= 30);
    assert_int_equal(failed, 0);
}

/* ---- limits and resources ---- */

static void test_toml_rejects_nesting_beyond_the_limit(void **state)
{
    (void)state;
    size_t depth = SLUICE_LIMIT_NESTING_DEPTH + 1;
    char *text = malloc(depth * 2 + 8);
    assert_non_null(text);
    memcpy(text, "a = ", 4);
    memset(text + 4, '[', depth);
    memset(text + 4 + depth, ']', depth);
    text[4 + 2 * depth] = '\0';
    sluice_error err;
    sluice_toml_value *root = NULL;
    assert_int_equal(sluice_toml_parse(arena, text, strlen(text), "t.toml", &root, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "too deeply nested (limit is 128)");
    assert_int_equal(err.column, 4 + depth);
    text[4 + 2 * depth - 1] = '\0'; /* one level less parses */
    memmove(text + 4, text + 5, 2 * depth - 2);
    text[4 + 2 * depth - 2] = '\0';
    assert_int_equal(sluice_toml_parse(arena, text, strlen(text), "t.toml", &root, &err),
                     SLUICE_OK);
    free(text);
}

static void test_toml_rejects_deep_dotted_keys(void **state)
{
    (void)state;
    size_t parts = SLUICE_LIMIT_NESTING_DEPTH + 1;
    char *text = malloc(parts * 2 + 8);
    assert_non_null(text);
    size_t n = 0;
    for (size_t i = 0; i < parts; i++) {
        text[n++] = 'k';
        text[n++] = i + 1 < parts ? '.' : ' ';
    }
    memcpy(text + n, "= 1", 4);
    sluice_error err;
    sluice_toml_value *root = NULL;
    assert_int_equal(sluice_toml_parse(arena, text, strlen(text), "t.toml", &root, &err),
                     SLUICE_E_LIMIT);
    assert_string_equal(err.message, "too deeply nested (limit is 128)");
    free(text);
}

static void test_toml_rejects_oversized_input(void **state)
{
    (void)state;
    size_t len = 4u * 1024u * 1024u + 1;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, '\n', len);
    sluice_error err;
    sluice_toml_value *root = NULL;
    assert_int_equal(sluice_toml_parse(arena, text, len, "huge.toml", &root, &err), SLUICE_E_LIMIT);
    assert_string_equal(err.message, "huge.toml is too large (4194305 bytes; limit is 4194304)");
    free(text);
}

static void test_toml_survives_every_allocation_failure(void **state)
{
    (void)state;
    const char *text = "a.b = [1, {c = \"x\\u00e9\"}]\n[t]\nk = 1979-05-27\n[[arr]]\nz = 1.5\n"
                       "bad = \"\\q\"\n";
    size_t failed = 0;
    for (long nth = 1;; nth++) {
        sluice_arena *a = sluice_arena_new();
        assert_non_null(a);
        sluice_toml_value *root = NULL;
        sluice_error err;
        sluice_error_clear(&err);
        sluice_arena_fail_at(nth);
        sluice_status st = sluice_toml_parse(a, text, strlen(text), "t.toml", &root, &err);
        sluice_arena_fail_at(0);
        sluice_arena_free(a);
        if (st == SLUICE_E_INVALID)
            break; /* reached the real error at the end: every earlier allocation was tried */
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_non_null(err.message);
        failed++;
    }
    assert_true(failed > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_toml_parses_every_scalar_kind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_integers_span_int64_in_every_radix, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_floats_include_signed_inf_and_nan, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_decodes_escapes_and_multiline_continuations,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_keys_may_hold_nul_and_report_their_length, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_tables_keep_insertion_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_dotted_keys_and_headers_build_nested_tables,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_records_key_and_value_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_accessors_on_the_wrong_type_return_zero_values,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_skips_a_byte_order_mark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_large_tables_find_every_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_duplicate_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_duplicate_key_in_a_large_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_key_without_equals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_unterminated_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_unterminated_multiline_string, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_invalid_escape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_surrogate_unicode_escape, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_toml_1_1_escapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_control_character_in_string, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_bare_carriage_return, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_invalid_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_unquoted_string_value, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_integer_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_leading_zeros, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_misplaced_underscore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_february_29_outside_leap_years, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_accepts_leap_second, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_time_without_seconds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_table_defined_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_header_for_a_dotted_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_dotted_keys_into_a_header_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_extending_an_inline_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_array_of_tables_over_a_static_array,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_trailing_comma_in_inline_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_newline_in_inline_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_unclosed_array_naming_its_opener, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_two_values_on_a_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_error_table_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_nesting_beyond_the_limit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_deep_dotted_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_rejects_oversized_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_toml_survives_every_allocation_failure, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
