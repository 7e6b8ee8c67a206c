/*
 * capability.c — the capability objects `api` and `mcp`: every call goes to the host
 * (host.h), counts toward max_api_calls, and is either answered at once or left in flight
 * (a ticket the host settles later).
 *
 * Owns: the call count, the arguments as JSON, settling a call in flight, the record of
 * failed calls.
 * Does not own: the network or policy (the host: exec/js_plan.c).
 */
#include "core/limits.h"
#include "exec/js/lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jcomp record_failed(interp *in, const sluice_js_call *call, const char *message)
{
    sluice_js_run_result *res = in->res;
    sluice_js_failed_call *nf =
        sluice_arena_alloc(in->out_arena, (res->failed_count + 1) * sizeof *nf);
    if (nf == NULL)
        return sluice_jsi_nomem(in);
    if (res->failed_count > 0)
        memcpy(nf, res->failed, res->failed_count * sizeof *nf);
    const json_t *first = json_array_get(call->args, 0);
    nf[res->failed_count] = (sluice_js_failed_call){
        .object = call->object,
        .method = call->method,
        .path = call->passing.count > 0 ? "(redacted: it carries a blocked field)"
                : json_is_string(first)
                    ? sluice_arena_strdup(in->out_arena, json_string_value(first))
                    : NULL,
        .message = sluice_arena_strdup(in->out_arena, message != NULL ? message : "failed"),
        .index = call->index,
        .line = call->line,
    };
    res->failed = nf;
    res->failed_count++;
    return SLUICE_JSI_NORMAL;
}

/* Settles p with the host's answer st/result/herr for call (status contract: host.h).
 * SLUICE_JSI_NORMAL (p fulfilled or rejected) or SLUICE_JSI_FATAL. */
static jcomp settle_with(interp *in,
                         jpromise *p,
                         const sluice_js_call *call,
                         sluice_status st,
                         json_t *result,
                         const sluice_error *herr)
{
    p->pending = false;
    if (st == SLUICE_OK) {
        jv v;
        const json_t *j = result != NULL ? result : json_null();
        jcomp rc = call->passing.count > 0 ? sluice_jsi_from_lookup(in, j, &v)
                                           : sluice_jsi_from_answer(in, j, &v);
        json_decref(result);
        if (rc != SLUICE_JSI_NORMAL)
            return rc;
        if (v.t == JV_PROMISE) /* a host value is never a promise; keep the invariant anyway */
            return sluice_jsi_nomem(in);
        p->rejected = false;
        p->v = v;
        return SLUICE_JSI_NORMAL;
    }
    json_decref(result);
    const char *msg = herr->message != NULL ? herr->message : "upstream call failed";
    bool own_text = herr->key != NULL && strcmp(herr->key, "passable_fields") == 0;
    if (call->passing.count > 0 && !own_text) /* the upstream's text may quote the value */
        msg = sluice_arena_printf(in->out_arena,
                                  "%s.%s at line %u failed (%s); its message is redacted: the "
                                  "call passed the blocked field '%s'",
                                  call->object, call->method, call->line, sluice_status_name(st),
                                  call->passing.items[0]);
    if (msg == NULL)
        return sluice_jsi_nomem(in);
    if (st == SLUICE_E_ENGINE) {
        /* an upstream failure: the plan may catch it, but it is never silent */
        if (record_failed(in, call, msg) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
        sluice_js_str *m = sluice_js_str_from_utf8(in->arena, msg, strlen(msg));
        jv e = m != NULL ? sluice_jsi_make_error(in, "Error", m) : jv_undef();
        if (e.t == JV_UNDEF)
            return sluice_jsi_nomem(in);
        p->rejected = true;
        p->v = e;
        return SLUICE_JSI_NORMAL;
    }
    record_failed(in, call, msg);
    return sluice_jsi_fatal(in, st, herr->key != NULL ? herr->key : "request_policy", "%s", msg);
}

static void unlink_pending(interp *in, jpromise *p)
{
    for (jpromise **q = &in->pending; *q != NULL; q = &(*q)->next_pending)
        if (*q == p) {
            *q = p->next_pending;
            return;
        }
}

jcomp sluice_jsi_settle(interp *in, jpromise *p)
{
    if (!p->pending)
        return SLUICE_JSI_NORMAL;
    unlink_pending(in, p);
    json_t *result = NULL;
    sluice_error herr = { 0 };
    sluice_status st =
        in->opts.host.wait(in->opts.host.ctx, in->out_arena, p->ticket, &result, &herr);
    jcomp rc = settle_with(in, p, &p->call, st, result, &herr);
    json_decref(p->call.args);
    p->call.args = NULL;
    return rc;
}

jcomp sluice_jsi_settle_all(interp *in)
{
    while (in->pending != NULL)
        if (sluice_jsi_settle(in, in->pending) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    return SLUICE_JSI_NORMAL;
}

/* The arguments of a capability call as JSON (undefined as null). NULL with SLUICE_JSI_FATAL set.
 */
static json_t *
call_args(interp *in, const char *object, const char *method, const jv *args, size_t argc)
{
    json_t *jargs = json_array();
    if (jargs == NULL) {
        sluice_jsi_nomem(in);
        return NULL;
    }
    for (size_t i = 0; i < argc; i++) {
        sluice_buf b;
        sluice_buf_init(&b, in->arena, 0);
        bool undef;
        jcomp rc = sluice_jsi_json_stringify(in, args[i], NULL, &b, &undef);
        if (rc != SLUICE_JSI_NORMAL) {
            json_decref(jargs);
            if (rc == SLUICE_JSI_THROW)
                sluice_jsi_fatal(in, SLUICE_E_INVALID, "js_refused",
                                 "an argument of %s.%s at line %u cannot be sent as JSON", object,
                                 method, in->line);
            return NULL;
        }
        json_t *v = undef ? json_null() : json_loads(sluice_buf_cstr(&b), JSON_DECODE_ANY, NULL);
        if (v == NULL || json_array_append_new(jargs, v) != 0) {
            json_decref(jargs);
            sluice_jsi_fatal(in, SLUICE_E_INVALID, "js_refused",
                             "an argument of %s.%s at line %u is not JSON", object, method,
                             in->line);
            return NULL;
        }
    }
    return jargs;
}

static void decref_args(void *p)
{
    jpromise *pr = p;
    json_decref(pr->call.args);
    pr->call.args = NULL;
}

static jcomp capability_call(
    interp *in, const char *object, const char *method, const jv *args, size_t argc, jv *out)
{
    /* taken here so no later call inherits them (one made other than by a call expression) */
    const char *const *parts = in->site_parts;
    size_t part_count = in->site_part_count;
    in->site_parts = NULL;
    in->site_part_count = 0;
    int64_t max = in->opts.limits.max_api_calls;
    if (max > 0 && (int64_t)in->calls >= max)
        return sluice_jsi_fatal(
            in, SLUICE_E_LIMIT, "max_api_calls",
            "the plan tried call %zu (%s.%s at line %u) but max_api_calls = %lld; "
            "%zu calls were made",
            in->calls + 1, object, method, in->line, (long long)max, in->calls);
    sluice_strlist passing = { 0 };
    if (in->tainting) {
        /* refused in strip mode too: a request with a part cut out is a different request.
         * A value of a field passable to the operation may go (the host checks which
         * operation it is); a call decided by a blocked field never. */
        jtaint t = in->pc;
        for (size_t i = 0; i < argc && t == 0; i++)
            t = sluice_jsi_taint_deep(in, args[i]);
        if (t != 0 && (in->pc != 0 || !in->opts.host.passes_taint || in->opts.taint_clean_only ||
                       !sluice_jsi_taint_fields(in, args, argc, &passing)))
            return sluice_jsi_fatal(in, SLUICE_E_DENIED, "blocked_output",
                                    "%s.%s at line %u would send a value %s%s; a blocked field "
                                    "may be used to match records but never sent upstream, "
                                    "unless the operation lists it in passable_fields",
                                    object, method, in->line, sluice_jsi_taint_text(in, t),
                                    in->pc != 0 ? ", or decided by one" : "");
    }
    bool concurrent = in->opts.host.start != NULL && in->opts.host.wait != NULL;
    if (in->opts.host.call == NULL && !concurrent)
        return sluice_jsi_fatal(in, SLUICE_E_DENIED, "js_refused",
                                "%s is not available to this plan", object);
    jpromise *p = sluice_jsi_alloc(in, sizeof *p);
    if (p == NULL)
        return SLUICE_JSI_FATAL;
    memset(p, 0, sizeof *p);
    json_t *jargs = call_args(in, object, method, args, argc);
    if (jargs == NULL)
        return SLUICE_JSI_FATAL;
    p->call = (sluice_js_call){ .object = object,
                                .method = method,
                                .args = jargs,
                                .index = in->calls,
                                .line = in->line,
                                .passing = passing,
                                .path_parts = parts,
                                .path_part_count = part_count };
    in->calls++; /* counted before the call: failures, retries and refusals count too */
    /* on failure the cleanup has already run (arena.h): jargs is released, not ours to free */
    if (sluice_arena_cleanup_add(in->arena, decref_args, p) != SLUICE_OK)
        return sluice_jsi_nomem(in);
    *out = (jv){ .t = JV_PROMISE, .u.p = p };
    /* a lookup by a passable field: its answer depends on the value as a join's rows do on
     * the key, and steers without being tainted by it (but for echoes: from_lookup) */
    in->lookup = passing.count > 0;
    json_t *result = NULL;
    sluice_error herr = { 0 };
    sluice_status st;
    if (concurrent) {
        st = in->opts.host.start(in->opts.host.ctx, in->out_arena, &p->call, &p->ticket, &herr);
        if (st == SLUICE_OK) {
            p->pending = true;
            p->next_pending = in->pending;
            in->pending = p;
            return SLUICE_JSI_NORMAL;
        }
    } else {
        st = in->opts.host.call(in->opts.host.ctx, in->out_arena, &p->call, &result, &herr);
    }
    return settle_with(in, p, &p->call, st, result, &herr);
}

static const char *const api_verbs[] = { "get", "post", "put", "patch", "delete" };

static jcomp api_verb(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return capability_call(in, "api", api_verbs[(size_t)self.u.n], args, argc, out);
}

bool sluice_jsi_is_api_verb(jv fn)
{
    return fn.t == JV_FUNC && fn.u.f->native == api_verb;
}

/* api.<operationId>(args): the host composes the request from the operation (exec/openapi.c) */
static jcomp api_operation(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    return capability_call(in, "api", in->opts.host.api_operations->items[(size_t)self.u.n], args,
                           argc, out);
}

static jcomp mcp_call(interp *in, jv self, const jv *args, size_t argc, jv *out)
{
    (void)self;
    return capability_call(in, "mcp", "call", args, argc, out);
}

jcomp sluice_jsi_open_capability(interp *in, env *global)
{
    if (in->opts.host.has_api) {
        jobj *api = sluice_jsi_namespace(in, global, "api");
        if (api == NULL)
            return SLUICE_JSI_FATAL;
        const sluice_strlist *ops = in->opts.host.api_operations;
        /* own properties, set once: a name on Object.prototype ("constructor") is shadowed,
         * and config refuses "__proto__" and the path-form names (config/checks.h) */
        for (size_t i = 0; ops != NULL && i < ops->count; i++)
            if (sluice_jsi_set_fn(in, api, ops->items[i], api_operation, (double)i) !=
                SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
        for (size_t i = 0; (ops == NULL || ops->count == 0) && i < COUNT(api_verbs); i++)
            if (sluice_jsi_set_fn(in, api, api_verbs[i], api_verb, (double)i) != SLUICE_JSI_NORMAL)
                return SLUICE_JSI_FATAL;
    }
    if (in->opts.host.has_mcp) {
        jobj *mcp = sluice_jsi_namespace(in, global, "mcp");
        if (mcp == NULL || sluice_jsi_set_fn(in, mcp, "call", mcp_call, 0) != SLUICE_JSI_NORMAL)
            return SLUICE_JSI_FATAL;
    }
    return SLUICE_JSI_NORMAL;
}
