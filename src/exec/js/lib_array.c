/*
 * lib_array.c — the plan language's Array library: the methods of arrays (map, filter, reduce,
 * sort, ...) and the statics Array.isArray, Array.from and Array.of.
 *
 * Owns: their JavaScript semantics (tests/node/js_diff.mjs), callbacks counting as loop
 * iterations.
 * Does not own: array storage (value.c) or calling a callback (interp.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jcomp callback3(interp *in, jv fn, jv item, size_t i, jv self, jv *out)
{
    jv a[3] = { item, jv_num((double)i), self };
    return sluice_jsi_call(in, fn, jv_undef(), a, 3, out);
}

static jcomp need_fn(interp *in, jv fn, const char *method)
{
    if (fn.t == JV_FUNC)
        return SLUICE_JSI_NORMAL;
    return sluice_jsi_throw(in, "TypeError", "%s is not a function (Array.prototype.%s)",
                            sluice_jsi_typeof(fn), method);
}

static jcomp arr_map(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jcomp rc = need_fn(in, ARG(0), "map");
    jarr *src = self.u.a, *r = rc == SLUICE_JSI_NORMAL ? sluice_jsi_arr_new(in, src->len) : NULL;
    if (rc != SLUICE_JSI_NORMAL || r == NULL)
        return rc != SLUICE_JSI_NORMAL ? rc : SLUICE_JSI_FATAL;
    for (size_t i = 0; i < src->len; i++) {
        jv v;
        if ((rc = callback3(in, args[0], src->v[i], i, self, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        r->v[r->len++] = v;
    }
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_filter(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jcomp rc = need_fn(in, ARG(0), "filter");
    jarr *src = self.u.a, *r = rc == SLUICE_JSI_NORMAL ? sluice_jsi_arr_new(in, 0) : NULL;
    if (rc != SLUICE_JSI_NORMAL || r == NULL)
        return rc != SLUICE_JSI_NORMAL ? rc : SLUICE_JSI_FATAL;
    for (size_t i = 0; i < src->len; i++) {
        jv v, item = src->v[i];
        if ((rc = callback3(in, args[0], item, i, self, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_truthy(v) && sluice_jsi_arr_push(in, r, item) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_for_each(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jcomp rc = need_fn(in, ARG(0), "forEach");
    for (size_t i = 0; rc == SLUICE_JSI_NORMAL && i < self.u.a->len; i++) {
        jv v;
        rc = callback3(in, args[0], self.u.a->v[i], i, self, &v);
    }
    *out = jv_undef();
    return rc;
}

/* find, findIndex, findLast, findLastIndex, some, every */
static jcomp arr_search(interp *in,
                        jv self,
                        const jv *args,
                        size_t argc,
                        jv *out,
                        int last,
                        int want_index,
                        const char *name)
{
    jcomp rc = need_fn(in, ARG(0), name);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    size_t len = self.u.a->len;
    for (size_t k = 0; k < len; k++) {
        size_t i = last ? len - 1 - k : k;
        jv v, item = i < self.u.a->len ? self.u.a->v[i] : jv_undef();
        if ((rc = callback3(in, args[0], item, i, self, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_truthy(v)) {
            *out = want_index ? jv_num((double)i) : item;
            return SLUICE_JSI_NORMAL;
        }
    }
    *out = want_index ? jv_num(-1) : jv_undef();
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_find(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 0, 0, "find");
}
static jcomp arr_find_index(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 0, 1, "findIndex");
}
static jcomp arr_find_last(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 1, 0, "findLast");
}
static jcomp arr_find_last_index(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_search(in, self, args, argc, out, 1, 1, "findLastIndex");
}

static jcomp arr_some_every(interp *in, jv self, const jv *args, size_t argc, jv *out, int every)
{
    jcomp rc = need_fn(in, ARG(0), every ? "every" : "some");
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    for (size_t i = 0; i < self.u.a->len; i++) {
        jv v;
        if ((rc = callback3(in, args[0], self.u.a->v[i], i, self, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_truthy(v) != every) {
            *out = jv_bool(!every);
            return SLUICE_JSI_NORMAL;
        }
    }
    *out = jv_bool(every);
    return SLUICE_JSI_NORMAL;
}
static jcomp arr_some(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_some_every(in, self, args, argc, out, 0);
}
static jcomp arr_every(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_some_every(in, self, args, argc, out, 1);
}

static jcomp arr_reduce_dir(interp *in, jv self, const jv *args, size_t argc, jv *out, int right)
{
    jcomp rc = need_fn(in, ARG(0), right ? "reduceRight" : "reduce");
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    size_t len = self.u.a->len, k = 0;
    jv acc;
    if (argc >= 2) {
        acc = args[1];
    } else {
        if (len == 0)
            return sluice_jsi_throw(in, "TypeError", "Reduce of empty array with no initial value");
        acc = self.u.a->v[right ? len - 1 : 0];
        k = 1;
    }
    for (; k < len; k++) {
        size_t i = right ? len - 1 - k : k;
        if (i >= self.u.a->len)
            continue;
        jv a[4] = { acc, self.u.a->v[i], jv_num((double)i), self };
        if ((rc = sluice_jsi_call(in, args[0], jv_undef(), a, 4, &acc)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    *out = acc;
    return SLUICE_JSI_NORMAL;
}
static jcomp arr_reduce(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_reduce_dir(in, self, args, argc, out, 0);
}
static jcomp arr_reduce_right(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return arr_reduce_dir(in, self, args, argc, out, 1);
}

static jcomp arr_slice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    size_t len = self.u.a->len;
    size_t b = sluice_jsi_rel_index(ARG(0), len, 0), e = sluice_jsi_rel_index(ARG(1), len, len);
    jarr *r = sluice_jsi_arr_new(in, e > b ? e - b : 0);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = b; i < e; i++)
        r->v[r->len++] = self.u.a->v[i];
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_splice(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *a = self.u.a;
    size_t len = a->len, start = sluice_jsi_rel_index(ARG(0), len, 0);
    size_t del = argc == 0   ? 0
                 : argc == 1 ? len - start
                             : sluice_jsi_rel_index(args[1], len - start, 0);
    if (argc >= 2) {
        double d = sluice_jsi_to_number(args[1]);
        del = isnan(d) || d < 0 ? 0 : d > (double)(len - start) ? len - start : (size_t)d;
    }
    jarr *removed = sluice_jsi_arr_new(in, del);
    size_t add = argc > 2 ? argc - 2 : 0;
    jv *nv = removed != NULL ? sluice_jsi_alloc(in, (len - del + add + 1) * sizeof(jv)) : NULL;
    if (nv == NULL)
        return SLUICE_JSI_FATAL;
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
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_push(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    for (size_t i = 0; i < argc; i++)
        if (sluice_jsi_arr_push(in, self.u.a, args[i]) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    *out = jv_num((double)self.u.a->len);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_pop(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jarr *a = self.u.a;
    *out = a->len > 0 ? a->v[--a->len] : jv_undef();
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_shift(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jarr *a = self.u.a;
    if (a->len == 0) {
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    }
    *out = a->v[0];
    memmove(a->v, a->v + 1, (a->len - 1) * sizeof(jv));
    a->len--;
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_unshift(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *a = self.u.a;
    for (size_t i = 0; i < argc; i++)
        if (sluice_jsi_arr_push(in, a, jv_undef()) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    memmove(a->v + argc, a->v, (a->len - argc) * sizeof(jv));
    for (size_t i = 0; i < argc; i++)
        a->v[i] = args[i];
    *out = jv_num((double)a->len);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_concat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jarr *r = sluice_jsi_arr_new(in, self.u.a->len);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < self.u.a->len; i++)
        r->v[r->len++] = self.u.a->v[i];
    for (size_t k = 0; k < argc; k++) {
        if (args[k].t == JV_ARR) {
            for (size_t i = 0; i < args[k].u.a->len; i++)
                if (sluice_jsi_arr_push(in, r, args[k].u.a->v[i]) != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
        } else if (sluice_jsi_arr_push(in, r, args[k]) != SLUICE_JSI_NORMAL) {
            return SLUICE_JSI_FATAL;
        }
    }
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_array_join(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *sep =
        ARG(0).t == JV_UNDEF ? sluice_jsi_str_ascii(in, ",") : sluice_jsi_to_string(in, args[0]);
    if (sep == NULL)
        return SLUICE_JSI_FATAL;
    jv acc = jv_str(sluice_jsi_str_units(in, NULL, 0));
    if (acc.u.s == NULL)
        return SLUICE_JSI_FATAL;
    jarr *a = self.u.a;
    size_t total = 0;
    const sluice_js_str **parts = sluice_jsi_alloc(in, (a->len + 1) * sizeof *parts);
    if (parts == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < a->len; i++) {
        jv v = a->v[i];
        parts[i] = v.t == JV_UNDEF || v.t == JV_NULL ? acc.u.s : sluice_jsi_to_string(in, v);
        if (parts[i] == NULL)
            return SLUICE_JSI_FATAL;
        total += parts[i]->len + (i > 0 ? sep->len : 0);
        if (total > SLUICE_LIMIT_JS_STRING_UNITS)
            return sluice_jsi_limit_error(in, "max_memory_bytes",
                                          "join builds a string with too many characters",
                                          SLUICE_LIMIT_JS_STRING_UNITS);
    }
    uint16_t *u = sluice_jsi_alloc(in, (total + 1) * sizeof *u);
    if (u == NULL)
        return SLUICE_JSI_FATAL;
    size_t n = 0;
    for (size_t i = 0; i < a->len; i++) {
        if (i > 0) {
            memcpy(u + n, sep->u, sep->len * 2);
            n += sep->len;
        }
        memcpy(u + n, parts[i]->u, parts[i]->len * 2);
        n += parts[i]->len;
    }
    sluice_js_str *r = sluice_jsi_str_units(in, u, n);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_reverse(interp *in, jv self, const jv *args, size_t argc, jv *out)
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
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_index_of_dir(jv self, const jv *args, size_t argc, jv *out, int last)
{
    jarr *a = self.u.a;
    size_t len = a->len;
    if (!last) {
        for (size_t i = sluice_jsi_rel_index(ARG(1), len, 0); i < len; i++)
            if (sluice_jsi_strict_equals(a->v[i], ARG(0))) {
                *out = jv_num((double)i);
                return SLUICE_JSI_NORMAL;
            }
    } else {
        for (size_t k = len; k > 0; k--)
            if (sluice_jsi_strict_equals(a->v[k - 1], ARG(0))) {
                *out = jv_num((double)(k - 1));
                return SLUICE_JSI_NORMAL;
            }
    }
    *out = jv_num(-1);
    return SLUICE_JSI_NORMAL;
}
static jcomp arr_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    return arr_index_of_dir(self, args, argc, out, 0);
}
static jcomp arr_last_index_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    return arr_index_of_dir(self, args, argc, out, 1);
}

static jcomp arr_includes(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jarr *a = self.u.a;
    for (size_t i = sluice_jsi_rel_index(ARG(1), a->len, 0); i < a->len; i++)
        if (sluice_jsi_same_value_zero(a->v[i], ARG(0))) {
            *out = jv_bool(1);
            return SLUICE_JSI_NORMAL;
        }
    *out = jv_bool(0);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_at(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    double d = trunc(sluice_jsi_to_number(ARG(0)));
    if (isnan(d))
        d = 0;
    if (d < 0)
        d += (double)self.u.a->len;
    *out = d >= 0 && d < (double)self.u.a->len ? self.u.a->v[(size_t)d] : jv_undef();
    return SLUICE_JSI_NORMAL;
}

static jcomp flat_into(interp *in, jarr *r, jarr *src, double depth)
{
    for (size_t i = 0; i < src->len; i++) {
        jv v = src->v[i];
        if (v.t == JV_ARR && depth >= 1) {
            if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL ||
                flat_into(in, r, v.u.a, depth - 1) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        } else if (sluice_jsi_arr_push(in, r, v) != SLUICE_JSI_NORMAL) {
            return SLUICE_JSI_FATAL;
        }
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_flat(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    double depth = ARG(0).t == JV_UNDEF ? 1 : sluice_jsi_to_number(args[0]);
    if (isnan(depth))
        depth = 0;
    if (depth > 64)
        depth = 64;
    jarr *r = sluice_jsi_arr_new(in, 0);
    if (r == NULL || flat_into(in, r, self.u.a, depth) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_flat_map(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv mapped;
    jcomp rc = arr_map(in, self, args, argc, &mapped);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    jarr *r = sluice_jsi_arr_new(in, 0);
    if (r == NULL || flat_into(in, r, mapped.u.a, 1) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_fill(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jarr *a = self.u.a;
    size_t b = sluice_jsi_rel_index(ARG(1), a->len, 0),
           e = sluice_jsi_rel_index(ARG(2), a->len, a->len);
    for (size_t i = b; i < e; i++)
        a->v[i] = ARG(0);
    *out = self;
    return SLUICE_JSI_NORMAL;
}

/* Sort comparison: the plan's comparator, or the default (strings, undefined last). */
static jcomp sort_cmp(interp *in, jv fn, jv a, jv b, int *res)
{
    if (a.t == JV_UNDEF || b.t == JV_UNDEF) {
        *res = a.t == JV_UNDEF ? (b.t == JV_UNDEF ? 0 : 1) : -1;
        return SLUICE_JSI_NORMAL;
    }
    if (fn.t == JV_UNDEF) {
        const sluice_js_str *sa = sluice_jsi_to_string(in, a),
                            *sb = sa ? sluice_jsi_to_string(in, b) : NULL;
        if (sb == NULL)
            return SLUICE_JSI_FATAL;
        *res = sluice_jsi_str_cmp(sa, sb);
        return SLUICE_JSI_NORMAL;
    }
    jv args[2] = { a, b }, r;
    jcomp rc = sluice_jsi_call(in, fn, jv_undef(), args, 2, &r);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    double d = sluice_jsi_to_number(r);
    *res = d < 0 ? -1 : d > 0 ? 1 : 0;
    return SLUICE_JSI_NORMAL;
}

/* Stable merge sort (JavaScript's sort is stable since ES2019). */
static jcomp merge_sort(interp *in, jv fn, jv *v, jv *tmp, size_t n)
{
    if (n < 2)
        return SLUICE_JSI_NORMAL;
    size_t mid = n / 2;
    jcomp rc;
    if ((rc = merge_sort(in, fn, v, tmp, mid)) != SLUICE_JSI_NORMAL ||
        (rc = merge_sort(in, fn, v + mid, tmp, n - mid)) != SLUICE_JSI_NORMAL)
        return rc;
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        int c;
        if ((rc = sort_cmp(in, fn, v[j], v[i], &c)) != SLUICE_JSI_NORMAL)
            return rc;
        tmp[k++] = c < 0 ? v[j++] : v[i++];
    }
    while (i < mid)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
    return SLUICE_JSI_NORMAL;
}

static jcomp arr_sort(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv fn = ARG(0);
    if (fn.t != JV_UNDEF && fn.t != JV_FUNC)
        return sluice_jsi_throw(in, "TypeError",
                                "The comparison function must be either a function or undefined");
    jarr *a = self.u.a;
    jv *tmp = sluice_jsi_alloc(in, (a->len + 1) * sizeof *tmp);
    if (tmp == NULL)
        return SLUICE_JSI_FATAL;
    /* sort a copy so a comparator that throws leaves the array as JavaScript might */
    jv *work = sluice_jsi_alloc(in, (a->len + 1) * sizeof *work);
    if (work == NULL)
        return SLUICE_JSI_FATAL;
    if (a->len > 0)
        memcpy(work, a->v, a->len * sizeof *work);
    jcomp rc = merge_sort(in, fn, work, tmp, a->len);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (a->len > 0)
        memcpy(a->v, work, a->len * sizeof *work);
    *out = self;
    return SLUICE_JSI_NORMAL;
}

static const sluice_jsi_method array_methods[] = {
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
    { "join", sluice_jsi_array_join },
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

static jcomp array_is_array(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(ARG(0).t == JV_ARR);
    return SLUICE_JSI_NORMAL;
}

static jcomp array_from(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv src = ARG(0), fn = ARG(1);
    jarr *r = sluice_jsi_arr_new(in, 0);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    bool coll = false;
    if (sluice_jsi_coll_items(in, src, r, &coll) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    if (coll) {
        /* a Map's entries, a Set's values, an iterator's rest: collected above */
    } else if (src.t == JV_ARR || src.t == JV_STR) {
        jv items = jv_arr(r);
        jv spread_args[1] = { src };
        jcomp rc = arr_concat(in, jv_arr(r), spread_args, src.t == JV_ARR ? 1 : 0, &items);
        if (rc != SLUICE_JSI_NORMAL)
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
                if (sluice_jsi_ret_units(in, src.u.s->u + i, w, &c) != SLUICE_JSI_NORMAL ||
                    sluice_jsi_arr_push(in, r, c) != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
                i += w - 1;
            }
        }
    } else if (src.t == JV_OBJ) {
        sluice_js_str *lk = sluice_jsi_str_ascii(in, "length");
        if (lk == NULL)
            return SLUICE_JSI_FATAL;
        jv *lv = sluice_jsi_obj_get(src.u.o, lk);
        double d = lv != NULL ? sluice_jsi_to_number(*lv) : 0;
        if (isnan(d) || d < 0)
            d = 0;
        if (d > 10000000)
            return sluice_jsi_throw(in, "RangeError", "Invalid array length");
        for (size_t i = 0; i < (size_t)d; i++) {
            if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL ||
                sluice_jsi_arr_push(in, r, jv_undef()) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        }
    } else if (src.t == JV_UNDEF || src.t == JV_NULL) {
        return sluice_jsi_throw(in, "TypeError", "%s is not iterable",
                                src.t == JV_NULL ? "null" : "undefined");
    }
    if (fn.t == JV_FUNC) {
        for (size_t i = 0; i < r->len; i++) {
            jv a[2] = { r->v[i], jv_num((double)i) }, v;
            jcomp rc = sluice_jsi_call(in, fn, jv_undef(), a, 2, &v);
            if (rc != SLUICE_JSI_NORMAL)
                return rc;
            r->v[i] = v;
        }
    } else if (fn.t != JV_UNDEF) {
        return sluice_jsi_throw(in, "TypeError", "%s is not a function", sluice_jsi_typeof(fn));
    }
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

static jcomp array_of(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jarr *r = sluice_jsi_arr_new(in, argc);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < argc; i++)
        r->v[r->len++] = args[i];
    *out = jv_arr(r);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_array_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    if (sluice_js_str_eq_ascii(key, "length")) {
        *out = jv_num((double)self.u.a->len);
        return SLUICE_JSI_NORMAL;
    }
    return sluice_jsi_find_method(in, array_methods, COUNT(array_methods), self, key, out);
}

jcomp sluice_jsi_open_array(interp *in, env *global)
{
    jobj *array = sluice_jsi_namespace(in, global, "Array");
    if (array == NULL ||
        sluice_jsi_set_fn(in, array, "isArray", array_is_array, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_set_fn(in, array, "from", array_from, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_set_fn(in, array, "of", array_of, 0) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}
