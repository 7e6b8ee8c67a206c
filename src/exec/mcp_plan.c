/*
 * mcp_plan.c — the `mcp` capability of JavaScript plans (see mcp_plan.h).
 *
 * Owns: the set of clients, the catalog document, and the checks every call passes at run
 * time. The checks repeat what validate_code decided on purpose (the broker rule: approving a
 * plan is not approving every call it could make): the token binds the code, and this binds
 * each call to the code's validated call sites.
 */
#include "exec/mcp_plan.h"

#include "core/json_schema.h"
#include "core/vec.h"
#include "exec/idempotency.h"
#include "exec/js_plan.h"
#include "exec/mcp_client.h"

#include <stdlib.h>
#include <string.h>

struct sluice_mcp_servers {
    sluice_arena *arena;         /* the copy of the configuration below */
    sluice_config_code_mode *cm; /* only mcp_servers and openapi_internal_blocked_fields */
    sluice_mcp_client **clients;
    size_t count;
    char ***schema_errors; /* per client, per tool: why its inputSchema cannot be enforced */
};

static const char *const action_names[] = { "read", "write", "delete" };

/* Checks every tool's inputSchema once; a tool sluice cannot enforce keeps its reason. */
static sluice_status check_schemas(sluice_mcp_servers *s, size_t k)
{
    size_t n = sluice_mcp_client_tool_count(s->clients[k]);
    s->schema_errors[k] = calloc(n > 0 ? n : 1, sizeof(char *));
    if (s->schema_errors[k] == NULL)
        return SLUICE_E_NOMEM;
    char **why = s->schema_errors[k];
    for (size_t i = 0; i < n; i++) {
        sluice_arena *a = sluice_arena_new();
        if (a == NULL)
            return SLUICE_E_NOMEM;
        sluice_error e = { 0 };
        const sluice_mcp_tool *t = sluice_mcp_client_tool(s->clients[k], i);
        sluice_status st = sluice_json_schema_check(t->input_schema, "inputSchema", a, &e);
        if (st == SLUICE_E_NOMEM) {
            sluice_arena_free(a);
            return st;
        }
        if (st != SLUICE_OK) {
            why[i] = strdup(e.message != NULL ? e.message : "an unsupported inputSchema");
            if (why[i] == NULL) {
                sluice_arena_free(a);
                return SLUICE_E_NOMEM;
            }
        }
        sluice_arena_free(a);
    }
    return SLUICE_OK;
}

/* What the set keeps of cm, copied into a (the caller may free its configuration). */
static sluice_config_code_mode *copy_config(sluice_arena *a, const sluice_config_code_mode *cm)
{
    sluice_config_code_mode *c = sluice_arena_calloc(a, 1, sizeof *c);
    size_t n = cm->mcp_server_count;
    sluice_config_mcp_server *srv = c != NULL ? sluice_arena_calloc(a, n + 1, sizeof *srv) : NULL;
    if (srv == NULL || sluice_strlist_copy(a, &c->openapi_internal_blocked_fields,
                                           &cm->openapi_internal_blocked_fields, NULL) != SLUICE_OK)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const sluice_config_mcp_server *f = &cm->mcp_servers[i];
        srv[i] = *f;
        srv[i].name = sluice_arena_strdup(a, f->name);
        if (srv[i].name == NULL ||
            sluice_strlist_copy(a, &srv[i].command, &f->command, NULL) != SLUICE_OK ||
            sluice_strlist_copy(a, &srv[i].allowed_tools, &f->allowed_tools, NULL) != SLUICE_OK ||
            sluice_strlist_copy(a, &srv[i].read_tools, &f->read_tools, NULL) != SLUICE_OK ||
            sluice_strlist_copy(a, &srv[i].write_tools, &f->write_tools, NULL) != SLUICE_OK ||
            sluice_strlist_copy(a, &srv[i].delete_tools, &f->delete_tools, NULL) != SLUICE_OK)
            return NULL;
    }
    c->mcp_servers = srv;
    c->mcp_server_count = n;
    return c;
}

/* Whether the configuration blocks any field a downstream's answer may hold. */
static bool blocks_fields(const sluice_config_code_mode *cm)
{
    return cm->openapi_internal_blocked_fields.count > 0 ||
           cm->openapi_output_blocked_fields.count > 0 || cm->blocked_fields.count > 0 ||
           cm->sql_blocked_columns.count > 0;
}

sluice_status sluice_mcp_servers_open(const sluice_config_code_mode *config,
                                      sluice_mcp_servers **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    *out = NULL;
    sluice_mcp_servers *s = calloc(1, sizeof *s);
    size_t n = config->mcp_server_count;
    const sluice_config_code_mode *cm = NULL;
    if (s != NULL && (s->arena = sluice_arena_new()) != NULL)
        cm = s->cm = copy_config(s->arena, config);
    if (cm != NULL) {
        s->clients = calloc(n > 0 ? n : 1, sizeof *s->clients);
        s->schema_errors = calloc(n > 0 ? n : 1, sizeof *s->schema_errors);
    }
    if (s == NULL || cm == NULL || s->clients == NULL || s->schema_errors == NULL) {
        sluice_mcp_servers_close(s);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory opening the MCP servers");
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(cm->mcp_servers[j].name, cm->mcp_servers[i].name) == 0) {
                sluice_mcp_servers_close(s);
                return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                        "two [[code_mode.mcp_servers]] are named '%s'; give each "
                                        "its own name",
                                        cm->mcp_servers[i].name);
            }
        sluice_status st =
            sluice_mcp_client_open(&cm->mcp_servers[i], &s->clients[i], err_arena, err);
        s->count = i + 1;
        if (st == SLUICE_OK) /* a server's error text may quote a record it holds */
            sluice_mcp_client_filter_failures(s->clients[i], blocks_fields(config));
        if (st == SLUICE_OK)
            st = check_schemas(s, i);
        if (st != SLUICE_OK) {
            sluice_mcp_servers_close(s);
            return st == SLUICE_E_NOMEM ? sluice_error_set(err, err_arena, st,
                                                           "out of memory opening the MCP servers")
                                        : st;
        }
    }
    *out = s;
    return SLUICE_OK;
}

void sluice_mcp_servers_close(sluice_mcp_servers *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->count; i++) {
        size_t n = s->clients[i] != NULL ? sluice_mcp_client_tool_count(s->clients[i]) : 0;
        for (size_t t = 0; s->schema_errors[i] != NULL && t < n; t++)
            free(s->schema_errors[i][t]);
        free(s->schema_errors[i]);
        sluice_mcp_client_close(s->clients[i]);
    }
    free(s->schema_errors);
    free(s->clients);
    sluice_arena_free(s->arena);
    free(s);
}

const char *sluice_mcp_servers_catalog(const sluice_mcp_servers *s, sluice_arena *arena)
{
    json_t *doc = json_object();
    for (size_t k = 0; doc != NULL && k < s->count; k++) {
        json_t *tools = json_object();
        for (size_t i = 0; tools != NULL && i < sluice_mcp_client_tool_count(s->clients[k]); i++) {
            const sluice_mcp_tool *t = sluice_mcp_client_tool(s->clients[k], i);
            const char *why = s->schema_errors[k][i];
            json_t *o =
                json_pack("{s:s, s:s, s:b, s:s?, s:O, s:s}", "action", action_names[t->action],
                          "actionFrom", t->action_from, "allowed", t->allowed, "schemaError", why,
                          "inputSchema", t->input_schema, "description", t->description);
            if (o == NULL || json_object_set_new(tools, t->name, o) != 0) {
                json_decref(tools);
                tools = NULL;
            }
        }
        if (tools == NULL ||
            json_object_set_new(doc, sluice_mcp_client_name(s->clients[k]), tools) != 0) {
            json_decref(doc);
            doc = NULL;
        }
    }
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(doc);
    const char *r = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return r;
}

static sluice_mcp_client *find_client(const sluice_mcp_servers *s, const char *name, size_t *k)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(sluice_mcp_client_name(s->clients[i]), name) == 0) {
            *k = i;
            return s->clients[i];
        }
    return NULL;
}

/* The plan's view of a tool result: structuredContent, else the first text block as JSON, else
 * that text. A new reference, or NULL on NOMEM. */
static json_t *plan_value(const json_t *result)
{
    const json_t *sc = json_object_get(result, "structuredContent");
    if (sc != NULL)
        return json_deep_copy(sc);
    const json_t *c0 = json_array_get(json_object_get(result, "content"), 0);
    const char *text = json_string_value(json_object_get(c0, "text"));
    if (text == NULL)
        return json_null();
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    return v != NULL ? v : json_string(text);
}

/* Refuses a call the validated plan, the allowlist or the server's switches do not cover. */
static sluice_status admit(const sluice_mcp_servers *s,
                           const sluice_mcp_run *run,
                           const char *server,
                           const char *tool,
                           const sluice_js_call *call,
                           sluice_arena *arena,
                           sluice_mcp_call_record *rec,
                           sluice_error *err)
{
    size_t k = 0;
    sluice_mcp_client *c = find_client(s, server, &k);
    const sluice_mcp_tool *t = c != NULL ? sluice_mcp_client_find(c, tool) : NULL;
    if (!sluice_strlist_contains(run->validated, rec->operation) || t == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "mcp.call(\"%s\", \"%s\") at line %u was not validated with the "
                                "plan; only the calls validate_code saw may run",
                                server, tool, call->line);
    rec->action = action_names[t->action];
    const sluice_config_mcp_server *cfg = &s->cm->mcp_servers[k];
    const char *why = s->schema_errors[k][t - sluice_mcp_client_tool(c, 0)];
    if (!t->allowed || why != NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "mcp.call(\"%s\", \"%s\") at line %u: %s", server, tool, call->line,
                                why != NULL ? why : "the tool is not in allowed_tools");
    if ((t->action == SLUICE_MCP_TOOL_WRITE && !cfg->allow_writes) ||
        (t->action == SLUICE_MCP_TOOL_DELETE && !cfg->allow_deletes))
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "mcp.call(\"%s\", \"%s\") at line %u %ss (%s), and the server's "
                                "allow_%ss = false",
                                server, tool, call->line, action_names[t->action], t->action_from,
                                action_names[t->action]);
    return SLUICE_OK;
}

/* The _meta of a write: its idempotency key, the one derivation every plan write uses (the
 * api's Idempotency-Key too): the token, the operation and what the call sends (args), so a
 * retry of the same call repeats its key. Also recorded in rec. SLUICE_E_NOMEM only. */
static sluice_status write_meta(const sluice_mcp_run *run,
                                sluice_arena *arena,
                                const json_t *args,
                                sluice_mcp_call_record *rec,
                                json_t **meta)
{
    char key[33];
    char *body = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
    if (body == NULL)
        return SLUICE_E_NOMEM;
    sluice_exec_idempotency_key(run->token_id, rec->operation, "", body, key);
    free(body);
    rec->idempotency_key = sluice_arena_strdup(arena, key);
    *meta = json_pack("{s:s}", "idempotencyKey", key);
    if (*meta == NULL || rec->idempotency_key == NULL) {
        json_decref(*meta);
        *meta = NULL;
        return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}

/* What the plan receives of a tool result (res, released here): its plan value with the
 * internal blocked fields stripped, the same guard as the plan's output, on the way in. */
static sluice_status plan_result(const sluice_mcp_servers *s,
                                 sluice_arena *arena,
                                 json_t *res,
                                 sluice_mcp_call_record *rec,
                                 json_t **result,
                                 sluice_error *err)
{
    json_t *v = plan_value(res);
    json_decref(res);
    if (v == NULL)
        return SLUICE_E_NOMEM;
    const sluice_strlist *const internal[2] = { &s->cm->openapi_internal_blocked_fields, NULL };
    const char *hit = NULL;
    sluice_status st =
        sluice_js_guard_blocked(arena, v, internal, false, &rec->stripped, &hit, err);
    if (st != SLUICE_OK) {
        json_decref(v);
        return st;
    }
    *result = v;
    return SLUICE_OK;
}

sluice_status sluice_mcp_servers_call(sluice_mcp_servers *s,
                                      const sluice_mcp_run *run,
                                      sluice_arena *arena,
                                      const sluice_js_call *call,
                                      json_t **result,
                                      sluice_mcp_call_record *rec,
                                      sluice_error *err)
{
    sluice_mcp_call_record scratch;
    rec = rec != NULL ? rec : &scratch;
    memset(rec, 0, sizeof *rec);
    *result = NULL;
    const char *server = json_string_value(json_array_get(call->args, 0));
    const char *tool = json_string_value(json_array_get(call->args, 1));
    json_t *args = json_array_get(call->args, 2);
    if (server == NULL || tool == NULL)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "mcp.call at line %u needs a server and a tool name (strings)",
                                call->line);
    rec->operation = sluice_arena_printf(arena, "mcp:%s/%s", server, tool);
    if (rec->operation == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = admit(s, run, server, tool, call, arena, rec, err);
    if (st != SLUICE_OK)
        return st;
    size_t k = 0;
    sluice_mcp_client *c = find_client(s, server, &k);
    const sluice_mcp_tool *t = sluice_mcp_client_find(c, tool);
    json_t *a = json_is_null(args) || args == NULL ? json_object() : json_incref(args);
    if (a == NULL)
        return SLUICE_E_NOMEM;
    sluice_error verr = { 0 };
    st = sluice_json_schema_validate(t->input_schema, a, "args", arena, &verr);
    if (st != SLUICE_OK) {
        json_decref(a);
        return st == SLUICE_E_NOMEM
                   ? st
                   : sluice_error_set(err, arena, SLUICE_E_DENIED,
                                      "mcp.call(\"%s\", \"%s\") at line %u: %s (the tool's "
                                      "inputSchema)",
                                      server, tool, call->line, verr.message);
    }
    json_t *meta = NULL;
    if (t->action != SLUICE_MCP_TOOL_READ && write_meta(run, arena, a, rec, &meta) != SLUICE_OK) {
        json_decref(a);
        return SLUICE_E_NOMEM;
    }
    json_t *res = NULL;
    st = sluice_mcp_client_call(c, tool, a, meta, run->cancelled, arena, &res, err);
    json_decref(a);
    json_decref(meta);
    if (st == SLUICE_E_TIMEOUT || st == SLUICE_E_IO || st == SLUICE_E_LIMIT)
        st = SLUICE_E_ENGINE; /* the downstream failed, not the plan: the plan may catch it */
    if (st != SLUICE_OK)
        return st;
    return plan_result(s, arena, res, rec, result, err);
}

sluice_status sluice_mcp_host_call(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err)
{
    sluice_mcp_host *h = ctx;
    *result = NULL;
    if (strcmp(call->object, "mcp") != 0)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "%s.%s at line %u: this plan has no api backend", call->object,
                                call->method, call->line);
    return sluice_mcp_servers_call(h->servers, &h->run, arena, call, result, NULL, err);
}

/* --- the plan executor's mcp backend (exec/js_plan.h): start runs the call, wait hands it over */

typedef struct outcome {
    sluice_status st;
    json_t *result;
    sluice_error err;
    sluice_mcp_call_record rec;
    bool done;
} outcome;

struct sluice_mcp_backend_state {
    sluice_mcp_host host;
    outcome *slots;
    size_t cap;
    uint64_t next;
};

static bool grow_slots(sluice_mcp_backend_state *b, sluice_arena *arena)
{
    outcome *n = sluice_vec_grow(arena, b->slots, b->next, &b->cap, sizeof *n, 16);
    if (n == NULL)
        return false;
    b->slots = n;
    return true;
}

static sluice_status mcp_start(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, uint64_t *ticket, sluice_error *err)
{
    sluice_mcp_backend_state *b = ctx;
    if (!grow_slots(b, b->host.arena))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory starting an MCP call");
    outcome *o = &b->slots[b->next];
    *ticket = b->next++;
    /* one exchange at a time per downstream server: the call runs here, wait hands it over */
    o->st = sluice_mcp_servers_call(b->host.servers, &b->host.run, arena, call, &o->result, &o->rec,
                                    &o->err);
    o->done = true;
    if (o->st != SLUICE_OK && o->st != SLUICE_E_ENGINE) {
        *err = o->err;
        return o->st; /* a refusal stops the plan at the call, as the contract asks */
    }
    return SLUICE_OK;
}

static sluice_status
mcp_wait(void *ctx, sluice_arena *arena, uint64_t ticket, json_t **result, sluice_error *err)
{
    sluice_mcp_backend_state *b = ctx;
    *result = NULL;
    if (ticket >= b->next || !b->slots[ticket].done)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL, "unknown MCP call %llu",
                                (unsigned long long)ticket);
    outcome *o = &b->slots[ticket];
    *err = o->err;
    *result = o->result;
    o->result = NULL;
    return o->st;
}

static json_t *mcp_describe(void *ctx, uint64_t ticket)
{
    sluice_mcp_backend_state *b = ctx;
    if (ticket >= b->next)
        return NULL;
    const sluice_mcp_call_record *r = &b->slots[ticket].rec;
    return json_pack("{s:s?, s:s?, s:s?, s:I}", "operation", r->operation, "action", r->action,
                     "idempotency_key", r->idempotency_key, "stripped", (json_int_t)r->stripped);
}

sluice_status
sluice_mcp_plan_backend(const sluice_mcp_host *host, sluice_arena *arena, sluice_js_backend *out)
{
    sluice_mcp_backend_state *b = sluice_arena_calloc(arena, 1, sizeof *b);
    if (b == NULL)
        return SLUICE_E_NOMEM;
    b->host = *host;
    b->host.arena = arena;
    *out = (sluice_js_backend){
        .start = mcp_start, .wait = mcp_wait, .describe = mcp_describe, .ctx = b
    };
    return SLUICE_OK;
}
