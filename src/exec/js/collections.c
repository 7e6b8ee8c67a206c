/*
 * collections.c — the plan language's Map and Set (and their iterators): insertion-ordered,
 * keys compared by SameValueZero, found through a hash index so a plan that groups 10,000 rows
 * stays linear.
 *
 * Owns: the collection store (entries in insertion order, deletions as tombstones compacted on
 * growth), `new Map(iterable)` / `new Set(iterable)`, the methods (get set has delete clear size
 * keys values entries forEach; add for Set), the iterators keys()/values()/entries() return
 * (next(), spread, for...of, Array.from), and the items a spread or for...of sees.
 * Does not own: `new` itself or member lookup order (interp.c), other built-ins (lib_*.c).
 *
 * One documented difference from JavaScript: iteration (for...of, spread, forEach, an
 * iterator) walks the entries as they were when it began; entries added meanwhile are not
 * visited. Every allocation counts against max_memory_bytes; every entry visited is a step.
 */
#include "exec/js/lib.h"

#include <math.h>
#include <string.h>

#define ARG(i) ((i) < argc ? args[(i)] : jv_undef())

struct jcoll {
    bool is_set;
    size_t count;     /* live entries */
    size_t n, cap;    /* entries used (live and dead), allocated */
    jv *keys, *vals;  /* vals unused for a Set */
    bool *dead;       /* deleted entries keep their slot until the next growth */
    size_t *index;    /* open addressing: entry + 1, 0 empty */
    size_t index_cap; /* a power of two, at least twice n */
};

struct jiter {
    jarr *items;
    size_t pos;
    bool of_set;
};

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* A hash agreeing with SameValueZero: -0 and 0 alike, every NaN alike, strings by content. */
static uint64_t key_hash(jv k)
{
    switch (k.t) {
    case JV_NUM: {
        double d = k.u.n == 0 ? 0.0 : k.u.n;
        if (isnan(d))
            return 0x7ff8000000000000ULL;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return mix(bits);
    }
    case JV_STR: {
        uint64_t h = 1469598103934665603ULL;
        for (size_t i = 0; i < k.u.s->len; i++)
            h = (h ^ k.u.s->u[i]) * 1099511628211ULL;
        return mix(h);
    }
    case JV_BOOL:
        return mix(2u + (uint64_t)k.u.b);
    case JV_UNDEF:
    case JV_NULL:
        return mix(k.t);
    default:
        return mix((uint64_t)(uintptr_t)k.u.a);
    }
}

/* The entry holding k, or SIZE_MAX. */
static size_t find(const jcoll *c, jv k)
{
    if (c->index_cap == 0)
        return SIZE_MAX;
    size_t mask = c->index_cap - 1;
    for (size_t i = (size_t)key_hash(k) & mask;; i = (i + 1) & mask) {
        size_t e = c->index[i];
        if (e == 0)
            return SIZE_MAX;
        if (!c->dead[e - 1] && sluice_jsi_same_value_zero(c->keys[e - 1], k))
            return e - 1;
    }
}

static void index_put(jcoll *c, size_t e)
{
    size_t mask = c->index_cap - 1;
    size_t i = (size_t)key_hash(c->keys[e]) & mask;
    while (c->index[i] != 0)
        i = (i + 1) & mask;
    c->index[i] = e + 1;
}

/* Room for one more entry: live entries compacted into bigger arrays, the index rebuilt. */
static jcomp grow(interp *in, jcoll *c)
{
    if (c->n < c->cap)
        return SLUICE_JSI_NORMAL;
    size_t cap = c->count * 2 + 8;
    size_t icap = 16;
    while (icap < cap * 2)
        icap *= 2;
    jv *keys = sluice_jsi_alloc(in, cap * sizeof *keys);
    jv *vals = sluice_jsi_alloc(in, cap * sizeof *vals);
    bool *dead = sluice_jsi_alloc(in, cap * sizeof *dead);
    size_t *index = sluice_jsi_alloc(in, icap * sizeof *index);
    if (keys == NULL || vals == NULL || dead == NULL || index == NULL)
        return SLUICE_JSI_FATAL;
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->dead[i]) {
            keys[m] = c->keys[i];
            vals[m] = c->vals[i];
            m++;
        }
    memset(dead, 0, cap * sizeof *dead);
    memset(index, 0, icap * sizeof *index);
    *c = (jcoll){ .is_set = c->is_set,
                  .count = m,
                  .n = m,
                  .cap = cap,
                  .keys = keys,
                  .vals = vals,
                  .dead = dead,
                  .index = index,
                  .index_cap = icap };
    for (size_t i = 0; i < m; i++)
        index_put(c, i);
    return SLUICE_JSI_NORMAL;
}

static jcomp coll_put(interp *in, jcoll *c, jv k, jv v)
{
    if (k.t == JV_NUM && k.u.n == 0)
        k = jv_num(0.0); /* a -0 key is stored as +0 */
    size_t e = find(c, k);
    if (e != SIZE_MAX) {
        c->vals[e] = v;
        return SLUICE_JSI_NORMAL;
    }
    if (grow(in, c) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    e = c->n++;
    c->keys[e] = k;
    c->vals[e] = v;
    c->dead[e] = false;
    c->count++;
    index_put(c, e);
    return SLUICE_JSI_NORMAL;
}

static jcoll *coll_of(jv v)
{
    return v.t == JV_OBJ ? v.u.o->coll : NULL;
}

/* what: 0 keys, 1 values, 2 entries ([k, v]). The entries as they are now, as an array. */
static jcomp snapshot(interp *in, const jcoll *c, int what, jarr **out)
{
    jarr *a = sluice_jsi_arr_new(in, c->count);
    if (a == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < c->n; i++) {
        if (c->dead[i])
            continue;
        if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        jv v = what == 0 || c->is_set ? c->keys[i] : c->vals[i];
        if (what == 2) {
            jarr *pair = sluice_jsi_arr_new(in, 2);
            if (pair == NULL || sluice_jsi_arr_push(in, pair, c->keys[i]) != SLUICE_JSI_NORMAL ||
                sluice_jsi_arr_push(in, pair, v) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            v = jv_arr(pair);
        }
        if (sluice_jsi_arr_push(in, a, v) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    *out = a;
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_coll_items(interp *in, jv v, jarr *into, bool *handled)
{
    *handled = false;
    if (v.t != JV_OBJ || (v.u.o->coll == NULL && v.u.o->iter == NULL))
        return SLUICE_JSI_NORMAL;
    *handled = true;
    jarr *items = NULL;
    size_t from = 0;
    if (v.u.o->iter != NULL) {
        items = v.u.o->iter->items;
        from = v.u.o->iter->pos;
        v.u.o->iter->pos = items->len; /* a spread consumes the iterator */
    } else if (snapshot(in, v.u.o->coll, v.u.o->coll->is_set ? 0 : 2, &items) !=
               SLUICE_JSI_NORMAL) {
        return SLUICE_JSI_FATAL;
    }
    for (size_t i = from; i < items->len; i++)
        if (sluice_jsi_arr_push(in, into, items->v[i]) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}

/* --- construction ------------------------------------------------------------------------ */

jcomp sluice_jsi_coll_construct(interp *in, bool is_set, const jv *args, size_t argc, jv *out)
{
    jobj *o = sluice_jsi_obj_new(in);
    jcoll *c = o != NULL ? sluice_jsi_alloc(in, sizeof *c) : NULL;
    if (c == NULL)
        return SLUICE_JSI_FATAL;
    memset(c, 0, sizeof *c);
    c->is_set = is_set;
    o->coll = c;
    *out = jv_obj(o);
    jv src = ARG(0);
    if (src.t == JV_UNDEF || src.t == JV_NULL)
        return SLUICE_JSI_NORMAL;
    jarr *items = sluice_jsi_arr_new(in, 0);
    if (items == NULL)
        return SLUICE_JSI_FATAL;
    bool handled = false;
    jcomp rc = sluice_jsi_coll_items(in, src, items, &handled);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    if (!handled && src.t == JV_ARR)
        items = src.u.a;
    else if (!handled && src.t == JV_STR && is_set)
        for (size_t i = 0; i < src.u.s->len; i++) {
            sluice_js_str *ch = sluice_jsi_str_units(in, &src.u.s->u[i], 1);
            if (ch == NULL || sluice_jsi_arr_push(in, items, jv_str(ch)) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        }
    else if (!handled)
        return sluice_jsi_throw(in, "TypeError", "%s is not iterable", sluice_jsi_typeof(src));
    for (size_t i = 0; i < items->len; i++) {
        if (sluice_jsi_step(in) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        jv it = items->v[i];
        if (is_set) {
            rc = coll_put(in, c, it, jv_undef());
        } else if (it.t == JV_ARR) {
            rc = coll_put(in, c, it.u.a->len > 0 ? it.u.a->v[0] : jv_undef(),
                          it.u.a->len > 1 ? it.u.a->v[1] : jv_undef());
        } else if (it.t == JV_OBJ) {
            rc = coll_put(in, c, jv_undef(), jv_undef()); /* no 0/1 keys: undefined => undefined */
        } else {
            return sluice_jsi_throw(in, "TypeError", "Iterator value %s is not an entry object",
                                    it.t == JV_STR ? "string" : sluice_jsi_typeof(it));
        }
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

/* --- methods ----------------------------------------------------------------------------- */

static jcomp m_get(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jcoll *c = coll_of(self);
    size_t e = find(c, ARG(0));
    *out = e != SIZE_MAX ? c->vals[e] : jv_undef();
    return SLUICE_JSI_NORMAL;
}

static jcomp m_set(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    *out = self;
    return coll_put(in, coll_of(self), ARG(0), ARG(1));
}

static jcomp s_add(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    *out = self;
    return coll_put(in, coll_of(self), ARG(0), jv_undef());
}

static jcomp m_has(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    *out = jv_bool(find(coll_of(self), ARG(0)) != SIZE_MAX);
    return SLUICE_JSI_NORMAL;
}

static jcomp m_delete(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    jcoll *c = coll_of(self);
    size_t e = find(c, ARG(0));
    if (e != SIZE_MAX) {
        c->dead[e] = true;
        c->count--;
    }
    *out = jv_bool(e != SIZE_MAX);
    return SLUICE_JSI_NORMAL;
}

static jcomp m_clear(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)in;
    (void)args;
    (void)argc;
    jcoll *c = coll_of(self);
    for (size_t i = 0; i < c->n; i++)
        c->dead[i] = true;
    c->count = 0;
    *out = jv_undef();
    return SLUICE_JSI_NORMAL;
}

static jcomp iterator(interp *in, jv self, int what, jv *out)
{
    jobj *o = sluice_jsi_obj_new(in);
    jiter *it = o != NULL ? sluice_jsi_alloc(in, sizeof *it) : NULL;
    if (it == NULL || snapshot(in, coll_of(self), what, &it->items) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    it->pos = 0;
    it->of_set = coll_of(self)->is_set;
    o->iter = it;
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

static jcomp m_keys(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return iterator(in, self, 0, out);
}

static jcomp m_values(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return iterator(in, self, 1, out);
}

static jcomp m_entries(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    return iterator(in, self, 2, out);
}

static jcomp m_for_each(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    jv fn = ARG(0);
    *out = jv_undef();
    if (fn.t != JV_FUNC)
        return sluice_jsi_throw(in, "TypeError", "%s is not a function", sluice_jsi_typeof(fn));
    jcoll *c = coll_of(self);
    jarr *entries = NULL;
    if (snapshot(in, c, 2, &entries) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < entries->len; i++) {
        jcomp rc = sluice_jsi_loop_tick(in);
        jarr *pair = entries->v[i].u.a;
        jv a[3] = { pair->v[1], pair->v[0], self };
        jv ignored;
        if (rc == SLUICE_JSI_NORMAL)
            rc = sluice_jsi_call(in, fn, jv_undef(), a, 3, &ignored);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp it_next(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)args;
    (void)argc;
    jiter *it = self.u.o->iter;
    jobj *r = sluice_jsi_obj_new(in);
    sluice_js_str *kv = sluice_jsi_str_ascii(in, "value"), *kd = sluice_jsi_str_ascii(in, "done");
    if (r == NULL || kv == NULL || kd == NULL)
        return SLUICE_JSI_FATAL;
    bool done = it->pos >= it->items->len;
    if (sluice_jsi_obj_set(in, r, kv, done ? jv_undef() : it->items->v[it->pos]) !=
            SLUICE_JSI_NORMAL ||
        sluice_jsi_obj_set(in, r, kd, jv_bool(done)) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    if (!done)
        it->pos++;
    *out = jv_obj(r);
    return SLUICE_JSI_NORMAL;
}

typedef struct coll_method {
    const char *name;
    native_fn fn;
    uint8_t on; /* 1 Map, 2 Set, 3 both */
} coll_method;

static const coll_method methods[] = {
    { "get", m_get, 1 },          { "set", m_set, 1 },       { "add", s_add, 2 },
    { "has", m_has, 3 },          { "delete", m_delete, 3 }, { "clear", m_clear, 3 },
    { "keys", m_keys, 3 },        { "values", m_values, 3 }, { "entries", m_entries, 3 },
    { "forEach", m_for_each, 3 },
};

jcomp sluice_jsi_coll_member(interp *in, jv self, const sluice_js_str *key, jv *out)
{
    *out = jv_undef();
    if (self.u.o->iter != NULL) {
        if (sluice_js_str_eq_ascii(key, "next")) {
            *out = sluice_jsi_native(in, it_next, self, "next");
            return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
        }
        return SLUICE_JSI_NORMAL;
    }
    jcoll *c = self.u.o->coll;
    if (sluice_js_str_eq_ascii(key, "size")) {
        *out = jv_num((double)c->count);
        return SLUICE_JSI_NORMAL;
    }
    uint8_t kind = c->is_set ? 2 : 1;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if ((methods[i].on & kind) && sluice_js_str_eq_ascii(key, methods[i].name)) {
            *out = sluice_jsi_native(in, methods[i].fn, self, methods[i].name);
            return out->t == JV_UNDEF ? SLUICE_JSI_FATAL : SLUICE_JSI_NORMAL;
        }
    return SLUICE_JSI_NORMAL;
}

const char *sluice_jsi_coll_tag(const jobj *o)
{
    if (o->iter != NULL)
        return o->iter->of_set ? "[object Set Iterator]" : "[object Map Iterator]";
    return o->coll->is_set ? "[object Set]" : "[object Map]";
}

bool sluice_jsi_coll_is_set(const jobj *o)
{
    return o->coll->is_set;
}
