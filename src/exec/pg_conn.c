/*
 * pg_conn.c — PostgreSQL connections: one pool per role (the read role, and the write role when
 * configured), each with its conninfo and the password read from a file or the environment;
 * opening one (application_name = sluice, UTC), the small pool of idle ones, and running
 * sluice's own fixed SQL on them.
 *
 * Owns: the rule that a connection goes back to the pool only after DISCARD ALL succeeded (so a
 * session setting, advisory lock or LISTEN a statement managed to leave behind never reaches the
 * next call) and only when the caller says its state is known.
 * Does not own: transactions and statements (postgres.c).
 */
#include "core/limits.h"
#include "core/secret_text.h"
#include "exec/pg_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sluice_status sluice_pg_pool_init(pg_pool *pool,
                                  const char *conninfo,
                                  const char *password_file,
                                  const char *password_env,
                                  size_t size,
                                  sluice_arena *arena,
                                  sluice_error *err)
{
    memset(pool, 0, sizeof(*pool));
    pthread_mutex_init(&pool->lock, NULL);
    pool->size = size;
    pool->idle = calloc(size, sizeof(*pool->idle));
    pool->conninfo = strdup(conninfo);
    if (pool->idle == NULL || pool->conninfo == NULL)
        return SLUICE_E_NOMEM;
    return sluice_secret_text_read("[database]", password_file, password_env, &pool->password,
                                   arena, err);
}

void sluice_pg_pool_free(pg_pool *pool)
{
    for (size_t i = 0; i < pool->idle_count; i++)
        PQfinish(pool->idle[i]);
    pool->idle_count = 0;
    pthread_mutex_destroy(&pool->lock);
    free(pool->idle);
    if (pool->password != NULL)
        explicit_bzero(pool->password, strlen(pool->password));
    free(pool->password);
    free(pool->conninfo);
    memset(pool, 0, sizeof(*pool));
}

/* libpq's error text without the trailing newline, in arena. */
static const char *conn_message(PGconn *conn, sluice_arena *arena)
{
    const char *m = conn != NULL ? PQerrorMessage(conn) : "out of memory";
    size_t n = strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
        n--;
    const char *copy = sluice_arena_strndup(arena, m, n);
    return copy != NULL ? copy : "unknown error";
}

static sluice_status connect_new(pg_pool *s, PGconn **out, sluice_arena *arena, sluice_error *err)
{
    /* dbname first and expanded: the later keywords override what conninfo says. */
    const char *keys[] = { "dbname", "application_name", "options", "password", NULL };
    const char *values[] = { s->conninfo, "sluice", "-c TimeZone=UTC", s->password, NULL };
    PGconn *conn = PQconnectdbParams(keys, values, 1);
    if (conn == NULL || PQstatus(conn) != CONNECTION_OK) {
        sluice_status st =
            sluice_error_set(err, arena, SLUICE_E_ENGINE, "cannot connect to PostgreSQL: %s",
                             conn_message(conn, arena));
        PQfinish(conn);
        return st;
    }
    *out = conn;
    return SLUICE_OK;
}

sluice_status sluice_pg_conn_take(pg_pool *s, PGconn **out, sluice_arena *arena, sluice_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->idle_count > 0)
        *out = s->idle[--s->idle_count];
    pthread_mutex_unlock(&s->lock);
    if (*out != NULL && PQstatus(*out) == CONNECTION_OK &&
        PQtransactionStatus(*out) == PQTRANS_IDLE)
        return SLUICE_OK;
    PQfinish(*out);
    *out = NULL;
    return connect_new(s, out, arena, err);
}

void sluice_pg_conn_give(pg_pool *s, PGconn *conn, bool reusable)
{
    if (conn == NULL)
        return;
    if (reusable && PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) == PQTRANS_IDLE) {
        PGresult *r = PQexec(conn, "DISCARD ALL");
        reusable = r != NULL && PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    } else {
        reusable = false;
    }
    pthread_mutex_lock(&s->lock);
    if (reusable && s->idle_count < s->size) {
        s->idle[s->idle_count++] = conn;
        conn = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    PQfinish(conn);
}

sluice_status sluice_pg_run(PGconn *conn, const char *sql, sluice_arena *arena, sluice_error *err)
{
    PGresult *r = PQexec(conn, sql);
    ExecStatusType rs = r != NULL ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    sluice_status st = SLUICE_OK;
    if (rs != PGRES_COMMAND_OK && rs != PGRES_TUPLES_OK)
        st = sluice_error_set(err, arena, SLUICE_E_ENGINE, "PostgreSQL refused \"%s\": %s", sql,
                              conn_message(conn, arena));
    PQclear(r);
    return st;
}
