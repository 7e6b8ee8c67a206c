/*
 * taint.c — information-flow tracking for output-blocked fields: every value the plan reads
 * from one carries a label, the label follows the data through every operation and the
 * control decisions made on it, and nothing labelled leaves the plan (issue 25; the contract
 * of DESIGN.md §6.7 that SQL keeps with its engines' binders).
 *
 * Owns: labels (one per blocked field, naming the line of its first read), the join, the deep
 * walk, the === exception, the sinks' verdict and the stripping of the result.
 * Does not own: where labels enter (value.c converts an answer, marking what sits under a
 * blocked key), how operations propagate them (interp.c, lib_init.c: each operation joins its
 * operands' labels into its result), or which fields are blocked (config).
 *
 * Why the control context is never lowered: a branch not taken leaves no trace on the values
 * it would have written (`let r = 0; if (u.salary > 1e5) r = 1; return r`), so a scoped context
 * would let the untaken side answer. Once a decision depended on a blocked field, everything
 * that leaves after it is tainted. Residual channels, said in docs/openapi.md: time, and the
 * number of upstream calls made before the decision.
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <string.h>
#include <strings.h>

const char *sluice_jsi_taint_field(const interp *in, const char *key)
{
    for (size_t b = 0; b < 2; b++) {
        const sluice_strlist *l = in->opts.taint_fields[b];
        for (size_t i = 0; l != NULL && i < l->count; i++)
            if (strcasecmp(l->items[i], key) == 0)
                return l->items[i];
    }
    return NULL;
}

jtaint sluice_jsi_taint_label(interp *in, const char *field)
{
    for (size_t i = 0; i < in->origin_count; i++)
        if (strcmp(in->origins[i].field, field) == 0)
            return (jtaint)(i + 1);
    if (in->origin_count >= UINT16_MAX - 1) /* fields are configured: never this many */
        return 1;
    struct jtaint_origin *n = sluice_jsi_alloc(in, (in->origin_count + 1) * sizeof *n);
    if (n == NULL)
        return 0;
    if (in->origin_count > 0)
        memcpy(n, in->origins, in->origin_count * sizeof *n);
    n[in->origin_count] = (struct jtaint_origin){ .field = field, .line = in->line };
    in->origins = n;
    in->tainting = true;
    in->res->tainted = true;
    return (jtaint)++in->origin_count;
}

void sluice_jsi_taint_mark(jv *v, jtaint t)
{
    if (t == 0)
        return;
    v->taint = jt_join(v->taint, t);
    if (v->t == JV_ARR)
        v->u.a->taint = jt_join(v->u.a->taint, t);
    else if (v->t == JV_OBJ)
        v->u.o->taint = jt_join(v->u.o->taint, t);
}

static jtaint deep(interp *in, jv v, size_t depth)
{
    jtaint t = sluice_jsi_taint_of(v);
    if (t != 0 || !in->tainting)
        return t;
    if (depth > SLUICE_LIMIT_JS_RESULT_DEPTH)
        return 1; /* too deep to prove clean (a cycle, or nesting): the first label */
    if (v.t == JV_ARR) {
        for (size_t i = 0; t == 0 && i < v.u.a->len; i++)
            t = deep(in, v.u.a->v[i], depth + 1);
        return t;
    }
    if (v.t == JV_PROMISE)
        return deep(in, v.u.p->v, depth + 1);
    if (v.t != JV_OBJ)
        return 0;
    const jobj *o = v.u.o;
    for (size_t i = 0; t == 0 && i < o->len; i++)
        t = deep(in, o->v[i], depth + 1);
    if (t == 0 && o->is_error)
        t = jt_join(deep(in, o->err_name, depth + 1), deep(in, o->err_message, depth + 1));
    if (t == 0 && (o->coll != NULL || o->iter != NULL)) {
        jarr *items = sluice_jsi_arr_new(in, 0);
        bool handled = false;
        if (items == NULL || sluice_jsi_coll_items(in, v, items, &handled) != SLUICE_JSI_NORMAL)
            return 1; /* cannot look: assume the worst */
        t = deep(in, jv_arr(items), depth + 1);
    }
    return t;
}

jtaint sluice_jsi_taint_deep(interp *in, jv v)
{
    return deep(in, v, 0);
}

/* A value straight from a blocked field, never computed on. */
static bool raw_field(jv v)
{
    return (v.prov & JV_PROV_FIELD) && v.taint != 0 && v.t != JV_ARR && v.t != JV_OBJ;
}

/* A value the plan wrote or was given: a literal, or an input variable. */
static bool given(jv v)
{
    return v.taint == 0 && (v.prov & (JV_PROV_LITERAL | JV_PROV_ARGS)) && v.t != JV_ARR &&
           v.t != JV_OBJ;
}

jtaint sluice_jsi_taint_binary(interp *in, int op, jv a, jv b)
{
    jtaint ta = sluice_jsi_taint_of(a), tb = sluice_jsi_taint_of(b);
    if (ta == 0 && tb == 0)
        return 0;
    /* the SQL contract's exception: a blocked field may be matched (a join key, a lookup by a
     * literal or an input) without tainting what the match decides */
    if (op == SLUICE_JS_OP_SEQ || op == SLUICE_JS_OP_SNE) {
        if ((raw_field(a) && (given(b) || (raw_field(b) && b.taint == a.taint))) ||
            (raw_field(b) && given(a))) {
            in->steered = true;
            in->res->steered = true;
            return 0;
        }
    }
    return jt_join(ta, tb);
}

const char *sluice_jsi_taint_text(interp *in, jtaint t)
{
    if (t == 0 || t > in->origin_count)
        t = in->origin_count > 0 ? 1 : 0;
    if (t == 0)
        return "derived from a blocked field";
    const struct jtaint_origin *o = &in->origins[t - 1];
    char *s = sluice_arena_printf(
        in->arena, "derived from the blocked field '%s' (read at line %u)", o->field, o->line);
    return s != NULL ? s : "derived from a blocked field";
}

jcomp sluice_jsi_taint_leave(interp *in, jtaint t, const char *what, bool *redact)
{
    *redact = false;
    t = jt_join(t, in->pc);
    if (t == 0)
        return SLUICE_JSI_NORMAL;
    if (in->opts.taint_refuse)
        return sluice_jsi_fatal(in, SLUICE_E_DENIED, "blocked_output",
                                "%s holds a value %s%s; a blocked field may be used to match "
                                "records but never returned, logged, thrown or sent",
                                what, sluice_jsi_taint_text(in, t),
                                in->pc != 0 ? ", or decided by one" : "");
    *redact = true;
    in->res->redacted++;
    return SLUICE_JSI_NORMAL;
}

static jcomp strip(interp *in, jv v, jv *out, size_t depth)
{
    if (depth > SLUICE_LIMIT_JS_RESULT_DEPTH)
        return sluice_jsi_fatal(in, SLUICE_E_DENIED, "blocked_output",
                                "the plan's result nests deeper than %u levels; the output guard "
                                "refuses what it cannot walk",
                                SLUICE_LIMIT_JS_RESULT_DEPTH);
    bool redact;
    jcomp rc = sluice_jsi_taint_leave(in, sluice_jsi_taint_of(v), "the plan's result", &redact);
    if (rc != SLUICE_JSI_NORMAL || redact) {
        *out = jv_undef();
        return rc;
    }
    *out = v;
    if (v.t == JV_PROMISE)
        return strip(in, v.u.p->v, out, depth + 1);
    if (v.t == JV_ARR) {
        jarr *a = sluice_jsi_arr_new(in, v.u.a->len);
        if (a == NULL)
            return SLUICE_JSI_FATAL;
        for (size_t i = 0; i < v.u.a->len; i++) {
            if ((rc = strip(in, v.u.a->v[i], &a->v[i], depth + 1)) != SLUICE_JSI_NORMAL)
                return rc;
            if (a->v[i].t == JV_UNDEF && v.u.a->v[i].t != JV_UNDEF)
                a->v[i] = jv_null(); /* positions stay: the count was not derived */
        }
        a->len = v.u.a->len;
        *out = jv_arr(a);
        return SLUICE_JSI_NORMAL;
    }
    if (v.t != JV_OBJ || v.u.o->coll != NULL || v.u.o->iter != NULL || v.u.o->is_date)
        return SLUICE_JSI_NORMAL; /* Map, Set and Date serialize as {} or a string: their taint is
                                     shallow */
    jobj *o = sluice_jsi_obj_new(in);
    if (o == NULL)
        return SLUICE_JSI_FATAL;
    for (size_t i = 0; i < v.u.o->len; i++) {
        jv c;
        if ((rc = strip(in, v.u.o->v[i], &c, depth + 1)) != SLUICE_JSI_NORMAL)
            return rc;
        if (c.t != JV_UNDEF || v.u.o->v[i].t == JV_UNDEF)
            if (sluice_jsi_obj_set(in, o, v.u.o->k[i], c) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
    }
    *out = jv_obj(o);
    return SLUICE_JSI_NORMAL;
}

jcomp sluice_jsi_taint_strip(interp *in, jv v, jv *out)
{
    if (!in->tainting) {
        *out = v;
        return SLUICE_JSI_NORMAL;
    }
    return strip(in, v, out, 0);
}
