/*
 * test_js_language.c — the language corners ordinary plans use (issue 25), each beside what
 * Node answers (tests/node/js_diff.mjs generates them at random; these are the fixed cases and
 * the refusals Node has no counterpart for): holes in destructuring and the refused hole in an
 * array literal, labelled break/continue and their syntax errors, instanceof, Object.is, Math,
 * Number formatting, a path folded from literals at validate, and a NUL byte refused alike by
 * the parser (execute) and the front end (validate).
 */
#include "exec/js/interp.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "lang/registry.h"
#include "syntax/js/parse.h"
#include "unit.h"

#include <string.h>

/* The plan's JSON answer, or "!key: message" when the parser refused it, or "throw Name". */
static const char *answer(sluice_arena *a, const char *code, size_t len)
{
    sluice_js_program prog;
    sluice_error err = { 0 };
    if (sluice_js_parse(a, code, len, &prog, &err) != SLUICE_OK)
        return sluice_arena_printf(a, "!%s: %s", err.key, err.message);
    sluice_js_run_options o = { .limits = { .max_loop_iterations = 100000, .max_steps = 1000000 } };
    sluice_js_run_result r = { 0 };
    assert_int_equal(sluice_js_run(a, &prog, &o, &r, &err), SLUICE_OK);
    return r.threw ? sluice_arena_printf(a, "throw %s", r.error_name) : r.json;
}

static void expect(const char *code, const char *want)
{
    sluice_arena *a = sluice_arena_new();
    const char *got = answer(a, code, strlen(code));
    if (strncmp(got, want, strlen(want)) != 0)
        fail_msg("%s\n  want %s\n  got  %s", code, want, got);
    sluice_arena_free(a);
}

static void test_js_holes_in_destructuring_not_in_literals(void **state)
{
    (void)state;
    expect("const [, x, , y] = [1, 2, 3, 4]; return [x, y]", "[2,4]");
    expect("let p, q; [, p, , q = 9] = 'abc'; return [p, q]", "[\"b\",9]");
    expect("const f = ([, b]) => b; return f([5, 6])", "6");
    expect("const [a, , ...r] = [1, 2, 3, 4]; return [a, r]", "[1,[3,4]]");
    expect("return [1, , 3]", "!js_refused: a hole in an array literal ([a, , b]) is not allowed "
                              "in a plan (line 1, column 12)");
    expect("const [[, x], y] = [[1, 2], [, 4]]; return x", "!js_refused: a hole in an array "
                                                           "literal");
    expect("return [1, 2,]", "[1,2]"); /* a trailing comma is no hole */
}

static void test_js_labels_break_and_continue(void **state)
{
    (void)state;
    expect("let s = 0; outer: for (let i = 0; i < 4; i++) { for (let j = 0; j < 4; j++) { "
           "if (j === 2) continue outer; if (i === 3) break outer; s += i * 10 + j; } } return s",
           "63");
    expect("const s = []; a: { s.push(1); if (s.length) break a; s.push(2); } return s", "[1]");
    /* an unlabelled break inside a labelled block still ends the loop around it */
    expect("const s = []; for (let i = 0; i < 3; i++) { b: { if (i === 1) break; s.push(i); } } "
           "return s",
           "[0]");
    expect("const s = []; x: y: for (const v of [1, 2, 3]) { for (;;) { if (v === 2) continue x; "
           "s.push(v); break y; } } return s",
           "[1]");
    expect("const s = []; L: for (const k in { a: 1, b: 2, c: 3 }) { switch (k) { case 'b': "
           "continue L; case 'c': break L; } s.push(k); } return s",
           "[\"a\"]");
    expect("a: { break b; }", "!syntax_error: undefined label 'b' at line 1, column 12");
    expect("a: { for (;;) { continue a; } }", "!syntax_error: 'continue a' at line 1: the label "
                                              "does not name a loop");
    expect("a: a: ;", "!syntax_error: label 'a' at line 1 is already declared");
    expect("x: for (;;) { const f = () => { break x; }; }", "!syntax_error: undefined label 'x'");
    expect("switch (1) { case 1: continue; }", "!syntax_error: 'continue' outside a loop");
}

static void test_js_instanceof(void **state)
{
    (void)state;
    expect("return [new TypeError('x') instanceof Error, new Error('x') instanceof TypeError, "
           "new RangeError() instanceof RangeError]",
           "[true,false,true]");
    expect("try { null.x } catch (e) { return [e instanceof TypeError, e instanceof RangeError] }",
           "[true,false]");
    /* the constructor decides, not the name the error shows */
    expect("const e = new Error('m'); e.name = 'TypeError'; return e instanceof TypeError",
           "false");
    expect("return [[] instanceof Array, [] instanceof Object, 1 instanceof Number, "
           "new Map() instanceof Map, new Map() instanceof Set, new Date(0) instanceof Date, "
           "Promise.resolve(1) instanceof Promise, null instanceof Object]",
           "[true,true,false,true,false,true,true,false]");
    expect("function F() {} return [({}) instanceof F, 1 instanceof (() => 1)]", "[false,false]");
    expect("return ({}) instanceof (() => 1)", "throw TypeError");
    expect("return ({}) instanceof Math", "throw TypeError");
    expect("return [typeof Map, typeof Set]", "[\"function\",\"function\"]");
    expect("return Map()", "throw TypeError");
}

static void test_js_object_is_math_and_number_formatting(void **state)
{
    (void)state;
    expect("return [Object.is(-0, 0), Object.is(NaN, NaN), Object.is('a', 'a'), Object.is({}, {})]",
           "[false,true,true,false]");
    expect("return [Math.hypot(3, 4), Math.hypot(), Math.hypot(NaN, Infinity), Math.hypot(-0), "
           "Math.sign(-0) === 0, Math.trunc(-4.7), Math.clz32(1), Math.imul(0xffffffff, 5), "
           "Math.fround(5.5), Math.cbrt(-8), Math.log2(8), Math.log10(1000), Math.atan2(0, -0)]",
           "[5,0,null,0,true,-4,31,-5,5.5,-2,3,3,3.141592653589793]");
    expect("return [(255).toString(16), (-255).toString(2), (0.5).toString(2), "
           "(3.14159).toString(36), (1e21).toString(7)]",
           "[\"ff\",\"-11111111\",\"0.1\",\"3.53i0tuycp\",\"5135235413265003022600000\"]");
    expect("return [(2.5).toPrecision(1), (1.005).toPrecision(3), (123.456).toPrecision(2), "
           "(0.000001234).toPrecision(2), (1e21).toPrecision(3), (-0).toPrecision(2)]",
           "[\"3\",\"1.00\",\"1.2e+2\",\"0.0000012\",\"1.00e+21\",\"0.0\"]");
    expect("return [(1.25).toExponential(1), (0).toExponential(), (123456).toExponential(), "
           "(-1e-7).toExponential(2), (NaN).toExponential(200)]",
           "[\"1.3e+0\",\"0e+0\",\"1.23456e+5\",\"-1.00e-7\",\"NaN\"]");
    expect("return (1).toString(37)", "throw RangeError");
    expect("return (1).toPrecision(0)", "throw RangeError");
    expect("return (1).toExponential(101)", "throw RangeError");
}

/* normalize and localeCompare through ICU: Node's answers (ICU 78) for Debian's ICU 72 */
static void test_js_normalize_and_locale_compare(void **state)
{
    (void)state;
    expect("return ['e\\u0301'.normalize() === '\\u00e9', '\\u00e9'.normalize('NFD').length, "
           "'\\uFB01'.normalize('NFKC'), '\\uAC00'.normalize('NFD').length, "
           "'\\u1100\\u1161'.normalize('NFC') === '\\uAC00', '\\u212B'.normalize('NFC') === "
           "'\\u00C5', '\\u{1D400}'.normalize('NFKD'), ''.normalize('NFKD'), "
           "'\\uD800'.normalize().length]",
           "[true,2,\"fi\",2,true,true,\"A\",\"\",1]");
    expect("return 'x'.normalize('nfc')", "throw RangeError");
    expect("return ['a'.localeCompare('B'), 'B'.localeCompare('a'), "
           "'\\u00e4'.localeCompare('a\\u0308'), "
           "''.localeCompare(''), 'resume'.localeCompare('r\\u00e9sum\\u00e9'), "
           "'a'.localeCompare('A'), '10'.localeCompare('9'), 'a-b'.localeCompare('ab')]",
           "[-1,1,0,0,-1,-1,-1,-1]");
    expect("return ['b', 'A', '\\u00e4', 'a', 'Z'].sort((x, y) => x.localeCompare(y))",
           "[\"a\",\"A\",\"\u00E4\",\"b\",\"Z\"]");
}

static sluice_codefacts *analyze(sluice_arena *a, const char *code, size_t len)
{
    static sluice_config_code_mode cm;
    memset(&cm, 0, sizeof cm);
    cm.max_api_calls = 50;
    cm.openapi_reads_enabled = true;
    sluice_frontend_context ctx = { .code_mode = &cm };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_lang_find("javascript")->analyze(a, code, len, NULL, &ctx, &f, &err),
                     SLUICE_OK);
    return f;
}

static void test_js_path_of_literals_is_folded_at_validate(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    const char *folded = "return await api.get('/users/' + 'u12')";
    sluice_codefacts *f = analyze(a, folded, strlen(folded));
    assert_null(facts_violation(f, "js_dynamic_path"));
    assert_true(sluice_codefacts_list_has(&f->operations, "GET /users/u12"));
    const char *mixed = "const id = 'u1'; return await api.get('/users/' + `${id}` + '/posts')";
    f = analyze(a, mixed, strlen(mixed));
    assert_true(sluice_codefacts_list_has(&f->operations, "GET /users/{}/posts"));
    /* a computed part is still computed: the operation could be anything */
    const char *computed = "const id = 'u1'; return await api.get('/users/' + id)";
    assert_non_null(facts_violation(analyze(a, computed, strlen(computed)), "js_dynamic_path"));
    sluice_arena_free(a);
}

static void test_js_nul_byte_refused_alike_at_validate_and_execute(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char plan[] = "return 'a\0b';";
    const char *ran = answer(a, plan, sizeof plan - 1);
    assert_string_equal(ran, "!nul_byte: the plan contains a NUL byte at byte offset 9");
    sluice_codefacts *f = analyze(a, plan, sizeof plan - 1);
    assert_non_null(facts_violation(f, "nul_byte"));
    assert_true(sluice_codefacts_refused(f));
    for (size_t i = 0; i < f->violation_count; i++)
        if (strcmp(f->violations[i].rule, "nul_byte") == 0)
            assert_string_equal(f->violations[i].message,
                                "the plan contains a NUL byte at byte offset 9");
    /* written as an escape it is an ordinary character */
    expect("return 'a\\0b'.length", "3");
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_holes_in_destructuring_not_in_literals),
        cmocka_unit_test(test_js_labels_break_and_continue),
        cmocka_unit_test(test_js_instanceof),
        cmocka_unit_test(test_js_object_is_math_and_number_formatting),
        cmocka_unit_test(test_js_normalize_and_locale_compare),
        cmocka_unit_test(test_js_path_of_literals_is_folded_at_validate),
        cmocka_unit_test(test_js_nul_byte_refused_alike_at_validate_and_execute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
