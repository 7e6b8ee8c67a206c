/*
 * clock.c — the system clock and the manual test clock (see clock.h).
 */
#include "core/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define NS_PER_S  1000000000LL
#define NS_PER_MS 1000000LL

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + (int64_t)ts.tv_nsec;
}

static int64_t system_realtime(const sluice_clock *self)
{
    (void)self;
    return read_clock(CLOCK_REALTIME);
}

static int64_t system_monotonic(const sluice_clock *self)
{
    (void)self;
    return read_clock(CLOCK_MONOTONIC);
}

static const sluice_clock system_clock = { system_realtime, system_monotonic };

const sluice_clock *sluice_clock_system(void)
{
    return &system_clock;
}

static const sluice_clock *or_system(const sluice_clock *clock)
{
    return clock != NULL ? clock : &system_clock;
}

int64_t sluice_clock_now_s(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->realtime_ns(c) / NS_PER_S;
}

int64_t sluice_clock_now_ms(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->realtime_ns(c) / NS_PER_MS;
}

int64_t sluice_clock_monotonic_ns(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->monotonic_ns(c);
}

int64_t sluice_clock_monotonic_ms(const sluice_clock *clock)
{
    return sluice_clock_monotonic_ns(clock) / 1000000;
}

struct timespec sluice_clock_deadline_after(int64_t ms)
{
    int64_t at = read_clock(CLOCK_REALTIME) + ms * NS_PER_MS;
    return (struct timespec){ .tv_sec = (time_t)(at / NS_PER_S), .tv_nsec = (long)(at % NS_PER_S) };
}

/* The manual clock is the first member of sluice_manual_clock, so the cast is the container. */
static int64_t manual_realtime(const sluice_clock *self)
{
    return atomic_load(&((sluice_manual_clock *)(uintptr_t)self)->realtime_ns);
}

static int64_t manual_monotonic(const sluice_clock *self)
{
    return atomic_load(&((sluice_manual_clock *)(uintptr_t)self)->monotonic_ns);
}

void sluice_manual_clock_init(sluice_manual_clock *m, int64_t now_s)
{
    m->clock.realtime_ns = manual_realtime;
    m->clock.monotonic_ns = manual_monotonic;
    atomic_store(&m->realtime_ns, now_s * NS_PER_S);
    atomic_store(&m->monotonic_ns, 0);
}

void sluice_manual_clock_advance_ms(sluice_manual_clock *m, int64_t ms)
{
    atomic_fetch_add(&m->realtime_ns, ms * NS_PER_MS);
    if (ms > 0)
        atomic_fetch_add(&m->monotonic_ns, ms * NS_PER_MS);
}

/* Howard Hinnant's civil_from_days: 400-year eras of 146097 days from 0000-03-01, so February,
 * with the leap day, ends each year; the day within the era is never negative, so all but the
 * era is unsigned arithmetic. Inline here: a call was a tenth of a token expiry's text. */
static inline void civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = (int64_t)yoe + era * 400 + (*month <= 2);
}

void sluice_clock_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
    civil_from_days(days, year, month, day);
}

/* n as exactly width digits (n < 10^width) at out. */
static void put_digits(char *out, unsigned n, int width)
{
    for (int i = width - 1; i >= 0; i--, n /= 10)
        out[i] = (char)('0' + n % 10);
}

bool sluice_clock_utc_text(int64_t secs, char out[SLUICE_CLOCK_UTC_TEXT])
{
    if (secs < 0 || secs >= 253402300800LL) { /* before 1970 or after 9999: the library's */
        time_t t = (time_t)secs;
        struct tm tm;
        if (gmtime_r(&t, &tm) == NULL) {
            out[0] = '\0';
            return false;
        }
        strftime(out, SLUICE_CLOCK_UTC_TEXT, "%Y-%m-%dT%H:%M:%SZ", &tm);
        return true;
    }
    unsigned rem = (unsigned)(secs % 86400);
    int64_t year;
    int month, day;
    civil_from_days(secs / 86400, &year, &month, &day);
    put_digits(out, (unsigned)year, 4);
    out[4] = '-';
    put_digits(out + 5, (unsigned)month, 2);
    out[7] = '-';
    put_digits(out + 8, (unsigned)day, 2);
    out[10] = 'T';
    put_digits(out + 11, rem / 3600, 2);
    out[13] = ':';
    put_digits(out + 14, rem / 60 % 60, 2);
    out[16] = ':';
    put_digits(out + 17, rem % 60, 2);
    out[19] = 'Z';
    out[20] = '\0';
    return true;
}

void sluice_clock_utc_text_ms(int64_t ms, char out[SLUICE_CLOCK_UTC_TEXT])
{
    if (ms >= 0 && ms < 253402300800000LL) { /* 1970-9999: the fraction where the "Z" was */
        (void)sluice_clock_utc_text(ms / 1000, out);
        out[19] = '.';
        put_digits(out + 20, (unsigned)(ms % 1000), 3);
        out[23] = 'Z';
        out[24] = '\0';
        return;
    }
    if (!sluice_clock_utc_text(ms / 1000, out))
        return;
    size_t z = strlen(out) - 1; /* the seconds' "Z": the fraction goes before it */
    snprintf(out + z, SLUICE_CLOCK_UTC_TEXT - z, ".%03dZ", (int)(ms % 1000));
}
