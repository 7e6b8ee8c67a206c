/*
 * pg_chain.c — the PostgreSQL plumbing of the shared append-only stores (see pg_chain.h).
 */
#include "state/pg_chain.h"

#include <stdio.h>
#include <string.h>

#define CONNECT_TIMEOUT_S "5"
#define DDL_MAX           8192u

PGconn *sluice_pg_chain_connect(const char *conninfo, const char *password, const char *application)
{
    /* the password last: without one, the list ends before it and libpq finds PGPASSWORD or
     * .pgpass itself (a NULL key ends the list, so it cannot sit in the middle) */
    const char *keys[] = { "dbname", "application_name", "connect_timeout", "password", NULL };
    const char *values[] = { conninfo, application, CONNECT_TIMEOUT_S, password, NULL };
    if (password == NULL)
        keys[3] = NULL;
    return PQconnectdbParams(keys, values, 1); /* the caller checks PQstatus */
}

/* The first line of c's last error. */
static void last_error(PGconn *c, const char *fallback, char *why, size_t cap)
{
    snprintf(why, cap, "%s",
             c != NULL && PQerrorMessage(c)[0] != '\0' ? PQerrorMessage(c) : fallback);
    why[strcspn(why, "\n")] = '\0';
}

bool sluice_pg_chain_ensure(PGconn **conn,
                            const char *conninfo,
                            const char *password,
                            const char *application,
                            char *why,
                            size_t cap)
{
    if (*conn != NULL && PQstatus(*conn) == CONNECTION_OK)
        return true;
    if (*conn != NULL)
        PQfinish(*conn);
    *conn = sluice_pg_chain_connect(conninfo, password, application);
    if (*conn != NULL && PQstatus(*conn) == CONNECTION_OK)
        return true;
    char reason[400];
    last_error(*conn, "out of memory", reason, sizeof reason);
    snprintf(why, cap, "cannot connect: %s", reason);
    if (*conn != NULL)
        PQfinish(*conn);
    *conn = NULL;
    return false;
}

bool sluice_pg_chain_exec(PGconn *c, const char *sql, char *why, size_t cap)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    bool ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
    if (!ok)
        last_error(c, "out of memory", why, cap);
    PQclear(r);
    return ok;
}

void sluice_pg_chain_rollback(PGconn *c)
{
    PQclear(PQexec(c, "ROLLBACK"));
}

bool sluice_pg_chain_names(PGconn *c, const char *table, char *q, char *qh, size_t cap)
{
    char head[SLUICE_PG_CHAIN_NAME_CAP];
    snprintf(head, sizeof head, "%s_head", table);
    char *a = PQescapeIdentifier(c, table, strlen(table));
    char *b = PQescapeIdentifier(c, head, strlen(head));
    bool ok = a != NULL && b != NULL && strlen(a) < cap && strlen(b) < cap;
    if (ok) {
        snprintf(q, cap, "%s", a);
        snprintf(qh, cap, "%s", b);
    }
    PQfreemem(a);
    PQfreemem(b);
    return ok;
}

/* True when the table and its head exist already. */
static bool tables_exist(PGconn *c, const char *table)
{
    char head[SLUICE_PG_CHAIN_NAME_CAP];
    snprintf(head, sizeof head, "%s_head", table);
    const char *params[] = { table, head };
    PGresult *r = PQexecParams(c,
                               "SELECT to_regclass(quote_ident($1)) IS NOT NULL AND "
                               "to_regclass(quote_ident($2)) IS NOT NULL",
                               2, NULL, params, NULL, NULL, 0);
    bool yes = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
               strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    return yes;
}

bool sluice_pg_chain_create(PGconn *c, const char *table, const char *what, char *why, size_t cap)
{
    if (tables_exist(c, table))
        return true;
    char q[SLUICE_PG_CHAIN_NAME_CAP], qh[SLUICE_PG_CHAIN_NAME_CAP], fname[SLUICE_PG_CHAIN_NAME_CAP];
    snprintf(fname, sizeof fname, "%s_append_only", table);
    char *fn = PQescapeIdentifier(c, fname, strlen(fname));
    char *refusal = NULL, *lock = NULL;
    char text[256];
    snprintf(text, sizeof text, "%s is append-only", what);
    bool ok = fn != NULL && sluice_pg_chain_names(c, table, q, qh, sizeof q) &&
              (refusal = PQescapeLiteral(c, text, strlen(text))) != NULL &&
              (lock = PQescapeLiteral(c, table, strlen(table))) != NULL;
    if (!ok) {
        snprintf(why, cap, "the table name is too long (or memory ran out)");
    } else {
        char sql[DDL_MAX];
        snprintf(sql, sizeof sql,
                 "BEGIN;"
                 "SET LOCAL client_min_messages = warning;"
                 "SELECT pg_advisory_xact_lock(hashtext(%s));"
                 "CREATE TABLE IF NOT EXISTS %s (seq bigint PRIMARY KEY CHECK (seq > 0), "
                 "line text NOT NULL);"
                 "CREATE TABLE IF NOT EXISTS %s (id int PRIMARY KEY CHECK (id = 1), "
                 "seq bigint NOT NULL, hash text NOT NULL);"
                 "INSERT INTO %s VALUES (1, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;"
                 "CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS "
                 "$f$BEGIN RAISE EXCEPTION %s; END$f$;"
                 "CREATE OR REPLACE TRIGGER append_only_rows BEFORE UPDATE OR DELETE ON %s "
                 "FOR EACH ROW EXECUTE FUNCTION %s();"
                 "CREATE OR REPLACE TRIGGER append_only_truncate BEFORE TRUNCATE ON %s "
                 "FOR EACH STATEMENT EXECUTE FUNCTION %s();"
                 "COMMIT;",
                 lock, q, qh, qh, fn, refusal, q, fn, q, fn);
        ok = sluice_pg_chain_exec(c, sql, why, cap);
        if (!ok)
            sluice_pg_chain_rollback(c);
    }
    PQfreemem(fn);
    PQfreemem(refusal);
    PQfreemem(lock);
    return ok;
}
