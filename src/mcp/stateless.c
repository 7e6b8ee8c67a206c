/*
 * stateless.c — the 2026-07-28 envelope, server/discover and result decoration (see
 * stateless.h).
 */
#include "mcp/stateless.h"

#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"
#include "mcp/protocol.h"
#include "mcp/server_impl.h"

#include <string.h>

/* Methods 2026-07-28 defines that sluice serves statelessly. subscriptions/listen is not among
 * them: nothing sluice serves changes while it runs, so there is nothing to notify (discover
 * advertises no listChanged and no subscribe accordingly). */
static const char *const known_methods[] = {
    "server/discover",     "tools/list",     "tools/call",     "prompts/list",
    "prompts/get",         "resources/list", "resources/read", "resources/templates/list",
    "completion/complete",
};

/* Methods that return ttlMs and cacheScope (CacheableResult), with their ttl. */
static const struct {
    const char *method;
    int ttl_ms;
} cacheable[] = {
    { "server/discover", SLUICE_MCP_LIST_TTL_MS },
    { "tools/list", SLUICE_MCP_LIST_TTL_MS },
    { "prompts/list", SLUICE_MCP_LIST_TTL_MS },
    { "resources/list", SLUICE_MCP_LIST_TTL_MS },
    { "resources/templates/list", SLUICE_MCP_LIST_TTL_MS },
    { "resources/read", SLUICE_MCP_READ_TTL_MS },
};

bool sluice_mcp_stateless_request(const char *method, const json_t *params)
{
    if (method != NULL && strcmp(method, "server/discover") == 0)
        return true;
    return json_object_get(json_object_get(params, "_meta"), SLUICE_MCP_META_PROTOCOL) != NULL;
}

bool sluice_mcp_stateless_method_known(const char *method)
{
    for (size_t i = 0; method != NULL && i < sizeof known_methods / sizeof known_methods[0]; i++)
        if (strcmp(method, known_methods[i]) == 0)
            return true;
    return false;
}

static json_t *invalid_meta(const json_t *id, const char *message)
{
    return sluice_jsonrpc_error(id, SLUICE_JSONRPC_INVALID_PARAMS, message, NULL);
}

/* Why a stateless request is refused (a JSON-RPC error response, NULL when out of memory), with
 * *refused set; untouched and NULL when it may be served. */
static json_t *refusal_of(const json_t *id, const char *method, const json_t *params, bool *refused)
{
    *refused = true;
    const json_t *meta = json_object_get(params, "_meta");
    if (!json_is_object(meta))
        return invalid_meta(id, "MCP " SLUICE_MCP_STATELESS_PROTOCOL
                                " requests carry 'params._meta' with '" SLUICE_MCP_META_PROTOCOL
                                "' and '" SLUICE_MCP_META_CLIENT_CAPS "'");
    const json_t *version = json_object_get(meta, SLUICE_MCP_META_PROTOCOL);
    if (!json_is_string(version))
        return invalid_meta(id, "'params._meta." SLUICE_MCP_META_PROTOCOL
                                "' must be a protocol version string such as "
                                "\"" SLUICE_MCP_STATELESS_PROTOCOL "\"");
    if (!json_is_object(json_object_get(meta, SLUICE_MCP_META_CLIENT_CAPS)))
        return invalid_meta(id, "'params._meta." SLUICE_MCP_META_CLIENT_CAPS
                                "' must be an object (empty when the client supports no "
                                "optional capability)");
    const json_t *level = json_object_get(meta, SLUICE_MCP_META_LOG_LEVEL);
    if (level != NULL && sluice_mcp_log_level_index(json_string_value(level)) < 0)
        return invalid_meta(id, "'params._meta." SLUICE_MCP_META_LOG_LEVEL
                                "' must be " SLUICE_MCP_LOG_LEVEL_NAMES);
    if (!sluice_mcp_protocol_is_stateless(json_string_value(version))) {
        json_t *data = json_pack("{s:o, s:O}", "supported", sluice_mcp_protocol_all_json(),
                                 "requested", version);
        return data != NULL ? sluice_jsonrpc_error(id, SLUICE_JSONRPC_UNSUPPORTED_PROTOCOL,
                                                   "Unsupported protocol version", data)
                            : NULL;
    }
    if (!sluice_mcp_stateless_method_known(method))
        return sluice_jsonrpc_error(id, SLUICE_JSONRPC_METHOD_NOT_FOUND,
                                    "method not found (MCP " SLUICE_MCP_STATELESS_PROTOCOL
                                    " has no initialize, ping, logging/setLevel or "
                                    "resources/subscribe; state travels in each request)",
                                    NULL);
    *refused = false;
    return NULL;
}

bool sluice_mcp_stateless_check(const json_t *id,
                                const char *method,
                                const json_t *params,
                                json_t **out_refusal)
{
    bool refused = false;
    *out_refusal = refusal_of(id, method, params, &refused);
    return !refused;
}

static json_t *server_info(const sluice_mcp_server *server)
{
    return json_pack("{s:s, s:s}", "name", server->name, "version", server->version);
}

void sluice_mcp_stateless_decorate(const sluice_mcp_server *server,
                                   const char *method,
                                   json_t *result)
{
    if (!json_is_object(result))
        return;
    if (json_object_get(result, "resultType") == NULL)
        json_object_set_new(result, "resultType", json_string("complete"));
    json_t *meta = json_object_get(result, "_meta");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(result, "_meta", meta);
    }
    json_object_set_new(meta, SLUICE_MCP_META_SERVER_INFO, server_info(server));
    const char *type = json_string_value(json_object_get(result, "resultType"));
    if (type == NULL || strcmp(type, "complete") != 0)
        return; /* an interim input_required result is not cacheable */
    for (size_t i = 0; method != NULL && i < sizeof cacheable / sizeof cacheable[0]; i++) {
        if (strcmp(method, cacheable[i].method) == 0) {
            json_object_set_new(result, "ttlMs", json_integer(cacheable[i].ttl_ms));
            json_object_set_new(result, "cacheScope", json_string("private"));
        }
    }
}

json_t *sluice_mcp_discover_result(const sluice_mcp_server *server)
{
    json_t *caps = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}}", "tools", "prompts", "resources",
                             "logging", "completions");
    json_t *result = json_pack("{s:o, s:o}", "supportedVersions", sluice_mcp_protocol_all_json(),
                               "capabilities", caps);
    if (result != NULL && server->instructions != NULL)
        json_object_set_new(result, "instructions", json_string(server->instructions));
    sluice_mcp_stateless_decorate(server, "server/discover", result);
    return result;
}
