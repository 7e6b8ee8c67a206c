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
/* check_now: `sluice config check` — everything DuckDB would only check at first need (the
 * catalog read, each curated tool's analysis) is checked here too. serve passes false: its
 * database opens on the first call that needs it (docs/architecture.md, idle memory). */
sluice_status sluice_cli_build_server(const sluice_config *config,
                                      bool check_now,
                                      sluice_mcp_server **out,
                                      struct sluice_codemode **out_cm,
                                      struct sluice_querymode **out_qm,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

#endif
