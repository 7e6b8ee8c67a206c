/*
 * value.h — the plan language's run-time values and the interpreter state the evaluator
 * (interp.c), the built-in libraries (lib.h) and the conversions (value.c) share. Internal to
 * exec/js/.
 *
 * Owns: the value shapes (undefined, null, booleans, IEEE doubles, UTF-16 strings, arrays,
 * objects with insertion-ordered keys, functions, settled promises), the completion codes, the
 * allocation that counts against max_memory_bytes, and the conversions JavaScript defines
 * (ToString, ToNumber, equality, JSON.stringify, Number::toString).
 * Does not own: evaluation order (interp.c) or what a built-in does (lib_*.c).
 */
#ifndef SLUICE_EXEC_JS_VALUE_H
#define SLUICE_EXEC_JS_VALUE_H

#include "core/buf.h"
#include "exec/js/host.h"
#include "syntax/js/parse.h"

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

/* A taint label: 0 for a value no output-blocked field reached, else 1 + the index of its
 * origin in interp.origins (taint.c: a field, and where the plan read it or which answer
 * carried it) in the low 15 bits. Labels join by keeping the first; JT_MIXED says a different
 * label was joined in, so the field named is not the only one (a call may pass a value only
 * when it knows every field the value holds). */
typedef uint16_t jtaint;
#define JT_MIXED    0x8000u
#define JT_INDEX(t) ((jtaint)((t) & ~JT_MIXED))

/* Where a value came from, for the one comparison that may steer without tainting (taint.c):
 * straight from a literal in the plan, from the plan's input variables, or straight from a
 * blocked field (no operation since). Any computation clears it. */
#define JV_PROV_LITERAL 1u
#define JV_PROV_ARGS    2u
#define JV_PROV_FIELD   4u

typedef struct jv {
    uint8_t t;
    uint8_t prov; /* JV_PROV_* */
    jtaint taint; /* fits the padding before the union: a jv stays 16 bytes */
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
    jtaint taint; /* its shape (length, order, membership) depends on a blocked field */
};

struct jobj {
    jtaint taint; /* its shape (keys, size) depends on a blocked field */
    size_t len, cap;
    const sluice_js_str **k;
    jv *v;
    /* an Error: name and message are not enumerable (JSON.stringify(err) is "{}") */
    bool is_error;
    jv err_name, err_message;
    const char *err_class; /* the constructor that made it (instanceof), not the name it shows */
    jcoll *coll;           /* a Map or Set: its entries (no own properties hold them) */
    jiter *iter;           /* an iterator keys()/values()/entries() returned */
    bool is_date;          /* a Date (date.c): time is its time value, NaN when invalid */
    double time;
};

/* Completion codes of evaluation: how a statement, expression or built-in ended (ECMAScript's
 * completion records, without their value, which travels in an out-parameter or in->thrown). */
typedef enum jcomp {
    SLUICE_JSI_NORMAL = 0,
    SLUICE_JSI_RETURN,
    SLUICE_JSI_BREAK,
    SLUICE_JSI_CONTINUE,
    SLUICE_JSI_THROW, /* in->thrown holds the value */
    SLUICE_JSI_FATAL, /* a limit, a host refusal or NOMEM: in->fatal says which; never catchable */
    SLUICE_JSI_SHORT, /* an optional chain short-circuited (only inside SLUICE_JS_CHAIN) */
} jcomp;

typedef struct env env;

typedef struct interp interp;

/* A built-in: receives the receiver (self) and the arguments. */
typedef jcomp (*native_fn)(interp *in, jv self, const jv *args, size_t argc, jv *out);

struct jfunc {
    const sluice_js_node *node; /* SLUICE_JS_FUNC, or NULL for a built-in */
    env *closure;
    native_fn native;
    jv self;          /* a built-in method's receiver */
    const char *name; /* a built-in's name, for messages */
};

struct jpromise {
    bool rejected;
    jv v;
    /* An upstream call in flight (host start/wait): rejected and v are set by sluice_jsi_settle. */
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
    /* taint (taint.c): tainting turns on with the first value read from an output-blocked
     * field, so a plan that reads none pays one predictable branch per operation */
    bool tainting;
    jtaint pc;    /* control context: a decision depended on a blocked field (never lowered) */
    bool steered; /* a blocked field steered the plan through the === exception */
    jtaint callback_taint; /* what the plan's functions answered inside the current built-in */
    const sluice_js_str *jump_label; /* the label of the break/continue under way, or NULL */
    struct jtaint_origin {
        const char *field; /* as configured */
        uint32_t line;     /* where the plan read it, or where its answer arrived */
        bool read;         /* read by the plan (a member read, Object.values, ...): else only
                            * carried in an answer, still under its own key */
    } * origins;
    size_t origin_count;
    /* the blocked values answers carried, as text, while a call may pass them
     * (host.passes_taint): what the answer of such a call must not echo untainted */
    struct jtaint_raw {
        const char *text;
        jtaint label;
    } * raw;
    size_t raw_count;
    bool raw_overflow; /* more than the bound were read: every passing answer is tainted */
    bool lookup;       /* the capability call just made passed a blocked field (a lookup) */
    /* the path parts of the api call eval_call is about to make (sluice_js_call.path_parts),
     * taken (and cleared) by the call */
    const char **site_parts;
    size_t site_part_count;
};

/* --- allocation (counts against max_memory_bytes; SLUICE_JSI_FATAL semantics when NULL) ---------
 */
void *sluice_jsi_alloc(interp *in, size_t size);
sluice_js_str *sluice_jsi_str_units(interp *in, const uint16_t *u, size_t len);
sluice_js_str *sluice_jsi_str_ascii(interp *in, const char *s);
jarr *sluice_jsi_arr_new(interp *in, size_t cap);
jcomp sluice_jsi_arr_push(interp *in, jarr *a, jv v);
jobj *sluice_jsi_obj_new(interp *in);
jcomp sluice_jsi_obj_set(interp *in, jobj *o, const sluice_js_str *k, jv v);
jv *sluice_jsi_obj_get(const jobj *o, const sluice_js_str *k);
int sluice_jsi_obj_delete(jobj *o, const sluice_js_str *k);
/* The keys in JavaScript's order: array-index keys ascending, then the rest as inserted. */
const sluice_js_str **sluice_jsi_obj_keys(interp *in, const jobj *o, size_t *count);

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

/* --- errors: each returns SLUICE_JSI_THROW (or SLUICE_JSI_FATAL on NOMEM)
 * ------------------------------- */
jcomp sluice_jsi_throw(interp *in, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stops the run: status with err naming the setting. Returns SLUICE_JSI_FATAL. */
jcomp sluice_jsi_fatal(interp *in, sluice_status status, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
jcomp sluice_jsi_nomem(interp *in);
/* Stops the run past a limit: "<what> (limit is <limit>) at line L" (sluice_js_limit_text),
 * err->key the setting that raises it. Returns SLUICE_JSI_FATAL. */
jcomp sluice_jsi_limit_error(interp *in, const char *key, const char *what, size_t limit);
jv sluice_jsi_make_error(interp *in, const char *name, const sluice_js_str *message);
/* a instanceof c (lib_base.c): the built-in constructors, plan functions (nothing the plan
 * makes has their prototype) and the TypeErrors JavaScript throws for the rest. */
jcomp sluice_jsi_instance_of(interp *in, jv a, jv c, jv *out);

/* --- conversions ------------------------------------------------------------------------ */
int sluice_jsi_truthy(jv v);
double sluice_jsi_to_number(jv v);
/* ToString; NULL on NOMEM (objects: "[object Object]", arrays joined by ","). */
const sluice_js_str *sluice_jsi_to_string(interp *in, jv v);
/* A property key for v (numbers in their canonical string). NULL on NOMEM. */
const sluice_js_str *sluice_jsi_to_key(interp *in, jv v);
/* Number::toString(10) into buf (at least 32 bytes); returns its length. */
size_t sluice_jsi_number_format(double n, char *buf);
/* The shortest decimal digits that read back as |n| (finite, not 0), the first one non-zero and
 * no trailing zeros; *exp10: the power of ten of the first. Returns how many (at most 17). */
size_t sluice_jsi_shortest_digits(double n, char digits[20], int *exp10);
int sluice_jsi_strict_equals(jv a, jv b);
int sluice_jsi_loose_equals(interp *in, jv a, jv b);
/* SameValueZero (includes) */
int sluice_jsi_same_value_zero(jv a, jv b);
/* JavaScript's WhiteSpace and LineTerminator units (trim, Number(), parseFloat). */
bool sluice_jsi_is_space(uint16_t c);
/* UTF-16 code-unit order: <0, 0, >0 */
int sluice_jsi_str_cmp(const sluice_js_str *a, const sluice_js_str *b);
const char *sluice_jsi_typeof(jv v);
/* Array index of key s, or -1 when s is not a canonical index. */
int64_t sluice_jsi_index_of_key(const sluice_js_str *s);

/* JSON.stringify(v, null, indent) appended to b (UTF-8). *undefined_out set when the value
 * serializes to undefined. Returns SLUICE_JSI_NORMAL, SLUICE_JSI_THROW (TypeError on cycles or too
 * deep) or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_json_stringify(
    interp *in, jv v, const sluice_js_str *indent, sluice_buf *b, bool *undefined_out);
/* A value from JSON (api responses, args, JSON.parse). SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_from_json(interp *in, const json_t *j, jv *out);
/* An upstream's answer: as from_json, and everything under a key naming an output-blocked
 * field (opts.taint_fields) carries that field's label (taint.c). */
jcomp sluice_jsi_from_answer(interp *in, const json_t *j, jv *out);
/* The answer of a call that passed blocked fields (a lookup): as from_answer, and every
 * string, number or key that holds a blocked value an earlier answer carried takes that
 * field's label (an upstream that echoes what it was sent hands it back tainted). */
jcomp sluice_jsi_from_lookup(interp *in, const json_t *j, jv *out);
/* The plan's input variables: as from_json, every leaf marked JV_PROV_ARGS. */
jcomp sluice_jsi_from_args(interp *in, const json_t *j, jv *out);

/* A settled promise of v (lib_promise.c): rejected with v, or fulfilled with it — a fulfilled
 * promise of a promise is that promise (resolving adopts its state). undefined when memory runs
 * out (in is then fatal). */
jv sluice_jsi_promise_settled(interp *in, bool rejected, jv v);
/* Settles p when it is a call in flight (waits for the host's answer). SLUICE_JSI_NORMAL (p
 * settled, fulfilled or rejected) or SLUICE_JSI_FATAL (a refusal, the deadline, NOMEM). */
jcomp sluice_jsi_settle(interp *in, jpromise *p);
/* Settles every call still in flight (the end of the run). SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL.
 */
jcomp sluice_jsi_settle_all(interp *in);

/* --- the evaluator's entry for built-ins that call back into the plan ------------------ */
jcomp sluice_jsi_call(interp *in, jv fn, jv self, const jv *args, size_t argc, jv *out);
/* Whether fn is one of api.get/post/put/patch/delete (capability.c): eval_call captures such a
 * call's path part by part. */
bool sluice_jsi_is_api_verb(jv fn);
/* Counts one step and checks the deadline and memory. SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_step(interp *in);
/* Counts one loop iteration (map/filter callbacks count too). */
jcomp sluice_jsi_loop_tick(interp *in);

/* --- taint (taint.c) ------------------------------------------------------------------- */
static inline jtaint jt_join(jtaint a, jtaint b)
{
    if (a == 0)
        return b;
    return b == 0 || b == a ? a : (jtaint)(a | JT_MIXED);
}
/* The taint v carries itself or through the container it references (shallow). */
static inline jtaint sluice_jsi_taint_of(jv v)
{
    jtaint t = v.taint;
    if (v.t == JV_ARR)
        t = jt_join(t, v.u.a->taint);
    else if (v.t == JV_OBJ)
        t = jt_join(t, v.u.o->taint);
    return t;
}
/* Everything v reaches (elements, properties, Map/Set entries, a promise's value), bounded:
 * past SLUICE_LIMIT_JS_RESULT_DEPTH it answers the first label the run has made. */
jtaint sluice_jsi_taint_deep(interp *in, jv v);
/* The label of blocked field `field` as an answer carries it (arrived at in->line). 0 on
 * NOMEM (SLUICE_JSI_FATAL set). */
jtaint sluice_jsi_taint_label(interp *in, const char *field);
/* t as the plan reads it here: an answer's label becomes its field's label read at in->line
 * (the line `refuse` names), a read label stays. 0 only for 0; on NOMEM t unchanged. */
jtaint sluice_jsi_taint_read(interp *in, jtaint t);
/* What a capability call's arguments carry, for the host to check against the operation
 * (host.h, sluice_js_call.passing): every field, or false when a value mixes labels so the
 * fields are not all known. */
bool sluice_jsi_taint_fields(interp *in, const jv *args, size_t argc, sluice_strlist *out);
/* The configured blocked field key names (case-insensitive), or NULL. */
const char *sluice_jsi_taint_field(const interp *in, const char *key);
/* A decision depended on t: the rest of the run is under it (values that leave after it carry
 * it: a branch not taken leaves no trace otherwise). */
static inline void sluice_jsi_taint_decide(interp *in, jtaint t)
{
    if (t != 0 && in->pc == 0)
        in->pc = t;
}
/* v is a blocked field's value an answer carried: noted for the echo check of lookups.
 * SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL (NOMEM). */
jcomp sluice_jsi_taint_note_raw(interp *in, jv v);
/* The label of a noted value that text holds (the first), or 0. */
jtaint sluice_jsi_taint_echo(interp *in, const char *text);
/* Marks what v references (and v) with t. */
void sluice_jsi_taint_mark(jv *v, jtaint t);
/* The taint a binary operation's result takes from a and b; the === / !== exception (a blocked
 * field against the same field, a plan literal or an input variable) answers 0 and records
 * in->steered. */
jtaint sluice_jsi_taint_binary(interp *in, int op, jv a, jv b);
/* A value about to leave the plan (what: "the result", "console.log", "api.get at line 3", ...)
 * carries t (or the run's pc): SLUICE_JSI_NORMAL and *redact false when clean; with strip, *redact
 * true (the caller removes it); with refuse, SLUICE_JSI_FATAL naming the field and the line it was
 * read. */
jcomp sluice_jsi_taint_leave(interp *in, jtaint t, const char *what, bool *redact);
/* The result with its tainted parts removed (strip) or refused (SLUICE_JSI_FATAL): a tainted
 * property or element goes (an element becomes null, so positions stay), a tainted whole is
 * undefined. */
jcomp sluice_jsi_taint_strip(interp *in, jv v, jv *out);
/* "derived from the blocked field 'ssn' (read at line 4)" for t, in in->arena. */
const char *sluice_jsi_taint_text(interp *in, jtaint t);

/* --- built-ins (lib_init.c) ------------------------------------------------------------ */
/* Installs the globals (Math, JSON, Object, Array, Number, String, Promise, console, api, mcp,
 * args, ...). SLUICE_JSI_NORMAL or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_install_globals(interp *in, env *global);
/* A method or property of a primitive, array, promise or function value (self.key), or
 * undefined. SLUICE_JSI_NORMAL / SLUICE_JSI_THROW / SLUICE_JSI_FATAL. */
jcomp sluice_jsi_builtin_member(interp *in, jv self, const sluice_js_str *key, jv *out);
jv sluice_jsi_native(interp *in, native_fn fn, jv self, const char *name);

/* --- Map and Set (collections.c) ------------------------------------------------------- */
/* new Map(iterable) / new Set(iterable). SLUICE_JSI_NORMAL, SLUICE_JSI_THROW (not iterable, not an
 * entry) or SLUICE_JSI_FATAL. */
jcomp sluice_jsi_coll_construct(interp *in, bool is_set, const jv *args, size_t argc, jv *out);
/* When v is a Map, Set or iterator (*handled set), appends what iterating it yields (a Map's
 * [key, value] entries, a Set's values, an iterator's rest) to into. SLUICE_JSI_NORMAL or
 * SLUICE_JSI_FATAL. */
jcomp sluice_jsi_coll_items(interp *in, jv v, jarr *into, bool *handled);
/* A member of a Map, Set or iterator object (self.u.o->coll or ->iter set), or undefined. */
jcomp sluice_jsi_coll_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* Whether o (holding a collection) is a Set rather than a Map. */
bool sluice_jsi_coll_is_set(const jobj *o);
/* Object.prototype.toString of a Map, Set or iterator: "[object Map]", "[object Set Iterator]". */
const char *sluice_jsi_coll_tag(const jobj *o);

/* --- Date, read-only (date.c) ------------------------------------------------------------ */
/* new Date(ms | string | date | y, m, ...); new Date() (the clock) throws a TypeError. */
jcomp sluice_jsi_date_construct(interp *in, const jv *args, size_t argc, jv *out);
/* Date.parse, Date.UTC and Date.now (which throws: plans do not read the clock). */
jcomp sluice_jsi_date_parse(interp *in, jv self, const jv *args, size_t argc, jv *out);
jcomp sluice_jsi_date_utc(interp *in, jv self, const jv *args, size_t argc, jv *out);
jcomp sluice_jsi_date_now(interp *in, jv self, const jv *args, size_t argc, jv *out);
/* A Date's method (getTime, toISOString, ...), or undefined. */
jcomp sluice_jsi_date_member(interp *in, jv self, const sluice_js_str *key, jv *out);
/* Date.prototype.toString of o ("Invalid Date" when invalid). SLUICE_JSI_NORMAL or
 * SLUICE_JSI_FATAL. */
jcomp sluice_jsi_date_string(interp *in, const jobj *o, const sluice_js_str **out);
/* toISOString into buf; false when the date is invalid (toJSON: null). */
bool sluice_jsi_date_iso(const jobj *o, char buf[40]);

#endif
