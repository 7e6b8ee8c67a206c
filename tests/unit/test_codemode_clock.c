/*
 * test_codemode_clock.c — time in the code-mode pipeline comes from the injectable clock: an
 * approval token runs just inside its TTL and is refused as expired just past it, and a token
 * used once stays used — all against a real DuckDB file, key file and audit log, with a manual
 * clock instead of sleeping for the TTL. (Replaces the e2e test that slept 11.5 s.) Quotas
 * count on the same clock: a caller over validate_per_minute or rows_per_day is refused (and
 * audited) until the minute or the UTC day ends, another caller is not.
 */
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "core/clock.h"
#include "token/secret.h"
#include "token/token.h"
#include "unit.h"

#include <duckdb.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define START 1800000000
#define TTL   10

static char dir[64];
static sluice_config *config;
static sluice_runtime *rt;
static sluice_codemode *cm;
static sluice_manual_clock clock_;
static sluice_arena *arena;

static const sluice_identity alice = { .user_id = "alice", .method = "stdio-config" };
static const sluice_codemode_caller caller = { .identity = &alice, .session_id = "stdio" };

static void make_database(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/t.duckdb", dir);
    duckdb_database db;
    duckdb_connection con;
    assert_int_equal(duckdb_open(path, &db), DuckDBSuccess);
    assert_int_equal(duckdb_connect(db, &con), DuckDBSuccess);
    assert_int_equal(duckdb_query(con, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1)", NULL),
                     DuckDBSuccess);
    duckdb_disconnect(&con);
    duckdb_close(&db);
}

static void make_key(void)
{
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/token.key", dir);
    assert_int_equal(sluice_secret_generate("k1", line, sizeof line), SLUICE_OK);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
    close(fd);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-cmclock-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    make_database();
    make_key();
    char text[1024];
    int n = snprintf(text, sizeof text,
                     "[database]\nengine = \"duckdb\"\npath = \"t.duckdb\"\n"
                     "[code_mode]\nenabled = true\nserver_id = \"unit\"\n"
                     "token_secret_file = \"token.key\"\ntoken_ttl_seconds = %d\n"
                     "audit_log = \"audit.jsonl\"\n"
                     "[quotas]\nvalidate_per_minute = 5\nrows_per_day = 2\n",
                     TTL);
    arena = sluice_arena_new();
    sluice_error err = { 0 };
    if (sluice_config_load_text(text, (size_t)n, "unit.toml", dir, &config, arena, &err) !=
            SLUICE_OK ||
        (sluice_manual_clock_init(&clock_, START),
         sluice_runtime_open(config, &clock_.clock, &rt, arena, &err)) != SLUICE_OK ||
        sluice_codemode_open(config, rt, &cm, arena, &err) != SLUICE_OK) {
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sluice_codemode_close(cm);
    sluice_runtime_close(rt);
    sluice_config_free(config);
    sluice_arena_free(arena);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char code[] = "SELECT x AS one FROM t";

/* validate_code's approval token for code, copied into arena. */
static const char *validate(void)
{
    json_t *out = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = arena, .caller = &caller, .code = code, .code_len = strlen(code), .err = &err
    };
    assert_int_equal(sluice_codemode_validate(cm, &req, &out), SLUICE_OK);
    const char *token = json_string_value(json_object_get(out, "approval_token"));
    assert_non_null(token);
    const char *copy = sluice_arena_strdup(arena, token);
    json_decref(out);
    return copy;
}

static sluice_status execute(const char *token, sluice_error *err)
{
    json_t *out = NULL;
    char *text = NULL;
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &caller,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .token = token,
                                          .err = err };
    sluice_status st = sluice_codemode_execute(cm, &req, &out, &text);
    json_decref(out);
    return st;
}

/* As validate() and execute(), for another caller; the status, and the quota's refusal. */
static sluice_status call_as(const sluice_codemode_caller *who,
                             const char *token,
                             json_t **refusal,
                             const char **out_token,
                             sluice_error *err)
{
    sluice_codemode_caller c = *who;
    c.refusal = refusal;
    json_t *out = NULL;
    char *text = NULL;
    const sluice_codemode_request req = { .arena = arena,
                                          .caller = &c,
                                          .code = code,
                                          .code_len = strlen(code),
                                          .token = token,
                                          .err = err };
    sluice_status st = token != NULL ? sluice_codemode_execute(cm, &req, &out, &text)
                                     : sluice_codemode_validate(cm, &req, &out);
    if (st == SLUICE_OK && out_token != NULL)
        *out_token =
            sluice_arena_strdup(arena, json_string_value(json_object_get(out, "approval_token")));
    json_decref(out);
    return st;
}

static void test_quota_refuses_until_its_window_ends(void **state)
{
    (void)state;
    static const sluice_identity quinn = { .user_id = "quinn", .method = "stdio-config" };
    const sluice_codemode_caller q = { .identity = &quinn, .session_id = "stdio" };
    sluice_error err = { 0 };
    json_t *refusal = NULL;
    /* the next minute starts in 60 s; five validations now, the sixth refused */
    sluice_manual_clock_advance_ms(&clock_, 60000 - (sluice_clock_now_ms(&clock_.clock) % 60000));
    const char *tokens[5];
    for (int i = 0; i < 5; i++)
        assert_int_equal(call_as(&q, NULL, &refusal, &tokens[i], &err), SLUICE_OK);
    assert_null(refusal);
    sluice_manual_clock_advance_ms(&clock_, 59999);
    assert_int_equal(call_as(&q, NULL, &refusal, NULL, &err), SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "quota validate_per_minute reached for 'quinn'"));
    assert_non_null(strstr(err.message, "(in 1 s)"));
    assert_string_equal(json_string_value(json_object_get(refusal, "quota")),
                        "validate_per_minute");
    assert_int_equal(json_integer_value(json_object_get(refusal, "retry_after_seconds")), 1);
    json_decref(refusal);
    refusal = NULL;
    /* alice is not quinn */
    assert_int_equal(call_as(&caller, NULL, &refusal, NULL, &err), SLUICE_OK);
    /* a millisecond later the minute is over */
    sluice_manual_clock_advance_ms(&clock_, 1);
    const char *fresh = NULL;
    assert_int_equal(call_as(&q, NULL, &refusal, &fresh, &err), SLUICE_OK);
    /* rows_per_day = 2: one row a run; the third run is refused before its token is spent */
    assert_int_equal(call_as(&q, fresh, &refusal, NULL, &err), SLUICE_OK);
    assert_int_equal(call_as(&q, tokens[0], &refusal, NULL, &err), SLUICE_E_TOKEN); /* expired */
    assert_null(refusal);
    assert_int_equal(call_as(&q, NULL, &refusal, &fresh, &err), SLUICE_OK);
    assert_int_equal(call_as(&q, fresh, &refusal, NULL, &err), SLUICE_OK);
    assert_int_equal(call_as(&q, NULL, &refusal, &fresh, &err), SLUICE_OK);
    assert_int_equal(call_as(&q, fresh, &refusal, NULL, &err), SLUICE_E_LIMIT);
    assert_non_null(strstr(err.message, "quota rows_per_day reached for 'quinn'"));
    assert_non_null(strstr(err.message, "2 of 2 rows returned today (UTC)"));
    json_decref(refusal);
    refusal = NULL;
    /* the next UTC day (a day is past the token's TTL: a fresh one) */
    int64_t now = sluice_clock_now_ms(&clock_.clock);
    sluice_manual_clock_advance_ms(&clock_, 86400000 - now % 86400000);
    assert_int_equal(call_as(&q, NULL, &refusal, &fresh, &err), SLUICE_OK);
    assert_int_equal(call_as(&q, fresh, &refusal, NULL, &err), SLUICE_OK);
    assert_null(refusal);
}

static void test_token_runs_inside_its_ttl_once(void **state)
{
    (void)state;
    const char *token = validate();
    sluice_manual_clock_advance_ms(&clock_, (TTL - 1) * 1000);
    sluice_error err = { 0 };
    assert_int_equal(execute(token, &err), SLUICE_OK);
    assert_int_equal(execute(token, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "already used"));
}

static void test_token_expired_past_its_ttl(void **state)
{
    (void)state;
    const char *token = validate();
    sluice_manual_clock_advance_ms(&clock_, (TTL + 1) * 1000);
    sluice_error err = { 0 };
    assert_int_equal(execute(token, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "expired"));
}

/* A wall clock stepped back (an NTP correction) past the allowed skew refuses a token issued
 * "in the future" rather than letting it live longer than its TTL. */
static void test_token_after_clock_step_back(void **state)
{
    (void)state;
    const char *token = validate();
    sluice_manual_clock_advance_ms(&clock_, -(SLUICE_TOKEN_CLOCK_SKEW_SECONDS + 5) * 1000);
    sluice_error err = { 0 };
    assert_int_equal(execute(token, &err), SLUICE_E_TOKEN);
    assert_non_null(strstr(err.message, "in the future"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_runs_inside_its_ttl_once),
        cmocka_unit_test(test_token_expired_past_its_ttl),
        cmocka_unit_test(test_token_after_clock_step_back),
        cmocka_unit_test(test_quota_refuses_until_its_window_ends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
