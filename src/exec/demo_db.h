/*
 * demo_db.h — the demo database generator behind `sluice demo-db`.
 *
 * Owns: running examples/demo/demo.sql (trusted, deterministic SQL) in a fresh read-write
 * DuckDB, and for SQLite copying every table it made into a new SQLite file through prepared
 * statements (with indexes on the foreign keys the demo questions join on).
 * Does not own: the data itself (demo.sql), argument parsing (cli/cmd_demo_db.c).
 */
#ifndef SLUICE_EXEC_DEMO_DB_H
#define SLUICE_EXEC_DEMO_DB_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

/* Where the build tree keeps the demo SQL (for running from a checkout). */
#define SLUICE_DEMO_SQL_DEFAULT SLUICE_SOURCE_DIR "/examples/demo/demo.sql"

/* Generates out_path (which must not exist) from the SQL in sql_path. Errors name the file and
 * the statement that failed. Strings in arena. */
sluice_status sluice_exec_demo_generate(sluice_engine_kind engine,
                                        const char *sql_path,
                                        const char *out_path,
                                        sluice_arena *arena,
                                        sluice_error *err);

#endif
