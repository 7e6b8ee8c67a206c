/*
 * quickstart.h — the zero-config start: `sluice serve --db FILE` and `sluice init DB`.
 *
 * Owns: which engine a database file name means, and the TOML text of the built-in config for
 * one database (read-only SQL code mode, an ephemeral key in the environment, audit only when
 * asked). Does not own: loading or validating it (config/config.c), nor serving.
 */
#ifndef SLUICE_CLI_QUICKSTART_H
#define SLUICE_CLI_QUICKSTART_H

#include "core/arena.h"

#include <stdbool.h>

/* The environment variable `serve --db` puts its ephemeral signing key in (unset once read). */
#define SLUICE_QUICKSTART_KEY_ENV "SLUICE_EPHEMERAL_TOKEN_KEY"

/* "duckdb" for .duckdb/.ddb, "sqlite" for .sqlite/.sqlite3/.db; NULL for any other name. */
const char *sluice_quickstart_engine(const char *path);

/* path as a TOML basic string, quotes included; NULL when out of memory. */
const char *sluice_quickstart_quote(sluice_arena *arena, const char *text);

/* The built-in config for database db_path (absolute) on engine: [database], read-only
 * [code_mode] signing with SLUICE_QUICKSTART_KEY_ENV, audit_log = audit_path when not NULL.
 * NULL when out of memory. */
const char *sluice_quickstart_config(sluice_arena *arena,
                                     const char *engine,
                                     const char *db_path,
                                     const char *audit_path);

/* Puts a fresh ephemeral key line into SLUICE_QUICKSTART_KEY_ENV. False when no key could be
 * made (libsodium unavailable) or the environment is full. */
bool sluice_quickstart_ephemeral_key(void);

#endif
