/*
 * observe.c — what the MCP core tells the request log and the metrics about each call.
 *
 * Owns: the labels a call is counted under — the method (methods the server does not know
 * count as "unknown"), the tool (a registered tool's name, "unknown" for any other name a
 * client sends: labels must stay a bounded set) and the outcome ("ok", "error" for a JSON-RPC
 * error, "tool_error" for a result with isError). Does not own: the registry or the log line
 * (core/metrics.c, core/request.c).
 */
#include "core/request.h"
#include "mcp/jsonrpc.h"
#include "mcp/server_impl.h"

#include <string.h>

void sluice_mcp_observe_begin(sluice_request *rq, const sluice_mcp_call *call)
{
    const char *tool = NULL;
    if (strcmp(call->method, "tools/call") == 0) {
        const char *name = json_string_value(json_object_get(call->params, "name"));
        tool = name != NULL && sluice_mcp_find_tool(call->session->server, name) != NULL
                   ? name
                   : "unknown";
    }
    sluice_request_begin(rq, call->method, tool, call->session->session_id, call->identity.user_id);
}

void sluice_mcp_observe_end(sluice_request *rq, const json_t *result, int error_code)
{
    if (result == NULL && error_code == SLUICE_JSONRPC_METHOD_NOT_FOUND)
        rq->method = "unknown";
    const char *status = result == NULL                                     ? "error"
                         : json_is_true(json_object_get(result, "isError")) ? "tool_error"
                                                                            : "ok";
    sluice_request_end(rq, status);
}
