/*
 * mcp_source.h — fetching a kind = "mcp" source: a downstream MCP server's read tool as a table
 * (see mcp_source.c for what the minimal client does and owns).
 */
#ifndef SLUICE_QUERYMODE_MCP_SOURCE_H
#define SLUICE_QUERYMODE_MCP_SOURCE_H

#include "querymode/http_source.h"

/* One tools/call of f->source->tool with f->params as string arguments, on a server started
 * from f->source->command (and stopped after). On SLUICE_OK the results of f are set (pages
 * counts calls). Errors: SLUICE_E_IO (cannot start, exited, timed out, the tool answered an
 * error: its message), SLUICE_E_LIMIT (more than max_load_bytes), SLUICE_E_INVALID (no JSON
 * rows at response.path), SLUICE_E_CANCELLED. Strings in arena. */
sluice_status sluice_qm_mcp_fetch(sluice_qm_fetch *f, sluice_arena *arena, sluice_error *err);

#endif
