/*
 * curated.c — config-declared SQL tools (see curated.h).
 */
#include "surface/curated.h"

#include "codemode/present.h"
#include "facts/codefacts.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

typedef struct curated_tool {
    const sluice_curated_services *with; /* a copy in the registrations' arena */
    const sluice_config_tool *tool;
    pthread_mutex_t mu;  /* one first call analyzes; the others wait for its facts */
    atomic_bool checked; /* the two facts below are set: read them without mu */
    bool scrub_errors;   /* the statement reads blocked fields (in filters or joins) */
    bool engine_bounded; /* proven by the analysis: runs in the server, no capped child per call */
} curated_tool;

static const char *const param_types[] = { "string", "integer", "number", "boolean" };

static json_t *input_schema(const sluice_config_tool *tool)
{
    json_t *props = json_object();
    json_t *required = json_array();
    for (size_t i = 0; i < tool->param_count; i++) {
        const sluice_config_param *p = &tool->params[i];
        json_t *prop = json_pack("{s:s}", "type", param_types[p->type]);
        if (p->description != NULL)
            json_object_set_new(prop, "description", json_string(p->description));
        if (p->minimum != SLUICE_PARAM_NO_MIN) /* enforced on every call (mcp/json_schema.c) */
            json_object_set_new(prop, "minimum", json_integer((json_int_t)p->minimum));
        if (p->maximum != SLUICE_PARAM_NO_MAX)
            json_object_set_new(prop, "maximum", json_integer((json_int_t)p->maximum));
        json_object_set_new(props, p->name, prop);
        if (p->required)
            json_array_append_new(required, json_string(p->name));
    }
    return json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props, "required",
                     required, "additionalProperties", 0);
}

/* Placeholder values of the declared types, so the statement binds during the start-up check. */
static json_t *sample_variables(const sluice_config_tool *tool)
{
    json_t *vars = json_object();
    for (size_t i = 0; i < tool->param_count; i++) {
        static const char *const samples[] = { "\"s\"", "1", "1.5", "true" };
        json_object_set_new(vars, tool->params[i].name,
                            json_loads(samples[tool->params[i].type], JSON_DECODE_ANY, NULL));
    }
    return vars;
}

static void register_cancel(void *ctx, void (*fn)(void *), void *data)
{
    sluice_mcp_call_on_cancel(ctx, fn, data);
}

static sluice_status check_statement(sluice_codemode *cm,
                                     const sluice_config_tool *tool,
                                     curated_tool *ct,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    sluice_arena *scratch = sluice_arena_new();
    json_t *vars = sample_variables(tool);
    sluice_codefacts *f = NULL;
    const sluice_codemode_request req = { .arena = scratch,
                                          .code = tool->statement,
                                          .code_len = strlen(tool->statement),
                                          .variables = vars,
                                          .err = err };
    sluice_status st = scratch == NULL ? SLUICE_E_NOMEM : sluice_codemode_analyze(cm, &req, &f);
    json_decref(vars);
    if (st == SLUICE_OK && sluice_codefacts_refused(f))
        st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                              "tool '%s' (line %zu): its statement is refused: %s", tool->name,
                              tool->line, f->violations[0].message);
    else if (st == SLUICE_OK) {
        ct->scrub_errors = f->blocked_used.count > 0;
        /* The statement never changes and its arguments are parameters, as execute_code's
         * variables are: the start-up proof holds for every call (docs/architecture.md). */
        ct->engine_bounded = f->engine_bounded;
        atomic_store_explicit(&ct->checked, true, memory_order_release);
    } else if (err != NULL && err->message != NULL)
        sluice_error_set(err, err_arena, st, "tool '%s': %s", tool->name, err->message);
    sluice_arena_free(scratch);
    return st;
}

/* The analysis at the tool's first call (sluice_curated_register without check_now). */
static sluice_status checked(curated_tool *ct, sluice_arena *arena, sluice_error *err)
{
    if (atomic_load_explicit(&ct->checked, memory_order_acquire))
        return SLUICE_OK;
    pthread_mutex_lock(&ct->mu);
    sluice_status st = atomic_load_explicit(&ct->checked, memory_order_relaxed)
                           ? SLUICE_OK
                           : check_statement(ct->with->analyzer, ct->tool, ct, arena, err);
    pthread_mutex_unlock(&ct->mu);
    return st;
}

static sluice_status call_tool(sluice_mcp_call *call,
                               json_t *arguments,
                               json_t **out_result,
                               sluice_error *err,
                               void *userdata)
{
    curated_tool *ct = userdata;
    const sluice_config_code_mode *c = &ct->with->config->code_mode;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    sluice_status checked_st = checked(ct, arena, err);
    if (checked_st != SLUICE_OK)
        return checked_st;
    const sluice_config_tool *tool = ct->tool;
    sluice_exec_request req = {
        .code = tool->statement,
        .code_len = strlen(tool->statement),
        .variables = arguments,
        .limits = sluice_exec_limits_from_config(c),
        .identity = sluice_mcp_call_identity(call),
        .scrub_errors = ct->scrub_errors,
        .engine_bounded = ct->engine_bounded,
        .fixed_statement = true,
        .rows_text_only = true, /* the answer splices rows_text (sluice_present_result_spliced) */
        .register_cancel = register_cancel,
        .cancel_ctx = call,
    };
    sluice_exec_result r = { 0 };
    sluice_status st = sluice_executor_execute(ct->with->executor, arena, &req, &r, err);
    sluice_codemode_caller caller = { .identity = sluice_mcp_call_identity(call),
                                      .session_id = sluice_mcp_call_session_id(call) };
    json_t *record = json_pack("{s:s, s:s, s:O, s:I, s:b}", "tool", tool->name, "decision",
                               st == SLUICE_OK ? "executed" : "failed", "arguments", arguments,
                               "rows", (json_int_t)r.row_count, "truncated", r.truncated);
    st = sluice_runtime_audit_outcome(ct->with->rt, arena,
                                      (sluice_runtime_event){ &caller, "tool", record }, st, err);
    if (st != SLUICE_OK)
        return st;
    json_t *structured = sluice_present_result_spliced(&r);
    char *text = sluice_present_untrusted_text(arena, &r);
    *out_result = json_pack("{s:[{s:s, s:s}], s:o}", "content", "type", "text", "text",
                            text != NULL ? text : "", "structuredContent", structured);
    if (*out_result != NULL && text != NULL)
        return SLUICE_OK;
    /* never an answer without its rows: the call fails instead */
    json_decref(*out_result);
    *out_result = NULL;
    return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                            "out of memory while writing the answer of tool '%s'", tool->name);
}

static void mutex_free(void *mu)
{
    pthread_mutex_destroy(mu);
}

sluice_status sluice_curated_register(const sluice_curated_services *with,
                                      sluice_mcp_server *server,
                                      bool check_now,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    const sluice_config *config = with->config;
    if (config->tool_count == 0)
        return SLUICE_OK;
    sluice_curated_services *kept = sluice_arena_calloc(with->arena, 1, sizeof *kept);
    if (kept == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    *kept = *with;
    for (size_t i = 0; i < config->tool_count; i++) {
        const sluice_config_tool *tool = &config->tools[i];
        curated_tool *ct = sluice_arena_calloc(with->arena, 1, sizeof *ct);
        if (ct == NULL || pthread_mutex_init(&ct->mu, NULL) != 0)
            return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        if (sluice_arena_cleanup_add(with->arena, mutex_free, &ct->mu) != SLUICE_OK)
            return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        ct->with = kept;
        ct->tool = tool;
        sluice_status st =
            check_now ? check_statement(with->analyzer, tool, ct, err_arena, err) : SLUICE_OK;
        if (st != SLUICE_OK)
            return st;
        bool writes = config->code_mode.sql_allow_writes || config->code_mode.sql_allow_deletes;
        sluice_mcp_tool def = {
            .name = tool->name,
            .title = tool->title,
            .description = tool->description,
            .input_schema = input_schema(tool),
            .annotations = json_pack("{s:b, s:b}", "readOnlyHint", !writes, "openWorldHint", 0),
            .fn = call_tool,
            .userdata = ct,
        };
        st = sluice_mcp_server_add_tool(server, &def, err);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}
