/*
 * test_metrics.c — the metrics registry and the request log line: counters, gauges and
 * histograms render in the Prometheus text format (cumulative buckets ending at the count,
 * escaped labels); label sets past the cap fall into "_overflow" instead of growing; concurrent
 * increments are not lost; a request's line is JSON with log_format json and text at debug
 * level, and nothing at info in text.
 */
#include "core/buf.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/request.h"
#include "unit.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define INCS    20000

static char *render(void)
{
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_metrics_render(&b);
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    return b.data; /* malloc'd */
}

static void test_counter_labels_render_escaped(void **state)
{
    (void)state;
    sluice_metric_inc(SLUICE_METRIC_DENIALS, "blocked \"field\"\\\n", NULL, NULL);
    sluice_metric_inc(SLUICE_METRIC_DENIALS, "blocked \"field\"\\\n", NULL, NULL);
    assert_int_equal(
        sluice_metric_value(SLUICE_METRIC_DENIALS, "blocked \"field\"\\\n", NULL, NULL), 2);
    char *text = render();
    assert_non_null(strstr(text, "# TYPE sluice_denials_total counter\n"));
    assert_non_null(
        strstr(text, "sluice_denials_total{reason=\"blocked \\\"field\\\"\\\\\\n\"} 2\n"));
    free(text);
}

static void test_histogram_buckets_are_cumulative(void **state)
{
    (void)state;
    sluice_metric_observe_ns(SLUICE_METRIC_VALIDATE_SECONDS, 300000, "sql", NULL);      /* 0.3 ms */
    sluice_metric_observe_ns(SLUICE_METRIC_VALIDATE_SECONDS, 7000000, "sql", NULL);     /* 7 ms */
    sluice_metric_observe_ns(SLUICE_METRIC_VALIDATE_SECONDS, 99000000000, "sql", NULL); /* 99 s */
    char *text = render();
    assert_non_null(strstr(
        text, "sluice_validate_duration_seconds_bucket{language=\"sql\",le=\"0.0005\"} 1\n"));
    assert_non_null(
        strstr(text, "sluice_validate_duration_seconds_bucket{language=\"sql\",le=\"0.005\"} 1\n"));
    assert_non_null(
        strstr(text, "sluice_validate_duration_seconds_bucket{language=\"sql\",le=\"0.01\"} 2\n"));
    assert_non_null(
        strstr(text, "sluice_validate_duration_seconds_bucket{language=\"sql\",le=\"30\"} 2\n"));
    assert_non_null(
        strstr(text, "sluice_validate_duration_seconds_bucket{language=\"sql\",le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(text, "sluice_validate_duration_seconds_count{language=\"sql\"} 3\n"));
    assert_non_null(
        strstr(text, "sluice_validate_duration_seconds_sum{language=\"sql\"} 99.007300000\n"));
    free(text);
}

static void test_label_sets_past_the_cap_overflow(void **state)
{
    (void)state;
    char name[32];
    for (unsigned i = 0; i < SLUICE_LIMIT_METRIC_SERIES + 50; i++) {
        snprintf(name, sizeof name, "check-%u", i);
        sluice_metric_inc(SLUICE_METRIC_TOKEN_REFUSALS, name, NULL, NULL);
    }
    char *text = render();
    assert_non_null(strstr(text, "sluice_token_refusals_total{check=\"_overflow\"} 50\n"));
    size_t series = 0;
    for (const char *p = text; (p = strstr(p, "\nsluice_token_refusals_total{")) != NULL; p++)
        series++;
    assert_int_equal(series, SLUICE_LIMIT_METRIC_SERIES + 1);
    free(text);
}

static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < INCS; i++) {
        sluice_metric_inc(SLUICE_METRIC_ENGINE_ERRORS, i % 2 ? "engine" : "timeout", NULL, NULL);
        sluice_metric_add(SLUICE_METRIC_QUERYMODE_OPEN, i % 2 ? -1 : 1, NULL, NULL, NULL);
    }
    return NULL;
}

static void test_concurrent_increments_are_not_lost(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, incrementer, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(sluice_metric_value(SLUICE_METRIC_ENGINE_ERRORS, "engine", NULL, NULL),
                     THREADS * INCS / 2);
    assert_int_equal(sluice_metric_value(SLUICE_METRIC_ENGINE_ERRORS, "timeout", NULL, NULL),
                     THREADS * INCS / 2);
    assert_int_equal(sluice_metric_value(SLUICE_METRIC_QUERYMODE_OPEN, NULL, NULL, NULL), 0);
}

/* Runs one request with stderr sent to a file; returns what it wrote (malloc'd). */
static char *one_request(const char *decision)
{
    char path[] = "/tmp/sluice-test-request-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    sluice_request rq;
    sluice_request_begin(&rq, "tools/call", "execute_code", "sess-1", "alice");
    assert_string_equal(sluice_request_current_id(), rq.id);
    sluice_request_note(decision, 7);
    sluice_request_end(&rq, "ok");
    assert_null(sluice_request_current_id());
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char *text = calloc(1, 4096);
    assert_true(pread(fd, text, 4095, 0) >= 0);
    close(fd);
    unlink(path);
    return text;
}

static void test_request_line_json_and_text(void **state)
{
    (void)state;
    int64_t before =
        sluice_metric_value(SLUICE_METRIC_REQUESTS, "tools/call", "execute_code", "ok");
    sluice_log_set_format(SLUICE_LOG_JSON);
    sluice_log_set_level(SLUICE_LOG_INFO);
    char *text = one_request("executed");
    json_error_t jerr;
    json_t *line = json_loads(text, 0, &jerr);
    assert_non_null(line);
    assert_string_equal(json_string_value(json_object_get(line, "msg")), "request");
    assert_string_equal(json_string_value(json_object_get(line, "principal")), "alice");
    assert_string_equal(json_string_value(json_object_get(line, "session")), "sess-1");
    assert_string_equal(json_string_value(json_object_get(line, "tool")), "execute_code");
    assert_string_equal(json_string_value(json_object_get(line, "decision")), "executed");
    assert_int_equal(json_integer_value(json_object_get(line, "rows")), 7);
    assert_true(json_is_number(json_object_get(line, "duration_ms")));
    assert_int_equal(strlen(json_string_value(json_object_get(line, "request_id"))),
                     SLUICE_REQUEST_ID_CHARS - 3);
    json_decref(line);
    free(text);
    sluice_log_set_format(SLUICE_LOG_TEXT);
    text = one_request("executed");
    assert_string_equal(text, ""); /* text at info: no request lines */
    free(text);
    sluice_log_set_level(SLUICE_LOG_DEBUG);
    text = one_request("refused");
    assert_non_null(strstr(text, "sluice debug: request "));
    assert_non_null(strstr(text, "tools/call execute_code ok decision=refused rows=7"));
    free(text);
    sluice_log_set_level(SLUICE_LOG_INFO);
    assert_int_equal(
        sluice_metric_value(SLUICE_METRIC_REQUESTS, "tools/call", "execute_code", "ok"),
        before + 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_labels_render_escaped),
        cmocka_unit_test(test_histogram_buckets_are_cumulative),
        cmocka_unit_test(test_label_sets_past_the_cap_overflow),
        cmocka_unit_test(test_concurrent_increments_are_not_lost),
        cmocka_unit_test(test_request_line_json_and_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
