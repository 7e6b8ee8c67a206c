/*
 * openapi.c — the OpenAPI backend (see openapi.h): the engine vtable and the `api` capability
 * of a plan.
 *
 * Owns: the per-execution api backend (start: check and send; wait: answer and strip; describe:
 * what the call record shows), the engine's schema, and the routing of a plan's capabilities:
 * `api` here, `mcp` to the downstream MCP servers (exec/mcp_plan.c), opened with the backend.
 * Does not own: the run (js_plan.c), HTTP (openapi_http.c), matching (openapi_match.c).
 */
#include "exec/openapi.h"

#include "config/suggest.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/path_template.h"
#include "core/vec.h"
#include "exec/caller_assertion.h"
#include "exec/idempotency.h"
#include "exec/js_plan.h"
#include "exec/mcp_plan.h"
#include "exec/openapi_http.h"
#include "exec/openapi_match.h"
#include "exec/openapi_spec.h"
#include "facts/class_policy.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct oa_state {
    sluice_arena *arena;
    sluice_openapi_spec spec;
    sluice_openapi_upstream *up;
    sluice_caller_assertion *assertion; /* signs each run's caller assertion; NULL: none */
    const char *document, *declaration;
    /* what the declarations read (the blocked lists, copied below): the config may be replaced
     * while the executor lives */
    sluice_config_code_mode decl_rules;
    char version[65];
    sluice_strlist internal_blocked, output_blocked, blocked_fields;
    sluice_strlist sdk_operations; /* pmcp's SDK mode: the ids api.<id>(args) calls; empty: off */
    bool refuse_output;
    int64_t max_steps;
    size_t max_memory;
    /* [[code_mode.operations]] passable_fields, by operation id (copied: see decl_rules) */
    struct oa_passable {
        const char *op;
        sluice_strlist fields;
    } * passable;
    size_t passable_count;
    sluice_mcp_servers *mcp; /* [[code_mode.mcp_servers]], NULL when none */
    const char *mcp_catalog; /* their tools, for the front end (sluice_schema.mcp_tools) */
} oa_state;

/* One call of one run. */
typedef struct oa_call {
    const sluice_openapi_op *op;
    uint64_t http_ticket;
    const char *key; /* Idempotency-Key, or NULL */
    long status;
} oa_call;

typedef struct oa_exec {
    const oa_state *s;
    const sluice_exec_request *req;
    sluice_openapi_run *run;
    oa_call *calls;
    size_t count, cap;
} oa_exec;

/* --- checks before a call leaves --------------------------------------------------------- */

/* The query string of q (an object of scalars) for op: each key a declared query parameter,
 * each value its schema's. *out NULL when q is null/absent. */
static sluice_status query_of(sluice_arena *arena,
                              const json_t *doc,
                              const sluice_openapi_op *op,
                              const json_t *q,
                              const char **out,
                              sluice_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < op->param_count; i++)
        if (op->params[i].in == SLUICE_OPENAPI_IN_QUERY && op->params[i].required &&
            json_object_get(q, op->params[i].name) == NULL)
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "%s needs the query parameter '%s'", op->id,
                                    op->params[i].name);
    if (q == NULL || json_is_null(q))
        return SLUICE_OK;
    if (!json_is_object(q))
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the query of %s must be an object of parameter values", op->id);
    sluice_buf b;
    sluice_buf_init(&b, arena, 64 * 1024);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)q, k, v)
    {
        const sluice_openapi_param *p = NULL;
        sluice_suggest near;
        sluice_suggest_init(&near, k);
        for (size_t i = 0; i < op->param_count && p == NULL; i++)
            if (op->params[i].in == SLUICE_OPENAPI_IN_QUERY) {
                sluice_suggest_consider(&near, op->params[i].name);
                if (strcmp(op->params[i].name, k) == 0)
                    p = &op->params[i];
            }
        const char *best = sluice_suggest_best(&near);
        if (p == NULL) /* validate refused a literal one: this key was computed */
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "'%s' is not a query parameter of %s%s%s%s", k, op->id,
                                    best != NULL ? "; did you mean '" : "",
                                    best != NULL ? best : "", best != NULL ? "'?" : "");
        sluice_status st = sluice_openapi_check_value(
            arena, doc, p->schema, v, sluice_arena_printf(arena, "query.%s", k), err);
        if (st != SLUICE_OK)
            return st;
        char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        if (json_is_array(v) || json_is_object(v)) {
            free(text);
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "query.%s of %s must be a single value", k, op->id);
        }
        sluice_buf_printf(
            &b, "%s%s=%s", b.len > 0 ? "&" : "", sluice_openapi_pct_encode(arena, k),
            sluice_openapi_pct_encode(arena, text != NULL ? text : json_string_value(v)));
        free(text);
    }
    if (sluice_buf_status(&b) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "the query of %s is too long", op->id);
    *out = sluice_buf_cstr(&b);
    return SLUICE_OK;
}

static sluice_status body_of(sluice_arena *arena,
                             const json_t *doc,
                             const sluice_openapi_op *op,
                             const json_t *body,
                             const char **out,
                             sluice_error *err)
{
    *out = NULL;
    if (body == NULL || json_is_null(body)) {
        if (op->body_required)
            return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s needs a request body", op->id);
        return SLUICE_OK;
    }
    if (op->body_schema == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s takes no request body", op->id);
    sluice_status st = sluice_openapi_check_value(arena, doc, op->body_schema, body, "body", err);
    if (st != SLUICE_OK)
        return st;
    char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    *out = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return *out != NULL ? SLUICE_OK : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

/* --- the api backend --------------------------------------------------------------------- */

/* A call carrying blocked fields (call->passing) goes only to an operation that lists each of
 * them in passable_fields. The message names the operation and field, never the path. */
static sluice_status check_passable(const oa_state *s,
                                    sluice_arena *arena,
                                    const sluice_js_call *call,
                                    const sluice_openapi_op *op,
                                    sluice_error *err)
{
    const sluice_strlist *ok = NULL;
    for (size_t i = 0; i < s->passable_count && ok == NULL; i++)
        if (strcmp(s->passable[i].op, op->id) == 0)
            ok = &s->passable[i].fields;
    for (size_t i = 0; i < call->passing.count; i++) {
        if (sluice_strlist_contains_folded(ok, call->passing.items[i]))
            continue;
        sluice_error_set(err, arena, SLUICE_E_DENIED,
                         "api.%s at line %u would send the blocked field '%s' to %s, which does "
                         "not list it in passable_fields; a blocked field may be sent only to "
                         "an operation configured to take it ([[code_mode.operations]] "
                         "passable_fields)",
                         call->method, call->line, call->passing.items[i], op->id);
        err->key = "passable_fields";
        return SLUICE_E_DENIED;
    }
    return SLUICE_OK;
}

/* A call in the path form's terms: what api.get(path, second) would have sent. */
typedef struct oa_form {
    const char *method; /* "GET" */
    const char *path;   /* the composed path */
    const char *const *parts;
    size_t part_count;
    const json_t *second;            /* the body (POST, PUT, PATCH) or the query */
    const sluice_openapi_op *sdk_op; /* the SDK form's operation; NULL: the path form */
} oa_form;

static sluice_status
path_form(sluice_arena *arena, const sluice_js_call *call, oa_form *f, sluice_error *err)
{
    char *method = sluice_arena_calloc(arena, 8, 1);
    if (method == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    for (size_t i = 0; call->method[i] != '\0' && i + 1 < 8; i++)
        method[i] = (char)(call->method[i] - 'a' + 'A');
    f->method = method;
    f->path = json_string_value(json_array_get(call->args, 0));
    if (f->path == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "api.%s at line %u: the first argument must be the path",
                                call->method, call->line);
    f->parts = call->path_parts;
    f->part_count = call->path_part_count;
    f->second = json_array_get(call->args, 1);
    return SLUICE_OK;
}

static void decref_cb(void *p)
{
    json_decref(p);
}

/* A path parameter's value as the path form's ${...} would write it: a string, a number. */
static const char *param_text(sluice_arena *arena, const json_t *v)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        return sluice_arena_printf(arena, "%lld", (long long)json_integer_value(v));
    if (json_is_real(v)) {
        char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        const char *r = t != NULL ? sluice_arena_strdup(arena, t) : NULL;
        free(t);
        return r;
    }
    return NULL;
}

/* Whether the template path has the parameter {name} (declared in the spec or not: the
 * template decides what a call must fill). */
static bool template_has(const char *path, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strchr(path, '{'); p != NULL; p = strchr(p + 1, '{'))
        if (strncmp(p + 1, name, n) == 0 && p[n + 1] == '}')
            return true;
    return false;
}

/* The SDK form's path: op's template with each {name} filled from args, as the path form's
 * template literal would give it (f->parts: the literal text at even indexes, each parameter's
 * value at odd ones; f->path: them joined). Messages name the parameter, never its value. */
static sluice_status fill_template(sluice_arena *arena,
                                   const sluice_js_call *call,
                                   const sluice_openapi_op *op,
                                   const json_t *args,
                                   oa_form *f,
                                   sluice_error *err)
{
    size_t n = 1;
    for (const char *p = strchr(op->path, '{'); p != NULL; p = strchr(p + 1, '{'))
        n += 2;
    const char **parts = sluice_arena_calloc(arena, n, sizeof *parts);
    sluice_buf path;
    sluice_buf_init(&path, arena, 0);
    if (parts == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    size_t count = 0;
    const char *lit = op->path;
    for (const char *p = strchr(op->path, '{'); p != NULL; p = strchr(p + 1, '{')) {
        const char *e = strchr(p, '}');
        if (e == NULL)
            break;
        parts[count++] = sluice_arena_printf(arena, "%.*s", (int)(p - lit), lit);
        const char *name = sluice_arena_printf(arena, "%.*s", (int)(e - p - 1), p + 1);
        const json_t *value = name != NULL ? json_object_get(args, name) : NULL;
        if (name != NULL && value == NULL)
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "api.%s at line %u needs the path parameter '%s'", call->method,
                                    call->line, name);
        parts[count] = value != NULL ? param_text(arena, value) : NULL;
        if (name != NULL && parts[count] == NULL && !sluice_arena_failed(arena))
            return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                    "the path parameter '%s' of %s at line %u must be a string "
                                    "or a number",
                                    name, op->id, call->line);
        count++;
        lit = e + 1;
    }
    parts[count++] = lit;
    for (size_t i = 0; i < count; i++)
        sluice_buf_puts(&path, parts[i] != NULL ? parts[i] : "");
    if (sluice_buf_status(&path) != SLUICE_OK || sluice_arena_failed(arena))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    f->path = sluice_buf_cstr(&path);
    f->parts = parts;
    f->part_count = count;
    return SLUICE_OK;
}

/* pmcp's SDK form, api.<operationId>(args) (sdk_operations), as the path form: the operation's
 * template filled from args (each value a hole's, so sluice_openapi_match_call applies the
 * parameter rules to it), the rest of args the query (GET, DELETE) or args.body the body. The
 * matched operation must then be this one. Messages name keys, never values. */
static sluice_status sdk_form(const oa_state *s,
                              sluice_arena *arena,
                              const sluice_js_call *call,
                              oa_form *f,
                              sluice_error *err)
{
    const sluice_openapi_op *op = NULL;
    for (size_t i = 0; i < s->spec.op_count && op == NULL; i++)
        if (strcmp(s->spec.ops[i].id, call->method) == 0)
            op = &s->spec.ops[i];
    if (op == NULL || !sluice_strlist_contains(&s->sdk_operations, call->method))
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "api.%s at line %u is not one of this server's sdk_operations",
                                call->method, call->line);
    const json_t *args = json_array_get(call->args, 0);
    if (json_array_size(call->args) > 1 ||
        !(args == NULL || json_is_null(args) || json_is_object(args)))
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "api.%s at line %u takes one argument, an object of its "
                                "parameters",
                                call->method, call->line);
    bool body = sluice_openapi_method_sends_body(op->method);
    json_t *rest = json_object();
    if (rest == NULL || sluice_arena_cleanup_add(arena, decref_cb, rest) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)args, k, v)
    {
        bool in_path = template_has(op->path, k);
        if (!in_path && !(body && strcmp(k, "body") == 0) && json_object_set(rest, k, v) != 0)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    if (body && json_object_size(rest) > 0) /* validate refused literal keys: a computed one */
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "'%s' is not a parameter of %s: args holds its path parameters "
                                "by name and its request body as `body`",
                                json_object_iter_key(json_object_iter(rest)), op->id);
    sluice_status st = fill_template(arena, call, op, args, f, err);
    if (st != SLUICE_OK)
        return st;
    f->method = op->method;
    f->second = body ? json_object_get(args, "body") : json_object_size(rest) > 0 ? rest : NULL;
    f->sdk_op = op;
    return SLUICE_OK;
}

static sluice_status api_start(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, uint64_t *ticket, sluice_error *err)
{
    oa_exec *x = ctx;
    oa_form f = { 0 };
    sluice_status st = x->s->sdk_operations.count > 0 ? sdk_form(x->s, arena, call, &f, err)
                                                      : path_form(arena, call, &f, err);
    if (st != SLUICE_OK)
        return st;
    const char *method = f.method, *path = f.path;
    const sluice_openapi_op *op = NULL;
    const char *url_path = NULL;
    st = sluice_openapi_match_call(arena, &x->s->spec, method, path, f.parts, f.part_count, &op,
                                   &url_path, err);
    if (st == SLUICE_OK && f.sdk_op != NULL && op != f.sdk_op) /* another template won */
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "api.%s at line %u: its parameters make a path of another "
                                "operation (%s)",
                                call->method, call->line, op->id);
    if (st == SLUICE_OK && call->passing.count > 0)
        st = check_passable(x->s, arena, call, op, err);
    if (st != SLUICE_OK)
        return st;
    /* the SDK form names no path: its messages name the operation, never a composed value */
    const char *shown = f.sdk_op != NULL ? sluice_arena_printf(arena, "api.%s", f.sdk_op->id)
                                         : sluice_arena_printf(arena, "%s %s", method, path);
    if (shown == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!sluice_strlist_contains(x->req->validated_operations, op->id))
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "%s at line %u is operation %s, which validation did not "
                                "approve for this plan; approving a plan is not approving every "
                                "call it could make",
                                shown, call->line, op->id);
    /* validation judged the template; a value could still land the path under a block */
    sluice_class_call view = {
        .method = method, .path = url_path, .op_id = op->id, .action = (sluice_action)op->action
    };
    sluice_class_refusal refusal;
    if (!sluice_class_policy_blocks_allow(arena, &x->s->decl_rules, &view, &refusal))
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s at line %u (operation %s) %s",
                                method, call->line, op->id, refusal.why);
    bool sends_body = sluice_openapi_method_sends_body(method);
    const json_t *second = f.second;
    const char *query = NULL, *body = NULL;
    st = sends_body ? body_of(arena, x->s->spec.doc, op, second, &body, err)
                    : query_of(arena, x->s->spec.doc, op, second, &query, err);
    if (st != SLUICE_OK)
        return st;
    oa_call *n = sluice_vec_grow(arena, x->calls, x->count, &x->cap, sizeof *n, 16);
    if (n == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    x->calls = n;
    oa_call *c = &x->calls[x->count];
    memset(c, 0, sizeof *c);
    c->op = op;
    if (op->action != SLUICE_OPENAPI_READ) {
        char *key = sluice_arena_alloc(arena, 33);
        if (key == NULL)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        sluice_exec_idempotency_key(x->req->token_id, op->id, url_path, body, key);
        c->key = key;
    }
    sluice_openapi_request r = {
        .method = method, .path = url_path, .query = query, .body = body, .idempotency_key = c->key
    };
    st = sluice_openapi_run_start(x->run, arena, &r, &c->http_ticket, err);
    if (st != SLUICE_OK)
        return st;
    *ticket = x->count++;
    return SLUICE_OK;
}

static sluice_status
api_wait(void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err)
{
    oa_exec *x = ctx;
    oa_call *c = &x->calls[ticket];
    const char *body = NULL;
    size_t len = 0;
    sluice_status st =
        sluice_openapi_run_wait(x->run, arena, c->http_ticket, &c->status, &body, &len, err);
    if (st != SLUICE_OK)
        return st;
    if (c->status < 200 || c->status > 299)
        /* the body is not quoted: an error page can carry what the plan must not see */
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "%s (%s %s) answered HTTP %ld",
                                c->op->id, c->op->method, c->op->path, c->status);
    json_t *v = len == 0 ? json_null() : json_loadb(body, len, JSON_DECODE_ANY, NULL);
    if (v == NULL)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "%s answered HTTP %ld with a body that is not JSON", c->op->id,
                                c->status);
    const sluice_strlist *internal[2] = { &x->s->internal_blocked, NULL };
    size_t stripped = 0;
    const char *hit = NULL;
    st = sluice_js_guard_blocked(arena, v, internal, false, &stripped, &hit, err);
    if (st != SLUICE_OK) {
        json_decref(v);
        return st == SLUICE_E_NOMEM ? st : SLUICE_E_DENIED;
    }
    *result = v;
    return SLUICE_OK;
}

static json_t *api_describe(void *ctx, uint64_t ticket)
{
    oa_exec *x = ctx;
    if (ticket >= x->count)
        return NULL;
    const oa_call *c = &x->calls[ticket];
    json_t *d = json_pack("{s:s, s:s}", "operation", c->op->id, "action",
                          sluice_openapi_action_name(c->op->action));
    if (d != NULL && c->status > 0)
        json_object_set_new(d, "status", json_integer(c->status));
    if (d != NULL && c->key != NULL)
        json_object_set_new(d, "idempotency_key", json_string(c->key));
    return d;
}

/* --- the engine -------------------------------------------------------------------------- */

/* The operations' passable_fields into s (its arena). false on NOMEM. */
static bool copy_passable(oa_state *s, const sluice_config_code_mode *code_mode)
{
    s->passable =
        sluice_arena_calloc(s->arena, code_mode->operation_count + 1, sizeof *s->passable);
    if (s->passable == NULL)
        return false;
    for (size_t i = 0; i < code_mode->operation_count; i++) {
        const sluice_config_operation *op = &code_mode->operations[i];
        if (op->passable_fields.count == 0)
            continue;
        struct oa_passable *p = &s->passable[s->passable_count++];
        p->op = sluice_arena_strdup(s->arena, op->id);
        if (p->op == NULL ||
            sluice_strlist_copy(s->arena, &p->fields, &op->passable_fields, NULL) != SLUICE_OK)
            return false;
    }
    return true;
}

static sluice_status oa_execute(sluice_executor *ex,
                                sluice_arena *arena,
                                const sluice_exec_request *req,
                                sluice_exec_result *out,
                                sluice_error *err)
{
    const oa_state *s = sluice_executor_state(ex);
    sluice_exec_limits lim = req->limits;
    if (lim.max_steps == 0)
        lim.max_steps = s->max_steps;
    if (lim.max_memory_bytes == 0)
        lim.max_memory_bytes = s->max_memory;
    int64_t deadline = 0;
    if (lim.timeout_ms > 0)
        deadline = sluice_clock_monotonic_ns(sluice_clock_system()) + lim.timeout_ms * 1000000;
    oa_exec x = { .s = s, .req = req };
    /* one assertion for every request of the run: the same caller, the run's lifetime */
    const char *caller_header = NULL;
    if (s->assertion != NULL) {
        sluice_status st = sluice_caller_assertion_header(
            s->assertion, arena, req->identity, sluice_clock_now_s(NULL),
            sluice_caller_assertion_ttl(lim.timeout_ms), &caller_header, err);
        if (st != SLUICE_OK)
            return st;
    }
    x.run = sluice_openapi_run_new(s->up, deadline, lim.timeout_setting, caller_header);
    if (x.run == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory starting the plan");
    sluice_js_plan plan = {
        .code = req->code,
        .code_len = req->code_len,
        .args = req->variables,
        .limits = lim,
        .api = { .start = api_start,
                 .wait = api_wait,
                 .describe = api_describe,
                 .ctx = &x,
                 .passes_taint = true,
                 .operations = &s->sdk_operations },
        .blocked = { &s->output_blocked, &s->blocked_fields },
        .refuse_blocked = s->refuse_output,
        .clean_only = req->below_high_risk,
    };
    sluice_mcp_host mcp = { .servers = s->mcp,
                            .run = { .validated = req->validated_operations,
                                     .token_id = req->token_id } };
    if (s->mcp != NULL && sluice_mcp_plan_backend(&mcp, arena, &plan.mcp) != SLUICE_OK) {
        sluice_openapi_run_free(x.run);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory starting the plan");
    }
    sluice_status st = sluice_js_plan_execute(arena, &plan, out, err);
    sluice_openapi_run_free(x.run);
    return st;
}

/* sluice_schema.declare: the declaration under a caller's route and policy. */
static const char *oa_declare(const void *state,
                              sluice_arena *arena,
                              const sluice_config_code_mode *rules,
                              sluice_schema_may_call may_call,
                              void *may_ctx)
{
    const oa_state *s = state;
    return sluice_openapi_spec_declaration(arena, &s->spec, rules, may_call, may_ctx);
}

static sluice_status
oa_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    const oa_state *s = sluice_executor_state(ex);
    memset(out, 0, sizeof *out);
    /* built per snapshot, in its arena: the catalog marks entries in place (exec/executor.c) */
    if (sluice_openapi_spec_entries(arena, &s->spec, &s->decl_rules, out) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    memcpy(out->version_hash, s->version, sizeof out->version_hash);
    out->document = s->document;
    out->document_len = strlen(s->document);
    out->declaration = s->declaration;
    out->declare = oa_declare;
    out->declare_state = s;
    out->mcp_tools = s->mcp_catalog;
    return SLUICE_OK;
}

static void oa_close(void *state)
{
    oa_state *s = state;
    if (s != NULL)
        sluice_mcp_servers_close(s->mcp);
    if (s != NULL)
        sluice_arena_free(s->arena);
}

static const sluice_executor_ops oa_ops = {
    .name = "openapi",
    .schema = oa_schema,
    .execute = oa_execute,
    .close = oa_close,
};

/* Each sdk_operations entry is an operation of the spec whose args can hold it: refused at
 * start otherwise, naming the nearest id (a plan could never call it). */
static sluice_status check_sdk_operations(const sluice_openapi_spec *spec,
                                          const sluice_config_code_mode *cm,
                                          sluice_arena *err_arena,
                                          sluice_error *err)
{
    for (size_t i = 0; cm != NULL && i < cm->sdk_operations.count; i++) {
        const char *id = cm->sdk_operations.items[i];
        const sluice_openapi_op *op = NULL;
        sluice_suggest near;
        sluice_suggest_init(&near, id);
        for (size_t k = 0; k < spec->op_count && op == NULL; k++) {
            sluice_suggest_consider(&near, spec->ops[k].id);
            if (strcmp(spec->ops[k].id, id) == 0)
                op = &spec->ops[k];
        }
        const char *best = sluice_suggest_best(&near);
        if (op == NULL)
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "sdk_operations: '%s' is no operationId of the OpenAPI "
                                    "spec%s%s%s",
                                    id, best != NULL ? "; did you mean '" : "",
                                    best != NULL ? best : "", best != NULL ? "'?" : "");
        bool body = sluice_openapi_method_sends_body(op->method);
        if (body && template_has(op->path, "body"))
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "sdk_operations: %s has a path parameter named 'body', "
                                    "which its SDK call uses for the request body; call it "
                                    "in the path form (leave sdk_operations out)",
                                    id);
    }
    return SLUICE_OK;
}

/* The [code_mode] lists and limits a run consults, copied into the backend's arena (the config
 * may be freed once open returns). False when out of memory. */
static bool copy_rules(oa_state *s, const sluice_config_code_mode *code_mode)
{
    sluice_arena *a = s->arena;
    bool ok =
        sluice_strlist_copy(a, &s->internal_blocked, &code_mode->openapi_internal_blocked_fields,
                            NULL) == SLUICE_OK &&
        sluice_strlist_copy(a, &s->output_blocked, &code_mode->openapi_output_blocked_fields,
                            NULL) == SLUICE_OK &&
        sluice_strlist_copy(a, &s->blocked_fields, &code_mode->blocked_fields, NULL) == SLUICE_OK &&
        sluice_strlist_copy(a, &s->decl_rules.openapi_blocked_writes,
                            &code_mode->openapi_blocked_writes, NULL) == SLUICE_OK &&
        sluice_strlist_copy(a, &s->decl_rules.openapi_blocked_paths,
                            &code_mode->openapi_blocked_paths, NULL) == SLUICE_OK;
    ok = ok &&
         sluice_strlist_copy(a, &s->sdk_operations, &code_mode->sdk_operations, NULL) == SLUICE_OK;
    s->decl_rules.sdk_operations = s->sdk_operations;
    s->decl_rules.openapi_internal_blocked_fields = s->internal_blocked;
    s->decl_rules.openapi_output_blocked_fields = s->output_blocked;
    s->decl_rules.blocked_fields = s->blocked_fields;
    s->refuse_output = code_mode->openapi_blocked_output == SLUICE_GRAPHQL_REFUSE;
    ok = ok && copy_passable(s, code_mode);
    s->max_steps = code_mode->max_steps;
    s->max_memory = code_mode->max_memory_bytes > 0 ? (size_t)code_mode->max_memory_bytes : 0;
    return ok;
}

/* The backend's version (the context a token is issued for) covers the spec and the downstream
 * MCP tools alike. */
static void set_version(oa_state *s)
{
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_state hs;
    sluice_hash_start(&hs);
    sluice_hash_update(&hs, s->document, strlen(s->document) + 1);
    if (s->mcp_catalog != NULL)
        sluice_hash_update(&hs, s->mcp_catalog, strlen(s->mcp_catalog));
    sluice_hash_finish(&hs, h);
    sluice_hash_hex(h, sizeof h, s->version);
}

sluice_status sluice_exec_openapi_open(const sluice_config_database *db,
                                       const sluice_config_code_mode *code_mode,
                                       sluice_executor **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err)
{
    sluice_arena *a = sluice_arena_new();
    oa_state *s = a != NULL ? sluice_arena_calloc(a, 1, sizeof *s) : NULL;
    if (s == NULL) {
        sluice_arena_free(a);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    s->arena = a;
    sluice_error e = { 0 };
    sluice_status st = sluice_openapi_spec_load(a, db->path, code_mode, &s->spec, &e);
    if (st == SLUICE_OK)
        st = sluice_openapi_upstream_open(a, db, s->spec.server_url, &s->up, &e);
    if (st == SLUICE_OK)
        st = sluice_caller_assertion_open(db, code_mode != NULL ? code_mode->server_id : NULL,
                                          sluice_openapi_upstream_base(s->up), a, &s->assertion, a,
                                          &e);
    if (st != SLUICE_OK) {
        sluice_error_set(err, err_arena, st, "%s", e.message != NULL ? e.message : "cannot open");
        sluice_arena_free(a);
        return st;
    }
    st = check_sdk_operations(&s->spec, code_mode, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_arena_free(a);
        return st;
    }
    s->document = sluice_openapi_spec_document(a, &s->spec);
    s->declaration = sluice_openapi_spec_declaration(a, &s->spec, code_mode, NULL, NULL);
    bool ok = s->document != NULL && s->declaration != NULL;
    if (ok && code_mode != NULL)
        ok = copy_rules(s, code_mode);
    if (!ok) {
        sluice_arena_free(a);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    if (code_mode != NULL && code_mode->mcp_server_count > 0) {
        /* the downstream MCP servers plans compose: started and listed now, or no start */
        st = sluice_mcp_servers_open(code_mode, &s->mcp, err_arena, err);
        s->mcp_catalog = st == SLUICE_OK ? sluice_mcp_servers_catalog(s->mcp, a) : NULL;
        if (st == SLUICE_OK && s->mcp_catalog == NULL)
            st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        if (st != SLUICE_OK) {
            sluice_mcp_servers_close(s->mcp);
            sluice_arena_free(a);
            return st;
        }
    }
    set_version(s);
    return sluice_executor_wrap(&oa_ops, s, SLUICE_ENGINE_OPENAPI, code_mode, out);
}
