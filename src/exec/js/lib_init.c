/*
 * lib_init.c — the plan language's built-in libraries put together, as Lua's linit.c: finds the
 * member of a value in the library that owns its kind, installs every library's globals, and
 * holds the helpers the libraries share (lib.h).
 *
 * Owns: member dispatch by value kind, the order of installation, the `args` global.
 * Does not own: what a built-in does (lib_*.c, capability.c, collections.c, date.c).
 */
#include "exec/js/lib.h"

#include <math.h>
#include <string.h>

jv sluice_jsi_native(interp *in, native_fn fn, jv self, const char *name)
{
    jfunc *f = sluice_jsi_alloc(in, sizeof *f);
    if (f == NULL)
        return jv_undef();
    memset(f, 0, sizeof *f);
    f->native = fn;
    f->self = self;
    f->name = name;
    jv v = { .t = JV_FUNC, .u.f = f };
    return v;
}

jcomp sluice_jsi_ret_ascii(interp *in, const char *s, jv *out)
{
    sluice_js_str *r = sluice_jsi_str_ascii(in, s);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(r);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_ret_units(interp *in, const uint16_t *u, size_t n, jv *out)
{
    sluice_js_str *r = sluice_jsi_str_units(in, u, n);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    *out = jv_str(r);
    return SLUICE_JSI_NORMAL;
}

size_t sluice_jsi_rel_index(jv v, size_t len, size_t dflt)
{
    if (v.t == JV_UNDEF)
        return dflt;
    double d = sluice_jsi_to_number(v);
    if (isnan(d))
        d = 0;
    d = trunc(d);
    if (d < 0)
        d = d + (double)len < 0 ? 0 : d + (double)len;
    return d > (double)len ? len : (size_t)d;
}

jcomp sluice_jsi_find_method(
    interp *in, const sluice_jsi_method *m, size_t n, jv self, const sluice_js_str *key, jv *out)
{
    for (size_t i = 0; i < n; i++)
        if (sluice_js_str_eq_ascii(key, m[i].name)) {
            *out = sluice_jsi_native(in, m[i].fn, self, m[i].name);
            return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
        }
    *out = jv_undef();
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_builtin_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    switch (self.t) {
    case JV_ARR:
        return sluice_jsi_array_member(in, self, key, out);
    case JV_STR:
        return sluice_jsi_string_member(in, self, key, out);
    case JV_NUM:
        return sluice_jsi_number_member(in, self, key, out);
    case JV_PROMISE:
        return sluice_jsi_promise_member(in, self, key, out);
    case JV_OBJ:
        if (self.u.o->coll != NULL || self.u.o->iter != NULL)
            return sluice_jsi_coll_member(in, self, key, out);
        if (self.u.o->is_date)
            return sluice_jsi_date_member(in, self, key, out);
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    case JV_FUNC:
        /* Number.isInteger, String.fromCharCode: statics of a callable namespace */
        if (self.u.f->native != NULL && self.u.f->self.t == JV_OBJ) {
            jv *v = sluice_jsi_obj_get(self.u.f->self.u.o, key);
            *out = v != NULL ? *v : jv_undef();
            return SLUICE_JSI_NORMAL;
        }
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    default:
        *out = jv_undef();
        return SLUICE_JSI_NORMAL;
    }
}

/* --- installation -------------------------------------------------------------------------- */

jcomp sluice_jsi_set_fn(interp *in, jobj *o, const char *name, native_fn fn, double tag)
{
    sluice_js_str *k = sluice_jsi_str_ascii(in, name);
    jv f = k != NULL ? sluice_jsi_native(in, fn, jv_num(tag), name) : jv_undef();
    return f.t == JV_UNDEF ? SLUICE_JSI_FATAL : sluice_jsi_obj_set(in, o, k, f);
}

jcomp sluice_jsi_set_num(interp *in, jobj *o, const char *name, double v)
{
    sluice_js_str *k = sluice_jsi_str_ascii(in, name);
    return k == NULL ? SLUICE_JSI_FATAL : sluice_jsi_obj_set(in, o, k, jv_num(v));
}

jcomp sluice_jsi_define(interp *in, env *global, const char *name, jv v)
{
    binding *b = sluice_jsi_alloc(in, sizeof *b);
    sluice_js_str *k = sluice_jsi_str_ascii(in, name);
    if (b == NULL || k == NULL)
        return SLUICE_JSI_FATAL;
    b->name = k;
    b->v = v;
    b->konst = true;
    b->ready = true;
    b->next = global->first;
    global->first = b;
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_define_fn(interp *in, env *global, const char *name, native_fn fn, double tag)
{
    jv f = sluice_jsi_native(in, fn, jv_num(tag), name);
    return f.t == JV_UNDEF ? SLUICE_JSI_FATAL : sluice_jsi_define(in, global, name, f);
}

jobj *sluice_jsi_namespace(interp *in, env *global, const char *name)
{
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL || sluice_jsi_define(in, global, name, jv_obj(o)) != SLUICE_JSI_NORMAL)
        return NULL;
    return o;
}

/* args: the plan's input variables (an empty object when it has none). */
static jcomp open_args(interp *in, env *global)
{
    jv args = jv_undef();
    if (in->opts.args != NULL) {
        if (sluice_jsi_from_args(in, in->opts.args, &args) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    } else {
        jobj *empty = sluice_jsi_obj_new(in);
        if (empty == NULL)
            return SLUICE_JSI_FATAL;
        args = jv_obj(empty);
    }
    return sluice_jsi_define(in, global, "args", args);
}

jcomp sluice_jsi_install_globals(interp *in, env *global)
{
    static jcomp (*const opens[])(interp *, env *) = {
        sluice_jsi_open_object_json, sluice_jsi_open_array,      sluice_jsi_open_number_math,
        sluice_jsi_open_promise,     sluice_jsi_open_base,       sluice_jsi_open_string,
        sluice_jsi_open_date,        sluice_jsi_open_capability, open_args,
    };
    for (size_t i = 0; i < COUNT(opens); i++)
        if (opens[i](in, global) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}
