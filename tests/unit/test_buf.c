/*
 * test_buf.c — bounded string builder, error rendering and log sampling.
 */
#include "core/buf.h"
#include "core/error.h"
#include "core/log.h"
#include "unit.h"

#include <string.h>

static void test_buf_limit_is_sticky(void **state)
{
    (void)state;
    sluice_buf b;
    sluice_buf_init(&b, NULL, 8);
    sluice_buf_puts(&b, "12345");
    sluice_buf_puts(&b, "6789");
    assert_int_equal(sluice_buf_status(&b), SLUICE_E_LIMIT);
    sluice_buf_puts(&b, "x");
    assert_string_equal(sluice_buf_cstr(&b), "12345");
    sluice_buf_dispose(&b);
}

/* A byte that fits the room there is but not the maximum is refused all the same. */
static void test_buf_putc_stops_at_the_maximum(void **state)
{
    (void)state;
    sluice_buf b;
    sluice_buf_init(&b, NULL, 8);
    sluice_buf_puts(&b, "1234567");
    sluice_buf_putc(&b, '8');
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    sluice_buf_putc(&b, '9');
    assert_int_equal(sluice_buf_status(&b), SLUICE_E_LIMIT);
    assert_string_equal(sluice_buf_cstr(&b), "12345678");
    sluice_buf_dispose(&b);
}

/* After a reserve of n, n bytes go in without moving the text; the reserve never goes past the
 * maximum; a failed reserve is sticky. */
static void test_buf_reserve_makes_room_once(void **state)
{
    (void)state;
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_buf_reserve(&b, 2048);
    const char *at = b.data;
    size_t cap = b.cap;
    assert_non_null(at);
    for (size_t i = 0; i < 2048; i++) {
        if (i % 2 == 0)
            sluice_buf_putc(&b, 'x');
        else
            sluice_buf_append(&b, "y", 1);
    }
    assert_true(b.data == at && b.cap == cap);
    assert_int_equal(b.len, 2048);
    assert_int_equal(strlen(sluice_buf_cstr(&b)), 2048);
    sluice_buf_putc(&b, 'z'); /* past the reserve: it grows as before */
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    assert_int_equal(b.len, 2049);
    sluice_buf_dispose(&b);

    sluice_buf_init(&b, NULL, 100);
    sluice_buf_reserve(&b, 2048);
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    assert_true(b.cap > 100 && b.cap <= 128);
    sluice_buf_dispose(&b);

    sluice_buf_init(&b, NULL, 0);
    sluice_arena_fail_at(1);
    sluice_buf_reserve(&b, 2048);
    sluice_arena_fail_at(0);
    assert_int_equal(sluice_buf_status(&b), SLUICE_E_NOMEM);
    sluice_buf_puts(&b, "x");
    assert_string_equal(sluice_buf_cstr(&b), "");
    sluice_buf_dispose(&b);
}

static void test_buf_arena_backed_grows(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_buf b;
    sluice_buf_init(&b, a, 0);
    for (int i = 0; i < 1000; i++)
        sluice_buf_printf(&b, "%d,", i);
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    assert_true(strncmp(sluice_buf_cstr(&b), "0,1,2,", 6) == 0);
    assert_int_equal(b.len, strlen(b.data));
    sluice_arena_free(a);
}

static void test_buf_json_string_escapes_controls(void **state)
{
    (void)state;
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_buf_json_string(&b, "a\"b\\c\n\x01", 7);
    assert_string_equal(sluice_buf_cstr(&b), "\"a\\\"b\\\\c\\n\\u0001\"");
    sluice_buf_dispose(&b);
}

static void test_error_render_points_at_column(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const char *text = "first line\nsecond = oops\n";
    sluice_error err;
    size_t line, col;
    sluice_error_locate(text, strlen(text), 20, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 10);
    sluice_error_at(&err, a, SLUICE_E_INVALID, "x.toml", line, col, "bad value '%s'", "oops");
    sluice_error_hint(&err, a, "quote strings");
    char *out = sluice_error_render(a, &err, text, strlen(text));
    assert_string_equal(out, "x.toml:2:10: bad value 'oops'\nsecond = oops\n         ^\n"
                             "hint: quote strings\n");
    sluice_arena_free(a);
}

static void test_error_locate_counts_characters_not_bytes(void **state)
{
    (void)state;
    const char *text = "\xc3\xa9\xc3\xa9x"; /* two e-acute then x */
    size_t line, col;
    sluice_error_locate(text, strlen(text), 4, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 3);
}

static void test_log_sample_escapes_and_bounds(void **state)
{
    (void)state;
    char out[512];
    char big[300];
    memset(big, 'a', sizeof big);
    big[0] = '\x1b';
    sluice_log_sample(out, sizeof out, big, sizeof big);
    assert_true(strncmp(out, "\\x1b", 4) == 0);
    assert_non_null(strstr(out, "..."));
    assert_true(strlen(out) < 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buf_limit_is_sticky),
        cmocka_unit_test(test_buf_putc_stops_at_the_maximum),
        cmocka_unit_test(test_buf_reserve_makes_room_once),
        cmocka_unit_test(test_buf_arena_backed_grows),
        cmocka_unit_test(test_buf_json_string_escapes_controls),
        cmocka_unit_test(test_error_render_points_at_column),
        cmocka_unit_test(test_error_locate_counts_characters_not_bytes),
        cmocka_unit_test(test_log_sample_escapes_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
