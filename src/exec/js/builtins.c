/*
 * builtins.c — the plan language's built-in globals and methods: the Array, String, Number,
 * Object, Math, JSON and Promise methods data shaping uses, console.log, and the capability
 * objects `api` and `mcp`, whose every call goes to the host (interp.h) and counts toward
 * max_api_calls.
 *
 * Owns: what each built-in does (JavaScript's semantics, tests/node/js_diff.mjs), the call
 * counting and the record of failed calls.
 * Does not own: evaluation (interp.c), conversions (value.c), the network (the host).
 */
#include "core/limits.h"
#include "exec/js/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG(i) ((i) < argc ? args[(i)] : jv_undef())

jv js_native(interp *in, native_fn fn, jv self, const char *name)
{
    jfunc *f = js_alloc(in, sizeof *f);
    if (f == NULL)
        return jv_undef();
    memset(f, 0, sizeof *f);
    f->native = fn;
    f->self = self;
    f->name = name;
    jv v = { .t = JV_FUNC, .u.f = f };
    return v;
}

static int ret_str_ascii(interp *in, const char *s, jv *out)
{
    sluice_js_str *r = js_str_ascii(in, s);
    if (r == NULL)
        return C_FATAL;
    *out = jv_str(r);
    return C_NORMAL;
}

static jv settled(interp *in, bool rejected, jv v)
{
    if (!rejected && v.t == JV_PROMISE)
        return v;
    jpromise *p = js_alloc(in, sizeof *p);
    if (p == NULL)
        return jv_undef();
    memset(p, 0, sizeof *p);
    p->rejected = rejected;
    p->v = v;
    jv r = { .t = JV_PROMISE, .u.p = p };
    return r;
}

/* Relative index as slice/at/splice use it: negative counts from len, clamped to [0, len]. */
static size_t rel_index(jv v, size_t len, size_t dflt)
{
    if (v.t == JV_UNDEF)
        return dflt;
    double d = js_to_number(v);
    if (isnan(d))
        d = 0;
    d = trunc(d);
    if (d < 0)
        d = d + (double)len < 0 ? 0 : d + (double)len;
    return d > (double)len ? len : (size_t)d;
}

/* --- arrays -------------------------------------------------------------------------------- */

static int callback3(interp *in, jv fn, jv item, size_t i, jv self, jv *out)
{
    jv a[3] = { item, jv_num((double)i), self };
    return js_call(in, fn, jv_undef(), a, 3, out);
}

static int need_fn(interp *in, jv fn, const char *method)
{
    if (fn.t == JV_FUNC)
        return C_NORMAL;
    return js_throw(in, "TypeError", "%s is not a function (Array.prototype.%s)", js_typeof(fn),
                    method);
}

static int arr_map(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    int rc = need_fn(in, ARG(0), "map");
    jarr *src = self.u.a, *r = rc == C_NORMAL ? js_arr_new(in, src->len) : NULL;
    if (rc != C_NORMAL || r == NULL)
        return rc != C_NORMAL ? rc : C_FATAL;
    for (size_t i = 0; i < src->len; i++) {
        jv v;
        if ((rc = callback3(in, args[0], src->v[i], i, self, &v)) != C_NORMAL)
            return rc;
        r->v[r->len++] = v;
    }
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_filter(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    int rc = need_fn(in, ARG(0), "filter");
    jarr *src = self.u.a, *r = rc == C_NORMAL ? js_arr_new(in, 0) : NULL;
    if (rc != C_NORMAL || r == NULL)
        return rc != C_NORMAL ? rc : C_FATAL;
    for (size_t i = 0; i < src->len; i++) {
        jv v, item = src->v[i];
        if ((rc = callback3(in, args[0], item, i, self, &v)) != C_NORMAL)
            return rc;
        if (js_truthy(v) && js_arr_push(in, r, item) != C_NORMAL)
            return C_FATAL;
    }
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_for_each(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    int rc = need_fn(in, ARG(0), "forEach");
    for (size_t i = 0; rc == C_NORMAL && i < self.u.a->len; i++) {
        jv v;
        rc = callback3(in, args[0], self.u.a->v[i], i, self, &v);
    }
    *out = jv_undef();
    return rc;
}

/* find, findIndex, findLast, findLastIndex, some, every */
static int arr_search(interp *in,
                      jv self,
                      const jv *args,
                      size_t argc,
                      jv *out,
                      int last,
                      int want_index,
                      const char *name)
{
    int rc = need_fn(in, ARG(0), name);
    if (rc != C_NORMAL)
        return rc;
    size_t len = self.u.a->len;
    for (size_t k = 0; k < len; k++) {
        size_t i = last ? len - 1 - k : k;
        jv v, item = i < self.u.a->len ? self.u.a->v[i] : jv_undef();
        if ((rc = callback3(in, args[0], item, i, self, &v)) != C_NORMAL)
            return rc;
        if (js_truthy(v)) {
            *out = want_index ? jv_num((double)i) : item;
            return C_NORMAL;
        }
    }
    *out = want_index ? jv_num(-1) : jv_undef();
    return C_NORMAL;
}

static int arr_find(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 0, 0, "find");
}
static int arr_find_index(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 0, 1, "findIndex");
}
static int arr_find_last(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 1, 0, "findLast");
}
static int arr_find_last_index(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 1, 1, "findLastIndex");
}

static int arr_some_every(interp *in, jv self, const jv *args, size_t argc, jv *out, int every)
{
    int rc = need_fn(in, ARG(0), every ? "every" : "some");
    if (rc != C_NORMAL)
        return rc;
    for (size_t i = 0; i < self.u.a->len; i++) {
        jv v;
        if ((rc = callback3(in, args[0], self.u.a->v[i], i, self, &v)) != C_NORMAL)
            return rc;
        if (js_truthy(v) != every) {
            *out = jv_bool(!every);
            return C_NORMAL;
        }
    }
    *out = jv_bool(every);
    return C_NORMAL;
}
static int arr_some(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_some_every(in, self, args, argc, out, 0);
}
static int arr_every(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_some_every(in, self, args, argc, out, 1);
}

static int arr_reduce_dir(interp *in, jv self, const jv *args, size_t argc, jv *out, int right)
{
    int rc = need_fn(in, ARG(0), right ? "reduceRight" : "reduce");
    if (rc != C_NORMAL)
        return rc;
    size_t len = self.u.a->len, k = 0;
    jv acc;
    if (argc >= 2) {
        acc = args[1];
    } else {
        if (len == 0)
            return js_throw(in, "TypeError", "Reduce of empty array with no initial value");
        acc = self.u.a->v[right ? len - 1 : 0];
        k = 1;
    }
    for (; k < len; k++) {
        size_t i = right ? len - 1 - k : k;
        if (i >= self.u.a->len)
            continue;
        jv a[4] = { acc, self.u.a->v[i], jv_num((double)i), self };
        if ((rc = js_call(in, args[0], jv_undef(), a, 4, &acc)) != C_NORMAL)
            return rc;
    }
    *out = acc;
    return C_NORMAL;
}
static int arr_reduce(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_reduce_dir(in, self, args, argc, out, 0);
}
static int arr_reduce_right(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_reduce_dir(in, self, args, argc, out, 1);
}

static int arr_slice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.a->len;
    size_t b = rel_index(ARG(0), len, 0), e = rel_index(ARG(1), len, len);
    jarr *r = js_arr_new(in, e > b ? e - b : 0);
    if (r == NULL)
        return C_FATAL;
    for (size_t i = b; i < e; i++)
        r->v[r->len++] = self.u.a->v[i];
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_splice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *a = self.u.a;
    size_t len = a->len, start = rel_index(ARG(0), len, 0);
    size_t del = argc == 0 ? 0 : argc == 1 ? len - start : rel_index(args[1], len - start, 0);
    if (argc >= 2) {
        double d = js_to_number(args[1]);
        del = isnan(d) || d < 0 ? 0 : d > (double)(len - start) ? len - start : (size_t)d;
    }
    jarr *removed = js_arr_new(in, del);
    size_t add = argc > 2 ? argc - 2 : 0;
    jv *nv = removed != NULL ? js_alloc(in, (len - del + add + 1) * sizeof(jv)) : NULL;
    if (nv == NULL)
        return C_FATAL;
    for (size_t i = 0; i < del; i++)
        removed->v[removed->len++] = a->v[start + i];
    size_t n = 0;
    for (size_t i = 0; i < start; i++)
        nv[n++] = a->v[i];
    for (size_t i = 0; i < add; i++)
        nv[n++] = args[2 + i];
    for (size_t i = start + del; i < len; i++)
        nv[n++] = a->v[i];
    a->v = nv;
    a->len = n;
    a->cap = len - del + add + 1;
    *out = jv_arr(removed);
    return C_NORMAL;
}

static int arr_push(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    for (size_t i = 0; i < argc; i++)
        if (js_arr_push(in, self.u.a, args[i]) != C_NORMAL)
            return C_FATAL;
    *out = jv_num((double)self.u.a->len);
    return C_NORMAL;
}

static int arr_pop(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jarr *a = self.u.a;
    *out = a->len > 0 ? a->v[--a->len] : jv_undef();
    return C_NORMAL;
}

static int arr_shift(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jarr *a = self.u.a;
    if (a->len == 0) {
        *out = jv_undef();
        return C_NORMAL;
    }
    *out = a->v[0];
    memmove(a->v, a->v + 1, (a->len - 1) * sizeof(jv));
    a->len--;
    return C_NORMAL;
}

static int arr_unshift(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *a = self.u.a;
    for (size_t i = 0; i < argc; i++)
        if (js_arr_push(in, a, jv_undef()) != C_NORMAL)
            return C_FATAL;
    memmove(a->v + argc, a->v, (a->len - argc) * sizeof(jv));
    for (size_t i = 0; i < argc; i++)
        a->v[i] = args[i];
    *out = jv_num((double)a->len);
    return C_NORMAL;
}

static int arr_concat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *r = js_arr_new(in, self.u.a->len);
    if (r == NULL)
        return C_FATAL;
    for (size_t i = 0; i < self.u.a->len; i++)
        r->v[r->len++] = self.u.a->v[i];
    for (size_t k = 0; k < argc; k++) {
        if (args[k].t == JV_ARR) {
            for (size_t i = 0; i < args[k].u.a->len; i++)
                if (js_arr_push(in, r, args[k].u.a->v[i]) != C_NORMAL)
                    return C_FATAL;
        } else if (js_arr_push(in, r, args[k]) != C_NORMAL) {
            return C_FATAL;
        }
    }
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_join(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *sep =
        ARG(0).t == JV_UNDEF ? js_str_ascii(in, ",") : js_to_string(in, args[0]);
    if (sep == NULL)
        return C_FATAL;
    jv acc = jv_str(js_str_units(in, NULL, 0));
    if (acc.u.s == NULL)
        return C_FATAL;
    jarr *a = self.u.a;
    size_t total = 0;
    const sluice_js_str **parts = js_alloc(in, (a->len + 1) * sizeof *parts);
    if (parts == NULL)
        return C_FATAL;
    for (size_t i = 0; i < a->len; i++) {
        jv v = a->v[i];
        parts[i] = v.t == JV_UNDEF || v.t == JV_NULL ? acc.u.s : js_to_string(in, v);
        if (parts[i] == NULL)
            return C_FATAL;
        total += parts[i]->len + (i > 0 ? sep->len : 0);
        if (total > SLUICE_LIMIT_JS_STRING_UNITS)
            return js_fatal(in, SLUICE_E_LIMIT, "max_memory_bytes",
                            "join builds a string past the plan's string limit (%u characters) "
                            "at line %u",
                            SLUICE_LIMIT_JS_STRING_UNITS, in->line);
    }
    uint16_t *u = js_alloc(in, (total + 1) * sizeof *u);
    if (u == NULL)
        return C_FATAL;
    size_t n = 0;
    for (size_t i = 0; i < a->len; i++) {
        if (i > 0) {
            memcpy(u + n, sep->u, sep->len * 2);
            n += sep->len;
        }
        memcpy(u + n, parts[i]->u, parts[i]->len * 2);
        n += parts[i]->len;
    }
    sluice_js_str *r = js_str_units(in, u, n);
    if (r == NULL)
        return C_FATAL;
    *out = jv_str(r);
    return C_NORMAL;
}

static int arr_reverse(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jarr *a = self.u.a;
    for (size_t i = 0; i < a->len / 2; i++) {
        jv t = a->v[i];
        a->v[i] = a->v[a->len - 1 - i];
        a->v[a->len - 1 - i] = t;
    }
    *out = self;
    return C_NORMAL;
}

static int arr_index_of_dir(jv self, const jv *args, size_t argc, jv *out, int last)
{
    jarr *a = self.u.a;
    size_t len = a->len;
    if (!last) {
        for (size_t i = rel_index(ARG(1), len, 0); i < len; i++)
            if (js_strict_equals(a->v[i], ARG(0))) {
                *out = jv_num((double)i);
                return C_NORMAL;
            }
    } else {
        for (size_t k = len; k > 0; k--)
            if (js_strict_equals(a->v[k - 1], ARG(0))) {
                *out = jv_num((double)(k - 1));
                return C_NORMAL;
            }
    }
    *out = jv_num(-1);
    return C_NORMAL;
}
static int arr_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    return arr_index_of_dir(self, args, argc, out, 0);
}
static int arr_last_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    return arr_index_of_dir(self, args, argc, out, 1);
}

static int arr_includes(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jarr *a = self.u.a;
    for (size_t i = rel_index(ARG(1), a->len, 0); i < a->len; i++)
        if (js_same_value_zero(a->v[i], ARG(0))) {
            *out = jv_bool(1);
            return C_NORMAL;
        }
    *out = jv_bool(0);
    return C_NORMAL;
}

static int arr_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(js_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0)
        d += (double)self.u.a->len;
    *out = d >= 0 && d < (double)self.u.a->len ? self.u.a->v[(size_t)d] : jv_undef();
    return C_NORMAL;
}

static int flat_into(interp *in, jarr *r, jarr *src, double depth)
{
    for (size_t i = 0; i < src->len; i++) {
        jv v = src->v[i];
        if (v.t == JV_ARR && depth >= 1) {
            if (js_step(in) != C_NORMAL || flat_into(in, r, v.u.a, depth - 1) != C_NORMAL)
                return C_FATAL;
        } else if (js_arr_push(in, r, v) != C_NORMAL) {
            return C_FATAL;
        }
    }
    return C_NORMAL;
}

static int arr_flat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double depth = ARG(0).t == JV_UNDEF ? 1 : js_to_number(args[0]);
    if (isnan(depth))
        depth = 0;
    if (depth > 64)
        depth = 64;
    jarr *r = js_arr_new(in, 0);
    if (r == NULL || flat_into(in, r, self.u.a, depth) != C_NORMAL)
        return C_FATAL;
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_flat_map(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv mapped;
    int rc = arr_map(in, self, args, argc, &mapped);
    if (rc != C_NORMAL)
        return rc;
    jarr *r = js_arr_new(in, 0);
    if (r == NULL || flat_into(in, r, mapped.u.a, 1) != C_NORMAL)
        return C_FATAL;
    *out = jv_arr(r);
    return C_NORMAL;
}

static int arr_fill(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jarr *a = self.u.a;
    size_t b = rel_index(ARG(1), a->len, 0), e = rel_index(ARG(2), a->len, a->len);
    for (size_t i = b; i < e; i++)
        a->v[i] = ARG(0);
    *out = self;
    return C_NORMAL;
}

/* Sort comparison: the plan's comparator, or the default (strings, undefined last). */
static int sort_cmp(interp *in, jv fn, jv a, jv b, int *res)
{
    if (a.t == JV_UNDEF || b.t == JV_UNDEF) {
        *res = a.t == JV_UNDEF ? (b.t == JV_UNDEF ? 0 : 1) : -1;
        return C_NORMAL;
    }
    if (fn.t == JV_UNDEF) {
        const sluice_js_str *sa = js_to_string(in, a), *sb = sa ? js_to_string(in, b) : NULL;
        if (sb == NULL)
            return C_FATAL;
        *res = js_str_cmp(sa, sb);
        return C_NORMAL;
    }
    jv args[2] = { a, b }, r;
    int rc = js_call(in, fn, jv_undef(), args, 2, &r);
    if (rc != C_NORMAL)
        return rc;
    double d = js_to_number(r);
    *res = d < 0 ? -1 : d > 0 ? 1 : 0;
    return C_NORMAL;
}

/* Stable merge sort (JavaScript's sort is stable since ES2019). */
static int merge_sort(interp *in, jv fn, jv *v, jv *tmp, size_t n)
{
    if (n < 2)
        return C_NORMAL;
    size_t mid = n / 2;
    int rc;
    if ((rc = merge_sort(in, fn, v, tmp, mid)) != C_NORMAL ||
        (rc = merge_sort(in, fn, v + mid, tmp, n - mid)) != C_NORMAL)
        return rc;
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        int c;
        if ((rc = sort_cmp(in, fn, v[j], v[i], &c)) != C_NORMAL)
            return rc;
        tmp[k++] = c < 0 ? v[j++] : v[i++];
    }
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
    return C_NORMAL;
}

static int arr_sort(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv fn = ARG(0);
    if (fn.t != JV_UNDEF && fn.t != JV_FUNC)
        return js_throw(in, "TypeError",
                        "The comparison function must be either a function or undefined");
    jarr *a = self.u.a;
    jv *tmp = js_alloc(in, (a->len + 1) * sizeof *tmp);
    if (tmp == NULL)
        return C_FATAL;
    /* sort a copy so a comparator that throws leaves the array as JavaScript might */
    jv *work = js_alloc(in, (a->len + 1) * sizeof *work);
    if (work == NULL)
        return C_FATAL;
    if (a->len > 0)
        memcpy(work, a->v, a->len * sizeof *work);
    int rc = merge_sort(in, fn, work, tmp, a->len);
    if (rc != C_NORMAL)
        return rc;
    if (a->len > 0)
        memcpy(a->v, work, a->len * sizeof *work);
    *out = self;
    return C_NORMAL;
}

typedef struct method_entry {
    const char *name;
    native_fn fn;
} method_entry;

static const method_entry array_methods[] = {
    { "map", arr_map },
    { "filter", arr_filter },
    { "forEach", arr_for_each },
    { "find", arr_find },
    { "findIndex", arr_find_index },
    { "findLast", arr_find_last },
    { "findLastIndex", arr_find_last_index },
    { "some", arr_some },
    { "every", arr_every },
    { "reduce", arr_reduce },
    { "reduceRight", arr_reduce_right },
    { "slice", arr_slice },
    { "splice", arr_splice },
    { "push", arr_push },
    { "pop", arr_pop },
    { "shift", arr_shift },
    { "unshift", arr_unshift },
    { "concat", arr_concat },
    { "join", arr_join },
    { "reverse", arr_reverse },
    { "indexOf", arr_index_of },
    { "lastIndexOf", arr_last_index_of },
    { "includes", arr_includes },
    { "at", arr_at },
    { "flat", arr_flat },
    { "flatMap", arr_flat_map },
    { "fill", arr_fill },
    { "sort", arr_sort },
};

/* --- strings ------------------------------------------------------------------------------- */

static int ret_units(interp *in, const uint16_t *u, size_t n, jv *out)
{
    sluice_js_str *r = js_str_units(in, u, n);
    if (r == NULL)
        return C_FATAL;
    *out = jv_str(r);
    return C_NORMAL;
}

/* A string position (indexOf, includes, startsWith, endsWith): clamped to [0, len]. */
static size_t clamp_index(jv v, size_t len, size_t dflt)
{
    if (v.t == JV_UNDEF)
        return dflt;
    double d = trunc(js_to_number(v));
    if (isnan(d) || d < 0)
        return 0;
    return d > (double)len ? len : (size_t)d;
}

static const sluice_js_str *arg_str(interp *in, const jv *args, size_t argc, size_t i)
{
    return js_to_string(in, ARG(i));
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

static int str_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0);
    if (n == NULL)
        return C_FATAL;
    *out = jv_num((double)str_find(self.u.s, n, clamp_index(ARG(1), self.u.s->len, 0)));
    return C_NORMAL;
}

static int str_last_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return C_FATAL;
    int64_t found = -1;
    for (size_t i = 0; i + n->len <= h->len; i++)
        if (n->len == 0 || memcmp(h->u + i, n->u, n->len * 2) == 0)
            found = (int64_t)i;
    if (n->len == 0)
        found = (int64_t)h->len;
    *out = jv_num((double)found);
    return C_NORMAL;
}

static int str_includes(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0);
    if (n == NULL)
        return C_FATAL;
    *out = jv_bool(str_find(self.u.s, n, clamp_index(ARG(1), self.u.s->len, 0)) >= 0);
    return C_NORMAL;
}

static int str_starts_with(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return C_FATAL;
    size_t at = clamp_index(ARG(1), h->len, 0);
    *out = jv_bool(at + n->len <= h->len && memcmp(h->u + at, n->u, n->len * 2) == 0);
    return C_NORMAL;
}

static int str_ends_with(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *n = arg_str(in, args, argc, 0), *h = self.u.s;
    if (n == NULL)
        return C_FATAL;
    size_t end = clamp_index(ARG(1), h->len, h->len);
    *out = jv_bool(n->len <= end && memcmp(h->u + end - n->len, n->u, n->len * 2) == 0);
    return C_NORMAL;
}

static int str_slice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.s->len, b = rel_index(ARG(0), len, 0), e = rel_index(ARG(1), len, len);
    return ret_units(in, self.u.s->u + b, e > b ? e - b : 0, out);
}

static int str_substring(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.s->len;
    double db = ARG(0).t == JV_UNDEF ? 0 : js_to_number(args[0]);
    double de = ARG(1).t == JV_UNDEF ? (double)len : js_to_number(args[1]);
    db = isnan(db) || db < 0 ? 0 : db > (double)len ? (double)len : trunc(db);
    de = isnan(de) || de < 0 ? 0 : de > (double)len ? (double)len : trunc(de);
    size_t b = (size_t)(db < de ? db : de), e = (size_t)(db < de ? de : db);
    return ret_units(in, self.u.s->u + b, e - b, out);
}

static int str_case(interp *in, jv self, jv *out, int upper)
{
    const sluice_js_str *s = self.u.s;
    sluice_js_str *r = js_str_units(in, s->u, s->len);
    if (r == NULL)
        return C_FATAL;
    for (size_t i = 0; i < r->len; i++) {
        uint16_t c = r->u[i];
        if (upper && c >= 'a' && c <= 'z')
            r->u[i] = (uint16_t)(c - 32);
        else if (!upper && c >= 'A' && c <= 'Z')
            r->u[i] = (uint16_t)(c + 32);
    }
    *out = jv_str(r);
    return C_NORMAL;
}
static int str_upper(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_case(in, self, out, 1);
}
static int str_lower(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_case(in, self, out, 0);
}

static int ws(uint16_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0xA0 ||
           c == 0xFEFF || c == 0x2028 || c == 0x2029 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
}

static int str_trim_dir(interp *in, jv self, jv *out, int start, int end)
{
    const sluice_js_str *s = self.u.s;
    size_t b = 0, e = s->len;
    while (start && b < e && ws(s->u[b]))
        b++;
    while (end && e > b && ws(s->u[e - 1]))
        e--;
    return ret_units(in, s->u + b, e - b, out);
}
static int str_trim(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 1, 1);
}
static int str_trim_start(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 1, 0);
}
static int str_trim_end(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return str_trim_dir(in, self, out, 0, 1);
}

static int str_split(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *s = self.u.s;
    jarr *r = js_arr_new(in, 0);
    if (r == NULL)
        return C_FATAL;
    double lim = ARG(1).t == JV_UNDEF ? 4294967295.0 : js_to_number(args[1]);
    size_t limit = isnan(lim) || lim < 0 ? 0 : lim > 4294967295.0 ? 4294967295u : (size_t)lim;
    *out = jv_arr(r);
    if (limit == 0)
        return C_NORMAL;
    if (ARG(0).t == JV_UNDEF)
        return js_arr_push(in, r, self);
    const sluice_js_str *sep = js_to_string(in, args[0]);
    if (sep == NULL)
        return C_FATAL;
    if (sep->len == 0) {
        for (size_t i = 0; i < s->len && r->len < limit; i++) {
            jv c;
            if (ret_units(in, s->u + i, 1, &c) != C_NORMAL || js_arr_push(in, r, c) != C_NORMAL)
                return C_FATAL;
        }
        return C_NORMAL;
    }
    size_t from = 0;
    for (;;) {
        if (js_step(in) != C_NORMAL)
            return C_FATAL;
        int64_t at = str_find(s, sep, from);
        size_t end = at < 0 ? s->len : (size_t)at;
        jv part;
        if (ret_units(in, s->u + from, end - from, &part) != C_NORMAL ||
            js_arr_push(in, r, part) != C_NORMAL)
            return C_FATAL;
        if (at < 0 || r->len >= limit)
            return C_NORMAL;
        from = end + sep->len;
    }
}

static int str_pad(interp *in, jv self, const jv *args, size_t argc, jv *out, int start)
{
    const sluice_js_str *s = self.u.s;
    double td = js_to_number(ARG(0));
    size_t target = isnan(td) || td < 0                 ? 0
                    : td > SLUICE_LIMIT_JS_STRING_UNITS ? SLUICE_LIMIT_JS_STRING_UNITS + 1
                                                        : (size_t)td;
    const sluice_js_str *fill =
        ARG(1).t == JV_UNDEF ? js_str_ascii(in, " ") : js_to_string(in, args[1]);
    if (fill == NULL)
        return C_FATAL;
    if (target <= s->len || fill->len == 0) {
        *out = self;
        return C_NORMAL;
    }
    uint16_t *u = js_alloc(in, (target + 1) * 2);
    if (u == NULL)
        return C_FATAL;
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
    return ret_units(in, u, n, out);
}
static int str_pad_start(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_pad(in, self, args, argc, out, 1);
}
static int str_pad_end(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_pad(in, self, args, argc, out, 0);
}

static int str_repeat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = js_to_number(ARG(0));
    if (isnan(d))
        d = 0;
    if (d < 0 || isinf(d))
        return js_throw(in, "RangeError", "Invalid count value: %g", d);
    const sluice_js_str *s = self.u.s;
    if ((double)s->len * trunc(d) > SLUICE_LIMIT_JS_STRING_UNITS)
        return js_fatal(in, SLUICE_E_LIMIT, "max_memory_bytes",
                        "repeat builds a string past the plan's string limit (%u characters) at "
                        "line %u",
                        SLUICE_LIMIT_JS_STRING_UNITS, in->line);
    size_t count = (size_t)d, n = 0;
    uint16_t *u = js_alloc(in, (s->len * count + 1) * 2);
    if (u == NULL)
        return C_FATAL;
    for (size_t i = 0; i < count; i++, n += s->len)
        memcpy(u + n, s->u, s->len * 2);
    return ret_units(in, u, n, out);
}

static int str_char_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = trunc(js_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0 || d >= (double)self.u.s->len)
        return ret_units(in, NULL, 0, out);
    return ret_units(in, self.u.s->u + (size_t)d, 1, out);
}

static int str_char_code_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(js_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    *out = d < 0 || d >= (double)self.u.s->len ? jv_num(NAN) : jv_num(self.u.s->u[(size_t)d]);
    return C_NORMAL;
}

static int str_code_point_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(js_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    const sluice_js_str *s = self.u.s;
    if (d < 0 || d >= (double)s->len) {
        *out = jv_undef();
        return C_NORMAL;
    }
    size_t i = (size_t)d;
    uint32_t c = s->u[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s->len && s->u[i + 1] >= 0xDC00 &&
        s->u[i + 1] <= 0xDFFF)
        c = 0x10000 + ((c - 0xD800) << 10) + (s->u[i + 1] - 0xDC00);
    *out = jv_num(c);
    return C_NORMAL;
}

static int str_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double d = trunc(js_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0)
        d += (double)self.u.s->len;
    if (d < 0 || d >= (double)self.u.s->len) {
        *out = jv_undef();
        return C_NORMAL;
    }
    return ret_units(in, self.u.s->u + (size_t)d, 1, out);
}

static int str_concat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr tmp = { .len = argc + 1, .cap = argc + 1 };
    tmp.v = js_alloc(in, (argc + 1) * sizeof(jv));
    if (tmp.v == NULL)
        return C_FATAL;
    tmp.v[0] = self;
    for (size_t i = 0; i < argc; i++)
        tmp.v[i + 1] = args[i];
    sluice_js_str *empty = js_str_units(in, NULL, 0);
    if (empty == NULL)
        return C_FATAL;
    for (size_t i = 0; i <= argc; i++) {
        const sluice_js_str *s = js_to_string(in, tmp.v[i]);
        if (s == NULL)
            return C_FATAL;
        tmp.v[i] = jv_str(s);
    }
    jv sep = jv_str(empty);
    return arr_join(in, jv_arr(&tmp), &sep, 1, out);
}

static int str_replace_impl(interp *in, jv self, const jv *args, size_t argc, jv *out, int all)
{
    const sluice_js_str *pat = arg_str(in, args, argc, 0), *s = self.u.s;
    if (pat == NULL)
        return C_FATAL;
    if (ARG(1).t == JV_FUNC)
        return js_throw(in, "TypeError", "plans replace with strings only (no function)");
    const sluice_js_str *rep = arg_str(in, args, argc, 1);
    if (rep == NULL)
        return C_FATAL;
    for (size_t i = 0; i < rep->len; i++)
        if (rep->u[i] == '$')
            return js_throw(in, "TypeError", "plans do not support $ patterns in replace");
    jarr *parts = js_arr_new(in, 0);
    if (parts == NULL)
        return C_FATAL;
    size_t from = 0;
    for (;;) {
        if (js_step(in) != C_NORMAL)
            return C_FATAL;
        int64_t at = str_find(s, pat, from);
        if (at < 0 || (from > s->len))
            break;
        jv piece;
        if (ret_units(in, s->u + from, (size_t)at - from, &piece) != C_NORMAL ||
            js_arr_push(in, parts, piece) != C_NORMAL ||
            js_arr_push(in, parts, jv_str(rep)) != C_NORMAL)
            return C_FATAL;
        from = (size_t)at + pat->len;
        if (!all)
            break;
        if (pat->len == 0) {
            if ((size_t)at >= s->len)
                break;
            /* an empty pattern matches between every unit */
            jv unit;
            if (ret_units(in, s->u + at, 1, &unit) != C_NORMAL ||
                js_arr_push(in, parts, unit) != C_NORMAL)
                return C_FATAL;
            from = (size_t)at + 1;
        }
    }
    jv tail;
    if (ret_units(in, s->u + (from <= s->len ? from : s->len), from <= s->len ? s->len - from : 0,
                  &tail) != C_NORMAL ||
        js_arr_push(in, parts, tail) != C_NORMAL)
        return C_FATAL;
    jv sep = jv_str(js_str_units(in, NULL, 0));
    if (sep.u.s == NULL)
        return C_FATAL;
    return arr_join(in, jv_arr(parts), &sep, 1, out);
}
static int str_replace(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_replace_impl(in, self, args, argc, out, 0);
}
static int str_replace_all(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return str_replace_impl(in, self, args, argc, out, 1);
}

static int str_locale_compare(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *o = arg_str(in, args, argc, 0);
    if (o == NULL)
        return C_FATAL;
    *out = jv_num(js_str_cmp(self.u.s, o)); /* code-unit order: docs/js-plans.md */
    return C_NORMAL;
}

static int str_to_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    *out = self;
    return C_NORMAL;
}

static const method_entry string_methods[] = {
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
    { "toString", str_to_string },
};

/* --- numbers ------------------------------------------------------------------------------- */

static int num_to_fixed(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double x = self.u.n, fd = ARG(0).t == JV_UNDEF ? 0 : trunc(js_to_number(args[0]));
    if (isnan(fd))
        fd = 0;
    if (fd < 0 || fd > 100)
        return js_throw(in, "RangeError", "toFixed() digits argument must be between 0 and 100");
    char buf[512];
    if (isnan(x) || fabs(x) >= 1e21) {
        js_number_format(x, buf);
        return ret_str_ascii(in, buf, out);
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
    return ret_str_ascii(in, buf, out);
}

static int num_to_string(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    if (ARG(0).t != JV_UNDEF && js_to_number(args[0]) != 10)
        return js_throw(in, "RangeError", "plans format numbers in base 10 only");
    char buf[40];
    js_number_format(self.u.n, buf);
    return ret_str_ascii(in, buf, out);
}

static const method_entry number_methods[] = {
    { "toFixed", num_to_fixed },
    { "toString", num_to_string },
};

/* --- promises ------------------------------------------------------------------------------ */

static int promise_then(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jpromise *p = self.u.p;
    int src = js_settle(in, p);
    if (src != C_NORMAL)
        return src;
    jv handler = p->rejected ? ARG(1) : ARG(0);
    if (handler.t != JV_FUNC) {
        *out = self;
        return C_NORMAL;
    }
    jv r;
    int rc = js_call(in, handler, jv_undef(), &p->v, 1, &r);
    if (rc == C_THROW) {
        *out = settled(in, true, in->thrown);
        return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
    }
    if (rc != C_NORMAL)
        return rc;
    *out = settled(in, false, r);
    return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
}

static int promise_catch(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv both[2] = { jv_undef(), ARG(0) };
    return promise_then(in, self, both, 2, out);
}

static const method_entry promise_methods[] = {
    { "then", promise_then },
    { "catch", promise_catch },
};

static int
find_method(interp *in, const method_entry *m, size_t n, jv self, const sluice_js_str *key, jv *out)
{
    for (size_t i = 0; i < n; i++)
        if (sluice_js_str_eq_ascii(key, m[i].name)) {
            *out = js_native(in, m[i].fn, self, m[i].name);
            return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
        }
    *out = jv_undef();
    return C_NORMAL;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int js_builtin_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    switch (self.t) {
    case JV_ARR:
        if (sluice_js_str_eq_ascii(key, "length")) {
            *out = jv_num((double)self.u.a->len);
            return C_NORMAL;
        }
        return find_method(in, array_methods, COUNT(array_methods), self, key, out);
    case JV_STR:
        if (sluice_js_str_eq_ascii(key, "length")) {
            *out = jv_num((double)self.u.s->len);
            return C_NORMAL;
        }
        return find_method(in, string_methods, COUNT(string_methods), self, key, out);
    case JV_NUM:
        return find_method(in, number_methods, COUNT(number_methods), self, key, out);
    case JV_PROMISE:
        return find_method(in, promise_methods, COUNT(promise_methods), self, key, out);
    case JV_OBJ:
        if (self.u.o->coll != NULL || self.u.o->iter != NULL)
            return js_coll_member(in, self, key, out);
        if (self.u.o->is_date)
            return js_date_member(in, self, key, out);
        *out = jv_undef();
        return C_NORMAL;
    case JV_FUNC:
        /* Number.isInteger, String.fromCharCode: statics of a callable namespace */
        if (self.u.f->native != NULL && self.u.f->self.t == JV_OBJ) {
            jv *v = js_obj_get(self.u.f->self.u.o, key);
            *out = v != NULL ? *v : jv_undef();
            return C_NORMAL;
        }
        *out = jv_undef();
        return C_NORMAL;
    default:
        *out = jv_undef();
        return C_NORMAL;
    }
}

/* --- globals: Object, Array, Math, Number, JSON, Promise, console ------------------------- */

static int obj_keys_kind(interp *in, const jv *args, size_t argc, jv *out, int kind)
{
    jv o = ARG(0);
    jarr *r = js_arr_new(in, 0);
    if (r == NULL)
        return C_FATAL;
    *out = jv_arr(r);
    if (o.t == JV_UNDEF || o.t == JV_NULL)
        return js_throw(in, "TypeError", "Cannot convert undefined or null to object");
    if (o.t == JV_ARR || o.t == JV_STR) {
        size_t len = o.t == JV_ARR ? o.u.a->len : o.u.s->len;
        for (size_t i = 0; i < len; i++) {
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", i);
            sluice_js_str *k = js_str_ascii(in, idx);
            jv v = jv_undef();
            if (k == NULL)
                return C_FATAL;
            if (o.t == JV_ARR)
                v = o.u.a->v[i];
            else if (ret_units(in, o.u.s->u + i, 1, &v) != C_NORMAL)
                return C_FATAL;
            jv item = kind == 0 ? jv_str(k) : v;
            if (kind == 2) {
                jarr *pair = js_arr_new(in, 2);
                if (pair == NULL)
                    return C_FATAL;
                pair->v[0] = jv_str(k);
                pair->v[1] = v;
                pair->len = 2;
                item = jv_arr(pair);
            }
            if (js_arr_push(in, r, item) != C_NORMAL)
                return C_FATAL;
        }
        return C_NORMAL;
    }
    if (o.t != JV_OBJ)
        return C_NORMAL;
    size_t n;
    const sluice_js_str **keys = js_obj_keys(in, o.u.o, &n);
    if (keys == NULL)
        return C_FATAL;
    for (size_t i = 0; i < n; i++) {
        jv v = *js_obj_get(o.u.o, keys[i]), item = kind == 0 ? jv_str(keys[i]) : v;
        if (kind == 2) {
            jarr *pair = js_arr_new(in, 2);
            if (pair == NULL)
                return C_FATAL;
            pair->v[0] = jv_str(keys[i]);
            pair->v[1] = v;
            pair->len = 2;
            item = jv_arr(pair);
        }
        if (js_arr_push(in, r, item) != C_NORMAL)
            return C_FATAL;
    }
    return C_NORMAL;
}

static int object_keys(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 0);
}
static int object_values(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 1);
}
static int object_entries(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 2);
}

static int object_from_entries(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv list = ARG(0);
    jarr *items = js_arr_new(in, 0);
    bool coll = false;
    if (items == NULL || js_coll_items(in, list, items, &coll) != C_NORMAL)
        return C_FATAL;
    if (coll)
        list = jv_arr(items); /* Object.fromEntries(map) */
    if (list.t != JV_ARR)
        return js_throw(in, "TypeError", "%s is not iterable", js_typeof(list));
    jobj *o = js_obj_new(in);
    if (o == NULL)
        return C_FATAL;
    for (size_t i = 0; i < list.u.a->len; i++) {
        jv pair = list.u.a->v[i];
        if (pair.t != JV_ARR && pair.t != JV_OBJ)
            return js_throw(in, "TypeError", "Iterator value %s is not an entry object",
                            js_typeof(pair));
        jv k = jv_undef(), v = jv_undef();
        if (pair.t == JV_ARR) {
            k = pair.u.a->len > 0 ? pair.u.a->v[0] : jv_undef();
            v = pair.u.a->len > 1 ? pair.u.a->v[1] : jv_undef();
        }
        const sluice_js_str *ks = js_to_key(in, k);
        if (ks == NULL)
            return C_FATAL;
        if (sluice_js_str_eq_ascii(ks, "__proto__"))
            return js_fatal(in, SLUICE_E_DENIED, "js_refused",
                            "prototype access is refused at line %u", in->line);
        if (js_obj_set(in, o, ks, v) != C_NORMAL)
            return C_FATAL;
    }
    *out = jv_obj(o);
    return C_NORMAL;
}

static int object_assign(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv target = ARG(0);
    if (target.t != JV_OBJ)
        return js_throw(in, "TypeError", "plans assign into plain objects only");
    for (size_t i = 1; i < argc; i++) {
        if (args[i].t != JV_OBJ)
            continue;
        size_t n;
        const sluice_js_str **keys = js_obj_keys(in, args[i].u.o, &n);
        if (keys == NULL)
            return C_FATAL;
        for (size_t k = 0; k < n; k++)
            if (js_obj_set(in, target.u.o, keys[k], *js_obj_get(args[i].u.o, keys[k])) != C_NORMAL)
                return C_FATAL;
    }
    *out = target;
    return C_NORMAL;
}

static int object_has_own(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *k = js_to_key(in, ARG(1));
    if (k == NULL)
        return C_FATAL;
    jv o = ARG(0);
    if (o.t == JV_UNDEF || o.t == JV_NULL)
        return js_throw(in, "TypeError", "Cannot convert undefined or null to object");
    int64_t idx = js_index_of_key(k);
    *out = jv_bool((o.t == JV_OBJ && js_obj_get(o.u.o, k) != NULL) ||
                   (o.t == JV_ARR && idx >= 0 && (size_t)idx < o.u.a->len));
    return C_NORMAL;
}

static int array_is_array(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_ARR);
    return C_NORMAL;
}

static int array_from(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv src = ARG(0), fn = ARG(1);
    jarr *r = js_arr_new(in, 0);
    if (r == NULL)
        return C_FATAL;
    bool coll = false;
    if (js_coll_items(in, src, r, &coll) != C_NORMAL)
        return C_FATAL;
    if (coll) {
        /* a Map's entries, a Set's values, an iterator's rest: collected above */
    } else if (src.t == JV_ARR || src.t == JV_STR) {
        jv items = jv_arr(r);
        jv spread_args[1] = { src };
        int rc = arr_concat(in, jv_arr(r), spread_args, src.t == JV_ARR ? 1 : 0, &items);
        if (rc != C_NORMAL)
            return rc;
        r = items.u.a;
        if (src.t == JV_STR) {
            for (size_t i = 0; i < src.u.s->len; i++) {
                size_t w =
                    (src.u.s->u[i] >= 0xD800 && src.u.s->u[i] <= 0xDBFF && i + 1 < src.u.s->len &&
                     src.u.s->u[i + 1] >= 0xDC00 && src.u.s->u[i + 1] <= 0xDFFF)
                        ? 2
                        : 1;
                jv c;
                if (ret_units(in, src.u.s->u + i, w, &c) != C_NORMAL ||
                    js_arr_push(in, r, c) != C_NORMAL)
                    return C_FATAL;
                i += w - 1;
            }
        }
    } else if (src.t == JV_OBJ) {
        sluice_js_str *lk = js_str_ascii(in, "length");
        if (lk == NULL)
            return C_FATAL;
        jv *lv = js_obj_get(src.u.o, lk);
        double d = lv != NULL ? js_to_number(*lv) : 0;
        if (isnan(d) || d < 0)
            d = 0;
        if (d > 10000000)
            return js_throw(in, "RangeError", "Invalid array length");
        for (size_t i = 0; i < (size_t)d; i++) {
            if (js_step(in) != C_NORMAL || js_arr_push(in, r, jv_undef()) != C_NORMAL)
                return C_FATAL;
        }
    } else if (src.t == JV_UNDEF || src.t == JV_NULL) {
        return js_throw(in, "TypeError", "%s is not iterable",
                        src.t == JV_NULL ? "null" : "undefined");
    }
    if (fn.t == JV_FUNC) {
        for (size_t i = 0; i < r->len; i++) {
            jv a[2] = { r->v[i], jv_num((double)i) }, v;
            int rc = js_call(in, fn, jv_undef(), a, 2, &v);
            if (rc != C_NORMAL)
                return rc;
            r->v[i] = v;
        }
    } else if (fn.t != JV_UNDEF) {
        return js_throw(in, "TypeError", "%s is not a function", js_typeof(fn));
    }
    *out = jv_arr(r);
    return C_NORMAL;
}

static int array_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jarr *r = js_arr_new(in, argc);
    if (r == NULL)
        return C_FATAL;
    for (size_t i = 0; i < argc; i++)
        r->v[r->len++] = args[i];
    *out = jv_arr(r);
    return C_NORMAL;
}

static int math_minmax(const jv *args, size_t argc, jv *out, int max)
{
    double r = max ? -INFINITY : INFINITY;
    int nan = 0;
    for (size_t i = 0; i < argc; i++) {
        double d = js_to_number(args[i]);
        if (isnan(d))
            nan = 1;
        else if (max ? (d > r || (d == 0 && r == 0 && !signbit(d)))
                     : (d < r || (d == 0 && r == 0 && signbit(d))))
            r = d;
    }
    *out = jv_num(nan ? NAN : r);
    return C_NORMAL;
}
static int math_max(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    return math_minmax(args, argc, out, 1);
}
static int math_min(interp *in, jv self, const jv *args, size_t argc, jv *out)
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

typedef double (*math1)(double);
static const struct {
    const char *name;
    math1 fn;
} math1s[] = {
    { "abs", fabs },    { "floor", floor },  { "ceil", ceil }, { "round", js_round },
    { "trunc", trunc }, { "sign", js_sign }, { "sqrt", sqrt }, { "cbrt", cbrt },
    { "log", log },     { "log10", log10 },  { "log2", log2 }, { "exp", exp },
};

static int math_one(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    /* self holds the index of the function in math1s */
    *out = jv_num(math1s[(size_t)self.u.n].fn(js_to_number(ARG(0))));
    return C_NORMAL;
}

static int math_pow(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    double x = js_to_number(ARG(0)), y = js_to_number(ARG(1));
    *out = jv_num((isnan(y) || (fabs(x) == 1 && isinf(y))) ? NAN : pow(x, y));
    return C_NORMAL;
}

static int number_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_num(argc == 0 ? 0 : js_to_number(args[0]));
    return C_NORMAL;
}

static int string_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    if (argc == 0)
        return ret_units(in, NULL, 0, out);
    const sluice_js_str *s = js_to_string(in, args[0]);
    if (s == NULL)
        return C_FATAL;
    *out = jv_str(s);
    return C_NORMAL;
}

static int boolean_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(js_truthy(ARG(0)));
    return C_NORMAL;
}

static int string_from_char_code(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    uint16_t *u = js_alloc(in, (argc + 1) * 2);
    if (u == NULL)
        return C_FATAL;
    for (size_t i = 0; i < argc; i++)
        u[i] = (uint16_t)(uint32_t)(int64_t)fmod(trunc(js_to_number(args[i])), 65536.0);
    return ret_units(in, u, argc, out);
}

static int is_integer(double d)
{
    return isfinite(d) && d == trunc(d);
}

static int number_is_integer(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && is_integer(args[0].u.n));
    return C_NORMAL;
}
static int number_is_safe_integer(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && is_integer(args[0].u.n) &&
                   fabs(args[0].u.n) <= 9007199254740991.0);
    return C_NORMAL;
}
static int number_is_finite(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && isfinite(args[0].u.n));
    return C_NORMAL;
}
static int number_is_nan(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_NUM && isnan(args[0].u.n));
    return C_NORMAL;
}
static int global_is_nan(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(isnan(js_to_number(ARG(0))));
    return C_NORMAL;
}
static int global_is_finite(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(isfinite(js_to_number(ARG(0))));
    return C_NORMAL;
}

/* parseFloat: the longest decimal prefix after whitespace. */
static int parse_float(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = js_to_string(in, ARG(0));
    if (s == NULL)
        return C_FATAL;
    char tmp[400];
    size_t b = 0, n = 0;
    while (b < s->len && ws(s->u[b]))
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
        return C_NORMAL;
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
        return C_NORMAL;
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
    return C_NORMAL;
}

static int parse_int(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = js_to_string(in, ARG(0));
    if (s == NULL)
        return C_FATAL;
    size_t i = 0;
    while (i < s->len && ws(s->u[i]))
        i++;
    int sign = 1;
    if (i < s->len && (s->u[i] == '+' || s->u[i] == '-'))
        sign = s->u[i++] == '-' ? -1 : 1;
    double rd = ARG(1).t == JV_UNDEF ? 0 : js_to_number(args[1]);
    int radix = isfinite(rd) ? (int)(int32_t)(int64_t)rd : 0;
    int strip = 1;
    if (radix != 0) {
        if (radix < 2 || radix > 36) {
            *out = jv_num(NAN);
            return C_NORMAL;
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
    return C_NORMAL;
}

static int json_stringify_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    if (ARG(1).t != JV_UNDEF && ARG(1).t != JV_NULL)
        return js_throw(in, "TypeError", "plans call JSON.stringify without a replacer");
    const sluice_js_str *indent = NULL;
    jv sp = ARG(2);
    if (sp.t == JV_NUM) {
        double d = sp.u.n > 10 ? 10 : sp.u.n;
        char spaces[11] = { 0 };
        for (int i = 0; i < (int)d; i++)
            spaces[i] = ' ';
        if (d >= 1 && (indent = js_str_ascii(in, spaces)) == NULL)
            return C_FATAL;
    } else if (sp.t == JV_STR && sp.u.s->len > 0) {
        sluice_js_str *t = js_str_units(in, sp.u.s->u, sp.u.s->len > 10 ? 10 : sp.u.s->len);
        if (t == NULL)
            return C_FATAL;
        indent = t;
    }
    sluice_buf b;
    sluice_buf_init(&b, in->arena, in->max_memory);
    bool undef;
    int rc = js_json_stringify(in, ARG(0), indent, &b, &undef);
    if (rc != C_NORMAL)
        return rc;
    if (undef) {
        *out = jv_undef();
        return C_NORMAL;
    }
    sluice_js_str *s = sluice_js_str_from_utf8(in->arena, sluice_buf_cstr(&b), b.len);
    if (s == NULL)
        return js_nomem(in);
    *out = jv_str(s);
    return C_NORMAL;
}

static int json_parse_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = js_to_string(in, ARG(0));
    char *u8 = s != NULL ? sluice_js_str_utf8(in->arena, s) : NULL;
    if (u8 == NULL)
        return js_nomem(in);
    json_error_t jerr;
    json_t *j = json_loads(u8, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (j == NULL)
        return js_throw(in, "SyntaxError", "JSON.parse: %s at position %d", jerr.text,
                        jerr.position);
    int rc = js_from_json(in, j, out);
    json_decref(j);
    return rc;
}

static int promise_all_kind(interp *in, const jv *args, size_t argc, jv *out, int settled_kind)
{
    jv list = ARG(0);
    if (list.t != JV_ARR)
        return js_throw(in, "TypeError", "%s is not iterable", js_typeof(list));
    jarr *r = js_arr_new(in, list.u.a->len);
    if (r == NULL)
        return C_FATAL;
    /* every call is already in flight: waiting for them in order takes as long as the slowest */
    for (size_t i = 0; i < list.u.a->len; i++)
        if (list.u.a->v[i].t == JV_PROMISE && js_settle(in, list.u.a->v[i].u.p) != C_NORMAL)
            return C_FATAL;
    for (size_t i = 0; i < list.u.a->len; i++) {
        jv v = list.u.a->v[i];
        bool rejected = v.t == JV_PROMISE && v.u.p->rejected;
        jv value = v.t == JV_PROMISE ? v.u.p->v : v;
        if (!settled_kind) {
            if (rejected) {
                *out = settled(in, true, value);
                return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
            }
            r->v[r->len++] = value;
            continue;
        }
        jobj *o = js_obj_new(in);
        sluice_js_str *status = js_str_ascii(in, rejected ? "rejected" : "fulfilled");
        sluice_js_str *key = js_str_ascii(in, rejected ? "reason" : "value");
        sluice_js_str *sk = js_str_ascii(in, "status");
        if (o == NULL || status == NULL || key == NULL || sk == NULL ||
            js_obj_set(in, o, sk, jv_str(status)) != C_NORMAL ||
            js_obj_set(in, o, key, value) != C_NORMAL)
            return C_FATAL;
        r->v[r->len++] = jv_obj(o);
    }
    *out = settled(in, false, jv_arr(r));
    return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
}

static int promise_all(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return promise_all_kind(in, args, argc, out, 0);
}
static int promise_all_settled(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return promise_all_kind(in, args, argc, out, 1);
}
static int promise_resolve(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = settled(in, false, ARG(0));
    return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
}
static int promise_reject(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = settled(in, true, ARG(0));
    return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
}

static int console_log(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = jv_undef();
    if (json_array_size(in->res->logs) >= 100)
        return C_NORMAL; /* capped: the rest is dropped */
    sluice_buf b;
    sluice_buf_init(&b, in->out_arena, 4096);
    for (size_t i = 0; i < argc; i++) {
        if (i > 0)
            sluice_buf_putc(&b, ' ');
        if (args[i].t == JV_STR) {
            char *u8 = sluice_js_str_utf8(in->arena, args[i].u.s);
            if (u8 == NULL)
                return js_nomem(in);
            sluice_buf_puts(&b, u8);
        } else {
            bool undef;
            size_t before = b.len;
            int rc = js_json_stringify(in, args[i], NULL, &b, &undef);
            if (rc == C_FATAL)
                return rc;
            if (rc != C_NORMAL || undef) {
                b.len = before;
                sluice_buf_puts(&b, "undefined");
            }
        }
    }
    json_t *line = json_string(sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b)
                                                                  : "(log line too long)");
    if (line == NULL || json_array_append_new(in->res->logs, line) != 0)
        return js_nomem(in);
    return C_NORMAL;
}

static int error_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *msg =
        ARG(0).t == JV_UNDEF ? js_str_units(in, NULL, 0) : js_to_string(in, args[0]);
    if (msg == NULL)
        return C_FATAL;
    const char *names[] = { "Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError" };
    *out = js_make_error(in, names[(size_t)self.u.n], msg);
    return out->t == JV_UNDEF ? C_FATAL : C_NORMAL;
}

/* --- capabilities -------------------------------------------------------------------------- */

static int record_failed(interp *in, const sluice_js_call *call, const char *message)
{
    sluice_js_run_result *res = in->res;
    sluice_js_failed_call *nf =
        sluice_arena_alloc(in->out_arena, (res->failed_count + 1) * sizeof *nf);
    if (nf == NULL)
        return js_nomem(in);
    if (res->failed_count > 0)
        memcpy(nf, res->failed, res->failed_count * sizeof *nf);
    const json_t *first = json_array_get(call->args, 0);
    nf[res->failed_count] = (sluice_js_failed_call){
        .object = call->object,
        .method = call->method,
        .path = json_is_string(first) ? sluice_arena_strdup(in->out_arena, json_string_value(first))
                                      : NULL,
        .message = sluice_arena_strdup(in->out_arena, message != NULL ? message : "failed"),
        .index = call->index,
        .line = call->line,
    };
    res->failed = nf;
    res->failed_count++;
    return C_NORMAL;
}

/* Settles p with the host's answer st/result/herr for call (status contract: interp.h).
 * C_NORMAL (p fulfilled or rejected) or C_FATAL. */
static int settle_with(interp *in,
                       jpromise *p,
                       const sluice_js_call *call,
                       sluice_status st,
                       json_t *result,
                       const sluice_error *herr)
{
    p->pending = false;
    if (st == SLUICE_OK) {
        jv v;
        int rc = js_from_json(in, result != NULL ? result : json_null(), &v);
        json_decref(result);
        if (rc != C_NORMAL)
            return rc;
        if (v.t == JV_PROMISE) /* a host value is never a promise; keep the invariant anyway */
            return js_nomem(in);
        p->rejected = false;
        p->v = v;
        return C_NORMAL;
    }
    json_decref(result);
    const char *msg = herr->message != NULL ? herr->message : "upstream call failed";
    if (st == SLUICE_E_ENGINE) {
        /* an upstream failure: the plan may catch it, but it is never silent */
        if (record_failed(in, call, msg) != C_NORMAL)
            return C_FATAL;
        sluice_js_str *m = sluice_js_str_from_utf8(in->arena, msg, strlen(msg));
        jv e = m != NULL ? js_make_error(in, "Error", m) : jv_undef();
        if (e.t == JV_UNDEF)
            return js_nomem(in);
        p->rejected = true;
        p->v = e;
        return C_NORMAL;
    }
    record_failed(in, call, msg);
    return js_fatal(in, st, herr->key != NULL ? herr->key : "request_policy", "%s", msg);
}

static void unlink_pending(interp *in, jpromise *p)
{
    for (jpromise **q = &in->pending; *q != NULL; q = &(*q)->next_pending)
        if (*q == p) {
            *q = p->next_pending;
            return;
        }
}

int js_settle(interp *in, jpromise *p)
{
    if (!p->pending)
        return C_NORMAL;
    unlink_pending(in, p);
    json_t *result = NULL;
    sluice_error herr = { 0 };
    sluice_status st =
        in->opts.host.wait(in->opts.host.ctx, in->out_arena, p->ticket, &result, &herr);
    int rc = settle_with(in, p, &p->call, st, result, &herr);
    json_decref(p->call.args);
    p->call.args = NULL;
    return rc;
}

int js_settle_all(interp *in)
{
    while (in->pending != NULL)
        if (js_settle(in, in->pending) != C_NORMAL)
            return C_FATAL;
    return C_NORMAL;
}

/* The arguments of a capability call as JSON (undefined as null). NULL with C_FATAL set. */
static json_t *
call_args(interp *in, const char *object, const char *method, const jv *args, size_t argc)
{
    json_t *jargs = json_array();
    if (jargs == NULL) {
        js_nomem(in);
        return NULL;
    }
    for (size_t i = 0; i < argc; i++) {
        sluice_buf b;
        sluice_buf_init(&b, in->arena, 0);
        bool undef;
        int rc = js_json_stringify(in, args[i], NULL, &b, &undef);
        if (rc != C_NORMAL) {
            json_decref(jargs);
            if (rc == C_THROW)
                js_fatal(in, SLUICE_E_INVALID, "js_refused",
                         "an argument of %s.%s at line %u cannot be sent as JSON", object, method,
                         in->line);
            return NULL;
        }
        json_t *v = undef ? json_null() : json_loads(sluice_buf_cstr(&b), JSON_DECODE_ANY, NULL);
        if (v == NULL || json_array_append_new(jargs, v) != 0) {
            json_decref(jargs);
            js_fatal(in, SLUICE_E_INVALID, "js_refused",
                     "an argument of %s.%s at line %u is not JSON", object, method, in->line);
            return NULL;
        }
    }
    return jargs;
}

static void decref_args(void *p)
{
    jpromise *pr = p;
    json_decref(pr->call.args);
    pr->call.args = NULL;
}

static int capability_call(
    interp *in, const char *object, const char *method, const jv *args, size_t argc, jv *out)
{
    int64_t max = in->opts.limits.max_api_calls;
    if (max > 0 && (int64_t)in->calls >= max)
        return js_fatal(in, SLUICE_E_LIMIT, "max_api_calls",
                        "the plan tried call %zu (%s.%s at line %u) but max_api_calls = %lld; "
                        "%zu calls were made",
                        in->calls + 1, object, method, in->line, (long long)max, in->calls);
    bool concurrent = in->opts.host.start != NULL && in->opts.host.wait != NULL;
    if (in->opts.host.call == NULL && !concurrent)
        return js_fatal(in, SLUICE_E_DENIED, "js_refused", "%s is not available to this plan",
                        object);
    jpromise *p = js_alloc(in, sizeof *p);
    if (p == NULL)
        return C_FATAL;
    memset(p, 0, sizeof *p);
    json_t *jargs = call_args(in, object, method, args, argc);
    if (jargs == NULL)
        return C_FATAL;
    p->call = (sluice_js_call){
        .object = object, .method = method, .args = jargs, .index = in->calls, .line = in->line
    };
    in->calls++; /* counted before the call: failures, retries and refusals count too */
    if (sluice_arena_cleanup_add(in->arena, decref_args, p) != SLUICE_OK) {
        json_decref(jargs);
        return js_nomem(in);
    }
    out->t = JV_PROMISE;
    out->u.p = p;
    json_t *result = NULL;
    sluice_error herr = { 0 };
    sluice_status st;
    if (concurrent) {
        st = in->opts.host.start(in->opts.host.ctx, in->out_arena, &p->call, &p->ticket, &herr);
        if (st == SLUICE_OK) {
            p->pending = true;
            p->next_pending = in->pending;
            in->pending = p;
            return C_NORMAL;
        }
    } else {
        st = in->opts.host.call(in->opts.host.ctx, in->out_arena, &p->call, &result, &herr);
    }
    return settle_with(in, p, &p->call, st, result, &herr);
}

static int api_verb(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    static const char *const verbs[] = { "get", "post", "put", "patch", "delete" };
    return capability_call(in, "api", verbs[(size_t)self.u.n], args, argc, out);
}

static int mcp_call(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return capability_call(in, "mcp", "call", args, argc, out);
}

/* --- installation -------------------------------------------------------------------------- */

static int set_fn(interp *in, jobj *o, const char *name, native_fn fn, double tag)
{
    sluice_js_str *k = js_str_ascii(in, name);
    jv f = k != NULL ? js_native(in, fn, jv_num(tag), name) : jv_undef();
    return f.t == JV_UNDEF ? C_FATAL : js_obj_set(in, o, k, f);
}

static int set_num(interp *in, jobj *o, const char *name, double v)
{
    sluice_js_str *k = js_str_ascii(in, name);
    return k == NULL ? C_FATAL : js_obj_set(in, o, k, jv_num(v));
}

static int define(interp *in, env *global, const char *name, jv v)
{
    binding *b = js_alloc(in, sizeof *b);
    sluice_js_str *k = js_str_ascii(in, name);
    if (b == NULL || k == NULL)
        return C_FATAL;
    b->name = k;
    b->v = v;
    b->konst = true;
    b->ready = true;
    b->next = global->first;
    global->first = b;
    return C_NORMAL;
}

static int define_fn(interp *in, env *global, const char *name, native_fn fn, double tag)
{
    jv f = js_native(in, fn, jv_num(tag), name);
    return f.t == JV_UNDEF ? C_FATAL : define(in, global, name, f);
}

/* Builds a namespace object. NULL on failure (C_FATAL recorded). */
static jobj *ns(interp *in, env *global, const char *name)
{
    jobj *o = js_obj_new(in);
    if (o == NULL || define(in, global, name, jv_obj(o)) != C_NORMAL)
        return NULL;
    return o;
}

int js_install_globals(interp *in, env *global)
{
    jobj *object = ns(in, global, "Object"), *array = ns(in, global, "Array");
    jobj *math = ns(in, global, "Math"), *json = ns(in, global, "JSON");
    jobj *promise = ns(in, global, "Promise"), *console = ns(in, global, "console");
    jobj *date = ns(in, global, "Date");
    if (object == NULL || array == NULL || math == NULL || json == NULL || promise == NULL ||
        console == NULL || date == NULL)
        return C_FATAL;
    int rc = C_NORMAL;
    rc |= set_fn(in, date, "parse", js_date_parse, 0);
    rc |= set_fn(in, date, "UTC", js_date_utc, 0);
    rc |= set_fn(in, date, "now", js_date_now, 0);
    rc |= set_fn(in, object, "keys", object_keys, 0);
    rc |= set_fn(in, object, "values", object_values, 0);
    rc |= set_fn(in, object, "entries", object_entries, 0);
    rc |= set_fn(in, object, "fromEntries", object_from_entries, 0);
    rc |= set_fn(in, object, "assign", object_assign, 0);
    rc |= set_fn(in, object, "hasOwn", object_has_own, 0);
    rc |= set_fn(in, array, "isArray", array_is_array, 0);
    rc |= set_fn(in, array, "from", array_from, 0);
    rc |= set_fn(in, array, "of", array_of, 0);
    rc |= set_fn(in, math, "max", math_max, 0);
    rc |= set_fn(in, math, "min", math_min, 0);
    rc |= set_fn(in, math, "pow", math_pow, 0);
    for (size_t i = 0; i < COUNT(math1s); i++)
        rc |= set_fn(in, math, math1s[i].name, math_one, (double)i);
    rc |= set_num(in, math, "PI", M_PI);
    rc |= set_num(in, math, "E", M_E);
    rc |= set_fn(in, json, "stringify", json_stringify_fn, 0);
    rc |= set_fn(in, json, "parse", json_parse_fn, 0);
    rc |= set_fn(in, promise, "all", promise_all, 0);
    rc |= set_fn(in, promise, "allSettled", promise_all_settled, 0);
    rc |= set_fn(in, promise, "resolve", promise_resolve, 0);
    rc |= set_fn(in, promise, "reject", promise_reject, 0);
    rc |= set_fn(in, console, "log", console_log, 0);
    if (rc != C_NORMAL)
        return C_FATAL;
    /* Number and String are callable and carry their statics: a function value with no
     * properties would lose Number.isInteger, so they are namespaces whose call goes through
     * the Number()/String() globals below */
    jobj *number = js_obj_new(in), *string = js_obj_new(in);
    if (number == NULL || string == NULL)
        return C_FATAL;
    rc |= set_fn(in, number, "isInteger", number_is_integer, 0);
    rc |= set_fn(in, number, "isSafeInteger", number_is_safe_integer, 0);
    rc |= set_fn(in, number, "isFinite", number_is_finite, 0);
    rc |= set_fn(in, number, "isNaN", number_is_nan, 0);
    rc |= set_fn(in, number, "parseFloat", parse_float, 0);
    rc |= set_fn(in, number, "parseInt", parse_int, 0);
    rc |= set_num(in, number, "MAX_SAFE_INTEGER", 9007199254740991.0);
    rc |= set_num(in, number, "MIN_SAFE_INTEGER", -9007199254740991.0);
    rc |= set_num(in, number, "EPSILON", 2.220446049250313e-16);
    rc |= set_num(in, number, "MAX_VALUE", 1.7976931348623157e308);
    rc |= set_num(in, number, "MIN_VALUE", 5e-324);
    rc |= set_num(in, number, "POSITIVE_INFINITY", INFINITY);
    rc |= set_num(in, number, "NEGATIVE_INFINITY", -INFINITY);
    rc |= set_num(in, number, "NaN", NAN);
    rc |= set_fn(in, string, "fromCharCode", string_from_char_code, 0);
    if (rc != C_NORMAL)
        return C_FATAL;
    jv number_fn = js_native(in, number_ctor, jv_obj(number), "Number");
    jv string_fn = js_native(in, string_ctor, jv_obj(string), "String");
    if (number_fn.t == JV_UNDEF || string_fn.t == JV_UNDEF)
        return C_FATAL;
    rc |= define(in, global, "Number", number_fn);
    rc |= define(in, global, "String", string_fn);
    rc |= define_fn(in, global, "Boolean", boolean_ctor, 0);
    rc |= define_fn(in, global, "parseInt", parse_int, 0);
    rc |= define_fn(in, global, "parseFloat", parse_float, 0);
    rc |= define_fn(in, global, "isNaN", global_is_nan, 0);
    rc |= define_fn(in, global, "isFinite", global_is_finite, 0);
    rc |= define(in, global, "NaN", jv_num(NAN));
    rc |= define(in, global, "Infinity", jv_num(INFINITY));
    static const char *const errors[] = { "Error", "TypeError", "RangeError", "SyntaxError",
                                          "ReferenceError" };
    for (size_t i = 0; i < COUNT(errors); i++)
        rc |= define_fn(in, global, errors[i], error_fn, (double)i);
    if (rc != C_NORMAL)
        return C_FATAL;
    if (in->opts.host.has_api) {
        jobj *api = ns(in, global, "api");
        if (api == NULL)
            return C_FATAL;
        static const char *const verbs[] = { "get", "post", "put", "patch", "delete" };
        for (size_t i = 0; i < COUNT(verbs); i++)
            rc |= set_fn(in, api, verbs[i], api_verb, (double)i);
    }
    if (in->opts.host.has_mcp) {
        jobj *mcp = ns(in, global, "mcp");
        if (mcp == NULL)
            return C_FATAL;
        rc |= set_fn(in, mcp, "call", mcp_call, 0);
    }
    jv args = jv_undef();
    if (in->opts.args != NULL) {
        rc |= js_from_json(in, in->opts.args, &args);
    } else {
        jobj *empty = js_obj_new(in);
        if (empty == NULL)
            return C_FATAL;
        args = jv_obj(empty);
    }
    if (rc != C_NORMAL)
        return C_FATAL;
    return define(in, global, "args", args);
}
