/*
 * protocol.h — the MCP protocol revisions sluice speaks: the one table.
 *
 * Owns: the list (newest first; the first is the counter-offer at initialize when a client asks
 * for one we do not speak), lookup, and its rendering for error messages. Both the version
 * negotiation (session.c) and the HTTP MCP-Protocol-Version check (transport/http.c) read it,
 * so a new revision is added here once. The stateless revision 2026-07-28 is named beside it.
 * Does not own: what differs between revisions (mcp/stateless.c for 2026-07-28).
 */
#ifndef SLUICE_MCP_PROTOCOL_H
#define SLUICE_MCP_PROTOCOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The newest revision, also the counter-offer. Must be sluice_mcp_protocols[0]. */
#define SLUICE_MCP_LATEST_PROTOCOL "2025-11-25"

/* The stateless revision (per-request _meta, no initialize; mcp/stateless.h serves it). It is
 * not in the table below: that table is what initialize negotiates. */
#define SLUICE_MCP_STATELESS_PROTOCOL "2026-07-28"

/* The handshake revisions, newest first, and their count. */
extern const char *const sluice_mcp_protocols[];
extern const size_t sluice_mcp_protocol_count;

/* The table's own string equal to version (so it may be kept without copying), or NULL when we
 * do not speak it (NULL version too). */
const char *sluice_mcp_protocol_find(const char *version);

/* The revisions as "2025-11-25, 2025-06-18, 2025-03-26" (static text). */
const char *sluice_mcp_protocol_list(void);

/* True when version is a stateless revision we serve (SLUICE_MCP_STATELESS_PROTOCOL). */
bool sluice_mcp_protocol_is_stateless(const char *version);

/* Every revision we serve, stateless first, as a new JSON array of strings (NULL when out of
 * memory): server/discover's supportedVersions and UnsupportedProtocolVersion's data.supported. */
json_t *sluice_mcp_protocol_all_json(void);

#endif
