/*
 * mcp_client.h — sluice's MCP client for the downstream servers JavaScript plans call with
 * mcp.call("server", "tool", args) ([[code_mode.mcp_servers]]).
 *
 * Owns: one connection per configured server, started at open; the handshake (initialize,
 * notifications/initialized) and tools/list (followed through nextCursor) at open, bounded by
 * startup_timeout_seconds, SLUICE_LIMIT_MCP_CLIENT_LIST_BYTES, SLUICE_LIMIT_MCP_CLIENT_TOOLS and
 * SLUICE_LIMIT_MCP_CLIENT_LIST_PAGES; each tool's action (annotations, unless the config's
 * read_tools/write_tools/delete_tools say otherwise) and whether allowed_tools lists it; and
 * tools/call with its own deadline (timeout_seconds) and byte cap (max_response_bytes). A server
 * that exits, times out or overruns is stopped, and started again (handshake included) at the
 * next call.
 * Does not own: the transport (exec/mcp_stdio.c for command, exec/mcp_http.c for url), whether a
 * plan may call a tool (the front end at validate, exec/mcp_plan.c at run time) or what the result
 * means to the plan.
 *
 * Threads: calls on one client are serialized (a server speaks one exchange at a time over
 * stdio); different clients run in parallel.
 */
#ifndef SLUICE_EXEC_MCP_CLIENT_H
#define SLUICE_EXEC_MCP_CLIENT_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum sluice_mcp_tool_action {
    SLUICE_MCP_TOOL_READ = 0,
    SLUICE_MCP_TOOL_WRITE = 1,
    SLUICE_MCP_TOOL_DELETE = 2,
} sluice_mcp_tool_action;

typedef struct sluice_mcp_tool {
    const char *name;
    const char *description; /* "" when the server gave none */
    sluice_mcp_tool_action action;
    const char *action_from; /* why: "readOnlyHint", "destructiveHint", "no read-only
                                annotation", "read_tools", "write_tools", "delete_tools" */
    bool allowed;            /* allowed_tools lists it (or is ["*"]) */
    json_t *input_schema;    /* the tool's inputSchema; owned by the client */
} sluice_mcp_tool;

typedef struct sluice_mcp_client sluice_mcp_client;

/* Starts cfg's server and lists its tools. cfg is not copied: it must outlive the client.
 * Errors (the server is stopped): SLUICE_E_IO (cannot start, exited, timed out, answered
 * initialize or tools/list with an error), SLUICE_E_LIMIT (more than the list limits above),
 * SLUICE_E_INVALID (a malformed tools/list), SLUICE_E_NOMEM; messages name the server and the
 * setting, in err_arena. */
sluice_status sluice_mcp_client_open(const sluice_config_mcp_server *cfg,
                                     sluice_mcp_client **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err);

/* Stops the server and frees the client. NULL is a no-op. */
void sluice_mcp_client_close(sluice_mcp_client *c);

const char *sluice_mcp_client_name(const sluice_mcp_client *c);
size_t sluice_mcp_client_tool_count(const sluice_mcp_client *c);
const sluice_mcp_tool *sluice_mcp_client_tool(const sluice_mcp_client *c, size_t i);
/* The tool named name, or NULL when the server did not list it. */
const sluice_mcp_tool *sluice_mcp_client_find(const sluice_mcp_client *c, const char *name);

/* tools/call name(arguments) with meta as params._meta (NULL: none). On SLUICE_OK *result is the
 * call's result object (a new reference: structuredContent and/or content). Errors, each naming
 * the server and the tool: SLUICE_E_ENGINE (the tool answered isError or a JSON-RPC error: its
 * message), SLUICE_E_TIMEOUT (no answer within timeout_seconds), SLUICE_E_IO (the server exited
 * or cannot be restarted), SLUICE_E_LIMIT (more than max_response_bytes), SLUICE_E_CANCELLED,
 * SLUICE_E_NOMEM. Messages in arena. */
sluice_status sluice_mcp_client_call(sluice_mcp_client *c,
                                     const char *name,
                                     const json_t *arguments,
                                     const json_t *meta,
                                     atomic_bool *cancelled,
                                     sluice_arena *arena,
                                     json_t **result,
                                     sluice_error *err);

/* Whether a failed call's text (the tool's isError text, a JSON-RPC error message) is passed on
 * as the server wrote it (false, the default) or filtered word by word (true: exec/upstream_text.h,
 * keeping the server's, its tools' and their inputSchema properties' names): set when the
 * configuration blocks fields, since a server's error may quote any record it holds. */
void sluice_mcp_client_filter_failures(sluice_mcp_client *c, bool on);

/* How many times the server was started (1 after open; restarts add one each). */
size_t sluice_mcp_client_starts(const sluice_mcp_client *c);

#endif
