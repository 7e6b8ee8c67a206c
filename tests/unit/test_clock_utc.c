/*
 * test_clock_utc.c — a time as UTC text (core/clock.h's sluice_clock_utc_text and
 * sluice_clock_utc_text_ms): the same text as gmtime_r and strftime's "%Y-%m-%dT%H:%M:%SZ", and
 * as the millisecond form the log, the audit record and query mode wrote with strftime and
 * snprintf's "%s.%03dZ", for every day from 1970 through 9999 (the arithmetic's range: leap
 * days, century and 400-year years, month ends), seconds across a day, every millisecond, and
 * times outside that range, which go to the library; a time no calendar holds answers false.
 * The date under them (sluice_clock_civil_from_days) is gmtime_r's from year -2000 to 12000.
 */
#include "core/clock.h"
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void assert_as_strftime(int64_t secs)
{
    char want[SLUICE_CLOCK_UTC_TEXT], got[SLUICE_CLOCK_UTC_TEXT];
    time_t t = (time_t)secs;
    struct tm tm;
    assert_non_null(gmtime_r(&t, &tm));
    strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sluice_clock_utc_text(secs, got);
    if (strcmp(want, got) != 0)
        fprintf(stderr, "%lld: want %s, got %s\n", (long long)secs, want, got);
    assert_string_equal(got, want);
}

/* What the log (core/log.c), the audit record's ts (state/audit_file.c) and query mode's expiry
 * (querymode/querymode.c) wrote before sluice_clock_utc_text_ms, the three alike. */
static void assert_ms_as_strftime(int64_t ms)
{
    char want[64], secs[32], got[SLUICE_CLOCK_UTC_TEXT];
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    assert_non_null(gmtime_r(&t, &tm));
    strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(want, sizeof want, "%s.%03dZ", secs, (int)(ms % 1000));
    sluice_clock_utc_text_ms(ms, got);
    if (strcmp(want, got) != 0)
        fprintf(stderr, "%lld ms: want %s, got %s\n", (long long)ms, want, got);
    assert_string_equal(got, want);
}

static void test_every_day_of_the_range(void **state)
{
    (void)state;
    const int64_t last = 253402300799LL; /* 9999-12-31T23:59:59Z */
    /* each day at a second that walks through the day's hours, minutes and seconds */
    for (int64_t secs = 0, i = 0; secs <= last; secs += 86400, i++)
        assert_as_strftime(secs + (i * 3607) % 86400);
    assert_as_strftime(0);
    assert_as_strftime(last);
    assert_as_strftime(951782400);    /* 2000-02-29 */
    assert_as_strftime(4107542399LL); /* 2100-02-28T23:59:59, no leap day */
    assert_as_strftime(1796083200);   /* 2026-12-01: a token's expiry these days */
}

static void test_ms_every_day_and_every_millisecond(void **state)
{
    (void)state;
    const int64_t last = 253402300799999LL; /* 9999-12-31T23:59:59.999Z */
    for (int64_t ms = 0, i = 0; ms <= last; ms += 86400000LL, i++)
        assert_ms_as_strftime(ms + (i * 3607001) % 86400000);
    for (int64_t f = 0; f < 1000; f++) {
        assert_ms_as_strftime(f);
        assert_ms_as_strftime(1796083200000LL + f); /* 2026-12-01: an audit record's ts */
        assert_ms_as_strftime(last - f);
    }
}

static void test_ms_outside_the_range_is_the_library_text(void **state)
{
    (void)state;
    /* before the epoch: C's division truncates, so the fraction is negative ("%03d": "-01") */
    for (int64_t ms = -2001; ms < 0; ms++)
        assert_ms_as_strftime(ms);
    assert_ms_as_strftime(-86400000LL * 365 * 30 - 5);
    assert_ms_as_strftime(253402300800000LL); /* 10000-01-01 */
    assert_ms_as_strftime(253402300800123LL * 2);
    /* the longest text: the least int64_t, a 10-character year and a negative fraction */
    assert_ms_as_strftime(INT64_MIN);
    assert_ms_as_strftime(INT64_MAX);
    char got[SLUICE_CLOCK_UTC_TEXT];
    sluice_clock_utc_text_ms(INT64_MIN, got);
    assert_string_equal(got, "-292275055-05-16T16:47:05.-808Z");
}

/* The date under the text (and Cedar's datetimes) is gmtime_r's on every day from year -2000
 * through 12000, the negative days' floor division included. */
static void test_civil_from_days_is_gmtime(void **state)
{
    (void)state;
    for (int64_t days = -1450000; days <= 3700000; days++) {
        time_t t = (time_t)(days * 86400);
        struct tm tm;
        assert_non_null(gmtime_r(&t, &tm));
        int64_t year;
        int month, day;
        sluice_clock_civil_from_days(days, &year, &month, &day);
        if (year != tm.tm_year + 1900LL || month != tm.tm_mon + 1 || day != tm.tm_mday)
            fail_msg("day %lld: %lld-%d-%d, gmtime_r %lld-%d-%d", (long long)days, (long long)year,
                     month, day, tm.tm_year + 1900LL, tm.tm_mon + 1, tm.tm_mday);
    }
}

static void test_no_calendar_holds_it(void **state)
{
    (void)state;
    char got[SLUICE_CLOCK_UTC_TEXT] = "x";
    assert_false(sluice_clock_utc_text(INT64_MAX / 2, got)); /* a year past INT_MAX */
    assert_string_equal(got, "");
    assert_false(sluice_clock_utc_text(INT64_MIN / 2, got));
    assert_true(sluice_clock_utc_text(0, got));
    assert_string_equal(got, "1970-01-01T00:00:00Z");
}

static void test_outside_the_range_is_the_library_text(void **state)
{
    (void)state;
    assert_as_strftime(-1);
    assert_as_strftime(-86400LL * 365 * 30);
    assert_as_strftime(253402300800LL); /* 10000-01-01 */
    assert_as_strftime(253402300800LL * 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_day_of_the_range),
        cmocka_unit_test(test_outside_the_range_is_the_library_text),
        cmocka_unit_test(test_ms_every_day_and_every_millisecond),
        cmocka_unit_test(test_ms_outside_the_range_is_the_library_text),
        cmocka_unit_test(test_no_calendar_holds_it),
        cmocka_unit_test(test_civil_from_days_is_gmtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
