/*
 * duckdb_connect.c — every DuckDB connection, connected and hardened or not at all
 * (duckdb_connect.h).
 */
#include "exec/duckdb_connect.h"

#include "exec/executor.h"
#include "exec/fork_gate.h"

#ifdef SLUICE_DUCKDB_CPP
#include "exec/duckdb_plan.h"
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

sluice_status sluice_exec_duckdb_connect(duckdb_database db,
                                         bool json_errors,
                                         duckdb_connection *out,
                                         sluice_arena *arena,
                                         sluice_error *err)
{
    *out = NULL;
    duckdb_connection conn = NULL;
    if (db == NULL || duckdb_connect(db, &conn) != DuckDBSuccess)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "could not connect to DuckDB");
#ifdef SLUICE_DUCKDB_CPP
    sluice_status st =
        sluice_exec_duckdb_plan_harden(conn, SLUICE_DUCKDB_NO_DIR, json_errors, arena, err);
    if (st != SLUICE_OK) {
        duckdb_disconnect(&conn);
        return st;
    }
#else
    (void)json_errors; /* the database's configuration holds both (duckdb_connect.h) */
#endif
    *out = conn;
    return SLUICE_OK;
}

sluice_status sluice_executor_bind_connect(
    void *db, bool json_errors, void **out, sluice_arena *arena, sluice_error *err)
{
    duckdb_connection conn = NULL;
    sluice_status st =
        sluice_exec_duckdb_connect((duckdb_database)db, json_errors, &conn, arena, err);
    *out = conn;
    return st;
}

/* Idle analyzer connections, one per analysis at a time: a kept connection carries nothing from
 * one analysis to the next because nothing an analysis does on it outlives the analysis.
 * - Settings, variables, the search path, prepared names, temporary objects: changed only by a
 *   statement that runs (SET, SET VARIABLE, USE, PREPARE, CREATE TEMP, ATTACH, a PRAGMA that
 *   calls a function), and an analysis runs none: it parses (a PRAGMA is at most rewritten into
 *   the query text it stands for, HandlePragmaStatements) and binds, and runs only EXPLAIN
 *   (FORMAT JSON) of an allowed SELECT for the estimate (DuckDB plans its statement, never runs
 *   it) and, built without the bind-once unit, json_serialize_sql/_plan of the text. A caller
 *   cannot SET anything on it; hardening (duckdb_connect.h) is made once and never changed.
 * - Transaction state, also after a refusal or an error: every bind runs in a transaction of its
 *   own (RunFunctionInTransaction: rolled back on any error) and every query auto-commits, as no
 *   BEGIN ever runs; the connection is never interrupted (only the executor's are).
 * - Constant folding and statistics read the database, which is shared by every connection.
 * The connection's own state is still checked when given back (sluice_exec_duckdb_plan_as_new:
 * auto-commit, no transaction, no interrupt, no prepared name); one that fails the check is
 * disconnected. An idle connection runs nothing, so DuckDB's workers stay idle for fork
 * (fork_gate.h). Eight idle connections cover the concurrent validates of a small server; more
 * are disconnected when given back. */
#define IDLE_SLOTS 8

struct sluice_duckdb_idle {
    pthread_mutex_t mu;
    duckdb_database db; /* the one database of every kept connection (set by the first) */
    duckdb_connection conn[IDLE_SLOTS];
    size_t count;
    unsigned refs; /* the owner's until closed, plus one per connection handed out */
    bool closed;
};

/* An analysis's connection, given back when its arena is freed. */
typedef struct session {
    sluice_duckdb_idle *idle; /* NULL: disconnected when done */
    duckdb_database db;
    duckdb_connection conn;
} session;

sluice_duckdb_idle *sluice_exec_duckdb_idle_new(void)
{
    sluice_duckdb_idle *idle = calloc(1, sizeof(*idle));
    if (idle != NULL && pthread_mutex_init(&idle->mu, NULL) != 0) {
        free(idle);
        return NULL;
    }
    if (idle != NULL)
        idle->refs = 1;
    return idle;
}

static void disconnect(duckdb_connection conn)
{
    sluice_fork_gate_enter();
    duckdb_disconnect(&conn);
    sluice_fork_gate_leave();
}

/* Drops one reference and unlocks idle->mu (DuckDB is never entered under it: an analysis takes
 * it inside its fork-gate region); frees idle after the last reference. */
static void idle_unref_unlock(sluice_duckdb_idle *idle)
{
    bool last = --idle->refs == 0;
    pthread_mutex_unlock(&idle->mu);
    if (last) {
        pthread_mutex_destroy(&idle->mu);
        free(idle);
    }
}

void sluice_exec_duckdb_idle_close(sluice_duckdb_idle *idle)
{
    if (idle == NULL)
        return;
    duckdb_connection gone[IDLE_SLOTS];
    pthread_mutex_lock(&idle->mu);
    idle->closed = true;
    size_t n = idle->count;
    for (size_t i = 0; i < n; i++)
        gone[i] = idle->conn[i];
    idle->count = 0;
    idle_unref_unlock(idle);
    for (size_t i = 0; i < n; i++)
        disconnect(gone[i]);
}

/* An idle connection to db, or NULL; either way the session holds a reference. */
static duckdb_connection idle_take(sluice_duckdb_idle *idle, duckdb_database db)
{
    duckdb_connection conn = NULL;
    pthread_mutex_lock(&idle->mu);
    idle->refs++;
    if (idle->count > 0 && idle->db == db)
        conn = idle->conn[--idle->count];
    pthread_mutex_unlock(&idle->mu);
    return conn;
}

static bool as_new(duckdb_connection conn)
{
#ifdef SLUICE_DUCKDB_CPP
    return sluice_exec_duckdb_plan_as_new(conn);
#else
    (void)conn;        /* nothing to check it with: never kept */
    return false;
#endif
}

/* Gives the session's connection back to its idle set, or disconnects it, and lets go of the
 * set. */
static void session_end(void *p)
{
    session *s = p;
    bool kept = false;
    if (s->idle != NULL) {
        sluice_duckdb_idle *idle = s->idle;
        bool clean = s->conn != NULL && as_new(s->conn);
        pthread_mutex_lock(&idle->mu);
        if (clean && idle->db == NULL)
            idle->db = s->db;
        kept = clean && !idle->closed && idle->db == s->db && idle->count < IDLE_SLOTS;
        if (kept)
            idle->conn[idle->count++] = s->conn;
        idle_unref_unlock(idle);
    }
    if (!kept && s->conn != NULL)
        disconnect(s->conn);
}

sluice_status sluice_executor_bind_session(
    void *db, void *idle, bool json_errors, void **out, sluice_arena *arena, sluice_error *err)
{
    *out = NULL;
    session *s = sluice_arena_alloc(arena, sizeof(*s));
    if (s == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory connecting the SQL analyzer to DuckDB");
    s->idle = json_errors ? idle : NULL;
    s->db = (duckdb_database)db;
    s->conn = s->idle != NULL ? idle_take(s->idle, s->db) : NULL;
    if (s->conn == NULL) {
        sluice_status st = sluice_exec_duckdb_connect(s->db, json_errors, &s->conn, arena, err);
        if (st != SLUICE_OK) {
            session_end(s); /* lets go of the reference idle_take took */
            return st;
        }
    }
    if (sluice_arena_cleanup_add(arena, session_end, s) != SLUICE_OK) /* given back at once */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory connecting the SQL analyzer to DuckDB");
    *out = s->conn;
    return SLUICE_OK;
}

const char *sluice_executor_bind_statement_kind(void *prepared)
{
#ifdef SLUICE_DUCKDB_CPP
    return sluice_exec_duckdb_plan_statement_type((duckdb_prepared_statement)prepared);
#else
    (void)prepared; /* the 1.5 line's C API names every type itself */
    return NULL;
#endif
}
