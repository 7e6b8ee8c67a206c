/*
 * querymode_tools.h — query mode on the MCP surface: search_tables, describe_table, load, query
 * and drop_table.
 *
 * Owns: their schemas, annotations and handlers (arguments, caller from the call, progress and
 * cancellation hooks, result shapes). Does not own what they do (querymode/querymode.h).
 */
#ifndef SLUICE_SURFACE_QUERYMODE_TOOLS_H
#define SLUICE_SURFACE_QUERYMODE_TOOLS_H

#include "mcp/server.h"
#include "querymode/querymode.h"

/* Registers the five tools on server; qm must outlive it. */
sluice_status
sluice_querymode_register(sluice_querymode *qm, sluice_mcp_server *server, sluice_error *err);

#endif
