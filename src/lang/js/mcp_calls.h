/*
 * mcp_calls.h — the static resolution of a plan's mcp.call(server, tool, args) sites against
 * the downstream servers' catalog (exec/mcp_plan.h's document, read from sluice_schema.mcp_tools).
 * Internal to lang/js (analyze.c calls it).
 */
#ifndef SLUICE_LANG_JS_MCP_CALLS_H
#define SLUICE_LANG_JS_MCP_CALLS_H

#include "lang/js/js.h"
#include "syntax/js/parse.h"

#include <jansson.h>

/* Resolves one site whose server and tool are the string literals server and tool: refuses an
 * unknown server or tool (rule "mcp_servers" / "mcp_tool"), a tool not in allowed_tools
 * ("allowed_tools"), one whose inputSchema sluice cannot enforce ("mcp_tool_schema"), a Write or
 * Delete the server's allow_writes/allow_deletes do not permit (those names), and literal
 * arguments that do not match the inputSchema ("mcp_arguments"); records the operation
 * "mcp:<server>/<tool>" (calledOperations), its action and resource. catalog NULL: no server
 * is configured. Allocation failures mark f incomplete (fail closed). */
void sluice_js_check_mcp_call(sluice_codefacts *f,
                              sluice_js_facts *x,
                              const sluice_config_code_mode *cfg,
                              const json_t *catalog,
                              const sluice_js_node *call,
                              const char *server,
                              const char *tool,
                              bool in_catch);

#endif
