/*
 * interp.c — the plan language's tree-walking evaluator (see interp.h).
 *
 * Owns: scopes and bindings (let/const with the temporal dead zone, function hoisting),
 * statements, expressions, destructuring, calls and closures, async functions and await over
 * settled promises, optional chains, the step/loop/memory/deadline checks, and the run entry.
 * Does not own: the built-in libraries (lib_*.c, capability.c), conversions (value.c), or any I/O
 * (the host).
 */
#include "exec/js/interp.h"

#include "core/limits.h"
#include "exec/js/value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static jcomp eval(interp *in, env *e, const sluice_js_node *n, jv *out);
static jcomp exec_stmt(interp *in, env *e, const sluice_js_node *n);
static jcomp exec_list(interp *in, env *e, sluice_js_node **list, size_t count);
static jcomp spread_into_array(interp *in, jarr *a, jv v);

/* Adds an evaluated element of an argument list or array literal to a: a spread's items one by
 * one, anything else as one value. */
static jcomp push_element(interp *in, jarr *a, const sluice_js_node *el, jv v)
{
    if (el->kind == SLUICE_JS_SPREAD)
        return spread_into_array(in, a, v);
    return sluice_jsi_arr_push(in, a, v) == SLUICE_JSI_NORMAL ? SLUICE_JSI_NORMAL
                                                              : SLUICE_JSI_FATAL;
}

/* --- limits -------------------------------------------------------------------------------- */

jcomp sluice_jsi_step(interp *in)
{
    if (in->fatal != SLUICE_OK)
        return SLUICE_JSI_FATAL;
    in->steps++;
    if (in->max_steps > 0 && in->steps > in->max_steps)
        return sluice_jsi_fatal(in, SLUICE_E_LIMIT, "max_steps",
                                "the plan ran %zu steps, past max_steps = %zu (line %u)", in->steps,
                                in->max_steps, in->line);
    if (in->deadline_ns > 0 && (in->steps & 255u) == 0 &&
        sluice_clock_monotonic_ns(in->opts.clock) > in->deadline_ns) {
        const char *setting =
            in->opts.limits.timeout_setting != NULL ? in->opts.limits.timeout_setting : "timeout";
        return sluice_jsi_fatal(in, SLUICE_E_TIMEOUT, setting,
                                "the plan ran past %s (%lld ms) at line %u", setting,
                                (long long)in->opts.limits.timeout_ms, in->line);
    }
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_loop_tick(interp *in)
{
    in->loops++;
    int64_t max = in->opts.limits.max_loop_iterations;
    if (max > 0 && (int64_t)in->loops > max)
        return sluice_jsi_fatal(
            in, SLUICE_E_LIMIT, "max_loop_iterations",
            "the plan's loops ran %zu iterations, past max_loop_iterations = %lld "
            "(line %u)",
            in->loops, (long long)max, in->line);
    return sluice_jsi_step(in);
}

/* --- scopes -------------------------------------------------------------------------------- */

static env *env_new(interp *in, env *parent)
{
    env *e = sluice_jsi_alloc(in, sizeof *e);
    if (e != NULL) {
        e->first = NULL;
        e->parent = parent;
    }
    return e;
}

static binding *env_own(env *e, const sluice_js_str *name)
{
    for (binding *b = e->first; b != NULL; b = b->next)
        if (sluice_js_str_eq(b->name, name))
            return b;
    return NULL;
}

static binding *env_lookup(env *e, const sluice_js_str *name)
{
    for (; e != NULL; e = e->parent) {
        binding *b = env_own(e, name);
        if (b != NULL)
            return b;
    }
    return NULL;
}

static jcomp name_error(interp *in, const char *kind, const sluice_js_str *name)
{
    char *u8 = sluice_js_str_utf8(in->arena, name);
    if (u8 == NULL)
        return sluice_jsi_nomem(in);
    if (strcmp(kind, "undefined") == 0)
        return sluice_jsi_throw(in, "ReferenceError", "%s is not defined", u8);
    if (strcmp(kind, "tdz") == 0)
        return sluice_jsi_throw(in, "ReferenceError", "Cannot access '%s' before initialization",
                                u8);
    if (strcmp(kind, "const") == 0)
        return sluice_jsi_throw(in, "TypeError", "Assignment to constant variable.");
    return sluice_jsi_throw(in, "SyntaxError", "Identifier '%s' has already been declared", u8);
}

static jcomp
declare(interp *in, env *e, const sluice_js_str *name, bool konst, bool ready, binding **out)
{
    binding *b = env_own(e, name);
    if (b != NULL)
        return name_error(in, "redeclared", name);
    b = sluice_jsi_alloc(in, sizeof *b);
    if (b == NULL)
        return SLUICE_JSI_FATAL;
    b->name = name;
    b->v = jv_undef();
    b->konst = konst;
    b->ready = ready;
    b->next = e->first;
    e->first = b;
    *out = b;
    return SLUICE_JSI_NORMAL;
}

/* Declares (without initializing) the let/const names of a block and hoists its functions, so
 * closures see later declarations and the dead zone throws as in JavaScript. */
static void
collect_names(const sluice_js_node *pat, const sluice_js_str **names, size_t *n, size_t cap)
{
    if (pat == NULL)
        return;
    switch (pat->kind) {
    case SLUICE_JS_IDENT:
        if (*n < cap)
            names[(*n)++] = pat->str;
        break;
    case SLUICE_JS_ASSIGN_PAT:
        collect_names(pat->a, names, n, cap);
        break;
    case SLUICE_JS_REST:
        collect_names(pat->a, names, n, cap);
        break;
    case SLUICE_JS_ARRAY_PAT:
        for (size_t i = 0; i < pat->n; i++)
            collect_names(pat->list[i], names, n, cap);
        break;
    case SLUICE_JS_OBJECT_PAT:
        for (size_t i = 0; i < pat->n; i++)
            collect_names(pat->list[i]->kind == SLUICE_JS_REST ? pat->list[i] : pat->list[i]->b,
                          names, n, cap);
        break;
    default:
        break;
    }
}

static jv make_closure(interp *in, env *e, const sluice_js_node *fn)
{
    jfunc *f = sluice_jsi_alloc(in, sizeof *f);
    if (f == NULL)
        return jv_undef();
    memset(f, 0, sizeof *f);
    f->node = fn;
    f->closure = e;
    jv v = { .t = JV_FUNC, .u.f = f };
    return v;
}

static jcomp hoist(interp *in, env *e, sluice_js_node **list, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const sluice_js_node *s = list[i];
        binding *b;
        if (s->kind == SLUICE_JS_VAR) {
            for (size_t d = 0; d < s->n; d++) {
                const sluice_js_str *names[64];
                size_t n = 0;
                collect_names(s->list[d]->a, names, &n, 64);
                for (size_t k = 0; k < n; k++) {
                    jcomp rc = declare(in, e, names[k], s->flags & SLUICE_JS_F_CONST, false, &b);
                    if (rc != SLUICE_JSI_NORMAL)
                        return rc;
                }
            }
        } else if (s->kind == SLUICE_JS_FUNC_DECL) {
            binding *old = env_own(e, s->a->str);
            if (old == NULL) {
                jcomp rc = declare(in, e, s->a->str, false, true, &b);
                if (rc != SLUICE_JSI_NORMAL)
                    return rc;
                old = b;
            }
            old->v = make_closure(in, e, s->a);
            if (old->v.t == JV_UNDEF)
                return SLUICE_JSI_FATAL;
        }
    }
    return SLUICE_JSI_NORMAL;
}

/* --- members ------------------------------------------------------------------------------- */

static jcomp nullish_read(interp *in, jv obj, const sluice_js_str *key)
{
    char *k = sluice_js_str_utf8(in->arena, key);
    if (k == NULL)
        return sluice_jsi_nomem(in);
    return sluice_jsi_throw(in, "TypeError", "Cannot read properties of %s (reading '%s')",
                            obj.t == JV_NULL ? "null" : "undefined", k);
}

static int refused_key(const sluice_js_str *k)
{
    return sluice_js_str_eq_ascii(k, "__proto__") || sluice_js_str_eq_ascii(k, "constructor") ||
           sluice_js_str_eq_ascii(k, "prototype");
}

static jcomp get_member_raw(interp *in, jv obj, const sluice_js_str *key, jv *out);

/* The taint of a value used as a property key: a container becomes its whole text. */
static jtaint key_taint(interp *in, jv key)
{
    return key.t == JV_ARR || key.t == JV_OBJ ? sluice_jsi_taint_deep(in, key) : key.taint;
}

/* obj[key]: what it holds, joined with the taint of obj (a tainted container's every part is). */
static jcomp get_member(interp *in, jv obj, const sluice_js_str *key, jv *out)
{
    if (!in->tainting)
        return get_member_raw(in, obj, key, out);
    jtaint t = sluice_jsi_taint_of(obj);
    if (t != 0 && (obj.t == JV_UNDEF || obj.t == JV_NULL))
        sluice_jsi_taint_decide(in, t); /* whether it throws depends on a blocked field */
    jcomp rc = get_member_raw(in, obj, key, out);
    if (rc == SLUICE_JSI_NORMAL && t != 0) {
        out->taint = jt_join(out->taint, t);
        out->prov = 0;
    }
    if (rc == SLUICE_JSI_NORMAL && out->taint != 0) /* the line refuse names: this read */
        out->taint = sluice_jsi_taint_read(in, out->taint);
    return rc;
}

static jcomp get_member_raw(interp *in, jv obj, const sluice_js_str *key, jv *out)
{
    if (refused_key(key))
        return sluice_jsi_fatal(
            in, SLUICE_E_DENIED, "js_refused", "prototype access ('%s') is refused at line %u",
            sluice_js_str_eq_ascii(key, "__proto__") ? "__proto__" : "constructor", in->line);
    if (obj.t == JV_UNDEF || obj.t == JV_NULL)
        return nullish_read(in, obj, key);
    if (obj.t == JV_OBJ) {
        jv *v = sluice_jsi_obj_get(obj.u.o, key);
        if (v != NULL) {
            *out = *v;
            return SLUICE_JSI_NORMAL;
        }
        if (obj.u.o->is_error) {
            if (sluice_js_str_eq_ascii(key, "name")) {
                *out = obj.u.o->err_name;
                return SLUICE_JSI_NORMAL;
            }
            if (sluice_js_str_eq_ascii(key, "message")) {
                *out = obj.u.o->err_message;
                return SLUICE_JSI_NORMAL;
            }
        }
    }
    if (obj.t == JV_ARR) {
        int64_t idx = sluice_jsi_index_of_key(key);
        if (idx >= 0) {
            *out = (size_t)idx < obj.u.a->len ? obj.u.a->v[idx] : jv_undef();
            return SLUICE_JSI_NORMAL;
        }
    }
    if (obj.t == JV_STR) {
        int64_t idx = sluice_jsi_index_of_key(key);
        if (idx >= 0) {
            if ((size_t)idx >= obj.u.s->len) {
                *out = jv_undef();
                return SLUICE_JSI_NORMAL;
            }
            sluice_js_str *c = sluice_jsi_str_units(in, &obj.u.s->u[idx], 1);
            if (c == NULL)
                return SLUICE_JSI_FATAL;
            *out = jv_str(c);
            return SLUICE_JSI_NORMAL;
        }
    }
    return sluice_jsi_builtin_member(in, obj, key, out);
}

static jcomp get_member_v_raw(interp *in, jv obj, jv key, jv *out);

/* obj[key]. A value read through a computed key never counts as straight from a blocked field:
 * the === exception needs the field named in the plan, where validation saw it (lang/js). */
static jcomp get_member_v(interp *in, jv obj, jv key, jv *out)
{
    jtaint kt = in->tainting ? key_taint(in, key) : 0;
    if (kt != 0) { /* which part was read depends on a blocked field */
        obj.taint = jt_join(obj.taint, kt);
        key.taint = 0;
    }
    jcomp rc = get_member_v_raw(in, obj, key, out);
    out->prov = 0;
    return rc;
}

static jcomp get_member_v_raw(interp *in, jv obj, jv key, jv *out)
{
    if (obj.t == JV_ARR && key.t == JV_NUM && !in->tainting) {
        double d = key.u.n;
        if (d >= 0 && d == floor(d) && d < 4294967295.0) {
            size_t i = (size_t)d;
            *out = i < obj.u.a->len ? obj.u.a->v[i] : jv_undef();
            return SLUICE_JSI_NORMAL;
        }
    }
    const sluice_js_str *k = sluice_jsi_to_key(in, key);
    if (k == NULL)
        return SLUICE_JSI_FATAL;
    return get_member(in, obj, k, out);
}

static jcomp set_member(interp *in, jv obj, jv key, jv v)
{
    if (in->tainting)
        sluice_jsi_taint_mark(&obj, key_taint(in, key));
    const sluice_js_str *k = sluice_jsi_to_key(in, key);
    if (k == NULL)
        return SLUICE_JSI_FATAL;
    if (refused_key(k))
        return sluice_jsi_fatal(in, SLUICE_E_DENIED, "js_refused",
                                "prototype access is refused at line %u", in->line);
    if (obj.t == JV_UNDEF || obj.t == JV_NULL) {
        char *u8 = sluice_js_str_utf8(in->arena, k);
        return u8 == NULL
                   ? sluice_jsi_nomem(in)
                   : sluice_jsi_throw(in, "TypeError", "Cannot set properties of %s (setting '%s')",
                                      obj.t == JV_NULL ? "null" : "undefined", u8);
    }
    if (obj.t == JV_ARR) {
        jarr *a = obj.u.a;
        int64_t idx = sluice_jsi_index_of_key(k);
        if (idx >= 0) {
            if ((size_t)idx > a->len + 1000000u)
                return sluice_jsi_throw(in, "RangeError",
                                        "array index %lld is too far past the end", (long long)idx);
            while (a->len <= (size_t)idx)
                if (sluice_jsi_arr_push(in, a, jv_undef()) != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
            a->v[idx] = v;
            return SLUICE_JSI_NORMAL;
        }
        if (sluice_js_str_eq_ascii(k, "length")) {
            double d = sluice_jsi_to_number(v);
            if (!(d >= 0 && d == floor(d) && d < 4294967296.0))
                return sluice_jsi_throw(in, "RangeError", "Invalid array length");
            size_t len = (size_t)d;
            while (a->len < len)
                if (sluice_jsi_arr_push(in, a, jv_undef()) != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
            a->len = len;
            return SLUICE_JSI_NORMAL;
        }
        return sluice_jsi_throw(in, "TypeError", "plans cannot add named properties to arrays");
    }
    if (obj.t == JV_OBJ) {
        if (obj.u.o->is_error &&
            (sluice_js_str_eq_ascii(k, "message") || sluice_js_str_eq_ascii(k, "name"))) {
            if (sluice_js_str_eq_ascii(k, "message"))
                obj.u.o->err_message = v;
            else
                obj.u.o->err_name = v;
            return SLUICE_JSI_NORMAL;
        }
        return sluice_jsi_obj_set(in, obj.u.o, k, v);
    }
    return SLUICE_JSI_NORMAL; /* primitives: silently ignored, as in sloppy and module code alike */
}

/* --- calls --------------------------------------------------------------------------------- */

static jcomp bind_pattern(interp *in, env *e, const sluice_js_node *pat, jv v, int declare_kind);

enum { BIND_ASSIGN = 0, BIND_LET = 1, BIND_CONST = 2 };

static jcomp call_closure(interp *in, jfunc *f, const jv *args, size_t argc, jv *out)
{
    const sluice_js_node *fn = f->node;
    if (in->depth >= SLUICE_LIMIT_JS_CALL_DEPTH)
        return sluice_jsi_limit_error(in, "max_call_depth",
                                      "the plan's functions nest too many calls deep",
                                      SLUICE_LIMIT_JS_CALL_DEPTH);
    env *scope = env_new(in, f->closure);
    if (scope == NULL)
        return SLUICE_JSI_FATAL;
    in->depth++;
    jcomp rc = SLUICE_JSI_NORMAL;
    for (size_t i = 0; i < fn->n && rc == SLUICE_JSI_NORMAL; i++) {
        const sluice_js_node *p = fn->list[i];
        if (p->kind == SLUICE_JS_REST) {
            jarr *rest = sluice_jsi_arr_new(in, argc > i ? argc - i : 0);
            if (rest == NULL) {
                rc = SLUICE_JSI_FATAL;
                break;
            }
            for (size_t k = i; k < argc; k++)
                rest->v[rest->len++] = args[k];
            rc = bind_pattern(in, scope, p->a, jv_arr(rest), BIND_LET);
        } else {
            rc = bind_pattern(in, scope, p, i < argc ? args[i] : jv_undef(), BIND_LET);
        }
    }
    jv result = jv_undef();
    if (rc == SLUICE_JSI_NORMAL) {
        if (fn->flags & SLUICE_JS_F_EXPR_BODY) {
            rc = eval(in, scope, fn->a, &result);
        } else {
            env *body = env_new(in, scope);
            rc = body == NULL ? SLUICE_JSI_FATAL : hoist(in, body, fn->a->list, fn->a->n);
            if (rc == SLUICE_JSI_NORMAL)
                rc = exec_list(in, body, fn->a->list, fn->a->n);
            if (rc == SLUICE_JSI_RETURN) {
                result = in->ret;
                rc = SLUICE_JSI_NORMAL;
            }
        }
    }
    in->depth--;
    if (fn->flags & SLUICE_JS_F_ASYNC) {
        if (rc == SLUICE_JSI_NORMAL || rc == SLUICE_JSI_THROW) {
            *out = sluice_jsi_promise_settled(in, rc == SLUICE_JSI_THROW,
                                              rc == SLUICE_JSI_THROW ? in->thrown : result);
            return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
        }
        return rc;
    }
    if (rc == SLUICE_JSI_NORMAL)
        *out = result;
    return rc;
}

/* A method whose arguments decide its receiver's shape: a Map's or Set's size (keys dedupe by
 * value), splice's and fill's positions. Pushing a tainted value does not: the value carries it. */
static bool changes_shape(const jfunc *f)
{
    jv self = f->self;
    if (self.t == JV_OBJ)
        return self.u.o->coll != NULL;
    return self.t == JV_ARR && f->name != NULL &&
           (strcmp(f->name, "splice") == 0 || strcmp(f->name, "fill") == 0);
}

/* A built-in whose result holds its inputs' whole content where no label can follow it: as
 * text (JSON.stringify, join, String(), concat, toString) or as object keys (fromEntries), or
 * is decided by an argument's text (normalize's form, localeCompare's other string: an array
 * argument reads as its elements joined). */
static bool stringifies(const jfunc *f)
{
    static const char *const names[] = { "stringify", "join",        "String",        "concat",
                                         "toString",  "fromEntries", "localeCompare", "normalize" };
    for (size_t i = 0; f->name != NULL && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f->name, names[i]) == 0)
            return true;
    return false;
}

/* A built-in that takes an array or object argument only as a reference: it stores it, calls
 * it, or settles with it, so the labels of what it holds travel with it. Any other built-in may
 * convert an argument to text or a number, and that reads an array's elements (Math.max([x]),
 * Number([x]), a string method's [x] argument), so there an argument counts by its content. A
 * string's methods convert every argument. */
static bool takes_references(const jfunc *f)
{
    static const char *const names[] = {
        "push",        "unshift",    "splice", "map",   "filter",    "forEach",  "reduce",
        "reduceRight", "some",       "every",  "find",  "findIndex", "findLast", "findLastIndex",
        "flatMap",     "sort",       "then",   "catch", "finally",   "resolve",  "reject",
        "all",         "allSettled", "race",   "any",   "keys",      "values",   "entries",
        "assign",      "freeze",     "from",   "of",    "set",       "add",      "get",
        "has",         "delete",     "post",   "put",   "patch",     "call",     "isArray",
        "log",         "info",       "warn",   "error", "debug"
    };
    if (f->self.t == JV_STR || f->name == NULL)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f->name, names[i]) == 0)
            return true;
    return false;
}

/* A built-in over tainted data: its result (and what it returns by reference, a receiver it
 * changed) takes the taint of its receiver, its arguments and what its callbacks answered; a
 * callback's tainted answer decided what the built-in did (filter, find, sort), and an error
 * it throws says something of its inputs. */
static jcomp call_native_tainted(interp *in, jv fn, const jv *args, size_t argc, jv *out)
{
    jfunc *f = fn.u.f;
    bool whole = stringifies(f);
    jtaint t = jt_join(fn.taint,
                       whole ? sluice_jsi_taint_deep(in, f->self) : sluice_jsi_taint_of(f->self));
    bool by_content = whole || !takes_references(f);
    for (size_t i = 0; i < argc; i++)
        t = jt_join(t,
                    by_content ? sluice_jsi_taint_deep(in, args[i]) : sluice_jsi_taint_of(args[i]));
    jtaint saved = in->callback_taint;
    in->callback_taint = 0;
    in->lookup = false;
    jcomp rc = f->native(in, f->self, args, argc, out);
    if (in->lookup) { /* a capability call that passed a blocked field (capability.c) */
        in->lookup = false;
        in->steered = true;
        in->res->steered = true;
        t = fn.taint;
    }
    jtaint cb = in->callback_taint;
    in->callback_taint = saved;
    sluice_jsi_taint_decide(in, cb);
    t = jt_join(t, cb);
    if (whole) /* it read every field it was given, here */
        t = sluice_jsi_taint_read(in, t);
    if (rc == SLUICE_JSI_NORMAL) {
        out->prov = 0;
        sluice_jsi_taint_mark(out, t);
        if (t != 0 && changes_shape(f)) {
            jv self = f->self; /* the receiver's shape now depends on the inputs */
            sluice_jsi_taint_mark(&self, t);
        }
    } else if (rc == SLUICE_JSI_THROW) {
        sluice_jsi_taint_mark(&in->thrown, t);
    }
    return rc;
}

jcomp sluice_jsi_call(interp *in, jv fn, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    if (fn.t != JV_FUNC)
        return sluice_jsi_throw(in, "TypeError", "%s is not a function", sluice_jsi_typeof(fn));
    jcomp rc = sluice_jsi_step(in);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    jfunc *f = fn.u.f;
    if (f->native != NULL && in->tainting)
        return call_native_tainted(in, fn, args, argc, out);
    if (f->native != NULL)
        return f->native(in, f->self, args, argc, out);
    rc = call_closure(in, f, args, argc, out);
    if (rc == SLUICE_JSI_NORMAL && in->tainting)
        in->callback_taint = jt_join(in->callback_taint, sluice_jsi_taint_of(*out));
    return rc;
}

/* Evaluates call arguments (spreads expanded) into a fresh array. */
/* An api call's path as it is evaluated, part by part (sluice_js_call.path_parts): literal
 * text at even indexes, hole values at odd ones; count is always odd. */
typedef struct path_acc {
    const char **parts; /* sized by path_holes: 2 * holes + 1 */
    size_t count;
} path_acc;

static size_t path_holes(const sluice_js_node *n);
static jcomp eval_path(interp *in, env *e, const sluice_js_node *n, jv *out, path_acc *acc);

/* path: NULL, or where the first argument (an api call's path) is captured part by part. */
static jcomp
eval_args(interp *in, env *e, const sluice_js_node *call, jv **args, size_t *argc, path_acc *path)
{
    jarr *a = sluice_jsi_arr_new(in, call->n);
    if (a == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < call->n; i++) {
        const sluice_js_node *arg = call->list[i];
        jv v;
        jcomp rc = i == 0 && path != NULL
                       ? eval_path(in, e, arg, &v, path)
                       : eval(in, e, arg->kind == SLUICE_JS_SPREAD ? arg->a : arg, &v);
        if (rc != SLUICE_JSI_NORMAL || (rc = push_element(in, a, arg, v)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    *args = a->v;
    *argc = a->len;
    return SLUICE_JSI_NORMAL;
}

static jcomp callee_name_error(interp *in, const sluice_js_node *callee)
{
    const char *what = "expression";
    if (callee->kind == SLUICE_JS_IDENT ||
        (callee->kind == SLUICE_JS_MEMBER && !(callee->flags & SLUICE_JS_F_COMPUTED)))
        what = sluice_js_str_utf8(in->arena,
                                  callee->kind == SLUICE_JS_IDENT ? callee->str : callee->b->str);
    if (what == NULL)
        return sluice_jsi_nomem(in);
    return sluice_jsi_throw(in, "TypeError", "%s is not a function", what);
}

/* member := object ('.' name | '?.' name | '[' key ']'): the object into *self and the member
 * into *out; SHORT when an optional chain meets undefined or null. A member read and a method
 * call (which keeps the object as `this`) both evaluate one this way. */
static jcomp member_of(interp *in, env *e, const sluice_js_node *n, jv *self, jv *out)
{
    jcomp rc = eval(in, e, n->a, self);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if ((n->flags & SLUICE_JS_F_OPTIONAL) && (self->t == JV_UNDEF || self->t == JV_NULL))
        return SLUICE_JSI_SHORT;
    if (n->flags & SLUICE_JS_F_COMPUTED) {
        jv key;
        if ((rc = eval(in, e, n->b, &key)) != SLUICE_JSI_NORMAL)
            return rc;
        return get_member_v(in, *self, key, out);
    }
    return get_member(in, *self, n->b->str, out);
}

static jcomp eval_call(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv fn, self = jv_undef();
    const sluice_js_node *callee = n->a;
    jcomp rc = callee->kind == SLUICE_JS_MEMBER ? member_of(in, e, callee, &self, &fn)
                                                : eval(in, e, callee, &fn);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if ((n->flags & SLUICE_JS_F_OPTIONAL) && (fn.t == JV_UNDEF || fn.t == JV_NULL))
        return SLUICE_JSI_SHORT;
    jv *args;
    size_t argc;
    /* an api call's path is captured as written, so the host matches it to the template
     * validate approved here and each ${...} value fills only its own parameter */
    path_acc path = { 0 };
    size_t holes = sluice_jsi_is_api_verb(fn) && n->n > 0 ? path_holes(n->list[0]) : SIZE_MAX;
    if (holes != SIZE_MAX) {
        path.parts = sluice_jsi_alloc(in, (2 * holes + 1) * sizeof *path.parts);
        if (path.parts == NULL)
            return SLUICE_JSI_FATAL;
        path.parts[path.count++] = "";
    }
    if ((rc = eval_args(in, e, n, &args, &argc, path.parts != NULL ? &path : NULL)) !=
        SLUICE_JSI_NORMAL)
        return rc;
    if (fn.t != JV_FUNC)
        return callee_name_error(in, callee);
    uint32_t line = in->line;
    in->site_parts = path.parts;
    in->site_part_count = path.count;
    rc = sluice_jsi_call(in, fn, self, args, argc, out);
    in->line = line;
    return rc;
}

/* --- patterns ------------------------------------------------------------------------------ */

static jcomp assign_ident(interp *in, env *e, const sluice_js_str *name, jv v, int kind)
{
    binding *b = kind == BIND_ASSIGN ? env_lookup(e, name) : env_own(e, name);
    if (b == NULL && kind != BIND_ASSIGN) {
        jcomp rc = declare(in, e, name, kind == BIND_CONST, true, &b);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    }
    if (b == NULL)
        return name_error(in, "undefined", name);
    if (kind == BIND_ASSIGN) {
        if (!b->ready)
            return name_error(in, "tdz", name);
        if (b->konst)
            return name_error(in, "const", name);
    }
    b->v = v;
    b->ready = true;
    return SLUICE_JSI_NORMAL;
}

/* x.k or x[k] as a target: the object and key are evaluated first, then the write. */
static jcomp bind_member(interp *in, env *e, const sluice_js_node *pat, jv v)
{
    jv obj, key;
    jcomp rc;
    if ((rc = eval(in, e, pat->a, &obj)) != SLUICE_JSI_NORMAL)
        return rc;
    if (pat->flags & SLUICE_JS_F_COMPUTED) {
        if ((rc = eval(in, e, pat->b, &key)) != SLUICE_JSI_NORMAL)
            return rc;
    } else {
        key = jv_str(pat->b->str);
    }
    return set_member(in, obj, key, v);
}

/* [a, ...rest]: the rest element takes the items from index `from` on. */
static jcomp
bind_array_rest(interp *in, env *e, const sluice_js_node *el, jv v, size_t from, int kind)
{
    jarr *rest = sluice_jsi_arr_new(in, 0);
    if (rest == NULL)
        return SLUICE_JSI_FATAL;
    size_t len = v.t == JV_ARR ? v.u.a->len : v.u.s->len;
    for (size_t k = from; k < len; k++) {
        jv item;
        jcomp rc = get_member_v(in, v, jv_num((double)k), &item);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_arr_push(in, rest, item) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    return bind_pattern(in, e, el->a, jv_arr(rest), kind);
}

static jcomp bind_array_pattern(interp *in, env *e, const sluice_js_node *pat, jv v, int kind)
{
    jcomp rc;
    if (v.t != JV_ARR && v.t != JV_STR)
        return sluice_jsi_throw(in, "TypeError", "%s is not iterable",
                                v.t == JV_UNDEF  ? "undefined"
                                : v.t == JV_NULL ? "null"
                                                 : sluice_jsi_typeof(v));
    if (v.t == JV_STR) { /* strings destructure by code point, as they iterate */
        jarr *chars = sluice_jsi_arr_new(in, 0);
        if (chars == NULL)
            return SLUICE_JSI_FATAL;
        if ((rc = spread_into_array(in, chars, v)) != SLUICE_JSI_NORMAL)
            return rc;
        v = jv_arr(chars);
    }
    for (size_t i = 0; i < pat->n; i++) {
        const sluice_js_node *el = pat->list[i];
        if (el == NULL) /* a hole: the element is skipped */
            continue;
        if (el->kind == SLUICE_JS_REST)
            return bind_array_rest(in, e, el, v, i, kind);
        jv item;
        if ((rc = get_member_v(in, v, jv_num((double)i), &item)) != SLUICE_JSI_NORMAL)
            return rc;
        if ((rc = bind_pattern(in, e, el, item, kind)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

/* Copies the own properties of from into to, in from's key order, but for the keys in skip[]
 * (what {a, ...rest} named before its rest). */
static jcomp copy_own_properties(
    interp *in, jobj *to, const jobj *from, const sluice_js_str **skip, size_t nskip)
{
    size_t nk;
    const sluice_js_str **keys = sluice_jsi_obj_keys(in, from, &nk);
    if (keys == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t k = 0; k < nk; k++) {
        int skipped = 0;
        for (size_t u = 0; u < nskip; u++)
            skipped |= sluice_js_str_eq(skip[u], keys[k]);
        if (!skipped && sluice_jsi_obj_set(in, to, keys[k], *sluice_jsi_obj_get(from, keys[k])) !=
                            SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    return SLUICE_JSI_NORMAL;
}

/* {a, ...rest}: the rest element takes the own keys the pattern did not name (used[]). */
static jcomp bind_object_rest(interp *in,
                              env *e,
                              const sluice_js_node *pr,
                              jv v,
                              const sluice_js_str **used,
                              size_t nused,
                              int kind)
{
    jobj *rest = sluice_jsi_obj_new(in);
    if (rest == NULL)
        return SLUICE_JSI_FATAL;
    if (v.t == JV_OBJ && copy_own_properties(in, rest, v.u.o, used, nused) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    return bind_pattern(in, e, pr->a, jv_obj(rest), kind);
}

/* The key of one property, {key: value} in a literal or {key: target} in a pattern: computed,
 * numeric or a name; *key is the value it came from (a literal's key may carry taint). */
static jcomp
property_key(interp *in, env *e, const sluice_js_node *pr, jv *key, const sluice_js_str **out)
{
    if (pr->flags & SLUICE_JS_F_COMPUTED) {
        jcomp rc = eval(in, e, pr->a, key);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    } else if (pr->a->kind == SLUICE_JS_NUM) {
        *key = jv_num(pr->a->num);
    } else {
        *key = jv_str(pr->a->str);
    }
    *out = sluice_jsi_to_key(in, *key);
    return *out == NULL ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

static jcomp bind_object_pattern(interp *in, env *e, const sluice_js_node *pat, jv v, int kind)
{
    jcomp rc;
    if (v.t == JV_UNDEF || v.t == JV_NULL)
        return sluice_jsi_throw(in, "TypeError", "Cannot destructure '%s' as it is %s.",
                                v.t == JV_NULL ? "null" : "undefined",
                                v.t == JV_NULL ? "null" : "undefined");
    const sluice_js_str **used = sluice_jsi_alloc(in, (pat->n + 1) * sizeof *used);
    if (used == NULL)
        return SLUICE_JSI_FATAL;
    size_t nused = 0;
    for (size_t i = 0; i < pat->n; i++) {
        const sluice_js_node *pr = pat->list[i];
        if (pr->kind == SLUICE_JS_REST)
            return bind_object_rest(in, e, pr, v, used, nused, kind);
        jv key;
        const sluice_js_str *ks;
        if ((rc = property_key(in, e, pr, &key, &ks)) != SLUICE_JSI_NORMAL)
            return rc;
        used[nused++] = ks;
        jv item;
        if ((rc = get_member(in, v, ks, &item)) != SLUICE_JSI_NORMAL)
            return rc;
        if ((rc = bind_pattern(in, e, pr->b, item, kind)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp bind_pattern(interp *in, env *e, const sluice_js_node *pat, jv v, int kind)
{
    jcomp rc;
    switch (pat->kind) {
    case SLUICE_JS_IDENT:
        return assign_ident(in, e, pat->str, v, kind);
    case SLUICE_JS_MEMBER:
        return bind_member(in, e, pat, v);
    case SLUICE_JS_ASSIGN_PAT:
        if (v.t == JV_UNDEF && (rc = eval(in, e, pat->b, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        return bind_pattern(in, e, pat->a, v, kind);
    case SLUICE_JS_ARRAY_PAT:
        return bind_array_pattern(in, e, pat, v, kind);
    case SLUICE_JS_OBJECT_PAT:
        return bind_object_pattern(in, e, pat, v, kind);
    default:
        return sluice_jsi_throw(in, "SyntaxError", "Invalid destructuring assignment target");
    }
}

/* --- operators ----------------------------------------------------------------------------- */

static int32_t to_int32(double d)
{
    if (!isfinite(d))
        return 0;
    d = trunc(d);
    d = fmod(d, 4294967296.0);
    if (d < 0)
        d += 4294967296.0;
    uint32_t u = (uint32_t)d;
    return (int32_t)u;
}

static int is_primitive_string_like(jv v)
{
    return v.t == JV_STR || v.t == JV_ARR || v.t == JV_OBJ || v.t == JV_FUNC || v.t == JV_PROMISE;
}

/* a + b when either side converts to a string: concatenation, bounded like every string. */
static jcomp concat(interp *in, jv a, jv b, jv *out)
{
    const sluice_js_str *sa = sluice_jsi_to_string(in, a),
                        *sb = sa ? sluice_jsi_to_string(in, b) : NULL;
    if (sb == NULL)
        return SLUICE_JSI_FATAL;
    sluice_js_str *r = sluice_jsi_str_units(in, NULL, 0);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    if (sa->len + sb->len > SLUICE_LIMIT_JS_STRING_UNITS)
        return sluice_jsi_limit_error(in, "max_memory_bytes", "a string has too many characters",
                                      SLUICE_LIMIT_JS_STRING_UNITS);
    r = sluice_jsi_alloc(in, sizeof *r + (sa->len + sb->len + 1) * 2);
    if (r == NULL)
        return SLUICE_JSI_FATAL;
    r->len = sa->len + sb->len;
    memcpy(r->u, sa->u, sa->len * 2);
    memcpy(r->u + sa->len, sb->u, sb->len * 2);
    *out = jv_str(r);
    return SLUICE_JSI_NORMAL;
}

/* ToPrimitive for a relational operand: a Date compares by its time value, arrays and other
 * objects by their string form. */
static jcomp relational_operand(interp *in, jv *v)
{
    if (v->t == JV_OBJ && v->u.o->is_date)
        *v = jv_num(v->u.o->time);
    if (v->t == JV_ARR || v->t == JV_OBJ) {
        const sluice_js_str *s = sluice_jsi_to_string(in, *v);
        if (s == NULL)
            return SLUICE_JSI_FATAL;
        *v = jv_str(s);
    }
    return SLUICE_JSI_NORMAL;
}

/* < > <= >=: two strings compare by code units, anything else as numbers. */
static jcomp relational(interp *in, sluice_js_op op, jv a, jv b, jv *out)
{
    if (relational_operand(in, &a) != SLUICE_JSI_NORMAL ||
        relational_operand(in, &b) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    int r;
    if (a.t == JV_STR && b.t == JV_STR) {
        int c = sluice_jsi_str_cmp(a.u.s, b.u.s);
        r = op == SLUICE_JS_OP_LT   ? c < 0
            : op == SLUICE_JS_OP_GT ? c > 0
            : op == SLUICE_JS_OP_LE ? c <= 0
                                    : c >= 0;
    } else {
        double x = sluice_jsi_to_number(a), y = sluice_jsi_to_number(b);
        r = op == SLUICE_JS_OP_LT   ? x < y
            : op == SLUICE_JS_OP_GT ? x > y
            : op == SLUICE_JS_OP_LE ? x <= y
                                    : x >= y;
    }
    *out = jv_bool(r);
    return SLUICE_JSI_NORMAL;
}

/* & | ^ << >> >>> on the operands' 32-bit integer forms. */
static double bitwise(sluice_js_op op, double x, double y)
{
    int32_t a = to_int32(x);
    uint32_t shift = (uint32_t)to_int32(y) & 31;
    switch (op) {
    case SLUICE_JS_OP_BITAND:
        return a & to_int32(y);
    case SLUICE_JS_OP_BITOR:
        return a | to_int32(y);
    case SLUICE_JS_OP_BITXOR:
        return a ^ to_int32(y);
    case SLUICE_JS_OP_SHL:
        return (int32_t)((uint32_t)a << shift);
    case SLUICE_JS_OP_SHR:
        return a >> shift;
    default: /* SLUICE_JS_OP_USHR */
        return (uint32_t)a >> shift;
    }
}

/* key in b: an own key of an object (an error's name and message count), an index or length
 * of an array. */
static jcomp in_operator(interp *in, jv a, jv b, jv *out)
{
    if (b.t != JV_OBJ && b.t != JV_ARR)
        return sluice_jsi_throw(in, "TypeError",
                                "Cannot use 'in' operator to search for a key in %s",
                                sluice_jsi_typeof(b));
    const sluice_js_str *k = sluice_jsi_to_key(in, a);
    if (k == NULL)
        return SLUICE_JSI_FATAL;
    if (b.t == JV_OBJ) {
        *out = jv_bool(sluice_jsi_obj_get(b.u.o, k) != NULL ||
                       (b.u.o->is_error && (sluice_js_str_eq_ascii(k, "name") ||
                                            sluice_js_str_eq_ascii(k, "message"))));
    } else {
        int64_t idx = sluice_jsi_index_of_key(k);
        *out =
            jv_bool((idx >= 0 && (size_t)idx < b.u.a->len) || sluice_js_str_eq_ascii(k, "length"));
    }
    return SLUICE_JSI_NORMAL;
}

/* + - * / % ** on numbers (a + b only when neither side converts to a string). */
static double arithmetic(sluice_js_op op, double x, double y)
{
    switch (op) {
    case SLUICE_JS_OP_ADD:
        return x + y;
    case SLUICE_JS_OP_SUB:
        return x - y;
    case SLUICE_JS_OP_MUL:
        return x * y;
    case SLUICE_JS_OP_DIV:
        return x / y;
    case SLUICE_JS_OP_MOD:
        return fmod(x, y);
    default: /* SLUICE_JS_OP_EXP. JavaScript: 1 ** NaN and (±1) ** ±Infinity are NaN (C's pow says
                1) */
        return (isnan(y) || (fabs(x) == 1 && isinf(y))) ? NAN : pow(x, y);
    }
}

static jcomp binary(interp *in, sluice_js_op op, jv a, jv b, jv *out)
{
    if (op == SLUICE_JS_OP_ADD && (is_primitive_string_like(a) || is_primitive_string_like(b)))
        return concat(in, a, b, out);
    switch (op) {
    case SLUICE_JS_OP_ADD:
    case SLUICE_JS_OP_SUB:
    case SLUICE_JS_OP_MUL:
    case SLUICE_JS_OP_DIV:
    case SLUICE_JS_OP_MOD:
    case SLUICE_JS_OP_EXP:
        *out = jv_num(arithmetic(op, sluice_jsi_to_number(a), sluice_jsi_to_number(b)));
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_SEQ:
        *out = jv_bool(sluice_jsi_strict_equals(a, b));
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_SNE:
        *out = jv_bool(!sluice_jsi_strict_equals(a, b));
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_EQ:
        *out = jv_bool(sluice_jsi_loose_equals(in, a, b));
        return in->fatal ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_NE:
        *out = jv_bool(!sluice_jsi_loose_equals(in, a, b));
        return in->fatal ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_LT:
    case SLUICE_JS_OP_GT:
    case SLUICE_JS_OP_LE:
    case SLUICE_JS_OP_GE:
        return relational(in, op, a, b, out);
    case SLUICE_JS_OP_BITAND:
    case SLUICE_JS_OP_BITOR:
    case SLUICE_JS_OP_BITXOR:
    case SLUICE_JS_OP_SHL:
    case SLUICE_JS_OP_SHR:
    case SLUICE_JS_OP_USHR:
        *out = jv_num(bitwise(op, sluice_jsi_to_number(a), sluice_jsi_to_number(b)));
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_OP_IN:
        return in_operator(in, a, b, out);
    case SLUICE_JS_OP_INSTANCEOF:
        return sluice_jsi_instance_of(in, a, b, out);
    default:
        return sluice_jsi_throw(in, "SyntaxError", "unknown operator");
    }
}

/* --- expressions --------------------------------------------------------------------------- */

/* binary(), then the result's taint: its operands' (a container's whole content when it
 * converts to a string or number), but for the === exception (taint.c). */
static jcomp binary_t(interp *in, sluice_js_op op, jv a, jv b, jv *out)
{
    jcomp rc = binary(in, op, a, b, out);
    out->prov = 0;
    if (!in->tainting || rc != SLUICE_JSI_NORMAL)
        return rc;
    jtaint t = sluice_jsi_taint_binary(in, op, a, b);
    /* instanceof reads only its operands' kinds: their own labels, not their contents' */
    if (t == 0 && op != SLUICE_JS_OP_SEQ && op != SLUICE_JS_OP_SNE && op != SLUICE_JS_OP_IN &&
        op != SLUICE_JS_OP_INSTANCEOF)
        t = jt_join(a.t == JV_ARR || a.t == JV_OBJ ? sluice_jsi_taint_deep(in, a) : 0,
                    b.t == JV_ARR || b.t == JV_OBJ ? sluice_jsi_taint_deep(in, b) : 0);
    if (t == 0 && op == SLUICE_JS_OP_IN)
        t = key_taint(in, a);
    out->taint = t;
    return SLUICE_JSI_NORMAL;
}

static jcomp eval_ident(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    binding *b = env_lookup(e, n->str);
    if (b == NULL) {
        if (sluice_js_str_eq_ascii(n->str, "undefined")) {
            *out = jv_undef();
            return SLUICE_JSI_NORMAL;
        }
        return name_error(in, "undefined", n->str);
    }
    if (!b->ready)
        return name_error(in, "tdz", n->str);
    *out = b->v;
    return SLUICE_JSI_NORMAL;
}

/* The ${...} holes of a path written as string and template literals joined by +, as the
 * front end folds it (lang/js analyze.c); SIZE_MAX when any part is computed. */
static size_t path_holes(const sluice_js_node *n)
{
    if (n->kind == SLUICE_JS_STR)
        return 0;
    if (n->kind == SLUICE_JS_TEMPLATE)
        return n->n / 2;
    if (n->kind != SLUICE_JS_BINARY || n->op != SLUICE_JS_OP_ADD)
        return SIZE_MAX;
    size_t l = path_holes(n->a), r = path_holes(n->b);
    return l == SIZE_MAX || r == SIZE_MAX ? SIZE_MAX : l + r;
}

static jcomp path_literal(interp *in, path_acc *acc, const sluice_js_str *s)
{
    const char *u = sluice_js_str_utf8(in->arena, s);
    const char *joined =
        u != NULL ? sluice_arena_printf(in->arena, "%s%s", acc->parts[acc->count - 1], u) : NULL;
    if (joined == NULL)
        return sluice_jsi_nomem(in);
    acc->parts[acc->count - 1] = joined;
    return SLUICE_JSI_NORMAL;
}

static jcomp path_hole(interp *in, path_acc *acc, jv v)
{
    const char *u = sluice_js_str_utf8(in->arena, v.u.s);
    if (u == NULL)
        return sluice_jsi_nomem(in);
    acc->parts[acc->count++] = u;
    acc->parts[acc->count++] = "";
    return SLUICE_JSI_NORMAL;
}

/* acc: NULL, or an api call's path being captured part by part. */
static jcomp eval_template(interp *in, env *e, const sluice_js_node *n, jv *out, path_acc *acc)
{
    jv acc_v = jv_str(n->list[0]->str);
    jcomp rc;
    if (acc != NULL && (rc = path_literal(in, acc, n->list[0]->str)) != SLUICE_JSI_NORMAL)
        return rc;
    for (size_t i = 1; i + 1 < n->n; i += 2) {
        jv v;
        rc = eval(in, e, n->list[i], &v);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
        jv orig = v;
        if (v.t == JV_FUNC || v.t == JV_PROMISE || v.t == JV_OBJ || v.t == JV_ARR ||
            v.t != JV_STR) {
            const sluice_js_str *s = sluice_jsi_to_string(in, v);
            if (s == NULL)
                return SLUICE_JSI_FATAL;
            v = jv_str(s);
        }
        if (in->tainting && v.t == JV_STR && v.taint == 0)
            v.taint = sluice_jsi_taint_deep(in, orig);
        if (acc != NULL && ((rc = path_hole(in, acc, v)) != SLUICE_JSI_NORMAL ||
                            (rc = path_literal(in, acc, n->list[i + 1]->str)) != SLUICE_JSI_NORMAL))
            return rc;
        if ((rc = binary_t(in, SLUICE_JS_OP_ADD, acc_v, v, &acc_v)) != SLUICE_JSI_NORMAL)
            return rc;
        if ((rc = binary_t(in, SLUICE_JS_OP_ADD, acc_v, jv_str(n->list[i + 1]->str), &acc_v)) !=
            SLUICE_JSI_NORMAL)
            return rc;
    }
    *out = acc_v;
    return SLUICE_JSI_NORMAL;
}

/* Evaluates an api call's path n (path_holes(n) != SIZE_MAX) as eval would, capturing its
 * parts into acc. */
static jcomp eval_path(interp *in, env *e, const sluice_js_node *n, jv *out, path_acc *acc)
{
    jcomp rc = sluice_jsi_step(in);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    in->line = n->line;
    if (n->kind == SLUICE_JS_STR) {
        *out = jv_str(n->str);
        return path_literal(in, acc, n->str);
    }
    if (n->kind == SLUICE_JS_TEMPLATE)
        return eval_template(in, e, n, out, acc);
    jv l, r;
    if ((rc = eval_path(in, e, n->a, &l, acc)) != SLUICE_JSI_NORMAL ||
        (rc = eval_path(in, e, n->b, &r, acc)) != SLUICE_JSI_NORMAL)
        return rc;
    return binary_t(in, SLUICE_JS_OP_ADD, l, r, out);
}

static jcomp spread_into_array_raw(interp *in, jarr *a, jv v);

/* ...v into a: each element takes v's taint (a tainted string's characters, a tainted
 * array's elements). */
static jcomp spread_into_array(interp *in, jarr *a, jv v)
{
    size_t from = a->len;
    jcomp rc = spread_into_array_raw(in, a, v);
    jtaint t = in->tainting ? sluice_jsi_taint_of(v) : 0;
    for (size_t i = from; t != 0 && rc == SLUICE_JSI_NORMAL && i < a->len; i++)
        a->v[i].taint = jt_join(a->v[i].taint, t);
    return rc;
}

static jcomp spread_into_array_raw(interp *in, jarr *a, jv v)
{
    bool coll = false;
    int crc = sluice_jsi_coll_items(in, v, a, &coll);
    if (coll || crc != SLUICE_JSI_NORMAL)
        return crc;
    if (v.t == JV_ARR) {
        for (size_t k = 0; k < v.u.a->len; k++)
            if (sluice_jsi_arr_push(in, a, v.u.a->v[k]) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        return SLUICE_JSI_NORMAL;
    }
    if (v.t == JV_STR) {
        for (size_t k = 0; k < v.u.s->len; k++) {
            size_t w = (v.u.s->u[k] >= 0xD800 && v.u.s->u[k] <= 0xDBFF && k + 1 < v.u.s->len &&
                        v.u.s->u[k + 1] >= 0xDC00 && v.u.s->u[k + 1] <= 0xDFFF)
                           ? 2
                           : 1;
            sluice_js_str *c = sluice_jsi_str_units(in, &v.u.s->u[k], w);
            if (c == NULL || sluice_jsi_arr_push(in, a, jv_str(c)) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            k += w - 1;
        }
        return SLUICE_JSI_NORMAL;
    }
    return sluice_jsi_throw(in, "TypeError", "%s is not iterable",
                            v.t == JV_UNDEF  ? "undefined"
                            : v.t == JV_NULL ? "null"
                                             : sluice_jsi_typeof(v));
}

static jcomp eval_array(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jarr *a = sluice_jsi_arr_new(in, n->n);
    if (a == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < n->n; i++) {
        const sluice_js_node *el = n->list[i];
        jv v;
        jcomp rc = eval(in, e, el->kind == SLUICE_JS_SPREAD ? el->a : el, &v);
        if (rc != SLUICE_JSI_NORMAL || (rc = push_element(in, a, el, v)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    *out = jv_arr(a);
    return SLUICE_JSI_NORMAL;
}

static jcomp spread_into_object(interp *in, jobj *o, jv v)
{
    if (in->tainting)
        o->taint = jt_join(o->taint, sluice_jsi_taint_of(v));
    if (v.t == JV_OBJ) {
        if (copy_own_properties(in, o, v.u.o, NULL, 0) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    } else if (v.t == JV_ARR || v.t == JV_STR) {
        size_t len = v.t == JV_ARR ? v.u.a->len : v.u.s->len;
        for (size_t k = 0; k < len; k++) {
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", k);
            sluice_js_str *ks = sluice_jsi_str_ascii(in, idx);
            jv item;
            if (ks == NULL || get_member(in, v, ks, &item) != SLUICE_JSI_NORMAL ||
                sluice_jsi_obj_set(in, o, ks, item) != SLUICE_JSI_NORMAL)
                return in->fatal ? SLUICE_JSI_FATAL : SLUICE_JSI_THROW;
        }
    }
    return SLUICE_JSI_NORMAL; /* null, undefined and other primitives spread nothing */
}

static jcomp eval_object(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < n->n; i++) {
        const sluice_js_node *pr = n->list[i];
        jv v;
        jcomp rc;
        if (pr->kind == SLUICE_JS_SPREAD) {
            if ((rc = eval(in, e, pr->a, &v)) != SLUICE_JSI_NORMAL)
                return rc;
            if ((rc = spread_into_object(in, o, v)) != SLUICE_JSI_NORMAL)
                return rc;
            continue;
        }
        jv key;
        const sluice_js_str *ks;
        if ((rc = property_key(in, e, pr, &key, &ks)) != SLUICE_JSI_NORMAL)
            return rc;
        if (refused_key(ks))
            return sluice_jsi_fatal(in, SLUICE_E_DENIED, "js_refused",
                                    "prototype access is refused at line %u", in->line);
        if (pr->b->kind == SLUICE_JS_ASSIGN_PAT)
            return sluice_jsi_throw(in, "SyntaxError", "Invalid shorthand property initializer");
        if ((rc = eval(in, e, pr->b, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_obj_set(in, o, ks, v) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        if (in->tainting) /* a key made from a blocked field is data too */
            o->taint = jt_join(o->taint, key_taint(in, key));
    }
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

static jcomp eval_member(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv obj;
    return member_of(in, e, n, &obj, out);
}

/* A member target's object and key, in that order (delete, assignment, compound assignment and
 * update): a computed key as evaluated, `.name` as written. */
static jcomp member_target(interp *in, env *e, const sluice_js_node *m, jv *obj, jv *key)
{
    jcomp rc = eval(in, e, m->a, obj);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (m->flags & SLUICE_JS_F_COMPUTED)
        return eval(in, e, m->b, key);
    *key = jv_str(m->b->str);
    return SLUICE_JSI_NORMAL;
}

static jcomp eval_unary(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv v;
    jcomp rc;
    if (n->op == SLUICE_JS_OP_TYPEOF && n->a->kind == SLUICE_JS_IDENT) {
        binding *b = env_lookup(e, n->a->str);
        if (b == NULL) {
            *out = jv_str(sluice_jsi_str_ascii(in, "undefined"));
            return out->u.s != NULL ? SLUICE_JSI_NORMAL : SLUICE_JSI_FATAL;
        }
    }
    if (n->op == SLUICE_JS_OP_DELETE) {
        jv obj, key;
        if ((rc = member_target(in, e, n->a, &obj, &key)) != SLUICE_JSI_NORMAL)
            return rc;
        const sluice_js_str *k = sluice_jsi_to_key(in, key);
        if (k == NULL)
            return SLUICE_JSI_FATAL;
        if (in->tainting)
            sluice_jsi_taint_mark(&obj, key_taint(in, key));
        if (obj.t == JV_OBJ)
            sluice_jsi_obj_delete(obj.u.o, k);
        else if (obj.t == JV_ARR && sluice_jsi_index_of_key(k) >= 0 &&
                 (size_t)sluice_jsi_index_of_key(k) < obj.u.a->len)
            return sluice_jsi_throw(in, "TypeError",
                                    "plans cannot delete array elements; use splice");
        else if (obj.t == JV_UNDEF || obj.t == JV_NULL)
            return sluice_jsi_throw(in, "TypeError", "Cannot convert undefined or null to object");
        *out = jv_bool(1);
        return SLUICE_JSI_NORMAL;
    }
    if ((rc = eval(in, e, n->a, &v)) != SLUICE_JSI_NORMAL)
        return rc;
    switch (n->op) {
    case SLUICE_JS_OP_NOT:
        *out = jv_bool(!sluice_jsi_truthy(v));
        break;
    case SLUICE_JS_OP_NEG:
        *out = jv_num(-sluice_jsi_to_number(v));
        break;
    case SLUICE_JS_OP_PLUS:
        *out = jv_num(sluice_jsi_to_number(v));
        break;
    case SLUICE_JS_OP_BITNOT:
        *out = jv_num(~to_int32(sluice_jsi_to_number(v)));
        break;
    case SLUICE_JS_OP_VOID:
        *out = jv_undef();
        break;
    case SLUICE_JS_OP_TYPEOF: {
        sluice_js_str *s = sluice_jsi_str_ascii(in, sluice_jsi_typeof(v));
        if (s == NULL)
            return SLUICE_JSI_FATAL;
        *out = jv_str(s);
        break;
    }
    default:
        return sluice_jsi_throw(in, "SyntaxError", "unknown unary operator");
    }
    if (in->tainting)
        out->taint = v.t == JV_ARR || v.t == JV_OBJ ? sluice_jsi_taint_deep(in, v) : v.taint;
    return SLUICE_JSI_NORMAL;
}

/* Reads a simple target (name or property) for compound assignment and updates. */
static jcomp read_target(interp *in, env *e, const sluice_js_node *t, jv *obj, jv *key, jv *cur)
{
    jcomp rc;
    if (t->kind == SLUICE_JS_IDENT)
        return eval_ident(in, e, t, cur);
    if ((rc = member_target(in, e, t, obj, key)) != SLUICE_JSI_NORMAL)
        return rc;
    return get_member_v(in, *obj, *key, cur);
}

static jcomp write_target(interp *in, env *e, const sluice_js_node *t, jv obj, jv key, jv v)
{
    if (t->kind == SLUICE_JS_IDENT)
        return assign_ident(in, e, t->str, v, BIND_ASSIGN);
    return set_member(in, obj, key, v);
}

static jcomp eval_update(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv obj = jv_undef(), key = jv_undef(), cur;
    jcomp rc = read_target(in, e, n->a, &obj, &key, &cur);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    double old = sluice_jsi_to_number(cur);
    double nv = n->op == SLUICE_JS_OP_INC ? old + 1 : old - 1;
    if ((rc = write_target(in, e, n->a, obj, key, jv_num(nv))) != SLUICE_JSI_NORMAL)
        return rc;
    *out = jv_num((n->flags & SLUICE_JS_F_PREFIX) ? nv : old);
    return SLUICE_JSI_NORMAL;
}

/* Whether a && b, a || b or a ?? b (and &&=, ||=, ??=) keeps its left side a and leaves the
 * right one unrun. */
static bool keeps_left(sluice_js_op op, jv a)
{
    if (op == SLUICE_JS_OP_AND)
        return !sluice_jsi_truthy(a);
    if (op == SLUICE_JS_OP_OR)
        return sluice_jsi_truthy(a);
    return a.t != JV_UNDEF && a.t != JV_NULL;
}

/* Evaluates an operand that decides what runs next (a condition, the left side of a && b, the
 * collection a for-of walks): with taint tracking on, a decision on a blocked field taints the
 * rest of the run. */
static jcomp eval_decider(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jcomp rc = eval(in, e, n, out);
    if (rc == SLUICE_JSI_NORMAL && in->tainting)
        sluice_jsi_taint_decide(in, sluice_jsi_taint_of(*out));
    return rc;
}

static jcomp eval_assign(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv v;
    jcomp rc;
    if (n->op == SLUICE_JS_OP_ASSIGN) {
        if (n->a->kind == SLUICE_JS_MEMBER) { /* the target's object and key go first */
            jv obj, key;
            if ((rc = member_target(in, e, n->a, &obj, &key)) != SLUICE_JSI_NORMAL)
                return rc;
            if ((rc = eval(in, e, n->b, &v)) != SLUICE_JSI_NORMAL)
                return rc;
            if ((rc = set_member(in, obj, key, v)) != SLUICE_JSI_NORMAL)
                return rc;
            *out = v;
            return SLUICE_JSI_NORMAL;
        }
        if ((rc = eval(in, e, n->b, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if ((rc = bind_pattern(in, e, n->a, v, BIND_ASSIGN)) != SLUICE_JSI_NORMAL)
            return rc;
        *out = v;
        return SLUICE_JSI_NORMAL;
    }
    jv obj = jv_undef(), key = jv_undef(), cur;
    if ((rc = read_target(in, e, n->a, &obj, &key, &cur)) != SLUICE_JSI_NORMAL)
        return rc;
    if (n->op == SLUICE_JS_OP_AND || n->op == SLUICE_JS_OP_OR || n->op == SLUICE_JS_OP_NULLISH) {
        if (keeps_left((sluice_js_op)n->op, cur)) {
            *out = cur;
            return SLUICE_JSI_NORMAL;
        }
        if ((rc = eval(in, e, n->b, &v)) != SLUICE_JSI_NORMAL)
            return rc;
    } else {
        jv rhs;
        if ((rc = eval(in, e, n->b, &rhs)) != SLUICE_JSI_NORMAL)
            return rc;
        if ((rc = binary_t(in, (sluice_js_op)n->op, cur, rhs, &v)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    if ((rc = write_target(in, e, n->a, obj, key, v)) != SLUICE_JSI_NORMAL)
        return rc;
    *out = v;
    return SLUICE_JSI_NORMAL;
}

static jcomp construct(interp *in, env *e, const sluice_js_node *n, jv *args, size_t argc, jv *out);

/* new X(...): what it makes holds its arguments (an Error's message, a Set's members). */
static jcomp eval_new(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv *args;
    size_t argc;
    jcomp rc = eval_args(in, e, n, &args, &argc, NULL);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    rc = construct(in, e, n, args, argc, out);
    for (size_t i = 0; rc == SLUICE_JSI_NORMAL && in->tainting && i < argc; i++)
        sluice_jsi_taint_mark(out, sluice_jsi_taint_deep(in, args[i]));
    return rc;
}

static jcomp construct(interp *in, env *e, const sluice_js_node *n, jv *args, size_t argc, jv *out)
{
    const sluice_js_str *name = n->a->str;
    if (env_lookup(e, name) != NULL && env_lookup(e, name) != env_lookup(in->global, name))
        return sluice_jsi_throw(in, "TypeError", "plans construct only the built-in Error types");
    char *u8 = sluice_js_str_utf8(in->arena, name);
    if (u8 == NULL)
        return sluice_jsi_nomem(in);
    if (strcmp(u8, "Date") == 0)
        return sluice_jsi_date_construct(in, args, argc, out);
    if (strcmp(u8, "Map") == 0 || strcmp(u8, "Set") == 0)
        return sluice_jsi_coll_construct(in, u8[0] == 'S', args, argc, out);
    if (strstr(u8, "Error") == NULL)
        return sluice_jsi_throw(in, "TypeError", "%s is not supported as a constructor in plans",
                                u8);
    const sluice_js_str *msg = NULL;
    if (argc > 0 && args[0].t != JV_UNDEF) {
        msg = sluice_jsi_to_string(in, args[0]);
    } else {
        msg = sluice_jsi_str_units(in, NULL, 0);
    }
    if (msg == NULL)
        return SLUICE_JSI_FATAL;
    *out = sluice_jsi_make_error(in, u8, msg);
    return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
}

/* A literal: its value, marked as written in the plan (the === exception of taint.c). */
static jcomp eval_literal(const sluice_js_node *n, jv *out)
{
    switch (n->kind) {
    case SLUICE_JS_NUM:
        *out = jv_num(n->num);
        break;
    case SLUICE_JS_STR:
        *out = jv_str(n->str);
        break;
    case SLUICE_JS_TRUE:
    case SLUICE_JS_FALSE:
        *out = jv_bool(n->kind == SLUICE_JS_TRUE);
        break;
    default: /* SLUICE_JS_NULL */
        *out = jv_null();
        break;
    }
    out->prov = JV_PROV_LITERAL;
    return SLUICE_JSI_NORMAL;
}

static jcomp eval_binary(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv a, b;
    jcomp rc;
    if ((rc = eval(in, e, n->a, &a)) != SLUICE_JSI_NORMAL ||
        (rc = eval(in, e, n->b, &b)) != SLUICE_JSI_NORMAL)
        return rc;
    in->line = n->line;
    return binary_t(in, (sluice_js_op)n->op, a, b, out);
}

/* a && b, a || b, a ?? b: the left side decides whether the right one runs. */
static jcomp eval_logical(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv a;
    jcomp rc = eval_decider(in, e, n->a, &a);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (keeps_left((sluice_js_op)n->op, a)) {
        *out = a;
        return SLUICE_JSI_NORMAL;
    }
    return eval(in, e, n->b, out);
}

static jcomp eval_cond(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv a;
    jcomp rc = eval_decider(in, e, n->a, &a);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    return eval(in, e, sluice_jsi_truthy(a) ? n->b : n->c, out);
}

/* await x: a promise settles (its taint joins the value's or the thrown one's); anything else
 * is its own value. */
static jcomp eval_await(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jv a;
    jcomp rc = eval(in, e, n->a, &a);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (a.t == JV_PROMISE) {
        if ((rc = sluice_jsi_settle(in, a.u.p)) != SLUICE_JSI_NORMAL)
            return rc;
        jtaint t = a.taint;
        if (a.u.p->rejected) {
            in->thrown = a.u.p->v;
            sluice_jsi_taint_mark(&in->thrown, t);
            return SLUICE_JSI_THROW;
        }
        a = a.u.p->v;
        a.taint = jt_join(a.taint, t);
    }
    *out = a;
    return SLUICE_JSI_NORMAL;
}

static jcomp eval(interp *in, env *e, const sluice_js_node *n, jv *out)
{
    jcomp rc = sluice_jsi_step(in);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    in->line = n->line;
    switch (n->kind) {
    case SLUICE_JS_NUM:
    case SLUICE_JS_STR:
    case SLUICE_JS_TRUE:
    case SLUICE_JS_FALSE:
    case SLUICE_JS_NULL:
        return eval_literal(n, out);
    case SLUICE_JS_TEMPLATE:
        return eval_template(in, e, n, out, NULL);
    case SLUICE_JS_IDENT:
        return eval_ident(in, e, n, out);
    case SLUICE_JS_ARRAY:
        return eval_array(in, e, n, out);
    case SLUICE_JS_OBJECT:
        return eval_object(in, e, n, out);
    case SLUICE_JS_FUNC:
        *out = make_closure(in, e, n);
        return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
    case SLUICE_JS_CALL:
        return eval_call(in, e, n, out);
    case SLUICE_JS_NEW:
        return eval_new(in, e, n, out);
    case SLUICE_JS_MEMBER:
        return eval_member(in, e, n, out);
    case SLUICE_JS_CHAIN: /* a?.b: a short circuit inside the chain makes the whole chain undefined
                           */
        rc = eval(in, e, n->a, out);
        if (rc == SLUICE_JSI_SHORT) {
            *out = jv_undef();
            return SLUICE_JSI_NORMAL;
        }
        return rc;
    case SLUICE_JS_UNARY:
        return eval_unary(in, e, n, out);
    case SLUICE_JS_UPDATE:
        return eval_update(in, e, n, out);
    case SLUICE_JS_BINARY:
        return eval_binary(in, e, n, out);
    case SLUICE_JS_LOGICAL:
        return eval_logical(in, e, n, out);
    case SLUICE_JS_COND:
        return eval_cond(in, e, n, out);
    case SLUICE_JS_ASSIGN:
        return eval_assign(in, e, n, out);
    case SLUICE_JS_SEQ:
        for (size_t i = 0; i < n->n; i++)
            if ((rc = eval(in, e, n->list[i], out)) != SLUICE_JSI_NORMAL)
                return rc;
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_AWAIT:
        return eval_await(in, e, n, out);
    default:
        return sluice_jsi_throw(in, "SyntaxError", "unexpected syntax at line %u", n->line);
    }
}

/* --- statements ---------------------------------------------------------------------------- */

static jcomp exec_list(interp *in, env *e, sluice_js_node **list, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        jcomp rc = exec_stmt(in, e, list[i]);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp exec_block(interp *in, env *e, const sluice_js_node *blk)
{
    env *scope = env_new(in, e);
    if (scope == NULL)
        return SLUICE_JSI_FATAL;
    jcomp rc = hoist(in, scope, blk->list, blk->n);
    return rc != SLUICE_JSI_NORMAL ? rc : exec_list(in, scope, blk->list, blk->n);
}

static jcomp exec_var(interp *in, env *e, const sluice_js_node *n)
{
    for (size_t i = 0; i < n->n; i++) {
        const sluice_js_node *d = n->list[i];
        jv v = jv_undef();
        jcomp rc;
        if (d->b != NULL && (rc = eval(in, e, d->b, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        /* names were declared by hoist(); initialize them in this scope */
        const sluice_js_str *names[64];
        size_t count = 0;
        collect_names(d->a, names, &count, 64);
        for (size_t k = 0; k < count; k++) {
            binding *b = env_own(e, names[k]);
            if (b != NULL)
                b->konst = false; /* writable until initialized below */
        }
        if ((rc = bind_pattern(in, e, d->a, v, BIND_LET)) != SLUICE_JSI_NORMAL)
            return rc;
        for (size_t k = 0; k < count; k++) {
            binding *b = env_own(e, names[k]);
            if (b != NULL) {
                b->konst = (n->flags & SLUICE_JS_F_CONST) != 0;
                b->ready = true;
            }
        }
    }
    return SLUICE_JSI_NORMAL;
}

/* Whether a break/continue under way is this statement's: unlabelled, or naming one of its
 * labels (labels: the outermost SLUICE_JS_LABELED around it, or NULL). */
static bool jump_is_ours(interp *in, const sluice_js_node *labels)
{
    if (in->jump_label == NULL)
        return true;
    for (const sluice_js_node *l = labels; l != NULL && l->kind == SLUICE_JS_LABELED; l = l->a)
        if (sluice_js_str_eq(l->str, in->jump_label)) {
            in->jump_label = NULL;
            return true;
        }
    return false;
}

/* A loop body's completion: its own break/continue consumed, the rest passed on. */
static jcomp loop_result(interp *in, jcomp rc, const sluice_js_node *labels, bool *stop)
{
    *stop = false;
    if ((rc == SLUICE_JSI_BREAK || rc == SLUICE_JSI_CONTINUE) && jump_is_ours(in, labels)) {
        *stop = rc == SLUICE_JSI_BREAK;
        return SLUICE_JSI_NORMAL;
    }
    if (rc != SLUICE_JSI_NORMAL)
        *stop = true;
    return rc;
}

static jcomp exec_for(interp *in, env *e, const sluice_js_node *n, const sluice_js_node *labels)
{
    env *scope = env_new(in, e);
    if (scope == NULL)
        return SLUICE_JSI_FATAL;
    jcomp rc = SLUICE_JSI_NORMAL;
    jv tmp;
    if (n->a != NULL) {
        if (n->a->kind == SLUICE_JS_VAR) {
            sluice_js_node *one[1] = { n->a };
            if ((rc = hoist(in, scope, one, 1)) != SLUICE_JSI_NORMAL ||
                (rc = exec_var(in, scope, n->a)) != SLUICE_JSI_NORMAL)
                return rc;
        } else if ((rc = eval(in, scope, n->a, &tmp)) != SLUICE_JSI_NORMAL) {
            return rc;
        }
    }
    for (;;) {
        if (n->b != NULL) {
            if ((rc = eval_decider(in, scope, n->b, &tmp)) != SLUICE_JSI_NORMAL)
                return rc;
            if (!sluice_jsi_truthy(tmp))
                return SLUICE_JSI_NORMAL;
        }
        if ((rc = sluice_jsi_loop_tick(in)) != SLUICE_JSI_NORMAL)
            return rc;
        /* per-iteration copy of the loop variables, so closures capture this iteration's */
        env *iter = env_new(in, e);
        if (iter == NULL)
            return SLUICE_JSI_FATAL;
        for (binding *b = scope->first; b != NULL; b = b->next) {
            binding *c;
            if ((rc = declare(in, iter, b->name, b->konst, b->ready, &c)) != SLUICE_JSI_NORMAL)
                return rc;
            c->v = b->v;
        }
        bool stop;
        rc = loop_result(in, exec_stmt(in, iter, n->d), labels, &stop);
        for (binding *b = scope->first; b != NULL; b = b->next)
            b->v = env_own(iter, b->name)->v;
        if (stop)
            return rc;
        if (n->c != NULL && (rc = eval(in, scope, n->c, &tmp)) != SLUICE_JSI_NORMAL)
            return rc;
    }
}

static jcomp exec_for_of(interp *in, env *e, const sluice_js_node *n, const sluice_js_node *labels)
{
    jv coll; /* it decides how many times the body runs */
    jcomp rc = eval_decider(in, e, n->b, &coll);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    jarr *items = NULL;
    if (n->kind == SLUICE_JS_FOR_IN) {
        items = sluice_jsi_arr_new(in, 0);
        if (items == NULL)
            return SLUICE_JSI_FATAL;
        if (coll.t == JV_OBJ || coll.t == JV_ARR || coll.t == JV_STR) {
            size_t len = coll.t == JV_ARR ? coll.u.a->len : coll.t == JV_STR ? coll.u.s->len : 0;
            for (size_t i = 0; i < len; i++) {
                char idx[24];
                snprintf(idx, sizeof idx, "%zu", i);
                sluice_js_str *k = sluice_jsi_str_ascii(in, idx);
                if (k == NULL || sluice_jsi_arr_push(in, items, jv_str(k)) != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
            }
            if (coll.t == JV_OBJ) {
                size_t nk;
                const sluice_js_str **keys = sluice_jsi_obj_keys(in, coll.u.o, &nk);
                if (keys == NULL)
                    return SLUICE_JSI_FATAL;
                for (size_t i = 0; i < nk; i++)
                    if (sluice_jsi_arr_push(in, items, jv_str(keys[i])) != SLUICE_JSI_NORMAL)
                        return SLUICE_JSI_FATAL;
            }
        }
    } else {
        items = sluice_jsi_arr_new(in, 0);
        if (items == NULL)
            return SLUICE_JSI_FATAL;
        if (coll.t == JV_ARR) {
            items = coll.u.a; /* iterate live: elements pushed during the loop are visited */
        } else if ((rc = spread_into_array(in, items, coll)) != SLUICE_JSI_NORMAL) {
            return rc;
        }
    }
    const sluice_js_node *target = n->a;
    for (size_t i = 0; i < items->len; i++) {
        if ((rc = sluice_jsi_loop_tick(in)) != SLUICE_JSI_NORMAL)
            return rc;
        env *iter = env_new(in, e);
        if (iter == NULL)
            return SLUICE_JSI_FATAL;
        if (target->kind == SLUICE_JS_VAR) {
            rc = bind_pattern(in, iter, target->list[0]->a, items->v[i],
                              (target->flags & SLUICE_JS_F_CONST) ? BIND_CONST : BIND_LET);
        } else {
            rc = bind_pattern(in, e, target, items->v[i], BIND_ASSIGN);
        }
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
        bool stop;
        rc = loop_result(in, exec_stmt(in, iter, n->d), labels, &stop);
        if (stop)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp exec_while(interp *in, env *e, const sluice_js_node *n, const sluice_js_node *labels)
{
    int first = n->kind == SLUICE_JS_DO_WHILE;
    for (;;) {
        jv t;
        jcomp rc;
        if (!first) {
            if ((rc = eval_decider(in, e, n->a, &t)) != SLUICE_JSI_NORMAL)
                return rc;
            if (!sluice_jsi_truthy(t))
                return SLUICE_JSI_NORMAL;
        }
        first = 0;
        if ((rc = sluice_jsi_loop_tick(in)) != SLUICE_JSI_NORMAL)
            return rc;
        bool stop;
        rc = loop_result(in, exec_stmt(in, e, n->d), labels, &stop);
        if (stop)
            return rc;
    }
}

static jcomp exec_try(interp *in, env *e, const sluice_js_node *n)
{
    jcomp rc = exec_block(in, e, n->a);
    if (rc == SLUICE_JSI_THROW && n->c != NULL) {
        env *scope = env_new(in, e);
        if (scope == NULL)
            return SLUICE_JSI_FATAL;
        jv thrown = in->thrown;
        if (in->tainting) /* that it threw, and what, may say something of a blocked field */
            sluice_jsi_taint_decide(in, sluice_jsi_taint_deep(in, thrown));
        rc = n->b != NULL ? bind_pattern(in, scope, n->b, thrown, BIND_LET) : SLUICE_JSI_NORMAL;
        if (rc == SLUICE_JSI_NORMAL)
            rc = exec_block(in, scope, n->c);
    }
    if (n->d != NULL && rc != SLUICE_JSI_FATAL) {
        jv saved_ret = in->ret, saved_thrown = in->thrown;
        int frc = exec_block(in, e, n->d);
        if (frc != SLUICE_JSI_NORMAL)
            return frc;
        in->ret = saved_ret;
        in->thrown = saved_thrown;
    }
    return rc;
}

static jcomp exec_switch(interp *in, env *e, const sluice_js_node *n)
{
    jv d;
    jcomp rc = eval(in, e, n->a, &d);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    env *scope = env_new(in, e);
    if (scope == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < n->n; i++)
        if ((rc = hoist(in, scope, n->list[i]->list, n->list[i]->n)) != SLUICE_JSI_NORMAL)
            return rc;
    size_t start = n->n;
    for (size_t i = 0; i < n->n && start == n->n; i++) {
        if (n->list[i]->a == NULL)
            continue;
        jv c;
        if ((rc = eval(in, scope, n->list[i]->a, &c)) != SLUICE_JSI_NORMAL)
            return rc;
        if (in->tainting)
            sluice_jsi_taint_decide(in, sluice_jsi_taint_binary(in, SLUICE_JS_OP_SEQ, d, c));
        if (sluice_jsi_strict_equals(d, c))
            start = i;
    }
    for (size_t i = 0; i < n->n && start == n->n; i++)
        if (n->list[i]->a == NULL)
            start = i;
    for (size_t i = start; i < n->n; i++) {
        rc = exec_list(in, scope, n->list[i]->list, n->list[i]->n);
        if (rc == SLUICE_JSI_BREAK && in->jump_label == NULL)
            return SLUICE_JSI_NORMAL;
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp exec_loop(interp *in, env *e, const sluice_js_node *n, const sluice_js_node *labels)
{
    if (n->kind == SLUICE_JS_FOR)
        return exec_for(in, e, n, labels);
    if (n->kind == SLUICE_JS_FOR_OF || n->kind == SLUICE_JS_FOR_IN)
        return exec_for_of(in, e, n, labels);
    return exec_while(in, e, n, labels);
}

/* label: statement. A loop gets its labels (continue label continues it); any other statement
 * ends normally on a break naming one of them. */
static jcomp exec_labeled(interp *in, env *e, const sluice_js_node *n)
{
    const sluice_js_node *body = n->a;
    while (body->kind == SLUICE_JS_LABELED)
        body = body->a;
    bool loop = body->kind == SLUICE_JS_FOR || body->kind == SLUICE_JS_FOR_OF ||
                body->kind == SLUICE_JS_FOR_IN || body->kind == SLUICE_JS_WHILE ||
                body->kind == SLUICE_JS_DO_WHILE;
    jcomp rc = loop ? exec_loop(in, e, body, n) : exec_stmt(in, e, body);
    /* an unlabelled break belongs to the loop or switch around, not to a labelled block */
    return rc == SLUICE_JSI_BREAK && in->jump_label != NULL && jump_is_ours(in, n)
               ? SLUICE_JSI_NORMAL
               : rc;
}

static jcomp exec_stmt(interp *in, env *e, const sluice_js_node *n)
{
    jcomp rc = sluice_jsi_step(in);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    in->line = n->line;
    jv v;
    switch (n->kind) {
    case SLUICE_JS_VAR:
        return exec_var(in, e, n);
    case SLUICE_JS_FUNC_DECL:
        return SLUICE_JSI_NORMAL; /* hoisted */
    case SLUICE_JS_RETURN:
        in->ret = jv_undef();
        if (n->a != NULL && (rc = eval(in, e, n->a, &in->ret)) != SLUICE_JSI_NORMAL)
            return rc;
        return SLUICE_JSI_RETURN;
    case SLUICE_JS_IF:
        if ((rc = eval_decider(in, e, n->a, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        if (sluice_jsi_truthy(v))
            return exec_stmt(in, e, n->b);
        return n->c != NULL ? exec_stmt(in, e, n->c) : SLUICE_JSI_NORMAL;
    case SLUICE_JS_FOR:
    case SLUICE_JS_FOR_OF:
    case SLUICE_JS_FOR_IN:
    case SLUICE_JS_WHILE:
    case SLUICE_JS_DO_WHILE:
        return exec_loop(in, e, n, NULL);
    case SLUICE_JS_LABELED:
        return exec_labeled(in, e, n);
    case SLUICE_JS_BREAK:
        in->jump_label = n->str;
        return SLUICE_JSI_BREAK;
    case SLUICE_JS_CONTINUE:
        in->jump_label = n->str;
        return SLUICE_JSI_CONTINUE;
    case SLUICE_JS_THROW:
        if ((rc = eval(in, e, n->a, &v)) != SLUICE_JSI_NORMAL)
            return rc;
        in->thrown = v;
        return SLUICE_JSI_THROW;
    case SLUICE_JS_TRY:
        return exec_try(in, e, n);
    case SLUICE_JS_BLOCK:
        return exec_block(in, e, n);
    case SLUICE_JS_EXPR_STMT:
        return eval(in, e, n->a, &v);
    case SLUICE_JS_EMPTY:
        return SLUICE_JSI_NORMAL;
    case SLUICE_JS_SWITCH:
        return exec_switch(in, e, n);
    default:
        return sluice_jsi_throw(in, "SyntaxError", "unexpected statement at line %u", n->line);
    }
}

/* --- the run ------------------------------------------------------------------------------- */

static jcomp record_throw(interp *in, sluice_js_run_result *out)
{
    jv t = in->thrown;
    out->threw = true;
    out->error_line = in->line;
    bool redact = false;
    if (in->tainting &&
        sluice_jsi_taint_leave(in, sluice_jsi_taint_deep(in, t), "the error the plan threw",
                               &redact) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    if (redact) { /* its text, its kind and its line may each say something */
        out->error_name = "Error";
        out->error_message = sluice_arena_printf(in->out_arena, "(redacted: the error was %s)",
                                                 sluice_jsi_taint_text(in, t.taint));
        out->error_line = 0;
        return out->error_message != NULL ? SLUICE_JSI_THROW : sluice_jsi_nomem(in);
    }
    if (t.t == JV_OBJ && t.u.o->is_error) {
        const sluice_js_str *name = sluice_jsi_to_string(in, t.u.o->err_name);
        const sluice_js_str *msg = sluice_jsi_to_string(in, t.u.o->err_message);
        out->error_name = name != NULL ? sluice_js_str_utf8(in->out_arena, name) : "Error";
        out->error_message = msg != NULL ? sluice_js_str_utf8(in->out_arena, msg) : "";
        return SLUICE_JSI_THROW;
    }
    out->error_name = "throw";
    sluice_buf b;
    sluice_buf_init(&b, in->out_arena, 64 * 1024);
    bool undef;
    if (sluice_jsi_json_stringify(in, t, NULL, &b, &undef) == SLUICE_JSI_NORMAL && !undef)
        out->error_message = sluice_buf_cstr(&b);
    else
        out->error_message = "undefined";
    return SLUICE_JSI_THROW;
}

sluice_status sluice_js_run(sluice_arena *arena,
                            const sluice_js_program *prog,
                            const sluice_js_run_options *opts,
                            sluice_js_run_result *out,
                            sluice_error *err)
{
    memset(out, 0, sizeof *out);
    sluice_arena *values = sluice_arena_new();
    if (values == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory starting the plan");
    interp in = { .arena = values, .out_arena = arena, .opts = *opts, .res = out, .err = err };
    if (in.opts.clock == NULL)
        in.opts.clock = sluice_clock_system();
    in.mem_base = sluice_arena_used(values);
    in.max_steps = opts->limits.max_steps > 0 ? (size_t)opts->limits.max_steps
                                              : (size_t)SLUICE_LIMIT_JS_STEPS_DEFAULT;
    in.max_memory = opts->limits.max_memory_bytes > 0 ? opts->limits.max_memory_bytes
                                                      : SLUICE_LIMIT_JS_MEMORY_DEFAULT;
    if (opts->limits.timeout_ms > 0)
        in.deadline_ns =
            sluice_clock_monotonic_ns(in.opts.clock) + opts->limits.timeout_ms * 1000000;
    out->logs = json_array();
    if (out->logs != NULL &&
        sluice_arena_cleanup_add(arena, (void (*)(void *))json_decref, out->logs) != SLUICE_OK)
        out->logs = NULL; /* already released by the failed registration (core/arena.h) */
    env *global = env_new(&in, NULL);
    env *top = global != NULL ? env_new(&in, global) : NULL;
    in.global = global;
    jcomp rc = top == NULL || out->logs == NULL ? sluice_jsi_nomem(&in)
                                                : sluice_jsi_install_globals(&in, global);
    if (rc == SLUICE_JSI_NORMAL)
        rc = hoist(&in, top, prog->root->list, prog->root->n);
    if (rc == SLUICE_JSI_NORMAL)
        rc = exec_list(&in, top, prog->root->list, prog->root->n);
    jv result = jv_undef();
    if (rc == SLUICE_JSI_RETURN) {
        result = in.ret;
        rc = SLUICE_JSI_NORMAL;
    }
    if (rc == SLUICE_JSI_NORMAL && result.t == JV_PROMISE) /* the plan is an async body: adopt */
        rc = sluice_jsi_settle(&in, result.u.p);
    if (rc == SLUICE_JSI_NORMAL && result.t == JV_PROMISE) {
        if (result.u.p->rejected) {
            in.thrown = result.u.p->v;
            rc = SLUICE_JSI_THROW;
        } else {
            result = result.u.p->v;
        }
    }
    if (rc == SLUICE_JSI_NORMAL)
        rc = sluice_jsi_taint_strip(&in, result, &result);
    if (rc == SLUICE_JSI_NORMAL) {
        sluice_buf b;
        sluice_buf_init(&b, arena,
                        opts->limits.max_bytes > 0 ? opts->limits.max_bytes * 2 + 64 : 0);
        bool undef = false;
        rc = sluice_jsi_json_stringify(&in, result, NULL, &b, &undef);
        if (rc == SLUICE_JSI_NORMAL && !undef)
            out->json = sluice_buf_cstr(&b);
    }
    if (rc == SLUICE_JSI_THROW)
        rc = record_throw(&in, out);
    if (rc != SLUICE_JSI_FATAL &&
        sluice_jsi_settle_all(&in) != SLUICE_JSI_NORMAL) /* calls nobody awaited still count */
        rc = SLUICE_JSI_FATAL;
    if (rc == SLUICE_JSI_BREAK || rc == SLUICE_JSI_CONTINUE || rc == SLUICE_JSI_SHORT)
        rc = SLUICE_JSI_NORMAL;
    out->api_calls = in.calls;
    out->loop_iterations = in.loops;
    out->steps = in.steps;
    out->memory_bytes = sluice_arena_used(values) - in.mem_base;
    sluice_status st =
        rc == SLUICE_JSI_FATAL ? (in.fatal != SLUICE_OK ? in.fatal : SLUICE_E_INTERNAL) : SLUICE_OK;
    sluice_arena_free(values);
    return st;
}
