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

#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "querymode/querymode.h"
#include "sluice/sluice.h"
#include "surface/curated.h"
#include "surface/querymode_tools.h"
#include "surface/surface.h"
#include "surface/tools.h"

#include <string.h>

/* Code mode and curated tools share one hardened executor, on the runtime built here. */
static sluice_status add_database_surface(const sluice_config *config,
                                          bool check_now,
                                          sluice_cli_built *b,
                                          sluice_arena *err_arena,
                                          sluice_error *err)
{
    if (!config->has_database && !config->code_mode.enabled && config->tool_count == 0)
        return SLUICE_OK;
    sluice_status st = sluice_runtime_open_codemode(config, &b->rt, &b->cm, err_arena, err);
    if (st == SLUICE_OK && config->code_mode.enabled)
        st = sluice_codemode_register(b->cm, b->server, err);
    const sluice_curated_services curated = {
        .config = config,
        .executor = b->cm != NULL ? sluice_codemode_executor(b->cm) : NULL,
        .rt = b->rt,
        .analyzer = b->cm,
        .arena = b->rt != NULL ? b->rt->arena : NULL,
    };
    if (st == SLUICE_OK && check_now)
        st = sluice_codemode_check_backends(b->cm, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_curated_register(&curated, b->server, check_now, err_arena, err);
    return st;
}

/* Query mode beside code mode: it audits through the runtime's log when there is one, and
 * reads under code mode's policy. */
static sluice_status add_query_mode(const sluice_config *config,
                                    sluice_cli_built *b,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    if (!config->query_mode.enabled)
        return SLUICE_OK;
    const sluice_querymode_services with = {
        .rt = b->rt,
        .policy = b->cm != NULL ? sluice_codemode_policy(b->cm) : NULL,
    };
    sluice_status st = sluice_querymode_open(config, &with, &b->qm, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_querymode_register(b->qm, b->server, err);
    return st;
}

sluice_status sluice_cli_build_server(const sluice_config *config,
                                      bool check_now,
                                      sluice_cli_built *out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    memset(out, 0, sizeof *out);
    sluice_mcp_server_options opts = {
        .name = config->server.name,
        .version = SLUICE_VERSION,
        .instructions = config->server.instructions,
        .request_timeout_ms = (int)(config->server.request_timeout_seconds * 1000),
    };
    sluice_status st = sluice_mcp_server_new(&opts, &out->server, err);
    if (st == SLUICE_OK)
        st = sluice_surface_register(config, out->server, err);
    if (st == SLUICE_OK)
        st = add_database_surface(config, check_now, out, err_arena, err);
    if (st == SLUICE_OK)
        st = add_query_mode(config, out, err_arena, err);
    if (st != SLUICE_OK)
        sluice_cli_built_close(out);
    return st;
}

void sluice_cli_built_close(sluice_cli_built *b)
{
    sluice_mcp_server_free(b->server);
    sluice_querymode_close(b->qm);
    sluice_codemode_close(b->cm);
    sluice_runtime_close(b->rt);
    memset(b, 0, sizeof *b);
}
