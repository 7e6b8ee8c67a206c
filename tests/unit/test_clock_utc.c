/*
 * test_clock_utc.c — a time as UTC text (core/clock.h's sluice_clock_utc_text): the same text as
 * gmtime_r and strftime's "%Y-%m-%dT%H:%M:%SZ" for every day from 1970 through 9999 (the
 * arithmetic's range: leap days, century and 400-year years, month ends), seconds across a day,
 * and times outside that range, which go to the library.
 */
#include "core/clock.h"
#include "unit.h"

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
