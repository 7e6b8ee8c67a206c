/*
 * program_store_pg.h — the saved-program store in PostgreSQL ([state] programs_postgres): one
 * store shared by every replica, so a program promoted or demoted through one is what all of
 * them list and run on their next tools/list or call.
 *
 * Owns: opening the store (state/program_store.h's ops table, kind "postgres") on the table
 * "<table>" (seq bigint primary key, line text: each line exactly as the file store writes it)
 * and its head row "<table>_head" (the line count and the hash of the last line), created when
 * missing with triggers refusing UPDATE, DELETE and TRUNCATE (state/pg_chain.h).
 * Does not own: the line contract and the version rule (program_store.h; checked the same way
 * here), what a line says or its seal (codemode/program.h).
 * Fails closed: a read is one REPEATABLE READ snapshot, so it sees whole committed appends only
 * (an append is one transaction: never half a program); a missing line, a line count or last
 * hash the head row does not vouch for, a head that went back, or a broken link fails the read
 * with what is wrong, and no saved program runs; an unreachable database fails every read and
 * append (SLUICE_E_IO naming PostgreSQL, the table and why) until it is back.
 */
#ifndef SLUICE_STATE_PROGRAM_STORE_PG_H
#define SLUICE_STATE_PROGRAM_STORE_PG_H

#include "state/program_store.h"

typedef struct sluice_program_store_pg_options {
    const char *conninfo;      /* libpq conninfo or URI, without a password */
    const char *password_file; /* or NULL */
    const char *password_env;  /* or NULL */
    const char *table;         /* a plain lower-case identifier; NULL: "sluice_programs" */
} sluice_program_store_pg_options;

/* Connects, creates the table, its head row and triggers when missing, and returns the store.
 * An append: BEGIN; lock the head row (FOR UPDATE: replicas appending at once wait for each
 * other); read and check every line; check the version; insert the line; move the head; COMMIT.
 * SLUICE_E_IO (message names PostgreSQL, the table and why) when the database cannot be reached
 * or the tables made; SLUICE_E_NOMEM. A failed append may be unknown to have committed only when
 * the connection dropped during COMMIT: the next read says which. */
sluice_status sluice_program_store_open_pg(const sluice_program_store_pg_options *options,
                                           sluice_program_store **out,
                                           sluice_arena *err_arena,
                                           sluice_error *err);

#endif
