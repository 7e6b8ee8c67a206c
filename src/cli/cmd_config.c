/*
 * cmd_config.c — `sluice config check FILE`: load and validate a configuration, say what it has.
 *
 * Owns: the command's options, the one-line summary of a good config and the rendering of the
 * first error (source line, caret, hint). Does not own: validation itself (config/config.c) nor
 * the start-up checks, which are serve's own (cli/startup.c): the database opened hardened, the
 * token keys, the Cedar files, the curated tools' SQL. Only the audit log and the stores beside
 * it are left closed: a running server holds them, and checking must not disturb it.
 */
#include "cli/cli.h"
#include "cli/startup.h"
#include "codemode/codemode.h"
#include "config/config.h"
#include "core/limits.h"
#include "querymode/querymode.h"

#include <stdio.h>
#include <string.h>

int sluice_cmd_config(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out, "usage: sluice config check FILE\n\n"
                 "Loads FILE and validates every key, then runs every start-up check serve runs\n"
                 "(the database file opened hardened, the token key, the Cedar policies parsed\n"
                 "and validated, each curated tool's SQL analyzed) without serving. Prints a\n"
                 "summary and exits 0 when it is good; prints the first problem (where, what,\n"
                 "how to fix) and exits 1 when not.\n");
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The file again, for the caret under the error; NULL when it cannot be read (the message
 * alone still says where). */
static char *read_text(sluice_arena *arena, const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = sluice_arena_alloc(arena, SLUICE_LIMIT_CONFIG_BYTES + 1);
    size_t len = text != NULL ? fread(text, 1, SLUICE_LIMIT_CONFIG_BYTES, f) : 0;
    fclose(f);
    if (text != NULL)
        text[len] = '\0';
    *out_len = len;
    return text;
}

/* Builds what serve would build and takes it down again. The audit log, the replay store and
 * the approval store are runtime state, not configuration: a serving process holds them (the
 * audit log is locked), so they are not opened here. */
static sluice_status startup_checks(sluice_config *cfg, sluice_arena *arena, sluice_error *err)
{
    cfg->code_mode.audit_log = NULL;
    cfg->code_mode.replay_store = NULL;
    sluice_cli_built b;
    sluice_status st = sluice_cli_build_server(cfg, true, &b, arena, err);
    if (st == SLUICE_OK)
        sluice_cli_built_close(&b);
    return st;
}

static int check(const char *path)
{
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL) {
        fprintf(stderr, "sluice config: out of memory\n");
        return SLUICE_EXIT_RUNTIME;
    }
    sluice_config *cfg = NULL;
    sluice_error err;
    sluice_status st = sluice_config_load(path, &cfg, arena, &err);
    int rc;
    if (st == SLUICE_OK && (st = startup_checks(cfg, arena, &err)) != SLUICE_OK) {
        fputs(sluice_error_render(arena, &err, NULL, 0), stderr);
        sluice_config_free(cfg);
        sluice_arena_free(arena);
        return st == SLUICE_E_NOMEM ? SLUICE_EXIT_RUNTIME : SLUICE_EXIT_FAIL;
    }
    if (st == SLUICE_OK) {
        printf("%s: ok (%zu %s, %zu %s, %zu %s; code mode %s, engine %s)\n", path, cfg->tool_count,
               plural(cfg->tool_count, "tool", "tools"), cfg->prompt_count,
               plural(cfg->prompt_count, "prompt", "prompts"), cfg->resource_count,
               plural(cfg->resource_count, "resource", "resources"),
               cfg->code_mode.enabled ? "enabled" : "disabled",
               cfg->database.engine == SLUICE_ENGINE_SQLITE     ? "sqlite"
               : cfg->database.engine == SLUICE_ENGINE_POSTGRES ? "postgres"
               : cfg->database.engine == SLUICE_ENGINE_GRAPHQL  ? "graphql"
               : cfg->database.engine == SLUICE_ENGINE_OPENAPI  ? "openapi"
                                                                : "duckdb");
        sluice_config_free(cfg);
        /* a config written for pmcp-code-mode: which keys keep their meaning here */
        size_t len = 0;
        char *text = read_text(arena, path, &len);
        sluice_buf report;
        sluice_buf_init(&report, arena, 0);
        if (text != NULL && sluice_config_pmcp_report(arena, text, len, &report) == SLUICE_OK)
            fputs(sluice_buf_cstr(&report), stdout);
        rc = SLUICE_EXIT_OK;
    } else {
        size_t len = 0;
        /* Never echo a line holding an inline secret back to a terminal or a CI log. */
        char *text = sluice_config_error_quotes_secret(&err) ? NULL : read_text(arena, path, &len);
        fputs(sluice_error_render(arena, &err, text, len), stderr);
        rc = st == SLUICE_E_NOMEM ? SLUICE_EXIT_RUNTIME : SLUICE_EXIT_FAIL;
    }
    sluice_arena_free(arena);
    return rc;
}

int sluice_cmd_config(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return SLUICE_EXIT_OK;
    }
    if (argc != 3 || strcmp(argv[1], "check") != 0 || argv[2][0] == '-') {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    return check(argv[2]);
}
