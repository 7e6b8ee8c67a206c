/*
 * cli.h — the sluice subcommands. Each lives in src/cli/cmd_<name>.c and is one row of the
 * table in main.c. Every command returns its exit status: 0 success, 1 the thing checked is
 * wrong (bad config, broken audit chain, denied), 2 usage error, 3 runtime failure.
 */
#ifndef SLUICE_CLI_CLI_H
#define SLUICE_CLI_CLI_H

#include "auth/identity.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>

#define SLUICE_EXIT_OK      0
#define SLUICE_EXIT_FAIL    1
#define SLUICE_EXIT_USAGE   2
#define SLUICE_EXIT_RUNTIME 3

typedef struct sluice_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} sluice_command;

/* The code in path ("-": stdin), NUL-terminated, in arena; *len its length. NULL when it cannot
 * be read or is over SLUICE_LIMIT_CODE_BYTES (cmd_validate.c). */
struct sluice_arena;
char *sluice_cli_read_code(struct sluice_arena *arena, const char *path, size_t *len);

/* Who a command acts as (cmd_validate.c): user (NULL: [identity] user) in groups (none given:
 * [identity] groups), established by "cli". It points into its arguments and config. */
sluice_identity sluice_cli_identity(const sluice_config *config,
                                    const char *user,
                                    const char *const *groups,
                                    size_t group_count);

/* Writes a key line to a new file, mode 0600 (cmd_keygen.c); with force, replaces it
 * atomically. Returns an exit status; the reason is printed on failure. */
int sluice_cli_write_key_file(const char *path, const char *line, bool force);

#endif
