/*
 * test_codemode_recall_corpus.c — validate_code answers a recalled text exactly as it answered
 * the analysis it recalls: every statement of the SQL corpora (tests/unit/data/sql/seeds and
 * sql_lineage/allow and /refuse) is validated twice through the pipeline, on a DuckDB file of the
 * demo's shape served read_only — first analysed, then answered by the facts the first call kept
 * (a refusal is never kept: analysed both times) — and the two answers must be byte-identical
 * but for the token and its expiry, and the two audit records but for the token id, the time and
 * the record's place in the chain (seq, prev). Every audit record those calls wrote is, byte for
 * byte, what json_dumps makes of it (the records were json_dumps' text before the writer).
 */
#include "core/json_splice.h"
#include "core/metrics.h"
#include "oom_codemode.h"
#include "sql_fixture.h"
#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY_ENV "SLUICE_TEST_RECALL_CORPUS_KEY"

static oom_codemode fx;
static char audit_dir[64];
static char audit_path[128];
static const char *analysts[] = { "analysts" };
static sluice_identity who = {
    .user_id = "alice", .method = "test", .groups = analysts, .group_count = 1
};
static const sluice_codemode_caller caller = { .identity = &who, .session_id = "s1" };

static int setup(void **state)
{
    (void)state;
    fixture_arena = sluice_arena_new();
    snprintf(audit_dir, sizeof audit_dir, "/tmp/sluice-recall-audit-XXXXXX");
    if (fixture_arena == NULL || mkdtemp(audit_dir) == NULL)
        return -1;
    snprintf(audit_path, sizeof audit_path, "%s/audit.jsonl", audit_dir);
    char extra[512];
    /* the blocked fields sql_fixture.h's corpora are written for: ssn and customers.email */
    snprintf(extra, sizeof extra,
             "sql_blocked_columns = [\"customers.email\"]\naudit_log = \"%s\"\n", audit_path);
    return oom_codemode_over(&fx, "recall-corpus", KEY_ENV, "corpus", fixture_ddl, extra);
}

static int teardown(void **state)
{
    (void)state;
    oom_codemode_close(&fx);
    sluice_arena_free(fixture_arena);
    DIR *d = opendir(audit_dir);
    for (const struct dirent *e = d != NULL ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        char path[sizeof audit_dir + 256];
        snprintf(path, sizeof path, "%s/%s", audit_dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(audit_dir);
    return 0;
}

/* The last record of the audit log, without what differs per call; malloc'd text. */
static char *last_record(void)
{
    FILE *f = fopen(audit_path, "rb");
    assert_non_null(f);
    char line[1 << 16], last[1 << 16] = "";
    while (fgets(line, sizeof line, f) != NULL)
        memcpy(last, line, sizeof last);
    fclose(f);
    json_t *r = json_loads(last, 0, NULL);
    assert_non_null(r);
    static const char *const per_call[] = { "token_id", "ts", "seq", "prev" };
    for (size_t i = 0; i < sizeof per_call / sizeof per_call[0]; i++)
        json_object_del(r, per_call[i]);
    char *text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(r);
    return text;
}

/* validate_code of code: its answer without the token and its expiry, and whether it carried a
 * token (*token), as malloc'd text. */
static char *validate_answer(const char *code, bool *token)
{
    sluice_arena *arena = sluice_arena_new();
    json_t *out = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = arena, .caller = &caller, .code = code, .code_len = strlen(code), .err = &err
    };
    assert_int_equal(sluice_codemode_validate(fx.cm, &req, &out), SLUICE_OK);
    *token = json_is_string(json_object_get(out, "approval_token"));
    assert_int_equal(*token, json_is_string(json_object_get(out, "expires_at")));
    json_object_del(out, "approval_token");
    json_object_del(out, "expires_at");
    json_t *plain = sluice_json_splice_expand(out); /* the metadata splice as its tree */
    char *text = json_dumps(plain, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(plain);
    json_decref(out);
    sluice_arena_free(arena);
    return text;
}

static int64_t recalls(void)
{
    return sluice_metric_value(SLUICE_METRIC_ANALYSIS_RECALLS, "validate", NULL, NULL);
}

/* Validates code twice and compares; the number of times the second call was recalled (0, 1). */
static int64_t validate_twice(const char *name, const char *code)
{
    bool token1, token2;
    char *first = validate_answer(code, &token1);
    char *first_record = last_record();
    int64_t before = recalls();
    char *second = validate_answer(code, &token2);
    char *second_record = last_record();
    int64_t recalled = recalls() - before;
    bool same = strcmp(first, second) == 0 && strcmp(first_record, second_record) == 0 &&
                token1 == token2 && recalled == (token1 ? 1 : 0);
    if (!same)
        fprintf(stderr,
                "%s (recalled %lld)\n  first:  %s\n  second: %s\n  first record:  %s\n"
                "  second record: %s\n",
                name, (long long)recalled, first, second, first_record, second_record);
    assert_true(same);
    free(first);
    free(second);
    free(first_record);
    free(second_record);
    return recalled;
}

/* Every .sql file of dir (under tests/unit/data) validated twice; how many were recalled. */
static size_t validate_dir(const char *sub, size_t *files)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/unit/data/%s", SLUICE_SOURCE_DIR, sub);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t recalled = 0;
    for (const struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        const char *sql = fixture_read_file(path);
        assert_non_null(sql);
        recalled += (size_t)validate_twice(e->d_name, sql);
        (*files)++;
    }
    closedir(d);
    return recalled;
}

static void test_recall_corpus_seeds_answer_alike(void **state)
{
    (void)state;
    size_t files = 0;
    size_t recalled = validate_dir("sql/seeds", &files);
    fprintf(stderr, "seeds: %zu statements, %zu recalled\n", files, recalled);
    assert_true(files >= 9);
    assert_true(recalled >= 2); /* seed 000 and 003 are valid here */
}

static void test_recall_corpus_lineage_allowed_answer_alike(void **state)
{
    (void)state;
    size_t files = 0;
    size_t recalled = validate_dir("sql_lineage/allow", &files);
    fprintf(stderr, "lineage allow: %zu statements, %zu recalled\n", files, recalled);
    assert_true(files >= 20);
    assert_true(recalled >= 20);
}

static void test_recall_corpus_lineage_refused_answer_alike(void **state)
{
    (void)state;
    size_t files = 0;
    size_t recalled = validate_dir("sql_lineage/refuse", &files);
    fprintf(stderr, "lineage refuse: %zu statements, %zu recalled\n", files, recalled);
    assert_true(files >= 40);
}

/* Runs last: every record the corpus wrote, parsed (members keep their order) and dumped again by
 * jansson, is the very line the audit writer wrote. */
static void test_recall_corpus_audit_records_are_jansson_dumps(void **state)
{
    (void)state;
    FILE *f = fopen(audit_path, "rb");
    assert_non_null(f);
    static char line[1 << 20];
    size_t records = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t len = strlen(line);
        assert_true(len > 0 && line[len - 1] == '\n');
        line[--len] = '\0';
        json_t *r = json_loads(line, 0, NULL);
        assert_non_null(r);
        char *again = json_dumps(r, JSON_COMPACT);
        json_decref(r);
        if (again == NULL || strcmp(again, line) != 0)
            fail_msg("record %zu\n  written: %s\n  dumped:  %s", records + 1, line, again);
        free(again);
        records++;
    }
    fclose(f);
    fprintf(stderr, "audit: %zu records as jansson dumps them\n", records);
    assert_true(records >= 2 * (9 + 20 + 40));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recall_corpus_seeds_answer_alike),
        cmocka_unit_test(test_recall_corpus_lineage_allowed_answer_alike),
        cmocka_unit_test(test_recall_corpus_lineage_refused_answer_alike),
        cmocka_unit_test(test_recall_corpus_audit_records_are_jansson_dumps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
