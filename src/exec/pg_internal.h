/*
 * pg_internal.h — what the PostgreSQL executor's files share (exec/postgres.c, pg_conn.c,
 * pg_schema.c, pg_values.c). Internal to src/exec/.
 *
 * Owns: the engine state, the connection pool's interface, the catalog read and write probe, and
 * the text-to-JSON conversion of result values.
 * Does not own: the executor vtable (postgres.c).
 */
#ifndef SLUICE_EXEC_PG_INTERNAL_H
#define SLUICE_EXEC_PG_INTERNAL_H

#include "exec/executor.h"

#include <jansson.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdbool.h>

typedef struct pg_state {
    char *conninfo;
    char *password; /* NULL: libpq's own sources (.pgpass, PGPASSWORD) */
    char *search_path;
    size_t pool_size;
    pthread_mutex_t lock;
    PGconn **idle; /* pool_size slots */
    size_t idle_count;
} pg_state;

/* A live connection: from the pool or new. SLUICE_E_ENGINE (err: libpq's reason, password never
 * included) when none can be made. */
sluice_status
sluice_pg_conn_take(pg_state *s, PGconn **out, sluice_arena *arena, sluice_error *err);

/* Returns a connection after its transaction ended: DISCARD ALL, then back into the pool, or
 * closed when the pool is full, the connection broke, or reusable is false. */
void sluice_pg_conn_give(pg_state *s, PGconn *conn, bool reusable);

/* Closes every pooled connection. */
void sluice_pg_conn_close_all(pg_state *s);

/* Runs fixed sluice SQL (never user code) and checks its status; SLUICE_E_ENGINE with the
 * server's message otherwise. */
sluice_status sluice_pg_run(PGconn *conn, const char *sql, sluice_arena *arena, sluice_error *err);

/* Reads tables, views (with their definitions), columns and types of the schemas in
 * search_path that the role can read. */
sluice_status sluice_pg_read_schema(PGconn *conn,
                                    const char *search_path,
                                    sluice_arena *arena,
                                    sluice_schema *out,
                                    sluice_error *err);

/* The write probe: what the role could change, as a sentence in arena, or NULL when it can
 * change nothing the probe tried (superuser, write grants, CREATE on a schema, a table created
 * in a default transaction). */
const char *sluice_pg_write_probe(PGconn *conn, const char *search_path, sluice_arena *arena);

/* One result value (text format) of type oid as JSON, per executor.h's conventions. NULL on
 * NOMEM. */
json_t *sluice_pg_value(const char *text, int len, Oid type);

/* The engine type name of a result column ("integer", "text", "numeric", ...). */
const char *sluice_pg_type_name(Oid type);

#endif
