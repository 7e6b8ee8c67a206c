/*
 * test_admin_program_oom.c — the console's promotion endpoint (transport/http_admin_api.h:
 * sluice_http_admin_program_post) under allocation failure: every allocation point of a request
 * is failed in turn. It never answers 200 unless the program is in the store at the version it
 * names; it never stores a program for groups the policy refuses, or code that is not valid; a
 * demotion answers 200 only when the store holds the next version, demoted; and whatever failed,
 * the store still reads back whole (never half written). Over a real DuckDB
 * file, a real Cedar policy, a real program store and a real audit log.
 */
#include "codemode/codemode.h"
#include "codemode/program.h"
#include "oom_codemode.h"
#include "oom_sweep.h"
#include "transport/http_admin_api.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_ADMIN_PROGRAM_OOM_KEY"
#define PROGRAM "plan_names"

static oom_codemode fx;
static sluice_codemode *cm;
static sluice_http_admin admin;

static int setup(void **state)
{
    (void)state;
    if (oom_codemode_files(&fx, "admin-program-oom", KEY_ENV,
                           "CREATE TABLE customers(id INTEGER, name VARCHAR, plan VARCHAR, ssn "
                           "VARCHAR); INSERT INTO customers VALUES (1, 'Ada', 'enterprise', "
                           "'111'), (2, 'Bo', 'free', '222');") != 0)
        return -1;
    char policy[128];
    snprintf(policy, sizeof policy, "%s/p.cedar", fx.dir);
    FILE *f = fopen(policy, "w");
    if (f == NULL)
        return -1;
    fputs(
        "permit (principal in CodeMode::Group::\"Analysts\", action == CodeMode::Action::\"Read\","
        " resource);\n",
        f);
    if (fclose(f) != 0)
        return -1;
    char text[2048];
    snprintf(text, sizeof text,
             "[database]\nengine = \"duckdb\"\npath = \"%s\"\n"
             "[code_mode]\nenabled = true\nserver_id = \"oom\"\n"
             "token_secret_env = \"" KEY_ENV "\"\nprograms_file = \"%s/programs.jsonl\"\n"
             "audit_log = \"%s/audit.log\"\n"
             "auto_approve_levels = [\"low\", \"medium\"]\nblocked_fields = [\"ssn\"]\n"
             "[policy]\nbackend = \"cedar\"\npolicies = \"%s\"\n",
             fx.db, fx.dir, fx.dir, policy);
    if (oom_codemode_open(&fx, text) != 0)
        return -1;
    cm = fx.cm;
    admin = (sluice_http_admin){ .cm = fx.cm, .rt = fx.rt, .config = fx.config };
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
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

/* Every promotion a run stores is verified by every later load: past STORE_LINES_KEPT versions
 * the store is emptied and the runtime opened again (a store object remembers how many lines it
 * read and refuses a file cut back, rightly), so the sweep stays linear. */
#define STORE_LINES_KEPT 20
static int64_t last_version; /* PROGRAM's latest version after the previous run */

static void empty_store(void)
{
    sluice_codemode_close(fx.cm);
    sluice_runtime_close(fx.rt);
    fx.cm = NULL;
    fx.rt = NULL;
    char path[160];
    snprintf(path, sizeof path, "%s/programs.jsonl", fx.dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/programs.jsonl.head", fx.dir);
    unlink(path);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    assert_int_equal(sluice_runtime_open(fx.config, NULL, &fx.rt, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_codemode_open(fx.config, fx.rt, &fx.cm, arena, &err), SLUICE_OK);
    sluice_arena_free(arena);
    cm = fx.cm;
    admin.cm = fx.cm;
    admin.rt = fx.rt;
    last_version = 0;
}

/* One POST /admin/api/programs/promote with body: 200 only when the store then holds the
 * version the answer names (ALLOWED); 4xx (REFUSED) and 5xx (FAILED) only when the store did not
 * gain a version for a body that must never be stored, and always with a store that reads
 * whole. */
static oom_outcome run_promote(void *ctx)
{
    const char *body = ctx;
    bool must_refuse = strstr(body, "Outsiders") != NULL || strstr(body, "ssn") != NULL;
    int64_t before = last_version;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    const char *out = NULL;
    int status = sluice_http_admin_program_post(&admin, "promote", body, strlen(body), arena, &out);
    long left = pause_faults();
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
    last_version = after;
    if (after >= STORE_LINES_KEPT)
        empty_store();
    resume_faults(left);
    return o;
}

#define PERMITTED_BODY                                                                       \
    "{\"name\": \"" PROGRAM "\", \"code\": \"SELECT name FROM customers WHERE plan = $plan " \
    "ORDER BY id LIMIT 5\", \"variables\": {\"plan\": \"enterprise\"}, \"groups\": "         \
    "[\"Analysts\"], \"as\": \"root\"}"

/* PROGRAM's latest record read back with no fault armed: its version (0: none) and whether it
 * is demoted; -1 when the store does not read whole. */
static int64_t latest(bool *demoted)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_program_catalog catalog;
    sluice_error err = { 0 };
    int64_t v = -1;
    *demoted = false;
    if (arena != NULL && sluice_codemode_programs(cm, arena, &catalog, &err) == SLUICE_OK) {
        const sluice_program *p = sluice_program_find(&catalog, PROGRAM);
        v = p == NULL ? 0 : p->version;
        *demoted = p != NULL && p->demoted;
    }
    sluice_arena_free(arena);
    return v;
}

/* One POST /admin/api/programs/demote of a live PROGRAM: 200 only when the store then holds its
 * next version, demoted; after any failure the store reads whole. PROGRAM is promoted again
 * (uncounted) whenever a run left it demoted, so every run demotes a live program. */
static oom_outcome run_demote(void *ctx)
{
    (void)ctx;
    static const char body[] =
        "{\"name\": \"" PROGRAM "\", \"reason\": \"retired\", \"as\": \"ops\"}";
    int64_t before = last_version;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    const char *out = NULL;
    int status = sluice_http_admin_program_post(&admin, "demote", body, strlen(body), arena, &out);
    long left = pause_faults();
    bool demoted = false;
    int64_t after = latest(&demoted);
    oom_outcome o = status == 200 ? OOM_ALLOWED : status >= 500 ? OOM_FAILED : OOM_REFUSED;
    if (out == NULL || after < 0 || (status == 200 && (after != before + 1 || !demoted))) {
        fprintf(stderr, "WRONG: status %d, versions %lld -> %lld (demoted %d), answer %s\n", status,
                (long long)before, (long long)after, demoted, out != NULL ? out : "(none)");
        o = OOM_WRONG;
    }
    sluice_arena_free(arena);
    if (after >= STORE_LINES_KEPT)
        empty_store();
    if (after >= STORE_LINES_KEPT || demoted) {
        const char *ignored = NULL;
        sluice_arena *a = sluice_arena_new();
        assert_int_equal(sluice_http_admin_program_post(&admin, "promote", PERMITTED_BODY,
                                                        strlen(PERMITTED_BODY), a, &ignored),
                         200);
        sluice_arena_free(a);
    }
    last_version = latest(&demoted);
    resume_faults(left);
    return o;
}

static void sweep(const char *name, const char *body, oom_outcome expect)
{
    last_version = stored_version();
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
    sweep("promote over HTTP for a permitted group", PERMITTED_BODY, OOM_ALLOWED);
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

static void test_admin_program_oom_demotion_is_stored_whole_or_not_at_all(void **state)
{
    (void)state;
    bool demoted = false;
    if (latest(&demoted) <= 0 || demoted) { /* the sweeps before may have emptied the store */
        const char *ignored = NULL;
        sluice_arena *a = sluice_arena_new();
        assert_int_equal(sluice_http_admin_program_post(&admin, "promote", PERMITTED_BODY,
                                                        strlen(PERMITTED_BODY), a, &ignored),
                         200);
        sluice_arena_free(a);
    }
    last_version = latest(&demoted);
    assert_int_equal(run_demote(NULL), OOM_ALLOWED);
    unsigned ok = OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(OOM_REFUSED) | OOM_ACCEPT(OOM_ALLOWED);
    long points = oom_sweep("demote over HTTP", run_demote, NULL, OOM_ALLOWED, ok);
    fprintf(stderr, "oom sweep: %ld allocation points: demote over HTTP\n", points);
    assert_true(points > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admin_program_oom_never_promoted_for_groups_the_policy_refuses),
        cmocka_unit_test(test_admin_program_oom_never_promotes_code_that_is_not_valid),
        cmocka_unit_test(test_admin_program_oom_promotion_is_stored_whole_or_not_at_all),
        cmocka_unit_test(test_admin_program_oom_demotion_is_stored_whole_or_not_at_all),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
