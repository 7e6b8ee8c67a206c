/*
 * server.c — the MCP server object: options, the tool/prompt/resource registries and the worker
 * pool that runs handlers (see server.h).
 *
 * Owns: registration (names unique, schemas checked with json_schema.c so an unenforceable
 * constraint is refused up front), lookups, RFC 6570 level-1 template matching, and the threads.
 * Does not own: sessions and the protocol (session.c), method semantics (methods.c).
 */
#include "mcp/server.h"

#include "core/json_schema.h"
#include "core/limits.h"
#include "core/vec.h"
#include "mcp/server_impl.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_WORKERS    4u
#define DEFAULT_TIMEOUT_MS 60000
#define MAX_WORKERS        256u
#define MAX_NAME_BYTES     128u

/* ---- worker pool ------------------------------------------------------------------------------
 */

static void *worker_main(void *arg)
{
    sluice_mcp_server *server = arg;
    pthread_mutex_lock(&server->queue_lock);
    for (;;) {
        while (server->queue_head == NULL && !server->stopping)
            pthread_cond_wait(&server->queue_cond, &server->queue_lock);
        if (server->queue_head == NULL)
            break; /* stopping and drained */
        sluice_mcp_call *call = server->queue_head;
        server->queue_head = call->next_queued;
        if (server->queue_head == NULL)
            server->queue_tail = NULL;
        pthread_mutex_unlock(&server->queue_lock);
        sluice_mcp_call_run(call);
        pthread_mutex_lock(&server->queue_lock);
    }
    pthread_mutex_unlock(&server->queue_lock);
    return NULL;
}

void sluice_mcp_pool_submit(sluice_mcp_server *server, sluice_mcp_call *call)
{
    call->next_queued = NULL;
    pthread_mutex_lock(&server->queue_lock);
    if (server->queue_tail != NULL)
        server->queue_tail->next_queued = call;
    else
        server->queue_head = call;
    server->queue_tail = call;
    pthread_cond_signal(&server->queue_cond);
    pthread_mutex_unlock(&server->queue_lock);
}

static void pool_stop(sluice_mcp_server *server)
{
    pthread_mutex_lock(&server->queue_lock);
    server->stopping = true;
    pthread_cond_broadcast(&server->queue_cond);
    pthread_mutex_unlock(&server->queue_lock);
    for (size_t i = 0; i < server->worker_count; i++)
        pthread_join(server->workers[i], NULL);
    server->worker_count = 0;
}

/* ---- server -----------------------------------------------------------------------------------
 */

sluice_status sluice_mcp_server_new(const sluice_mcp_server_options *options,
                                    sluice_mcp_server **out,
                                    sluice_error *err)
{
    sluice_mcp_server *server = calloc(1, sizeof *server);
    sluice_arena *arena = sluice_arena_new();
    if (server == NULL || arena == NULL) {
        free(server);
        sluice_arena_free(arena);
        sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
        return SLUICE_E_NOMEM;
    }
    server->arena = arena;
    const char *name = options != NULL && options->name != NULL ? options->name : "sluice";
    const char *version =
        options != NULL && options->version != NULL ? options->version : SLUICE_VERSION;
    server->name = sluice_arena_strdup(arena, name);
    server->version = sluice_arena_strdup(arena, version);
    server->instructions =
        options != NULL ? sluice_arena_strdup(arena, options->instructions) : NULL;
    server->request_timeout_ms = options != NULL && options->request_timeout_ms > 0
                                     ? options->request_timeout_ms
                                     : DEFAULT_TIMEOUT_MS;
    server->page_size =
        options != NULL && options->page_size > 0 ? options->page_size : SLUICE_LIMIT_PAGE_SIZE;
    size_t workers =
        options != NULL && options->worker_threads > 0 ? options->worker_threads : DEFAULT_WORKERS;
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    pthread_mutex_init(&server->queue_lock, NULL);
    pthread_cond_init(&server->queue_cond, NULL);
    server->workers = calloc(workers, sizeof *server->workers);
    if (server->name == NULL || server->version == NULL || server->workers == NULL) {
        sluice_mcp_server_free(server);
        sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
        return SLUICE_E_NOMEM;
    }
    for (size_t i = 0; i < workers; i++) {
        if (pthread_create(&server->workers[i], NULL, worker_main, server) != 0) {
            sluice_mcp_server_free(server);
            sluice_error_set(err, NULL, SLUICE_E_INTERNAL, "cannot start worker threads");
            return SLUICE_E_INTERNAL;
        }
        server->worker_count++;
    }
    *out = server;
    return SLUICE_OK;
}

void sluice_mcp_server_free(sluice_mcp_server *server)
{
    if (server == NULL)
        return;
    pool_stop(server);
    for (size_t i = 0; i < server->tool_count; i++) {
        json_decref(server->tools[i].def.input_schema);
        json_decref(server->tools[i].def.output_schema);
        json_decref(server->tools[i].def.annotations);
    }
    for (size_t i = 0; i < server->prompt_count; i++)
        json_decref(server->prompts[i].def.arguments);
    free(server->tools);
    free(server->prompts);
    free(server->resources);
    free(server->workers);
    pthread_mutex_destroy(&server->queue_lock);
    pthread_cond_destroy(&server->queue_cond);
    sluice_arena_free(server->arena);
    free(server);
}

/* ---- registration -----------------------------------------------------------------------------
 */

/* Grows a registry array by one slot (core/vec.h); false when out of memory. */
/* Copies a definition's name, title and description into the server's arena, as every
 * registration keeps them; false when the name could not be copied (out of memory). A missing
 * title or description stays missing. */
static bool keep_texts(sluice_mcp_server *server,
                       const char **name,
                       const char **title,
                       const char **description)
{
    *name = sluice_arena_strdup(server->arena, *name);
    *title = sluice_arena_strdup(server->arena, *title);
    *description = sluice_arena_strdup(server->arena, *description);
    return *name != NULL;
}

static bool reserve(void **items, size_t *cap, size_t count, size_t item_size)
{
    void *grown = sluice_vec_grow_heap(*items, count + 1, cap, item_size, 8);
    if (grown == NULL)
        return false;
    *items = grown;
    return true;
}

static bool name_ok(const char *name, bool allow_slash)
{
    size_t len = name != NULL ? strlen(name) : 0;
    if (len == 0 || len > MAX_NAME_BYTES)
        return false;
    for (const char *p = name; *p != '\0'; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.' || (allow_slash && c == '/');
        if (!ok)
            return false;
    }
    return true;
}

static sluice_status check_object_schema(sluice_mcp_server *server,
                                         const char *tool,
                                         const char *what,
                                         const json_t *schema,
                                         bool enforce,
                                         sluice_error *err)
{
    const json_t *type = json_object_get(schema, "type");
    if (!json_is_object(schema) || !json_is_string(type) ||
        strcmp(json_string_value(type), "object") != 0)
        return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                "tool '%s': %s must be a JSON Schema object with \"type\": "
                                "\"object\" at its root",
                                tool, what);
    if (!enforce)
        return SLUICE_OK;
    sluice_error inner;
    sluice_error_clear(&inner);
    sluice_status st = sluice_json_schema_check(schema, what, server->arena, &inner);
    if (st != SLUICE_OK) {
        sluice_error_set(err, server->arena, st, "tool '%s': %s", tool, inner.message);
        if (err != NULL)
            err->key = inner.key;
    }
    return st;
}

sluice_status sluice_mcp_server_add_tool(sluice_mcp_server *server,
                                         const sluice_mcp_tool *tool,
                                         sluice_error *err)
{
    sluice_mcp_tool def = *tool;
    sluice_status st = SLUICE_OK;
    if (def.input_schema == NULL)
        def.input_schema = json_pack("{s:s, s:b}", "type", "object", "additionalProperties", 0);
    if (!name_ok(def.name, true))
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                              "tool name '%s' is invalid: use 1-%u characters from A-Z a-z 0-9 "
                              "_ - . /",
                              def.name != NULL ? def.name : "", MAX_NAME_BYTES);
    else if (sluice_mcp_find_tool(server, def.name) != NULL)
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                              "tool '%s' is already registered", def.name);
    else if (def.fn == NULL)
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID, "tool '%s' has no handler",
                              def.name);
    if (st == SLUICE_OK)
        st = check_object_schema(server, def.name, "inputSchema", def.input_schema, true, err);
    if (st == SLUICE_OK && def.output_schema != NULL)
        st = check_object_schema(server, def.name, "outputSchema", def.output_schema, false, err);
    if (st == SLUICE_OK && !reserve((void **)&server->tools, &server->tool_cap, server->tool_count,
                                    sizeof *server->tools))
        st = sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && !keep_texts(server, &def.name, &def.title, &def.description))
        st = sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        json_decref(def.input_schema);
        json_decref(def.output_schema);
        json_decref(def.annotations);
        return st;
    }
    server->tools[server->tool_count++].def = def;
    return SLUICE_OK;
}

sluice_status sluice_mcp_server_add_prompt(sluice_mcp_server *server,
                                           const sluice_mcp_prompt *prompt,
                                           sluice_error *err)
{
    sluice_mcp_prompt def = *prompt;
    sluice_status st = SLUICE_OK;
    if (!name_ok(def.name, true))
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID, "prompt name '%s' is invalid",
                              def.name != NULL ? def.name : "");
    else if (sluice_mcp_find_prompt(server, def.name) != NULL)
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                              "prompt '%s' is already registered", def.name);
    else if (def.fn == NULL)
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID, "prompt '%s' has no handler",
                              def.name);
    else if (def.arguments != NULL && !json_is_array(def.arguments))
        st = sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                              "prompt '%s': arguments must be an array of {name, description?, "
                              "required?}",
                              def.name);
    for (size_t i = 0; st == SLUICE_OK && i < json_array_size(def.arguments); i++) {
        json_t *arg = json_array_get(def.arguments, i);
        if (!json_is_string(json_object_get(arg, "name")))
            st = sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                  "prompt '%s': argument %zu has no string 'name'", def.name, i);
    }
    if (st == SLUICE_OK && !reserve((void **)&server->prompts, &server->prompt_cap,
                                    server->prompt_count, sizeof *server->prompts))
        st = sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && !keep_texts(server, &def.name, &def.title, &def.description))
        st = sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        json_decref(def.arguments);
        return st;
    }
    server->prompts[server->prompt_count++].def = def;
    return SLUICE_OK;
}

sluice_status sluice_mcp_server_add_session_hooks(sluice_mcp_server *server,
                                                  const sluice_mcp_session_hooks *hooks,
                                                  size_t *out_slot,
                                                  sluice_error *err)
{
    if (hooks == NULL || hooks->attach == NULL)
        return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                "session hooks need an attach function");
    if (server->session_hook_count >= SLUICE_MCP_MAX_SESSION_HOOKS)
        return sluice_error_set(err, server->arena, SLUICE_E_LIMIT,
                                "too many session hook registrations (limit is %u)",
                                SLUICE_MCP_MAX_SESSION_HOOKS);
    if (out_slot != NULL)
        *out_slot = server->session_hook_count;
    server->session_hooks[server->session_hook_count++] = *hooks;
    return SLUICE_OK;
}

/* A template must have balanced, non-empty {var} expressions. */
static bool template_ok(const char *tmpl)
{
    bool open = false;
    size_t var_len = 0;
    for (const char *p = tmpl; *p != '\0'; p++) {
        if (*p == '{') {
            if (open)
                return false;
            open = true;
            var_len = 0;
        } else if (*p == '}') {
            if (!open || var_len == 0)
                return false;
            open = false;
        } else if (open) {
            var_len++;
        }
    }
    return !open;
}

sluice_status sluice_mcp_server_add_resource(sluice_mcp_server *server,
                                             const sluice_mcp_resource *resource,
                                             sluice_error *err)
{
    sluice_mcp_resource def = *resource;
    if (def.uri == NULL || def.uri[0] == '\0' || def.name == NULL || def.fn == NULL)
        return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                "a resource needs a uri, a name and a handler");
    if (def.is_template && !template_ok(def.uri))
        return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                "resource template '%s' has unbalanced or empty {} expressions",
                                def.uri);
    for (size_t i = 0; i < server->resource_count; i++)
        if (server->resources[i].def.is_template == def.is_template &&
            strcmp(server->resources[i].def.uri, def.uri) == 0)
            return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                    "resource '%s' is already registered", def.uri);
    if (!reserve((void **)&server->resources, &server->resource_cap, server->resource_count,
                 sizeof *server->resources))
        return sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    def.uri = sluice_arena_strdup(server->arena, def.uri);
    bool named = keep_texts(server, &def.name, &def.title, &def.description);
    def.mime_type = sluice_arena_strdup(server->arena, def.mime_type);
    if (def.uri == NULL || !named)
        return sluice_error_set(err, NULL, SLUICE_E_NOMEM, "out of memory");
    server->resources[server->resource_count++].def = def;
    return SLUICE_OK;
}

sluice_status sluice_mcp_server_set_tool_provider(sluice_mcp_server *server,
                                                  const sluice_mcp_tool_provider *provider,
                                                  sluice_error *err)
{
    if (server->provider.list != NULL || provider->list == NULL || provider->call == NULL)
        return sluice_error_set(err, server->arena, SLUICE_E_INVALID,
                                "a tool provider needs list and call, and only one may be set");
    server->provider = *provider;
    return SLUICE_OK;
}

/* ---- lookups ----------------------------------------------------------------------------------
 */

const tool_entry *sluice_mcp_find_tool(const sluice_mcp_server *server, const char *name)
{
    for (size_t i = 0; i < server->tool_count; i++)
        if (strcmp(server->tools[i].def.name, name) == 0)
            return &server->tools[i];
    return NULL;
}

const prompt_entry *sluice_mcp_find_prompt(const sluice_mcp_server *server, const char *name)
{
    for (size_t i = 0; i < server->prompt_count; i++)
        if (strcmp(server->prompts[i].def.name, name) == 0)
            return &server->prompts[i];
    return NULL;
}

bool sluice_mcp_template_match(const char *tmpl, const char *uri)
{
    while (*tmpl != '\0') {
        if (*tmpl != '{') {
            if (*tmpl++ != *uri++)
                return false;
            continue;
        }
        const char *close = strchr(tmpl, '}');
        if (close == NULL)
            return false;
        /* {+var} and {#var} (reserved expansion) may span '/'; plain {var} may not. */
        bool reserved = tmpl[1] == '+' || tmpl[1] == '#';
        tmpl = close + 1;
        size_t n = 0;
        /* Greedy up to the next literal character of the template (or the end). */
        while (uri[n] != '\0' && uri[n] != *tmpl && (reserved || uri[n] != '/') && uri[n] != '?' &&
               uri[n] != '#')
            n++;
        if (n == 0)
            return false;
        uri += n;
    }
    return *uri == '\0';
}

const resource_entry *sluice_mcp_find_resource(const sluice_mcp_server *server, const char *uri)
{
    for (size_t i = 0; i < server->resource_count; i++)
        if (!server->resources[i].def.is_template && strcmp(server->resources[i].def.uri, uri) == 0)
            return &server->resources[i];
    for (size_t i = 0; i < server->resource_count; i++)
        if (server->resources[i].def.is_template &&
            sluice_mcp_template_match(server->resources[i].def.uri, uri))
            return &server->resources[i];
    return NULL;
}
