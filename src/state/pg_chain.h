/*
 * pg_chain.h — the PostgreSQL plumbing two shared stores have in common: the audit trail
 * (audit_pg.c) and the saved-program store (program_store_pg.c). Each keeps an append-only table
 * of text lines ("<table>": seq bigint primary key, line text) and its head row ("<table>_head":
 * id 1, the last seq and the hash of the last line), over one connection that is re-opened after
 * a failure.
 *
 * Owns: connecting (connect timeout, application_name, the password passed apart from the
 * conninfo), quoting the two table names, creating what is missing (both tables, the head row
 * and the triggers that refuse UPDATE, DELETE and TRUNCATE on the lines), running a statement
 * and ending a failed transaction. Does not own: what a line holds, how it is linked, or the
 * locking discipline of an append (each store's own file says it). Every function that can fail
 * writes the reason into why (at most cap bytes, one line) for the store's own message.
 */
#ifndef SLUICE_STATE_PG_CHAIN_H
#define SLUICE_STATE_PG_CHAIN_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>

/* Room for a quoted table name (a plain identifier of at most 63 bytes, plus "_head"). */
#define SLUICE_PG_CHAIN_NAME_CAP 160u

/* A new connection (check PQstatus); password NULL lets libpq find PGPASSWORD / .pgpass. */
PGconn *
sluice_pg_chain_connect(const char *conninfo, const char *password, const char *application);

/* *conn when it is live; else a fresh connection in *conn, or false with why (and *conn NULL). */
bool sluice_pg_chain_ensure(PGconn **conn,
                            const char *conninfo,
                            const char *password,
                            const char *application,
                            char *why,
                            size_t cap);

/* Runs sql (no parameters); true when it returned tuples or a command status. */
bool sluice_pg_chain_exec(PGconn *c, const char *sql, char *why, size_t cap);

/* Ends a failed transaction; on a lost connection there is nothing left to end. */
void sluice_pg_chain_rollback(PGconn *c);

/* The quoted names of table and of its head (PQescapeIdentifier), each of at most cap bytes. */
bool sluice_pg_chain_names(PGconn *c, const char *table, char *q, char *qh, size_t cap);

/* Creates the table, its head row and the append-only triggers when they are missing, under a
 * transaction-scoped advisory lock so replicas starting at once do not race in CREATE. what
 * names the table in the triggers' refusal ("the sluice audit table" -> "... is append-only").
 * When both tables exist already no DDL runs, so a role with only SELECT/INSERT/UPDATE grants
 * can append to tables an administrator created. */
bool sluice_pg_chain_create(PGconn *c, const char *table, const char *what, char *why, size_t cap);

#endif
