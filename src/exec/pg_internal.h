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

/* The connections of one role. */
typedef struct pg_pool {
    char *conninfo;
    char *password; /* NULL: libpq's own sources (.pgpass, PGPASSWORD) */
    size_t size;
    pthread_mutex_t lock;
    PGconn **idle; /* size slots */
    size_t idle_count;
} pg_pool;

typedef struct pg_state {
    pg_pool read;
    pg_pool write; /* write.conninfo NULL: no write role, every call reads */
    bool allow_writes, allow_deletes;
    char *search_path;
} pg_state;

/* Fills pool for conninfo, the password from password_file or password_env (NULL: libpq's own
 * sources). SLUICE_E_IO (file unreadable, env unset; err in arena), SLUICE_E_NOMEM. The pool
 * needs sluice_pg_pool_free even on failure. */
sluice_status sluice_pg_pool_init(pg_pool *pool,
                                  const char *conninfo,
                                  const char *password_file,
                                  const char *password_env,
                                  size_t size,
                                  sluice_arena *arena,
                                  sluice_error *err);

/* Closes every pooled connection and wipes the password. */
void sluice_pg_pool_free(pg_pool *pool);

/* A live connection: from the pool or new. SLUICE_E_ENGINE (err: libpq's reason, password never
 * included) when none can be made. */
sluice_status
sluice_pg_conn_take(pg_pool *pool, PGconn **out, sluice_arena *arena, sluice_error *err);

/* Returns a connection after its transaction ended: DISCARD ALL, then back into the pool, or
 * closed when the pool is full, the connection broke, or reusable is false. */
void sluice_pg_conn_give(pg_pool *pool, PGconn *conn, bool reusable);

/* The statement the executor itself sees in code (libpg_query, independent of the analyzer):
 * the change kind when it is exactly one INSERT, UPDATE, MERGE (PG_CHANGE_WRITE), DELETE or
 * TRUNCATE (PG_CHANGE_DELETE) without a WITH clause; PG_CHANGE_NONE for anything else, which
 * then runs on the read path and is refused by the server. */
typedef enum pg_change { PG_CHANGE_NONE, PG_CHANGE_WRITE, PG_CHANGE_DELETE } pg_change;
pg_change sluice_pg_change_kind(const char *code, size_t code_len);

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
