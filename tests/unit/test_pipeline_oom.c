/*
 * test_pipeline_oom.c — validate_code and execute_code (codemode.h) under allocation failure:
 * every allocation point of a call is failed in turn. Code that must be refused is never
 * validated (no token), a clean read is validated right or not at all — analysed afresh, or
 * answered by the facts an earlier validation kept, and validated right afterwards whatever a
 * failed validation kept — and execute never runs code whose token is bad, nor returns rows
 * other than the right ones. Written against the public API only, so it holds whatever the
 * pipeline's inside looks like.
 */
#include "core/json_splice.h"
#include "core/json_write.h"
#include "core/metrics.h"
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_PIPELINE_OOM_KEY"

static oom_codemode fx;
static sluice_identity who = { .user_id = "alice", .method = "test" };
static const sluice_codemode_caller caller = { .identity = &who, .session_id = "session-1" };

static int setup(void **state)
{
    (void)state;
    return oom_codemode_customers(&fx, "pipeline-oom", KEY_ENV, "oom");
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    return 0;
}

typedef struct pipeline_case {
    const char *code;
    const char *token;    /* execute: a fixed (bad) token; NULL: validate for a fresh one */
    char *answer;         /* validate: the baseline's answer but its token and expiry (malloc) */
    json_int_t row_count; /* execute: the baseline's */
    /* validate: each run sends a text never sent before (a numbered comment after the code),
     * so nothing kept answers it, then sends it again unfaulted: whatever the faulted call kept
     * must give the baseline's answer */
    bool fresh;
    long runs;
} pipeline_case;

/* v as compact text without what differs per call (the token and its expiry), its metadata
 * splice read as its tree; NULL on NOMEM. */
static char *answer_text(const json_t *v)
{
    json_t *copy = sluice_json_splice_expand(v);
    json_object_del(copy, "approval_token");
    json_object_del(copy, "expires_at");
    char *text = copy != NULL ? json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(copy);
    return text;
}

/* validate_code's verdict: refused (valid:false, no token) or allowed with a token and, but for
 * those, the baseline's answer byte for byte. Anything else is wrong. Judged with no fault armed
 * (the test's own allocations are not the pipeline's). */
static oom_outcome judge_validation(const json_t *v, pipeline_case *c, bool record)
{
    if (!json_is_object(v))
        return OOM_WRONG;
    const json_t *valid = json_object_get(v, "valid");
    const char *token = json_string_value(json_object_get(v, "approval_token"));
    if (json_is_false(valid))
        return token == NULL && json_array_size(json_object_get(v, "violations")) > 0 ? OOM_REFUSED
                                                                                      : OOM_WRONG;
    if (!json_is_true(valid) || token == NULL)
        return OOM_WRONG;
    char *text = answer_text(v);
    if (text == NULL)
        return OOM_WRONG;
    if (record) {
        free(c->answer);
        c->answer = text;
        return OOM_ALLOWED;
    }
    oom_outcome o = c->answer != NULL && strcmp(text, c->answer) == 0 ? OOM_ALLOWED : OOM_WRONG;
    free(text);
    return o;
}

static oom_outcome validate_text(
    pipeline_case *c, const char *code, bool record, char **token_out, sluice_arena *arena)
{
    json_t *out = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = arena, .caller = &caller, .code = code, .code_len = strlen(code), .err = &err
    };
    sluice_status st = sluice_codemode_validate(fx.cm, &req, &out);
    long left = sluice_arena_fail_remaining(); /* judged unfaulted, then re-armed */
    sluice_arena_fail_at(0);
    oom_outcome o = st != SLUICE_OK ? OOM_FAILED : judge_validation(out, c, record);
    if (o == OOM_WRONG) { /* say what was wrong */
        char *d = out != NULL ? sluice_json_write_text(out, NULL) : NULL;
        fprintf(stderr, "wrong validation: %s\n", d != NULL ? d : "(no result)");
        free(d);
    }
    if (token_out != NULL && o == OOM_ALLOWED)
        *token_out =
            sluice_arena_strdup(arena, json_string_value(json_object_get(out, "approval_token")));
    json_decref(out);
    if (left > 0)
        sluice_arena_fail_at(left);
    return o;
}

static oom_outcome validate(pipeline_case *c, bool record, char **token_out, sluice_arena *arena)
{
    return validate_text(c, c->code, record, token_out, arena);
}

static oom_outcome run_validate(void *ctx)
{
    pipeline_case *c = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    const char *code =
        c->fresh ? sluice_arena_printf(arena, "%s\n-- run %ld", c->code, ++c->runs) : c->code;
    oom_outcome o = code != NULL ? validate_text(c, code, false, NULL, arena) : OOM_FAILED;
    if (c->fresh && code != NULL) {
        long left = sluice_arena_fail_remaining();
        sluice_arena_fail_at(0);
        sluice_arena *again = sluice_arena_new(); /* arena's failure is sticky */
        if (again == NULL || validate_text(c, code, false, NULL, again) != OOM_ALLOWED)
            o = OOM_WRONG;
        sluice_arena_free(again);
        if (left > 0)
            sluice_arena_fail_at(left);
    }
    sluice_arena_free(arena);
    return o;
}

/* execute_code with a token from an unfaulted validate (or the case's bad token): refused,
 * or the baseline's rows. */
static oom_outcome execute(pipeline_case *c, bool record)
{
    long left = sluice_arena_fail_remaining();
    sluice_arena_fail_at(0);
    sluice_arena *arena = sluice_arena_new();
    char *token = (char *)c->token;
    if (arena == NULL || (token == NULL && validate(c, false, &token, arena) != OOM_ALLOWED)) {
        sluice_arena_free(arena);
        return OOM_WRONG; /* the unfaulted validate must issue a token */
    }
    sluice_arena_fail_at(left);
    json_t *out = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &caller,
                                          .code = c->code,
                                          .code_len = strlen(c->code),
                                          .token = token,
                                          .err = &err };
    sluice_status st = sluice_codemode_execute(fx.cm, &req, &out, &text);
    oom_outcome o = OOM_FAILED;
    if (st == SLUICE_E_TOKEN || st == SLUICE_E_DENIED) {
        o = OOM_REFUSED;
    } else if (st == SLUICE_OK) {
        json_int_t rows = json_integer_value(json_object_get(out, "row_count"));
        if (record)
            c->row_count = rows;
        o = text != NULL && json_is_integer(json_object_get(out, "row_count")) &&
                    rows == c->row_count
                ? OOM_ALLOWED
                : OOM_WRONG;
    }
    json_decref(out);
    sluice_arena_free(arena);
    return o;
}

static oom_outcome run_execute(void *ctx)
{
    return execute(ctx, false);
}

static long
sweep(const char *name, oom_outcome (*run)(void *), pipeline_case *c, oom_outcome expect)
{
    unsigned ok = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(expect);
    if (run == run_execute)
        ok |= OOM_ACCEPT(OOM_REFUSED); /* refusing to run is always safe */
    long points = oom_sweep(name, run, c, expect, ok);
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
    return points;
}

static void test_pipeline_oom_blocked_output_never_gets_a_token(void **state)
{
    (void)state;
    pipeline_case c = { .code = "SELECT upper(ssn) AS x FROM customers" };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(validate(&c, true, NULL, arena), OOM_REFUSED);
    sluice_arena_free(arena);
    sweep("validate upper(ssn)", run_validate, &c, OOM_REFUSED);
}

static int64_t recalls(void)
{
    return sluice_metric_value(SLUICE_METRIC_ANALYSIS_RECALLS, "validate", NULL, NULL);
}

/* Analysed afresh on every run; the kept facts of each then answer its text right. */
static void test_pipeline_oom_clean_read_validates_right_or_not_at_all(void **state)
{
    (void)state;
    pipeline_case c = { .code = "SELECT name FROM customers WHERE plan = 'enterprise' LIMIT 5",
                        .fresh = true };
    sluice_arena *arena = sluice_arena_new();
    int64_t before = recalls();
    assert_int_equal(validate_text(&c, c.code, true, NULL, arena), OOM_ALLOWED);
    assert_int_equal(validate(&c, false, NULL, arena), OOM_ALLOWED); /* kept and recalled */
    assert_int_equal(recalls() - before, 1);
    sluice_arena_free(arena);
    sweep("validate a clean read, first seen", run_validate, &c, OOM_ALLOWED);
    free(c.answer);
}

/* Answered by the facts the baseline kept on every run (the recall path under fault). */
static void test_pipeline_oom_recalled_read_validates_right_or_not_at_all(void **state)
{
    (void)state;
    pipeline_case c = { .code = "SELECT name FROM customers WHERE plan = 'free' LIMIT 5" };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(validate(&c, true, NULL, arena), OOM_ALLOWED);
    int64_t before = recalls();
    assert_int_equal(validate(&c, false, NULL, arena), OOM_ALLOWED);
    assert_int_equal(recalls() - before, 1);
    sluice_arena_free(arena);
    sweep("validate a clean read, recalled", run_validate, &c, OOM_ALLOWED);
    free(c.answer);
}

static void test_pipeline_oom_execute_returns_the_right_rows_or_nothing(void **state)
{
    (void)state;
    pipeline_case c = { .code = "SELECT name FROM customers WHERE plan = 'enterprise' LIMIT 5" };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(validate(&c, true, NULL, arena), OOM_ALLOWED);
    sluice_arena_free(arena);
    assert_int_equal(execute(&c, true), OOM_ALLOWED);
    assert_int_equal(c.row_count, 2);
    sweep("execute a clean read", run_execute, &c, OOM_ALLOWED);
    free(c.answer);
}

static void test_pipeline_oom_execute_never_runs_a_forged_token(void **state)
{
    (void)state;
    pipeline_case c = { .code = "SELECT name FROM customers WHERE plan = 'enterprise' LIMIT 5" };
    sluice_arena *arena = sluice_arena_new();
    char *token = NULL;
    assert_int_equal(validate(&c, true, &token, arena), OOM_ALLOWED);
    size_t n = strlen(token);
    token[n - 2] = token[n - 2] == 'A' ? 'B' : 'A';
    c.token = token;
    sweep("execute with a forged token", run_execute, &c, OOM_REFUSED);
    sluice_arena_free(arena);
    free(c.answer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_oom_blocked_output_never_gets_a_token),
        cmocka_unit_test(test_pipeline_oom_clean_read_validates_right_or_not_at_all),
        cmocka_unit_test(test_pipeline_oom_recalled_read_validates_right_or_not_at_all),
        cmocka_unit_test(test_pipeline_oom_execute_returns_the_right_rows_or_nothing),
        cmocka_unit_test(test_pipeline_oom_execute_never_runs_a_forged_token),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
