/*
 * test_quota.c — quotas per caller (state/quota.h), in the process and on a real redis-server
 * (redis_fixture.h): a caller over a per-minute quota is refused with the quota, its limit, the
 * usage and the reset time, another caller and another route are not, and the window resets at
 * the minute's end (time given, never slept for); rows charged after a run leave the room the
 * next run may use and refuse once used up, until the next UTC day; a route inherits [quotas]
 * key by key; principals that escape alike never share a counter; two Redis handles (replicas)
 * share one count, and concurrent callers never take more than the limit; Redis down refuses
 * (fail closed) with a message naming Redis; every allocation point of a decision is failed in
 * turn and no failure is ever an admission.
 */
#include "config/config.h"
#include "oom_sweep.h"
#include "redis_fixture.h"
#include "state/state_redis.h"
#include "unit.h"

#include <pthread.h>
#include <string.h>

/* 2027-01-15T08:30:10Z: ten seconds into a minute */
#define NOW_S  1800001810LL
#define NOW_MS (NOW_S * 1000)

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

static sluice_config_quotas none(void)
{
    sluice_config_quotas q;
    memset(&q, 0xff, sizeof q); /* every field -1: not set */
    return q;
}

static sluice_quota *local(void)
{
    sluice_quota *q = NULL;
    assert_int_equal(sluice_quota_open_local(&q), SLUICE_OK);
    return q;
}

static sluice_quota *redis(const char *prefix)
{
    sluice_state_redis_options o = {
        .connection = { .url = fx.url, .password_file = fx.password_file, .timeout_ms = 5000 },
        .prefix = prefix,
    };
    sluice_quota *q = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_quota_open_redis(&o, &q, arena, &err), SLUICE_OK);
    return q;
}

/* One call of stage: 1 admitted, 0 refused (refusal filled), -1 the store failed. */
static int call(sluice_quota *q,
                const sluice_config_quotas *limits,
                const char *route,
                const char *who,
                sluice_quota_stage stage,
                int64_t now_ms,
                sluice_quota_refusal *refusal,
                sluice_quota_room *room)
{
    sluice_quota_decision d;
    sluice_status st =
        sluice_quota_admit(q, limits, &(sluice_quota_call){ route, who, stage, now_ms }, &d);
    if (st != SLUICE_OK)
        return -1;
    if (d.refused && refusal != NULL)
        *refusal = d.refusal;
    if (!d.refused && room != NULL)
        *room = d.room;
    return d.refused ? 0 : 1;
}

/* execute_per_minute = 2 on any store: alice's third call this minute is refused with the
 * numbers; bob and alice on another route are not; the next minute alice runs again. */
static void per_minute(sluice_quota *q)
{
    sluice_config_quotas lim = none();
    lim.execute_per_minute = 2;
    sluice_quota_refusal r = { 0 };
    const sluice_quota_stage EX = SLUICE_QUOTA_STAGE_EXECUTE;
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS, NULL, NULL), 1);
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS + 1000, NULL, NULL), 1);
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS + 2000, &r, NULL), 0);
    assert_int_equal(r.quota, SLUICE_QUOTA_EXECUTE_PER_MINUTE);
    assert_int_equal(r.limit, 2);
    assert_int_equal(r.used, 2);
    assert_int_equal(r.resets_at, NOW_S - 10 + 60);
    assert_int_equal(r.retry_after, 48);
    const char *m = sluice_quota_message(arena, &r, "analysts", "alice");
    assert_non_null(strstr(m, "quota execute_per_minute reached for 'alice' on route "
                              "'analysts': 2 of 2 execute_code calls this minute"));
    assert_non_null(strstr(m, "resets at 2027-01-15T08:31:00Z (in 48 s)"));
    json_t *j = sluice_quota_refusal_json(&r, "analysts");
    assert_string_equal(json_string_value(json_object_get(j, "resets_at")), "2027-01-15T08:31:00Z");
    assert_int_equal(json_integer_value(json_object_get(j, "retry_after_seconds")), 48);
    json_decref(j);
    /* refused calls are not counted: still 2 of 2 */
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS + 3000, &r, NULL), 0);
    assert_int_equal(r.used, 2);
    assert_int_equal(call(q, &lim, "analysts", "bob", EX, NOW_MS + 3000, NULL, NULL), 1);
    assert_int_equal(call(q, &lim, "ops", "alice", EX, NOW_MS + 3000, NULL, NULL), 1);
    /* validate_code has its own quotas: none set here */
    assert_int_equal(
        call(q, &lim, "analysts", "alice", SLUICE_QUOTA_STAGE_VALIDATE, NOW_MS, NULL, NULL), 1);
    /* the last millisecond of the minute is still in it; the next one is not */
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS + 49999, NULL, NULL), 0);
    assert_int_equal(call(q, &lim, "analysts", "alice", EX, NOW_MS + 50000, NULL, NULL), 1);
}

static void test_local_per_minute(void **state)
{
    (void)state;
    sluice_quota *q = local();
    per_minute(q);
    sluice_quota_close(q);
}

static void test_redis_per_minute(void **state)
{
    (void)state;
    sluice_quota *q = redis("pm:");
    per_minute(q);
    sluice_quota_close(q);
}

/* rows_per_day = 10: the room shrinks as rows are charged; used up is refused until the next
 * UTC day, and the refusal names the day's end. */
static void rows_per_day(sluice_quota *q)
{
    sluice_config_quotas lim = none();
    lim.rows_per_day = 10;
    lim.upstream_calls_per_day = 0; /* counted, no limit */
    const sluice_quota_stage EX = SLUICE_QUOTA_STAGE_EXECUTE;
    sluice_quota_room room = { 0 };
    sluice_quota_refusal r;
    assert_int_equal(call(q, &lim, "r", "carol", EX, NOW_MS, NULL, &room), 1);
    assert_int_equal(room.rows, 10);
    assert_true(room.bytes == INT64_MAX && room.upstream_calls == INT64_MAX);
    assert_int_equal(sluice_quota_charge(q, "r", "carol", 7, 300, 2, NOW_MS), SLUICE_OK);
    assert_int_equal(call(q, &lim, "r", "carol", EX, NOW_MS, NULL, &room), 1);
    assert_int_equal(room.rows, 3);
    assert_int_equal(sluice_quota_charge(q, "r", "carol", 5, 0, 0, NOW_MS), SLUICE_OK);
    assert_int_equal(call(q, &lim, "r", "carol", EX, NOW_MS, &r, NULL), 0);
    assert_int_equal(r.quota, SLUICE_QUOTA_ROWS_PER_DAY);
    assert_int_equal(r.used, 12);
    int64_t midnight = NOW_S - NOW_S % 86400 + 86400;
    assert_int_equal(r.resets_at, midnight);
    assert_int_equal(call(q, &lim, "r", "carol", EX, midnight * 1000 - 1, NULL, NULL), 0);
    assert_int_equal(call(q, &lim, "r", "carol", EX, midnight * 1000, NULL, &room), 1);
    assert_int_equal(room.rows, 10);
}

static void test_local_rows_per_day(void **state)
{
    (void)state;
    sluice_quota *q = local();
    rows_per_day(q);
    sluice_quota_close(q);
}

static void test_redis_rows_per_day(void **state)
{
    (void)state;
    sluice_quota *q = redis("rows:");
    rows_per_day(q);
    sluice_quota_close(q);
}

/* Names that look alike escaped, or that carry the separator, never share a counter; a very
 * long principal is keyed by its hash, still apart from others. */
static void test_names_apart(void **state)
{
    (void)state;
    sluice_quota *q = local();
    sluice_config_quotas lim = none();
    lim.validate_per_day = 1;
    const sluice_quota_stage V = SLUICE_QUOTA_STAGE_VALIDATE;
    char long_a[300], long_b[300];
    memset(long_a, 'a', sizeof long_a - 1);
    long_a[sizeof long_a - 1] = '\0';
    memcpy(long_b, long_a, sizeof long_b);
    long_b[200] = 'b';
    const char *names[] = { "a|b", "a%7Cb", "a", "#x", "%23x", "a b", long_a, long_b };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_int_equal(call(q, &lim, "r", names[i], V, NOW_MS, NULL, NULL), 1);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_int_equal(call(q, &lim, "r", names[i], V, NOW_MS, NULL, NULL), 0);
    /* the route and the principal cannot trade a separator */
    assert_int_equal(call(q, &lim, "r|a", "b", V, NOW_MS, NULL, NULL), 1);
    sluice_quota_close(q);
}

/* [quotas] and a route's `quotas` from the file: the route's own keys win, the others are
 * inherited, 0 lifts a limit, a bad value is refused with its place. */
static void test_config(void **state)
{
    (void)state;
    const char *text = "[quotas]\n"
                       "execute_per_minute = 5\n"
                       "rows_per_day = 1000\n"
                       "[policy]\nbackend = \"none\"\n"
                       "[[policy.servers]]\nid = \"analysts\"\ngroups = [\"a\"]\n"
                       "quotas = { execute_per_minute = 2, rows_per_day = 0 }\n"
                       "[[policy.servers]]\nid = \"ops\"\ngroups = [\"o\"]\n";
    sluice_config *c = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_config_load_text(text, strlen(text), "t.toml", ".", &c, arena, &err),
                     SLUICE_OK);
    sluice_config_quotas a = sluice_quota_effective(&c->quotas, &c->policy.servers[0].quotas);
    sluice_config_quotas o = sluice_quota_effective(&c->quotas, &c->policy.servers[1].quotas);
    assert_int_equal(sluice_quota_limit(&a, SLUICE_QUOTA_EXECUTE_PER_MINUTE), 2);
    assert_int_equal(sluice_quota_limit(&a, SLUICE_QUOTA_ROWS_PER_DAY), 0);
    assert_int_equal(sluice_quota_limit(&o, SLUICE_QUOTA_EXECUTE_PER_MINUTE), 5);
    assert_int_equal(sluice_quota_limit(&o, SLUICE_QUOTA_ROWS_PER_DAY), 1000);
    assert_int_equal(sluice_quota_limit(&o, SLUICE_QUOTA_VALIDATE_PER_DAY), 0);
    assert_true(sluice_quota_any(&c->quotas) && sluice_quota_any(&a));
    sluice_config_free(c);
    const char *bad = "[quotas]\nexecute_per_day = -3\n";
    c = NULL;
    assert_int_equal(sluice_config_load_text(bad, strlen(bad), "t.toml", ".", &c, arena, &err),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "execute_per_day"));
    const char *typo = "[quotas]\nexecute_per_minutes = 3\n";
    assert_int_equal(sluice_config_load_text(typo, strlen(typo), "t.toml", ".", &c, arena, &err),
                     SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "execute_per_minutes"));
}

/* Two handles on one Redis are two replicas: they share the count. */
static void test_redis_replicas_share(void **state)
{
    (void)state;
    sluice_quota *r1 = redis("share:"), *r2 = redis("share:"), *other = redis("other:");
    sluice_config_quotas lim = none();
    lim.validate_per_minute = 3;
    const sluice_quota_stage V = SLUICE_QUOTA_STAGE_VALIDATE;
    assert_int_equal(call(r1, &lim, "r", "dave", V, NOW_MS, NULL, NULL), 1);
    assert_int_equal(call(r2, &lim, "r", "dave", V, NOW_MS, NULL, NULL), 1);
    assert_int_equal(call(r1, &lim, "r", "dave", V, NOW_MS, NULL, NULL), 1);
    sluice_quota_refusal r;
    assert_int_equal(call(r2, &lim, "r", "dave", V, NOW_MS, &r, NULL), 0);
    assert_int_equal(r.used, 3);
    /* another deployment (prefix) on the same Redis counts apart */
    assert_int_equal(call(other, &lim, "r", "dave", V, NOW_MS, NULL, NULL), 1);
    /* the usage list, as the console shows it */
    sluice_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.quotas = lim;
    json_t *u = sluice_quota_usage(r2, &cfg, NOW_MS, 100);
    assert_non_null(u);
    bool found = false;
    for (size_t i = 0; i < json_array_size(u); i++) {
        json_t *row = json_array_get(u, i);
        if (strcmp(json_string_value(json_object_get(row, "principal")), "dave") == 0 &&
            strcmp(json_string_value(json_object_get(row, "quota")), "validate_per_minute") == 0) {
            assert_int_equal(json_integer_value(json_object_get(row, "used")), 3);
            assert_int_equal(json_integer_value(json_object_get(row, "limit")), 3);
            assert_string_equal(json_string_value(json_object_get(row, "route")), "r");
            found = true;
        }
    }
    assert_true(found);
    json_decref(u);
    sluice_quota_close(r1);
    sluice_quota_close(r2);
    sluice_quota_close(other);
}

typedef struct racer {
    sluice_quota *q;
    int admitted;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    sluice_config_quotas lim = none();
    lim.execute_per_day = 50;
    for (int i = 0; i < 20; i++)
        if (call(r->q, &lim, "r", "erin", SLUICE_QUOTA_STAGE_EXECUTE, NOW_MS, NULL, NULL) == 1)
            r->admitted++;
    return NULL;
}

/* 8 callers on 4 replicas race for 160 calls under a limit of 50: exactly 50 get through. */
static void test_redis_race(void **state)
{
    (void)state;
    racer rs[8];
    pthread_t t[8];
    sluice_quota *qs[4];
    for (int i = 0; i < 4; i++)
        qs[i] = redis("race:");
    for (int i = 0; i < 8; i++) {
        rs[i] = (racer){ qs[i % 4], 0 };
        assert_int_equal(pthread_create(&t[i], NULL, race, &rs[i]), 0);
    }
    int total = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        total += rs[i].admitted;
    }
    assert_int_equal(total, 50);
    for (int i = 0; i < 4; i++)
        sluice_quota_close(qs[i]);
}

/* Redis down: no decision (the caller refuses), and the failure names Redis; back up, the
 * same handle decides again. */
static void test_redis_down(void **state)
{
    (void)state;
    sluice_quota *q = redis("down:");
    sluice_config_quotas lim = none();
    lim.execute_per_minute = 100;
    assert_int_equal(call(q, &lim, "r", "frank", SLUICE_QUOTA_STAGE_EXECUTE, NOW_MS, NULL, NULL),
                     1);
    redis_fixture_stop(&fx);
    assert_int_equal(call(q, &lim, "r", "frank", SLUICE_QUOTA_STAGE_EXECUTE, NOW_MS, NULL, NULL),
                     -1);
    assert_int_equal(sluice_quota_charge(q, "r", "frank", 1, 1, 1, NOW_MS), SLUICE_E_IO);
    char why[320];
    sluice_quota_describe(q, why, sizeof why);
    assert_non_null(strstr(why, "Redis at unix:"));
    assert_true(redis_fixture_start(&fx));
    assert_int_equal(call(q, &lim, "r", "frank", SLUICE_QUOTA_STAGE_EXECUTE, NOW_MS, NULL, NULL),
                     1);
    sluice_quota_close(q);
}

/* ---- allocation failures --------------------------------------------------------------------
 * A run opens nothing new: the store is given. Under a fault a decision may fail, or refuse
 * where the limit is reached; it never admits. */

typedef struct oom_case {
    sluice_quota *q;
    const char *who; /* at the limit already, or NULL: a fresh principal per run */
    unsigned serial;
} oom_case;

static oom_outcome run_admit(void *ctx)
{
    oom_case *c = ctx;
    char fresh[32];
    snprintf(fresh, sizeof fresh, "fresh-%u", c->serial++);
    sluice_config_quotas lim = none();
    lim.execute_per_minute = 1;
    lim.rows_per_day = 5;
    int got = call(c->q, &lim, "r", c->who != NULL ? c->who : fresh, SLUICE_QUOTA_STAGE_EXECUTE,
                   NOW_MS, NULL, NULL);
    return got < 0 ? OOM_FAILED : got == 0 ? OOM_REFUSED : OOM_ALLOWED;
}

static oom_outcome run_open_admit(void *ctx)
{
    (void)ctx;
    sluice_quota *q = NULL;
    if (sluice_quota_open_local(&q) != SLUICE_OK)
        return OOM_FAILED;
    oom_case c = { q, NULL, 0 };
    oom_outcome o = run_admit(&c);
    sluice_quota_close(q);
    return o;
}

static void sweep_store(sluice_quota *q)
{
    sluice_config_quotas lim = none();
    lim.execute_per_minute = 1;
    assert_int_equal(call(q, &lim, "r", "full", SLUICE_QUOTA_STAGE_EXECUTE, NOW_MS, NULL, NULL), 1);
    oom_case fresh = { q, NULL, 0 }, full = { q, "full", 0 };
    long n =
        oom_sweep("quota admit (fresh)", run_admit, &fresh, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    assert_true(n >= 1);
    /* the local store holds the used-up caller's counters already: no allocation point there */
    n = oom_sweep("quota admit (used up)", run_admit, &full, OOM_REFUSED,
                  OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED));
    assert_true(n >= 0);
}

static void test_oom_local(void **state)
{
    (void)state;
    sluice_quota *q = local();
    sweep_store(q);
    sluice_quota_close(q);
    long n =
        oom_sweep("quota open + admit", run_open_admit, NULL, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    fprintf(stderr, "oom sweep: %ld allocation points: quota open + admit\n", n);
    assert_true(n >= 3);
}

static void test_oom_redis(void **state)
{
    (void)state;
    sluice_quota *q = redis("oom:");
    sweep_store(q);
    sluice_quota_close(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_per_minute),
        cmocka_unit_test(test_redis_per_minute),
        cmocka_unit_test(test_local_rows_per_day),
        cmocka_unit_test(test_redis_rows_per_day),
        cmocka_unit_test(test_names_apart),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_redis_replicas_share),
        cmocka_unit_test(test_redis_race),
        cmocka_unit_test(test_redis_down),
        cmocka_unit_test(test_oom_local),
        cmocka_unit_test(test_oom_redis),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
