/*
 * protocol.h — the MCP protocol revisions sluice speaks: the one table.
 *
 * Owns: the list (newest first; the first is the counter-offer at initialize when a client asks
 * for one we do not speak), lookup, and its rendering for error messages. Both the version
 * negotiation (session.c) and the HTTP MCP-Protocol-Version check (transport/http.c) read it,
 * so a new revision is added here once. Does not own: what differs between revisions.
 */
#ifndef SLUICE_MCP_PROTOCOL_H
#define SLUICE_MCP_PROTOCOL_H

#include <stddef.h>

/* The newest revision, also the counter-offer. Must be sluice_mcp_protocols[0]. */
#define SLUICE_MCP_LATEST_PROTOCOL "2025-11-25"

/* The revisions, newest first, and their count. */
extern const char *const sluice_mcp_protocols[];
extern const size_t sluice_mcp_protocol_count;

/* The table's own string equal to version (so it may be kept without copying), or NULL when we
 * do not speak it (NULL version too). */
const char *sluice_mcp_protocol_find(const char *version);

/* The revisions as "2025-11-25, 2025-06-18, 2025-03-26" (static text). */
const char *sluice_mcp_protocol_list(void);

#endif
