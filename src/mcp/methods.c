/*
 * methods.c — what each MCP request method does, run on a worker thread for one call.
 *
 * Owns: tools/list and tools/call (arguments validated against the inputSchema before the
 * handler runs; validation and handler failures are tool results with isError:true), prompts,
 * resources (exact URIs, then templates), subscriptions, completion, logging/setLevel, opaque
 * list cursors, and the mapping of handler statuses to JSON-RPC errors.
 * Does not own: initialize and ping (session.c answers those inline, in frame order).
 */
#include "core/json_schema.h"
#include "core/json_write.h"
#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"
#include "mcp/server_impl.h"

#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sets *e and returns NULL, so methods can `return refuse(...)`. */
static json_t *refuse(sluice_mcp_call *call, rpc_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static json_t *refuse(sluice_mcp_call *call, rpc_error *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = sluice_arena_vprintf(call->arena, fmt, ap);
    va_end(ap);
    e->code = code;
    e->message = message != NULL ? message : "out of memory";
    return NULL;
}

/* A required string parameter, or NULL after refusing. */
static const char *string_param(sluice_mcp_call *call, rpc_error *e, const char *name)
{
    const json_t *v = json_object_get(call->params, name);
    if (json_is_string(v))
        return json_string_value(v);
    refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS, "'params.%s' must be a string, got %s", name,
           v == NULL ? "nothing" : sluice_jsonrpc_type_name(v));
    return NULL;
}

static void set_optional(json_t *obj, const char *key, const char *value)
{
    if (value != NULL)
        json_object_set_new(obj, key, json_string(value));
}

/* ---- pagination --------------------------------------------------------------------------------
 */

/* Cursors are base64url("<method>@<offset>"): opaque to clients, checked on the way back. */
static const char *make_cursor(sluice_mcp_call *call, size_t offset)
{
    char raw[96];
    int n = snprintf(raw, sizeof raw, "%s@%zu", call->method, offset);
    size_t cap = sodium_base64_ENCODED_LEN((size_t)n, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *out = sluice_arena_alloc(call->arena, cap);
    if (out != NULL)
        sodium_bin2base64(out, cap, (const unsigned char *)raw, (size_t)n,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return out;
}

/* Reads params.cursor into *offset (0 without a cursor); false after refusing. */
static bool read_cursor(sluice_mcp_call *call, rpc_error *e, size_t count, size_t *offset)
{
    *offset = 0;
    const json_t *cursor = json_object_get(call->params, "cursor");
    if (cursor == NULL || json_is_null(cursor))
        return true;
    char raw[96];
    size_t len = 0;
    const char *text = json_is_string(cursor) ? json_string_value(cursor) : "";
    bool ok = json_is_string(cursor) &&
              sodium_base642bin((unsigned char *)raw, sizeof raw - 1, text, strlen(text), NULL,
                                &len, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) == 0;
    if (ok) {
        raw[len] = '\0';
        size_t mlen = strlen(call->method);
        char *end = NULL;
        ok = len > mlen + 1 && strncmp(raw, call->method, mlen) == 0 && raw[mlen] == '@' &&
             raw[mlen + 1] >= '1' && raw[mlen + 1] <= '9';
        unsigned long long v = ok ? strtoull(raw + mlen + 1, &end, 10) : 0;
        ok = ok && *end == '\0' && v < count;
        *offset = (size_t)v;
    }
    if (!ok)
        refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
               "invalid cursor: pass the nextCursor value from a previous %s response unchanged",
               call->method);
    return ok;
}

/* Builds {<key>: [items offset..offset+page), nextCursor?}; item(i) makes one entry. */
typedef json_t *(*item_fn)(const sluice_mcp_server *server, size_t index);

static json_t *list_page(sluice_mcp_call *call,
                         rpc_error *e,
                         const char *key,
                         size_t count,
                         bool (*include)(const sluice_mcp_server *, size_t),
                         item_fn item)
{
    const sluice_mcp_server *server = call->session->server;
    /* Positions count only included entries, so cursors stay stable for a given registry. */
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += include == NULL || include(server, i);
    size_t offset;
    if (!read_cursor(call, e, total, &offset))
        return NULL;
    json_t *items = json_array();
    size_t seen = 0, added = 0;
    for (size_t i = 0; i < count && added < server->page_size; i++) {
        if (include != NULL && !include(server, i))
            continue;
        if (seen++ < offset)
            continue;
        json_array_append_new(items, item(server, i));
        added++;
    }
    json_t *result = json_pack("{s:o}", key, items);
    if (result != NULL && offset + added < total)
        json_object_set_new(result, "nextCursor", json_string(make_cursor(call, offset + added)));
    return result;
}

/* True for a handler's InputRequiredResult (sluice_mcp_input_required). */
static bool input_required(const json_t *result)
{
    const char *type = json_string_value(json_object_get(result, "resultType"));
    return type != NULL && strcmp(type, "input_required") == 0;
}

/* ---- tools -------------------------------------------------------------------------------------
 */

static json_t *tool_item(const sluice_mcp_server *server, size_t i)
{
    const sluice_mcp_tool *t = &server->tools[i].def;
    json_t *o =
        json_pack("{s:s, s:s, s:O}", "name", t->name, "description",
                  t->description != NULL ? t->description : "", "inputSchema", t->input_schema);
    set_optional(o, "title", t->title);
    if (t->output_schema != NULL)
        json_object_set(o, "outputSchema", t->output_schema);
    if (t->annotations != NULL)
        json_object_set(o, "annotations", t->annotations);
    return o;
}

static json_t *tool_error_result(const char *message)
{
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", message, "isError",
                     1);
}

/* tools/list: the registry's page, then (on the last page) the provider's tools. A provider
 * that fails lists none of its tools: a tool that cannot be judged is not offered. */
static json_t *tools_list(sluice_mcp_call *call, rpc_error *e)
{
    const sluice_mcp_server *server = call->session->server;
    json_t *result = list_page(call, e, "tools", server->tool_count, NULL, tool_item);
    if (result == NULL || server->provider.list == NULL ||
        json_object_get(result, "nextCursor") != NULL)
        return result;
    json_t *items = json_array();
    if (items != NULL && server->provider.list(call, items, server->provider.userdata) == SLUICE_OK)
        json_array_extend(json_object_get(result, "tools"), items);
    json_decref(items);
    return result;
}

/* A handler's answer as the CallToolResult the client gets: failures become isError results,
 * and a structured-only result gets its JSON as text. */
static json_t *tool_answer(
    sluice_mcp_call *call, const char *name, sluice_status st, json_t *result, sluice_error *err)
{
    if (st != SLUICE_OK) {
        json_decref(result);
        if (err->message == NULL)
            err->message = sluice_arena_printf(call->arena, "tool '%s' failed (%s)", name,
                                               sluice_status_name(st));
        return tool_error_result(err->message != NULL ? err->message : "tool failed");
    }
    if (!json_is_object(result)) {
        json_decref(result);
        return tool_error_result("internal error: the tool returned no result object");
    }
    if (input_required(result)) /* an interim result: no content of its own */
        return result;
    /* Clients render content; a structured-only result also gets its JSON as text. */
    if (json_object_get(result, "content") == NULL) {
        json_t *structured = json_object_get(result, "structuredContent");
        json_t *content = json_array();
        if (structured != NULL) {
            /* the MCP writer, not json_dumps: structured may hold a splice (core/json_splice.h),
             * which json_dumps refuses; no text is an error, never an empty block */
            char *text = sluice_json_write_text(structured, NULL);
            if (text == NULL) {
                json_decref(content);
                json_decref(result);
                return tool_error_result(
                    "internal error: the tool's structured result could not be written as text");
            }
            json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", text));
            free(text);
        }
        json_object_set_new(result, "content", content);
    }
    return result;
}

/* tools/call of a name the registry does not hold: the provider's, if it has one by that name. */
static json_t *provider_call(sluice_mcp_call *call, rpc_error *e, const char *name)
{
    const sluice_mcp_server *server = call->session->server;
    json_t *args = json_object_get(call->params, "arguments");
    if (server->provider.call == NULL)
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS, "unknown tool '%s'", name);
    json_t *result = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st =
        server->provider.call(call, name, args, &result, &err, server->provider.userdata);
    if (st == SLUICE_E_NOT_FOUND && err.message == NULL) {
        json_decref(result);
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS, "unknown tool '%s'", name);
    }
    return tool_answer(call, name, st, result, &err);
}

static json_t *tools_call(sluice_mcp_call *call, rpc_error *e)
{
    const char *name = string_param(call, e, "name");
    if (name == NULL)
        return NULL;
    const tool_entry *tool = sluice_mcp_find_tool(call->session->server, name);
    if (tool == NULL)
        return provider_call(call, e, name);
    json_t *args = json_object_get(call->params, "arguments");
    if (args != NULL && !json_is_object(args) && !json_is_null(args)) {
        if (tool->def.on_rejected != NULL)
            tool->def.on_rejected(call, args, "'params.arguments' must be an object",
                                  tool->def.userdata);
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "'params.arguments' must be an object, got %s",
                      sluice_jsonrpc_type_name(args));
    }
    json_t *owned = args != NULL && json_is_object(args) ? json_incref(args) : json_object();
    sluice_error err;
    sluice_error_clear(&err);
    if (sluice_json_schema_validate(tool->def.input_schema, owned, "arguments", call->arena,
                                    &err) != SLUICE_OK) {
        if (tool->def.on_rejected != NULL)
            tool->def.on_rejected(call, owned, err.message, tool->def.userdata);
        json_decref(owned);
        return tool_error_result(err.message);
    }
    json_t *result = NULL;
    sluice_error_clear(&err);
    sluice_status st = tool->def.fn(call, owned, &result, &err, tool->def.userdata);
    json_decref(owned);
    return tool_answer(call, name, st, result, &err);
}

/* ---- prompts -----------------------------------------------------------------------------------
 */

static json_t *prompt_item(const sluice_mcp_server *server, size_t i)
{
    const sluice_mcp_prompt *p = &server->prompts[i].def;
    json_t *o = json_pack("{s:s, s:s}", "name", p->name, "description",
                          p->description != NULL ? p->description : "");
    set_optional(o, "title", p->title);
    if (p->arguments != NULL)
        json_object_set(o, "arguments", p->arguments);
    return o;
}

static json_t *prompts_get(sluice_mcp_call *call, rpc_error *e)
{
    const char *name = string_param(call, e, "name");
    if (name == NULL)
        return NULL;
    const prompt_entry *prompt = sluice_mcp_find_prompt(call->session->server, name);
    if (prompt == NULL)
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS, "unknown prompt '%s'", name);
    json_t *args = json_object_get(call->params, "arguments");
    if (args != NULL && !json_is_object(args) && !json_is_null(args))
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "'params.arguments' must be an object of strings");
    const char *key;
    json_t *value;
    json_object_foreach(args, key, value)
    {
        if (!json_is_string(value))
            return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                          "argument '%s' of prompt '%s' must be a string, got %s", key, name,
                          sluice_jsonrpc_type_name(value));
    }
    size_t i;
    json_t *decl;
    json_array_foreach(prompt->def.arguments, i, decl)
    {
        const char *arg = json_string_value(json_object_get(decl, "name"));
        if (json_is_true(json_object_get(decl, "required")) && json_object_get(args, arg) == NULL)
            return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                          "missing required argument '%s' for prompt '%s'", arg, name);
    }
    json_t *owned = json_is_object(args) ? json_incref(args) : json_object();
    json_t *result = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = prompt->def.fn(call, owned, &result, &err, prompt->def.userdata);
    json_decref(owned);
    if (st == SLUICE_OK && json_is_object(result))
        return result;
    json_decref(result);
    return refuse(call, e,
                  st == SLUICE_E_INVALID ? SLUICE_JSONRPC_INVALID_PARAMS
                                         : SLUICE_JSONRPC_INTERNAL_ERROR,
                  "%s", err.message != NULL ? err.message : "the prompt handler failed");
}

/* ---- resources ---------------------------------------------------------------------------------
 */

static bool is_fixed(const sluice_mcp_server *server, size_t i)
{
    return !server->resources[i].def.is_template;
}

static bool is_template(const sluice_mcp_server *server, size_t i)
{
    return server->resources[i].def.is_template;
}

static json_t *resource_item(const sluice_mcp_server *server, size_t i)
{
    const sluice_mcp_resource *r = &server->resources[i].def;
    json_t *o =
        json_pack("{s:s, s:s}", r->is_template ? "uriTemplate" : "uri", r->uri, "name", r->name);
    set_optional(o, "title", r->title);
    set_optional(o, "description", r->description);
    set_optional(o, "mimeType", r->mime_type);
    return o;
}

static json_t *not_found(sluice_mcp_call *call, rpc_error *e, const char *uri)
{
    /* 2026-07-28 moved "resource not found" from -32002 to -32602 (Invalid Params). */
    refuse(call, e,
           call->stateless ? SLUICE_JSONRPC_INVALID_PARAMS : SLUICE_JSONRPC_RESOURCE_NOT_FOUND,
           "resource not found: %s", uri);
    e->data = json_pack("{s:s}", "uri", uri);
    return NULL;
}

static json_t *resources_read(sluice_mcp_call *call, rpc_error *e)
{
    const char *uri = string_param(call, e, "uri");
    if (uri == NULL)
        return NULL;
    const resource_entry *r = sluice_mcp_find_resource(call->session->server, uri);
    if (r == NULL)
        return not_found(call, e, uri);
    json_t *contents = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    sluice_status st = r->def.fn(call, uri, &contents, &err, r->def.userdata);
    if (st == SLUICE_OK && json_is_array(contents))
        return json_pack("{s:o}", "contents", contents);
    json_decref(contents);
    if (st == SLUICE_E_NOT_FOUND)
        return not_found(call, e, uri);
    return refuse(call, e, SLUICE_JSONRPC_INTERNAL_ERROR, "%s",
                  err.message != NULL ? err.message : "the resource handler failed");
}

static json_t *resources_subscribe(sluice_mcp_call *call, rpc_error *e)
{
    const char *uri = string_param(call, e, "uri");
    if (uri == NULL)
        return NULL;
    if (sluice_mcp_find_resource(call->session->server, uri) == NULL)
        return not_found(call, e, uri);
    return json_object();
}

/* ---- completion, logging -----------------------------------------------------------------------
 */

static json_t *completion_complete(sluice_mcp_call *call, rpc_error *e)
{
    const json_t *ref = json_object_get(call->params, "ref");
    const json_t *arg = json_object_get(call->params, "argument");
    const char *type = json_string_value(json_object_get(ref, "type"));
    if (type == NULL)
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "'params.ref' must be an object with a 'type' (ref/prompt or ref/resource)");
    if (!json_is_string(json_object_get(arg, "name")) ||
        !json_is_string(json_object_get(arg, "value")))
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "'params.argument' must be an object with string 'name' and 'value'");
    if (strcmp(type, "ref/prompt") == 0) {
        const char *name = json_string_value(json_object_get(ref, "name"));
        if (name == NULL || sluice_mcp_find_prompt(call->session->server, name) == NULL)
            return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS, "unknown prompt '%s'",
                          name != NULL ? name : "");
    } else if (strcmp(type, "ref/resource") == 0) {
        if (!json_is_string(json_object_get(ref, "uri")))
            return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                          "'params.ref.uri' must be a string");
    } else {
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "unknown ref type '%s': use ref/prompt or ref/resource", type);
    }
    /* No completion sources are registered yet: an empty, well-formed answer. */
    return json_pack("{s:{s:[], s:i, s:b}}", "completion", "values", "total", 0, "hasMore", 0);
}

static json_t *logging_set_level(sluice_mcp_call *call, rpc_error *e)
{
    const char *level = string_param(call, e, "level");
    if (level == NULL)
        return NULL;
    int index = sluice_mcp_log_level_index(level);
    if (index < 0)
        return refuse(call, e, SLUICE_JSONRPC_INVALID_PARAMS,
                      "invalid log level '%s': use " SLUICE_MCP_LOG_LEVEL_NAMES, level);
    pthread_mutex_lock(&call->session->lock);
    call->session->log_level = index;
    pthread_mutex_unlock(&call->session->lock);
    return json_object();
}

/* ---- dispatch ----------------------------------------------------------------------------------
 */

json_t *sluice_mcp_dispatch(sluice_mcp_call *call, rpc_error *e)
{
    const sluice_mcp_server *server = call->session->server;
    const char *m = call->method;
    if (strcmp(m, "tools/list") == 0)
        return tools_list(call, e);
    if (strcmp(m, "tools/call") == 0)
        return tools_call(call, e);
    if (strcmp(m, "prompts/list") == 0)
        return list_page(call, e, "prompts", server->prompt_count, NULL, prompt_item);
    if (strcmp(m, "prompts/get") == 0)
        return prompts_get(call, e);
    if (strcmp(m, "resources/list") == 0)
        return list_page(call, e, "resources", server->resource_count, is_fixed, resource_item);
    if (strcmp(m, "resources/templates/list") == 0)
        return list_page(call, e, "resourceTemplates", server->resource_count, is_template,
                         resource_item);
    if (strcmp(m, "resources/read") == 0)
        return resources_read(call, e);
    if (strcmp(m, "resources/subscribe") == 0 || strcmp(m, "resources/unsubscribe") == 0)
        return resources_subscribe(call, e);
    if (strcmp(m, "completion/complete") == 0)
        return completion_complete(call, e);
    if (strcmp(m, "logging/setLevel") == 0 && !call->stateless)
        return logging_set_level(call, e);
    return refuse(call, e, SLUICE_JSONRPC_METHOD_NOT_FOUND, "method '%s' not found", m);
}
