/*
 * test_js_collections.c — Map and Set in plans beyond what the Node differential reaches: the
 * hash index stays right through 20,000 keys with deletions and compaction (checked against
 * the count the test computes), and a Map that grows without end stops at max_memory_bytes,
 * named, never a crash.
 */
#include "exec/js/interp.h"
#include "syntax/js/parse.h"
#include "unit.h"

#include <string.h>

static sluice_status run(sluice_arena *a,
                         const char *code,
                         sluice_exec_limits lim,
                         sluice_js_run_result *r,
                         sluice_error *err)
{
    sluice_js_program prog;
    assert_int_equal(sluice_js_parse(a, code, strlen(code), &prog, err), SLUICE_OK);
    sluice_js_run_options o = { .limits = lim };
    return sluice_js_run(a, &prog, &o, r, err);
}

static void test_many_keys_with_deletions(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    const char *plan = "const m = new Map();\n"
                       "for (let i = 0; i < 20000; i++) m.set(i % 3 === 0 ? i : \"k\" + i, i);\n"
                       "for (let i = 0; i < 20000; i += 2) m.delete(i % 3 === 0 ? i : \"k\" + i);\n"
                       "for (let i = 0; i < 100; i++) m.set(\"new\" + i, -i);\n"
                       "let odd = 0;\n"
                       "for (const [k, v] of m) if (v % 2 !== 0) odd++;\n"
                       "return [m.size, odd, m.get(3), m.get(6), m.get(\"k1\"), m.has(\"k2\"), "
                       "[...m.keys()][0], [...m.keys()].at(-1)];";
    sluice_exec_limits lim = { .max_loop_iterations = 1000000, .max_steps = 50000000 };
    assert_int_equal(run(a, plan, lim, &r, &err), SLUICE_OK);
    /* the odd i survive (10,000, all odd values) plus the 100 new ones (-0 and -1 .. -99:
     * 50 of them odd); Node answers the same */
    assert_string_equal(r.json, "[10100,10050,3,null,1,false,\"k1\",\"new99\"]");
    sluice_arena_free(a);
}

static void test_growth_stops_at_max_memory(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_js_run_result r = { 0 };
    sluice_error err = { 0 };
    sluice_exec_limits lim = { .max_loop_iterations = 100000000,
                               .max_steps = 100000000,
                               .max_memory_bytes = 4 * 1024 * 1024 };
    assert_int_equal(
        run(a, "const s = new Set(); let i = 0; while (true) s.add(i++);", lim, &r, &err),
        SLUICE_E_LIMIT);
    assert_string_equal(err.key, "max_memory_bytes");
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_keys_with_deletions),
        cmocka_unit_test(test_growth_stops_at_max_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
