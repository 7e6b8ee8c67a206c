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
