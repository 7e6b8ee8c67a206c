/*
 * eval.c — evaluates Cedar expressions against one request.
 *
 * Owns: the operators' semantics as Cedar defines them: type errors are evaluation errors, ==
 * across kinds is false, Long arithmetic overflow is an error, && / || / if short-circuit, `in`
 * follows the transitive entity hierarchy, attribute access on a missing entity is an error
 * while `has` is false, plus the extension methods.
 * Does not own: combining policies into a decision (authorize.c) or parsing extension strings
 * (ipaddr.c, decimal.c, datetime.c).
 *
 * Values built here (sets, records, extension values) live in the per-decision arena; nothing
 * else allocates, so a decision over literals and attributes allocates nothing at all.
 */
#include "policy/cedar/ast.h"

#include <string.h>

#define MS_PER_DAY 86400000LL

static bool failf(cedar_eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool failf(cedar_eval *ev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ev->error = sluice_arena_vprintf(ev->arena, fmt, ap);
    va_end(ap);
    if (ev->error == NULL)
        ev->error = "out of memory while evaluating";
    return false;
}

static bool type_error(cedar_eval *ev, const char *expected, const sluice_cedar_value *got)
{
    return failf(ev, "type error: expected %s, got %s", expected,
                 sluice_cedar_kind_name(got->kind));
}

static bool want(cedar_eval *ev, const sluice_cedar_value *v, uint32_t kind)
{
    return v->kind == kind || type_error(ev, sluice_cedar_kind_name(kind), v);
}

static const char *uid_text(cedar_eval *ev, const sluice_cedar_uid *uid)
{
    sluice_buf b;
    sluice_buf_init(&b, ev->arena, 512);
    sluice_cedar_uid_print(&b, uid);
    return sluice_buf_status(&b) == SLUICE_OK ? b.data : "entity";
}

/* The request's three entities are looked up once per decision (ev->vars hold pointers to
 * the request's uids, so a pointer compare finds them). */
static const cedar_entity *find_entity(const cedar_eval *ev, const sluice_cedar_uid *uid)
{
    return sluice_cedar_entities_find(ev->entities, uid);
}

static bool in_entity(const cedar_eval *ev, const sluice_cedar_uid *a, const sluice_cedar_uid *b)
{
    return sluice_cedar_entities_in(ev->entities, a, b);
}

static bool
in_op(cedar_eval *ev, const sluice_cedar_value *a, const sluice_cedar_value *b, bool *out)
{
    if (!want(ev, a, SLUICE_CEDAR_ENTITY))
        return false;
    if (b->kind == SLUICE_CEDAR_ENTITY) {
        *out = in_entity(ev, a->u.uid, b->u.uid);
        return true;
    }
    if (b->kind != SLUICE_CEDAR_SET)
        return type_error(ev, "entity or set of entities", b);
    /* Every element must be an entity, even after a match (as Cedar checks). */
    for (uint32_t i = 0; i < b->len; i++) {
        if (b->u.items[i].kind != SLUICE_CEDAR_ENTITY)
            return type_error(ev, "entity", &b->u.items[i]);
    }
    *out = false;
    for (uint32_t i = 0; i < b->len && !*out; i++)
        *out = in_entity(ev, a->u.uid, b->u.items[i].u.uid);
    return true;
}

static bool compare(cedar_eval *ev,
                    cedar_expr_kind kind,
                    const sluice_cedar_value *a,
                    const sluice_cedar_value *b,
                    bool *out)
{
    bool ok_kind = a->kind == SLUICE_CEDAR_LONG || a->kind == SLUICE_CEDAR_DATETIME ||
                   a->kind == SLUICE_CEDAR_DURATION;
    if (!ok_kind)
        return type_error(ev, "long, datetime or duration", a);
    if (b->kind != a->kind)
        return type_error(ev, sluice_cedar_kind_name(a->kind), b);
    int64_t x = a->u.l, y = b->u.l;
    switch (kind) {
    case EX_LT:
        *out = x < y;
        break;
    case EX_LE:
        *out = x <= y;
        break;
    case EX_GT:
        *out = x > y;
        break;
    default:
        *out = x >= y;
        break;
    }
    return true;
}

static bool arith(cedar_eval *ev,
                  cedar_expr_kind kind,
                  const sluice_cedar_value *a,
                  const sluice_cedar_value *b,
                  sluice_cedar_value *out)
{
    if (!want(ev, a, SLUICE_CEDAR_LONG) || !want(ev, b, SLUICE_CEDAR_LONG))
        return false;
    int64_t r;
    bool overflow = kind == EX_ADD   ? __builtin_add_overflow(a->u.l, b->u.l, &r)
                    : kind == EX_SUB ? __builtin_sub_overflow(a->u.l, b->u.l, &r)
                                     : __builtin_mul_overflow(a->u.l, b->u.l, &r);
    if (overflow)
        return failf(ev, "integer overflow while attempting to %s `%lld` and `%lld`",
                     kind == EX_ADD   ? "add"
                     : kind == EX_SUB ? "subtract"
                                      : "multiply",
                     (long long)a->u.l, (long long)b->u.l);
    *out = sluice_cedar_value_long(r);
    return true;
}

/* Glob match: '*' (where star[i]) matches any byte run; everything else matches itself.
 * Greedy with one backtrack point, so it is linear in practice and never recursive. */
static bool
like_match(const uint8_t *s, size_t n, const uint8_t *pat, const uint8_t *star, size_t m)
{
    size_t i = 0, j = 0, star_j = SIZE_MAX, star_i = 0;
    while (i < n) {
        if (j < m && star[j]) {
            star_j = j++;
            star_i = i;
        } else if (j < m && pat[j] == s[i]) {
            i++;
            j++;
        } else if (star_j != SIZE_MAX) {
            j = star_j + 1;
            i = ++star_i;
        } else {
            return false;
        }
    }
    while (j < m && star[j])
        j++;
    return j == m;
}

/* The record behind v (a record, or an entity's attributes); NULL with an error otherwise.
 * missing_ok: a missing entity gives NULL without an error (for `has`). */
static const sluice_cedar_value *
attrs_of(cedar_eval *ev, const sluice_cedar_value *v, bool missing_ok, bool *missing)
{
    *missing = false;
    if (v->kind == SLUICE_CEDAR_RECORD)
        return v;
    if (v->kind != SLUICE_CEDAR_ENTITY) {
        type_error(ev, "record or entity", v);
        return NULL;
    }
    const cedar_entity *ent = find_entity(ev, v->u.uid);
    if (ent == NULL) {
        *missing = true;
        if (!missing_ok)
            failf(ev, "entity `%s` does not exist", uid_text(ev, v->u.uid));
        return NULL;
    }
    return &ent->attrs;
}

static bool get_attr(cedar_eval *ev,
                     const cedar_expr *e,
                     const sluice_cedar_value *obj,
                     sluice_cedar_value *out)
{
    bool missing;
    const sluice_cedar_value *rec = attrs_of(ev, obj, false, &missing);
    if (rec == NULL)
        return false;
    const sluice_cedar_value *v = sluice_cedar_record_get(rec, e->name, e->name_len);
    if (v == NULL) {
        if (obj->kind == SLUICE_CEDAR_ENTITY)
            return failf(ev, "`%s` does not have the attribute `%.*s`", uid_text(ev, obj->u.uid),
                         (int)e->name_len, e->name);
        return failf(ev, "record does not have the attribute `%.*s`", (int)e->name_len, e->name);
    }
    *out = *v;
    return true;
}

static bool has_attr(cedar_eval *ev, const cedar_expr *e, const sluice_cedar_value *obj, bool *out)
{
    bool missing;
    const sluice_cedar_value *rec = attrs_of(ev, obj, true, &missing);
    if (rec == NULL && !missing)
        return false;
    *out = rec != NULL && sluice_cedar_record_get(rec, e->name, e->name_len) != NULL;
    return true;
}

static bool eval_list(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value **out)
{
    *out = sluice_arena_alloc(ev->arena, (e->nargs ? e->nargs : 1) * sizeof(**out));
    if (*out == NULL)
        return failf(ev, "out of memory while evaluating");
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (!sluice_cedar_eval(ev, e->args[i], &(*out)[i]))
            return false;
    }
    return true;
}

static bool eval_record(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    sluice_cedar_field *f = sluice_arena_alloc(ev->arena, (e->nargs ? e->nargs : 1) * sizeof(*f));
    if (f == NULL)
        return failf(ev, "out of memory while evaluating");
    for (uint32_t i = 0; i < e->nargs; i++) {
        f[i].key = e->keys[i].key;
        f[i].key_len = e->keys[i].key_len;
        if (!sluice_cedar_eval(ev, e->args[i], &f[i].value))
            return false;
    }
    out->kind = SLUICE_CEDAR_RECORD;
    out->len = e->nargs;
    out->u.fields = f; /* keys were sorted and checked for duplicates by the parser */
    return true;
}

/* ip() / decimal() / datetime() / duration() on a computed string. */
static bool
construct(cedar_eval *ev, cedar_fn fn, const sluice_cedar_value *arg, sluice_cedar_value *out)
{
    static const char *const ext[] = { "ipaddr", "decimal", "datetime", "datetime" };
    if (!want(ev, arg, SLUICE_CEDAR_STRING))
        return false;
    const char *why;
    memset(out, 0, sizeof(*out));
    if (fn == FN_IP) {
        sluice_cedar_ip *ip = sluice_arena_alloc(ev->arena, sizeof(*ip));
        if (ip == NULL)
            return failf(ev, "out of memory while evaluating");
        why = sluice_cedar_ip_parse(arg->u.s, arg->len, ip);
        out->kind = SLUICE_CEDAR_IPADDR;
        out->u.ip = ip;
    } else if (fn == FN_DECIMAL) {
        why = sluice_cedar_decimal_parse(arg->u.s, arg->len, &out->u.l);
        out->kind = SLUICE_CEDAR_DECIMAL;
    } else if (fn == FN_DATETIME) {
        why = sluice_cedar_datetime_parse(arg->u.s, arg->len, &out->u.l);
        out->kind = SLUICE_CEDAR_DATETIME;
    } else {
        why = sluice_cedar_duration_parse(arg->u.s, arg->len, &out->u.l);
        out->kind = SLUICE_CEDAR_DURATION;
    }
    if (why != NULL)
        return failf(ev, "error while evaluating `%s` extension function: %s: `%.*s`", ext[fn], why,
                     (int)(arg->len > 80 ? 80 : arg->len), arg->u.s);
    return true;
}

static bool set_has(const sluice_cedar_value *set, const sluice_cedar_value *x)
{
    for (uint32_t i = 0; i < set->len; i++) {
        if (sluice_cedar_value_equal(&set->u.items[i], x))
            return true;
    }
    return false;
}

static bool set_method(cedar_eval *ev,
                       cedar_fn fn,
                       const sluice_cedar_value *a,
                       const sluice_cedar_value *b,
                       sluice_cedar_value *out)
{
    if (!want(ev, a, SLUICE_CEDAR_SET))
        return false;
    if (fn == FN_IS_EMPTY) {
        *out = sluice_cedar_value_bool(a->len == 0);
        return true;
    }
    if (fn == FN_CONTAINS) {
        *out = sluice_cedar_value_bool(set_has(a, b));
        return true;
    }
    if (!want(ev, b, SLUICE_CEDAR_SET))
        return false;
    bool all = fn == FN_CONTAINS_ALL, r = all;
    for (uint32_t i = 0; i < b->len && r == all; i++)
        r = set_has(a, &b->u.items[i]);
    *out = sluice_cedar_value_bool(r);
    return true;
}

static bool tag_method(cedar_eval *ev,
                       cedar_fn fn,
                       const sluice_cedar_value *a,
                       const sluice_cedar_value *b,
                       sluice_cedar_value *out)
{
    if (!want(ev, a, SLUICE_CEDAR_ENTITY) || !want(ev, b, SLUICE_CEDAR_STRING))
        return false;
    const cedar_entity *ent = find_entity(ev, a->u.uid);
    const sluice_cedar_value *tag =
        ent != NULL ? sluice_cedar_record_get(&ent->tags, b->u.s, b->len) : NULL;
    if (fn == FN_HAS_TAG) {
        *out = sluice_cedar_value_bool(tag != NULL);
        return true;
    }
    if (ent == NULL)
        return failf(ev, "entity `%s` does not exist", uid_text(ev, a->u.uid));
    if (tag == NULL)
        return failf(ev, "`%s` does not have the tag `%.*s`", uid_text(ev, a->u.uid), (int)b->len,
                     b->u.s);
    *out = *tag;
    return true;
}

static bool ip_method(cedar_eval *ev,
                      cedar_fn fn,
                      const sluice_cedar_value *a,
                      const sluice_cedar_value *b,
                      sluice_cedar_value *out)
{
    if (!want(ev, a, SLUICE_CEDAR_IPADDR))
        return false;
    const sluice_cedar_ip *ip = a->u.ip;
    bool r;
    switch (fn) {
    case FN_IS_IPV4:
        r = !ip->v6;
        break;
    case FN_IS_IPV6:
        r = ip->v6;
        break;
    case FN_IS_LOOPBACK:
        r = sluice_cedar_ip_is_loopback(ip);
        break;
    case FN_IS_MULTICAST:
        r = sluice_cedar_ip_is_multicast(ip);
        break;
    default:
        if (!want(ev, b, SLUICE_CEDAR_IPADDR))
            return false;
        r = sluice_cedar_ip_in_range(ip, b->u.ip);
    }
    *out = sluice_cedar_value_bool(r);
    return true;
}

static bool decimal_method(cedar_eval *ev,
                           cedar_fn fn,
                           const sluice_cedar_value *a,
                           const sluice_cedar_value *b,
                           sluice_cedar_value *out)
{
    if (!want(ev, a, SLUICE_CEDAR_DECIMAL) || !want(ev, b, SLUICE_CEDAR_DECIMAL))
        return false;
    int64_t x = a->u.l, y = b->u.l;
    bool r = fn == FN_LESS_THAN            ? x < y
             : fn == FN_LESS_THAN_OR_EQUAL ? x <= y
             : fn == FN_GREATER_THAN       ? x > y
                                           : x >= y;
    *out = sluice_cedar_value_bool(r);
    return true;
}

static bool time_method(cedar_eval *ev,
                        cedar_fn fn,
                        const sluice_cedar_value *a,
                        const sluice_cedar_value *b,
                        sluice_cedar_value *out)
{
    static const int64_t per_unit[] = { 1, 1000, 60000, 3600000, MS_PER_DAY };
    memset(out, 0, sizeof(*out));
    if (fn >= FN_TO_MILLISECONDS) {
        if (!want(ev, a, SLUICE_CEDAR_DURATION))
            return false;
        *out = sluice_cedar_value_long(a->u.l / per_unit[fn - FN_TO_MILLISECONDS]);
        return true;
    }
    if (!want(ev, a, SLUICE_CEDAR_DATETIME))
        return false;
    switch (fn) {
    case FN_OFFSET:
        if (!want(ev, b, SLUICE_CEDAR_DURATION))
            return false;
        out->kind = SLUICE_CEDAR_DATETIME;
        if (__builtin_add_overflow(a->u.l, b->u.l, &out->u.l))
            return failf(ev, "overflow when computing a datetime offset");
        return true;
    case FN_DURATION_SINCE:
        if (!want(ev, b, SLUICE_CEDAR_DATETIME))
            return false;
        out->kind = SLUICE_CEDAR_DURATION;
        if (__builtin_sub_overflow(a->u.l, b->u.l, &out->u.l))
            return failf(ev, "overflow when computing a duration");
        return true;
    case FN_TO_DATE:
        out->kind = SLUICE_CEDAR_DATETIME;
        if (!sluice_cedar_datetime_to_date(a->u.l, &out->u.l))
            return failf(ev, "overflow when computing toDate");
        return true;
    default: /* FN_TO_TIME */
        out->kind = SLUICE_CEDAR_DURATION;
        out->u.l = sluice_cedar_datetime_to_time(a->u.l);
        return true;
    }
}

/* Arity of each method (extension methods check it here, at evaluation, as Cedar does). */
static unsigned method_arity(cedar_fn fn)
{
    switch (fn) {
    case FN_IS_EMPTY:
    case FN_IS_IPV4:
    case FN_IS_IPV6:
    case FN_IS_LOOPBACK:
    case FN_IS_MULTICAST:
    case FN_TO_DATE:
    case FN_TO_TIME:
    case FN_TO_MILLISECONDS:
    case FN_TO_SECONDS:
    case FN_TO_MINUTES:
    case FN_TO_HOURS:
    case FN_TO_DAYS:
        return 0;
    default:
        return 1;
    }
}

static bool method(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    sluice_cedar_value a, b = { 0 }, extra;
    if (!sluice_cedar_eval(ev, e->a, &a))
        return false;
    for (uint32_t i = 0; i < e->nargs; i++) {
        if (!sluice_cedar_eval(ev, e->args[i], i == 0 ? &b : &extra))
            return false;
    }
    cedar_fn fn = (cedar_fn)e->op;
    if (e->nargs != method_arity(fn))
        return failf(ev,
                     "wrong number of arguments provided to extension function: expected "
                     "%u, got %u",
                     method_arity(fn) + 1, e->nargs + 1);
    switch (fn) {
    case FN_CONTAINS:
    case FN_CONTAINS_ALL:
    case FN_CONTAINS_ANY:
    case FN_IS_EMPTY:
        return set_method(ev, fn, &a, &b, out);
    case FN_GET_TAG:
    case FN_HAS_TAG:
        return tag_method(ev, fn, &a, &b, out);
    case FN_IS_IPV4:
    case FN_IS_IPV6:
    case FN_IS_LOOPBACK:
    case FN_IS_MULTICAST:
    case FN_IS_IN_RANGE:
        return ip_method(ev, fn, &a, &b, out);
    case FN_LESS_THAN:
    case FN_LESS_THAN_OR_EQUAL:
    case FN_GREATER_THAN:
    case FN_GREATER_THAN_OR_EQUAL:
        return decimal_method(ev, fn, &a, &b, out);
    default:
        return time_method(ev, fn, &a, &b, out);
    }
}

/* && and ||: the left side decides alone when it can; both sides must be booleans. */
static bool logic(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    sluice_cedar_value a;
    if (!sluice_cedar_eval(ev, e->a, &a) || !want(ev, &a, SLUICE_CEDAR_BOOL))
        return false;
    bool is_and = e->kind == EX_AND;
    if (a.u.b != is_and) {
        *out = a;
        return true;
    }
    return sluice_cedar_eval(ev, e->b, out) && want(ev, out, SLUICE_CEDAR_BOOL);
}

static bool binop(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    sluice_cedar_value a, b;
    if (!sluice_cedar_eval(ev, e->a, &a) || !sluice_cedar_eval(ev, e->b, &b))
        return false;
    bool r = false;
    switch (e->kind) {
    case EX_EQ:
        *out = sluice_cedar_value_bool(sluice_cedar_value_equal(&a, &b));
        return true;
    case EX_NE:
        *out = sluice_cedar_value_bool(!sluice_cedar_value_equal(&a, &b));
        return true;
    case EX_ADD:
    case EX_SUB:
    case EX_MUL:
        return arith(ev, (cedar_expr_kind)e->kind, &a, &b, out);
    case EX_IN:
        if (!in_op(ev, &a, &b, &r))
            return false;
        break;
    default:
        if (!compare(ev, (cedar_expr_kind)e->kind, &a, &b, &r))
            return false;
    }
    *out = sluice_cedar_value_bool(r);
    return true;
}

static bool unary(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    if (!sluice_cedar_eval(ev, e->a, out))
        return false;
    if (e->kind == EX_NOT) {
        if (!want(ev, out, SLUICE_CEDAR_BOOL))
            return false;
        out->u.b = !out->u.b;
        return true;
    }
    if (!want(ev, out, SLUICE_CEDAR_LONG))
        return false;
    if (out->u.l == INT64_MIN)
        return failf(ev, "integer overflow while attempting to negate `%lld`", (long long)out->u.l);
    out->u.l = -out->u.l;
    return true;
}

bool sluice_cedar_eval(cedar_eval *ev, const cedar_expr *e, sluice_cedar_value *out)
{
    sluice_cedar_value a;
    bool r;
    switch ((cedar_expr_kind)e->kind) {
    case EX_LIT:
        *out = e->lit;
        return true;
    case EX_VAR:
        *out = ev->vars[e->op];
        return true;
    case EX_NOT:
    case EX_NEG:
        return unary(ev, e, out);
    case EX_AND:
    case EX_OR:
        return logic(ev, e, out);
    case EX_IF:
        if (!sluice_cedar_eval(ev, e->a, &a) || !want(ev, &a, SLUICE_CEDAR_BOOL))
            return false;
        return sluice_cedar_eval(ev, a.u.b ? e->b : e->c, out);
    case EX_HAS:
        if (!sluice_cedar_eval(ev, e->a, &a) || !has_attr(ev, e, &a, &r))
            return false;
        *out = sluice_cedar_value_bool(r);
        return true;
    case EX_ATTR:
        return sluice_cedar_eval(ev, e->a, &a) && get_attr(ev, e, &a, out);
    case EX_LIKE:
        if (!sluice_cedar_eval(ev, e->a, &a) || !want(ev, &a, SLUICE_CEDAR_STRING))
            return false;
        *out = sluice_cedar_value_bool(
            like_match((const uint8_t *)a.u.s, a.len, e->pat, e->star, e->pat_len));
        return true;
    case EX_IS:
        if (!sluice_cedar_eval(ev, e->a, &a) || !want(ev, &a, SLUICE_CEDAR_ENTITY))
            return false;
        *out = sluice_cedar_value_bool(a.u.uid->type_len == e->name_len &&
                                       memcmp(a.u.uid->type, e->name, e->name_len) == 0);
        return true;
    case EX_SET: {
        sluice_cedar_value *items;
        if (!eval_list(ev, e, &items))
            return false;
        *out = sluice_cedar_value_set(items, e->nargs);
        return true;
    }
    case EX_RECORD:
        return eval_record(ev, e, out);
    case EX_CALL:
        if (e->nargs != 1) {
            for (uint32_t i = 0; i < e->nargs; i++) {
                if (!sluice_cedar_eval(ev, e->args[i], &a))
                    return false;
            }
            return failf(ev,
                         "wrong number of arguments provided to extension function: "
                         "expected 1, got %u",
                         e->nargs);
        }
        return sluice_cedar_eval(ev, e->args[0], &a) && construct(ev, (cedar_fn)e->op, &a, out);
    case EX_METHOD:
        return method(ev, e, out);
    default:
        return binop(ev, e, out);
    }
}

static bool type_is(const sluice_cedar_uid *uid, const cedar_scope *s)
{
    return uid->type_len == s->type_len && memcmp(uid->type, s->type, s->type_len) == 0;
}

static bool scope_matches(const cedar_eval *ev, const sluice_cedar_uid *uid, const cedar_scope *s)
{
    switch ((cedar_scope_kind)s->kind) {
    case SCOPE_ANY:
        return true;
    case SCOPE_EQ:
        return sluice_cedar_uid_eq(uid, &s->uids[0]);
    case SCOPE_IN:
        return in_entity(ev, uid, &s->uids[0]);
    case SCOPE_IS:
        return type_is(uid, s);
    case SCOPE_IS_IN:
        return type_is(uid, s) && in_entity(ev, uid, &s->uids[0]);
    case SCOPE_IN_LIST:
        for (uint32_t i = 0; i < s->count; i++) {
            if (in_entity(ev, uid, &s->uids[i]))
                return true;
        }
        return false;
    }
    return false;
}

bool sluice_cedar_scope_matches(const cedar_eval *ev, const sluice_cedar_policy *p)
{
    const sluice_cedar_request *r = ev->request;
    return scope_matches(ev, &r->principal, &p->principal) &&
           scope_matches(ev, &r->action, &p->action) &&
           scope_matches(ev, &r->resource, &p->resource);
}
