/*
 * mcp_client.c — the MCP client of JavaScript plans (see mcp_client.h): handshake, tools/list
 * at start-up, tools/call with a deadline and a byte cap, restart after a failure.
 *
 * Owns: the client's life (start, restart after a failure, stop), the tool list and each tool's
 * action and allowlist mark, and what a failed exchange means (messages naming the setting).
 * Does not own: spawning, framing, ids and the handshake (exec/mcp_stdio.c, shared with query
 * mode's kind = "mcp" sources; exec/mcp_http.c for a url server, behind the same
 * sluice_mcp_transport) or the plan's rules (mcp_plan.c). The server-side JSON-RPC parser
 * (mcp/jsonrpc.c) is a layer above exec; responses are read with jansson directly.
 */
#include "exec/mcp_client.h"

#include "core/clock.h"
#include "core/limits.h"
#include "exec/mcp_http.h"
#include "exec/mcp_stdio.h"
#include "exec/upstream_text.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sluice_mcp_client {
    const sluice_config_mcp_server *cfg;
    pthread_mutex_t lock;
    sluice_mcp_stdio io;    /* command: the stdio child */
    sluice_mcp_http *http;  /* url: the Streamable HTTP connection */
    sluice_mcp_transport t; /* whichever of the two is up */
    bool up;
    size_t starts;
    sluice_mcp_tool *tools;
    size_t tool_count;
    sluice_arena *arena;  /* the tools' names and descriptions */
    bool filter_failures; /* sluice_mcp_client_filter_failures */
};

static const char *status_why(sluice_status st)
{
    switch (st) {
    case SLUICE_E_TIMEOUT:
        return "did not answer in time";
    case SLUICE_E_LIMIT:
        return "sent more than its byte limit";
    case SLUICE_E_CANCELLED:
        return "was cancelled";
    default:
        return "exited or could not be reached";
    }
}

/* What a failed exchange was: the transport's words when it has them. */
static const char *failure_why(const sluice_mcp_client *c, sluice_status st)
{
    const char *d = c->t.detail != NULL ? c->t.detail(c->t.self) : NULL;
    return d != NULL ? d : status_why(st);
}

static void stop(sluice_mcp_client *c)
{
    sluice_mcp_stdio_stop(&c->io);
    sluice_mcp_http_stop(c->http);
    c->http = NULL;
    c->up = false;
}

/* Opens the transport config names: the child of command, or the connection to url. */
static sluice_status open_transport(sluice_mcp_client *c, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_mcp_server *cfg = c->cfg;
    if (cfg->url != NULL) {
        sluice_status st = sluice_mcp_http_start(&c->http, cfg, arena, err);
        if (st == SLUICE_OK)
            c->t = sluice_mcp_http_transport(c->http);
        return st;
    }
    sluice_status st = sluice_mcp_stdio_start(&c->io, cfg->command.items, cfg->command.count);
    if (st == SLUICE_OK)
        c->t = sluice_mcp_stdio_transport(&c->io);
    if (st == SLUICE_OK || st == SLUICE_E_NOMEM)
        return st;
    return sluice_error_set(err, arena, SLUICE_E_IO,
                            "mcp server '%s': cannot start %s: %s (check its command)", cfg->name,
                            cfg->command.count > 0 ? cfg->command.items[0] : "''", strerror(errno));
}

/* Starts the server and runs the handshake. Messages in arena. */
static sluice_status
start(sluice_mcp_client *c, sluice_mcp_bounds *x, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_mcp_server *cfg = c->cfg;
    c->starts++;
    sluice_status st = open_transport(c, arena, err);
    if (st != SLUICE_OK)
        return st;
    const char *bad = NULL;
    st = sluice_mcp_handshake(&c->t, "sluice", x, arena, &bad);
    if (bad != NULL)
        st = sluice_error_set(err, arena, SLUICE_E_IO, "mcp server '%s' refused initialize: %.200s",
                              cfg->name, bad);
    else if (st != SLUICE_OK && st != SLUICE_E_NOMEM)
        st = sluice_error_set(err, arena, st == SLUICE_E_LIMIT ? st : SLUICE_E_IO,
                              "mcp server '%s' %s during initialize (startup_timeout_seconds = "
                              "%lld)",
                              cfg->name, failure_why(c, st),
                              (long long)cfg->startup_timeout_seconds);
    if (st != SLUICE_OK)
        stop(c);
    c->up = st == SLUICE_OK;
    return st;
}

static bool listed(const sluice_strlist *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i], name) == 0 || strcmp(l->items[i], "*") == 0)
            return true;
    return false;
}

/* The action of a tool: the config's lists first, then its annotations. */
static void classify(const sluice_config_mcp_server *cfg, const json_t *t, sluice_mcp_tool *tool)
{
    const json_t *ann = json_object_get(t, "annotations");
    if (listed(&cfg->delete_tools, tool->name)) {
        tool->action = SLUICE_MCP_TOOL_DELETE;
        tool->action_from = "delete_tools";
    } else if (listed(&cfg->write_tools, tool->name)) {
        tool->action = SLUICE_MCP_TOOL_WRITE;
        tool->action_from = "write_tools";
    } else if (listed(&cfg->read_tools, tool->name)) {
        tool->action = SLUICE_MCP_TOOL_READ;
        tool->action_from = "read_tools";
    } else if (json_is_true(json_object_get(ann, "destructiveHint"))) {
        /* destructive wins over a contradictory readOnlyHint: fail towards the stricter */
        tool->action = SLUICE_MCP_TOOL_DELETE;
        tool->action_from = "destructiveHint";
    } else if (json_is_true(json_object_get(ann, "readOnlyHint"))) {
        tool->action = SLUICE_MCP_TOOL_READ;
        tool->action_from = "readOnlyHint";
    } else {
        tool->action = SLUICE_MCP_TOOL_WRITE;
        tool->action_from = "no read-only annotation";
    }
    tool->allowed = listed(&cfg->allowed_tools, tool->name);
}

/* Adds the tools of one tools/list page. */
static sluice_status
add_tools(sluice_mcp_client *c, const json_t *list, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_mcp_server *cfg = c->cfg;
    size_t i;
    const json_t *t;
    json_array_foreach(list, i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        const json_t *schema = json_object_get(t, "inputSchema");
        if (name == NULL || !json_is_object(schema))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "mcp server '%s': tools/list entry %zu has no name or no "
                                    "inputSchema object",
                                    cfg->name, c->tool_count);
        if (c->tool_count >= SLUICE_LIMIT_MCP_CLIENT_TOOLS)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                    "mcp server '%s' lists more than %u tools "
                                    "(SLUICE_LIMIT_MCP_CLIENT_TOOLS)",
                                    cfg->name, SLUICE_LIMIT_MCP_CLIENT_TOOLS);
        sluice_mcp_tool *tool = &c->tools[c->tool_count];
        const char *desc = json_string_value(json_object_get(t, "description"));
        tool->name = sluice_arena_strdup(c->arena, name);
        tool->description = sluice_arena_strdup(c->arena, desc != NULL ? desc : "");
        if (tool->name == NULL || tool->description == NULL)
            return SLUICE_E_NOMEM;
        tool->input_schema = json_deep_copy(schema);
        if (tool->input_schema == NULL)
            return SLUICE_E_NOMEM;
        classify(cfg, t, tool);
        c->tool_count++;
    }
    return SLUICE_OK;
}

static sluice_status
list_tools(sluice_mcp_client *c, sluice_mcp_bounds *x, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_mcp_server *cfg = c->cfg;
    c->tools = sluice_arena_calloc(c->arena, SLUICE_LIMIT_MCP_CLIENT_TOOLS, sizeof *c->tools);
    if (c->tools == NULL)
        return SLUICE_E_NOMEM;
    char *cursor = NULL;
    for (unsigned page = 0;; page++) {
        if (page >= SLUICE_LIMIT_MCP_CLIENT_LIST_PAGES)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                    "mcp server '%s': tools/list has more than %u pages "
                                    "(SLUICE_LIMIT_MCP_CLIENT_LIST_PAGES)",
                                    cfg->name, SLUICE_LIMIT_MCP_CLIENT_LIST_PAGES);
        json_t *res = NULL;
        sluice_status st = c->t.request(
            c->t.self, "tools/list", cursor != NULL ? json_pack("{s:s}", "cursor", cursor) : NULL,
            x, arena, &res);
        if (st == SLUICE_E_NOMEM)
            return st;
        if (st != SLUICE_OK)
            return sluice_error_set(
                err, arena, st == SLUICE_E_LIMIT ? st : SLUICE_E_IO,
                "mcp server '%s' %s during tools/list%s", cfg->name, failure_why(c, st),
                st == SLUICE_E_LIMIT ? " (SLUICE_LIMIT_MCP_CLIENT_LIST_BYTES)" : "");
        const char *bad = sluice_mcp_stdio_rpc_error(res);
        const json_t *r = json_object_get(res, "result");
        const json_t *tools = json_object_get(r, "tools");
        if (bad == NULL && !json_is_array(tools))
            bad = "no tools array";
        if (bad != NULL) {
            st = sluice_error_set(err, arena, SLUICE_E_IO,
                                  "mcp server '%s' answered tools/list with an error: %.200s",
                                  cfg->name, bad);
            json_decref(res);
            return st;
        }
        st = add_tools(c, tools, arena, err);
        const char *next = json_string_value(json_object_get(r, "nextCursor"));
        cursor = st == SLUICE_OK && next != NULL ? sluice_arena_strdup(arena, next) : NULL;
        json_decref(res);
        if (st != SLUICE_OK || next == NULL)
            return st;
        if (cursor == NULL)
            return SLUICE_E_NOMEM;
    }
}

sluice_status sluice_mcp_client_open(const sluice_config_mcp_server *cfg,
                                     sluice_mcp_client **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    *out = NULL;
    sluice_mcp_client *c = calloc(1, sizeof *c);
    sluice_arena *arena = c != NULL ? sluice_arena_new() : NULL;
    if (arena == NULL) {
        free(c);
        return SLUICE_E_NOMEM;
    }
    c->cfg = cfg;
    c->arena = arena;
    c->io.fd = -1;
    pthread_mutex_init(&c->lock, NULL);
    sluice_mcp_bounds x = { .deadline_ms = sluice_clock_monotonic_ms(NULL) +
                                           cfg->startup_timeout_seconds * 1000,
                            .budget = SLUICE_LIMIT_MCP_CLIENT_LIST_BYTES };
    sluice_status st = start(c, &x, err_arena, err);
    if (st == SLUICE_OK)
        st = list_tools(c, &x, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_mcp_client_close(c);
        return st;
    }
    *out = c;
    return SLUICE_OK;
}

void sluice_mcp_client_close(sluice_mcp_client *c)
{
    if (c == NULL)
        return;
    stop(c);
    for (size_t i = 0; i < c->tool_count; i++)
        json_decref(c->tools[i].input_schema);
    pthread_mutex_destroy(&c->lock);
    sluice_arena_free(c->arena);
    free(c);
}

const char *sluice_mcp_client_name(const sluice_mcp_client *c)
{
    return c->cfg->name;
}

size_t sluice_mcp_client_tool_count(const sluice_mcp_client *c)
{
    return c->tool_count;
}

const sluice_mcp_tool *sluice_mcp_client_tool(const sluice_mcp_client *c, size_t i)
{
    return i < c->tool_count ? &c->tools[i] : NULL;
}

const sluice_mcp_tool *sluice_mcp_client_find(const sluice_mcp_client *c, const char *name)
{
    for (size_t i = 0; i < c->tool_count; i++)
        if (strcmp(c->tools[i].name, name) == 0)
            return &c->tools[i];
    return NULL;
}

size_t sluice_mcp_client_starts(const sluice_mcp_client *c)
{
    return c->starts;
}

/* How much of a failed call's text is passed on. */
#define SLUICE_MCP_FAILURE_TEXT_BYTES 300

/* The text of a failed call's first text block, or its JSON-RPC error message. */
static const char *failure_text(const json_t *response)
{
    const char *m = sluice_mcp_stdio_rpc_error(response);
    if (m != NULL)
        return m;
    const json_t *c0 =
        json_array_get(json_object_get(json_object_get(response, "result"), "content"), 0);
    const char *t = json_string_value(json_object_get(c0, "text"));
    return t != NULL ? t : "no message";
}

void sluice_mcp_client_filter_failures(sluice_mcp_client *c, bool on)
{
    c->filter_failures = on;
}

/* Whether w is a property name anywhere in schema (an inputSchema's "properties", nested). */
static bool schema_property(const json_t *schema, const char *w, size_t len, unsigned depth)
{
    if (!json_is_object(schema) && !json_is_array(schema))
        return false;
    if (depth > SLUICE_LIMIT_NESTING_DEPTH)
        return false;
    const char *key;
    const json_t *v;
    const json_t *props = json_object_get(schema, "properties");
    json_object_foreach((json_t *)props, key, v)
    {
        if (strlen(key) == len && memcmp(key, w, len) == 0)
            return true;
    }
    size_t i;
    if (json_is_array(schema)) {
        json_array_foreach(schema, i, v)
        {
            if (schema_property(v, w, len, depth + 1))
                return true;
        }
        return false;
    }
    json_object_foreach((json_t *)schema, key, v)
    {
        if (schema_property(v, w, len, depth + 1))
            return true;
    }
    return false;
}

/* The names a caller of this server already knows (upstream_text.h): the server's, its tools'
 * and their inputSchema properties'. */
static bool known_name(const void *ctx, const char *w, size_t len)
{
    const sluice_mcp_client *c = ctx;
    if (strlen(c->cfg->name) == len && memcmp(c->cfg->name, w, len) == 0)
        return true;
    for (size_t i = 0; i < c->tool_count; i++)
        if ((strlen(c->tools[i].name) == len && memcmp(c->tools[i].name, w, len) == 0) ||
            schema_property(c->tools[i].input_schema, w, len, 0))
            return true;
    return false;
}

/* A failed call's text as the caller may see it (c->filter_failures); NULL when out of memory. */
static const char *
shown_failure(const sluice_mcp_client *c, const json_t *response, sluice_arena *a)
{
    const char *text = failure_text(response);
    if (!c->filter_failures)
        return text;
    sluice_buf b;
    sluice_buf_init(&b, a, 0);
    sluice_upstream_text_filter(&b, text, known_name, c, SLUICE_MCP_FAILURE_TEXT_BYTES);
    return sluice_upstream_text_cut(&b, SLUICE_MCP_FAILURE_TEXT_BYTES);
}

/* One tools/call on a running server (c locked). */
static sluice_status call_locked(sluice_mcp_client *c,
                                 const char *name,
                                 json_t *params,
                                 sluice_mcp_bounds *x,
                                 sluice_arena *arena,
                                 json_t **result,
                                 sluice_error *err)
{
    const sluice_config_mcp_server *cfg = c->cfg;
    json_t *res = NULL;
    sluice_status st = c->t.request(c->t.self, "tools/call", params, x, arena, &res);
    if (st == SLUICE_E_NOMEM)
        return st;
    if (st != SLUICE_OK) {
        const char *why = sluice_arena_strdup(arena, failure_why(c, st));
        /* the server's state is unknown now (an answer may still come): start it afresh */
        stop(c);
        if (st == SLUICE_E_CANCELLED)
            return sluice_error_set(err, arena, st, "mcp server '%s': tool '%s' was cancelled",
                                    cfg->name, name);
        return sluice_error_set(err, arena,
                                st == SLUICE_E_TIMEOUT || st == SLUICE_E_LIMIT ? st : SLUICE_E_IO,
                                "mcp server '%s' %s during tools/call '%s'%s", cfg->name,
                                why != NULL ? why : "failed", name,
                                st == SLUICE_E_TIMEOUT ? " (timeout_seconds); it was stopped"
                                : st == SLUICE_E_LIMIT ? " (max_response_bytes); it was stopped"
                                                       : "");
    }
    const json_t *r = json_object_get(res, "result");
    if (sluice_mcp_stdio_rpc_error(res) != NULL || json_is_true(json_object_get(r, "isError"))) {
        const char *text = shown_failure(c, res, arena);
        /* a filtered text is cut already; a text passed as written is cut here */
        int keep = text == NULL || c->filter_failures ? INT_MAX : SLUICE_MCP_FAILURE_TEXT_BYTES;
        st = text == NULL ? SLUICE_E_NOMEM
                          : sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                             "mcp server '%s': tool '%s' failed: %.*s", cfg->name,
                                             name, keep, text);
        json_decref(res);
        return st;
    }
    *result = json_incref((json_t *)r);
    json_decref(res);
    return SLUICE_OK;
}

sluice_status sluice_mcp_client_call(sluice_mcp_client *c,
                                     const char *name,
                                     const json_t *arguments,
                                     const json_t *meta,
                                     atomic_bool *cancelled,
                                     sluice_arena *arena,
                                     json_t **result,
                                     sluice_error *err)
{
    *result = NULL;
    const sluice_config_mcp_server *cfg = c->cfg;
    json_t *params = arguments != NULL
                         ? json_pack("{s:s, s:O}", "name", name, "arguments", arguments)
                         : json_pack("{s:s, s:{}}", "name", name, "arguments");
    if (params != NULL && meta != NULL && json_object_set(params, "_meta", (json_t *)meta) != 0) {
        json_decref(params);
        params = NULL;
    }
    if (params == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory calling an MCP tool");
    pthread_mutex_lock(&c->lock);
    sluice_status st = SLUICE_OK;
    if (!c->up) {
        sluice_mcp_bounds sx = { .deadline_ms = sluice_clock_monotonic_ms(NULL) +
                                                cfg->startup_timeout_seconds * 1000,
                                 .budget = SLUICE_LIMIT_MCP_CLIENT_LIST_BYTES,
                                 .cancelled = cancelled };
        st = start(c, &sx, arena, err);
    }
    if (st == SLUICE_OK) {
        sluice_mcp_bounds x = { .deadline_ms =
                                    sluice_clock_monotonic_ms(NULL) + cfg->timeout_seconds * 1000,
                                .budget = cfg->max_response_bytes,
                                .cancelled = cancelled };
        st = call_locked(c, name, params, &x, arena, result, err);
        params = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    json_decref(params);
    return st;
}
