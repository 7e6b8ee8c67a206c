/*
 * lib_number_math.c — the plan language's Number and Math libraries: the methods of numbers
 * (toFixed, toPrecision, toExponential, toString(radix)), Number() and its statics,
 * parseInt/parseFloat, isNaN/isFinite and Math.
 *
 * Owns: number formatting and parsing as JavaScript defines them.
 * Does not own: Number::toString(10) itself (value.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jcomp num_to_fixed(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double x = self.u.n, fd = ARG(0).t == JV_UNDEF ? 0 : trunc(sluice_jsi_to_number(args[0]));
    if (isnan(fd))
        fd = 0;
    if (fd < 0 || fd > 100)
        return sluice_jsi_throw(in, "RangeError",
                                "toFixed() digits argument must be between 0 and 100");
    char buf[512];
    if (isnan(x) || fabs(x) >= 1e21) {
        sluice_jsi_number_format(x, buf);
        return sluice_jsi_ret_ascii(in, buf, out);
    }
    int f = (int)fd;
    /* the exact decimal expansion, rounded half up (JavaScript picks the larger n on a tie) */
    char exact[512];
    snprintf(exact, sizeof exact, "%.*f", f + 30, fabs(x));
    char *dot = strchr(exact, '.');
    size_t int_len = (size_t)(dot - exact);
    char digits[512];
    size_t n = 0;
    memcpy(digits, exact, int_len);
    n = int_len;
    memcpy(digits + n, dot + 1, (size_t)f);
    n += (size_t)f;
    int up = dot[1 + f] >= '5';
    digits[n] = '\0';
    for (size_t i = n; up && i > 0; i--) {
        if (digits[i - 1] == '9') {
            digits[i - 1] = '0';
        } else {
            digits[i - 1]++;
            up = 0;
        }
    }
    size_t o = 0;
    if (x < 0) {
        /* -0.0001.toFixed(2) is "-0.00" in JavaScript: the sign of x < 0 stays */
        buf[o++] = '-';
    }
    if (up)
        buf[o++] = '1';
    memcpy(buf + o, digits, int_len);
    o += int_len;
    if (f > 0) {
        buf[o++] = '.';
        memcpy(buf + o, digits + int_len, (size_t)f);
        o += (size_t)f;
    }
    buf[o] = '\0';
    return sluice_jsi_ret_ascii(in, buf, out);
}

/* ToIntegerOrInfinity of a digits argument (NaN is 0). */
static double digits_arg(jv v)
{
    double d = trunc(sluice_jsi_to_number(v));
    return isnan(d) ? 0 : d;
}

/* Number::toString(radix) for radix != 10, as V8 prints it (DoubleToRadixCString): fraction
 * digits only up to the double's own precision (delta, half an ulp, scaled with each digit),
 * the last one rounded half to even, a carry walking back into the written digits. */
static size_t radix_format(double x, int radix, char *buf, size_t cap)
{
    static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    char frac[1100]; /* 1074 binary fraction digits at most, fewer in any larger radix */
    size_t nf = 0;
    bool neg = x < 0;
    if (neg)
        x = -x;
    double integer = floor(x), fraction = x - integer;
    double delta = fmax(0.5 * (nextafter(x, INFINITY) - x), nextafter(0.0, 1.0));
    if (fraction >= delta) {
        do {
            fraction *= radix;
            delta *= radix;
            int digit = (int)fraction;
            frac[nf++] = chars[digit];
            fraction -= digit;
            if ((fraction > 0.5 || (fraction == 0.5 && (digit & 1))) && fraction + delta > 1) {
                for (;;) { /* round up, carrying back over the written digits */
                    if (nf == 0) {
                        integer += 1;
                        break;
                    }
                    char c = frac[--nf];
                    int d = c > '9' ? c - 'a' + 10 : c - '0';
                    if (d + 1 < radix) {
                        frac[nf++] = chars[d + 1];
                        break;
                    }
                }
                break;
            }
        } while (fraction >= delta && nf < sizeof frac);
    }
    char ibuf[1100]; /* integer digits, written backwards; DBL_MAX has 1024 in base 2 */
    size_t ni = 0;
    /* digits below the double's precision are unrepresented: zeros, as V8 writes them */
    while (integer / radix >= 9007199254740992.0) {
        integer /= radix;
        ibuf[ni++] = '0';
    }
    do {
        double rem = fmod(integer, radix);
        ibuf[ni++] = chars[(int)rem];
        integer = (integer - rem) / radix;
    } while (integer > 0 && ni < sizeof ibuf);
    size_t o = 0;
    if (neg && o < cap)
        buf[o++] = '-';
    while (ni > 0 && o < cap)
        buf[o++] = ibuf[--ni];
    if (nf > 0 && o < cap)
        buf[o++] = '.';
    for (size_t i = 0; i < nf && o < cap; i++)
        buf[o++] = frac[i];
    return o;
}

static jcomp num_to_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double r = ARG(0).t == JV_UNDEF ? 10 : digits_arg(args[0]);
    if (r < 2 || r > 36)
        return sluice_jsi_throw(in, "RangeError", "toString() radix must be between 2 and 36");
    char buf[2300];
    if ((int)r == 10 || !isfinite(self.u.n)) {
        sluice_jsi_number_format(self.u.n, buf);
        return sluice_jsi_ret_ascii(in, buf, out);
    }
    buf[radix_format(self.u.n, (int)r, buf, sizeof buf - 1)] = '\0';
    return sluice_jsi_ret_ascii(in, buf, out);
}

/* The first p significant digits of |x| (finite, not 0) rounded half up on its exact decimal
 * value, as toPrecision and toExponential define the pick ("the larger n"); *exp10: the power
 * of ten of the first digit. digits holds p + 1 bytes. */
static void round_digits(double x, int p, char *digits, int *exp10)
{
    char exact[1200]; /* a double's exact expansion has at most 767 significant digits */
    snprintf(exact, sizeof exact, "%.800e", fabs(x));
    char *e = strchr(exact, 'e');
    *exp10 = (int)strtol(e + 1, NULL, 10);
    char all[810];
    size_t n = 0;
    for (const char *c = exact; c < e; c++)
        if (*c != '.')
            all[n++] = *c;
    memcpy(digits, all, (size_t)p);
    digits[p] = '\0';
    if (all[p] < '5')
        return;
    int i = p - 1;
    for (; i >= 0 && digits[i] == '9'; i--)
        digits[i] = '0';
    if (i >= 0) {
        digits[i]++;
    } else { /* 9.99 -> 10.0: one more power of ten */
        digits[0] = '1';
        (*exp10)++;
    }
}

/* d[.ddd]e+N into buf from k digits; returns the length. */
static size_t exp_format(const char *digits, size_t k, int e, char *buf)
{
    size_t o = 0;
    buf[o++] = digits[0];
    if (k > 1) {
        buf[o++] = '.';
        memcpy(buf + o, digits + 1, k - 1);
        o += k - 1;
    }
    return o + (size_t)snprintf(buf + o, 16, "e%c%d", e < 0 ? '-' : '+', e < 0 ? -e : e);
}

static jcomp num_to_exponential(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double x = self.u.n, f = digits_arg(ARG(0));
    char buf[160];
    if (!isfinite(x)) {
        sluice_jsi_number_format(x, buf);
        return sluice_jsi_ret_ascii(in, buf, out);
    }
    if (f < 0 || f > 100)
        return sluice_jsi_throw(in, "RangeError",
                                "toExponential() argument must be between 0 and 100");
    char digits[120];
    size_t k;
    int e = 0;
    if (x == 0) {
        k = ARG(0).t == JV_UNDEF ? 1 : (size_t)f + 1;
        memset(digits, '0', k);
    } else if (ARG(0).t == JV_UNDEF) {
        k = sluice_jsi_shortest_digits(x, digits, &e);
    } else {
        k = (size_t)f + 1;
        round_digits(x, (int)k, digits, &e);
    }
    size_t o = x < 0 ? 1 : 0;
    buf[0] = '-';
    exp_format(digits, k, e, buf + o);
    return sluice_jsi_ret_ascii(in, buf, out);
}

static jcomp num_to_precision(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double x = self.u.n, p = digits_arg(ARG(0));
    char buf[160];
    if (ARG(0).t == JV_UNDEF || !isfinite(x)) {
        sluice_jsi_number_format(x, buf);
        return sluice_jsi_ret_ascii(in, buf, out);
    }
    if (p < 1 || p > 100)
        return sluice_jsi_throw(in, "RangeError",
                                "toPrecision() argument must be between 1 and 100");
    int k = (int)p, e = 0;
    char digits[120];
    if (x == 0)
        memset(digits, '0', (size_t)k);
    else
        round_digits(x, k, digits, &e);
    size_t o = 0;
    if (x < 0)
        buf[o++] = '-';
    if (e < -6 || e >= k) {
        exp_format(digits, (size_t)k, e, buf + o);
        return sluice_jsi_ret_ascii(in, buf, out);
    }
    if (e < 0) { /* 0.000ddd */
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = 0; i < -e - 1; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)k);
        o += (size_t)k;
    } else {
        memcpy(buf + o, digits, (size_t)e + 1);
        o += (size_t)e + 1;
        if (k > e + 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + e + 1, (size_t)(k - e - 1));
            o += (size_t)(k - e - 1);
        }
    }
    buf[o] = '\0';
    return sluice_jsi_ret_ascii(in, buf, out);
}

static const sluice_jsi_method number_methods[] = {
    { "toFixed", num_to_fixed },
    { "toString", num_to_string },
    { "toPrecision", num_to_precision },
    { "toExponential", num_to_exponential },
};

static jcomp math_minmax(const jv *args, size_t argc, jv *out, int max)
{
    double r = max ? -INFINITY : INFINITY;
    int nan = 0;
    for (size_t i = 0; i < argc; i++) {
        double d = sluice_jsi_to_number(args[i]);
        if (isnan(d))
            nan = 1;
        else if (max ? (d > r || (d == 0 && r == 0 && !signbit(d)))
                     : (d < r || (d == 0 && r == 0 && signbit(d))))
            r = d;
    }
    *out = jv_num(nan ? NAN : r);
    return SLUICE_JSI_NORMAL;
}
static jcomp math_max(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    return math_minmax(args, argc, out, 1);
}
static jcomp math_min(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    return math_minmax(args, argc, out, 0);
}

static double js_round(double x)
{
    if (!isfinite(x) || x == 0)
        return x;
    if (x > 0 && x < 0.5)
        return 0.0;
    if (x < 0 && x >= -0.5)
        return -0.0;
    double f = floor(x);
    return x - f >= 0.5 ? f + 1 : f;
}

static double js_sign(double x)
{
    return isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : x;
}

/* Math.fround: the nearest float32, back as a double. */
static double js_fround(double x)
{
    return (double)(float)x;
}

/* ToUint32 of a number (the bit operators' and clz32's conversion). */
static uint32_t to_uint32(double d)
{
    if (!isfinite(d))
        return 0;
    d = fmod(trunc(d), 4294967296.0);
    return (uint32_t)(d < 0 ? d + 4294967296.0 : d);
}

static double js_clz32(double x)
{
    uint32_t u = to_uint32(x);
    return u == 0 ? 32 : __builtin_clz(u);
}

/* glibc's cbrt is off by one ulp on exact cubes (cbrt(27) = 3.0000000000000004, on 48% of
 * ordinary arguments it differs from V8's); the x87 long double one rounded to double is exact
 * on them and within V8's last bit elsewhere (docs/js-plans.md, Math). */
static double js_cbrt(double x)
{
    return (double)cbrtl(x);
}

typedef double (*math1)(double);
/* One-argument Math functions. The transcendental ones are libm's: V8 computes them with its
 * own port of fdlibm, and the two differ in the last bit on 0.01-4% of ordinary arguments
 * (docs/js-plans.md says which how often); tests/node/js_diff.mjs compares them exactly on
 * corner values and to 12 significant digits elsewhere. */
static const struct {
    const char *name;
    math1 fn;
} math1s[] = {
    { "abs", fabs },    { "floor", floor },  { "ceil", ceil },        { "round", js_round },
    { "trunc", trunc }, { "sign", js_sign }, { "sqrt", sqrt },        { "cbrt", js_cbrt },
    { "log", log },     { "log10", log10 },  { "log2", log2 },        { "exp", exp },
    { "log1p", log1p }, { "expm1", expm1 },  { "sin", sin },          { "cos", cos },
    { "tan", tan },     { "asin", asin },    { "acos", acos },        { "atan", atan },
    { "sinh", sinh },   { "cosh", cosh },    { "tanh", tanh },        { "asinh", asinh },
    { "acosh", acosh }, { "atanh", atanh },  { "fround", js_fround }, { "clz32", js_clz32 },
};

static jcomp math_one(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    /* self holds the index of the function in math1s */
    *out = jv_num(math1s[(size_t)self.u.n].fn(sluice_jsi_to_number(ARG(0))));
    return SLUICE_JSI_NORMAL;
}

static jcomp math_pow(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    double x = sluice_jsi_to_number(ARG(0)), y = sluice_jsi_to_number(ARG(1));
    *out = jv_num((isnan(y) || (fabs(x) == 1 && isinf(y))) ? NAN : pow(x, y));
    return SLUICE_JSI_NORMAL;
}

static jcomp math_atan2(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_num(atan2(sluice_jsi_to_number(ARG(0)), sluice_jsi_to_number(ARG(1))));
    return SLUICE_JSI_NORMAL;
}

static jcomp math_imul(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    uint32_t a = to_uint32(sluice_jsi_to_number(ARG(0))),
             b = to_uint32(sluice_jsi_to_number(ARG(1)));
    *out = jv_num((double)(int32_t)(a * b));
    return SLUICE_JSI_NORMAL;
}

/* Math.hypot as V8 computes it (not libm's hypot, whose last bit can differ): Infinity wins
 * over NaN, then the sum of squares scaled by the largest, Kahan-compensated. */
static jcomp math_hypot(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    double max = 0;
    bool nan = false;
    for (size_t i = 0; i < argc; i++) {
        double d = fabs(sluice_jsi_to_number(args[i]));
        if (isinf(d)) {
            *out = jv_num(INFINITY);
            return SLUICE_JSI_NORMAL;
        }
        nan |= isnan(d);
        max = d > max ? d : max;
    }
    if (nan || max == 0) {
        *out = jv_num(nan ? NAN : 0);
        return SLUICE_JSI_NORMAL;
    }
    double sum = 0, comp = 0;
    for (size_t i = 0; i < argc; i++) {
        double n = fabs(sluice_jsi_to_number(args[i])) / max;
        double summand = n * n - comp, prelim = sum + summand;
        comp = (prelim - sum) - summand;
        sum = prelim;
    }
    *out = jv_num(sqrt(sum) * max);
    return SLUICE_JSI_NORMAL;
}

static jcomp number_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_num(argc == 0 ? 0 : sluice_jsi_to_number(args[0]));
    return SLUICE_JSI_NORMAL;
}

static int is_integer(double d)
{
    return isfinite(d) && d == trunc(d);
}

static jcomp number_is_integer(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && is_integer(args[0].u.n));
    return SLUICE_JSI_NORMAL;
}
static jcomp number_is_safe_integer(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && is_integer(args[0].u.n) &&
                   fabs(args[0].u.n) <= 9007199254740991.0);
    return SLUICE_JSI_NORMAL;
}
static jcomp number_is_finite(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && isfinite(args[0].u.n));
    return SLUICE_JSI_NORMAL;
}
static jcomp number_is_nan(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && isnan(args[0].u.n));
    return SLUICE_JSI_NORMAL;
}
static jcomp global_is_nan(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(isnan(sluice_jsi_to_number(ARG(0))));
    return SLUICE_JSI_NORMAL;
}
static jcomp global_is_finite(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(isfinite(sluice_jsi_to_number(ARG(0))));
    return SLUICE_JSI_NORMAL;
}

/* parseFloat: the longest decimal prefix after whitespace. */
static jcomp parse_float(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = sluice_jsi_to_string(in, ARG(0));
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    char tmp[400];
    size_t b = 0, n = 0;
    while (b < s->len && sluice_jsi_is_space(s->u[b]))
        b++;
    for (size_t i = b; i < s->len && n + 1 < sizeof tmp && s->u[i] < 0x80; i++)
        tmp[n++] = (char)s->u[i];
    tmp[n] = '\0';
    const char *p = tmp;
    int sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    if (strncmp(p, "Infinity", 8) == 0) {
        *out = jv_num(sign * INFINITY);
        return SLUICE_JSI_NORMAL;
    }
    size_t k = 0, digits = 0;
    while (p[k] >= '0' && p[k] <= '9') {
        k++;
        digits++;
    }
    if (p[k] == '.') {
        k++;
        while (p[k] >= '0' && p[k] <= '9') {
            k++;
            digits++;
        }
    }
    if (digits == 0) {
        *out = jv_num(NAN);
        return SLUICE_JSI_NORMAL;
    }
    if (p[k] == 'e' || p[k] == 'E') {
        size_t e = k + 1;
        if (p[e] == '+' || p[e] == '-')
            e++;
        if (p[e] >= '0' && p[e] <= '9') {
            while (p[e] >= '0' && p[e] <= '9')
                e++;
            k = e;
        }
    }
    char num[400];
    memcpy(num, p, k);
    num[k] = '\0';
    *out = jv_num(sign * strtod(num, NULL));
    return SLUICE_JSI_NORMAL;
}

static jcomp parse_int(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = sluice_jsi_to_string(in, ARG(0));
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    size_t i = 0;
    while (i < s->len && sluice_jsi_is_space(s->u[i]))
        i++;
    int sign = 1;
    if (i < s->len && (s->u[i] == '+' || s->u[i] == '-'))
        sign = s->u[i++] == '-' ? -1 : 1;
    double rd = ARG(1).t == JV_UNDEF ? 0 : sluice_jsi_to_number(args[1]);
    int radix = isfinite(rd) ? (int)(int32_t)(int64_t)rd : 0;
    int strip = 1;
    if (radix != 0) {
        if (radix < 2 || radix > 36) {
            *out = jv_num(NAN);
            return SLUICE_JSI_NORMAL;
        }
        strip = radix == 16;
    } else {
        radix = 10;
    }
    if (strip && i + 1 < s->len && s->u[i] == '0' && (s->u[i + 1] == 'x' || s->u[i + 1] == 'X')) {
        i += 2;
        radix = 16;
    }
    double v = 0;
    size_t digits = 0;
    for (; i < s->len; i++) {
        int c = s->u[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'z' ? c - 'a' + 10
                : c >= 'A' && c <= 'Z' ? c - 'A' + 10
                                       : 99;
        if (d >= radix)
            break;
        v = v * radix + d;
        digits++;
    }
    *out = jv_num(digits == 0 ? NAN : sign * v);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_number_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    return sluice_jsi_find_method(in, number_methods, COUNT(number_methods), self, key, out);
}

static jcomp open_math(interp *in, env *global)
{
    jobj *math = sluice_jsi_namespace(in, global, "Math");
    if (math == NULL)
        return SLUICE_JSI_FATAL;
    bool failed = sluice_jsi_set_fn(in, math, "max", math_max, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, math, "min", math_min, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, math, "pow", math_pow, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, math, "atan2", math_atan2, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, math, "imul", math_imul, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, math, "hypot", math_hypot, 0) != SLUICE_JSI_NORMAL;
    for (size_t i = 0; i < COUNT(math1s); i++)
        failed |=
            sluice_jsi_set_fn(in, math, math1s[i].name, math_one, (double)i) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "PI", M_PI) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "E", M_E) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "LN2", M_LN2) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "LN10", M_LN10) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "LOG2E", M_LOG2E) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "LOG10E", M_LOG10E) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "SQRT2", M_SQRT2) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_num(in, math, "SQRT1_2", M_SQRT1_2) != SLUICE_JSI_NORMAL;
    return failed ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

static const sluice_jsi_method number_statics[] = {
    { "isInteger", number_is_integer }, { "isSafeInteger", number_is_safe_integer },
    { "isFinite", number_is_finite },   { "isNaN", number_is_nan },
    { "parseFloat", parse_float },      { "parseInt", parse_int },
};

static const struct {
    const char *name;
    double v;
} number_constants[] = {
    { "MAX_SAFE_INTEGER", 9007199254740991.0 },
    { "MIN_SAFE_INTEGER", -9007199254740991.0 },
    { "EPSILON", 2.220446049250313e-16 },
    { "MAX_VALUE", 1.7976931348623157e308 },
    { "MIN_VALUE", 5e-324 },
    { "POSITIVE_INFINITY", INFINITY },
    { "NEGATIVE_INFINITY", -INFINITY },
    { "NaN", NAN },
};

static const sluice_jsi_method number_globals[] = {
    { "parseInt", parse_int },
    { "parseFloat", parse_float },
    { "isNaN", global_is_nan },
    { "isFinite", global_is_finite },
};

/* Number is callable and carries its statics: a function value with no properties would lose
 * Number.isInteger, so it is a namespace whose call goes through Number(). */
jcomp sluice_jsi_open_number_math(interp *in, env *global)
{
    jobj *number = sluice_jsi_obj_new(in);
    if (number == NULL || open_math(in, global) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    bool failed = false;
    for (size_t i = 0; i < COUNT(number_statics); i++)
        failed |= sluice_jsi_set_fn(in, number, number_statics[i].name, number_statics[i].fn, 0) !=
                  SLUICE_JSI_NORMAL;
    for (size_t i = 0; i < COUNT(number_constants); i++)
        failed |= sluice_jsi_set_num(in, number, number_constants[i].name, number_constants[i].v) !=
                  SLUICE_JSI_NORMAL;
    jv number_fn = sluice_jsi_native(in, number_ctor, jv_obj(number), "Number");
    if (failed || number_fn.t == JV_UNDEF ||
        sluice_jsi_define(in, global, "Number", number_fn) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < COUNT(number_globals); i++)
        failed |= sluice_jsi_define_fn(in, global, number_globals[i].name, number_globals[i].fn,
                                       0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_define(in, global, "NaN", jv_num(NAN)) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_define(in, global, "Infinity", jv_num(INFINITY)) != SLUICE_JSI_NORMAL;
    return failed ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}
