/*
 * tools.c — code mode's tools, resources and prompt on the MCP server (see tools.h).
 */
#include "surface/tools.h"

#include "codemode/guide.h"
#include "codemode/program.h"
#include "core/buf.h"
#include "core/json_write.h"
#include "mcp/jsonrpc.h"
#include "policy/policy.h"
#include "surface/discover.h"
#include "surface/tool_result.h"

#include <string.h>

/* The tool descriptions speak the default language (its front end's guide words). */
/* Short on purpose: tools/list is read before every conversation (issue 26: tools/list and the
 * start prompt stay under 1,000 tokens together). */
static const char validate_description[] =
    "Validate ONE %s before running it: explanation, risk, violations with fixes, "
    "approval_token.";

static const char execute_description[] =
    "Run %s that validate_code approved (same code, approval_token, variables). Returns %s";

/* The default language's guide words (its front end's), or NULL on NOMEM. */
static const sluice_frontend_guide *default_guide(sluice_codemode *cm, sluice_arena *arena)
{
    sluice_frontend_guide *g = sluice_arena_calloc(arena, 1, sizeof *g);
    const sluice_config *config = sluice_codemode_config(cm);
    const char *engine = sluice_executor_engine_name(sluice_codemode_executor(cm));
    const char *language = sluice_codemode_language(cm, 0);
    if (g == NULL ||
        !sluice_guide_language(arena, config, engine, language != NULL ? language : "sql", g))
        return NULL;
    return g;
}

/* Adds "language": {"type":"string","enum":[configured languages],"description":"default X"}
 * to schema's properties, only when there is a choice: with one language the tool descriptions
 * name it, and an enum of one would cost every tools/list ~25 tokens to say nothing (issue 26).
 * A client naming the one language anyway is refused by the input schema, with the property's
 * name. Returns schema. */
static json_t *with_language(json_t *schema, const sluice_codemode *cm)
{
    if (schema == NULL || sluice_codemode_language_count(cm) < 2)
        return schema;
    json_t *names = json_array();
    for (size_t i = 0; i < sluice_codemode_language_count(cm); i++)
        json_array_append_new(names, json_string(sluice_codemode_language(cm, i)));
    char description[64];
    snprintf(description, sizeof description, "default %s", sluice_codemode_language(cm, 0));
    json_object_set_new(
        json_object_get(schema, "properties"), "language",
        json_pack("{s:s, s:o, s:s}", "type", "string", "enum", names, "description", description));
    return schema;
}

/* Whether any route lets validate_code run what it auto-approves ([code_mode] /
 * [[policy.servers]] execute_on_validate): only then is "execute" offered at all. */
static bool execute_on_validate_offered(const sluice_codemode *cm)
{
    return sluice_policy_engine_rules(sluice_codemode_policy(cm))->execute_on_validate;
}

static json_t *validate_input_schema(const sluice_codemode *cm)
{
    json_t *schema = with_language(
        json_pack("{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}}, s:[s], s:b}", "type", "object",
                  "properties", "code", "type", "string", "variables", "type", "object", "dry_run",
                  "type", "boolean", "required", "code", "additionalProperties", 0),
        cm);
    if (schema != NULL && execute_on_validate_offered(cm))
        json_object_set_new(json_object_get(schema, "properties"), "execute",
                            json_pack("{s:s, s:s}", "type", "boolean", "description",
                                      "run it in this call when auto-approved"));
    return schema;
}

static json_t *nullable(const char *type)
{
    return json_pack("{s:[s, s]}", "type", type, "null");
}

static json_t *validate_output_schema(void)
{
    json_t *violation = json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:o, s:o, s:o}, s:[s, s]}", "type", "object", "properties",
        "rule", "type", "string", "message", "type", "string", "suggestion", nullable("string"),
        "line", nullable("integer"), "column", nullable("integer"), "required", "rule", "message");
    return json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s, s:[s,s,s,s]}, s:{s:s, s:[s,s,s,s]}, s:{s:s}, "
        "s:{s:s, s:o}, s:{s:s, s:{s:s}}, s:{s:s}, s:o, s:o, s:{s:s}, s:{s:s}, "
        "s:{s:s}, s:{s:s}}, s:[s,s,s,s,s,s,s,s,s,s,s,s]}",
        "type", "object", "properties", "valid", "type", "boolean", "action", "type", "string",
        "enum", "read", "write", "delete", "admin", "risk_level", "type", "string", "enum", "low",
        "medium", "high", "critical", "explanation", "type", "string", "violations", "type",
        "array", "items", violation, "warnings", "type", "array", "items", "type", "string",
        "code_hash", "type", "string", "approval_token", nullable("string"), "expires_at",
        nullable("string"), "auto_approved", "type", "boolean", "requires_approval", "type",
        "boolean", "metadata", "type", "object", "result", "type", "object", "required", "valid",
        "action", "risk_level", "explanation", "violations", "warnings", "code_hash",
        "approval_token", "expires_at", "auto_approved", "requires_approval", "metadata");
}

static json_t *execute_input_schema(const sluice_codemode *cm)
{
    return with_language(json_pack("{s:s, s:{s:{s:s, s:i}, s:{s:s, s:i}, s:{s:s}}, s:[s, s], s:b}",
                                   "type", "object", "properties", "code", "type", "string",
                                   "minLength", 1, "approval_token", "type", "string", "minLength",
                                   1, "variables", "type", "object", "required", "code",
                                   "approval_token", "additionalProperties", 0),
                         cm);
}

static json_t *execute_output_schema(void)
{
    /* A table (columns, rows, row_count) or a value, both with truncated and elapsed_ms. */
    return json_pack("{s:s, s:{s:{s:s, s:{s:s}}, s:{s:s}, s:{s:s}, s:{}, s:{s:s}, s:{s:s}}, "
                     "s:[s,s]}",
                     "type", "object", "properties", "columns", "type", "array", "items", "type",
                     "object", "rows", "type", "array", "row_count", "type", "integer", "value",
                     "truncated", "type", "boolean", "elapsed_ms", "type", "integer", "required",
                     "truncated", "elapsed_ms");
}

static sluice_codemode_caller caller_of(sluice_mcp_call *call, const json_t *arguments)
{
    sluice_codemode_caller c = {
        .identity = sluice_mcp_call_identity(call),
        .session_id = sluice_mcp_call_session_id(call),
        .language = json_string_value(json_object_get(arguments, "language")),
    };
    if (c.session_id == NULL)
        c.session_id = "stdio";
    return c;
}

/* A call a quota refused (codemode/quota_gate.h): a tool error the model reads (which quota,
 * its limit and usage, when it resets), and the same in the result's _meta under
 * "io.sluice/quota" — {quota, route, limit, used, resets_at, retry_after_seconds} — for a client
 * that schedules its retry. Neither MCP revision (2025-11-25, 2026-07-28) defines a retry-after
 * field for tool results, and a JSON-RPC error would hide the reason from the model, so the
 * reason stays an isError result and the numbers ride in _meta, where both revisions let a
 * server put its own reverse-DNS-named keys. refusal is stolen. */
static json_t *quota_result(const sluice_error *err, json_t *refusal)
{
    return json_pack("{s:[{s:s, s:s}], s:b, s:{s:o}}", "content", "type", "text", "text",
                     err->message != NULL ? err->message : "quota reached", "isError", 1, "_meta",
                     "io.sluice/quota", refusal);
}

/* Turns a quota's refusal into its result (SLUICE_OK); any other outcome passes through. */
static sluice_status
refused_by_quota(sluice_status st, json_t *refusal, const sluice_error *err, json_t **out_result)
{
    if (st == SLUICE_OK || refusal == NULL) {
        json_decref(refusal);
        return st;
    }
    *out_result = quota_result(err, refusal);
    return *out_result != NULL ? SLUICE_OK : st;
}

/* The request of a validate_code or execute_code call for its arguments' code and variables;
 * token and hooks (execute only) may be NULL. */
static sluice_codemode_request code_request(sluice_arena *arena,
                                            const sluice_codemode_caller *caller,
                                            const json_t *arguments,
                                            const char *token,
                                            const sluice_codemode_exec_hooks *hooks,
                                            sluice_error *err)
{
    const json_t *code = json_object_get(arguments, "code");
    return (sluice_codemode_request){ .arena = arena,
                                      .caller = caller,
                                      .code = json_string_value(code),
                                      .code_len = json_string_length(code),
                                      .variables = json_object_get(arguments, "variables"),
                                      .token = token,
                                      .hooks = hooks,
                                      /* the answer goes to the MCP writer only */
                                      .rows_spliced = true,
                                      .err = err };
}

/* A run's answer (execute_code, a saved program): its rows as the tool result, or why it did
 * not run (a quota's refusal as a result, anything else the error). Takes structured and
 * refusal. */
static sluice_status run_answer(sluice_status st,
                                json_t *structured,
                                const char *text,
                                json_t *refusal,
                                sluice_error *err,
                                json_t **out_result)
{
    if (st != SLUICE_OK)
        return refused_by_quota(st, refusal, err, out_result);
    json_decref(refusal);
    *out_result = sluice_surface_tool_result(structured, text);
    return SLUICE_OK;
}

/* Whether key is one of list[0..n). */
static bool in_list(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

/* Whether the brief leaves out the member key (its value v). */
static bool left_out(const char *key, const json_t *v, bool ran)
{
    static const char *const record_only[] = { "metadata", "policy", "code_hash", "language" };
    /* after a run in the same call: the token is spent, "auto_approved" is what running means */
    static const char *const spent[] = { "approval_token", "expires_at", "auto_approved",
                                         "requires_approval" };
    static const char *const lists[] = { "violations", "warnings" };
    return in_list(key, record_only, sizeof record_only / sizeof *record_only) ||
           (ran && in_list(key, spent, sizeof spent / sizeof *spent)) ||
           (in_list(key, lists, sizeof lists / sizeof *lists) && json_array_size(v) == 0);
}

/* What the model reads of a validation: the verdict it acts on (valid, risk, explanation,
 * violations and warnings with their fixes, the token and its expiry), as compact JSON. The
 * record kept for clients, audit and approval screens (metadata, policy, code_hash: several
 * hundred tokens that repeat the verdict or say nothing the model writes code with; the
 * language, which the model wrote; empty lists) stays in structuredContent. When the program ran
 * in the same call (ran), the text also drops what that made moot: the spent token, its expiry,
 * the approval flags. NULL when out of memory. */
static char *brief_text(const json_t *validation, bool ran)
{
    /* the kept members written straight from the answer, in its order, by the MCP writer: the
     * bytes json_dumps gave of a copy without the others, with no copy and no per-container
     * snprintf and loop hashing */
    json_t *o = (json_t *)validation; /* jansson's iterator API is not const-correct */
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    sluice_buf_putc(&buf, '{');
    bool first = true;
    for (void *it = json_object_iter(o); it != NULL; it = json_object_iter_next(o, it)) {
        const char *key = json_object_iter_key(it);
        const json_t *v = json_object_iter_value(it);
        if (left_out(key, v, ran))
            continue;
        if (!first)
            sluice_buf_putc(&buf, ',');
        first = false;
        if (sluice_json_write_member(&buf, key, json_object_iter_key_len(it), v) != SLUICE_OK) {
            sluice_buf_dispose(&buf);
            return NULL; /* a string not UTF-8 or a placeholder: json_dumps refused them too */
        }
    }
    sluice_buf_putc(&buf, '}');
    if (sluice_buf_status(&buf) != SLUICE_OK) {
        sluice_buf_dispose(&buf);
        return NULL;
    }
    return buf.data; /* malloc'd: the caller frees it */
}

/* validate_code's CallToolResult: the validation as structuredContent (stolen), its brief as text.
 */
static sluice_status
validation_result(json_t *validation, json_t **out_result, sluice_arena *arena, sluice_error *err)
{
    char *text = brief_text(validation, false);
    if (text == NULL) {
        json_decref(validation);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    *out_result = sluice_surface_tool_result(validation, text); /* steals validation */
    free(text);
    return *out_result != NULL ? SLUICE_OK
                               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

static void register_cancel(void *ctx, void (*fn)(void *), void *data)
{
    sluice_mcp_call_on_cancel(ctx, fn, data);
}

/* validate_code {"execute": true} after a validation (issue 23): runs the program through
 * execute_code's own path — the token validate just minted is opened, matched, consumed once
 * and audited exactly as a separate execute_code call would — but only when the caller's route
 * allows it and the verdict was auto-approved. Anything above the auto-approve level is
 * answered as validate_code answers it today, and no approval path is offered here: a program
 * that would need one is refused, never asked about (fail closed). */
static sluice_status validate_and_run(sluice_mcp_call *call,
                                      sluice_codemode *cm,
                                      const sluice_codemode_caller *caller,
                                      const json_t *arguments,
                                      json_t *validation,
                                      json_t **out_result,
                                      sluice_error *err)
{
    sluice_arena *arena = sluice_mcp_call_arena(call);
    const sluice_policy_route *route =
        sluice_policy_route_for(sluice_codemode_policy(cm), caller->identity);
    const char *token = json_string_value(json_object_get(validation, "approval_token"));
    const char *why = NULL; /* set when it is not run: invalid code says why in its violations */
    if (!route->rules->execute_on_validate)
        why = sluice_arena_printf(arena,
                                  "not run: execute_on_validate is off for your route '%s'; call "
                                  "execute_code with the approval_token",
                                  route->id);
    else if (token != NULL && !json_is_true(json_object_get(validation, "auto_approved")))
        why = sluice_arena_printf(arena,
                                  "not run: %s risk is above the auto-approve levels; call "
                                  "execute_code with the approval_token to ask for approval",
                                  json_string_value(json_object_get(validation, "risk_level")));
    if (token == NULL || why != NULL) {
        if (why != NULL)
            json_array_append_new(json_object_get(validation, "warnings"), json_string(why));
        return validation_result(validation, out_result, arena, err);
    }
    sluice_codemode_exec_hooks hooks = { .register_cancel = register_cancel, .cancel_ctx = call };
    json_t *result = NULL;
    char *text = NULL;
    const sluice_codemode_request req = code_request(arena, caller, arguments, token, &hooks, err);
    sluice_status st = sluice_codemode_execute(cm, &req, &result, &text);
    if (st != SLUICE_OK) {
        json_decref(validation);
        return st;
    }
    /* The validation's text first (what the model reads before the rows), then the rows in the
     * untrusted-data presentation execute_code gives them. */
    char *summary = brief_text(validation, true);
    json_object_set_new(validation, "result", result);
    *out_result = sluice_surface_tool_result2(validation, summary != NULL ? summary : "", text);
    free(summary);
    return *out_result != NULL ? SLUICE_OK
                               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

static sluice_status validate_tool(sluice_mcp_call *call,
                                   json_t *arguments,
                                   json_t **out_result,
                                   sluice_error *err,
                                   void *userdata)
{
    sluice_codemode *cm = userdata;
    bool dry_run = json_is_true(json_object_get(arguments, "dry_run"));
    bool run_now = json_is_true(json_object_get(arguments, "execute"));
    if (dry_run && run_now)
        return sluice_error_set(err, sluice_mcp_call_arena(call), SLUICE_E_INVALID,
                                "dry_run and execute are both true: a dry run mints no token to "
                                "run with; drop one of them");
    sluice_codemode_caller caller = caller_of(call, arguments);
    json_t *structured = NULL, *refusal = NULL;
    caller.refusal = &refusal;
    sluice_codemode_request req =
        code_request(sluice_mcp_call_arena(call), &caller, arguments, NULL, NULL, err);
    req.dry_run = dry_run;
    sluice_status st = sluice_codemode_validate(cm, &req, &structured);
    if (st != SLUICE_OK)
        return refused_by_quota(st, refusal, err, out_result);
    if (run_now) {
        st = validate_and_run(call, cm, &caller, arguments, structured, out_result, err);
        return refused_by_quota(st, refusal, err, out_result);
    }
    json_decref(refusal);
    return validation_result(structured, out_result, sluice_mcp_call_arena(call), err);
}

/* The form that asks a person to approve one statement: they see the explanation and the risk
 * and must explicitly accept. Used as elicitation/create params (2025-11-25) and as the
 * inputRequests entry (2026-07-28). New reference; NULL when out of memory. */
static json_t *approval_form(sluice_arena *arena, const json_t *validation)
{
    char *message =
        sluice_arena_printf(arena, "Approve running this %s statement (%s risk)?\n\n%s",
                            json_string_value(json_object_get(validation, "action")),
                            json_string_value(json_object_get(validation, "risk_level")),
                            json_string_value(json_object_get(validation, "explanation")));
    return json_pack("{s:s, s:s, s:{s:s, s:{s:{s:s, s:s, s:s}}, s:[s]}}", "mode", "form", "message",
                     message != NULL ? message : "Approve?", "requestedSchema", "type", "object",
                     "properties", "approve", "type", "boolean", "title", "Run it", "description",
                     "Check to run the statement once", "required", "approve");
}

/* Whether an ElicitResult approves: accepted with approve:true. Anything else (a decline, a
 * cancel, a missing or malformed answer) means "do not run", with err saying which. */
static sluice_status approval_answer(const json_t *answer, sluice_arena *arena, sluice_error *err)
{
    const char *action = json_string_value(json_object_get(answer, "action"));
    bool yes = action != NULL && strcmp(action, "accept") == 0 &&
               json_is_true(json_object_get(json_object_get(answer, "content"), "approve"));
    if (yes)
        return SLUICE_OK;
    return sluice_error_set(err, arena, SLUICE_E_DENIED,
                            "the user did not approve the statement (%s); it was not run",
                            action != NULL ? action : "no answer");
}

/* No approval path on this connection: the pipeline then records the request for an
 * administrator. */
static sluice_status
no_elicitation(sluice_arena *arena, const json_t *validation, sluice_error *err)
{
    return sluice_error_set(
        err, arena, SLUICE_E_UNSUPPORTED,
        "this statement is %s risk and needs human approval, but this client cannot ask its "
        "user (it did not declare the elicitation capability); it was not run",
        json_string_value(json_object_get(validation, "risk_level")));
}

/* Human approval through MCP elicitation (form mode), 2025-11-25: a server->client request. Only
 * offered when the client declared the capability; a timeout or a missing answer mean "do not
 * run". A client without the capability gets SLUICE_E_UNSUPPORTED, so the pipeline can record
 * the request for an administrator instead. */
static sluice_status
elicit_approval(void *ctx, const sluice_codemode_request *req, const json_t *validation)
{
    sluice_mcp_call *call = ctx;
    sluice_arena *arena = req->arena;
    sluice_error *err = req->err;
    const json_t *caps = sluice_mcp_call_client_capabilities(call);
    if (json_object_get(caps, "elicitation") == NULL)
        return no_elicitation(arena, validation, err);
    json_t *params = approval_form(arena, validation);
    json_t *answer = NULL;
    sluice_status st = sluice_mcp_call_request(call, "elicitation/create", params, 0, &answer, err);
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "approval was not given (%s); the statement was not run",
                                err != NULL && err->message != NULL ? err->message : "no answer");
    st = approval_answer(answer, arena, err);
    json_decref(answer);
    return st;
}

/* The key of the approval in inputRequests / inputResponses (2026-07-28). */
#define APPROVAL_INPUT_KEY "approval"

/* What the 2026-07-28 approval hook reads (the caller, the token and the memory are the
 * request's), and the input_required result it leaves when the user must still be asked. */
typedef struct mrtr_approval {
    sluice_mcp_call *call;
    sluice_codemode *cm;
    json_t *input_required; /* owned; set when the client must ask its user first */
} mrtr_approval;

/* Asks (through the result) with a freshly sealed requestState; the statement does not run. */
static sluice_status
ask_approval(mrtr_approval *m, const sluice_codemode_request *req, const json_t *validation)
{
    sluice_arena *arena = req->arena;
    sluice_error *err = req->err;
    char *state = NULL;
    sluice_status st = sluice_codemode_approval_state_seal(m->cm, req, &state);
    json_t *form = st == SLUICE_OK ? approval_form(arena, validation) : NULL;
    json_t *request = form != NULL ? json_pack("{s:{s:s, s:o}}", APPROVAL_INPUT_KEY, "method",
                                               "elicitation/create", "params", form)
                                   : NULL;
    m->input_required = request != NULL ? sluice_mcp_input_required(request, state) : NULL;
    if (m->input_required == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory while asking for approval; nothing ran");
    return sluice_error_set(err, arena, SLUICE_E_DENIED,
                            "waiting for the user's approval (asked through an input_required "
                            "result); nothing ran yet");
}

/* Human approval under 2026-07-28 (multi round-trip): the first call gets an input_required
 * result whose requestState is sealed and bound to the principal and this approval token; the
 * retry must bring that state back untouched (verified and consumed once, so a tampered or
 * replayed state is refused with -32602) and the user's accepting answer. The server decides:
 * nothing runs without both. */
static sluice_status
mrtr_approve(void *ctx, const sluice_codemode_request *req, const json_t *validation)
{
    mrtr_approval *m = ctx;
    sluice_arena *arena = req->arena;
    sluice_error *err = req->err;
    if (json_object_get(sluice_mcp_call_client_capabilities(m->call), "elicitation") == NULL)
        return no_elicitation(arena, validation, err);
    const char *state = sluice_mcp_call_request_state(m->call);
    if (state == NULL)
        return ask_approval(m, req, validation);
    sluice_status st = sluice_codemode_approval_state_open(m->cm, req, state);
    if (st == SLUICE_E_TOKEN || st == SLUICE_E_DENIED)
        sluice_mcp_call_fail(m->call, SLUICE_JSONRPC_INVALID_PARAMS, err->message, NULL);
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s", err->message);
    const json_t *answer =
        json_object_get(sluice_mcp_call_input_responses(m->call), APPROVAL_INPUT_KEY);
    if (!json_is_object(answer)) /* the state was good but the answer is missing: ask again */
        return ask_approval(m, req, validation);
    return approval_answer(answer, arena, err);
}

static sluice_status execute_tool(sluice_mcp_call *call,
                                  json_t *arguments,
                                  json_t **out_result,
                                  sluice_error *err,
                                  void *userdata)
{
    sluice_codemode *cm = userdata;
    sluice_codemode_caller caller = caller_of(call, arguments);
    const char *token = json_string_value(json_object_get(arguments, "approval_token"));
    mrtr_approval m = { call, cm, NULL };
    bool stateless = sluice_mcp_call_stateless(call);
    sluice_codemode_exec_hooks hooks = {
        .register_cancel = register_cancel,
        .cancel_ctx = call,
        .approve = stateless ? mrtr_approve : elicit_approval,
        .approve_ctx = stateless ? (void *)&m : (void *)call,
    };
    json_t *structured = NULL, *refusal = NULL;
    caller.refusal = &refusal;
    char *text = NULL;
    const sluice_codemode_request req =
        code_request(sluice_mcp_call_arena(call), &caller, arguments, token, &hooks, err);
    sluice_status st = sluice_codemode_execute(cm, &req, &structured, &text);
    if (m.input_required != NULL) { /* not run: the client asks its user, then retries */
        json_decref(structured);
        json_decref(refusal);
        *out_result = m.input_required;
        return SLUICE_OK;
    }
    return run_answer(st, structured, text, refusal, err, out_result);
}

/* execute_code arguments the input schema refused: still a denial record in the audit log. */
static void execute_rejected(sluice_mcp_call *call,
                             const json_t *arguments,
                             const char *message,
                             void *userdata)
{
    sluice_codemode_caller caller = caller_of(call, json_is_object(arguments) ? arguments : NULL);
    caller.language = NULL;
    const char *code = json_string_value(json_object_get(arguments, "code"));
    sluice_codemode_refuse_request(userdata, sluice_mcp_call_arena(call), &caller, code,
                                   "arguments", message);
}

static json_t *annotations(bool read_only, bool destructive, bool idempotent)
{
    return json_pack("{s:b, s:b, s:b, s:b}", "readOnlyHint", read_only, "destructiveHint",
                     destructive, "idempotentHint", idempotent, "openWorldHint", 0);
}

static sluice_status
register_tools(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err)
{
    const sluice_config_code_mode *c = &sluice_codemode_config(cm)->code_mode;
    bool writes = c->sql_allow_writes || c->sql_allow_deletes || c->sql_allow_ddl;
    sluice_arena *arena = sluice_codemode_arena(cm);
    const sluice_frontend_guide *g = default_guide(cm, arena);
    const char *vdesc =
        g != NULL ? sluice_arena_printf(arena, validate_description, g->noun) : NULL;
    const char *edesc =
        g != NULL ? sluice_arena_printf(arena, execute_description, g->run_noun, g->result) : NULL;
    if (vdesc == NULL || edesc == NULL)
        return sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    sluice_mcp_tool validate = {
        .name = "validate_code",
        .title = "Validate code",
        .description = vdesc,
        .input_schema = validate_input_schema(cm),
        .output_schema = validate_output_schema(),
        /* with execute offered, validate_code may run what it approves */
        .annotations = execute_on_validate_offered(cm)
                           ? annotations(!writes, c->sql_allow_deletes || c->sql_allow_ddl, false)
                           : annotations(true, false, true),
        .fn = validate_tool,
        .userdata = cm,
    };
    sluice_status st = sluice_mcp_server_add_tool(server, &validate, err);
    if (st != SLUICE_OK)
        return st;
    sluice_mcp_tool execute = {
        .name = "execute_code",
        .title = "Execute validated code",
        .description = edesc,
        .input_schema = execute_input_schema(cm),
        .output_schema = execute_output_schema(),
        .annotations = annotations(!writes, c->sql_allow_deletes || c->sql_allow_ddl, false),
        .fn = execute_tool,
        .userdata = cm,
        .on_rejected = execute_rejected,
    };
    return sluice_mcp_server_add_tool(server, &execute, err);
}

/* ---- resources and the prompt -------------------------------------------------------------- */

typedef enum guide_kind { GUIDE_INSTRUCTIONS, GUIDE_POLICIES, GUIDE_SCHEMA } guide_kind;

static const char *const guide_uris[] = { "code-mode://instructions", "code-mode://policies",
                                          "code-mode://schema" };

/* code-mode://instructions for the configured languages, the default first (schema_follows:
 * the start prompt's form, the whole schema after it). */
static char *instructions(sluice_codemode *cm,
                          sluice_arena *arena,
                          const sluice_config *config,
                          bool schema_follows)
{
    size_t n = sluice_codemode_language_count(cm);
    const char **names = sluice_arena_calloc(arena, n + 1, sizeof *names);
    if (names == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        names[i] = sluice_codemode_language(cm, i);
    return sluice_guide_instructions(arena, config,
                                     sluice_executor_engine_name(sluice_codemode_executor(cm)),
                                     names, n, schema_follows);
}

/* The schema as this caller may use it (an API's declaration under their route and policy). */
static const sluice_schema *caller_schema(sluice_codemode *cm, sluice_mcp_call *call)
{
    sluice_arena *arena = sluice_mcp_call_arena(call);
    return sluice_guide_schema_for(arena, sluice_codemode_schema_now(cm, arena),
                                   sluice_codemode_policy(cm), sluice_mcp_call_identity(call));
}

static char *guide_text(sluice_codemode *cm, sluice_mcp_call *call, guide_kind kind)
{
    sluice_arena *arena = sluice_mcp_call_arena(call);
    const sluice_config *config = sluice_codemode_config(cm);
    switch (kind) {
    case GUIDE_INSTRUCTIONS:
        return instructions(cm, arena, config, false);
    case GUIDE_POLICIES:
        return sluice_guide_policies(arena, config, sluice_codemode_policy(cm),
                                     sluice_mcp_call_identity(call),
                                     sluice_codemode_language(cm, 0));
    case GUIDE_SCHEMA: {
        const sluice_schema *mine = caller_schema(cm, call);
        return mine != NULL ? sluice_guide_schema(arena, config, mine) : NULL;
    }
    }
    return NULL;
}

typedef struct guide_ref {
    sluice_codemode *cm;
    guide_kind kind;
} guide_ref;

static sluice_status read_guide(sluice_mcp_call *call,
                                const char *uri,
                                json_t **out_contents,
                                sluice_error *err,
                                void *userdata)
{
    const guide_ref *ref = userdata;
    char *text = guide_text(ref->cm, call, ref->kind);
    if (text == NULL)
        return sluice_error_set(err, sluice_mcp_call_arena(call), SLUICE_E_NOMEM, "out of memory");
    *out_contents =
        json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", "text/markdown", "text", text);
    return SLUICE_OK;
}

static json_t *embedded(const char *uri, const char *text)
{
    return json_pack("{s:s, s:{s:s, s:{s:s, s:s, s:s}}}", "role", "user", "content", "type",
                     "resource", "resource", "uri", uri, "mimeType", "text/markdown", "text",
                     text != NULL ? text : "");
}

static json_t *user_text(const char *text)
{
    return json_pack("{s:s, s:{s:s, s:s}}", "role", "user", "content", "type", "text", "text",
                     text);
}

/* The start prompt: the instructions, the whole schema only when its brief form is small
 * (SLUICE_GUIDE_INLINE_SCHEMA_BYTES), and the ask. Its size does not grow with the schema: above
 * the threshold the model finds what it needs with search and describe. */
static sluice_status start_code_mode(sluice_mcp_call *call,
                                     json_t *arguments,
                                     json_t **out_result,
                                     sluice_error *err,
                                     void *userdata)
{
    sluice_codemode *cm = userdata;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    json_t *messages = json_array();
    const sluice_schema *mine = caller_schema(cm, call);
    char *brief = mine != NULL ? sluice_guide_schema_brief(arena, mine) : NULL;
    bool inline_schema = brief != NULL && strlen(brief) <= SLUICE_GUIDE_INLINE_SCHEMA_BYTES;
    if (!inline_schema) {
        json_array_append_new(messages, embedded(guide_uris[GUIDE_INSTRUCTIONS],
                                                 guide_text(cm, call, GUIDE_INSTRUCTIONS)));
    } else {
        /* without the discovery step: no longer code-mode://instructions, so plain text */
        char *text = instructions(cm, arena, sluice_codemode_config(cm), true);
        if (text == NULL) {
            json_decref(messages);
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        }
        json_array_append_new(messages, user_text(text));
        json_array_append_new(messages, user_text(brief));
    }
    const char *question = json_string_value(json_object_get(arguments, "question"));
    const sluice_frontend_guide *g = default_guide(cm, arena);
    /* a route that runs what it auto-approves in the validating call is told so (issue 23) */
    const sluice_policy *policy = sluice_codemode_policy(cm);
    bool one_call =
        policy != NULL &&
        sluice_policy_route_for(policy, sluice_mcp_call_identity(call))->rules->execute_on_validate;
    char *ask =
        g == NULL ? NULL
                  : sluice_arena_printf(
                        arena, "%s%s%s%s ONE %s that answers it%s%s, %s",
                        question != NULL ? "The question: \"" : "",
                        question != NULL ? question : "", question != NULL ? "\". " : "",
                        inline_schema ? "Write, on the schema above,"
                                      : "Find what you need with search and describe, then write",
                        g->noun, g->approach != NULL && g->approach[0] != '\0' ? " " : "",
                        g->approach != NULL ? g->approach : "",
                        one_call ? "then validate_code it with execute: true (fix what it reports)."
                                 : "validate it (fix what it reports), then execute it.");
    if (ask == NULL) {
        json_decref(messages);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    json_array_append_new(messages, user_text(ask));
    *out_result = json_pack("{s:s, s:o}", "description",
                            "Loads code mode's instructions (and the schema when it is small)",
                            "messages", messages);
    return SLUICE_OK;
}

static sluice_status
register_guides(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err)
{
    static const char *const names[] = { "instructions", "policies", "schema" };
    const char *language = sluice_codemode_language(cm, 0);
    bool sql = language == NULL || strcmp(language, "sql") == 0 || strcmp(language, "pgsql") == 0;
    bool graphql = language != NULL && strcmp(language, "graphql") == 0;
    const char *const descriptions[] = {
        "How to use code mode: validate, then execute; rules and limits",
        "What you (the caller) may do: actions, approval levels, blocked fields, limits",
        sql       ? "The tables and columns code may use; blocked fields are join/filter only"
        : graphql ? "The types and fields operations may select; blocked fields are never returned"
                  : "The operations plans may call, as TypeScript declarations; blocked fields "
                    "are never returned",
    };
    guide_ref *refs = sluice_arena_calloc(sluice_codemode_arena(cm), 3, sizeof *refs);
    if (refs == NULL)
        return sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    for (int k = GUIDE_INSTRUCTIONS; k <= GUIDE_SCHEMA; k++) {
        refs[k] = (guide_ref){ cm, (guide_kind)k };
        sluice_mcp_resource def = {
            .uri = guide_uris[k],
            .name = names[k],
            .description = descriptions[k],
            .mime_type = "text/markdown",
            .fn = read_guide,
            .userdata = &refs[k],
        };
        sluice_status st = sluice_mcp_server_add_resource(server, &def, err);
        if (st != SLUICE_OK)
            return st;
    }
    sluice_mcp_prompt prompt = {
        .name = "start_code_mode",
        .title = "Start code mode",
        .description = "Load code mode's instructions (and a small schema) before writing code",
        .arguments = json_pack("[{s:s, s:s, s:b}]", "name", "question", "description",
                               "The business question to answer (optional)", "required", 0),
        .fn = start_code_mode,
        .userdata = cm,
    };
    return sluice_mcp_server_add_prompt(server, &prompt, err);
}

/* ---- saved programs: the promoted programs as tools ------------------------------------------ */

/* tools/list: every promoted program this caller could run now (its record verifies, it is not
 * demoted, nothing it was judged on changed, and the caller's route and policy allow it),
 * its input schema derived from its parameters. A caller never sees a tool it would be refused;
 * the call is judged again all the same. */
static sluice_status list_programs(sluice_mcp_call *call, json_t *items, void *userdata)
{
    sluice_codemode *cm = userdata;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    const sluice_codemode_caller caller = caller_of(call, NULL);
    sluice_program_catalog c;
    sluice_error err = { 0 };
    sluice_status st = sluice_codemode_programs(cm, arena, &c, &err);
    for (size_t i = 0; st == SLUICE_OK && i < c.count; i++) {
        const sluice_program *p = &c.items[i];
        if (sluice_program_name_reserved(sluice_codemode_config(cm), p->name) ||
            !sluice_codemode_program_offered(cm, &caller, arena, p))
            continue;
        const char *description = sluice_arena_printf(
            arena, "%s%s(saved program v%lld: %s, %s risk; runs without validate_code)",
            p->description, p->description[0] != '\0' ? " " : "", (long long)p->version, p->action,
            p->risk);
        bool read = strcmp(p->action, "read") == 0;
        json_t *tool = json_pack(
            "{s:s, s:s, s:o, s:{s:b, s:b, s:b}}", "name", p->name, "description",
            description != NULL ? description : "", "inputSchema", sluice_program_input_schema(p),
            "annotations", "readOnlyHint", read, "destructiveHint",
            strcmp(p->action, "delete") == 0 || strcmp(p->action, "admin") == 0, "openWorldHint",
            0);
        if (tool == NULL || json_array_append_new(items, tool) != 0)
            st = SLUICE_E_NOMEM;
    }
    return st;
}

static sluice_status call_program(sluice_mcp_call *call,
                                  const char *name,
                                  json_t *arguments,
                                  json_t **out_result,
                                  sluice_error *err,
                                  void *userdata)
{
    sluice_codemode *cm = userdata;
    sluice_codemode_caller caller = caller_of(call, NULL);
    sluice_codemode_exec_hooks hooks = { .register_cancel = register_cancel, .cancel_ctx = call };
    json_t *structured = NULL, *refusal = NULL;
    caller.refusal = &refusal;
    char *text = NULL;
    const sluice_codemode_request req = { .arena = sluice_mcp_call_arena(call),
                                          .caller = &caller,
                                          .variables = arguments,
                                          .hooks = &hooks,
                                          .rows_spliced = true, /* to the MCP writer only */
                                          .err = err };
    sluice_status st = sluice_codemode_run_program(cm, &req, name, &structured, &text);
    return run_answer(st, structured, text, refusal, err, out_result);
}

sluice_status
sluice_codemode_register(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err)
{
    sluice_status st = register_tools(cm, server, err);
    if (st == SLUICE_OK)
        st = sluice_discover_register(cm, server, err);
    if (st == SLUICE_OK && sluice_config_programs_on(sluice_codemode_config(cm))) {
        const sluice_mcp_tool_provider programs = { list_programs, call_program, cm };
        st = sluice_mcp_server_set_tool_provider(server, &programs, err);
    }
    return st == SLUICE_OK ? register_guides(cm, server, err) : st;
}
