/*
 * duckdb_connect.h — the one way sluice opens a DuckDB connection: connected and hardened, or
 * not at all (issue 23; docs/security.md).
 *
 * Owns: what DuckDB keeps per connection. DuckDB 1.4 keeps home_directory and errors_as_json on
 * each connection's ClientConfig and refuses both before the open (duckdb_set_config), globally
 * and, once lock_configuration is on, per SET; and 1.4.4 drops a secret_directory given before
 * the open. Only the C++ unit (exec/duckdb_plan.cpp) can set them, right after duckdb_connect.
 * Built without that unit (-DSLUICE_DUCKDB_CPP=OFF, the 1.5 line) the database's own
 * configuration holds all three and this only connects.
 * Does not own: the database's configuration (exec/duckdb.c's hardening list).
 * lang/sql reaches it through executor.h's sluice_executor_bind_connect (no engine header there).
 */
#ifndef SLUICE_EXEC_DUCKDB_CONNECT_H
#define SLUICE_EXEC_DUCKDB_CONNECT_H

#include "core/arena.h"
#include "core/error.h"

#include <duckdb.h>
#include <stdbool.h>

/* A directory that cannot exist: where "~", secrets and extensions would be looked for. */
#define SLUICE_DUCKDB_NO_DIR "/proc/sluice-no-such-directory"

/* Connects to db and hardens the connection: home_directory (and the database's
 * secret_directory) = SLUICE_DUCKDB_NO_DIR, and errors
 * as JSON when json_errors (the served and session databases, whose readers parse the JSON
 * form; the analyzer's mirror, the demo loader and the file reader keep DuckDB's plain text, as
 * their databases are configured). On any failure (no connection, DuckDB refused, out of memory)
 * the connection is closed again, *out stays NULL and err says why: a connection that could not
 * be hardened is never handed out. */
sluice_status sluice_exec_duckdb_connect(duckdb_database db,
                                         bool json_errors,
                                         duckdb_connection *out,
                                         sluice_arena *arena,
                                         sluice_error *err);

#endif
