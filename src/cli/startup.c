/*
 * startup.c — what `sluice serve` builds before it serves, shared with `sluice config check` so
 * the checker refuses everything serve refuses: the config surface, code mode (the database
 * opened hardened, the token keys, the Cedar policies parsed and validated), the curated
 * [[tools]] (each statement analyzed) and query mode. serve defers what needs DuckDB open (the
 * catalog, the tools' analysis) to the first call that needs it; the checker does it all now.
 *
 * Owns: the order the parts are built in and their teardown on failure. Does not own any part.
 */
#include "cli/startup.h"

#include "codemode/codemode.h"
#include "querymode/querymode.h"
#include "sluice/sluice.h"
#include "surface/curated.h"
#include "surface/querymode_tools.h"
#include "surface/surface.h"
#include "surface/tools.h"

/* Code mode and curated tools share one hardened executor. */
static sluice_status add_database_surface(const sluice_config *config,
                                          bool check_now,
                                          sluice_mcp_server *server,
                                          sluice_codemode **out_cm,
                                          sluice_arena *err_arena,
                                          sluice_error *err)
{
    if (!config->has_database && !config->code_mode.enabled && config->tool_count == 0)
        return SLUICE_OK;
    sluice_codemode *cm = NULL;
    sluice_status st = sluice_codemode_open(config, &cm, err_arena, err);
    if (st == SLUICE_OK && config->code_mode.enabled)
        st = sluice_codemode_register(cm, server, err);
    if (st == SLUICE_OK && check_now)
        st = sluice_codemode_check_backends(cm, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_curated_register(cm, server, check_now, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_codemode_close(cm);
        return st;
    }
    *out_cm = cm;
    return SLUICE_OK;
}

/* Query mode beside code mode: it audits through code mode's log when there is one. */
static sluice_status add_query_mode(const sluice_config *config,
                                    sluice_mcp_server *server,
                                    sluice_codemode *cm,
                                    sluice_querymode **out_qm,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    if (!config->query_mode.enabled)
        return SLUICE_OK;
    sluice_status st = sluice_querymode_open(config, cm, NULL, out_qm, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_querymode_register(*out_qm, server, err);
    return st;
}

sluice_status sluice_cli_build_server(const sluice_config *config,
                                      bool check_now,
                                      sluice_mcp_server **out,
                                      sluice_codemode **out_cm,
                                      sluice_querymode **out_qm,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_mcp_server_options opts = {
        .name = config->server.name,
        .version = SLUICE_VERSION,
        .instructions = config->server.instructions,
        .request_timeout_ms = (int)(config->server.request_timeout_seconds * 1000),
    };
    sluice_mcp_server *server = NULL;
    sluice_status st = sluice_mcp_server_new(&opts, &server, err);
    if (st == SLUICE_OK)
        st = sluice_surface_register(config, server, err);
    if (st == SLUICE_OK)
        st = add_database_surface(config, check_now, server, out_cm, err_arena, err);
    if (st == SLUICE_OK)
        st = add_query_mode(config, server, *out_cm, out_qm, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_mcp_server_free(server);
        sluice_querymode_close(*out_qm);
        sluice_codemode_close(*out_cm);
        *out_qm = NULL;
        *out_cm = NULL;
        return st;
    }
    *out = server;
    return SLUICE_OK;
}
