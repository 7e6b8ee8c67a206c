/*
 * session.h — query mode's per-caller sessions: one hardened scratch database each, keyed by
 * principal + server + transport session, with an idle TTL from the injectable clock, a spill
 * folder of its own, and caps on sessions per principal and in total.
 *
 * Owns: the registry, creation (folder mode 0700, database via exec/scratch.h), lookup with the
 * TTL refreshed on use, expiry (lazily, on every registry call, so no timer thread exists and a
 * test moves a manual clock instead of sleeping), the list of tables a session holds.
 * Does not own: what is loaded or queried (querymode.c).
 *
 * Threads: the registry has a mutex; a session has its own lock, held by the one call using it.
 * A session in use is never freed: expiry skips it and it is freed when released, if expired.
 */
#ifndef SLUICE_QUERYMODE_SESSION_H
#define SLUICE_QUERYMODE_SESSION_H

#include "config/config.h"
#include "core/arena.h"
#include "core/clock.h"
#include "core/error.h"
#include "exec/executor.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_qm_registry sluice_qm_registry;

/* One table of a session: where it came from and what it holds. Strings in the session. */
typedef struct sluice_qm_table {
    const char *name;
    const char *source; /* the [[sources]] name */
    int64_t row_count;
    sluice_exec_column *columns;
    size_t column_count;
    const sluice_strlist *blocked; /* the source's blocked_columns (config-owned) */
    const char *load_key; /* auto-loaded by a query: the request plan it holds; NULL: `load` */
} sluice_qm_table;

typedef struct sluice_qm_session {
    sluice_executor *db;
    sluice_arena *arena; /* lives as long as the session */
    sluice_qm_table *tables;
    size_t table_count;
    size_t table_cap;
    /* private below */
    char *key;
    char *user;
    char *transport; /* the MCP session id part of the key */
    bool closed;     /* its MCP session ended while in use: freed on release */
    char spill_dir[600];
    int64_t last_used_ms;
    int refs;
    pthread_mutex_t lock;
} sluice_qm_session;

/* A registry for qm (copied values; clock may be NULL for the system clock and must outlive it).
 * SLUICE_E_NOMEM. */
sluice_status sluice_qm_registry_new(const sluice_config_query_mode *qm,
                                     const sluice_clock *clock,
                                     sluice_qm_registry **out);
/* Frees every session (none may be in use). NULL does nothing. */
void sluice_qm_registry_free(sluice_qm_registry *r);

/* The caller's session, created when absent, with its TTL refreshed; the caller holds it (and
 * its lock) until sluice_qm_release. Errors: SLUICE_E_LIMIT (max_sessions or
 * max_sessions_per_principal, message says which), SLUICE_E_IO (spill folder), the scratch
 * open's errors. Strings of err in arena. */
sluice_status sluice_qm_acquire(sluice_qm_registry *r,
                                const char *user,
                                const char *server,
                                const char *transport_session,
                                sluice_qm_session **out,
                                sluice_arena *arena,
                                sluice_error *err);

/* As acquire, but never creates: SLUICE_E_NOT_FOUND when the caller has no live session. */
sluice_status sluice_qm_find(sluice_qm_registry *r,
                             const char *user,
                             const char *server,
                             const char *transport_session,
                             sluice_qm_session **out);

/* Ends a use: refreshes the TTL and unlocks. */
void sluice_qm_release(sluice_qm_registry *r, sluice_qm_session *s);

/* When the session expires if unused from now: wall-clock milliseconds since the epoch. */
int64_t sluice_qm_expires_at_ms(const sluice_qm_registry *r, const sluice_qm_session *s);

/* The MCP session transport_session ended: frees every query-mode session keyed by it (tables,
 * database, spill folder), whatever the user. One in use is marked and freed by its last
 * release; lookups no longer find it. Returns how many were freed or marked. Cannot fail. */
size_t sluice_qm_close_transport(sluice_qm_registry *r, const char *transport_session);

/* Frees every idle session past its TTL; returns how many. Also runs inside acquire and find. */
size_t sluice_qm_expire(sluice_qm_registry *r);

/* Live sessions (for tests and diagnostics). */
size_t sluice_qm_session_count(sluice_qm_registry *r);

/* The session's table named name (case-insensitive), or NULL. */
sluice_qm_table *sluice_qm_table_find(sluice_qm_session *s, const char *name);
/* Records (or replaces) a table; the strings and columns are copied. SLUICE_E_NOMEM. */
sluice_status sluice_qm_table_put(sluice_qm_session *s, const sluice_qm_table *t);
/* Forgets a table (the caller dropped it from the database). */
void sluice_qm_table_remove(sluice_qm_session *s, const char *name);

#endif
