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

/* The label of (field, line, read), made on first use. 0 on NOMEM (SLUICE_JSI_FATAL set). */
static jtaint origin(interp *in, const char *field, uint32_t line, bool read)
{
    for (size_t i = in->origin_count; i-- > 0;) /* newest first: the read just made */
        if (in->origins[i].field == field && in->origins[i].read == read &&
            (!read || in->origins[i].line == line))
            return (jtaint)(i + 1);
    if (in->origin_count >= JT_MIXED - 1) /* one per field and line: never this many */
        return 1;
    struct jtaint_origin *n = sluice_jsi_alloc(in, (in->origin_count + 1) * sizeof *n);
    if (n == NULL)
        return 0;
    if (in->origin_count > 0)
        memcpy(n, in->origins, in->origin_count * sizeof *n);
    n[in->origin_count] = (struct jtaint_origin){ .field = field, .line = line, .read = read };
    in->origins = n;
    in->tainting = true;
    in->res->tainted = true;
    return (jtaint)++in->origin_count;
}

jtaint sluice_jsi_taint_label(interp *in, const char *field)
{
    return origin(in, field, in->line, false);
}

jtaint sluice_jsi_taint_read(interp *in, jtaint t)
{
    if (t == 0 || JT_INDEX(t) > in->origin_count)
        return t;
    const struct jtaint_origin *o = &in->origins[JT_INDEX(t) - 1];
    if (o->read)
        return t;
    jtaint r = origin(in, o->field, in->line, true);
    return r != 0 ? (jtaint)(r | (t & JT_MIXED)) : t;
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
    return (v.prov & JV_PROV_FIELD) && v.taint != 0 && !(v.taint & JT_MIXED) && v.t != JV_ARR &&
           v.t != JV_OBJ;
}

static const char *field_of(const interp *in, jtaint t)
{
    return JT_INDEX(t) - 1u < in->origin_count ? in->origins[JT_INDEX(t) - 1].field : NULL;
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
    if ((op == SLUICE_JS_OP_SEQ || op == SLUICE_JS_OP_SNE) && !in->opts.taint_clean_only) {
        if ((raw_field(a) &&
             (given(b) || (raw_field(b) && field_of(in, b.taint) == field_of(in, a.taint)))) ||
            (raw_field(b) && given(a))) {
            in->steered = true;
            in->res->steered = true;
            return 0;
        }
    }
    return jt_join(ta, tb);
}

/* Adds t's field to out; false when t mixes labels (its fields are not all known) or NOMEM. */
static bool add_field(interp *in, jtaint t, sluice_strlist *out)
{
    if (t == 0)
        return true;
    const char *f = (t & JT_MIXED) ? NULL : field_of(in, t);
    if (f == NULL)
        return false;
    if (sluice_strlist_contains(out, f))
        return true;
    const char **n = sluice_jsi_alloc(in, (out->count + 1) * sizeof *n);
    if (n == NULL)
        return false;
    if (out->count > 0)
        memcpy(n, out->items, out->count * sizeof *n);
    n[out->count] = f;
    out->items = n;
    out->count++;
    return true;
}

/* Every label v reaches, as deep() walks it, into out. false as add_field, or too deep. */
static bool fields_of(interp *in, jv v, sluice_strlist *out, size_t depth)
{
    if (depth > SLUICE_LIMIT_JS_RESULT_DEPTH || !add_field(in, sluice_jsi_taint_of(v), out))
        return false;
    bool ok = true;
    if (v.t == JV_ARR)
        for (size_t i = 0; ok && i < v.u.a->len; i++)
            ok = fields_of(in, v.u.a->v[i], out, depth + 1);
    if (v.t == JV_PROMISE)
        ok = fields_of(in, v.u.p->v, out, depth + 1);
    if (v.t != JV_OBJ)
        return ok;
    const jobj *o = v.u.o;
    for (size_t i = 0; ok && i < o->len; i++)
        ok = fields_of(in, o->v[i], out, depth + 1);
    if (ok && o->is_error)
        ok = fields_of(in, o->err_name, out, depth + 1) &&
             fields_of(in, o->err_message, out, depth + 1);
    if (ok && (o->coll != NULL || o->iter != NULL)) {
        jarr *items = sluice_jsi_arr_new(in, 0);
        bool handled = false;
        ok = items != NULL && sluice_jsi_coll_items(in, v, items, &handled) == SLUICE_JSI_NORMAL &&
             fields_of(in, jv_arr(items), out, depth + 1);
    }
    return ok;
}

bool sluice_jsi_taint_fields(interp *in, const jv *args, size_t argc, sluice_strlist *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < argc; i++)
        if (!fields_of(in, args[i], out, 0))
            return false;
    return true;
}

/* How many distinct values read from blocked fields the echo check keeps; past it, the
 * answer of every lookup is tainted whole (fail closed). */
#define RAW_MAX 256

jcomp sluice_jsi_taint_note_raw(interp *in, jv v)
{
    if (in->raw_overflow || (v.t != JV_STR && v.t != JV_NUM))
        return SLUICE_JSI_NORMAL;
    const sluice_js_str *s = sluice_jsi_to_string(in, v);
    const char *text = s != NULL ? sluice_js_str_utf8(in->arena, s) : NULL;
    if (text == NULL)
        return sluice_jsi_nomem(in);
    for (size_t i = 0; i < in->raw_count; i++)
        if (strcmp(in->raw[i].text, text) == 0)
            return SLUICE_JSI_NORMAL;
    if (in->raw_count >= RAW_MAX) {
        in->raw_overflow = true;
        return SLUICE_JSI_NORMAL;
    }
    struct jtaint_raw *n = sluice_jsi_alloc(in, (in->raw_count + 1) * sizeof *n);
    if (n == NULL)
        return SLUICE_JSI_FATAL;
    if (in->raw_count > 0)
        memcpy(n, in->raw, in->raw_count * sizeof *n);
    n[in->raw_count++] = (struct jtaint_raw){ .text = text, .label = JT_INDEX(v.taint) };
    in->raw = n;
    return SLUICE_JSI_NORMAL;
}

jtaint sluice_jsi_taint_echo(interp *in, const char *text)
{
    if (in->raw_overflow)
        return 1;
    for (size_t i = 0; i < in->raw_count; i++) {
        const char *r = in->raw[i].text;
        /* a short value would match everywhere: only the whole text then */
        if (strlen(r) >= 4 ? strcasestr(text, r) != NULL : strcasecmp(text, r) == 0)
            return in->raw[i].label;
    }
    return 0;
}

const char *sluice_jsi_taint_text(interp *in, jtaint t)
{
    if (JT_INDEX(t) == 0 || JT_INDEX(t) > in->origin_count)
        t = in->origin_count > 0 ? 1 : 0;
    if (t == 0)
        return "derived from a blocked field";
    const struct jtaint_origin *o = &in->origins[JT_INDEX(t) - 1];
    char *s =
        sluice_arena_printf(in->arena, "derived from the blocked field '%s' %s %u%s", o->field,
                            o->read ? "read at line"
                                    : "(never read by name: carried whole in the answer "
                                      "that arrived) at line",
                            o->line, (t & JT_MIXED) ? " and from other blocked values" : "");
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
    if (in->opts.taint_clean_only)
        return sluice_jsi_fatal(
            in, SLUICE_E_DENIED, "blocked_output",
            "%s holds a value %s%s, but this plan was approved below high risk, which covers only "
            "plans that read no blocked field; nothing was returned. Name the field where the "
            "plan reads it (validate_code then rates it high and asks for approval), or leave "
            "it out",
            what, sluice_jsi_taint_text(in, t), in->pc != 0 ? ", or decided by one" : "");
    *redact = true;
    in->res->redacted++;
    return SLUICE_JSI_NORMAL;
}

/* A property the output guard removes by its name (js_guard.c) in strip mode: on a run
 * approved below high risk, the value an answer carries under its own blocked key is no sign
 * the plan read it (`return user`), so it is dropped here without stopping the run. */
static bool under_blocked_key(interp *in, const sluice_js_str *k)
{
    if (!in->opts.taint_clean_only || in->opts.taint_refuse)
        return false;
    const char *u8 = sluice_js_str_utf8(in->arena, k);
    return u8 == NULL || sluice_jsi_taint_field(in, u8) != NULL; /* NOMEM: drop it, safe */
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
        if (under_blocked_key(in, v.u.o->k[i])) {
            in->res->redacted++; /* the name guard drops it whatever it holds */
            continue;
        }
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
