/*
 * test_token_oom.c — approval tokens under allocation failure: every allocation point of issue
 * and verify is failed in turn. An issued token either fails or verifies; a verification that
 * lost an allocation never passes, and a bad token is never accepted.
 */
#include "core/limits.h"
#include "oom_sweep.h"
#include "token/token.h"
#include "unit.h"

#include <string.h>

#define NOW 1800000000

static sluice_secret_ring *ring;
static sluice_token_claims want;

static int setup(void **state)
{
    (void)state;
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_secret *key = NULL;
    if (sluice_secret_generate("cur", line, sizeof line) != SLUICE_OK ||
        sluice_secret_parse(line, strlen(line), "test", &key, NULL, NULL) != SLUICE_OK ||
        sluice_secret_ring_new(key, &ring) != SLUICE_OK)
        return -1;
    sluice_hash_sha256("SELECT 1", 8, want.code_hash);
    sluice_hash_sha256("schema+policy", 13, want.context_hash);
    sluice_hash_sha256("{}", 2, want.variables_hash);
    want.user_id = "alice";
    want.session_id = "session-1";
    want.server_id = "sluice-test";
    want.action = SLUICE_ACTION_READ;
    want.risk = SLUICE_RISK_LOW;
    oom_count_jansson();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_secret_ring_free(ring);
    return 0;
}

/* Verifies token against `expected` in a fresh arena. */
static oom_outcome verify(const char *token, const sluice_token_claims *expected)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_token_claims got;
    sluice_token_check check = { token, strlen(token), ring, NOW + 1 };
    sluice_status st = sluice_token_verify(&check, expected, arena, &got, &problem, &err);
    oom_outcome o = OOM_FAILED;
    if (st == SLUICE_OK)
        o = problem == SLUICE_TOKEN_OK && strcmp(got.user_id, expected->user_id) == 0 &&
                    strcmp(got.session_id, expected->session_id) == 0
                ? OOM_ALLOWED
                : OOM_WRONG;
    else if (st == SLUICE_E_TOKEN)
        o = problem != SLUICE_TOKEN_OK ? OOM_REFUSED : OOM_WRONG;
    sluice_arena_free(arena);
    return o;
}

/* Issues under the fault; a token that comes out must verify (checked without a fault). */
static oom_outcome run_issue(void *ctx)
{
    (void)ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_token_claims claims = want;
    char *token = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = sluice_token_issue(ring, &claims, NOW, 300, arena, &token, &err);
    oom_outcome o = OOM_FAILED;
    if (st == SLUICE_OK && token != NULL) {
        long left = sluice_arena_fail_remaining(); /* judge the token without faults */
        sluice_arena_fail_at(0);
        o = verify(token, &want);
        sluice_arena_fail_at(left);
    } else if (st == SLUICE_OK) {
        o = OOM_WRONG;
    }
    sluice_arena_free(arena);
    return o;
}

typedef struct verify_case {
    const char *token;
    const sluice_token_claims *expected;
} verify_case;

static oom_outcome run_verify(void *ctx)
{
    const verify_case *c = ctx;
    return verify(c->token, c->expected);
}

static char *issue_now(sluice_arena *arena)
{
    sluice_token_claims claims = want;
    char *token = NULL;
    assert_int_equal(sluice_token_issue(ring, &claims, NOW, 300, arena, &token, NULL), SLUICE_OK);
    return token;
}

static void report(const char *name, long points, long at_least)
{
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points >= at_least);
}

static void test_token_oom_issue_fails_or_verifies(void **state)
{
    (void)state;
    report("issue",
           oom_sweep("issue", run_issue, NULL, OOM_ALLOWED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED)),
           1);
}

static void test_token_oom_verify_never_passes_after_a_failure(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    verify_case c = { issue_now(arena), &want };
    /* under a fault only an error or a refusal: never a pass */
    report("verify a good token",
           oom_sweep("verify a good token", run_verify, &c, OOM_ALLOWED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1); /* the server id: the only string a token carries since version 3 */
    sluice_arena_free(arena);
}

static void test_token_oom_bad_tokens_stay_refused(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    char *token = issue_now(arena);
    char *forged = sluice_arena_strdup(arena, token);
    size_t n = strlen(forged);
    forged[n - 2] = forged[n - 2] == 'A' ? 'B' : 'A'; /* the MAC's last characters */
    sluice_token_claims other = want;
    sluice_hash_sha256("SELECT 2", 8, other.code_hash);
    verify_case cases[] = { { forged, &want }, { token, &other } };
    const char *names[] = { "verify a forged MAC", "verify for other code" };
    for (size_t i = 0; i < 2; i++)
        report(names[i],
               oom_sweep(names[i], run_verify, &cases[i], OOM_REFUSED,
                         OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
               1);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_oom_issue_fails_or_verifies),
        cmocka_unit_test(test_token_oom_verify_never_passes_after_a_failure),
        cmocka_unit_test(test_token_oom_bad_tokens_stay_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
