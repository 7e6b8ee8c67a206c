/*
 * lib_object_json.c — the plan language's Object and JSON libraries: Object.keys/values/entries,
 * fromEntries, assign, hasOwn; JSON.stringify and JSON.parse.
 *
 * Owns: key enumeration order as these statics expose it, the refusal of a replacer.
 * Does not own: the JSON text itself (value.c) or property storage.
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends what Object.keys (kind 0), values (1) or entries (2) yields for key k holding v. */
static jcomp push_key_item(interp *in, jarr *r, int kind, const sluice_js_str *k, jv v)
{
    jv item = kind == 0 ? jv_str(k) : v;
    if (kind == 2) {
        jarr *pair = sluice_jsi_arr_new(in, 2);
        if (pair == NULL)
            return SLUICE_JSI_FATAL;
        pair->v[0] = jv_str(k);
        pair->v[1] = v;
        pair->len = 2;
        item = jv_arr(pair);
    }
    return sluice_jsi_arr_push(in, r, item);
}

static jcomp obj_keys_kind(interp *in, const jv *args, size_t argc, jv *out, int kind)
{
    jv o = ARG(0);
    jarr *r = sluice_jsi_arr_new(in, 0);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_arr(r);
    if (o.t == JV_UNDEF || o.t == JV_NULL)
        return sluice_jsi_throw(in, "TypeError", "Cannot convert undefined or null to object");
    if (o.t == JV_ARR || o.t == JV_STR) {
        size_t len = o.t == JV_ARR ? o.u.a->len : o.u.s->len;
        for (size_t i = 0; i < len; i++) {
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", i);
            sluice_js_str *k = sluice_jsi_str_ascii(in, idx);
            jv v = jv_undef();
            if (k == NULL)
                return SLUICE_JSI_FATAL;
            if (o.t == JV_ARR)
                v = o.u.a->v[i];
            else if (sluice_jsi_ret_units(in, o.u.s->u + i, 1, &v) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            if (push_key_item(in, r, kind, k, v) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        }
        return SLUICE_JSI_NORMAL;
    }
    if (o.t != JV_OBJ)
        return SLUICE_JSI_NORMAL;
    size_t n;
    const sluice_js_str **keys = sluice_jsi_obj_keys(in, o.u.o, &n);
    if (keys == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < n; i++) {
        jv v = *sluice_jsi_obj_get(o.u.o, keys[i]);
        v.taint = sluice_jsi_taint_read(in, sluice_jsi_taint_of(v)); /* out of its key: read */
        if (push_key_item(in, r, kind, keys[i], v) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp object_keys(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 0);
}
static jcomp object_values(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 1);
}
static jcomp object_entries(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return obj_keys_kind(in, args, argc, out, 2);
}

static jcomp object_from_entries(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv list = ARG(0);
    jarr *items = sluice_jsi_arr_new(in, 0);
    bool coll = false;
    if (items == NULL || sluice_jsi_coll_items(in, list, items, &coll) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    if (coll)
        list = jv_arr(items); /* Object.fromEntries(map) */
    if (list.t != JV_ARR)
        return sluice_jsi_throw(in, "TypeError", "%s is not iterable", sluice_jsi_typeof(list));
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < list.u.a->len; i++) {
        jv pair = list.u.a->v[i];
        if (pair.t != JV_ARR && pair.t != JV_OBJ)
            return sluice_jsi_throw(in, "TypeError", "Iterator value %s is not an entry object",
                                    sluice_jsi_typeof(pair));
        jv k = jv_undef(), v = jv_undef();
        if (pair.t == JV_ARR) {
            k = pair.u.a->len > 0 ? pair.u.a->v[0] : jv_undef();
            v = pair.u.a->len > 1 ? pair.u.a->v[1] : jv_undef();
        }
        const sluice_js_str *ks = sluice_jsi_to_key(in, k);
        if (ks == NULL)
            return SLUICE_JSI_FATAL;
        if (sluice_js_str_eq_ascii(ks, "__proto__"))
            return sluice_jsi_fatal(in, SLUICE_E_DENIED, "js_refused",
                                    "prototype access is refused at line %u", in->line);
        if (sluice_jsi_obj_set(in, o, ks, v) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

static jcomp object_assign(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    jv target = ARG(0);
    if (target.t != JV_OBJ)
        return sluice_jsi_throw(in, "TypeError", "plans assign into plain objects only");
    for (size_t i = 1; i < argc; i++) {
        if (args[i].t != JV_OBJ)
            continue;
        size_t n;
        const sluice_js_str **keys = sluice_jsi_obj_keys(in, args[i].u.o, &n);
        if (keys == NULL)
            return SLUICE_JSI_FATAL;
        for (size_t k = 0; k < n; k++)
            if (sluice_jsi_obj_set(in, target.u.o, keys[k],
                                   *sluice_jsi_obj_get(args[i].u.o, keys[k])) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
    }
    *out = target;
    return SLUICE_JSI_NORMAL;
}

static jcomp object_has_own(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *k = sluice_jsi_to_key(in, ARG(1));
    if (k == NULL)
        return SLUICE_JSI_FATAL;
    jv o = ARG(0);
    if (o.t == JV_UNDEF || o.t == JV_NULL)
        return sluice_jsi_throw(in, "TypeError", "Cannot convert undefined or null to object");
    int64_t idx = sluice_jsi_index_of_key(k);
    *out = jv_bool((o.t == JV_OBJ && sluice_jsi_obj_get(o.u.o, k) != NULL) ||
                   (o.t == JV_ARR && idx >= 0 && (size_t)idx < o.u.a->len));
    return SLUICE_JSI_NORMAL;
}

static jcomp json_stringify_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    if (ARG(1).t != JV_UNDEF && ARG(1).t != JV_NULL)
        return sluice_jsi_throw(in, "TypeError", "plans call JSON.stringify without a replacer");
    const sluice_js_str *indent = NULL;
    jv sp = ARG(2);
    if (sp.t == JV_NUM) {
        double d = sp.u.n > 10 ? 10 : sp.u.n;
        char spaces[11] = { 0 };
        for (int i = 0; i < (int)d; i++)
            spaces[i] = ' ';
        if (d >= 1 && (indent = sluice_jsi_str_ascii(in, spaces)) == NULL)
            return SLUICE_JSI_FATAL;
    } else if (sp.t == JV_STR && sp.u.s->len > 0) {
        sluice_js_str *t = sluice_jsi_str_units(in, sp.u.s->u, sp.u.s->len > 10 ? 10 : sp.u.s->len);
        if (t == NULL)
            return SLUICE_JSI_FATAL;
        indent = t;
    }
    sluice_buf b;
    sluice_buf_init(&b, in->arena, in->max_memory);
    bool undef;
    jcomp rc = sluice_jsi_json_stringify(in, ARG(0), indent, &b, &undef);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (undef) {
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    }
    sluice_js_str *s = sluice_js_str_from_utf8(in->arena, sluice_buf_cstr(&b), b.len);
    if (s == NULL)
        return sluice_jsi_nomem(in);
    *out = jv_str(s);
    return SLUICE_JSI_NORMAL;
}

static jcomp json_parse_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    const sluice_js_str *s = sluice_jsi_to_string(in, ARG(0));
    char *u8 = s != NULL ? sluice_js_str_utf8(in->arena, s) : NULL;
    if (u8 == NULL)
        return sluice_jsi_nomem(in);
    json_error_t jerr;
    json_t *j = json_loads(u8, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (j == NULL)
        return sluice_jsi_throw(in, "SyntaxError", "JSON.parse: %s at position %d", jerr.text,
                                jerr.position);
    jcomp rc = sluice_jsi_from_json(in, j, out);
    json_decref(j);
    return rc;
}

/* Object.is: SameValue (-0 is not 0, NaN is NaN). */
static jcomp object_is(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    jv a = ARG(0), b = ARG(1);
    bool zeros = a.t == JV_NUM && b.t == JV_NUM && a.u.n == 0 && b.u.n == 0;
    *out = jv_bool(zeros ? signbit(a.u.n) == signbit(b.u.n) : sluice_jsi_same_value_zero(a, b));
    return SLUICE_JSI_NORMAL;
}

static const sluice_jsi_method object_statics[] = {
    { "keys", object_keys },       { "values", object_values },
    { "entries", object_entries }, { "fromEntries", object_from_entries },
    { "assign", object_assign },   { "hasOwn", object_has_own },
    { "is", object_is },
};

jcomp sluice_jsi_open_object_json(interp *in, env *global)
{
    jobj *object = sluice_jsi_namespace(in, global, "Object");
    jobj *json = sluice_jsi_namespace(in, global, "JSON");
    if (object == NULL || json == NULL)
        return SLUICE_JSI_FATAL;
    bool failed = false;
    for (size_t i = 0; i < COUNT(object_statics); i++)
        failed |= sluice_jsi_set_fn(in, object, object_statics[i].name, object_statics[i].fn, 0) !=
                  SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, json, "stringify", json_stringify_fn, 0) != SLUICE_JSI_NORMAL;
    failed |= sluice_jsi_set_fn(in, json, "parse", json_parse_fn, 0) != SLUICE_JSI_NORMAL;
    return failed ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}
