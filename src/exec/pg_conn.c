/*
 * pg_conn.c — PostgreSQL connections: opening one (conninfo plus the password from the state,
 * application_name = sluice, UTC), the small pool of idle ones, and running sluice's own fixed
 * SQL on them.
 *
 * Owns: the rule that a connection goes back to the pool only after DISCARD ALL succeeded (so a
 * session setting, advisory lock or LISTEN a statement managed to leave behind never reaches the
 * next call) and only when the caller says its state is known.
 * Does not own: transactions and statements (postgres.c).
 */
#include "exec/pg_internal.h"

#include <stdlib.h>
#include <string.h>

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

static sluice_status connect_new(pg_state *s, PGconn **out, sluice_arena *arena, sluice_error *err)
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

sluice_status sluice_pg_conn_take(pg_state *s, PGconn **out, sluice_arena *arena, sluice_error *err)
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

void sluice_pg_conn_give(pg_state *s, PGconn *conn, bool reusable)
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
    if (reusable && s->idle_count < s->pool_size) {
        s->idle[s->idle_count++] = conn;
        conn = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    PQfinish(conn);
}

void sluice_pg_conn_close_all(pg_state *s)
{
    for (size_t i = 0; i < s->idle_count; i++)
        PQfinish(s->idle[i]);
    s->idle_count = 0;
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
