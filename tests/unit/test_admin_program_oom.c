/*
 * test_admin_program_oom.c — the console's promotion endpoint (transport/http_admin_api.h:
 * sluice_http_admin_program_post) under allocation failure: every allocation point of a request
 * is failed in turn. It never answers 200 unless the program is in the store at the version it
 * names; it never stores a program for groups the policy refuses, or code that is not valid; and
 * whatever failed, the store still reads back whole (never half written). Over a real DuckDB
 * file, a real Cedar policy, a real program store and a real audit log.
 */
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "codemode/program.h"
#include "core/limits.h"
#include "oom_sweep.h"
#include "token/secret.h"
#include "transport/http_admin_api.h"
#include "unit.h"

#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY_ENV "SLUICE_TEST_ADMIN_PROGRAM_OOM_KEY"
#define PROGRAM "plan_names"

static char dir[] = "/tmp/sluice-admin-program-oom-XXXXXX";
static char path_buf[4][160]; /* db, policy, store, audit */
static sluice_config *config;
static sluice_runtime *rt;
static sluice_codemode *cm;
static sluice_http_admin admin;

static int make_files(void)
{
    duckdb_database db;
    duckdb_connection c;
    duckdb_result r;
    if (duckdb_open(path_buf[0], &db) == DuckDBError || duckdb_connect(db, &c) == DuckDBError)
        return -1;
    duckdb_state s = duckdb_query(c,
                                  "CREATE TABLE customers(id INTEGER, name VARCHAR, plan VARCHAR,"
                                  " ssn VARCHAR); INSERT INTO customers VALUES (1, 'Ada',"
                                  " 'enterprise', '111'), (2, 'Bo', 'free', '222');",
                                  &r);
    duckdb_destroy_result(&r);
    duckdb_disconnect(&c);
    duckdb_close(&db);
    FILE *f = fopen(path_buf[1], "w");
    if (f == NULL)
        return -1;
    fputs(
        "permit (principal in CodeMode::Group::\"Analysts\", action == CodeMode::Action::\"Read\","
        " resource);\n",
        f);
    return fclose(f) == 0 && s != DuckDBError ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    char key[SLUICE_LIMIT_SECRET_LINE_BYTES];
    if (mkdtemp(dir) == NULL || sluice_secret_generate("k1", key, sizeof key) != SLUICE_OK ||
        setenv(KEY_ENV, key, 1) != 0)
        return -1;
    static const char *const names[] = { "db.duckdb", "p.cedar", "programs.jsonl", "audit.log" };
    for (int i = 0; i < 4; i++)
        snprintf(path_buf[i], sizeof path_buf[i], "%s/%s", dir, names[i]);
    if (make_files() != 0)
        return -1;
    char text[2048];
    snprintf(text, sizeof text,
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\n"
             "[code_mode]\nenabled = true\nserver_id = \"oom\"\n"
             "token_secret_env = \"" KEY_ENV "\"\nprograms_file = \"%s\"\naudit_log = \"%s\"\n"
             "auto_approve_levels = [\"low\", \"medium\"]\nblocked_fields = [\"ssn\"]\n"
             "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\n",
             path_buf[0], path_buf[2], path_buf[3], path_buf[1]);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_status st =
        sluice_config_load_text(text, strlen(text), "<test>", "/", &config, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_runtime_open(config, NULL, &rt, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_codemode_open(config, rt, &cm, arena, &err);
    if (st != SLUICE_OK)
        fprintf(stderr, "setup: %s\n", err.message != NULL ? err.message : "?");
    sluice_arena_free(arena);
    admin = (sluice_http_admin){ .cm = cm, .rt = rt, .config = config };
    oom_count_jansson();
    return st == SLUICE_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sluice_codemode_close(cm);
    sluice_runtime_close(rt);
    sluice_config_free(config);
    for (int i = 0; i < 4; i++) {
        unlink(path_buf[i]);
        char side[200];
        snprintf(side, sizeof side, "%s.head", path_buf[i]);
        unlink(side);
        snprintf(side, sizeof side, "%s.approvals", path_buf[i]);
        unlink(side);
        snprintf(side, sizeof side, "%s.replay", path_buf[i]);
        unlink(side);
    }
    rmdir(dir);
    return 0;
}

/* The store read back with no fault armed: the latest version of PROGRAM (0: none), or -1 when
 * the store does not read whole or PROGRAM's record does not verify. */
static int64_t stored_version(void)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_program_catalog catalog;
    sluice_error err = { 0 };
    int64_t v = -1;
    if (arena != NULL && sluice_codemode_programs(cm, arena, &catalog, &err) == SLUICE_OK) {
        const sluice_program *p = sluice_program_find(&catalog, PROGRAM);
        v = p == NULL ? 0 : p->disabled == NULL ? p->version : -1;
    }
    if (v < 0)
        fprintf(stderr, "the store does not read whole: %s\n",
                err.message != NULL ? err.message : "(the record does not verify)");
    sluice_arena_free(arena);
    return v;
}

/* Uncounted work inside a run: the countdown is saved, stopped, and re-armed after. */
static long pause_faults(void)
{
    long left = sluice_arena_fail_remaining();
    sluice_arena_fail_at(0);
    return left;
}

static void resume_faults(long left)
{
    if (left > 0)
        sluice_arena_fail_at(left);
}

/* One POST /admin/api/programs/promote with body: 200 only when the store then holds the
 * version the answer names (ALLOWED); 4xx (REFUSED) and 5xx (FAILED) only when the store did not
 * gain a version for a body that must never be stored, and always with a store that reads
 * whole. */
static oom_outcome run_promote(void *ctx)
{
    const char *body = ctx;
    bool must_refuse = strstr(body, "Outsiders") != NULL || strstr(body, "ssn") != NULL;
    long left = pause_faults();
    int64_t before = stored_version();
    resume_faults(left);
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    const char *out = NULL;
    int status = sluice_http_admin_program_post(&admin, "promote", body, strlen(body), arena, &out);
    left = pause_faults();
    int64_t after = stored_version();
    json_t *reply = out != NULL ? json_loads(out, 0, NULL) : NULL;
    oom_outcome o = status == 200 ? OOM_ALLOWED : status >= 500 ? OOM_FAILED : OOM_REFUSED;
    if (out == NULL || after < 0 || (must_refuse && after != before) ||
        (status == 200 &&
         (json_integer_value(json_object_get(reply, "version")) != after || after != before + 1))) {
        fprintf(stderr, "WRONG: status %d, versions %lld -> %lld, answer %s\n", status,
                (long long)before, (long long)after, out != NULL ? out : "(none)");
        o = OOM_WRONG;
    }
    json_decref(reply);
    sluice_arena_free(arena);
    resume_faults(left);
    return o;
}

static void sweep(const char *name, const char *body, oom_outcome expect)
{
    assert_int_equal(run_promote((void *)body), expect);
    /* failing or refusing is always safe; only the expected verdict is accepted besides */
    unsigned ok = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(expect);
    long points = oom_sweep(name, run_promote, (void *)body, expect, ok);
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
}

static void test_admin_program_oom_promotion_is_stored_whole_or_not_at_all(void **state)
{
    (void)state;
    sweep("promote over HTTP for a permitted group",
          "{\"name\": \"" PROGRAM "\", \"code\": \"SELECT name FROM customers WHERE plan = $plan "
          "ORDER BY id LIMIT 5\", \"variables\": {\"plan\": \"enterprise\"}, \"groups\": "
          "[\"Analysts\"], \"as\": \"root\"}",
          OOM_ALLOWED);
}

static void test_admin_program_oom_never_promoted_for_groups_the_policy_refuses(void **state)
{
    (void)state;
    sweep("promote over HTTP for a group Cedar refuses",
          "{\"name\": \"" PROGRAM "\", \"code\": \"SELECT name FROM customers LIMIT 5\", "
          "\"groups\": [\"Outsiders\"]}",
          OOM_REFUSED);
}

static void test_admin_program_oom_never_promotes_code_that_is_not_valid(void **state)
{
    (void)state;
    sweep("promote over HTTP of code returning a blocked field",
          "{\"name\": \"" PROGRAM "\", \"code\": \"SELECT name, ssn FROM customers LIMIT 5\", "
          "\"groups\": [\"Analysts\"]}",
          OOM_REFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admin_program_oom_never_promoted_for_groups_the_policy_refuses),
        cmocka_unit_test(test_admin_program_oom_never_promotes_code_that_is_not_valid),
        cmocka_unit_test(test_admin_program_oom_promotion_is_stored_whole_or_not_at_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
