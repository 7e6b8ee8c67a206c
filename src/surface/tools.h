/*
 * tools.h — code mode on the MCP surface: the validate_code and execute_code tools, the
 * code-mode://instructions, code-mode://policies and code-mode://schema resources, and the
 * start_code_mode prompt.
 *
 * Owns: their schemas, annotations and handlers (argument extraction, identity and session from
 * the call, cancellation and approval hooks, result shapes). Does not own the pipeline itself.
 */
#ifndef SLUICE_SURFACE_TOOLS_H
#define SLUICE_SURFACE_TOOLS_H

#include "codemode/codemode.h"
#include "mcp/server.h"

/* Registers everything above on server; cm must outlive it. */
sluice_status
sluice_codemode_register(sluice_codemode *cm, sluice_mcp_server *server, sluice_error *err);

#endif
