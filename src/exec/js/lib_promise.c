/*
 * lib_promise.c — the plan language's Promise library: then/catch and Promise.all, allSettled,
 * resolve and reject over promises that are settled or are upstream calls in flight.
 *
 * Owns: settling order (every call is in flight before any is waited for).
 * Does not own: the calls in flight themselves (capability.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jv sluice_jsi_promise_settled(interp *in, bool rejected, jv v)
{
    if (!rejected && v.t == JV_PROMISE)
        return v; /* adopt: resolving with a promise takes its state */
    jpromise *p = sluice_jsi_alloc(in, sizeof *p);
    if (p == NULL)
        return jv_undef();
    memset(p, 0, sizeof *p);
    p->rejected = rejected;
    p->v = v;
    jv r = { .t = JV_PROMISE, .u.p = p };
    return r;
}

static jcomp promise_then(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jpromise *p = self.u.p;
    int src = sluice_jsi_settle(in, p);
    if (src != SLUICE_JSI_NORMAL)
        return src;
    jv handler = p->rejected ? ARG(1) : ARG(0);
    if (handler.t != JV_FUNC) {
        *out = self;
        return SLUICE_JSI_NORMAL;
    }
    jv r;
    jcomp rc = sluice_jsi_call(in, handler, jv_undef(), &p->v, 1, &r);
    if (rc == SLUICE_JSI_THROW) {
        *out = sluice_jsi_promise_settled(in, true, in->thrown);
        return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
    }
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    *out = sluice_jsi_promise_settled(in, false, r);
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

static jcomp promise_catch(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv both[2] = { jv_undef(), ARG(0) };
    return promise_then(in, self, both, 2, out);
}

static const sluice_jsi_method promise_methods[] = {
    { "then", promise_then },
    { "catch", promise_catch },
};

static jcomp promise_all_kind(interp *in, const jv *args, size_t argc, jv *out, int settled_kind)
{
    jv list = ARG(0);
    if (list.t != JV_ARR)
        return sluice_jsi_throw(in, "TypeError", "%s is not iterable", sluice_jsi_typeof(list));
    jarr *r = sluice_jsi_arr_new(in, list.u.a->len);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    /* every call is already in flight: waiting for them in order takes as long as the slowest */
    for (size_t i = 0; i < list.u.a->len; i++)
        if (list.u.a->v[i].t == JV_PROMISE &&
            sluice_jsi_settle(in, list.u.a->v[i].u.p) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < list.u.a->len; i++) {
        jv v = list.u.a->v[i];
        bool rejected = v.t == JV_PROMISE && v.u.p->rejected;
        jv value = v.t == JV_PROMISE ? v.u.p->v : v;
        if (!settled_kind) {
            if (rejected) {
                *out = sluice_jsi_promise_settled(in, true, value);
                return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
            }
            r->v[r->len++] = value;
            continue;
        }
        jobj *o = sluice_jsi_obj_new(in);
        sluice_js_str *status = sluice_jsi_str_ascii(in, rejected ? "rejected" : "fulfilled");
        sluice_js_str *key = sluice_jsi_str_ascii(in, rejected ? "reason" : "value");
        sluice_js_str *sk = sluice_jsi_str_ascii(in, "status");
        if (o == NULL || status == NULL || key == NULL || sk == NULL ||
            sluice_jsi_obj_set(in, o, sk, jv_str(status)) != SLUICE_JSI_NORMAL ||
            sluice_jsi_obj_set(in, o, key, value) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        r->v[r->len++] = jv_obj(o);
    }
    *out = sluice_jsi_promise_settled(in, false, jv_arr(r));
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

static jcomp promise_all(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return promise_all_kind(in, args, argc, out, 0);
}
static jcomp promise_all_settled(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return promise_all_kind(in, args, argc, out, 1);
}
static jcomp promise_resolve(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = sluice_jsi_promise_settled(in, false, ARG(0));
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}
static jcomp promise_reject(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = sluice_jsi_promise_settled(in, true, ARG(0));
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_promise_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    return sluice_jsi_find_method(in, promise_methods, COUNT(promise_methods), self, key, out);
}

static const sluice_jsi_method promise_statics[] = {
    { "all", promise_all },
    { "allSettled", promise_all_settled },
    { "resolve", promise_resolve },
    { "reject", promise_reject },
};

jcomp sluice_jsi_open_promise(interp *in, env *global)
{
    jobj *promise = sluice_jsi_namespace(in, global, "Promise");
    if (promise == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < COUNT(promise_statics); i++)
        if (sluice_jsi_set_fn(in, promise, promise_statics[i].name, promise_statics[i].fn, 0) !=
            SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}
