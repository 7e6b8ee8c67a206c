/*
 * test_state_oom.c — the shared-state deciding paths under allocation failure, on a real
 * redis-server (redis_fixture.h): the Redis token store's consume, the Redis approval store's
 * get/request/decide, and token/approval_state.c's seal and open (its single use recorded in
 * the Redis token store). Every allocation point is failed in turn (oom_sweep.h). A failed run
 * is never a clean verdict: a used token or state never passes, a rejected request is never
 * read as approved, and a consume or open that failed leaves the id used (the follow-up without
 * a fault is refused), so a failure can never give a token a second run.
 */
#include "codemode/approval_gate.h"
#include "core/hash.h"
#include "core/limits.h"
#include "oom_sweep.h"
#include "redis_fixture.h"
#include "state/state_redis.h"
#include "token/approval_state.h"
#include "token/key_store.h"
#include "unit.h"

#include <string.h>

#define NOW   1800000000
#define TOKEN "sluice-token-for-alice"

static redis_fixture fx;
static sluice_replay *replay;
static sluice_approval_store *approvals;
static sluice_key_store *keys;
static sluice_arena *keep;
static char key_path[160];
static unsigned serial; /* fresh ids per run */

static void fresh_id(const char *what, uint8_t id[SLUICE_REPLAY_ID_BYTES], char *hex)
{
    char seed[64];
    snprintf(seed, sizeof seed, "%s-%u", what, serial++);
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(seed, strlen(seed), h);
    memcpy(id, h, SLUICE_REPLAY_ID_BYTES);
    if (hex != NULL)
        sluice_hash_hex(id, SLUICE_REPLAY_ID_BYTES, hex);
}

static int setup(void **state)
{
    (void)state;
    keep = sluice_arena_new();
    if (keep == NULL || !redis_fixture_init(&fx))
        return -1;
    snprintf(key_path, sizeof key_path, "%s/token.key", fx.dir);
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    FILE *f = fopen(key_path, "w");
    if (f == NULL || sluice_secret_generate("k1", line, sizeof line) != SLUICE_OK)
        return -1;
    fputs(line, f);
    fclose(f);
    chmod(key_path, 0600);
    sluice_state_redis_options o = {
        .connection = { .url = fx.url, .password_file = fx.password_file, .timeout_ms = 5000 },
        .prefix = "oom:",
    };
    sluice_error err = { 0 };
    sluice_key_sources src = { .file = key_path };
    if (sluice_replay_open_redis(&o, &replay, keep, &err) != SLUICE_OK ||
        sluice_approval_open_redis(&o, &approvals, keep, &err) != SLUICE_OK ||
        sluice_key_store_open(&src, &keys, keep, &err) != SLUICE_OK)
        return -1;
    oom_count_jansson();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_replay_close(replay);
    sluice_approval_close(approvals);
    sluice_key_store_close(keys);
    redis_fixture_free(&fx);
    sluice_arena_free(keep);
    return 0;
}

static void report(const char *name, long points, long at_least)
{
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points >= at_least);
}

/* A failed consume must leave the id used: the retry without a fault is refused. */
static oom_outcome after_failure(sluice_status retried)
{
    return retried == SLUICE_E_DENIED ? OOM_FAILED : OOM_WRONG;
}

static oom_outcome run_consume_fresh(void *ctx)
{
    (void)ctx;
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    fresh_id("fresh", id, NULL);
    sluice_status st = sluice_replay_consume(replay, id, NOW + 300, NOW);
    if (st == SLUICE_OK)
        return OOM_ALLOWED;
    if (st == SLUICE_E_DENIED)
        return OOM_WRONG;
    return after_failure(sluice_replay_consume(replay, id, NOW + 300, NOW));
}

static oom_outcome run_consume_used(void *ctx)
{
    const uint8_t *id = ctx;
    sluice_status st = sluice_replay_consume(replay, id, NOW + 300, NOW);
    return st == SLUICE_OK ? OOM_WRONG : st == SLUICE_E_DENIED ? OOM_REFUSED : OOM_FAILED;
}

static void test_redis_consume_never_passes_twice(void **unused)
{
    (void)unused;
    report("consume a fresh id",
           oom_sweep("consume a fresh id", run_consume_fresh, NULL, OOM_ALLOWED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED)),
           1);
    uint8_t used[SLUICE_REPLAY_ID_BYTES];
    fresh_id("used", used, NULL);
    assert_int_equal(sluice_replay_consume(replay, used, NOW + 300, NOW), SLUICE_OK);
    report("consume a used id",
           oom_sweep("consume a used id", run_consume_used, used, OOM_REFUSED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1);
}

static oom_outcome run_get(void *ctx)
{
    const char *id = ctx; /* a rejected request */
    sluice_approval a = sluice_approval_get(approvals, id, NOW + 1);
    if (a.state == SLUICE_APPROVAL_APPROVED)
        return OOM_WRONG;
    return a.state == SLUICE_APPROVAL_REJECTED ? OOM_REFUSED : OOM_FAILED;
}

static oom_outcome run_request_and_decide(void *ctx)
{
    (void)ctx;
    uint8_t raw[SLUICE_REPLAY_ID_BYTES];
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    fresh_id("decide", raw, id);
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_error err = { 0 };
    sluice_approval a;
    oom_outcome o = OOM_FAILED;
    if (sluice_approval_request(approvals, &(sluice_approval_ask){ id, NOW + 300, "alice", "s" },
                                NOW, &a, arena, &err) == SLUICE_OK) {
        sluice_status st = sluice_approval_decide(
            approvals, &(sluice_approval_decision){ id, false, "root", true }, NOW + 1, &a, arena,
            &err);
        if (st == SLUICE_OK)
            o = a.state == SLUICE_APPROVAL_REJECTED ? OOM_ALLOWED : OOM_WRONG;
        /* Whatever happened, a rejection is never read back as an approval. */
        if (sluice_approval_get(approvals, id, NOW + 2).state == SLUICE_APPROVAL_APPROVED)
            o = OOM_WRONG;
    }
    sluice_arena_free(arena);
    return o;
}

static void test_redis_approvals_never_approve_after_a_failure(void **unused)
{
    (void)unused;
    uint8_t raw[SLUICE_REPLAY_ID_BYTES];
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    fresh_id("rejected", raw, id);
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_request(approvals,
                                             &(sluice_approval_ask){ id, NOW + 300, "alice", "s" },
                                             NOW, NULL, keep, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_approval_decide(approvals,
                                            &(sluice_approval_decision){ id, false, "root", true },
                                            NOW, NULL, keep, &err),
                     SLUICE_OK);
    report("get a rejected request",
           oom_sweep("get a rejected request", run_get, id, OOM_REFUSED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1);
    report("request and decide",
           oom_sweep("request and decide", run_request_and_decide, NULL, OOM_ALLOWED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED)),
           3);
}

typedef struct state_case {
    const char *user; /* who presents it */
    bool tamper;      /* flip one character of the sealed text */
} state_case;

static oom_outcome run_state(void *ctx)
{
    const state_case *c = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_error err = { 0 };
    char *state = NULL;
    oom_outcome o = OOM_FAILED;
    if (sluice_approval_state_seal(keys, &(sluice_approval_state_binding){ "alice", TOKEN }, NOW,
                                   arena, &state, &err) != SLUICE_OK) {
        sluice_arena_free(arena);
        return OOM_FAILED;
    }
    if (c->tamper)
        state[strlen(state) - 3] ^= 0x01;
    sluice_status st = sluice_approval_state_open(
        keys, replay, &(sluice_approval_state_answer){ state, { c->user, TOKEN } }, NOW + 1, arena,
        &err);
    if (st == SLUICE_OK)
        o = !c->tamper && strcmp(c->user, "alice") == 0 ? OOM_ALLOWED : OOM_WRONG;
    else if (st == SLUICE_E_TOKEN || st == SLUICE_E_DENIED)
        o = OOM_REFUSED;
    else /* the use could not be recorded: the same state must not open later either */
        o = sluice_approval_state_open(keys, replay,
                                       &(sluice_approval_state_answer){ state, { c->user, TOKEN } },
                                       NOW + 1, arena, &err) == SLUICE_E_DENIED
                ? OOM_FAILED
                : OOM_WRONG;
    sluice_arena_free(arena);
    return o;
}

/* One sealed state, opened once in setup; every run replays it. */
static char replayed[512];

static oom_outcome run_state_replayed(void *ctx)
{
    (void)ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_error err = { 0 };
    sluice_status st = sluice_approval_state_open(
        keys, replay, &(sluice_approval_state_answer){ replayed, { "alice", TOKEN } }, NOW + 1,
        arena, &err);
    sluice_arena_free(arena);
    return st == SLUICE_OK ? OOM_WRONG : st == SLUICE_E_DENIED ? OOM_REFUSED : OOM_FAILED;
}

static void test_approval_state_never_opens_after_a_failure(void **unused)
{
    (void)unused;
    state_case good = { "alice", false };
    report("seal and open a good state",
           oom_sweep("seal and open a good state", run_state, &good, OOM_ALLOWED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_ALLOWED)),
           2);
    state_case tampered = { "alice", true }, stranger = { "mallory", false };
    report("a tampered state",
           oom_sweep("a tampered state", run_state, &tampered, OOM_REFUSED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1);
    report("another principal's state",
           oom_sweep("another principal's state", run_state, &stranger, OOM_REFUSED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1);
    char *state = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_state_seal(keys,
                                                &(sluice_approval_state_binding){ "alice", TOKEN },
                                                NOW, keep, &state, &err),
                     SLUICE_OK);
    snprintf(replayed, sizeof replayed, "%s", state);
    assert_int_equal(
        sluice_approval_state_open(keys, replay,
                                   &(sluice_approval_state_answer){ replayed, { "alice", TOKEN } },
                                   NOW + 1, keep, &err),
        SLUICE_OK);
    report("a replayed state",
           oom_sweep("a replayed state", run_state_replayed, NULL, OOM_REFUSED,
                     OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED)),
           1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redis_consume_never_passes_twice),
        cmocka_unit_test(test_redis_approvals_never_approve_after_a_failure),
        cmocka_unit_test(test_approval_state_never_opens_after_a_failure),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
