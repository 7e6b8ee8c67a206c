/*
 * test_codemode_recall.c — execute_code reusing what validate_code kept, tried by someone who
 * wants it to run what was not approved: the same text runs with the validated answer; another
 * text under the token (a swapped statement, or one that reads another column) is refused; a
 * whitespace-only variant still runs as the statement it canonically is; another caller, other
 * variables and a second use are refused. Every case runs on a DuckDB file served read_only,
 * where execute reuses the kept analysis and the executor its prepared statement, and the same
 * texts run again afterwards, so a kept analysis or statement is what answers them.
 */
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_RECALL_KEY"

static oom_codemode fx;
static sluice_identity alice_id = { .user_id = "alice", .method = "test" };
static sluice_identity bob_id = { .user_id = "bob", .method = "test" };
static const sluice_codemode_caller alice = { .identity = &alice_id, .session_id = "s1" };
static const sluice_codemode_caller bob = { .identity = &bob_id, .session_id = "s2" };

static const char enterprise[] = "SELECT name FROM customers WHERE plan = 'enterprise' ORDER BY id";

static int setup(void **state)
{
    (void)state;
    return oom_codemode_customers(&fx, "recall", KEY_ENV, "recall");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recall_the_same_text_runs_again_and_again),
        cmocka_unit_test(test_recall_a_swapped_text_never_rides_on_the_token),
        cmocka_unit_test(test_recall_a_whitespace_variant_runs_as_its_canonical_form),
        cmocka_unit_test(test_recall_another_caller_is_refused),
        cmocka_unit_test(test_recall_other_variables_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
