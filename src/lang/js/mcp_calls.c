/*
 * mcp_calls.c — resolving mcp.call sites at validate (see mcp_calls.h).
 *
 * Owns: the catalog lookups, the action of a site (the catalog's, which the downstream tool's
 * annotations or the config's read_tools/write_tools/delete_tools set) and the check of literal
 * arguments against the tool's inputSchema.
 * Does not own: the call bound or the literal-name rule (analyze.c), the run-time re-check
 * (exec/mcp_plan.c).
 */
#include "lang/js/mcp_calls.h"

#include "core/buf.h"
#include "core/json_schema.h"

#include <math.h>
#include <string.h>

static const sluice_config_mcp_server *server_cfg(const sluice_config_code_mode *cfg,
                                                  const char *name)
{
    for (size_t i = 0; cfg != NULL && i < cfg->mcp_server_count; i++)
        if (strcmp(cfg->mcp_servers[i].name, name) == 0)
            return &cfg->mcp_servers[i];
    return NULL;
}

/* The names of the catalog's servers or of one server's tools, for a refusal's hint. */
static const char *names_of(sluice_arena *arena, const json_t *obj)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 2048);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        sluice_buf_printf(&b, "%s%s", b.len > 0 ? ", " : "", key);
    }
    (void)v;
    return b.len > 0 && sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "none";
}

/* A literal's JSON value, or NULL when any part of it is computed (then it is checked at run
 * time only). *nomem on allocation failure. */
static json_t *literal_json(sluice_arena *arena, const sluice_js_node *n, bool *nomem)
{
    switch (n->kind) {
    case SLUICE_JS_STR: {
        char *s = sluice_js_str_utf8(arena, n->str);
        *nomem |= s == NULL;
        return s != NULL ? json_string(s) : NULL;
    }
    case SLUICE_JS_NUM:
        return n->num == floor(n->num) && fabs(n->num) < 9007199254740992.0
                   ? json_integer((json_int_t)n->num)
                   : json_real(n->num);
    case SLUICE_JS_UNARY:
        if (n->op == SLUICE_JS_OP_NEG && n->a->kind == SLUICE_JS_NUM)
            return n->a->num == floor(n->a->num) && fabs(n->a->num) < 9007199254740992.0
                       ? json_integer(-(json_int_t)n->a->num)
                       : json_real(-n->a->num);
        return NULL;
    case SLUICE_JS_TRUE:
        return json_true();
    case SLUICE_JS_FALSE:
        return json_false();
    case SLUICE_JS_NULL:
        return json_null();
    case SLUICE_JS_ARRAY: {
        json_t *a = json_array();
        for (size_t i = 0; a != NULL && i < n->n; i++) {
            json_t *v = n->list[i]->kind == SLUICE_JS_SPREAD
                            ? NULL
                            : literal_json(arena, n->list[i], nomem);
            if (v == NULL || json_array_append_new(a, v) != 0) {
                json_decref(a);
                a = NULL;
            }
        }
        return a;
    }
    case SLUICE_JS_OBJECT: {
        json_t *o = json_object();
        for (size_t i = 0; o != NULL && i < n->n; i++) {
            const sluice_js_node *p = n->list[i];
            char *key = p->kind == SLUICE_JS_PROPERTY && !(p->flags & SLUICE_JS_F_COMPUTED) &&
                                p->a->kind == SLUICE_JS_STR
                            ? sluice_js_str_utf8(arena, p->a->str)
                            : NULL;
            json_t *v = key != NULL ? literal_json(arena, p->b, nomem) : NULL;
            if (v == NULL || json_object_set_new(o, key, v) != 0) {
                json_decref(o);
                o = NULL;
            }
        }
        return o;
    }
    default:
        return NULL;
    }
}

/* Literal arguments validated against the tool's inputSchema; computed ones wait for the run. */
static void check_arguments(sluice_codefacts *f,
                            const sluice_js_node *call,
                            const char *op,
                            const json_t *schema)
{
    const sluice_js_node *a = call->n > 2 ? call->list[2] : NULL;
    bool nomem = false;
    json_t *v = a == NULL ? json_object() : literal_json(f->arena, a, &nomem);
    if (nomem)
        f->incomplete = true;
    if (v == NULL)
        return;
    sluice_error e = { 0 };
    sluice_status st = sluice_json_schema_validate(schema, v, "args", f->arena, &e);
    json_decref(v);
    if (st == SLUICE_E_NOMEM)
        f->incomplete = true;
    else if (st != SLUICE_OK)
        sluice_codefacts_violate(f, "mcp_arguments", call->line, call->column,
                                 "pass the arguments the tool's inputSchema asks for "
                                 "(code-mode://schema shows it)",
                                 "%s at line %u: %s", op, call->line,
                                 e.message != NULL ? e.message : "arguments do not match");
}

/* The action's rule: the server's allow_writes / allow_deletes. */
static void check_action(sluice_codefacts *f,
                         const sluice_js_node *call,
                         const sluice_config_mcp_server *srv,
                         const char *op,
                         sluice_action act,
                         const char *from)
{
    if (act == SLUICE_ACTION_READ)
        return;
    bool del = act != SLUICE_ACTION_WRITE;
    bool allowed = srv != NULL && (del ? srv->allow_deletes : srv->allow_writes);
    const char *key = del ? "allow_deletes" : "allow_writes";
    if (!allowed)
        sluice_codefacts_violate(f, key, call->line, call->column,
                                 sluice_arena_printf(f->arena,
                                                     "an administrator may set %s = true on the "
                                                     "server in [[code_mode.mcp_servers]]",
                                                     key),
                                 "%s at line %u %s (%s), and the server does not allow %s (%s = "
                                 "false)",
                                 op, call->line, del ? "deletes" : "writes", from,
                                 del ? "deletes" : "writes", key);
}

static sluice_action action_of(const json_t *t)
{
    const char *a = json_string_value(json_object_get(t, "action"));
    if (a != NULL && strcmp(a, "read") == 0)
        return SLUICE_ACTION_READ;
    if (a != NULL && strcmp(a, "delete") == 0)
        return SLUICE_ACTION_DELETE;
    return SLUICE_ACTION_WRITE; /* unknown counts as the stricter write */
}

/* Records the site's operation, action and resource. */
static void
record(sluice_codefacts *f, sluice_js_facts *x, const char *op, sluice_action act, bool in_catch)
{
    if (act > f->action)
        f->action = act;
    sluice_codefacts_list_add(f, &f->operations, op);
    sluice_codefacts_list_add(
        f, act == SLUICE_ACTION_READ ? &f->resources_read : &f->resources_written, op);
    if (act == SLUICE_ACTION_READ)
        x->read_calls++;
    else if (act == SLUICE_ACTION_WRITE)
        x->write_calls++;
    else
        x->delete_calls++;
    if (act != SLUICE_ACTION_READ && in_catch)
        x->retries_write = true;
}

void sluice_js_check_mcp_call(sluice_codefacts *f,
                              sluice_js_facts *x,
                              const sluice_config_code_mode *cfg,
                              const json_t *catalog,
                              const sluice_js_node *call,
                              const char *server,
                              const char *tool,
                              bool in_catch)
{
    char *op = sluice_arena_printf(f->arena, "mcp:%s/%s", server, tool);
    if (op == NULL) {
        f->incomplete = true;
        return;
    }
    const json_t *tools = json_object_get(catalog, server);
    const json_t *t = json_object_get(tools, tool);
    if (tools == NULL || t == NULL) {
        /* unknown: resolved as the stricter write so the facts never understate it */
        record(f, x, op, SLUICE_ACTION_WRITE, in_catch);
        if (tools == NULL)
            sluice_codefacts_violate(
                f, "mcp_servers", call->line, call->column,
                sluice_arena_printf(f->arena, "servers: %s", names_of(f->arena, catalog)),
                "mcp.call at line %u names the server '%s', which is not "
                "in [[code_mode.mcp_servers]]",
                call->line, server);
        else
            sluice_codefacts_violate(f, "mcp_tool", call->line, call->column,
                                     sluice_arena_printf(f->arena, "tools of '%s': %s", server,
                                                         names_of(f->arena, tools)),
                                     "mcp.call at line %u names the tool '%s', which the server "
                                     "'%s' does not list",
                                     call->line, tool, server);
        return;
    }
    sluice_action act = action_of(t);
    const char *from = json_string_value(json_object_get(t, "actionFrom"));
    record(f, x, op, act, in_catch);
    if (!json_is_true(json_object_get(t, "allowed")))
        sluice_codefacts_violate(f, "allowed_tools", call->line, call->column,
                                 "an administrator may add it to allowed_tools of the server",
                                 "%s at line %u is not in the server's allowed_tools", op,
                                 call->line);
    const char *why = json_string_value(json_object_get(t, "schemaError"));
    if (why != NULL)
        sluice_codefacts_violate(f, "mcp_tool_schema", call->line, call->column, NULL,
                                 "%s at line %u cannot be called: sluice cannot enforce its "
                                 "inputSchema (%s)",
                                 op, call->line, why);
    check_action(f, call, server_cfg(cfg, server), op, act, from != NULL ? from : "");
    if (why == NULL)
        check_arguments(f, call, op, json_object_get(t, "inputSchema"));
}
