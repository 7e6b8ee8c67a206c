/*
 * value.h — the plan language's run-time values and the interpreter state the evaluator
 * (interp.c), the built-ins (builtins.c) and the conversions (value.c) share. Internal to
 * exec/js/.
 *
 * Owns: the value shapes (undefined, null, booleans, IEEE doubles, UTF-16 strings, arrays,
 * objects with insertion-ordered keys, functions, settled promises), the completion codes, the
 * allocation that counts against max_memory_bytes, and the conversions JavaScript defines
 * (ToString, ToNumber, equality, JSON.stringify, Number::toString).
 * Does not own: evaluation order (interp.c) or what a built-in does (builtins.c).
 */
#ifndef SLUICE_EXEC_JS_VALUE_H
#define SLUICE_EXEC_JS_VALUE_H

#include "core/buf.h"
#include "exec/js/interp.h"

#include <stdint.h>

typedef enum jv_type {
    JV_UNDEF = 0,
    JV_NULL,
    JV_BOOL,
    JV_NUM,
    JV_STR,
    JV_ARR,
    JV_OBJ,
    JV_FUNC,
    JV_PROMISE,
} jv_type;

typedef struct jarr jarr;
typedef struct jobj jobj;
typedef struct jfunc jfunc;
typedef struct jpromise jpromise;
typedef struct jcoll jcoll; /* a Map or Set (collections.c) */
typedef struct jiter jiter; /* a Map or Set iterator */

typedef struct jv {
    uint8_t t;
    union {
        int b;
        double n;
        const sluice_js_str *s;
        jarr *a;
        jobj *o;
        jfunc *f;
        jpromise *p;
    } u;
} jv;

struct jarr {
    size_t len, cap;
    jv *v;
};

struct jobj {
    size_t len, cap;
    const sluice_js_str **k;
    jv *v;
    /* an Error: name and message are not enumerable (JSON.stringify(err) is "{}") */
    bool is_error;
    jv err_name, err_message;
    jcoll *coll;  /* a Map or Set: its entries (no own properties hold them) */
    jiter *iter;  /* an iterator keys()/values()/entries() returned */
    bool is_date; /* a Date (date.c): time is its time value, NaN when invalid */
    double time;
};

typedef struct env env;

typedef struct interp interp;

/* A built-in: receives the receiver (self) and the arguments. */
typedef int (*native_fn)(interp *in, jv self, const jv *args, size_t argc, jv *out);

struct jfunc {
    const sluice_js_node *node; /* JS_FUNC, or NULL for a built-in */
    env *closure;
    native_fn native;
    jv self;          /* a built-in method's receiver */
    const char *name; /* a built-in's name, for messages */
};

struct jpromise {
    bool rejected;
    jv v;
    /* An upstream call in flight (host start/wait): rejected and v are set by js_settle. */
    bool pending;
    uint64_t ticket;
    sluice_js_call call; /* what was asked, for the failed-call record; args owned here */
    struct jpromise *next_pending;
};

typedef struct binding {
    const sluice_js_str *name;
    jv v;
    bool konst, ready; /* ready: past its declaration (the temporal dead zone ends) */
    struct binding *next;
} binding;

struct env {
    binding *first;
    env *parent;
};

/* Completion codes of evaluation. */
enum {
    C_NORMAL = 0,
    C_RETURN,
    C_BREAK,
    C_CONTINUE,
    C_THROW, /* in->thrown holds the value */
    C_FATAL, /* a limit, a host refusal or NOMEM: in->fatal says which; never catchable */
    C_SHORT, /* an optional chain short-circuited (only inside JS_CHAIN) */
};

struct interp {
    sluice_arena *arena; /* values live here; its growth is max_memory_bytes */
    sluice_arena *out_arena;
    size_t mem_base;
    sluice_js_run_options opts;
    sluice_js_run_result *res;
    int64_t deadline_ns; /* 0: none */
    size_t steps, loops, calls, depth;
    size_t max_steps, max_memory;
    jv thrown;
    jv ret;
    uint32_t line; /* of the node being evaluated, for messages */
    sluice_status fatal;
    sluice_error *err;
    env *global;
    sluice_buf scratch;
    jpromise *pending; /* calls in flight, newest first */
};

/* --- allocation (counts against max_memory_bytes; C_FATAL semantics when NULL) --------- */
void *js_alloc(interp *in, size_t size);
sluice_js_str *js_str_units(interp *in, const uint16_t *u, size_t len);
sluice_js_str *js_str_ascii(interp *in, const char *s);
jarr *js_arr_new(interp *in, size_t cap);
int js_arr_push(interp *in, jarr *a, jv v);
jobj *js_obj_new(interp *in);
int js_obj_set(interp *in, jobj *o, const sluice_js_str *k, jv v);
jv *js_obj_get(const jobj *o, const sluice_js_str *k);
int js_obj_delete(jobj *o, const sluice_js_str *k);
/* The keys in JavaScript's order: array-index keys ascending, then the rest as inserted. */
const sluice_js_str **js_obj_keys(interp *in, const jobj *o, size_t *count);

/* --- constructors ----------------------------------------------------------------------- */
static inline jv jv_undef(void)
{
    jv v = { .t = JV_UNDEF };
    return v;
}
static inline jv jv_null(void)
{
    jv v = { .t = JV_NULL };
    return v;
}
static inline jv jv_bool(int b)
{
    jv v = { .t = JV_BOOL, .u.b = b != 0 };
    return v;
}
static inline jv jv_num(double n)
{
    jv v = { .t = JV_NUM, .u.n = n };
    return v;
}
static inline jv jv_str(const sluice_js_str *s)
{
    jv v = { .t = JV_STR, .u.s = s };
    return v;
}
static inline jv jv_arr(jarr *a)
{
    jv v = { .t = JV_ARR, .u.a = a };
    return v;
}
static inline jv jv_obj(jobj *o)
{
    jv v = { .t = JV_OBJ, .u.o = o };
    return v;
}

/* --- errors: each returns C_THROW (or C_FATAL on NOMEM) ------------------------------- */
int js_throw(interp *in, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stops the run: status with err naming the setting. Returns C_FATAL. */
int js_fatal(interp *in, sluice_status status, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int js_nomem(interp *in);
jv js_make_error(interp *in, const char *name, const sluice_js_str *message);

/* --- conversions ------------------------------------------------------------------------ */
int js_truthy(jv v);
double js_to_number(jv v);
/* ToString; NULL on NOMEM (objects: "[object Object]", arrays joined by ","). */
const sluice_js_str *js_to_string(interp *in, jv v);
/* A property key for v (numbers in their canonical string). NULL on NOMEM. */
const sluice_js_str *js_to_key(interp *in, jv v);
/* Number::toString(10) into buf (at least 32 bytes); returns its length. */
size_t js_number_format(double n, char *buf);
int js_strict_equals(jv a, jv b);
int js_loose_equals(interp *in, jv a, jv b);
/* SameValueZero (includes) */
int js_same_value_zero(jv a, jv b);
/* UTF-16 code-unit order: <0, 0, >0 */
int js_str_cmp(const sluice_js_str *a, const sluice_js_str *b);
const char *js_typeof(jv v);
/* Array index of key s, or -1 when s is not a canonical index. */
int64_t js_index_of_key(const sluice_js_str *s);

/* JSON.stringify(v, null, indent) appended to b (UTF-8). *undefined_out set when the value
 * serializes to undefined. Returns C_NORMAL, C_THROW (TypeError on cycles or too deep) or
 * C_FATAL. */
int js_json_stringify(
    interp *in, jv v, const sluice_js_str *indent, sluice_buf *b, bool *undefined_out);
/* A value from JSON (api responses, args, JSON.parse). C_NORMAL or C_FATAL. */
int js_from_json(interp *in, const json_t *j, jv *out);

/* Settles p when it is a call in flight (waits for the host's answer). C_NORMAL (p settled,
 * fulfilled or rejected) or C_FATAL (a refusal, the deadline, NOMEM). */
int js_settle(interp *in, jpromise *p);
/* Settles every call still in flight (the end of the run). C_NORMAL or C_FATAL. */
int js_settle_all(interp *in);

/* --- the evaluator's entry for built-ins that call back into the plan ------------------ */
int js_call(interp *in, jv fn, jv self, const jv *args, size_t argc, jv *out);
/* Counts one step and checks the deadline and memory. C_NORMAL or C_FATAL. */
int js_step(interp *in);
/* Counts one loop iteration (map/filter callbacks count too). */
int js_loop_tick(interp *in);

/* --- built-ins (builtins.c) ------------------------------------------------------------- */
/* Installs the globals (Math, JSON, Object, Array, Number, String, Promise, console, api, mcp,
 * args, ...). C_NORMAL or C_FATAL. */
int js_install_globals(interp *in, env *global);
/* A method or property of a primitive, array, promise or function value (self.key), or
 * undefined. C_NORMAL / C_THROW / C_FATAL. */
int js_builtin_member(interp *in, jv self, const sluice_js_str *key, jv *out);
jv js_native(interp *in, native_fn fn, jv self, const char *name);

/* --- Map and Set (collections.c) ------------------------------------------------------- */
/* new Map(iterable) / new Set(iterable). C_NORMAL, C_THROW (not iterable, not an entry) or
 * C_FATAL. */
int js_coll_construct(interp *in, bool is_set, const jv *args, size_t argc, jv *out);
/* When v is a Map, Set or iterator (*handled set), appends what iterating it yields (a Map's
 * [key, value] entries, a Set's values, an iterator's rest) to into. C_NORMAL or C_FATAL. */
int js_coll_items(interp *in, jv v, jarr *into, bool *handled);
/* A member of a Map, Set or iterator object (self.u.o->coll or ->iter set), or undefined. */
int js_coll_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* Object.prototype.toString of a Map, Set or iterator: "[object Map]", "[object Set Iterator]". */
const char *js_coll_tag(const jobj *o);

/* --- Date, read-only (date.c) ------------------------------------------------------------ */
/* new Date(ms | string | date | y, m, ...); new Date() (the clock) throws a TypeError. */
int js_date_construct(interp *in, const jv *args, size_t argc, jv *out);
/* Date.parse, Date.UTC and Date.now (which throws: plans do not read the clock). */
int js_date_parse(interp *in, jv self, const jv *args, size_t argc, jv *out);
int js_date_utc(interp *in, jv self, const jv *args, size_t argc, jv *out);
int js_date_now(interp *in, jv self, const jv *args, size_t argc, jv *out);
/* A Date's method (getTime, toISOString, ...), or undefined. */
int js_date_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* Date.prototype.toString of o ("Invalid Date" when invalid). C_NORMAL or C_FATAL. */
int js_date_string(interp *in, const jobj *o, const sluice_js_str **out);
/* toISOString into buf; false when the date is invalid (toJSON: null). */
bool js_date_iso(const jobj *o, char buf[40]);

#endif
