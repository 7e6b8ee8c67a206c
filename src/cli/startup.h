/*
 * startup.h — building the MCP server a config declares (cli/startup.c), for serve and for
 * config check.
 */
#ifndef SLUICE_CLI_STARTUP_H
#define SLUICE_CLI_STARTUP_H

#include "codemode/runtime.h"
#include "config/config.h"
#include "mcp/server.h"

struct sluice_codemode;
struct sluice_querymode;

/* Everything serve builds from a config: the MCP server, the runtime (keys, stores, audit), code
 * mode on it and query mode beside it. Any but server may be NULL when the config has no such
 * part (no runtime and no code mode without a [database], [[tools]] or code mode). */
typedef struct sluice_cli_built {
    sluice_mcp_server *server;
    sluice_runtime *rt;
    struct sluice_codemode *cm;
    struct sluice_querymode *qm;
} sluice_cli_built;

/* Builds the whole MCP surface config declares into *out (zeroed first). On success its parts
 * belong to the caller (sluice_cli_built_close); on failure nothing is left open, and err says
 * what is wrong (with file and line where the part knows them). check_now: `sluice config
 * check` — everything DuckDB would only check at first need (the catalog read, each curated
 * tool's analysis) is checked here too. serve passes false: its database opens on the first
 * call that needs it (docs/architecture.md, "Start-up and idle memory"). */
sluice_status sluice_cli_build_server(const sluice_config *config,
                                      bool check_now,
                                      sluice_cli_built *out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* Closes what built holds, users before what they borrow (the runtime last). */
void sluice_cli_built_close(sluice_cli_built *built);

#endif
