/*
 * test_js_date.c — Date in plans is read-only: the clock is refused (new Date() and Date.now()
 * throw a TypeError saying why and what to pass instead, so a plan cannot answer differently at
 * execute than at validate), and time values stay within TimeClip at the edges (the Node
 * differential covers parsing and formatting).
 */
#include "exec/js/interp.h"
#include "syntax/js/parse.h"
#include "unit.h"

#include <string.h>

static void run(sluice_arena *a, const char *code, sluice_js_run_result *r)
{
    sluice_js_program prog;
    sluice_error err = { 0 };
    assert_int_equal(sluice_js_parse(a, code, strlen(code), &prog, &err), SLUICE_OK);
    sluice_js_run_options o = { .limits = { .max_loop_iterations = 1000 } };
    assert_int_equal(sluice_js_run(a, &prog, &o, r, &err), SLUICE_OK);
}

static void test_the_clock_is_refused(void **state)
{
    (void)state;
    static const char *const plans[] = { "return new Date().getTime();", "return Date.now();" };
    for (size_t i = 0; i < 2; i++) {
        sluice_arena *a = sluice_arena_new();
        sluice_js_run_result r = { 0 };
        run(a, plans[i], &r);
        assert_true(r.threw);
        assert_string_equal(r.error_name, "TypeError");
        assert_non_null(strstr(r.error_message, "reads the clock at line 1"));
        assert_non_null(strstr(r.error_message, "plans are deterministic"));
        sluice_arena_free(a);
    }
}

static void test_time_values_are_clipped(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    run(a,
        "return [new Date(8.64e15).toISOString(), new Date(-8.64e15).toISOString(), "
        "String(new Date(8.64e15 + 1)), JSON.stringify(new Date(1e300)), "
        "new Date(\"2026-12-01T12:00:00-05:30\").toISOString()];",
        &r);
    assert_false(r.threw);
    assert_string_equal(r.json, "[\"+275760-09-13T00:00:00.000Z\",\"-271821-04-20T00:00:00.000Z\","
                                "\"Invalid Date\",\"null\",\"2026-12-01T17:30:00.000Z\"]");
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_clock_is_refused),
        cmocka_unit_test(test_time_values_are_clipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
