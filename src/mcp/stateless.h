/*
 * stateless.h — MCP 2026-07-28 (stateless, per-request _meta) beside the handshake revisions.
 *
 * Owns: which requests are served statelessly (their _meta names a protocol version, or the
 * method is server/discover), the request envelope check (the _meta fields the revision
 * requires, the version, methods the revision removed or we do not serve), server/discover, and
 * what every stateless result carries (resultType, serverInfo in _meta, ttlMs/cacheScope on
 * lists and reads). Facts relied on: docs/mcp-2026-07-28.md.
 * Does not own: HTTP headers (transport/http_stateless.c checks Mcp-Method, Mcp-Name and
 * MCP-Protocol-Version against the body), what a handler does with inputResponses (call.c gives
 * it the values), sessions (session.c runs a stateless request as a call of whatever session
 * fed it, with the capabilities and log level of that request only).
 */
#ifndef SLUICE_MCP_STATELESS_H
#define SLUICE_MCP_STATELESS_H

#include "mcp/types.h"

#include <jansson.h>
#include <stdbool.h>

#define SLUICE_MCP_META_PROTOCOL    "io.modelcontextprotocol/protocolVersion"
#define SLUICE_MCP_META_CLIENT_CAPS "io.modelcontextprotocol/clientCapabilities"
#define SLUICE_MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define SLUICE_MCP_META_LOG_LEVEL   "io.modelcontextprotocol/logLevel"
#define SLUICE_MCP_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* Freshness hint on lists and discover (ms): the registries never change while sluice runs,
 * but a restart with a new config may change them, so clients re-check every minute. */
#define SLUICE_MCP_LIST_TTL_MS 60000
/* resources/read: the schema and policy resources follow the live config; never cached. */
#define SLUICE_MCP_READ_TTL_MS 0

/* True when the request is served statelessly: params._meta carries
 * io.modelcontextprotocol/protocolVersion, or method is server/discover. params may be NULL. */
bool sluice_mcp_stateless_request(const char *method, const json_t *params);

/* Checks a stateless request's envelope. True when it may be served. False when refused, with
 * *out_refusal the JSON-RPC error response to send (a new reference carrying id; NULL when out of
 * memory: answer -32603 then, never serve): -32602 when _meta, its protocolVersion (string) or
 * clientCapabilities (object) is missing or mistyped, or logLevel is not a level; -32022 with
 * data {supported, requested} for a version we do not serve; -32601 for a method 2026-07-28
 * removed (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe) or
 * one we do not serve. */
bool sluice_mcp_stateless_check(const json_t *id,
                                const char *method,
                                const json_t *params,
                                json_t **out_refusal);

/* True for the methods a stateless request may name (server/discover, tools/..., prompts/...,
 * resources/list|read|templates/list, completion/complete). */
bool sluice_mcp_stateless_method_known(const char *method);

/* The server/discover result (new reference; NULL when out of memory), already decorated. */
json_t *sluice_mcp_discover_result(const sluice_mcp_server *server);

/* Adds what 2026-07-28 requires on a result of method: resultType "complete" unless the handler
 * set one (an input_required result), _meta serverInfo, and ttlMs + cacheScope on tools/list,
 * prompts/list, resources/list, resources/templates/list and resources/read. cacheScope is
 * "private": sluice serves authenticated callers, and a shared cache must not mix them. */
void sluice_mcp_stateless_decorate(const sluice_mcp_server *server,
                                   const char *method,
                                   json_t *result);

#endif
