/*
 * test_codemode_recall.c — execute_code and validate_code reusing what validate_code kept, tried
 * by someone who wants it to run what was not approved: the same text runs with the validated
 * answer; another text under the token (a swapped statement, or one that reads another column) is
 * refused; a whitespace-only variant still runs as the statement it canonically is; another
 * caller, other variables and a second use are refused. Every case runs on a DuckDB file served
 * read_only, where execute reuses the kept analysis and the executor its prepared statement, and
 * the same texts run again afterwards, so a kept analysis or statement is what answers them.
 * validate takes the kept facts only for the same bytes, context, variables and before they
 * expire, and never where the data can change: each part of that key is changed in turn and the
 * analysis must be made again (sluice_analysis_recalls_total does not move).
 */
#include "core/clock.h"
#include "core/metrics.h"
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_RECALL_KEY"

static oom_codemode fx;
static sluice_manual_clock clock_;
static sluice_identity alice_id = { .user_id = "alice", .method = "test" };
static sluice_identity bob_id = { .user_id = "bob", .method = "test" };
static const char *analysts[] = { "analysts" };
static sluice_identity carol_id = {
    .user_id = "carol", .method = "test", .groups = analysts, .group_count = 1
};
static const sluice_codemode_caller alice = { .identity = &alice_id, .session_id = "s1" };
static const sluice_codemode_caller bob = { .identity = &bob_id, .session_id = "s2" };
static const sluice_codemode_caller carol = { .identity = &carol_id, .session_id = "s3" };

static const char enterprise[] = "SELECT name FROM customers WHERE plan = 'enterprise' ORDER BY id";

#define TTL 60 /* token_ttl_seconds: a kept analysis expires with its first token */

static int setup(void **state)
{
    (void)state;
    sluice_manual_clock_init(&clock_, 1900000000);
    fx.clock = &clock_.clock;
    return oom_codemode_over(&fx, "recall", KEY_ENV, "recall", OOM_CODEMODE_CUSTOMERS,
                             "token_ttl_seconds = 60\n");
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    return 0;
}

/* validate_code of code (with variables, may be NULL) for who: its token, in arena. */
static const char *validate_for(const sluice_codemode_caller *who,
                                const char *code,
                                const json_t *variables,
                                sluice_arena *arena)
{
    json_t *out = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = who,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .variables = variables,
                                          .err = &err };
    assert_int_equal(sluice_codemode_validate(fx.cm, &req, &out), SLUICE_OK);
    assert_true(json_is_true(json_object_get(out, "valid")));
    const char *token =
        sluice_arena_strdup(arena, json_string_value(json_object_get(out, "approval_token")));
    json_decref(out);
    assert_non_null(token);
    return token;
}

/* execute_code: its status; on success *rows gets the rows as compact JSON (in arena). */
static sluice_status execute_for(const sluice_codemode_caller *who,
                                 const char *code,
                                 const json_t *variables,
                                 const char *token,
                                 sluice_arena *arena,
                                 const char **rows)
{
    json_t *out = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = who,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .variables = variables,
                                          .token = token,
                                          .err = &err };
    sluice_status st = sluice_codemode_execute(fx.cm, &req, &out, &text);
    *rows = NULL;
    if (st == SLUICE_OK) {
        char *d = json_dumps(json_object_get(out, "rows"), JSON_COMPACT);
        *rows = sluice_arena_strdup(arena, d);
        free(d);
    }
    json_decref(out);
    return st;
}

static void expect_rows(const sluice_codemode_caller *who,
                        const char *code,
                        const json_t *variables,
                        const char *token,
                        const char *want,
                        sluice_arena *arena)
{
    const char *rows = NULL;
    assert_int_equal(execute_for(who, code, variables, token, arena, &rows), SLUICE_OK);
    assert_string_equal(rows, want);
}

static void expect_refused(const sluice_codemode_caller *who,
                           const char *code,
                           const json_t *variables,
                           const char *token,
                           sluice_arena *arena)
{
    const char *rows = NULL;
    assert_int_equal(execute_for(who, code, variables, token, arena, &rows), SLUICE_E_TOKEN);
    assert_null(rows);
}

static void test_recall_the_same_text_runs_again_and_again(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    for (int i = 0; i < 3; i++) {
        const char *token = validate_for(&alice, enterprise, NULL, arena);
        expect_rows(&alice, enterprise, NULL, token, "[[\"Ada\"],[\"Cy\"]]", arena);
        /* a token runs once, however its analysis was found */
        const char *rows = NULL;
        assert_int_equal(execute_for(&alice, enterprise, NULL, token, arena, &rows),
                         SLUICE_E_TOKEN);
    }
    sluice_arena_free(arena);
}

/* Another statement under a token is refused whether or not its own analysis is kept too. */
static void test_recall_a_swapped_text_never_rides_on_the_token(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *free_plan = "SELECT name FROM customers WHERE plan = 'free' ORDER BY id";
    const char *token = validate_for(&alice, enterprise, NULL, arena);
    expect_refused(&alice, free_plan, NULL, token, arena);
    /* both validated: each token still runs only its own text */
    const char *t_ent = validate_for(&alice, enterprise, NULL, arena);
    const char *t_free = validate_for(&alice, free_plan, NULL, arena);
    expect_refused(&alice, enterprise, NULL, t_free, arena);
    expect_refused(&alice, free_plan, NULL, t_ent, arena);
    expect_rows(&alice, free_plan, NULL, t_free, "[[\"Bo\"]]", arena);
    expect_rows(&alice, enterprise, NULL, t_ent, "[[\"Ada\"],[\"Cy\"]]", arena);
    /* a blocked column never reaches the engine under a clean read's token */
    const char *t = validate_for(&alice, enterprise, NULL, arena);
    expect_refused(&alice, "SELECT ssn FROM customers WHERE plan = 'enterprise' ORDER BY id", NULL,
                   t, arena);
    sluice_arena_free(arena);
}

/* A whitespace-only variant has the same canonical form: it runs under the token as before,
 * through the canonical lookup, also when the variant was the text validated last. */
static void test_recall_a_whitespace_variant_runs_as_its_canonical_form(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *spaced =
        "SELECT name\n  FROM customers\n WHERE plan = 'enterprise'\n ORDER BY id   ";
    const char *token = validate_for(&alice, enterprise, NULL, arena);
    expect_rows(&alice, spaced, NULL, token, "[[\"Ada\"],[\"Cy\"]]", arena);
    const char *t_plain = validate_for(&alice, enterprise, NULL, arena);
    const char *t_spaced = validate_for(&alice, spaced, NULL, arena);
    expect_rows(&alice, enterprise, NULL, t_spaced, "[[\"Ada\"],[\"Cy\"]]", arena);
    expect_rows(&alice, spaced, NULL, t_plain, "[[\"Ada\"],[\"Cy\"]]", arena);
    sluice_arena_free(arena);
}

static void test_recall_another_caller_is_refused(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *token = validate_for(&alice, enterprise, NULL, arena);
    expect_refused(&bob, enterprise, NULL, token, arena);
    /* bob's own token for the same text runs for bob, alice's for alice */
    const char *t_bob = validate_for(&bob, enterprise, NULL, arena);
    expect_refused(&alice, enterprise, NULL, t_bob, arena);
    expect_rows(&bob, enterprise, NULL, t_bob, "[[\"Ada\"],[\"Cy\"]]", arena);
    expect_rows(&alice, enterprise, NULL, token, "[[\"Ada\"],[\"Cy\"]]", arena);
    sluice_arena_free(arena);
}

/* Variables are part of what was approved, and bound anew on every run of a kept statement. */
static void test_recall_other_variables_are_refused(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *code = "SELECT name FROM customers WHERE plan = $plan ORDER BY id";
    json_t *ent = json_pack("{s:s}", "plan", "enterprise");
    json_t *fre = json_pack("{s:s}", "plan", "free");
    const char *t_ent = validate_for(&alice, code, ent, arena);
    expect_refused(&alice, code, fre, t_ent, arena);
    expect_refused(&alice, code, NULL, t_ent, arena);
    const char *t_free = validate_for(&alice, code, fre, arena);
    expect_rows(&alice, code, fre, t_free, "[[\"Bo\"]]", arena);
    expect_rows(&alice, code, ent, t_ent, "[[\"Ada\"],[\"Cy\"]]", arena);
    expect_rows(&alice, code, fre, validate_for(&alice, code, fre, arena), "[[\"Bo\"]]", arena);
    json_decref(ent);
    json_decref(fre);
    sluice_arena_free(arena);
}

/* ---- validate_code takes the kept facts of the same text ---------------------------------- */

static int64_t recalls(const char *call)
{
    return sluice_metric_value(SLUICE_METRIC_ANALYSIS_RECALLS, call, NULL, NULL);
}

/* validate_code of code for who (valid, a token): whether the kept facts answered it. */
static bool validate_recalls(const sluice_codemode_caller *who,
                             const char *code,
                             const json_t *variables,
                             sluice_arena *arena)
{
    int64_t before = recalls("validate");
    validate_for(who, code, variables, arena);
    int64_t n = recalls("validate") - before;
    assert_in_range(n, 0, 1);
    return n == 1;
}

/* The same text again: the kept facts answer, the token is new and runs (execute recalls too). */
static void test_recall_validate_takes_the_kept_facts_of_the_same_text(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *code = "SELECT name FROM customers WHERE plan = 'enterprise' ORDER BY name";
    assert_false(validate_recalls(&alice, code, NULL, arena));
    int64_t executed = recalls("execute");
    for (int i = 0; i < 3; i++) {
        int64_t before = recalls("validate");
        const char *token = validate_for(&alice, code, NULL, arena);
        assert_int_equal(recalls("validate") - before, 1);
        expect_rows(&alice, code, NULL, token, "[[\"Ada\"],[\"Cy\"]]", arena);
    }
    assert_int_equal(recalls("execute") - executed, 3);
    sluice_arena_free(arena);
}

/* The bytes, the variables, the context (the caller's groups here) and the expiry are the key:
 * change one and the code is analysed again. The user alone is not: nothing of the analysis
 * depends on who asks on a read-only DuckDB file, and the token is still bound to its caller. */
static void test_recall_validate_misses_when_any_part_of_the_key_changes(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *code = "SELECT id FROM customers WHERE plan = $plan ORDER BY id";
    json_t *ent = json_pack("{s:s}", "plan", "enterprise");
    json_t *fre = json_pack("{s:s}", "plan", "free");
    assert_false(validate_recalls(&alice, code, ent, arena));
    assert_true(validate_recalls(&alice, code, ent, arena));
    /* another user of the same context: the same facts, a token of their own */
    const char *t_bob = NULL;
    int64_t before = recalls("validate");
    t_bob = validate_for(&bob, code, ent, arena);
    assert_int_equal(recalls("validate") - before, 1);
    expect_refused(&alice, code, ent, t_bob, arena);
    expect_rows(&bob, code, ent, t_bob, "[[1],[3]]", arena);
    /* other bytes of the same canonical form (kept under the canonical key now, in place of
     * the plain text's facts: the plain text misses once) */
    assert_false(validate_recalls(
        &alice, "SELECT id FROM customers WHERE plan = $plan ORDER BY id ", ent, arena));
    assert_false(validate_recalls(&alice, code, ent, arena));
    /* other variables */
    assert_false(validate_recalls(&alice, code, fre, arena));
    /* another context: carol's groups are in it */
    assert_false(validate_recalls(&carol, code, ent, arena));
    assert_true(validate_recalls(&carol, code, ent, arena));
    /* expired with the token first issued for them */
    sluice_manual_clock_advance_ms(&clock_, (TTL + 1) * 1000);
    assert_false(validate_recalls(&alice, code, ent, arena));
    assert_true(validate_recalls(&alice, code, ent, arena));
    json_decref(ent);
    json_decref(fre);
    sluice_arena_free(arena);
}

/* A refused analysis is never kept: it is made again, and refused again, every time. */
static void test_recall_validate_never_recalls_a_refusal(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *code = "SELECT ssn FROM customers";
    int64_t before = recalls("validate");
    for (int i = 0; i < 2; i++) {
        json_t *out = NULL;
        sluice_error err = { 0 };
        const sluice_codemode_request req = {
            .arena = arena, .caller = &alice, .code = code, .code_len = strlen(code), .err = &err
        };
        assert_int_equal(sluice_codemode_validate(fx.cm, &req, &out), SLUICE_OK);
        assert_true(json_is_false(json_object_get(out, "valid")));
        assert_true(json_is_null(json_object_get(out, "approval_token")));
        json_decref(out);
    }
    assert_int_equal(recalls("validate"), before);
    sluice_arena_free(arena);
}

/* Where the data can change (code mode may write, so the file is opened read_write), the
 * planner's estimate can move: validate analyses every time. */
static void test_recall_validate_never_recalls_where_the_data_can_change(void **state)
{
    (void)state;
    oom_codemode rw = { 0 };
    assert_int_equal(oom_codemode_over(&rw, "recall-rw", KEY_ENV "_RW", "recall",
                                       OOM_CODEMODE_CUSTOMERS, "sql_allow_writes = true\n"),
                     0);
    sluice_arena *arena = sluice_arena_new();
    int64_t before = recalls("validate");
    for (int i = 0; i < 2; i++) {
        json_t *out = NULL;
        sluice_error err = { 0 };
        const sluice_codemode_request req = { .arena = arena,
                                              .caller = &alice,
                                              .code = enterprise,
                                              .code_len = strlen(enterprise),
                                              .err = &err };
        assert_int_equal(sluice_codemode_validate(rw.cm, &req, &out), SLUICE_OK);
        assert_true(json_is_true(json_object_get(out, "valid")));
        json_decref(out);
    }
    assert_int_equal(recalls("validate"), before);
    sluice_arena_free(arena);
    oom_codemode_close(&rw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recall_the_same_text_runs_again_and_again),
        cmocka_unit_test(test_recall_a_swapped_text_never_rides_on_the_token),
        cmocka_unit_test(test_recall_a_whitespace_variant_runs_as_its_canonical_form),
        cmocka_unit_test(test_recall_another_caller_is_refused),
        cmocka_unit_test(test_recall_other_variables_are_refused),
        cmocka_unit_test(test_recall_validate_takes_the_kept_facts_of_the_same_text),
        cmocka_unit_test(test_recall_validate_misses_when_any_part_of_the_key_changes),
        cmocka_unit_test(test_recall_validate_never_recalls_a_refusal),
        cmocka_unit_test(test_recall_validate_never_recalls_where_the_data_can_change),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
