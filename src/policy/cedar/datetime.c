/*
 * datetime.c — Cedar's `datetime` and `duration` extension types (milliseconds in an int64).
 *
 * Owns: parsing the five datetime forms ("YYYY-MM-DD", "...Thh:mm:ssZ", "...Thh:mm:ss.SSSZ",
 * "...Thh:mm:ss(+|-)hhmm", "...Thh:mm:ss.SSS(+|-)hhmm"), duration strings ("-?1d2h3m4s5ms",
 * units in that order, each optional, at least one), and toDate/toTime.
 * Does not own: offset / durationSince / comparisons (eval.c, plain checked arithmetic).
 */
#include "core/clock.h"
#include "policy/cedar/ast.h"

#define MS_PER_DAY 86400000LL

__extension__ typedef __int128 wide_int; /* GCC and clang; pedantic-clean */

/* n digits at s[*i] as a number; false when they are not all digits. */
static bool digits(const char *s, size_t len, size_t *i, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9')
            return false;
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return true;
}

static bool expect(const char *s, size_t len, size_t *i, char c)
{
    if (*i >= len || s[*i] != c)
        return false;
    (*i)++;
    return true;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's method). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

static const char *const bad_datetime = "invalid datetime: expected YYYY-MM-DD, optionally "
                                        "followed by Thh:mm:ss[.SSS](Z|+hhmm|-hhmm)";

/* The part after the date: time of day and offset, in ms to add to midnight. */
static const char *parse_time(const char *s, size_t len, size_t i, int64_t *ms)
{
    int hh, mi, ss, milli = 0;
    if (!digits(s, len, &i, 2, &hh) || !expect(s, len, &i, ':') || !digits(s, len, &i, 2, &mi) ||
        !expect(s, len, &i, ':') || !digits(s, len, &i, 2, &ss))
        return bad_datetime;
    if (i < len && s[i] == '.') {
        i++;
        if (!digits(s, len, &i, 3, &milli))
            return bad_datetime;
    }
    if (hh > 23 || mi > 59 || ss > 59)
        return "invalid datetime: time of day out of range";
    int64_t offset = 0;
    if (i < len && s[i] == 'Z') {
        i++;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
        int sign = s[i++] == '+' ? 1 : -1, oh, om;
        if (!digits(s, len, &i, 2, &oh) || !digits(s, len, &i, 2, &om))
            return bad_datetime;
        if (oh > 23 || om > 59)
            return "invalid datetime: offset out of range";
        offset = sign * (oh * 3600LL + om * 60LL) * 1000LL;
    } else {
        return bad_datetime;
    }
    if (i != len)
        return bad_datetime;
    *ms = ((hh * 60LL + mi) * 60LL + ss) * 1000LL + milli - offset;
    return NULL;
}

const char *sluice_cedar_datetime_parse(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int y, m, d;
    if (!digits(s, len, &i, 4, &y) || !expect(s, len, &i, '-') || !digits(s, len, &i, 2, &m) ||
        !expect(s, len, &i, '-') || !digits(s, len, &i, 2, &d))
        return bad_datetime;
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
        return "invalid datetime: no such date";
    int64_t ms = days_from_civil(y, m, d) * MS_PER_DAY, tod = 0;
    if (i < len) {
        if (s[i] != 'T')
            return bad_datetime;
        const char *why = parse_time(s, len, i + 1, &tod);
        if (why != NULL)
            return why;
    }
    *out = ms + tod;
    return NULL;
}

const char *sluice_cedar_duration_parse(const char *s, size_t len, int64_t *out)
{
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {
        { "d", MS_PER_DAY }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 }, { "ms", 1 }
    };
    size_t i = 0;
    bool neg = i < len && s[i] == '-';
    if (neg)
        i++;
    /* 128-bit so that "-9223372036854775808ms" (the minimum) is representable on the way. */
    wide_int total = 0;
    const wide_int cap = (wide_int)INT64_MAX + 1;
    size_t next_unit = 0, parts = 0;
    while (i < len) {
        size_t start = i;
        wide_int n = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            n = n * 10 + (s[i] - '0');
            if (n > cap)
                return "duration overflow";
            i++;
        }
        if (i == start)
            return "invalid duration: expected a number before each unit";
        size_t u = next_unit;
        for (; u < 5; u++) {
            bool two = u == 4;
            /* "m" must not swallow the "m" of "ms". */
            bool is_ms = i + 1 < len && s[i] == 'm' && s[i + 1] == 's';
            if (two ? is_ms : (i < len && s[i] == units[u].unit[0] && !(u == 2 && is_ms)))
                break;
        }
        if (u == 5)
            return "invalid duration: units must be d, h, m, s, ms in that order";
        i += u == 4 ? 2 : 1;
        total += n * units[u].ms;
        if (total > cap)
            return "duration overflow";
        next_unit = u + 1;
        parts++;
    }
    if (parts == 0)
        return "invalid duration: expected something like 1d2h3m4s5ms";
    if (neg)
        total = -total;
    if (total > INT64_MAX || total < INT64_MIN)
        return "duration overflow";
    *out = (int64_t)total;
    return NULL;
}

bool sluice_cedar_datetime_to_date(int64_t ms, int64_t *out)
{
    int64_t rem = ms % MS_PER_DAY;
    if (rem < 0)
        rem += MS_PER_DAY;
    return !__builtin_sub_overflow(ms, rem, out);
}

int64_t sluice_cedar_datetime_to_time(int64_t ms)
{
    int64_t rem = ms % MS_PER_DAY;
    return rem < 0 ? rem + MS_PER_DAY : rem;
}

void sluice_cedar_datetime_print(sluice_buf *buf, int64_t ms)
{
    int64_t day = ms / MS_PER_DAY, rem = ms % MS_PER_DAY, y;
    if (rem < 0) {
        rem += MS_PER_DAY;
        day--;
    }
    int m, d;
    sluice_clock_civil_from_days(day, &y, &m, &d); /* the inverse of days_from_civil */
    if (y < 0 || y > 9999) {
        sluice_buf_printf(buf, "datetime(\"1970-01-01\").offset(duration(\"%lldms\"))",
                          (long long)ms);
        return;
    }
    sluice_buf_printf(buf, "datetime(\"%04lld-%02d-%02dT%02lld:%02lld:%02lld.%03lldZ\")",
                      (long long)y, m, d, (long long)(rem / 3600000), (long long)(rem / 60000 % 60),
                      (long long)(rem / 1000 % 60), (long long)(rem % 1000));
}
