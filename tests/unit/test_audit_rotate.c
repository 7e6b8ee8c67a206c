/*
 * test_audit_rotate.c — audit log rotation keeps one verifiable chain across files: rotation by
 * size and by age (manual clock), mid-stream and under concurrent appends; `verify` follows the
 * rotated files and finds an edited, a missing or a reordered file; reopening continues the
 * chain in the current file; the metrics count records and rotations.
 */
#include "core/clock.h"
#include "core/metrics.h"
#include "state/audit.h"
#include "unit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS            4
#define RECORDS_PER_THREAD 60

static char dir[64];
static char path[128];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/sluice-test-rotate-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/audit.jsonl", dir);
    return 0;
}

static int clean_dir(void **state)
{
    (void)state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -f %s/audit.jsonl*", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static sluice_audit *open_log(const sluice_clock *clock, size_t bytes, int64_t seconds)
{
    sluice_audit_file_options o = { .clock = clock,
                                    .rotate_bytes = bytes,
                                    .rotate_seconds = seconds };
    sluice_audit *log = NULL;
    assert_int_equal(sluice_audit_open_file(path, &o, &log, NULL, NULL), SLUICE_OK);
    return log;
}

static void append(sluice_audit *log, int i)
{
    json_t *event = json_pack("{s:s, s:i, s:s}", "event", "validate", "i", i, "code",
                              "SELECT id, name FROM customers ORDER BY id LIMIT 10");
    assert_int_equal(sluice_audit_append(log, event, NULL, NULL), SLUICE_OK);
    json_decref(event);
}

static bool exists(const char *suffix)
{
    char p[192];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, F_OK) == 0;
}

static void verify_ok(uint64_t records, unsigned min_files)
{
    sluice_audit_report r;
    sluice_status st = sluice_audit_verify(path, &r);
    if (st != SLUICE_OK)
        fail_msg("verify: %s:%zu: %s", r.file, r.line, r.what);
    assert_int_equal(r.records, records);
    assert_true(r.files >= min_files);
}

/* Size rotation mid-stream: several files, one chain; the rotation records are in it. */
static void test_rotation_by_size_keeps_one_chain(void **state)
{
    (void)state;
    int64_t rotations = sluice_metric_value(SLUICE_METRIC_AUDIT_ROTATIONS, NULL, NULL, NULL);
    sluice_audit *log = open_log(NULL, 1000, 0);
    for (int i = 0; i < 30; i++)
        append(log, i);
    uint64_t n = sluice_audit_count(log);
    sluice_audit_close(log);
    assert_true(exists(".1") && exists(".1.head") && exists(".2") && exists(".head"));
    assert_false(exists(".next"));
    int64_t moved =
        sluice_metric_value(SLUICE_METRIC_AUDIT_ROTATIONS, NULL, NULL, NULL) - rotations;
    assert_true(moved >= 2);
    assert_int_equal(n, 30 + (uint64_t)moved); /* one "audit_rotated" record per rotation */
    verify_ok(n, (unsigned)moved + 1);
    /* reopening continues the current file's chain */
    log = open_log(NULL, 0, 0);
    append(log, 99);
    assert_int_equal(sluice_audit_count(log), n + 1);
    sluice_audit_close(log);
    verify_ok(n + 1, (unsigned)moved + 1);
}

/* Age rotation from the injected clock: nothing rotates before the age, then the next append
 * does. */
static void test_rotation_by_age(void **state)
{
    (void)state;
    sluice_manual_clock clock;
    sluice_manual_clock_init(&clock, 1800000000);
    sluice_audit *log = open_log(&clock.clock, 0, 3600);
    append(log, 1);
    sluice_manual_clock_advance_ms(&clock, 3599 * 1000);
    append(log, 2);
    assert_false(exists(".1"));
    sluice_manual_clock_advance_ms(&clock, 2000);
    append(log, 3);
    assert_true(exists(".1"));
    sluice_audit_close(log);
    verify_ok(4, 2);
}

static void edit_byte(const char *suffix, const char *from, char to)
{
    char p[192];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    FILE *f = fopen(p, "r+");
    assert_non_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    char *at = strstr(buf, from);
    assert_non_null(at);
    fseek(f, at - buf + (long)strlen(from) - 1, SEEK_SET); /* its last byte */
    fputc(to, f);
    fclose(f);
}

/* An edited rotated file is found, and named (a digit changed: the line still parses). */
static void test_verify_names_the_edited_rotated_file(void **state)
{
    (void)state;
    sluice_audit *log = open_log(NULL, 1000, 0);
    for (int i = 0; i < 20; i++)
        append(log, i);
    sluice_audit_close(log);
    edit_byte(".1", "\"i\":3", '7');
    sluice_audit_report r;
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_E_INVALID);
    assert_non_null(strstr(r.file, "audit.jsonl.1"));
    assert_non_null(strstr(r.what, "modified"));
}

static void move(const char *from, const char *to)
{
    char p[192], q[192];
    snprintf(p, sizeof p, "%s%s", path, from);
    snprintf(q, sizeof q, "%s%s", path, to);
    assert_int_equal(rename(p, q), 0);
}

/* A rotated file that goes missing (the middle one, or the oldest) breaks the chain; put back,
 * it verifies again. */
static void test_verify_finds_a_missing_file(void **state)
{
    (void)state;
    sluice_audit *log = open_log(NULL, 1000, 0);
    for (int i = 0; i < 40; i++)
        append(log, i);
    uint64_t n = sluice_audit_count(log);
    sluice_audit_close(log);
    assert_true(exists(".3"));
    sluice_audit_report r;
    move(".2", ".2.away"); /* verify then sees .1 and the current file, which do not link */
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_E_INVALID);
    move(".2.away", ".2");
    move(".1", ".1.away"); /* no .1: the chain seems to start in the current file, not at 1 */
    assert_int_equal(sluice_audit_verify(path, &r), SLUICE_E_INVALID);
    assert_non_null(strstr(r.what, "missing"));
    move(".1.away", ".1");
    verify_ok(n, 3);
}

/* Many writers while the size threshold is crossed again and again: one intact chain. */
static void *appender(void *arg)
{
    for (int i = 0; i < RECORDS_PER_THREAD; i++) {
        json_t *event = json_pack("{s:s, s:i}", "event", "concurrent", "i", i);
        sluice_status st = sluice_audit_append(arg, event, NULL, NULL);
        json_decref(event);
        if (st != SLUICE_OK)
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent_appends_across_rotations(void **state)
{
    (void)state;
    sluice_audit *log = open_log(NULL, 2000, 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, appender, log), 0);
    for (int i = 0; i < THREADS; i++) {
        void *rc = NULL;
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
    uint64_t n = sluice_audit_count(log);
    assert_true(n > THREADS * RECORDS_PER_THREAD); /* the rotation records too */
    sluice_audit_close(log);
    assert_true(exists(".1"));
    verify_ok(n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_rotation_by_size_keeps_one_chain, clean_dir),
        cmocka_unit_test_setup(test_rotation_by_age, clean_dir),
        cmocka_unit_test_setup(test_verify_names_the_edited_rotated_file, clean_dir),
        cmocka_unit_test_setup(test_verify_finds_a_missing_file, clean_dir),
        cmocka_unit_test_setup(test_concurrent_appends_across_rotations, clean_dir),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
