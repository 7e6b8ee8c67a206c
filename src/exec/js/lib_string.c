/*
 * lib_string.c — the plan language's String library: the methods of strings (indexOf, slice,
 * split, replace, padStart, normalize, localeCompare, ...), String() and String.fromCharCode.
 *
 * Owns: their semantics over UTF-16 code units, as JavaScript defines them.
 * Does not own: string storage and ToString (value.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ucol.h>
#include <unicode/unorm2.h>

/* A string position (indexOf, includes, startsWith, endsWith): clamped to [0, len]. */
static size_t clamp_index(jv v, size_t len, size_t dflt)
{
    if (v.t == JV_UNDEF)
        return dflt;
    double d = trunc(sluice_jsi_to_number(v));
    if (isnan(d) || d < 0)
        return 0;
    return d > (double)len ? len : (size_t)d;
}

static const sluice_js_str *arg_str(interp *in, const jv *args, size_t argc, size_t i)
{
    return sluice_jsi_to_string(in, ARG(i));
}

static int64_t str_find(const sluice_js_str *h, const sluice_js_str *n, size_t from)
{
    if (n->len == 0)
        return from <= h->len ? (int64_t)from : (int64_t)h->len;
    for (size_t i = from; i + n->len <= h->len; i++)
        if (memcmp(h->u + i, n->u, n->len * 2) == 0)
            return (int64_t)i;
    return -1;
}

static jcomp str_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0);
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_num((double)str_find(self.u.s, n, clamp_index(ARG(1), self.u.s->len, 0)));
    return SLUICE_JSI_NORMAL;
}

static jcomp str_last_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    int64_t found = -1;
    for (size_t i = 0; i + n->len <= h->len; i++)
        if (n->len == 0 || memcmp(h->u + i, n->u, n->len * 2) == 0)
            found = (int64_t)i;
    if (n->len == 0)
        found = (int64_t)h->len;
    *out = jv_num((double)found);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_includes(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0);
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_bool(str_find(self.u.s, n, clamp_index(ARG(1), self.u.s->len, 0)) >= 0);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_starts_with(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    size_t at = clamp_index(ARG(1), h->len, 0);
    *out = jv_bool(at + n->len <= h->len && memcmp(h->u + at, n->u, n->len * 2) == 0);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_ends_with(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    size_t end = clamp_index(ARG(1), h->len, h->len);
    *out = jv_bool(n->len <= end && memcmp(h->u + end - n->len, n->u, n->len * 2) == 0);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_slice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.s->len, b = sluice_jsi_rel_index(ARG(0), len, 0),
           e = sluice_jsi_rel_index(ARG(1), len, len);
    return sluice_jsi_ret_units(in, self.u.s->u + b, e > b ? e - b : 0, out);
}

static jcomp str_substring(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.s->len;
    double db = ARG(0).t == JV_UNDEF ? 0 : sluice_jsi_to_number(args[0]);
    double de = ARG(1).t == JV_UNDEF ? (double)len : sluice_jsi_to_number(args[1]);
    db = isnan(db) || db < 0 ? 0 : db > (double)len ? (double)len : trunc(db);
    de = isnan(de) || de < 0 ? 0 : de > (double)len ? (double)len : trunc(de);
    size_t b = (size_t)(db < de ? db : de), e = (size_t)(db < de ? de : db);
    return sluice_jsi_ret_units(in, self.u.s->u + b, e - b, out);
}

static jcomp str_case(interp *in, jv self, jv *out, int upper)
{
    const sluice_js_str *s = self.u.s;
    sluice_js_str *r = sluice_jsi_str_units(in, s->u, s->len);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < r->len; i++) {
        uint16_t c = r->u[i];
        if (upper && c >= 'a' && c <= 'z')
            r->u[i] = (uint16_t)(c - 32);
        else if (!upper && c >= 'A' && c <= 'Z')
            r->u[i] = (uint16_t)(c + 32);
    }
    *out = jv_str(r);
    return SLUICE_JSI_NORMAL;
}
static jcomp str_upper(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_case(in, self, out, 1);
}
static jcomp str_lower(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_case(in, self, out, 0);
}

static jcomp str_trim_dir(interp *in, jv self, jv *out, int start, int end)
{
    const sluice_js_str *s = self.u.s;
    size_t b = 0, e = s->len;
    while (start && b < e && sluice_jsi_is_space(s->u[b]))
        b++;
    while (end && e > b && sluice_jsi_is_space(s->u[e - 1]))
        e--;
    return sluice_jsi_ret_units(in, s->u + b, e - b, out);
}
static jcomp str_trim(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 1, 1);
}
static jcomp str_trim_start(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 1, 0);
}
static jcomp str_trim_end(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 0, 1);
}

static jcomp str_split(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *s = self.u.s;
    jarr *r = sluice_jsi_arr_new(in, 0);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    double lim = ARG(1).t == JV_UNDEF ? 4294967295.0 : sluice_jsi_to_number(args[1]);
    size_t limit = isnan(lim) || lim < 0 ? 0 : lim > 4294967295.0 ? 4294967295u : (size_t)lim;
    *out = jv_arr(r);
    if (limit == 0)
        return SLUICE_JSI_NORMAL;
    if (ARG(0).t == JV_UNDEF)
        return sluice_jsi_arr_push(in, r, self);
    const sluice_js_str *sep = sluice_jsi_to_string(in, args[0]);
    if (sep == NULL)
        return SLUICE_JSI_FATAL;
    if (sep->len == 0) {
        for (size_t i = 0; i < s->len && r->len < limit; i++) {
            jv c;
            if (sluice_jsi_ret_units(in, s->u + i, 1, &c) != SLUICE_JSI_NORMAL ||
                sluice_jsi_arr_push(in, r, c) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        }
        return SLUICE_JSI_NORMAL;
    }
    size_t from = 0;
    for (;;) {
        if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        int64_t at = str_find(s, sep, from);
        size_t end = at < 0 ? s->len : (size_t)at;
        jv part;
        if (sluice_jsi_ret_units(in, s->u + from, end - from, &part) != SLUICE_JSI_NORMAL ||
            sluice_jsi_arr_push(in, r, part) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        if (at < 0 || r->len >= limit)
            return SLUICE_JSI_NORMAL;
        from = end + sep->len;
    }
}

static jcomp str_pad(interp *in, jv self, const jv *args, size_t argc, jv *out, int start)
{
    const sluice_js_str *s = self.u.s;
    double td = sluice_jsi_to_number(ARG(0));
    size_t target = isnan(td) || td < 0                 ? 0
                    : td > SLUICE_LIMIT_JS_STRING_UNITS ? SLUICE_LIMIT_JS_STRING_UNITS + 1
                                                        : (size_t)td;
    const sluice_js_str *fill =
        ARG(1).t == JV_UNDEF ? sluice_jsi_str_ascii(in, " ") : sluice_jsi_to_string(in, args[1]);
    if (fill == NULL)
        return SLUICE_JSI_FATAL;
    if (target <= s->len || fill->len == 0) {
        *out = self;
        return SLUICE_JSI_NORMAL;
    }
    uint16_t *u = sluice_jsi_alloc(in, (target + 1) * 2);
    if (u == NULL)
        return SLUICE_JSI_FATAL;
    size_t padn = target - s->len, n = 0;
    if (!start) {
        memcpy(u, s->u, s->len * 2);
        n = s->len;
    }
    for (size_t i = 0; i < padn; i++)
        u[n++] = fill->u[i % fill->len];
    if (start) {
        memcpy(u + n, s->u, s->len * 2);
        n += s->len;
    }
    return sluice_jsi_ret_units(in, u, n, out);
}
static jcomp str_pad_start(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_pad(in, self, args, argc, out, 1);
}
static jcomp str_pad_end(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_pad(in, self, args, argc, out, 0);
}

static jcomp str_repeat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = sluice_jsi_to_number(ARG(0));
    if (isnan(d))
        d = 0;
    if (d < 0 || isinf(d))
        return sluice_jsi_throw(in, "RangeError", "Invalid count value: %g", d);
    const sluice_js_str *s = self.u.s;
    if ((double)s->len * trunc(d) > SLUICE_LIMIT_JS_STRING_UNITS)
        return sluice_jsi_limit_error(in, "max_memory_bytes",
                                      "repeat builds a string with too many characters",
                                      SLUICE_LIMIT_JS_STRING_UNITS);
    size_t count = (size_t)d, n = 0;
    uint16_t *u = sluice_jsi_alloc(in, (s->len * count + 1) * 2);
    if (u == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < count; i++, n += s->len)
        memcpy(u + n, s->u, s->len * 2);
    return sluice_jsi_ret_units(in, u, n, out);
}

static jcomp str_char_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = trunc(sluice_jsi_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0 || d >= (double)self.u.s->len)
        return sluice_jsi_ret_units(in, NULL, 0, out);
    return sluice_jsi_ret_units(in, self.u.s->u + (size_t)d, 1, out);
}

static jcomp str_char_code_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(sluice_jsi_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    *out = d < 0 || d >= (double)self.u.s->len ? jv_num(NAN) : jv_num(self.u.s->u[(size_t)d]);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_code_point_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(sluice_jsi_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    const sluice_js_str *s = self.u.s;
    if (d < 0 || d >= (double)s->len) {
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    }
    size_t i = (size_t)d;
    uint32_t c = s->u[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s->len && s->u[i + 1] >= 0xDC00 &&
        s->u[i + 1] <= 0xDFFF)
        c = 0x10000 + ((c - 0xD800) << 10) + (s->u[i + 1] - 0xDC00);
    *out = jv_num(c);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = trunc(sluice_jsi_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0)
        d += (double)self.u.s->len;
    if (d < 0 || d >= (double)self.u.s->len) {
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    }
    return sluice_jsi_ret_units(in, self.u.s->u + (size_t)d, 1, out);
}

static jcomp str_concat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr tmp = { .len = argc + 1, .cap = argc + 1 };
    tmp.v = sluice_jsi_alloc(in, (argc + 1) * sizeof(jv));
    if (tmp.v == NULL)
        return SLUICE_JSI_FATAL;
    tmp.v[0] = self;
    for (size_t i = 0; i < argc; i++)
        tmp.v[i + 1] = args[i];
    sluice_js_str *empty = sluice_jsi_str_units(in, NULL, 0);
    if (empty == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i <= argc; i++) {
        const sluice_js_str *s = sluice_jsi_to_string(in, tmp.v[i]);
        if (s == NULL)
            return SLUICE_JSI_FATAL;
        tmp.v[i] = jv_str(s);
    }
    jv sep = jv_str(empty);
    return sluice_jsi_array_join(in, jv_arr(&tmp), &sep, 1, out);
}

static jcomp str_replace_impl(interp *in, jv self, const jv *args, size_t argc, jv *out, int all)
{
    const sluice_js_str *pat = arg_str(in, args, argc, 0), *s = self.u.s;
    if (pat == NULL)
        return SLUICE_JSI_FATAL;
    if (ARG(1).t == JV_FUNC)
        return sluice_jsi_throw(in, "TypeError", "plans replace with strings only (no function)");
    const sluice_js_str *rep = arg_str(in, args, argc, 1);
    if (rep == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < rep->len; i++)
        if (rep->u[i] == '$')
            return sluice_jsi_throw(in, "TypeError", "plans do not support $ patterns in replace");
    jarr *parts = sluice_jsi_arr_new(in, 0);
    if (parts == NULL)
        return SLUICE_JSI_FATAL;
    size_t from = 0;
    for (;;) {
        if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        int64_t at = str_find(s, pat, from);
        if (at < 0 || (from > s->len))
            break;
        jv piece;
        if (sluice_jsi_ret_units(in, s->u + from, (size_t)at - from, &piece) != SLUICE_JSI_NORMAL ||
            sluice_jsi_arr_push(in, parts, piece) != SLUICE_JSI_NORMAL ||
            sluice_jsi_arr_push(in, parts, jv_str(rep)) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        from = (size_t)at + pat->len;
        if (!all)
            break;
        if (pat->len == 0) {
            if ((size_t)at >= s->len)
                break;
            /* an empty pattern matches between every unit */
            jv unit;
            if (sluice_jsi_ret_units(in, s->u + at, 1, &unit) != SLUICE_JSI_NORMAL ||
                sluice_jsi_arr_push(in, parts, unit) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            from = (size_t)at + 1;
        }
    }
    jv tail;
    if (sluice_jsi_ret_units(in, s->u + (from <= s->len ? from : s->len),
                             from <= s->len ? s->len - from : 0, &tail) != SLUICE_JSI_NORMAL ||
        sluice_jsi_arr_push(in, parts, tail) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    jv sep = jv_str(sluice_jsi_str_units(in, NULL, 0));
    if (sep.u.s == NULL)
        return SLUICE_JSI_FATAL;
    return sluice_jsi_array_join(in, jv_arr(parts), &sep, 1, out);
}
static jcomp str_replace(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_replace_impl(in, self, args, argc, out, 0);
}
static jcomp str_replace_all(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_replace_impl(in, self, args, argc, out, 1);
}

/* An ICU failure: NOMEM as the arena's (fail closed), anything else an internal error. */
static jcomp icu_failed(interp *in, UErrorCode err, const char *what)
{
    if (err == U_MEMORY_ALLOCATION_ERROR)
        return sluice_jsi_nomem(in);
    return sluice_jsi_fatal(in, SLUICE_E_INTERNAL, "js_internal", "%s failed in ICU: %s", what,
                            u_errorName(err));
}

/* normalize(form): ICU's Unicode normalization on the UTF-16 units, as V8 does it (ICU too),
 * with V8's RangeError for a form that is not one of the four. */
static jcomp str_normalize(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    static const char *const forms[] = { "NFC", "NFD", "NFKC", "NFKD" };
    size_t form = 0;
    if (ARG(0).t != JV_UNDEF) {
        const sluice_js_str *f = arg_str(in, args, argc, 0);
        if (f == NULL)
            return SLUICE_JSI_FATAL;
        for (form = 0; form < 4; form++) {
            size_t n = strlen(forms[form]), i = 0;
            while (i < n && i < f->len && f->u[i] == (uint16_t)forms[form][i])
                i++;
            if (i == n && f->len == n)
                break;
        }
        if (form == 4)
            return sluice_jsi_throw(
                in, "RangeError", "The normalization form should be one of NFC, NFD, NFKC, NFKD.");
    }
    UErrorCode err = U_ZERO_ERROR;
    const UNormalizer2 *nf = form == 0   ? unorm2_getNFCInstance(&err)
                             : form == 1 ? unorm2_getNFDInstance(&err)
                             : form == 2 ? unorm2_getNFKCInstance(&err)
                                         : unorm2_getNFKDInstance(&err);
    const sluice_js_str *s = self.u.s;
    if (U_FAILURE(err))
        return icu_failed(in, err, "normalize");
    /* ICU counts in int32_t: strings are at most SLUICE_LIMIT_JS_STRING_UNITS (value.c) */
    int32_t n = unorm2_normalize(nf, s->u, (int32_t)s->len, NULL, 0, &err);
    if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err))
        return icu_failed(in, err, "normalize");
    uint16_t *u = sluice_jsi_alloc(in, ((size_t)n + 1) * 2);
    if (u == NULL)
        return SLUICE_JSI_FATAL;
    err = U_ZERO_ERROR;
    n = unorm2_normalize(nf, s->u, (int32_t)s->len, u, n + 1, &err);
    if (U_FAILURE(err))
        return icu_failed(in, err, "normalize");
    return sluice_jsi_ret_units(in, u, (size_t)n, out);
}

/* localeCompare: the root collation (Node's default locale, en-US, has no tailoring of it) at
 * V8's Intl.Collator defaults: tertiary strength, canonically equivalent strings equal
 * (normalization on). Answers -1, 0 or 1, as V8. */
static jcomp str_locale_compare(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *o = arg_str(in, args, argc, 0), *s = self.u.s;
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    UErrorCode err = U_ZERO_ERROR;
    UCollator *c = ucol_open("", &err);
    if (U_SUCCESS(err))
        ucol_setAttribute(c, UCOL_NORMALIZATION_MODE, UCOL_ON, &err);
    UCollationResult r = UCOL_EQUAL;
    if (U_SUCCESS(err))
        r = ucol_strcoll(c, s->u, (int32_t)s->len, o->u, (int32_t)o->len);
    ucol_close(c);
    if (U_FAILURE(err))
        return icu_failed(in, err, "localeCompare");
    *out = jv_num(r == UCOL_LESS ? -1 : r == UCOL_GREATER ? 1 : 0);
    return SLUICE_JSI_NORMAL;
}

static jcomp str_to_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    *out = self;
    return SLUICE_JSI_NORMAL;
}

static const sluice_jsi_method string_methods[] = {
    { "indexOf", str_index_of },
    { "lastIndexOf", str_last_index_of },
    { "includes", str_includes },
    { "startsWith", str_starts_with },
    { "endsWith", str_ends_with },
    { "slice", str_slice },
    { "substring", str_substring },
    { "toUpperCase", str_upper },
    { "toLowerCase", str_lower },
    { "trim", str_trim },
    { "trimStart", str_trim_start },
    { "trimEnd", str_trim_end },
    { "split", str_split },
    { "padStart", str_pad_start },
    { "padEnd", str_pad_end },
    { "repeat", str_repeat },
    { "charAt", str_char_at },
    { "charCodeAt", str_char_code_at },
    { "codePointAt", str_code_point_at },
    { "at", str_at },
    { "concat", str_concat },
    { "replace", str_replace },
    { "replaceAll", str_replace_all },
    { "localeCompare", str_locale_compare },
    { "normalize", str_normalize },
    { "toString", str_to_string },
};

static jcomp string_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    if (argc == 0)
        return sluice_jsi_ret_units(in, NULL, 0, out);
    const sluice_js_str *s = sluice_jsi_to_string(in, args[0]);
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(s);
    return SLUICE_JSI_NORMAL;
}

static jcomp string_from_char_code(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    uint16_t *u = sluice_jsi_alloc(in, (argc + 1) * 2);
    if (u == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < argc; i++)
        u[i] = (uint16_t)(uint32_t)(int64_t)fmod(trunc(sluice_jsi_to_number(args[i])), 65536.0);
    return sluice_jsi_ret_units(in, u, argc, out);
}

jcomp sluice_jsi_string_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    if (sluice_js_str_eq_ascii(key, "length")) {
        *out = jv_num((double)self.u.s->len);
        return SLUICE_JSI_NORMAL;
    }
    return sluice_jsi_find_method(in, string_methods, COUNT(string_methods), self, key, out);
}

/* String is callable and carries its statics: a namespace whose call is String(). */
jcomp sluice_jsi_open_string(interp *in, env *global)
{
    jobj *string = sluice_jsi_obj_new(in);
    if (string == NULL || sluice_jsi_set_fn(in, string, "fromCharCode", string_from_char_code, 0) !=
                              SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    jv string_fn = sluice_jsi_native(in, string_ctor, jv_obj(string), "String");
    if (string_fn.t == JV_UNDEF)
        return SLUICE_JSI_FATAL;
    return sluice_jsi_define(in, global, "String", string_fn);
}
