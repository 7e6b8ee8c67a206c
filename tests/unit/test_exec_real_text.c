/*
 * test_exec_real_text.c — doubles in the rows text a model reads (values.c) are the shortest
 * digits that read back as the same double: 8943927.12, never 8943927.1199999992; and the
 * text is still JSON that parses back to the same values.
 */
#include "core/arena.h"
#include "exec/executor.h"
#include "exec/values.h"
#include "unit.h"

#include <float.h>
#include <jansson.h>
#include <string.h>

static const char *rows_text_of(sluice_arena *arena, json_t *row)
{
    sluice_exec_limits limits = { .max_rows = 10, .max_bytes = 1 << 20 };
    sluice_exec_rows acc;
    assert_int_equal(sluice_exec_rows_init(&acc, arena, &limits), SLUICE_OK);
    bool more = false;
    assert_int_equal(sluice_exec_rows_add(&acc, row, &more), SLUICE_OK);
    sluice_exec_result out;
    memset(&out, 0, sizeof out);
    sluice_exec_rows_finish(&acc, &out);
    return sluice_arena_strdup(arena, out.rows_text); /* the rows belong to the arena */
}

static void test_shortest_round_trip_digits(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    json_t *row = json_pack("[f, f, f, f, i, s, [f, f]]", 8943927.12, 0.1, 5.0, 1e300, 42, "x",
                            -2.5, 1.0 / 3.0);
    assert_string_equal(rows_text_of(arena, row),
                        "[8943927.12,0.1,5.0,1e+300,42,\"x\",[-2.5,0.3333333333333333]]\n");
    /* Values that need all 17 digits keep them: nothing is rounded away. */
    json_t *hard = json_pack("[f, f]", 0.1 + 0.2, DBL_MAX);
    const char *text = rows_text_of(arena, hard);
    json_t *back = json_loads(text, 0, NULL);
    assert_non_null(back);
    assert_true(json_real_value(json_array_get(back, 0)) == 0.1 + 0.2);
    assert_true(json_real_value(json_array_get(back, 1)) == DBL_MAX);
    assert_non_null(strstr(text, "0.30000000000000004"));
    json_decref(back);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_shortest_round_trip_digits) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
