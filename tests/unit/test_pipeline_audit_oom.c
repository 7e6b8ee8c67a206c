/*
 * test_pipeline_audit_oom.c — validate_code with an audit log, every allocation point of a call
 * failed in turn: a validation that answers has written its record, with every member the
 * unfaulted record has (the token's id among them when a token was issued) and this call's
 * code; one whose record could not be made in full answers nothing. Written against the public
 * API and the log's text only.
 */
#include "oom_codemode.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ENV "SLUICE_TEST_PIPELINE_AUDIT_OOM_KEY"

static oom_codemode fx;
static char audit_dir[64];
static char audit_path[128];
static sluice_identity who = { .user_id = "alice", .method = "test" };
static const sluice_codemode_caller caller = { .identity = &who, .session_id = "session-1" };

static int setup(void **state)
{
    (void)state;
    snprintf(audit_dir, sizeof audit_dir, "/tmp/sluice-audit-oom-XXXXXX");
    if (mkdtemp(audit_dir) == NULL)
        return -1;
    snprintf(audit_path, sizeof audit_path, "%s/audit.jsonl", audit_dir);
    char extra[256];
    snprintf(extra, sizeof extra, "audit_log = \"%s\"\n", audit_path);
    return oom_codemode_over(&fx, "pipeline-audit-oom", KEY_ENV, "audit-oom",
                             OOM_CODEMODE_CUSTOMERS, extra);
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", audit_dir);
    return system(cmd) == 0 ? 0 : -1;
}

typedef struct audit_case {
    const char *code;
    bool token;  /* the unfaulted validation issues one */
    char *keys;  /* the unfaulted record's member names, comma-joined (malloc) */
    long runs;   /* each run validates a text never sent before: a numbered comment */
    char *sent;  /* this run's text (malloc) */
    size_t seen; /* records in the log before this run */
} audit_case;

/* The log's last record parsed and how many records the log has; NULL when it has none. */
static json_t *last_record(size_t *records)
{
    FILE *f = fopen(audit_path, "rb");
    static char line[1 << 16], last[1 << 16];
    *records = 0;
    last[0] = '\0';
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        memcpy(last, line, sizeof last);
        (*records)++;
    }
    if (f != NULL)
        fclose(f);
    return *records > 0 ? json_loads(last, 0, NULL) : NULL;
}

/* The record's member names, comma-joined (malloc). */
static char *keys_of(json_t *record)
{
    size_t cap = 1024, len = 0;
    char *out = calloc(1, cap);
    const char *key;
    json_t *value;
    json_object_foreach(record, key, value)
    {
        len += (size_t)snprintf(out + len, cap - len, "%s,", key);
        assert_true(len < cap);
    }
    return out;
}

/* validate_code of this run's text with whatever fault is armed, judged unfaulted: failed, or
 * the expected verdict whose record is the log's newest, with the unfaulted record's members. */
static oom_outcome run(void *ctx)
{
    audit_case *c = ctx;
    long left = sluice_arena_fail_remaining(); /* the test's own work runs unfaulted */
    sluice_arena_fail_at(0);
    size_t cap = strlen(c->code) + 32;
    free(c->sent);
    c->sent = malloc(cap);
    assert_non_null(c->sent);
    snprintf(c->sent, cap, "%s\n-- run %ld", c->code, ++c->runs);
    json_decref(last_record(&c->seen));
    sluice_arena *arena = sluice_arena_new();
    if (left > 0)
        sluice_arena_fail_at(left);
    json_t *out = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = arena, .caller = &caller, .code = c->sent, .code_len = strlen(c->sent), .err = &err
    };
    sluice_status st = sluice_codemode_validate(fx.cm, &req, &out);
    left = sluice_arena_fail_remaining();
    sluice_arena_fail_at(0);
    oom_outcome o = OOM_FAILED;
    if (st == SLUICE_OK) {
        bool token = json_is_string(json_object_get(out, "approval_token"));
        size_t records;
        json_t *rec = last_record(&records);
        char *keys = rec != NULL ? keys_of(rec) : NULL;
        const char *code = json_string_value(json_object_get(rec, "code"));
        bool same = token == c->token && records == c->seen + 1 && code != NULL &&
                    strcmp(code, c->sent) == 0 && (c->keys == NULL || strcmp(keys, c->keys) == 0);
        if (c->keys == NULL)
            c->keys = keys; /* the unfaulted baseline's */
        else
            free(keys);
        if (!same)
            fprintf(stderr, "wrong record (token %d, %zu records after %zu): %s\n", token, records,
                    c->seen, c->keys);
        o = !same ? OOM_WRONG : token ? OOM_ALLOWED : OOM_REFUSED;
        json_decref(rec);
    }
    json_decref(out);
    sluice_arena_free(arena);
    if (left > 0)
        sluice_arena_fail_at(left);
    return o;
}

static void sweep_case(const char *name, audit_case *c, oom_outcome expect)
{
    assert_int_equal(run(c), expect); /* the baseline: its record's members */
    assert_non_null(c->keys);
    assert_int_equal(strstr(c->keys, ",token_id,") != NULL, c->token);
    long points = oom_sweep(name, run, c, expect, OOM_ACCEPT(OOM_FAILED) | OOM_ACCEPT(expect));
    fprintf(stderr, "oom sweep: %ld allocation points: %s\n", points, name);
    assert_true(points > 10);
    free(c->keys);
    free(c->sent);
}

static void test_pipeline_audit_oom_issued_token_is_recorded_or_nothing_answers(void **state)
{
    (void)state;
    audit_case c = { .code = "SELECT name FROM customers WHERE plan = 'enterprise' LIMIT 5",
                     .token = true };
    sweep_case("validate with an audit log, a clean read", &c, OOM_ALLOWED);
}

static void test_pipeline_audit_oom_refusal_is_recorded_or_nothing_answers(void **state)
{
    (void)state;
    audit_case c = { .code = "SELECT upper(ssn) AS x FROM customers" };
    sweep_case("validate with an audit log, a refusal", &c, OOM_REFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_audit_oom_issued_token_is_recorded_or_nothing_answers),
        cmocka_unit_test(test_pipeline_audit_oom_refusal_is_recorded_or_nothing_answers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
