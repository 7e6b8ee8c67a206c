/*
 * startup.h — building the MCP server a config declares (cli/startup.c), for serve and for
 * config check.
 */
#ifndef SLUICE_CLI_STARTUP_H
#define SLUICE_CLI_STARTUP_H

#include "config/config.h"
#include "mcp/server.h"

struct sluice_codemode;
struct sluice_querymode;

/* Builds the whole MCP surface config declares. On success *out, *out_cm and *out_qm (either
 * may stay NULL when the config has no such part) belong to the caller; on failure nothing is
 * left open, and err says what is wrong (with file and line where the part knows them). */
sluice_status sluice_cli_build_server(const sluice_config *config,
                                      sluice_mcp_server **out,
                                      struct sluice_codemode **out_cm,
                                      struct sluice_querymode **out_qm,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

#endif
