/*
 * test_state_redis.c — the state replicas share, on a real redis-server (redis_fixture.h):
 * a token id is consumed once over several store handles (replicas) and concurrent threads, its
 * key lives exactly as long as the token; an approval requested through one replica, decided
 * through a second, is seen by a third; of two concurrent decisions one wins; a request past its
 * expiry (injected clock values, no sleeps) cannot be approved; each unaudited decision is handed
 * to exactly one replica; a wrong password and a bad URL are refused clearly; Redis down makes
 * every deciding op fail (fail closed) with a message naming Redis, and the same handles work
 * again once it is back (reconnect).
 */
#include "core/hash.h"
#include "redis_fixture.h"
#include "state/state_redis.h"
#include "unit.h"

#include <pthread.h>
#include <string.h>

#define NOW 1800000000

static redis_fixture fx;
static sluice_arena *arena;

static int setup(void **state)
{
    (void)state;
    arena = sluice_arena_new();
    return arena != NULL && redis_fixture_init(&fx) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    redis_fixture_free(&fx);
    sluice_arena_free(arena);
    return 0;
}

static sluice_state_redis_options options(const char *prefix)
{
    return (sluice_state_redis_options){
        .connection = { .url = fx.url, .password_file = fx.password_file, .timeout_ms = 5000 },
        .prefix = prefix,
    };
}

static sluice_replay *replay(const char *prefix)
{
    sluice_state_redis_options o = options(prefix);
    sluice_replay *r = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_replay_open_redis(&o, &r, arena, &err), SLUICE_OK);
    return r;
}

static sluice_approval_store *approvals(const char *prefix)
{
    sluice_state_redis_options o = options(prefix);
    sluice_approval_store *s = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_open_redis(&o, &s, arena, &err), SLUICE_OK);
    return s;
}

static void token_id(const char *seed, uint8_t id[SLUICE_REPLAY_ID_BYTES])
{
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(seed, strlen(seed), h);
    memcpy(id, h, SLUICE_REPLAY_ID_BYTES);
}

static void id_hex(const char *seed, char out[SLUICE_APPROVAL_ID_LEN + 1])
{
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id(seed, id);
    sluice_hash_hex(id, SLUICE_REPLAY_ID_BYTES, out);
}

/* A raw command on the fixture, for what the stores do not expose (TTLs). */
static long long raw_integer(const char *cmd, const char *key)
{
    redisContext *c = redisConnectUnix(fx.socket);
    assert_non_null(c);
    assert_int_equal(c->err, 0);
    redisReply *r = redisCommand(c, "AUTH %s", REDIS_FIXTURE_PASSWORD);
    assert_non_null(r);
    freeReplyObject(r);
    r = redisCommand(c, "%s %s", cmd, key);
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_INTEGER);
    long long v = r->integer;
    freeReplyObject(r);
    redisFree(c);
    return v;
}

static void test_token_consumed_once_across_replicas(void **unused)
{
    (void)unused;
    sluice_replay *a = replay("t1:"), *b = replay("t1:"), *other = replay("t1other:");
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id("once", id);
    assert_int_equal(sluice_replay_consume(a, id, NOW + 300, NOW), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(b, id, NOW + 300, NOW), SLUICE_E_DENIED);
    assert_int_equal(sluice_replay_consume(a, id, NOW + 300, NOW + 1), SLUICE_E_DENIED);
    /* Another deployment's prefix is another namespace. */
    assert_int_equal(sluice_replay_consume(other, id, NOW + 300, NOW), SLUICE_OK);
    assert_int_equal(sluice_replay_count(a), 1);
    sluice_replay_close(a);
    sluice_replay_close(b);
    sluice_replay_close(other);
}

static void test_token_key_lives_as_long_as_the_token(void **unused)
{
    (void)unused;
    sluice_replay *a = replay("t2:");
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id("ttl", id);
    assert_int_equal(sluice_replay_consume(a, id, NOW + 120, NOW), SLUICE_OK);
    char hex[SLUICE_APPROVAL_ID_LEN + 1], key[128];
    sluice_hash_hex(id, SLUICE_REPLAY_ID_BYTES, hex);
    snprintf(key, sizeof key, "t2:token:%s", hex);
    long long ms = raw_integer("PTTL", key);
    assert_true(ms > 110 * 1000 && ms <= 120 * 1000);
    sluice_replay_close(a);
}

typedef struct race {
    sluice_replay *store;
    const uint8_t *id;
    sluice_status got;
} race;

static void *race_consume(void *arg)
{
    race *r = arg;
    r->got = sluice_replay_consume(r->store, r->id, NOW + 300, NOW);
    return NULL;
}

static void test_concurrent_consumes_one_wins(void **unused)
{
    (void)unused;
    enum { N = 8 };
    sluice_replay *stores[N];
    race races[N];
    pthread_t th[N];
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id("race", id);
    for (int i = 0; i < N; i++) {
        stores[i] = replay("t3:");
        races[i] = (race){ stores[i], id, SLUICE_E_INTERNAL };
        assert_int_equal(pthread_create(&th[i], NULL, race_consume, &races[i]), 0);
    }
    int ok = 0, denied = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ok += races[i].got == SLUICE_OK;
        denied += races[i].got == SLUICE_E_DENIED;
        sluice_replay_close(stores[i]);
    }
    assert_int_equal(ok, 1);
    assert_int_equal(denied, N - 1);
}

static void test_approval_across_replicas(void **unused)
{
    (void)unused;
    sluice_approval_store *a = approvals("a1:"), *b = approvals("a1:"), *c = approvals("a1:");
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    id_hex("approve-me", id);
    sluice_error err = { 0 };
    sluice_approval got;
    assert_int_equal(sluice_approval_get(a, id, NOW).state, SLUICE_APPROVAL_NONE);
    assert_int_equal(sluice_approval_request(
                         a, &(sluice_approval_ask){ id, NOW + 300, "alice", "write, high risk" },
                         NOW, &got, arena, &err),
                     SLUICE_OK);
    assert_int_equal(got.state, SLUICE_APPROVAL_PENDING);
    /* A second request does not reset it. */
    assert_int_equal(
        sluice_approval_request(b, &(sluice_approval_ask){ id, NOW + 999, "mallory", "other" }, NOW,
                                &got, arena, &err),
        SLUICE_OK);
    assert_string_equal(got.user, "alice");
    assert_int_equal(got.expires_at, NOW + 300);
    sluice_approval list[4];
    assert_int_equal(sluice_approval_pending(c, NOW, list, 4), 1);
    assert_string_equal(list[0].id, id);
    assert_int_equal(sluice_approval_decide(b,
                                            &(sluice_approval_decision){ id, true, "root", true },
                                            NOW + 5, &got, arena, &err),
                     SLUICE_OK);
    sluice_approval seen = sluice_approval_get(c, id, NOW + 6);
    assert_int_equal(seen.state, SLUICE_APPROVAL_APPROVED);
    assert_string_equal(seen.decided_by, "root");
    assert_string_equal(seen.summary, "write, high risk");
    assert_int_equal(sluice_approval_pending(c, NOW, list, 4), 0);
    /* Final: never decided again, either way. */
    assert_int_equal(sluice_approval_decide(a,
                                            &(sluice_approval_decision){ id, false, "eve", true },
                                            NOW + 7, &got, arena, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "approved"));
    assert_int_equal(sluice_approval_get(a, id, NOW + 8).state, SLUICE_APPROVAL_APPROVED);
    /* Past its expiry an approval no longer counts. */
    assert_int_equal(sluice_approval_get(a, id, NOW + 301).state, SLUICE_APPROVAL_EXPIRED);
    char unknown[SLUICE_APPROVAL_ID_LEN + 1];
    id_hex("never-requested", unknown);
    assert_int_equal(
        sluice_approval_decide(a, &(sluice_approval_decision){ unknown, true, "root", true }, NOW,
                               &got, arena, &err),
        SLUICE_E_NOT_FOUND);
    sluice_approval_close(a);
    sluice_approval_close(b);
    sluice_approval_close(c);
}

static void test_expired_request_cannot_be_approved(void **unused)
{
    (void)unused;
    sluice_approval_store *a = approvals("a2:");
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    id_hex("too-late", id);
    sluice_error err = { 0 };
    sluice_approval got;
    assert_int_equal(sluice_approval_request(a,
                                             &(sluice_approval_ask){ id, NOW + 10, "alice", "s" },
                                             NOW, &got, arena, &err),
                     SLUICE_OK);
    assert_int_equal(sluice_approval_decide(a,
                                            &(sluice_approval_decision){ id, true, "root", true },
                                            NOW + 11, &got, arena, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "expired"));
    assert_int_equal(sluice_approval_get(a, id, NOW + 5).state, SLUICE_APPROVAL_PENDING);
    sluice_approval_close(a);
}

typedef struct decision_race {
    sluice_approval_store *store;
    const char *id;
    bool approve;
    sluice_status got;
} decision_race;

static void *race_decide(void *arg)
{
    decision_race *d = arg;
    sluice_arena *mine = sluice_arena_new();
    sluice_error err = { 0 };
    d->got = sluice_approval_decide(
        d->store,
        &(sluice_approval_decision){ d->id, d->approve, d->approve ? "yes" : "no", false }, NOW + 1,
        NULL, mine, &err);
    sluice_arena_free(mine);
    return NULL;
}

static void test_concurrent_decisions_one_wins_and_is_audited_once(void **unused)
{
    (void)unused;
    enum { N = 6 };
    char id[SLUICE_APPROVAL_ID_LEN + 1];
    id_hex("contested", id);
    sluice_approval_store *stores[N];
    decision_race d[N];
    pthread_t th[N];
    sluice_error err = { 0 };
    stores[0] = approvals("a3:");
    assert_int_equal(sluice_approval_request(stores[0],
                                             &(sluice_approval_ask){ id, NOW + 300, "alice", "s" },
                                             NOW, NULL, arena, &err),
                     SLUICE_OK);
    for (int i = 0; i < N; i++) {
        if (i > 0)
            stores[i] = approvals("a3:");
        d[i] = (decision_race){ stores[i], id, i % 2 == 0, SLUICE_E_INTERNAL };
        assert_int_equal(pthread_create(&th[i], NULL, race_decide, &d[i]), 0);
    }
    int ok = 0;
    bool approved = false;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        if (d[i].got == SLUICE_OK) {
            ok++;
            approved = d[i].approve;
        } else {
            assert_int_equal(d[i].got, SLUICE_E_DENIED);
        }
    }
    assert_int_equal(ok, 1);
    sluice_approval final = sluice_approval_get(stores[1], id, NOW + 2);
    assert_int_equal(final.state, approved ? SLUICE_APPROVAL_APPROVED : SLUICE_APPROVAL_REJECTED);
    /* The winner said "not audited": exactly one replica is handed the decision to audit. */
    size_t handed = 0;
    for (int i = 0; i < N; i++) {
        sluice_approval out[4];
        size_t n = sluice_approval_take_unaudited(stores[i], out, 4);
        if (n > 0)
            assert_string_equal(out[0].id, id);
        handed += n;
    }
    assert_int_equal(handed, 1);
    for (int i = 0; i < N; i++)
        sluice_approval_close(stores[i]);
}

static void test_redis_down_fails_closed_and_recovers(void **unused)
{
    (void)unused;
    sluice_replay *r = replay("d1:");
    sluice_approval_store *s = approvals("d1:");
    uint8_t id[SLUICE_REPLAY_ID_BYTES], later[SLUICE_REPLAY_ID_BYTES];
    token_id("before", id);
    token_id("during", later);
    char hex[SLUICE_APPROVAL_ID_LEN + 1];
    id_hex("during", hex);
    assert_int_equal(sluice_replay_consume(r, id, NOW + 300, NOW), SLUICE_OK);
    redis_fixture_stop(&fx);
    assert_int_equal(sluice_replay_consume(r, later, NOW + 300, NOW), SLUICE_E_IO);
    char why[320];
    sluice_replay_describe(r, why, sizeof why);
    assert_non_null(strstr(why, "Redis at unix:"));
    assert_non_null(strstr(why, fx.socket));
    sluice_error err = { 0 };
    assert_int_equal(sluice_approval_request(s,
                                             &(sluice_approval_ask){ hex, NOW + 300, "alice", "s" },
                                             NOW, NULL, arena, &err),
                     SLUICE_E_IO);
    assert_non_null(strstr(err.message, "Redis at unix:"));
    assert_int_equal(sluice_approval_get(s, hex, NOW).state, SLUICE_APPROVAL_NONE);
    assert_int_equal(sluice_approval_decide(s,
                                            &(sluice_approval_decision){ hex, true, "root", true },
                                            NOW, NULL, arena, &err),
                     SLUICE_E_IO);
    assert_true(redis_fixture_start(&fx));
    /* The same handles reconnect; the fixture keeps nothing across a restart (no persistence),
     * which a deployment must not copy (docs/deploy.md: appendonly). */
    sluice_status back = sluice_replay_consume(r, later, NOW + 300, NOW);
    sluice_replay_describe(r, why, sizeof why);
    if (back != SLUICE_OK)
        fprintf(stderr, "after the restart: %s\n", why);
    assert_int_equal(back, SLUICE_OK);
    assert_int_equal(sluice_replay_consume(r, later, NOW + 300, NOW), SLUICE_E_DENIED);
    assert_int_equal(sluice_approval_request(s,
                                             &(sluice_approval_ask){ hex, NOW + 300, "alice", "s" },
                                             NOW, NULL, arena, &err),
                     SLUICE_OK);
    sluice_replay_close(r);
    sluice_approval_close(s);
}

static void test_bad_password_and_url_are_refused(void **unused)
{
    (void)unused;
    sluice_state_redis_options o = options("p1:");
    o.connection.password_file = NULL;
    sluice_replay *r = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_replay_open_redis(&o, &r, arena, &err), SLUICE_OK);
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id("nopass", id);
    assert_int_equal(sluice_replay_consume(r, id, NOW + 300, NOW), SLUICE_E_IO);
    char why[320];
    sluice_replay_describe(r, why, sizeof why);
    assert_non_null(strstr(why, "Redis at"));
    sluice_replay_close(r);
    setenv("SLUICE_TEST_REDIS_PW", "wrong", 1);
    o.connection.password_env = "SLUICE_TEST_REDIS_PW";
    assert_int_equal(sluice_replay_open_redis(&o, &r, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(r, id, NOW + 300, NOW), SLUICE_E_IO);
    sluice_replay_describe(r, why, sizeof why);
    assert_non_null(strstr(why, "AUTH was refused"));
    sluice_replay_close(r);
    const char *bad[] = { "localhost:6379", "redis://:secret@h:1", "redis://h", "redis://h:0",
                          "unix:relative",  "redis://h:99999",     "http://h:1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.connection.url = bad[i];
        assert_int_equal(sluice_replay_open_redis(&o, &r, arena, &err), SLUICE_E_CONFIG);
        assert_non_null(strstr(err.message, "redis_url"));
    }
}

/* The production form of the URL: a TCP server on loopback (a private port). */
static void test_tcp_url(void **unused)
{
    (void)unused;
    redis_fixture tcp = { 0 };
    assert_true(redis_fixture_init_tcp(&tcp));
    assert_non_null(strstr(tcp.url, "redis://127.0.0.1:"));
    sluice_state_redis_options o = {
        .connection = { .url = tcp.url, .password_file = tcp.password_file, .timeout_ms = 5000 },
        .prefix = "tcp:",
    };
    sluice_replay *a = NULL, *b = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_replay_open_redis(&o, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_replay_open_redis(&o, &b, arena, &err), SLUICE_OK);
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    token_id("tcp", id);
    assert_int_equal(sluice_replay_consume(a, id, NOW + 60, NOW), SLUICE_OK);
    assert_int_equal(sluice_replay_consume(b, id, NOW + 60, NOW), SLUICE_E_DENIED);
    redis_fixture_stop(&tcp);
    assert_int_equal(sluice_replay_consume(a, id, NOW + 60, NOW), SLUICE_E_IO);
    char why[320];
    sluice_replay_describe(a, why, sizeof why);
    assert_non_null(strstr(why, "Redis at 127.0.0.1:"));
    sluice_replay_close(a);
    sluice_replay_close(b);
    redis_fixture_free(&tcp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_consumed_once_across_replicas),
        cmocka_unit_test(test_token_key_lives_as_long_as_the_token),
        cmocka_unit_test(test_concurrent_consumes_one_wins),
        cmocka_unit_test(test_approval_across_replicas),
        cmocka_unit_test(test_expired_request_cannot_be_approved),
        cmocka_unit_test(test_concurrent_decisions_one_wins_and_is_audited_once),
        cmocka_unit_test(test_redis_down_fails_closed_and_recovers),
        cmocka_unit_test(test_bad_password_and_url_are_refused),
        cmocka_unit_test(test_tcp_url),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
