/*
 * date.c — the plan language's Date, read-only: parsing and formatting of given instants, never
 * the clock (new Date() and Date.now() are refused: a plan's answer must not depend on when it
 * runs, and an approved plan must mean the same at execute as at validate).
 *
 * Owns: time values (ECMAScript's ms since the epoch, TimeClip to ±8.64e15), the date-time string
 * format (YYYY, YYYY-MM, YYYY-MM-DD, ±YYYYYY, then T (or t or a space) HH:mm[:ss[.fraction]],
 * then Z or ±HH:mm / ±HHmm; date-only forms are UTC), new Date(ms | string | date |
 * y, m[, d, h, min, s, ms]), Date.parse, Date.UTC, the getters, toISOString, toJSON,
 * toString, toDateString, toUTCString, and a date's number and string conversions.
 * Does not own: `new` (interp.c) or ToPrimitive's other cases (value.c).
 *
 * Documented differences from JavaScript: local time is UTC (getHours equals getUTCHours,
 * getTimezoneOffset is 0: the differential runs Node with TZ=UTC), and only the format above is
 * parsed (Node's fallback parser also reads forms like "Dec 1, 2026"; here they are an Invalid
 * Date).
 */
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ARG(i)     ((i) < argc ? args[(i)] : jv_undef())
#define MS_PER_DAY 86400000.0

static double time_clip(double t)
{
    if (!isfinite(t) || fabs(t) > 8.64e15)
        return NAN;
    return trunc(t) + 0.0; /* + 0.0: -0 becomes +0 */
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, m 1..12, d may overflow the month). */
static double days_from_civil(double y, double m, double d)
{
    double ym = y + floor((m - 1) / 12);
    double mn = fmod(m - 1, 12);
    if (mn < 0)
        mn += 12;
    /* Howard Hinnant's days_from_civil on the normalised year and month */
    double yy = mn < 2 ? ym - 1 : ym;
    double era = floor(yy / 400);
    double yoe = yy - era * 400;
    double mp = fmod(mn + 10, 12); /* March = 0 */
    double doy = floor((153 * mp + 2) / 5);
    double doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy;
    return era * 146097 + doe - 719468 + (d - 1);
}

static double make_time(double y, double mo, double d, double h, double mi, double s, double ms)
{
    if (!isfinite(y) || !isfinite(mo) || !isfinite(d) || !isfinite(h) || !isfinite(mi) ||
        !isfinite(s) || !isfinite(ms))
        return NAN;
    double day = days_from_civil(trunc(y), trunc(mo) + 1, trunc(d));
    return day * MS_PER_DAY + trunc(h) * 3600000.0 + trunc(mi) * 60000.0 + trunc(s) * 1000.0 +
           trunc(ms);
}

typedef struct civil {
    double year;
    int month, day, wday, hour, min, sec, ms; /* month 0..11, wday 0 = Sunday */
} civil;

static civil to_civil(double t)
{
    civil c;
    double days = floor(t / MS_PER_DAY);
    double msday = t - days * MS_PER_DAY;
    c.wday = (int)fmod(fmod(days + 4, 7) + 7, 7);
    double z = days + 719468;
    double era = floor(z / 146097);
    double doe = z - era * 146097;
    double yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365);
    double doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100));
    double mp = floor((5 * doy + 2) / 153);
    c.day = (int)(doy - floor((153 * mp + 2) / 5) + 1);
    int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    c.year = yoe + era * 400 + (m <= 2 ? 1 : 0);
    c.month = m - 1;
    c.hour = (int)(msday / 3600000);
    c.min = (int)fmod(floor(msday / 60000), 60);
    c.sec = (int)fmod(floor(msday / 1000), 60);
    c.ms = (int)fmod(msday, 1000);
    return c;
}

/* --- parsing -------------------------------------------------------------------------------- */

static int digits(const char *s, size_t *i, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (s[*i] < '0' || s[*i] > '9')
            return 0;
        v = v * 10 + (s[*i] - '0');
    }
    *out = v;
    return 1;
}

/* The date-time string format; NaN for anything else. */
static double parse_date(const char *s)
{
    size_t i = 0;
    int year = 0, month = 1, day = 1, h = 0, mi = 0, sec = 0, ms = 0, sign = 1;
    if (s[0] == '+' || s[0] == '-') {
        sign = s[0] == '-' ? -1 : 1;
        i = 1;
        if (!digits(s, &i, 6, &year) || (sign < 0 && year == 0))
            return NAN;
    } else if (!digits(s, &i, 4, &year)) {
        return NAN;
    }
    year *= sign;
    double offset = 0;
    bool has_month = false, has_day = false;
    if (s[i] == '-') {
        i++;
        if (!digits(s, &i, 2, &month))
            return NAN;
        has_month = true;
    }
    if (has_month && s[i] == '-') {
        i++;
        if (!digits(s, &i, 2, &day))
            return NAN;
        has_day = true;
    }
    if (s[i] == 'T' || s[i] == 't' || (s[i] == ' ' && has_day)) {
        i++;
        if (!digits(s, &i, 2, &h) || s[i++] != ':' || !digits(s, &i, 2, &mi))
            return NAN;
        if (s[i] == ':') {
            i++;
            if (!digits(s, &i, 2, &sec))
                return NAN;
            if (s[i] == '.') {
                i++;
                int n = 0;
                for (; s[i] >= '0' && s[i] <= '9'; i++, n++)
                    if (n < 3)
                        ms = ms * 10 + (s[i] - '0');
                if (n == 0)
                    return NAN;
                for (; n < 3; n++)
                    ms *= 10;
            }
        }
        if (s[i] == 'Z' || s[i] == 'z') {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int osign = s[i] == '-' ? -1 : 1, oh = 0, om = 0;
            i++;
            if (!digits(s, &i, 2, &oh))
                return NAN;
            if (s[i] == ':')
                i++;
            if (!digits(s, &i, 2, &om) || oh > 23 || om > 59)
                return NAN;
            offset = osign * (oh * 60 + om) * 60000.0;
        }
    }
    if (s[i] != '\0' || month < 1 || month > 12 || day < 1 || day > 31 || h > 24 || mi > 59 ||
        sec > 59 || (h == 24 && (mi > 0 || sec > 0 || ms > 0)))
        return NAN;
    /* local time is UTC in plans: a form without an offset is the same instant either way */
    return time_clip(make_time(year, month - 1, day, h, mi, sec, ms) - offset);
}

/* --- the Date object --------------------------------------------------------------------- */

static jcomp make_date(interp *in, double t, jv *out)
{
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    o->is_date = true;
    o->time = time_clip(t);
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

static jcomp time_of(interp *in, jv v, double *t)
{
    if (v.t == JV_OBJ && v.u.o->is_date) {
        *t = v.u.o->time;
        return SLUICE_JSI_NORMAL;
    }
    if (v.t == JV_STR) {
        char *u8 = sluice_js_str_utf8(in->arena, v.u.s);
        if (u8 == NULL)
            return sluice_jsi_nomem(in);
        *t = parse_date(u8);
        return SLUICE_JSI_NORMAL;
    }
    if (v.t == JV_ARR || v.t == JV_OBJ) {
        const sluice_js_str *s = sluice_jsi_to_string(in, v); /* ToPrimitive: a string */
        return s == NULL ? SLUICE_JSI_FATAL : time_of(in, jv_str(s), t);
    }
    *t = sluice_jsi_to_number(v);
    return SLUICE_JSI_NORMAL;
}

/* The time of y, m[, d, h, min, s, ms] arguments (two-digit years are 19xx). */
static double time_of_fields(const jv *args, size_t argc)
{
    double f[7] = { NAN, 0, 1, 0, 0, 0, 0 };
    for (size_t i = 0; i < argc && i < 7; i++)
        f[i] = sluice_jsi_to_number(args[i]);
    if (isfinite(f[0]) && trunc(f[0]) >= 0 && trunc(f[0]) <= 99)
        f[0] = 1900 + trunc(f[0]);
    return make_time(f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
}

jcomp sluice_jsi_date_construct(interp *in, const jv *args, size_t argc, jv *out)
{
    if (argc == 0)
        return sluice_jsi_throw(
            in, "TypeError",
            "new Date() reads the clock at line %u; plans are deterministic: pass "
            "the date (new Date(\"2026-12-01\") or args.today)",
            in->line);
    double t;
    if (argc == 1) {
        jcomp rc = time_of(in, args[0], &t);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    } else {
        t = time_of_fields(args, argc);
    }
    return make_date(in, t, out);
}

jcomp sluice_jsi_date_parse(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = sluice_jsi_to_string(in, ARG(0));
    char *u8 = s != NULL ? sluice_js_str_utf8(in->arena, s) : NULL;
    if (u8 == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_num(parse_date(u8));
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_date_utc(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_num(time_clip(time_of_fields(args, argc)));
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_date_now(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    (void)args;
    (void)argc;
    (void)out;
    return sluice_jsi_throw(
        in, "TypeError",
        "Date.now() reads the clock at line %u; plans are deterministic: pass the "
        "time in args",
        in->line);
}

static const char *const wdays[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* "2026-12-01T12:00:00.000Z" into buf (at least 32 bytes); t must be finite. */
static void iso(double t, char *buf, size_t n)
{
    civil c = to_civil(t);
    char y[16];
    if (c.year >= 0 && c.year <= 9999)
        snprintf(y, sizeof y, "%04d", (int)c.year);
    else
        snprintf(y, sizeof y, "%c%06d", c.year < 0 ? '-' : '+', (int)fabs(c.year));
    snprintf(buf, n, "%s-%02d-%02dT%02d:%02d:%02d.%03dZ", y, c.month + 1, c.day, c.hour, c.min,
             c.sec, c.ms);
}

/* The year as Date.prototype.toString writes it: at least 4 digits, a '-' when negative. */
static void year_text(double year, char *buf, size_t n)
{
    snprintf(buf, n, "%s%04d", year < 0 ? "-" : "", (int)fabs(year));
}

/* what: 0 toString, 1 toDateString, 2 toUTCString. */
static void text(double t, int what, char *buf, size_t n)
{
    if (isnan(t)) {
        snprintf(buf, n, "Invalid Date");
        return;
    }
    civil c = to_civil(t);
    char y[16];
    year_text(c.year, y, sizeof y);
    if (what == 2)
        snprintf(buf, n, "%s, %02d %s %s %02d:%02d:%02d GMT", wdays[c.wday], c.day, months[c.month],
                 y, c.hour, c.min, c.sec);
    else if (what == 1)
        snprintf(buf, n, "%s %s %02d %s", wdays[c.wday], months[c.month], c.day, y);
    else
        snprintf(buf, n, "%s %s %02d %s %02d:%02d:%02d GMT+0000 (Coordinated Universal Time)",
                 wdays[c.wday], months[c.month], c.day, y, c.hour, c.min, c.sec);
}

jcomp sluice_jsi_date_string(interp *in, const jobj *o, const sluice_js_str **out)
{
    char buf[96];
    text(o->time, 0, buf, sizeof buf);
    *out = sluice_jsi_str_ascii(in, buf);
    return *out != NULL ? SLUICE_JSI_NORMAL : SLUICE_JSI_FATAL;
}

bool sluice_jsi_date_iso(const jobj *o, char buf[40])
{
    if (isnan(o->time))
        return false;
    iso(o->time, buf, 40);
    return true;
}

/* A getter's field: tag indexes the table below. */
static jcomp getter(interp *in, jv self, const jv *args, size_t argc, jv *out, int field)
{
    (void)in;
    (void)args;
    (void)argc;
    double t = self.u.o->time;
    if (isnan(t)) {
        *out = jv_num(NAN);
        return SLUICE_JSI_NORMAL;
    }
    civil c = to_civil(t);
    double v[] = { c.year, c.month, c.day, c.wday, c.hour, c.min, c.sec, c.ms, t, 0 };
    *out = jv_num(v[field]);
    return SLUICE_JSI_NORMAL;
}

#define GETTER(name, field)                                                      \
    static jcomp name(interp *in, jv self, const jv *args, size_t argc, jv *out) \
    {                                                                            \
        return getter(in, self, args, argc, out, field);                         \
    }
GETTER(g_year, 0)
GETTER(g_month, 1)
GETTER(g_date, 2)
GETTER(g_day, 3)
GETTER(g_hours, 4)
GETTER(g_minutes, 5)
GETTER(g_seconds, 6)
GETTER(g_ms, 7)
GETTER(g_time, 8)
GETTER(g_offset, 9)

static jcomp to_text(interp *in, jv self, int what, jv *out)
{
    char buf[96];
    text(self.u.o->time, what, buf, sizeof buf);
    sluice_js_str *s = sluice_jsi_str_ascii(in, buf);
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(s);
    return SLUICE_JSI_NORMAL;
}

static jcomp m_to_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return to_text(in, self, 0, out);
}

static jcomp m_to_date_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return to_text(in, self, 1, out);
}

static jcomp m_to_utc_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return to_text(in, self, 2, out);
}

static jcomp m_to_iso(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    char buf[40];
    if (!sluice_jsi_date_iso(self.u.o, buf))
        return sluice_jsi_throw(in, "RangeError", "Invalid time value");
    sluice_js_str *s = sluice_jsi_str_ascii(in, buf);
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(s);
    return SLUICE_JSI_NORMAL;
}

static jcomp m_to_json(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    if (isnan(self.u.o->time)) {
        *out = jv_null();
        return SLUICE_JSI_NORMAL;
    }
    return m_to_iso(in, self, args, argc, out);
}

typedef struct date_method {
    const char *name;
    native_fn fn;
} date_method;

static const date_method methods[] = {
    { "getFullYear", g_year },
    { "getUTCFullYear", g_year },
    { "getMonth", g_month },
    { "getUTCMonth", g_month },
    { "getDate", g_date },
    { "getUTCDate", g_date },
    { "getDay", g_day },
    { "getUTCDay", g_day },
    { "getHours", g_hours },
    { "getUTCHours", g_hours },
    { "getMinutes", g_minutes },
    { "getUTCMinutes", g_minutes },
    { "getSeconds", g_seconds },
    { "getUTCSeconds", g_seconds },
    { "getMilliseconds", g_ms },
    { "getUTCMilliseconds", g_ms },
    { "getTime", g_time },
    { "valueOf", g_time },
    { "getTimezoneOffset", g_offset },
    { "toISOString", m_to_iso },
    { "toJSON", m_to_json },
    { "toString", m_to_string },
    { "toDateString", m_to_date_string },
    { "toUTCString", m_to_utc_string },
};

jcomp sluice_jsi_date_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    *out = jv_undef();
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (sluice_js_str_eq_ascii(key, methods[i].name)) {
            *out = sluice_jsi_native(in, methods[i].fn, self, methods[i].name);
            return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
        }
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_open_date(interp *in, env *global)
{
    jobj *date = sluice_jsi_namespace(in, global, "Date");
    if (date == NULL ||
        sluice_jsi_set_fn(in, date, "parse", sluice_jsi_date_parse, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_set_fn(in, date, "UTC", sluice_jsi_date_utc, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_set_fn(in, date, "now", sluice_jsi_date_now, 0) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}
