/*
 * curated.h — curated tools from config ([[tools]]): named, parameterised SQL statements with
 * typed arguments (MCP Toolbox style), sitting beside code mode.
 *
 * Owns: turning each [[tools]] entry into an MCP tool (inputSchema from its parameters), checking
 * (at start-up, or at its first call) that its statement passes the same analysis as code mode (one
 * statement, allowed action, no blocked field in the output), and running it with the arguments
 * bound as parameters under code mode's limits, with an audit record per call. Does not own: the
 * statement text (the analyst wrote it) or the engine.
 */
#ifndef SLUICE_SURFACE_CURATED_H
#define SLUICE_SURFACE_CURATED_H

#include "codemode/codemode.h"
#include "mcp/server.h"

/* What curated tools borrow from the CLI; all of it must outlive the server they are
 * registered on. */
typedef struct sluice_curated_services {
    const sluice_config *config; /* the [[tools]], and the [code_mode] limits they run under */
    sluice_executor *executor;   /* the [database] their statements run on */
    sluice_runtime *rt;          /* its audit sink records every call */
    sluice_codemode *analyzer;   /* judges each statement once (analysis only) */
    sluice_arena *arena;         /* the tools' registrations (as long-lived as the server) */
} sluice_curated_services;

/* Registers every config tool. check_now: each statement is analyzed here, and one the analysis
 * refuses stops start-up with a message naming the tool and the violation (`sluice config
 * check`). Otherwise (`sluice serve`) the analysis binds against the database, which opens on
 * first need, so it runs at the tool's first call instead: a refused statement is then that
 * call's error, with the same message, on every call until the config is fixed. */
sluice_status sluice_curated_register(const sluice_curated_services *with,
                                      sluice_mcp_server *server,
                                      bool check_now,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

#endif
