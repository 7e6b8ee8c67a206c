/*
 * lib_base.c — the plan language's base library, as Lua's lbaselib.c: console.log, the Error
 * constructors and Boolean().
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
    return SLUICE_JSI_NORMAL;
}
