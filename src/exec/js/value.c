/*
 * value.c — values, allocation under max_memory_bytes, and JavaScript's conversions (see
 * value.h): ToString, ToNumber, the equalities, Number::toString, JSON.stringify, and values from
 * JSON.
 * Does not own: evaluation (interp.c) or the built-in libraries (lib_*.c, capability.c).
 */
#include "exec/js/value.h"

#include "core/limits.h"
#include "core/vec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jcomp sluice_jsi_limit_error(interp *in, const char *key, const char *what, size_t limit)
{
    return sluice_jsi_fatal(in, SLUICE_E_LIMIT, key, "%s at line %u",
                            sluice_js_limit_text(in->arena, what, limit), in->line);
}

jcomp sluice_jsi_nomem(interp *in)
{
    return sluice_jsi_fatal(in, SLUICE_E_NOMEM, "max_memory_bytes",
                            "out of memory running the plan");
}

void *sluice_jsi_alloc(interp *in, size_t size)
{
    if (in->fatal != SLUICE_OK)
        return NULL;
    if (in->max_memory > 0 && sluice_arena_used(in->arena) - in->mem_base + size > in->max_memory) {
        sluice_jsi_fatal(in, SLUICE_E_LIMIT, "max_memory_bytes",
                         "the plan's values passed max_memory_bytes = %zu at line %u",
                         in->max_memory, in->line);
        return NULL;
    }
    void *p = sluice_arena_alloc(in->arena, size);
    if (p == NULL)
        sluice_jsi_nomem(in);
    return p;
}

sluice_js_str *sluice_jsi_str_units(interp *in, const uint16_t *u, size_t len)
{
    if (len > SLUICE_LIMIT_JS_STRING_UNITS) {
        sluice_jsi_limit_error(in, "max_memory_bytes", "a string has too many characters",
                               SLUICE_LIMIT_JS_STRING_UNITS);
        return NULL;
    }
    sluice_js_str *s = sluice_jsi_alloc(in, sizeof *s + (len + 1) * sizeof(uint16_t));
    if (s == NULL)
        return NULL;
    s->len = len;
    if (len > 0)
        memcpy(s->u, u, len * sizeof(uint16_t));
    return s;
}

sluice_js_str *sluice_jsi_str_ascii(interp *in, const char *s)
{
    size_t n = strlen(s);
    sluice_js_str *r = sluice_jsi_alloc(in, sizeof *r + (n + 1) * sizeof(uint16_t));
    if (r == NULL)
        return NULL;
    r->len = n;
    for (size_t i = 0; i < n; i++)
        r->u[i] = (unsigned char)s[i];
    return r;
}

static void *alloc_counted(void *in, size_t bytes)
{
    return sluice_jsi_alloc(in, bytes);
}

/* Room for one more of count items of elem bytes (core/vec.h's doubling, from 4), in memory
 * counted against max_memory_bytes. NULL with in fatal (the limit, or out of memory). */
static void *grow(interp *in, void *items, size_t count, size_t *cap, size_t elem)
{
    if (count < *cap) /* the common case, without a call out of this file */
        return items;
    void *n =
        sluice_vec_grow_in(&(sluice_vec_alloc){ alloc_counted, in }, items, count, cap, elem, 4);
    if (n == NULL && in->fatal == SLUICE_OK)
        sluice_jsi_nomem(in); /* the size overflowed: nothing was asked of the arena */
    return n;
}

jarr *sluice_jsi_arr_new(interp *in, size_t cap)
{
    jarr *a = sluice_jsi_alloc(in, sizeof *a);
    if (a == NULL)
        return NULL;
    a->len = 0;
    a->taint = 0;
    a->cap = cap;
    a->v = cap > 0 ? sluice_jsi_alloc(in, cap * sizeof(jv)) : NULL;
    if (cap > 0 && a->v == NULL)
        return NULL;
    return a;
}

jcomp sluice_jsi_arr_push(interp *in, jarr *a, jv v)
{
    jv *nv = grow(in, a->v, a->len, &a->cap, sizeof *nv);
    if (nv == NULL)
        return SLUICE_JSI_FATAL;
    a->v = nv;
    a->v[a->len++] = v;
    return SLUICE_JSI_NORMAL;
}

jobj *sluice_jsi_obj_new(interp *in)
{
    jobj *o = sluice_jsi_alloc(in, sizeof *o);
    if (o != NULL)
        memset(o, 0, sizeof *o);
    return o;
}

jv *sluice_jsi_obj_get(const jobj *o, const sluice_js_str *k)
{
    for (size_t i = 0; i < o->len; i++)
        if (sluice_js_str_eq(o->k[i], k))
            return &o->v[i];
    return NULL;
}

jcomp sluice_jsi_obj_set(interp *in, jobj *o, const sluice_js_str *k, jv v)
{
    jv *slot = sluice_jsi_obj_get(o, k);
    if (slot != NULL) {
        *slot = v;
        return SLUICE_JSI_NORMAL;
    }
    size_t cap = o->cap; /* the keys and values grow together */
    const sluice_js_str **nk = grow(in, o->k, o->len, &cap, sizeof *nk);
    jv *nv = nk != NULL ? grow(in, o->v, o->len, &o->cap, sizeof *nv) : NULL;
    if (nv == NULL)
        return SLUICE_JSI_FATAL;
    o->k = nk;
    o->v = nv;
    o->k[o->len] = k;
    o->v[o->len] = v;
    o->len++;
    return SLUICE_JSI_NORMAL;
}

int sluice_jsi_obj_delete(jobj *o, const sluice_js_str *k)
{
    for (size_t i = 0; i < o->len; i++) {
        if (!sluice_js_str_eq(o->k[i], k))
            continue;
        memmove(&o->k[i], &o->k[i + 1], (o->len - i - 1) * sizeof *o->k);
        memmove(&o->v[i], &o->v[i + 1], (o->len - i - 1) * sizeof *o->v);
        o->len--;
        return 1;
    }
    return 0;
}

int64_t sluice_jsi_index_of_key(const sluice_js_str *s)
{
    if (s->len == 0 || s->len > 10 || (s->len > 1 && s->u[0] == '0'))
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->u[i] < '0' || s->u[i] > '9')
            return -1;
        v = v * 10 + (s->u[i] - '0');
    }
    return v < 4294967295LL ? v : -1;
}

const sluice_js_str **sluice_jsi_obj_keys(interp *in, const jobj *o, size_t *count)
{
    const sluice_js_str **keys = sluice_jsi_alloc(in, (o->len + 1) * sizeof *keys);
    if (keys == NULL)
        return NULL;
    size_t n = 0;
    /* integer keys first, ascending (insertion sort: objects are small) */
    for (size_t i = 0; i < o->len; i++) {
        int64_t idx = sluice_jsi_index_of_key(o->k[i]);
        if (idx < 0)
            continue;
        size_t j = n++;
        while (j > 0 && sluice_jsi_index_of_key(keys[j - 1]) > idx) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = o->k[i];
    }
    for (size_t i = 0; i < o->len; i++)
        if (sluice_jsi_index_of_key(o->k[i]) < 0)
            keys[n++] = o->k[i];
    *count = n;
    return keys;
}

jv sluice_jsi_make_error(interp *in, const char *name, const sluice_js_str *message)
{
    jobj *o = sluice_jsi_obj_new(in);
    sluice_js_str *n = sluice_jsi_str_ascii(in, name);
    if (o == NULL || n == NULL)
        return jv_undef();
    o->is_error = true;
    o->err_class = name;
    o->err_name = jv_str(n);
    o->err_message = jv_str(message);
    return jv_obj(o);
}

jcomp sluice_jsi_throw(interp *in, const char *name, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sluice_js_str *m = sluice_js_str_from_utf8(in->arena, msg, strlen(msg));
    if (m == NULL)
        return sluice_jsi_nomem(in);
    jv e = sluice_jsi_make_error(in, name, m);
    if (e.t == JV_UNDEF)
        return SLUICE_JSI_FATAL;
    in->thrown = e;
    return SLUICE_JSI_THROW;
}

jcomp sluice_jsi_fatal(interp *in, sluice_status status, const char *key, const char *fmt, ...)
{
    if (in->fatal != SLUICE_OK)
        return SLUICE_JSI_FATAL;
    in->fatal = status;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sluice_error_set(in->err, in->out_arena, status, "%s", msg);
    in->err->key = key;
    in->err->line = in->line;
    return SLUICE_JSI_FATAL;
}

int sluice_jsi_truthy(jv v)
{
    switch (v.t) {
    case JV_UNDEF:
    case JV_NULL:
        return 0;
    case JV_BOOL:
        return v.u.b;
    case JV_NUM:
        return !(v.u.n == 0 || isnan(v.u.n));
    case JV_STR:
        return v.u.s->len > 0;
    default:
        return 1;
    }
}

bool sluice_jsi_is_space(uint16_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0xA0 ||
           c == 0xFEFF || c == 0x2028 || c == 0x2029 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* StringToNumber: whitespace-trimmed decimal, Infinity, or 0x/0o/0b; else NaN. */
static double string_to_number(const sluice_js_str *s)
{
    size_t b = 0, e = s->len;
    while (b < e && sluice_jsi_is_space(s->u[b]))
        b++;
    while (e > b && sluice_jsi_is_space(s->u[e - 1]))
        e--;
    if (b == e)
        return 0;
    char tmp[400];
    if (e - b >= sizeof tmp)
        return NAN;
    size_t n = 0;
    for (size_t i = b; i < e; i++) {
        if (s->u[i] > 0x7F)
            return NAN;
        tmp[n++] = (char)s->u[i];
    }
    tmp[n] = '\0';
    const char *p = tmp;
    if (n > 2 && p[0] == '0' && strchr("xXoObB", p[1]) != NULL) {
        int radix = (p[1] == 'x' || p[1] == 'X') ? 16 : (p[1] == 'o' || p[1] == 'O') ? 8 : 2;
        double v = 0;
        for (size_t i = 2; i < n; i++) {
            int c = p[i], d = c >= '0' && c <= '9'   ? c - '0'
                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                     : 99;
            if (d >= radix)
                return NAN;
            v = v * radix + d;
        }
        return v;
    }
    int sign = 1;
    if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        p++;
    }
    if (strcmp(p, "Infinity") == 0)
        return sign * INFINITY;
    /* validate the StrDecimalLiteral shape before strtod (which accepts more) */
    const char *q = p;
    size_t digits = 0;
    while (*q >= '0' && *q <= '9') {
        q++;
        digits++;
    }
    if (*q == '.') {
        q++;
        while (*q >= '0' && *q <= '9') {
            q++;
            digits++;
        }
    }
    if (digits == 0)
        return NAN;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return NAN;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q != '\0')
        return NAN;
    return sign * strtod(p, NULL);
}

double sluice_jsi_to_number(jv v)
{
    switch (v.t) {
    case JV_UNDEF:
        return NAN;
    case JV_NULL:
        return 0;
    case JV_BOOL:
        return v.u.b;
    case JV_NUM:
        return v.u.n;
    case JV_STR:
        return string_to_number(v.u.s);
    case JV_ARR:
        /* ToPrimitive of an array is its join: [] is 0, [5] is 5 */
        if (v.u.a->len == 0)
            return 0;
        if (v.u.a->len == 1) {
            jv e = v.u.a->v[0];
            if (e.t == JV_NUM || e.t == JV_STR)
                return sluice_jsi_to_number(e);
            if (e.t == JV_NULL || e.t == JV_UNDEF)
                return 0;
        }
        return NAN;
    case JV_OBJ:
        return v.u.o->is_date ? v.u.o->time : NAN; /* a Date's valueOf */
    default:
        return NAN;
    }
}

size_t sluice_jsi_shortest_digits(double n, char digits[20], int *exp10)
{
    char tmp[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, fabs(n));
        if (strtod(tmp, NULL) == fabs(n))
            break;
    }
    /* tmp: d[.ddd]e[+-]xx */
    size_t k = 0;
    const char *p = tmp;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[k++] = *p;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    *exp10 = (int)strtol(p + 1, NULL, 10);
    return k;
}

size_t sluice_jsi_number_format(double n, char *buf)
{
    if (isnan(n))
        return (size_t)snprintf(buf, 32, "NaN");
    if (n == 0)
        return (size_t)snprintf(buf, 32, "0");
    if (isinf(n))
        return (size_t)snprintf(buf, 32, n < 0 ? "-Infinity" : "Infinity");
    char digits[20];
    int e;
    size_t k = sluice_jsi_shortest_digits(n, digits, &e);
    int neg = n < 0;
    int pos = e + 1; /* the decimal point sits after this many digits */
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    if ((int)k <= pos && pos <= 21) {
        memcpy(buf + o, digits, k);
        o += k;
        for (int i = (int)k; i < pos; i++)
            buf[o++] = '0';
    } else if (0 < pos && pos <= 21) {
        memcpy(buf + o, digits, (size_t)pos);
        o += (size_t)pos;
        buf[o++] = '.';
        memcpy(buf + o, digits + pos, k - (size_t)pos);
        o += k - (size_t)pos;
    } else if (-6 < pos && pos <= 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = 0; i < -pos; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, k);
        o += k;
    } else {
        buf[o++] = digits[0];
        if (k > 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + 1, k - 1);
            o += k - 1;
        }
        o += (size_t)snprintf(buf + o, 16, "e%c%d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    buf[o] = '\0';
    return o;
}

/* Appends UTF-16 units to a growing unit buffer in the interpreter arena. */
typedef struct ubuf {
    uint16_t *u;
    size_t len, cap;
} ubuf;

static jcomp ub_put(interp *in, ubuf *b, const uint16_t *u, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        while (cap < b->len + n)
            cap *= 2;
        if (cap > SLUICE_LIMIT_JS_STRING_UNITS + 1)
            cap = b->len + n;
        if (b->len + n > SLUICE_LIMIT_JS_STRING_UNITS)
            return sluice_jsi_limit_error(in, "max_memory_bytes",
                                          "a string has too many characters",
                                          SLUICE_LIMIT_JS_STRING_UNITS);
        uint16_t *nu = sluice_jsi_alloc(in, cap * sizeof *nu);
        if (nu == NULL)
            return SLUICE_JSI_FATAL;
        if (b->len > 0)
            memcpy(nu, b->u, b->len * sizeof *nu);
        b->u = nu;
        b->cap = cap;
    }
    if (n > 0)
        memcpy(b->u + b->len, u, n * sizeof *u);
    b->len += n;
    return SLUICE_JSI_NORMAL;
}

static jcomp ub_ascii(interp *in, ubuf *b, const char *s)
{
    uint16_t tmp[64];
    size_t n = strlen(s);
    for (size_t i = 0; i < n && i < 64; i++)
        tmp[i] = (unsigned char)s[i];
    return ub_put(in, b, tmp, n < 64 ? n : 64);
}

static jcomp to_string_into(interp *in, jv v, ubuf *b, int depth);

static jcomp join_into(interp *in, const jarr *a, ubuf *b, int depth)
{
    if (depth > 64)
        return ub_ascii(in, b, "");
    for (size_t i = 0; i < a->len; i++) {
        if (i > 0 && ub_ascii(in, b, ",") != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        if (a->v[i].t != JV_UNDEF && a->v[i].t != JV_NULL &&
            to_string_into(in, a->v[i], b, depth + 1) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    return SLUICE_JSI_NORMAL;
}

static jcomp to_string_into(interp *in, jv v, ubuf *b, int depth)
{
    char num[40];
    switch (v.t) {
    case JV_UNDEF:
        return ub_ascii(in, b, "undefined");
    case JV_NULL:
        return ub_ascii(in, b, "null");
    case JV_BOOL:
        return ub_ascii(in, b, v.u.b ? "true" : "false");
    case JV_NUM:
        sluice_jsi_number_format(v.u.n, num);
        return ub_ascii(in, b, num);
    case JV_STR:
        return ub_put(in, b, v.u.s->u, v.u.s->len);
    case JV_ARR:
        return join_into(in, v.u.a, b, depth);
    case JV_OBJ:
        if (v.u.o->is_error) {
            /* Error.prototype.toString: "Name: message" (or just the name) */
            if (to_string_into(in, v.u.o->err_name, b, depth) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            if (v.u.o->err_message.t == JV_STR && v.u.o->err_message.u.s->len > 0) {
                if (ub_ascii(in, b, ": ") != SLUICE_JSI_NORMAL)
                    return SLUICE_JSI_FATAL;
                return to_string_into(in, v.u.o->err_message, b, depth);
            }
            return SLUICE_JSI_NORMAL;
        }
        if (v.u.o->is_date) {
            const sluice_js_str *ds;
            if (sluice_jsi_date_string(in, v.u.o, &ds) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            return ub_put(in, b, ds->u, ds->len);
        }
        if (v.u.o->coll != NULL || v.u.o->iter != NULL)
            return ub_ascii(in, b, sluice_jsi_coll_tag(v.u.o));
        return ub_ascii(in, b, "[object Object]");
    case JV_PROMISE:
        return ub_ascii(in, b, "[object Promise]");
    case JV_FUNC:
        return ub_ascii(in, b, "function () { [native code] }");
    default:
        return ub_ascii(in, b, "");
    }
}

const sluice_js_str *sluice_jsi_to_string(interp *in, jv v)
{
    if (v.t == JV_STR)
        return v.u.s;
    ubuf b = { 0 };
    if (to_string_into(in, v, &b, 0) != SLUICE_JSI_NORMAL)
        return NULL;
    return sluice_jsi_str_units(in, b.u, b.len);
}

const sluice_js_str *sluice_jsi_to_key(interp *in, jv v)
{
    return sluice_jsi_to_string(in, v);
}

int sluice_jsi_strict_equals(jv a, jv b)
{
    if (a.t != b.t)
        return 0;
    switch (a.t) {
    case JV_UNDEF:
    case JV_NULL:
        return 1;
    case JV_BOOL:
        return a.u.b == b.u.b;
    case JV_NUM:
        return a.u.n == b.u.n;
    case JV_STR:
        return sluice_js_str_eq(a.u.s, b.u.s);
    default:
        return a.u.a == b.u.a; /* identity (the union's pointers alias) */
    }
}

int sluice_jsi_same_value_zero(jv a, jv b)
{
    if (a.t == JV_NUM && b.t == JV_NUM && isnan(a.u.n) && isnan(b.u.n))
        return 1;
    return sluice_jsi_strict_equals(a, b);
}

static int is_object(jv v)
{
    return v.t == JV_ARR || v.t == JV_OBJ || v.t == JV_FUNC || v.t == JV_PROMISE;
}

int sluice_jsi_loose_equals(interp *in, jv a, jv b)
{
    if (a.t == b.t)
        return sluice_jsi_strict_equals(a, b);
    int an = a.t == JV_NULL || a.t == JV_UNDEF, bn = b.t == JV_NULL || b.t == JV_UNDEF;
    if (an || bn)
        return an && bn;
    if (is_object(a) && is_object(b))
        return 0;
    if (is_object(a)) {
        const sluice_js_str *s = sluice_jsi_to_string(in, a);
        return s != NULL && sluice_jsi_loose_equals(in, jv_str(s), b);
    }
    if (is_object(b)) {
        const sluice_js_str *s = sluice_jsi_to_string(in, b);
        return s != NULL && sluice_jsi_loose_equals(in, a, jv_str(s));
    }
    return sluice_jsi_to_number(a) == sluice_jsi_to_number(b);
}

int sluice_jsi_str_cmp(const sluice_js_str *a, const sluice_js_str *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    for (size_t i = 0; i < n; i++)
        if (a->u[i] != b->u[i])
            return a->u[i] < b->u[i] ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

const char *sluice_jsi_typeof(jv v)
{
    switch (v.t) {
    case JV_UNDEF:
        return "undefined";
    case JV_BOOL:
        return "boolean";
    case JV_NUM:
        return "number";
    case JV_STR:
        return "string";
    case JV_FUNC:
        return "function";
    default:
        return "object";
    }
}

/* --- JSON.stringify ------------------------------------------------------------------------ */

static void json_quote(sluice_buf *b, const sluice_js_str *s)
{
    sluice_buf_putc(b, '"');
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->u[i];
        switch (c) {
        case '"':
            sluice_buf_puts(b, "\\\"");
            continue;
        case '\\':
            sluice_buf_puts(b, "\\\\");
            continue;
        case '\b':
            sluice_buf_puts(b, "\\b");
            continue;
        case '\f':
            sluice_buf_puts(b, "\\f");
            continue;
        case '\n':
            sluice_buf_puts(b, "\\n");
            continue;
        case '\r':
            sluice_buf_puts(b, "\\r");
            continue;
        case '\t':
            sluice_buf_puts(b, "\\t");
            continue;
        default:
            break;
        }
        if (c < 0x20) {
            sluice_buf_printf(b, "\\u%04x", c);
            continue;
        }
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s->len && s->u[i + 1] >= 0xDC00 &&
            s->u[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (s->u[i + 1] - 0xDC00);
            i++;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            sluice_buf_printf(b, "\\u%04x", c); /* well-formed JSON.stringify (ES2019) */
            continue;
        }
        char u8[4];
        size_t n;
        if (c < 0x80) {
            u8[0] = (char)c;
            n = 1;
        } else if (c < 0x800) {
            u8[0] = (char)(0xC0 | (c >> 6));
            u8[1] = (char)(0x80 | (c & 0x3F));
            n = 2;
        } else if (c < 0x10000) {
            u8[0] = (char)(0xE0 | (c >> 12));
            u8[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            u8[2] = (char)(0x80 | (c & 0x3F));
            n = 3;
        } else {
            u8[0] = (char)(0xF0 | (c >> 18));
            u8[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            u8[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            u8[3] = (char)(0x80 | (c & 0x3F));
            n = 4;
        }
        sluice_buf_append(b, u8, n);
    }
    sluice_buf_putc(b, '"');
}

typedef struct stringifier {
    interp *in;
    sluice_buf *b;
    const char *indent; /* UTF-8 indent unit, "" for compact */
    const void *stack[SLUICE_LIMIT_NESTING_DEPTH * 4];
    size_t depth;
} stringifier;

static void newline_indent(stringifier *s)
{
    if (s->indent[0] == '\0')
        return;
    sluice_buf_putc(s->b, '\n');
    for (size_t i = 0; i < s->depth; i++)
        sluice_buf_puts(s->b, s->indent);
}

static int serializable(jv v)
{
    return v.t != JV_UNDEF && v.t != JV_FUNC;
}

static jcomp stringify_value(stringifier *s, jv v);

static jcomp enter_value(stringifier *s, const void *p)
{
    for (size_t i = 0; i < s->depth; i++)
        if (s->stack[i] == p)
            return sluice_jsi_throw(s->in, "TypeError", "Converting circular structure to JSON");
    if (s->depth >= sizeof s->stack / sizeof s->stack[0])
        return sluice_jsi_throw(s->in, "RangeError",
                                "value nests too deep to serialize (limit %zu)",
                                sizeof s->stack / sizeof s->stack[0]);
    s->stack[s->depth++] = p;
    return SLUICE_JSI_NORMAL;
}

static jcomp stringify_array(stringifier *s, const jarr *a)
{
    jcomp rc = enter_value(s, a);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    sluice_buf_putc(s->b, '[');
    for (size_t i = 0; i < a->len; i++) {
        if (i > 0)
            sluice_buf_putc(s->b, ',');
        newline_indent(s);
        if (!serializable(a->v[i]))
            sluice_buf_puts(s->b, "null");
        else if ((rc = stringify_value(s, a->v[i])) != SLUICE_JSI_NORMAL)
            return rc;
    }
    s->depth--;
    if (a->len > 0)
        newline_indent(s);
    sluice_buf_putc(s->b, ']');
    return SLUICE_JSI_NORMAL;
}

static jcomp stringify_object(stringifier *s, const jobj *o)
{
    if (o->is_date) { /* toJSON: its ISO string, null when invalid */
        char iso[40];
        if (!sluice_jsi_date_iso(o, iso)) {
            sluice_buf_puts(s->b, "null");
            return SLUICE_JSI_NORMAL;
        }
        sluice_buf_printf(s->b, "\"%s\"", iso);
        return SLUICE_JSI_NORMAL;
    }
    jcomp rc = enter_value(s, o);
    if (rc != SLUICE_JSI_NORMAL)
        return rc;
    size_t n;
    const sluice_js_str **keys = sluice_jsi_obj_keys(s->in, o, &n);
    if (keys == NULL)
        return SLUICE_JSI_FATAL;
    sluice_buf_putc(s->b, '{');
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        jv v = *sluice_jsi_obj_get(o, keys[i]);
        if (!serializable(v))
            continue;
        if (any++)
            sluice_buf_putc(s->b, ',');
        newline_indent(s);
        json_quote(s->b, keys[i]);
        sluice_buf_putc(s->b, ':');
        if (s->indent[0] != '\0')
            sluice_buf_putc(s->b, ' ');
        if ((rc = stringify_value(s, v)) != SLUICE_JSI_NORMAL)
            return rc;
    }
    s->depth--;
    if (any)
        newline_indent(s);
    sluice_buf_putc(s->b, '}');
    return SLUICE_JSI_NORMAL;
}

static jcomp stringify_value(stringifier *s, jv v)
{
    char num[40];
    if (sluice_jsi_step(s->in) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    switch (v.t) {
    case JV_NULL:
        sluice_buf_puts(s->b, "null");
        break;
    case JV_BOOL:
        sluice_buf_puts(s->b, v.u.b ? "true" : "false");
        break;
    case JV_NUM:
        if (!isfinite(v.u.n)) {
            sluice_buf_puts(s->b, "null");
        } else {
            sluice_jsi_number_format(v.u.n, num);
            sluice_buf_puts(s->b, num);
        }
        break;
    case JV_STR:
        json_quote(s->b, v.u.s);
        break;
    case JV_ARR:
        return stringify_array(s, v.u.a);
    case JV_OBJ:
        return stringify_object(s, v.u.o);
    case JV_PROMISE:
        sluice_buf_puts(s->b, "{}");
        break;
    default:
        sluice_buf_puts(s->b, "null");
        break;
    }
    if (sluice_buf_status(s->b) != SLUICE_OK)
        return sluice_jsi_fatal(s->in, SLUICE_E_LIMIT, "max_memory_bytes",
                                "the serialized value passes max_memory_bytes");
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_json_stringify(
    interp *in, jv v, const sluice_js_str *indent, sluice_buf *b, bool *undefined_out)
{
    *undefined_out = !serializable(v);
    if (*undefined_out)
        return SLUICE_JSI_NORMAL;
    stringifier *s = sluice_jsi_alloc(in, sizeof *s);
    if (s == NULL)
        return SLUICE_JSI_FATAL;
    memset(s, 0, sizeof *s);
    s->in = in;
    s->b = b;
    s->indent = "";
    if (indent != NULL) {
        char *u8 = sluice_js_str_utf8(in->arena, indent);
        if (u8 == NULL)
            return sluice_jsi_nomem(in);
        s->indent = u8;
    }
    jcomp rc = stringify_value(s, v);
    if (rc == SLUICE_JSI_NORMAL && sluice_buf_status(b) != SLUICE_OK)
        return sluice_jsi_fatal(in, SLUICE_E_LIMIT, "max_memory_bytes",
                                "the serialized value passes max_memory_bytes");
    return rc;
}

/* --- values from JSON ---------------------------------------------------------------------- */

/* How values read from JSON are marked: prov on every leaf, taint (a blocked field's label)
 * on everything under it, and whether keys are checked against the blocked fields. */
typedef struct json_mark {
    uint8_t prov;
    jtaint taint;
    bool scan;
    bool echo; /* a lookup's answer: values the plan read are tainted where they appear */
} json_mark;

static jcomp from_json_depth(interp *in, const json_t *j, jv *out, int depth, json_mark m);

static const char *field_in_json(const interp *in, const json_t *j, unsigned depth);

/* What field_in_text answers when it cannot tell (out of memory, too deep): the first blocked
 * field, so the string is held as carrying one (fail closed). */
static const char *any_field(const interp *in)
{
    for (size_t b = 0; b < 2; b++)
        if (in->opts.taint_fields[b] != NULL && in->opts.taint_fields[b]->count > 0)
            return in->opts.taint_fields[b]->items[0];
    return NULL;
}

/* The first blocked field a key names anywhere in text when text is JSON (an object, an array,
 * or a string holding one): upstreams put whole records in strings (an MCP tool's text, a raw
 * body under a key), and the plan can JSON.parse them. NULL when text is not such JSON or names
 * no blocked field; any_field when it cannot tell. */
static const char *field_in_text(const interp *in, const char *text, size_t len, unsigned depth)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i == len || (text[i] != '{' && text[i] != '[' && text[i] != '"') || any_field(in) == NULL)
        return NULL; /* not JSON, or nothing is blocked */
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (j == NULL) /* not JSON: a plain string; unread for want of memory: held blocked */
        return json_error_code(&jerr) == json_error_out_of_memory ? any_field(in) : NULL;
    const char *field = field_in_json(in, j, depth + 1);
    json_decref(j);
    return field;
}

static const char *field_in_json(const interp *in, const json_t *j, unsigned depth)
{
    if (depth > SLUICE_LIMIT_NESTING_DEPTH)
        return any_field(in);
    if (json_is_string(j))
        return field_in_text(in, json_string_value(j), json_string_length(j), depth);
    const char *field = NULL;
    size_t i;
    const json_t *e;
    json_array_foreach(j, i, e)
    {
        if (field == NULL)
            field = field_in_json(in, e, depth + 1);
    }
    const char *k;
    json_object_foreach((json_t *)j, k, e)
    {
        if (field == NULL && (field = sluice_jsi_taint_field(in, k)) == NULL)
            field = field_in_json(in, e, depth + 1);
    }
    return field;
}

static jcomp from_json_object(interp *in, const json_t *j, jv *out, int depth, json_mark m)
{
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    o->taint = m.taint;
    const char *k;
    const json_t *e;
    json_object_foreach((json_t *)j, k, e)
    {
        jv v;
        json_mark cm = m;
        if (m.echo && o->taint == 0) /* a key echoing a value: the object's shape says it */
            o->taint = sluice_jsi_taint_echo(in, k);
        const char *field = m.scan && m.taint == 0 ? sluice_jsi_taint_field(in, k) : NULL;
        if (field != NULL) {
            if ((cm.taint = sluice_jsi_taint_label(in, field)) == 0)
                return SLUICE_JSI_FATAL;
            cm.prov = JV_PROV_FIELD;
        }
        sluice_js_str *ks = sluice_js_str_from_utf8(in->arena, k, strlen(k));
        if (ks == NULL)
            return sluice_jsi_nomem(in);
        if (from_json_depth(in, e, &v, depth + 1, cm) != SLUICE_JSI_NORMAL ||
            sluice_jsi_obj_set(in, o, ks, v) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

static jcomp from_json_depth(interp *in, const json_t *j, jv *out, int depth, json_mark m)
{
    if (depth > (int)SLUICE_LIMIT_NESTING_DEPTH)
        return sluice_jsi_fatal(in, SLUICE_E_LIMIT, "max_memory_bytes", "JSON nests too deep");
    switch (json_typeof(j)) {
    case JSON_NULL:
        *out = jv_null();
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        *out = jv_bool(json_is_true(j));
        break;
    case JSON_INTEGER:
        *out = jv_num((double)json_integer_value(j));
        break;
    case JSON_REAL:
        *out = jv_num(json_real_value(j));
        break;
    case JSON_STRING: {
        sluice_js_str *s =
            sluice_js_str_from_utf8(in->arena, json_string_value(j), json_string_length(j));
        if (s == NULL)
            return sluice_jsi_nomem(in);
        *out = jv_str(s);
        const char *field = m.scan && m.taint == 0
                                ? field_in_text(in, json_string_value(j), json_string_length(j), 0)
                                : NULL;
        if (field != NULL) { /* a record inside the string: the whole string carries it */
            out->prov = m.prov;
            return (out->taint = sluice_jsi_taint_label(in, field)) != 0 ? SLUICE_JSI_NORMAL
                                                                         : SLUICE_JSI_FATAL;
        }
        break;
    }
    case JSON_ARRAY: {
        jarr *a = sluice_jsi_arr_new(in, json_array_size(j));
        if (a == NULL)
            return SLUICE_JSI_FATAL;
        a->taint = m.taint;
        size_t i;
        const json_t *e;
        json_array_foreach(j, i, e)
        {
            jv v;
            if (from_json_depth(in, e, &v, depth + 1, m) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
            a->v[a->len++] = v;
        }
        *out = jv_arr(a);
        return SLUICE_JSI_NORMAL;
    }
    case JSON_OBJECT:
        return from_json_object(in, j, out, depth, m);
    default:
        *out = jv_undef();
        break;
    }
    out->prov = m.prov;
    out->taint = m.taint;
    if (m.taint != 0 && m.scan && in->opts.host.passes_taint &&
        sluice_jsi_taint_note_raw(in, *out) != SLUICE_JSI_NORMAL)
        return SLUICE_JSI_FATAL;
    if (m.echo && m.taint == 0 && (json_is_string(j) || json_is_number(j))) {
        char num[64];
        if (json_is_number(j))
            snprintf(num, sizeof num, "%.17g", json_number_value(j));
        out->taint = sluice_jsi_taint_echo(in, json_is_string(j) ? json_string_value(j) : num);
    }
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_from_json(interp *in, const json_t *j, jv *out)
{
    return from_json_depth(in, j, out, 0, (json_mark){ 0 });
}

jcomp sluice_jsi_from_answer(interp *in, const json_t *j, jv *out)
{
    bool scan = in->opts.taint_fields[0] != NULL || in->opts.taint_fields[1] != NULL;
    return from_json_depth(in, j, out, 0, (json_mark){ .scan = scan });
}

jcomp sluice_jsi_from_lookup(interp *in, const json_t *j, jv *out)
{
    return from_json_depth(in, j, out, 0, (json_mark){ .scan = true, .echo = true });
}

jcomp sluice_jsi_from_args(interp *in, const json_t *j, jv *out)
{
    return from_json_depth(in, j, out, 0, (json_mark){ .prov = JV_PROV_ARGS });
}
