/*
 * lib_base.c — the plan language's base library, as Lua's lbaselib.c: console.log, instanceof, the
 * Error constructors and Boolean().
 *
 * Owns: the log lines a plan writes (capped at 100), the error objects a plan makes.
 * Does not own: throwing (interp.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jcomp boolean_ctor(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)self;
    *out = jv_bool(sluice_jsi_truthy(ARG(0)));
    return SLUICE_JSI_NORMAL;
}

static jcomp console_log(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    *out = jv_undef();
    if (json_array_size(in->res->logs) >= 100)
        return SLUICE_JSI_NORMAL; /* capped: the rest is dropped */
    sluice_buf b;
    sluice_buf_init(&b, in->out_arena, 4096);
    if (in->tainting) {
        jtaint t = 0;
        for (size_t i = 0; i < argc && t == 0; i++)
            t = sluice_jsi_taint_deep(in, args[i]);
        bool redact;
        if (sluice_jsi_taint_leave(in, t, "console.log", &redact) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        if (redact) {
            sluice_buf_printf(&b, "(redacted: the line was %s)", sluice_jsi_taint_text(in, t));
            argc = 0;
        }
    }
    for (size_t i = 0; i < argc; i++) {
        if (i > 0)
            sluice_buf_putc(&b, ' ');
        if (args[i].t == JV_STR) {
            char *u8 = sluice_js_str_utf8(in->arena, args[i].u.s);
            if (u8 == NULL)
                return sluice_jsi_nomem(in);
            sluice_buf_puts(&b, u8);
        } else {
            bool undef;
            size_t before = b.len;
            jcomp rc = sluice_jsi_json_stringify(in, args[i], NULL, &b, &undef);
            if (rc == SLUICE_JSI_FATAL)
                return rc;
            if (rc != SLUICE_JSI_NORMAL || undef) {
                b.len = before;
                sluice_buf_puts(&b, "undefined");
            }
        }
    }
    json_t *line = json_string(sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b)
                                                                  : "(log line too long)");
    if (line == NULL || json_array_append_new(in->res->logs, line) != 0)
        return sluice_jsi_nomem(in);
    return SLUICE_JSI_NORMAL;
}

/* The built-in error types; each constructor's receiver tag is its index. */
static const char *const error_names[] = { "Error", "TypeError", "RangeError", "SyntaxError",
                                           "ReferenceError" };

static jcomp error_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    const sluice_js_str *msg = ARG(0).t == JV_UNDEF ? sluice_jsi_str_units(in, NULL, 0)
                                                    : sluice_jsi_to_string(in, args[0]);
    if (msg == NULL)
        return SLUICE_JSI_FATAL;
    *out = sluice_jsi_make_error(in, error_names[(size_t)self.u.n], msg);
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

/* Map and Set are constructed by name (interp.c construct); as values they exist for typeof
 * and instanceof, and calling one without new throws as in JavaScript. */
static jcomp collection_fn(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    (void)out;
    return sluice_jsi_throw(in, "TypeError", "Constructor %s requires 'new'",
                            self.u.n == 0 ? "Map" : "Set");
}

/* The constructors instanceof knows, each a global binding of that name. */
static const char *const constructors[] = {
    "Object", "Array",   "Date",  "Promise",   "Map",        "Set",         "Number",
    "String", "Boolean", "Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError"
};

/* Which built-in constructor c is (by identity with its global binding), or NULL. */
static const char *constructor_name(interp *in, jv c)
{
    if (c.t != JV_FUNC && c.t != JV_OBJ)
        return NULL;
    for (const binding *b = in->global->first; b != NULL; b = b->next) {
        if (b->v.t != c.t || b->v.u.o != c.u.o)
            continue;
        for (size_t i = 0; i < COUNT(constructors); i++)
            if (sluice_js_str_eq_ascii(b->name, constructors[i]))
                return constructors[i];
    }
    return NULL;
}

static bool is_instance(jv a, const char *ctor)
{
    if (a.t != JV_ARR && a.t != JV_OBJ && a.t != JV_FUNC && a.t != JV_PROMISE)
        return false; /* primitives: plans have no wrapper objects (new Number is refused) */
    const jobj *o = a.t == JV_OBJ ? a.u.o : NULL;
    if (strcmp(ctor, "Object") == 0)
        return true;
    if (strcmp(ctor, "Array") == 0)
        return a.t == JV_ARR;
    if (strcmp(ctor, "Promise") == 0)
        return a.t == JV_PROMISE;
    if (strcmp(ctor, "Date") == 0)
        return o != NULL && o->is_date;
    if (strcmp(ctor, "Map") == 0 || strcmp(ctor, "Set") == 0)
        return o != NULL && o->coll != NULL && sluice_jsi_coll_is_set(o) == (ctor[0] == 'S');
    if (o == NULL || !o->is_error)
        return false;
    return strcmp(ctor, "Error") == 0 || strcmp(ctor, o->err_class) == 0;
}

jcomp sluice_jsi_instance_of(interp *in, jv a, jv c, jv *out)
{
    const char *ctor = constructor_name(in, c);
    if (ctor != NULL) {
        *out = jv_bool(is_instance(a, ctor));
        return SLUICE_JSI_NORMAL;
    }
    if (c.t != JV_FUNC)
        return sluice_jsi_throw(in, "TypeError", "Right-hand side of 'instanceof' is not callable");
    /* a plan's function declaration or expression has a prototype that nothing the plan makes
     * inherits (plans cannot `new` it); arrows, async functions and built-in methods have none,
     * which JavaScript reports only when it has an object to test */
    const sluice_js_node *fn = c.u.f->node;
    bool has_prototype = fn != NULL && !(fn->flags & (SLUICE_JS_F_ARROW | SLUICE_JS_F_ASYNC));
    bool object = a.t == JV_ARR || a.t == JV_OBJ || a.t == JV_FUNC || a.t == JV_PROMISE;
    if (object && !has_prototype)
        return sluice_jsi_throw(
            in, "TypeError", "Function has non-object prototype 'undefined' in instanceof check");
    *out = jv_bool(false);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_open_base(interp *in, env *global)
{
    jobj *console = sluice_jsi_namespace(in, global, "console");
    if (console == NULL ||
        sluice_jsi_set_fn(in, console, "log", console_log, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_define_fn(in, global, "Boolean", boolean_ctor, 0) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < COUNT(error_names); i++)
        if (sluice_jsi_define_fn(in, global, error_names[i], error_fn, (double)i) !=
            SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    if (sluice_jsi_define_fn(in, global, "Map", collection_fn, 0) != SLUICE_JSI_NORMAL ||
        sluice_jsi_define_fn(in, global, "Set", collection_fn, 1) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}
