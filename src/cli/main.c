/*
 * main.c — the sluice command line: `sluice <command> [options]`, one file per command.
 *
 * Owns: the command table, --help, --version and "did you mean" for a mistyped command. Each
 * command parses its own options and answers its own --help (exit 0); usage errors exit 2.
 */
#include "cli/cli.h"
#include "config/suggest.h"
#include "core/hash.h"
#include "sluice/sluice.h"

#include <duckdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Commands: add one declaration and one table row per src/cli/cmd_<name>.c. */
int sluice_cmd_approve(int argc, char **argv);
int sluice_cmd_audit(int argc, char **argv);
int sluice_cmd_config(int argc, char **argv);
int sluice_cmd_demo_db(int argc, char **argv);
int sluice_cmd_execute(int argc, char **argv);
int sluice_cmd_init(int argc, char **argv);
int sluice_cmd_keygen(int argc, char **argv);
int sluice_cmd_policy(int argc, char **argv);
int sluice_cmd_program(int argc, char **argv);
int sluice_cmd_serve(int argc, char **argv);
int sluice_cmd_validate(int argc, char **argv);

static const sluice_command commands[] = {
    { "approve", "approve or reject a pending execute_code request", sluice_cmd_approve },
    { "audit", "verify the hash chain of an audit log", sluice_cmd_audit },
    { "config", "check a configuration file", sluice_cmd_config },
    { "demo-db", "write the deterministic demo database", sluice_cmd_demo_db },
    { "execute", "validate and run a file of code as execute_code would", sluice_cmd_execute },
    { "init", "write a starter config for a database file", sluice_cmd_init },
    { "keygen", "make a signing key for approval tokens", sluice_cmd_keygen },
    { "policy", "evaluate or check Cedar policies", sluice_cmd_policy },
    { "program", "promote, demote or list saved programs", sluice_cmd_program },
    { "serve", "serve MCP over stdio or Streamable HTTP", sluice_cmd_serve },
    { "validate", "show what validate_code answers for a file of code", sluice_cmd_validate },
    { NULL, NULL, NULL },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: sluice <command> [options]\n\ncommands:\n");
    for (const sluice_command *c = commands; c->name != NULL; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n  --help     show this help\n  --version  print the version\n"
                 "\nRun 'sluice <command> --help' for a command's options.\n");
}

/* True when -h or --help is any argument after the command name. */
static bool asks_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

/* "unknown command 'serv'; did you mean 'serve'?" — or the list when nothing is close. */
static void unknown_command(const char *word)
{
    sluice_suggest s;
    sluice_suggest_init(&s, word);
    for (const sluice_command *c = commands; c->name != NULL; c++)
        sluice_suggest_consider(&s, c->name);
    const char *best = sluice_suggest_best(&s);
    if (best != NULL) {
        fprintf(stderr, "sluice: unknown command '%s'; did you mean '%s'?\n", word, best);
        return;
    }
    fprintf(stderr, "sluice: unknown command '%s'\n", word);
    usage(stderr);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return SLUICE_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("sluice %s (commit %s, DuckDB %s)\n", SLUICE_VERSION, SLUICE_GIT_COMMIT,
               duckdb_library_version());
        return SLUICE_EXIT_OK;
    }
    if (sluice_hash_init() != SLUICE_OK) {
        fprintf(stderr, "sluice: libsodium could not be initialised\n");
        return SLUICE_EXIT_RUNTIME;
    }
    for (const sluice_command *c = commands; c->name != NULL; c++) {
        if (strcmp(argv[1], c->name) != 0)
            continue;
        if (asks_help(argc, argv)) {
            /* Wherever --help stands (`config check --help`, `audit verify --help`), the
             * command's help is the answer, never an attempt to open a file called --help. */
            char *help_argv[] = { argv[1], (char *)"--help", NULL };
            return c->run(2, help_argv);
        }
        return c->run(argc - 1, argv + 1);
    }
    unknown_command(argv[1]);
    return SLUICE_EXIT_USAGE;
}
