/*
 * lib.h — what the plan language's built-in libraries share, as Lua's lauxlib.h serves its
 * lstrlib/ltablib: the argument macro, method tables, result helpers, the helpers that install a
 * library's globals, and each library's entry points (open: install its globals; member: the
 * methods of a value it owns). Internal to exec/js/.
 *
 * Libraries (one concept each): lib_init.c (dispatch of members, installation),
 * lib_base.c (console, Error, Boolean), lib_array.c, lib_string.c, lib_number_math.c,
 * lib_object_json.c, lib_promise.c, capability.c (the `api` and `mcp` objects), collections.c
 * (Map, Set), date.c (Date).
 */
#ifndef SLUICE_EXEC_JS_LIB_H
#define SLUICE_EXEC_JS_LIB_H

#include "exec/js/value.h"

#include <stddef.h>

/* The i-th argument of a built-in, undefined past the last (as JavaScript passes them). */
#define ARG(i)   ((i) < argc ? args[(i)] : jv_undef())
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One method of a value kind: its name and the built-in that implements it. */
typedef struct sluice_jsi_method {
    const char *name;
    native_fn fn;
} sluice_jsi_method;

/* *out = the method of m named key bound to self, or undefined. SLUICE_JSI_NORMAL or
 * SLUICE_JSI_FATAL. */
jcomp sluice_jsi_find_method(
    interp *in, const sluice_jsi_method *m, size_t n, jv self, const sluice_js_str *key, jv *out);
/* *out = the string s (ASCII) or the units u[0..n). SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_ret_ascii(interp *in, const char *s, jv *out);
jcomp sluice_jsi_ret_units(interp *in, const uint16_t *u, size_t n, jv *out);
/* Relative index as slice/at/splice use it: negative counts from len, clamped to [0, len]. */
size_t sluice_jsi_rel_index(jv v, size_t len, size_t dflt);

/* --- installation: each SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL
 * ------------------------------------------------ */
/* o.name = a built-in whose receiver is the number tag (which entry of a family it is). */
jcomp sluice_jsi_set_fn(interp *in, jobj *o, const char *name, native_fn fn, double tag);
jcomp sluice_jsi_set_num(interp *in, jobj *o, const char *name, double v);
/* A constant global binding. */
jcomp sluice_jsi_define(interp *in, env *global, const char *name, jv v);
jcomp sluice_jsi_define_fn(interp *in, env *global, const char *name, native_fn fn, double tag);
/* A new namespace object bound as the global name. NULL on failure (SLUICE_JSI_FATAL recorded). */
jobj *sluice_jsi_namespace(interp *in, env *global, const char *name);

/* --- the libraries: open installs the globals, member finds a method (undefined if none) -- */
jcomp sluice_jsi_open_base(interp *in, env *global);
jcomp sluice_jsi_open_array(interp *in, env *global);
jcomp sluice_jsi_array_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* Array.prototype.join (String.prototype.concat joins its parts with it). */
jcomp sluice_jsi_array_join(interp *in, jv self, const jv *args, size_t argc, jv *out);
jcomp sluice_jsi_open_string(interp *in, env *global);
jcomp sluice_jsi_string_member(interp *in, jv self, const sluice_js_str *key, jv *out);
jcomp sluice_jsi_open_number_math(interp *in, env *global);
jcomp sluice_jsi_number_member(interp *in, jv self, const sluice_js_str *key, jv *out);
jcomp sluice_jsi_open_object_json(interp *in, env *global);
jcomp sluice_jsi_open_promise(interp *in, env *global);
jcomp sluice_jsi_promise_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* The `api` and `mcp` objects, when the host offers them (capability.c). */
jcomp sluice_jsi_open_capability(interp *in, env *global);
/* Date (date.c). */
jcomp sluice_jsi_open_date(interp *in, env *global);

#endif
