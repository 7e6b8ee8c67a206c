/*
 * protocol.c — the protocol revision table (see protocol.h).
 */
#include "mcp/protocol.h"

#include <string.h>

const char *const sluice_mcp_protocols[] = { SLUICE_MCP_LATEST_PROTOCOL, "2025-06-18",
                                             "2025-03-26" };
const size_t sluice_mcp_protocol_count =
    sizeof sluice_mcp_protocols / sizeof sluice_mcp_protocols[0];

/* Kept beside the table; tests/unit/test_mcp_protocol.c checks that it lists exactly it. */
static const char protocol_list[] = SLUICE_MCP_LATEST_PROTOCOL ", 2025-06-18, 2025-03-26";

const char *sluice_mcp_protocol_find(const char *version)
{
    for (size_t i = 0; version != NULL && i < sluice_mcp_protocol_count; i++)
        if (strcmp(version, sluice_mcp_protocols[i]) == 0)
            return sluice_mcp_protocols[i];
    return NULL;
}

const char *sluice_mcp_protocol_list(void)
{
    return protocol_list;
}

bool sluice_mcp_protocol_is_stateless(const char *version)
{
    return version != NULL && strcmp(version, SLUICE_MCP_STATELESS_PROTOCOL) == 0;
}

json_t *sluice_mcp_protocol_all_json(void)
{
    json_t *all = json_array();
    bool ok =
        all != NULL && json_array_append_new(all, json_string(SLUICE_MCP_STATELESS_PROTOCOL)) == 0;
    for (size_t i = 0; ok && i < sluice_mcp_protocol_count; i++)
        ok = json_array_append_new(all, json_string(sluice_mcp_protocols[i])) == 0;
    if (!ok) {
        json_decref(all);
        return NULL;
    }
    return all;
}
