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
 * Also owns the analyzer's idle connections (sluice_duckdb_idle): a connection made and hardened
 * per validate was 44k of the 1,000-row statement's 1.22M instructions (issue 23).
 * Does not own: the database's configuration (exec/duckdb.c's hardening list).
 * lang/sql reaches it through executor.h's sluice_executor_bind_connect and
 * sluice_executor_bind_session (no engine header there).
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

/* The idle analyzer connections of one database, kept for the next analysis (why a kept one
 * carries nothing from one analysis to the next: duckdb_connect.c). Bounded; a connection is
 * handed to one analysis at a time. The database's owner makes it beside the database and closes
 * it before duckdb_close; connections still handed out then are disconnected when given back. */
typedef struct sluice_duckdb_idle sluice_duckdb_idle;

/* NULL when out of memory: every analysis then connects anew (slower, never less safe). */
sluice_duckdb_idle *sluice_exec_duckdb_idle_new(void);

/* Disconnects the idle connections (a fork-gate region) and lets go of idle; NULL is a no-op. */
void sluice_exec_duckdb_idle_close(sluice_duckdb_idle *idle);

#endif
