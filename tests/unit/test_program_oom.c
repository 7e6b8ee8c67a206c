/*
 * test_program_oom.c — the saved-call decision (codemode.h: sluice_codemode_run_program and
 * sluice_codemode_program_offered) under allocation failure: every allocation point of a call is
 * failed in turn. A saved call never runs for a caller the policy refuses or with arguments out
 * of bounds, never returns rows other than the right ones, and tools/list never offers a program
 * to a caller who would be refused. Written against the public API only, over a real DuckDB
 * file, a real Cedar policy and a real program store.
 */
#include "codemode/program.h"
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_PROGRAM_OOM_KEY"
#define PROGRAM "enterprise_names"

static oom_codemode fx;
static char path_buf[2][160]; /* policy, store */
static const char *const analysts[] = { "Analysts" };
static const char *const outsiders[] = { "Outsiders" };
static sluice_identity alice = {
    .user_id = "alice", .groups = analysts, .group_count = 1, .method = "test"
};
static sluice_identity bob = {
    .user_id = "bob", .groups = outsiders, .group_count = 1, .method = "test"
};
static const sluice_codemode_caller as_alice = { .identity = &alice, .session_id = "s-alice" };
static const sluice_codemode_caller as_bob = { .identity = &bob, .session_id = "s-bob" };

static int make_files(void)
{
    if (oom_codemode_files(&fx, "program-oom", KEY_ENV, OOM_CODEMODE_CUSTOMERS) != 0)
        return -1;
    static const char *const names[] = { "p.cedar", "programs.jsonl" };
    for (int i = 0; i < 2; i++)
        snprintf(path_buf[i], sizeof path_buf[i], "%s/%s", fx.dir, names[i]);
    FILE *f = fopen(path_buf[0], "w");
    if (f == NULL)
        return -1;
    fputs(
        "permit (principal in CodeMode::Group::\"Analysts\", action == CodeMode::Action::\"Read\","
        " resource);\n",
        f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Promotes PROGRAM as alice, its parameter derived from the example {"plan": "enterprise"}. */
static sluice_status promote(sluice_error *err, sluice_arena *arena)
{
    static const char code[] = "SELECT name FROM customers WHERE plan = $plan ORDER BY id LIMIT 5";
    json_t *vars = json_pack("{s:s}", "plan", "enterprise");
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &as_alice,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .variables = vars,
                                          .err = err };
    const sluice_codemode_promotion promotion = { .name = PROGRAM };
    json_t *out = NULL;
    sluice_status st = sluice_codemode_promote(fx.cm, &req, &promotion, &out);
    json_decref(out);
    json_decref(vars);
    return st;
}

static int setup(void **state)
{
    (void)state;
    if (make_files() != 0)
        return -1;
    char text[2048];
    snprintf(text, sizeof text,
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\n"
             "[code_mode]\nenabled = true\nserver_id = \"oom\"\n"
             "token_secret_env = \"" KEY_ENV "\"\nprograms_file = \"%s\"\n"
             "auto_approve_levels = [\"low\", \"medium\"]\nblocked_fields = [\"ssn\"]\n"
             "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\n",
             fx.db, path_buf[1], path_buf[0]);
    if (oom_codemode_open(&fx, text) != 0)
        return -1;
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_status st = arena != NULL ? promote(&err, arena) : SLUICE_E_NOMEM;
    if (st != SLUICE_OK)
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
    sluice_arena_free(arena);
    return st == SLUICE_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    return 0;
}

typedef struct saved_case {
    const sluice_codemode_caller *caller;
    const char *arguments; /* JSON */
} saved_case;

/* A saved call: refused, or exactly Ada and Cy (the enterprise customers). */
static oom_outcome run_call(void *ctx)
{
    const saved_case *c = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    json_t *args = json_loads(c->arguments, 0, NULL);
    if (args == NULL) {
        sluice_arena_free(arena);
        return OOM_FAILED;
    }
    json_t *out = NULL;
    char *text = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = arena, .caller = c->caller, .variables = args, .err = &err
    };
    sluice_status st = sluice_codemode_run_program(fx.cm, &req, PROGRAM, &out, &text);
    oom_outcome o = OOM_FAILED;
    if (st == SLUICE_E_DENIED) {
        o = OOM_REFUSED;
    } else if (st == SLUICE_OK) {
        const json_t *rows = json_object_get(out, "rows");
        const char *first = json_string_value(json_array_get(json_array_get(rows, 0), 0));
        const char *second = json_string_value(json_array_get(json_array_get(rows, 1), 0));
        o = text != NULL && json_array_size(rows) == 2 && first != NULL && second != NULL &&
                    strcmp(first, "Ada") == 0 && strcmp(second, "Cy") == 0
                ? OOM_ALLOWED
                : OOM_WRONG;
    }
    if (o == OOM_WRONG) {
        char *d = out != NULL ? json_dumps(out, 0) : NULL;
        fprintf(stderr, "wrong saved call: %s\n", d != NULL ? d : "(no result)");
        free(d);
    }
    json_decref(out);
    json_decref(args);
    sluice_arena_free(arena);
    return o;
}

/* tools/list's question: offered (ALLOWED) or not (REFUSED). */
static oom_outcome run_offered(void *ctx)
{
    const saved_case *c = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_program_catalog catalog;
    sluice_error err = { 0 };
    oom_outcome o = OOM_FAILED;
    if (sluice_codemode_programs(fx.cm, arena, &catalog, &err) == SLUICE_OK) {
        const sluice_program *p = sluice_program_find(&catalog, PROGRAM);
        o = p == NULL                                                     ? OOM_WRONG
            : sluice_codemode_program_offered(fx.cm, c->caller, arena, p) ? OOM_ALLOWED
                                                                          : OOM_REFUSED;
    }
    sluice_arena_free(arena);
    return o;
}

static void sweep(const char *name, oom_outcome (*run)(void *), saved_case *c, oom_outcome expect)
{
    /* failing, or refusing to run / to offer, is always safe; only the expected verdict is
     * accepted besides */
    unsigned ok = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(expect);
    long points = oom_sweep(name, run, c, expect, ok);
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
}

static void test_program_oom_saved_call_returns_the_right_rows_or_nothing(void **state)
{
    (void)state;
    saved_case c = { &as_alice, "{\"plan\": \"enterprise\"}" };
    assert_int_equal(run_call(&c), OOM_ALLOWED);
    sweep("saved call by a permitted caller", run_call, &c, OOM_ALLOWED);
}

static void test_program_oom_saved_call_never_runs_for_a_caller_the_policy_refuses(void **state)
{
    (void)state;
    saved_case c = { &as_bob, "{\"plan\": \"enterprise\"}" };
    assert_int_equal(run_call(&c), OOM_REFUSED);
    sweep("saved call by a caller Cedar refuses", run_call, &c, OOM_REFUSED);
}

static void test_program_oom_saved_call_never_runs_with_bad_arguments(void **state)
{
    (void)state;
    saved_case c = { &as_alice, "{\"plan\": \"enterprise\", \"code\": \"DROP TABLE customers\"}" };
    assert_int_equal(run_call(&c), OOM_REFUSED);
    sweep("saved call with an extra argument", run_call, &c, OOM_REFUSED);
}

static void test_program_oom_offered_only_to_a_caller_who_may_run_it(void **state)
{
    (void)state;
    saved_case permitted = { &as_alice, NULL };
    saved_case refused = { &as_bob, NULL };
    assert_int_equal(run_offered(&permitted), OOM_ALLOWED);
    assert_int_equal(run_offered(&refused), OOM_REFUSED);
    sweep("offered to a permitted caller", run_offered, &permitted, OOM_ALLOWED);
    sweep("not offered to a caller Cedar refuses", run_offered, &refused, OOM_REFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_oom_saved_call_returns_the_right_rows_or_nothing),
        cmocka_unit_test(test_program_oom_saved_call_never_runs_for_a_caller_the_policy_refuses),
        cmocka_unit_test(test_program_oom_saved_call_never_runs_with_bad_arguments),
        cmocka_unit_test(test_program_oom_offered_only_to_a_caller_who_may_run_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
