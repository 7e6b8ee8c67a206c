/*
 * test_exec_rows.c — the row accumulator (exec/values.h): max_rows and max_bytes truncation, the
 * byte count, and rows_text, the text the untrusted-data presentation shows instead of
 * serializing each row again. rows_text must always be exactly the rows kept, one compact JSON
 * line each: a dropped row's text must never reach the client.
 */
#include "codemode/present.h"
#include "core/json_splice.h"
#include "exec/values.h"
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What rows_text must be: json_dumps of every kept row, each followed by a newline. */
static char *expected_text(const json_t *rows)
{
    size_t cap = 1, i;
    const json_t *row;
    json_array_foreach(rows, i, row)
    {
        char *t = json_dumps(row, JSON_COMPACT);
        cap += strlen(t) + 1;
        free(t);
    }
    char *out = calloc(1, cap);
    json_array_foreach(rows, i, row)
    {
        char *t = json_dumps(row, JSON_COMPACT);
        size_t len = strlen(out);
        memcpy(out + len, t, strlen(t));
        out[len + strlen(t)] = '\n';
        free(t);
    }
    return out;
}

static void add_rows(sluice_exec_rows *acc, size_t n, bool *stopped)
{
    bool more = true;
    for (size_t i = 0; i < n && more; i++) {
        json_t *row = json_pack("[i, s, f, n]", (int)i, "row \"quoted\"\n", 1.5);
        assert_int_equal(sluice_exec_rows_add(acc, row, &more), SLUICE_OK);
    }
    *stopped = !more;
}

static void check_result(const sluice_exec_result *r)
{
    char *want = expected_text(r->rows);
    assert_string_equal(r->rows_text, want);
    free(want);
    char *all = json_dumps(r->rows, JSON_COMPACT);
    assert_int_equal(r->bytes, strlen(all));
    free(all);
}

static void test_rows_text_matches_rows_without_limits(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_limits limits = { 0 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    bool stopped;
    add_rows(&acc, 50, &stopped);
    assert_false(stopped);
    sluice_exec_result r = { 0 };
    sluice_exec_rows_finish(&acc, &r);
    assert_int_equal(r.row_count, 50);
    check_result(&r);
    sluice_arena_free(arena);
}

static void test_rows_text_drops_the_row_over_max_bytes(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_limits limits = { .max_bytes = 300 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    bool stopped;
    add_rows(&acc, 50, &stopped);
    assert_true(stopped);
    sluice_exec_result r = { 0 };
    sluice_exec_rows_finish(&acc, &r);
    assert_true(r.truncated);
    assert_string_equal(r.truncated_by, "max_bytes");
    assert_true(r.row_count > 0 && r.row_count < 50);
    assert_true(r.bytes <= 300);
    check_result(&r);
    sluice_arena_free(arena);
}

static void test_rows_text_stops_at_max_rows(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_limits limits = { .max_rows = 3 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    bool stopped;
    add_rows(&acc, 10, &stopped);
    assert_true(stopped);
    sluice_exec_result r = { 0 };
    sluice_exec_rows_finish(&acc, &r);
    assert_int_equal(r.row_count, 3);
    assert_string_equal(r.truncated_by, "max_rows");
    check_result(&r);
    sluice_arena_free(arena);
}

/* rows_text is written from the values, not by jansson: every escape, integer edge and nested
 * shape must still come out as jansson's compact dump, byte for byte (the byte count and the
 * text the client reads are the same measure). */
static void test_rows_text_is_janssons_text_for_every_value_kind(void **state)
{
    (void)state;
    char controls[32];
    for (int c = 1; c < 32; c++)
        controls[c - 1] = (char)c;
    controls[31] = '\0';
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_limits limits = { 0 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    json_t *rows[] = {
        json_pack("[s, s, s, s]", controls, "\"q\" \\ / \x7f",
                  "\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80", ""),
        json_pack("[I, I, i, i, I]", (json_int_t)INT64_MIN, (json_int_t)INT64_MAX, 0, -1,
                  (json_int_t)1000000007),
        json_pack("[b, b, n, [s, [i, n], []], {s:s, s:[i]}]", 1, 0, "a\tb", 7, "k\n", "v\b", "l",
                  2),
    };
    bool more = true;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(sluice_exec_rows_add(&acc, rows[i], &more), SLUICE_OK);
    sluice_exec_result r = { 0 };
    sluice_exec_rows_finish(&acc, &r);
    assert_int_equal(r.row_count, 3);
    check_result(&r);
    sluice_arena_free(arena);
}

/* The presentation fences exactly rows_text, and an empty result shows no row lines. */
static void test_untrusted_text_shows_rows_text(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_limits limits = { 0 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    bool stopped;
    add_rows(&acc, 2, &stopped);
    sluice_exec_result r = { 0 };
    sluice_exec_rows_finish(&acc, &r);
    const char *text = sluice_present_untrusted_text(arena, &r);
    assert_non_null(text);
    const char *open = strstr(text, ">\n");
    assert_non_null(open);
    assert_memory_equal(open + 2, r.rows_text, strlen(r.rows_text));
    assert_int_equal(open[2 + strlen(r.rows_text)], '<');

    sluice_exec_rows empty;
    assert_int_equal(sluice_exec_rows_init(&empty, arena, &limits), SLUICE_OK);
    sluice_exec_result none = { 0 };
    sluice_exec_rows_finish(&empty, &none);
    assert_string_equal(none.rows_text, "");
    text = sluice_present_untrusted_text(arena, &none);
    open = strstr(text, ">\n");
    assert_non_null(open);
    assert_int_equal(open[2], '<');
    sluice_arena_free(arena);
}

/* A plan's list of objects with the same keys reads as rows: the keys once, then each object's
 * values, all inside the fence; anything else is the value's JSON as it is. */
static void test_untrusted_text_lists_objects_as_rows(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_exec_result r = { .shape = SLUICE_EXEC_VALUE, .elapsed_ms = 5 };
    r.value = json_loads("[{\"budget\":\"B 3\",\"amount\":1750,\"tags\":[\"a\"]},"
                         "{\"budget\":\"B 6\",\"amount\":2500,\"tags\":[]}]",
                         0, NULL);
    const char *text = sluice_present_untrusted_text(arena, &r);
    assert_non_null(strstr(text, "A value in 5 ms: 2 objects, as a line of keys, then one line "
                                 "of values each.\n"));
    const char *open = strstr(text, ">\n");
    assert_non_null(open);
    assert_non_null(strstr(open, ">\n[\"budget\",\"amount\",\"tags\"]\n[\"B 3\",1750,[\"a\"]]\n"
                                 "[\"B 6\",2500,[]]\n</untrusted-data-"));
    json_decref(r.value);
    /* other keys, another order, one object, not objects: the JSON as it is */
    static const char *const plain[] = { "[{\"a\":1},{\"b\":1}]",
                                         "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1}]",
                                         "[{\"a\":1}]",
                                         "[1,2]",
                                         "[{\"a\":1},{\"a\":1,\"b\":2}]",
                                         "[{},{}]" };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        r.value = json_loads(plain[i], 0, NULL);
        text = sluice_present_untrusted_text(arena, &r);
        assert_null(strstr(text, "a list of"));
        open = strstr(text, ">\n");
        assert_non_null(open);
        assert_memory_equal(open + 2, plain[i], strlen(plain[i]));
        json_decref(r.value);
    }
    sluice_arena_free(arena);
}

/* Text written straight from values (rows_text_only) is the text of the value's json_t, for
 * bytes that are not UTF-8 (replaced) and NULs too; and the row-by-row accumulator keeps and
 * drops rows as the tree one does. */
static void test_text_only_rows_match_the_tree(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t len;
    } texts[] = { { "plain", 5 },
                  { "a\0b", 3 },
                  { "\xff", 1 },
                  { "a\xc3", 2 },
                  { "\xed\xa0\x80x", 4 },
                  { "\0\xff\"\n", 4 },
                  { "\xe4\xb8\xad\xc0\xaf", 5 },
                  { "", 0 } };
    sluice_arena *arena = sluice_arena_new();
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        json_t *v = sluice_exec_json_text(texts[i].s, texts[i].len);
        sluice_buf want, got;
        sluice_buf_init(&want, arena, 0);
        sluice_buf_init(&got, arena, 0);
        assert_true(sluice_exec_text_value(&want, v));
        sluice_exec_text_string(&got, texts[i].s, texts[i].len);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.data, want.data, got.len);
        json_decref(v);
    }
    sluice_exec_limits limits = { .max_rows = 3, .max_bytes = 20 };
    sluice_exec_rows tree, text;
    assert_int_equal(sluice_exec_rows_init(&tree, arena, &limits), SLUICE_OK);
    assert_int_equal(sluice_exec_rows_init_text(&text, arena, &limits), SLUICE_OK);
    bool more_tree = true, more_text = true;
    for (int i = 0; more_tree || more_text; i++) {
        assert_int_equal(
            sluice_exec_rows_add(&tree, json_pack("[i, s]", i * 1000, "ab"), &more_tree),
            SLUICE_OK);
        if (sluice_exec_rows_room(&text, &more_text)) {
            size_t start = text.text.len;
            sluice_buf_printf(&text.text, "[%d,\"ab\"]", i * 1000);
            assert_int_equal(sluice_exec_rows_end_text(&text, start, &more_text), SLUICE_OK);
        }
        assert_int_equal(more_text, more_tree);
    }
    sluice_exec_result a = { 0 }, b = { 0 };
    sluice_exec_rows_finish(&tree, &a);
    sluice_exec_rows_finish(&text, &b);
    assert_null(b.rows);
    assert_string_equal(b.rows_text, a.rows_text);
    assert_string_equal(b.truncated_by, "max_bytes");
    assert_int_equal(b.bytes, a.bytes);
    assert_int_equal(b.row_count, a.row_count);
    /* max_result_bytes counts exactly what structuredContent.rows sends: the spliced array */
    json_t *splice = sluice_json_splice_lines(b.rows_text, strlen(b.rows_text));
    const char *sent;
    size_t sent_len;
    assert_true(sluice_json_splice_text(splice, &sent, &sent_len));
    assert_int_equal(sent_len, b.bytes);
    char *dumped = json_dumps(a.rows, JSON_COMPACT);
    assert_memory_equal(sent, dumped, sent_len);
    free(dumped);
    json_decref(splice);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_text_matches_rows_without_limits),
        cmocka_unit_test(test_rows_text_drops_the_row_over_max_bytes),
        cmocka_unit_test(test_rows_text_stops_at_max_rows),
        cmocka_unit_test(test_rows_text_is_janssons_text_for_every_value_kind),
        cmocka_unit_test(test_untrusted_text_shows_rows_text),
        cmocka_unit_test(test_untrusted_text_lists_objects_as_rows),
        cmocka_unit_test(test_text_only_rows_match_the_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
