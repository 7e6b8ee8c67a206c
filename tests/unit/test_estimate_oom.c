/*
 * test_estimate_oom.c — the estimate as the pipeline decides with it (issue 24: cost known
 * before approval, and bound into it), under allocation failure: every allocation point of a
 * validate_code or execute_code call is failed in turn, through the public API on a real DuckDB.
 * A read DuckDB estimates above the route's max_estimated_rows never gets a token; a token whose
 * estimate the data outgrew past estimate_drift_factor never runs; a read within both is
 * validated right (its estimate signed into the token) or not at all. test_estimate.c sweeps the
 * checks themselves; this sweeps the wired decision around them.
 */
#include "core/json_splice.h"
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_ESTIMATE_OOM_KEY"
/* DuckDB answers a bare count(*) from its catalog; the filter makes it scan (and estimate) */
#define COUNT "SELECT count(*) AS n FROM reps WHERE name <> ''"
#define GROW  "INSERT INTO reps (id, name) SELECT id, name FROM reps WHERE id > 0"

static oom_codemode fx;
static sluice_identity who = { .user_id = "alice", .method = "test" };
static const sluice_codemode_caller caller = { .identity = &who, .session_id = "session-1" };

static int setup(void **state)
{
    (void)state;
    if (oom_codemode_files(&fx, "estimate-oom", KEY_ENV,
                           "CREATE TABLE reps(id INTEGER, name VARCHAR);"
                           "INSERT INTO reps SELECT i, 'rep ' || i FROM range(1, 41) t(i);") != 0)
        return -1;
    char text[2048];
    snprintf(text, sizeof text,
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\n"
             "[code_mode]\nenabled = true\nserver_id = \"oom\"\n"
             "token_secret_env = \"" KEY_ENV "\"\n"
             "auto_approve_levels = [\"low\", \"medium\", \"high\"]\n"
             "sql_allow_writes = true\nmax_estimated_rows = 1000\n",
             fx.db);
    return oom_codemode_open(&fx, text);
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    return 0;
}

typedef struct estimate_case {
    const char *code;
    const char *token;     /* execute: the token to run with */
    json_int_t rows, cost; /* validate: the baseline's estimate */
    char message[512];     /* the last refusal's message (a sweep's last run is unfaulted) */
} estimate_case;

static sluice_codemode_request
request_of(sluice_arena *arena, const char *code, const char *token, sluice_error *err)
{
    return (sluice_codemode_request){ .arena = arena,
                                      .caller = &caller,
                                      .code = code,
                                      .code_len = strlen(code),
                                      .token = token,
                                      .err = err };
}

/* validate_code: refused by max_estimated_rows (no token), or valid with a token and the
 * baseline's estimate. record: this is the baseline. */
static oom_outcome validate(estimate_case *c, bool record, char **token_out, sluice_arena *arena)
{
    json_t *v = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = request_of(arena, c->code, NULL, &err);
    if (sluice_codemode_validate(fx.cm, &req, &v) != SLUICE_OK)
        return OOM_FAILED;
    const char *token = json_string_value(json_object_get(v, "approval_token"));
    /* the metadata is a splice: read as its tree, unfaulted (the test's reading, not validate) */
    long left = sluice_arena_fail_remaining();
    sluice_arena_fail_at(0);
    json_t *plain = sluice_json_splice_expand(v);
    if (left > 0)
        sluice_arena_fail_at(left);
    const json_t *meta = json_object_get(plain, "metadata");
    json_int_t rows = json_integer_value(json_object_get(meta, "estimatedRows"));
    json_int_t cost = (json_int_t)json_number_value(json_object_get(meta, "estimatedCost"));
    const json_t *first = json_array_get(json_object_get(v, "violations"), 0);
    const char *rule = json_string_value(json_object_get(first, "rule"));
    oom_outcome o = OOM_WRONG;
    if (json_is_false(json_object_get(v, "valid")))
        o = token == NULL && rule != NULL && strcmp(rule, "max_estimated_rows") == 0 ? OOM_REFUSED
                                                                                     : OOM_WRONG;
    else if (json_is_true(json_object_get(v, "valid")) && token != NULL)
        o = record || (rows == c->rows && cost == c->cost) ? OOM_ALLOWED : OOM_WRONG;
    if (record) {
        c->rows = rows;
        c->cost = cost;
    }
    if (token_out != NULL && o == OOM_ALLOWED)
        *token_out = sluice_arena_strdup(arena, token);
    json_decref(plain);
    json_decref(v);
    return o;
}

static oom_outcome run_validate(void *ctx)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    oom_outcome o = validate(ctx, false, NULL, arena);
    sluice_arena_free(arena);
    return o;
}

/* execute_code with the case's token: refused, failed, or run, which is never right here (the
 * token must not run); the refusal's message is kept for the unfaulted run's check. */
static oom_outcome run_execute(void *ctx)
{
    estimate_case *c = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    json_t *out = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = request_of(arena, c->code, c->token, &err);
    sluice_status st = sluice_codemode_execute(fx.cm, &req, &out, &text);
    /* under a fault any refusal is safe; the unfaulted run (a sweep's last) must be the drift */
    oom_outcome o = st == SLUICE_OK                                 ? OOM_WRONG
                    : st == SLUICE_E_TOKEN || st == SLUICE_E_DENIED ? OOM_REFUSED
                                                                    : OOM_FAILED;
    if (o == OOM_REFUSED)
        snprintf(c->message, sizeof c->message, "%s", err.message != NULL ? err.message : "");
    json_decref(out);
    sluice_arena_free(arena);
    return o;
}

static long
sweep(const char *name, oom_outcome (*run)(void *), estimate_case *c, oom_outcome expect)
{
    long points = oom_sweep(name, run, c, expect, OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
    return points;
}

/* Runs code (validated and executed without faults): the table doubles with GROW. */
static void run_clean(const char *code)
{
    sluice_arena *arena = sluice_arena_new();
    estimate_case c = { .code = code };
    char *token = NULL;
    assert_int_equal(validate(&c, true, &token, arena), OOM_ALLOWED);
    json_t *out = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = request_of(arena, code, token, &err);
    sluice_status st = sluice_codemode_execute(fx.cm, &req, &out, &text);
    if (st != SLUICE_OK)
        fprintf(stderr, "%s: %s\n", code, err.message);
    assert_int_equal(st, SLUICE_OK);
    json_decref(out);
    sluice_arena_free(arena);
}

static void test_estimate_oom_over_the_limit_never_gets_a_token(void **state)
{
    (void)state;
    estimate_case c = { .code = "SELECT i FROM range(5000) t(i)" };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(validate(&c, true, NULL, arena), OOM_REFUSED);
    sluice_arena_free(arena);
    sweep("validate a read DuckDB estimates at 5000 rows, max_estimated_rows 1000", run_validate,
          &c, OOM_REFUSED);
}

static void test_estimate_oom_within_the_limit_validates_right_or_not_at_all(void **state)
{
    (void)state;
    estimate_case c = { .code = COUNT };
    sluice_arena *arena = sluice_arena_new();
    assert_int_equal(validate(&c, true, NULL, arena), OOM_ALLOWED);
    sluice_arena_free(arena);
    assert_true(c.rows == 1 && c.cost > 0);
    sweep("validate a count DuckDB estimates", run_validate, &c, OOM_ALLOWED);
}

/* Last: it grows the table. A token for the count over 40 rows, then 640 rows (sixteen times):
 * every faulted execute fails or is refused for drift, never runs. */
static void test_estimate_oom_drifted_token_never_runs(void **state)
{
    (void)state;
    estimate_case c = { .code = COUNT };
    sluice_arena *arena = sluice_arena_new();
    char *token = NULL;
    assert_int_equal(validate(&c, true, &token, arena), OOM_ALLOWED);
    for (int i = 0; i < 4; i++)
        run_clean(GROW);
    c.token = token;
    sweep("execute a token the data outgrew", run_execute, &c, OOM_REFUSED);
    /* what the caller reads: then, now, the factor, what to do */
    char then[64];
    snprintf(then, sizeof then, "1 rows at a cost of %lld were approved", (long long)c.cost);
    assert_non_null(strstr(c.message, then));
    assert_non_null(strstr(c.message, "estimate_drift_factor (10)"));
    assert_non_null(strstr(c.message, "call validate_code again"));
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_oom_over_the_limit_never_gets_a_token),
        cmocka_unit_test(test_estimate_oom_within_the_limit_validates_right_or_not_at_all),
        cmocka_unit_test(test_estimate_oom_drifted_token_never_runs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
