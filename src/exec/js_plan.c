/*
 * js_plan.c — the JavaScript plan executor (see js_plan.h): parse, run with the host dispatch,
 * record every call, guard and cap the result, and report a failure with what was done.
 *
 * Owns: the dispatch from the interpreter's calls to the api and mcp backends (tickets are
 * the call's index in the run; the backend's own ticket is kept beside it), the call records,
 * and the translation of the run's outcome into a sluice_exec_result or a failure.
 * Does not own: the interpreter (exec/js/), HTTP (exec/openapi_http.c), MCP, policy.
 */
#include "exec/js_plan.h"

#include "core/buf.h"
#include "core/limits.h"
#include "core/vec.h"
#include "syntax/js/parse.h"

#include <string.h>

typedef struct slot {
    const sluice_js_backend *backend;
    uint64_t ticket; /* the backend's */
    bool redact;     /* it passed a blocked field: its arguments and answer text stay inside */
} slot;

typedef struct dispatch {
    const sluice_js_plan *plan;
    sluice_arena *arena;
    slot *slots; /* by call index */
    size_t slot_cap;
    json_t *calls;  /* one record per call, by index */
    json_t *failed; /* records of failed calls */
} dispatch;

static const sluice_js_backend *backend_for(const dispatch *d, const char *object)
{
    if (strcmp(object, "api") == 0)
        return &d->plan->api;
    if (strcmp(object, "mcp") == 0)
        return &d->plan->mcp;
    return NULL;
}

/* Room for call index i. false on NOMEM or past SLUICE_LIMIT_JS_CALL_RECORDS. */
static bool grow(dispatch *d, size_t i)
{
    if (i < d->slot_cap)
        return true;
    if (i >= SLUICE_LIMIT_JS_CALL_RECORDS)
        return false;
    slot *n = sluice_vec_reserve(d->arena, d->slots, i + 1, &d->slot_cap, sizeof *n, 16);
    if (n == NULL)
        return false;
    d->slots = n;
    return true;
}

/* What a record, the failure text and the audit show in place of what a call passed. */
#define REDACTED_TARGET "(redacted: it carries a blocked field)"

/* The record of a call as it starts: {index, line, call, target[, tool]}. NULL on NOMEM. */
static json_t *new_record(const sluice_js_call *call)
{
    const json_t *a0 = json_array_get(call->args, 0), *a1 = json_array_get(call->args, 1);
    if (call->passing.count > 0)
        return json_pack("{s:I, s:I, s:s++, s:s, s:s}", "index", (json_int_t)call->index, "line",
                         (json_int_t)call->line, "call", call->object, ".", call->method, "target",
                         REDACTED_TARGET, "passed_field", call->passing.items[0]);
    json_t *r = json_pack("{s:I, s:I, s:s++, s:O?}", "index", (json_int_t)call->index, "line",
                          (json_int_t)call->line, "call", call->object, ".", call->method, "target",
                          json_is_string(a0) ? a0 : NULL);
    if (r != NULL && strcmp(call->object, "mcp") == 0 && json_is_string(a1))
        json_object_set(r, "tool", (json_t *)a1);
    return r;
}

/* Marks record i done with st (and err's message); merges the backend's description. */
static void finish_record(dispatch *d, size_t i, sluice_status st, const sluice_error *err)
{
    json_t *r = json_array_get(d->calls, i);
    if (r == NULL)
        return;
    const slot *s = &d->slots[i];
    if (s->backend != NULL && s->backend->describe != NULL) {
        json_t *more = s->backend->describe(s->backend->ctx, s->ticket);
        if (json_is_object(more))
            json_object_update(r, more);
        json_decref(more);
        if (s->redact) /* a hash of what it passed: a small value space is guessed */
            json_object_del(r, "idempotency_key");
    }
    json_object_set_new(r, "outcome",
                        json_string(st == SLUICE_OK         ? "ok"
                                    : st == SLUICE_E_ENGINE ? "failed"
                                                            : "refused"));
    if (st != SLUICE_OK) {
        const char *text =
            err != NULL && err->message != NULL ? err->message : sluice_status_name(st);
        if (s->redact &&
            !(err != NULL && err->key != NULL && strcmp(err->key, "passable_fields") == 0))
            text = sluice_arena_printf(d->arena,
                                       "%s (its message is redacted: the call passed a "
                                       "blocked field, which the text may quote)",
                                       sluice_status_name(st));
        if (text == NULL)
            text = sluice_status_name(st);
        json_object_set_new(r, "error", json_string(text));
        json_array_append(d->failed, r);
    }
}

static sluice_status d_start(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, uint64_t *ticket, sluice_error *err)
{
    dispatch *d = ctx;
    const sluice_js_backend *b = backend_for(d, call->object);
    if (b == NULL || b->start == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "%s.%s at line %u: this plan has no '%s' backend", call->object,
                                call->method, call->line, call->object);
    if (call->passing.count > 0 && !b->passes_taint)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "%s.%s at line %u would send the blocked field '%s'; only "
                                "OpenAPI operations take passable fields",
                                call->object, call->method, call->line, call->passing.items[0]);
    json_t *rec = new_record(call);
    if (!grow(d, call->index) || rec == NULL || json_array_size(d->calls) != call->index ||
        json_array_append_new(d->calls, rec) != 0)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory recording a call");
    d->slots[call->index].backend = b;
    d->slots[call->index].redact = call->passing.count > 0;
    *ticket = call->index;
    sluice_status st = b->start(b->ctx, arena, call, &d->slots[call->index].ticket, err);
    if (st != SLUICE_OK)
        finish_record(d, call->index, st, err);
    return st;
}

static sluice_status
d_wait(void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err)
{
    dispatch *d = ctx;
    if (ticket >= d->slot_cap || d->slots[ticket].backend == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL, "unknown call %llu",
                                (unsigned long long)ticket);
    const slot *s = &d->slots[ticket];
    sluice_status st = s->backend->wait(s->backend->ctx, arena, s->ticket, result, err);
    finish_record(d, (size_t)ticket, st, err);
    return st;
}

/* "2 calls: #0 api.post /budgets/listForecasts ok 200; #1 api.get /users/7 failed 500" */
static const char *calls_text(sluice_arena *arena, const json_t *calls)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    size_t n = json_array_size(calls);
    sluice_buf_printf(&b, "%zu call%s made", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < 20; i++) {
        const json_t *r = json_array_get(calls, i);
        const json_t *status = json_object_get(r, "status");
        const json_t *target = json_object_get(r, "target"); /* an SDK call has none */
        sluice_buf_printf(&b, "%s#%lld %s%s%s %s", i == 0 ? ": " : "; ",
                          (long long)json_integer_value(json_object_get(r, "index")),
                          json_string_value(json_object_get(r, "call")),
                          json_is_string(target) ? " " : "",
                          json_is_string(target) ? json_string_value(target) : "",
                          json_is_string(json_object_get(r, "outcome"))
                              ? json_string_value(json_object_get(r, "outcome"))
                              : "in flight");
        if (json_is_integer(status))
            sluice_buf_printf(&b, " %lld", (long long)json_integer_value(status));
    }
    if (n > 20)
        sluice_buf_printf(&b, "; ... %zu more", n - 20);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "calls made: (unknown)";
}

static void decref_cb(void *p)
{
    json_decref(p);
}

/* Owns j in arena. false on NOMEM (j released). */
static bool own(sluice_arena *arena, json_t *j)
{
    if (j == NULL)
        return false;
    /* on failure the cleanup has already released j (arena.h) */
    return sluice_arena_cleanup_add(arena, decref_cb, j) == SLUICE_OK;
}

/* The returned value guarded and capped into out. */
static sluice_status shape(sluice_arena *arena,
                           const sluice_js_plan *plan,
                           const char *json,
                           sluice_exec_result *out,
                           sluice_error *err)
{
    json_t *v =
        json != NULL ? json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL) : json_null();
    if (!own(arena, v))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading the result");
    size_t stripped = 0;
    const char *hit = NULL;
    sluice_status st = sluice_js_guard_blocked(arena, v, plan->blocked, plan->refuse_blocked,
                                               &stripped, &hit, err);
    if (st != SLUICE_OK)
        return st;
    json_t *capped = NULL;
    st = sluice_js_guard_cap(v, plan->limits.max_bytes, &capped, &out->truncated, &out->bytes, err);
    if (st != SLUICE_OK || !own(arena, capped))
        return st != SLUICE_OK ? st : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    out->value = capped;
    out->truncated_by = out->truncated ? "max_bytes" : NULL;
    return SLUICE_OK;
}

/* A run that did not return: the message with the line and the calls made. */
static sluice_status failure(sluice_arena *arena,
                             sluice_status st,
                             const sluice_js_run_result *res,
                             const dispatch *d,
                             sluice_error *err)
{
    const char *calls = calls_text(arena, d->calls);
    if (st == SLUICE_OK) { /* the plan threw */
        sluice_error_set(err, arena, SLUICE_E_ENGINE, "the plan threw at line %u: %s: %s (%s)",
                         res->error_line, res->error_name != NULL ? res->error_name : "Error",
                         res->error_message != NULL ? res->error_message : "", calls);
        err->line = res->error_line;
        err->key = "plan_threw";
        return SLUICE_E_ENGINE;
    }
    const char *key = err->key;
    const char *msg = err->message != NULL ? err->message : sluice_status_name(st);
    sluice_error_set(err, arena, st, "%s (%s)", msg, calls);
    err->key = key;
    return st;
}

sluice_status sluice_js_plan_execute(sluice_arena *arena,
                                     const sluice_js_plan *plan,
                                     sluice_exec_result *out,
                                     sluice_error *err)
{
    memset(out, 0, sizeof *out);
    out->shape = SLUICE_EXEC_VALUE;
    out->statement_type = "PLAN";
    const sluice_clock *clock = plan->clock != NULL ? plan->clock : sluice_clock_system();
    int64_t started = sluice_clock_monotonic_ns(clock);
    sluice_js_program prog;
    sluice_status st = sluice_js_parse(arena, plan->code, plan->code_len, &prog, err);
    if (st != SLUICE_OK)
        return st;
    dispatch d = { .plan = plan, .arena = arena, .calls = json_array(), .failed = json_array() };
    if (!own(arena, d.calls) || !own(arena, d.failed))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory starting the plan");
    out->calls = d.calls;
    out->failed_calls = d.failed;
    sluice_js_run_options opts = {
        .limits = plan->limits,
        .args = plan->args,
        .clock = plan->clock,
        .host = { .start = d_start,
                  .wait = d_wait,
                  .ctx = &d,
                  .has_api = plan->api.start != NULL,
                  .api_operations = plan->api.operations,
                  .has_mcp = plan->mcp.start != NULL,
                  .passes_taint = plan->api.passes_taint || plan->mcp.passes_taint },
        .taint_fields = { plan->blocked[0], plan->blocked[1] },
        .taint_refuse = plan->refuse_blocked,
        .taint_clean_only = plan->clean_only,
    };
    /* call is only the interpreter's "any host" test: start/wait are what it uses */
    sluice_js_run_result res;
    st = sluice_js_run(arena, &prog, &opts, &res, err);
    out->elapsed_ms = (sluice_clock_monotonic_ns(clock) - started) / 1000000;
    if (st == SLUICE_E_NOMEM)
        return st;
    if (st != SLUICE_OK || res.threw)
        return failure(arena, st, &res, &d, err);
    return shape(arena, plan, res.json, out, err);
}
