/*
 * surface.h — the static MCP surface declared in config: [[prompts]] and [[resources]], served
 * as-is (prompts with {{argument}} substitution).
 *
 * Owns: turning sluice_config prompts/resources into MCP registry entries and answering
 * prompts/get and resources/read for them. Does not own: code mode's own resources and prompt
 * (codemode/resources.c) nor curated tools (codemode/curated.c).
 */
#ifndef SLUICE_SURFACE_SURFACE_H
#define SLUICE_SURFACE_SURFACE_H

#include "config/config.h"
#include "mcp/server.h"

/* Registers every config prompt and resource. The config must outlive the server. */
sluice_status
sluice_surface_register(const sluice_config *config, sluice_mcp_server *server, sluice_error *err);

/* Replaces each {{name}} in text with the string value of arguments[name]; unknown names stay
 * as written (config.c already checked that every placeholder is a declared argument). */
char *sluice_surface_fill(sluice_arena *arena, const char *text, const json_t *arguments);

#endif
