/*
 * querymode.h — query mode: `load` a declared read source into the caller's ephemeral session
 * database, `query` it with one read-only SQL statement, list and describe what is there, drop a
 * table. Only counts and aggregates need reach the model.
 *
 * Owns: the five operations behind the MCP tools (surface/querymode_tools.c), turning `args` and
 * `where` into request parameters (pushdown of =, >=, >, <=, < onto declared params; required
 * filters), caps (max_load_rows, max_load_bytes, max_pages → truncated; query rows/bytes/timeout),
 * the per-query analysis (the SQL front end through lang/registry.h, blocked columns per source)
 * and its audit records. Does not own: HTTP (http_source.c), sessions (session.c), the engine
 * fences (exec/scratch.h), the MCP shapes.
 *
 * Threads: every operation may run concurrently; one caller's operations serialise on its
 * session.
 */
#ifndef SLUICE_QUERYMODE_QUERYMODE_H
#define SLUICE_QUERYMODE_QUERYMODE_H

#include "codemode/runtime.h"
#include "config/config.h"
#include "core/clock.h"
#include "exec/executor.h"
#include "querymode/types.h"

#include <jansson.h>
#include <stdatomic.h>

/* What query mode borrows from the CLI; every member may be NULL. */
struct sluice_policy;
typedef struct sluice_querymode_services {
    sluice_runtime *rt;                 /* its audit sink records every call (NULL: no audit) */
    const struct sluice_policy *policy; /* routes and Cedar for reads (NULL: no policy) */
    const sluice_clock *clock;          /* session TTLs and the cache (NULL: the system clock) */
} sluice_querymode_services;

/* Opens query mode for config (sources checked: column types, SQL front end present) on with's
 * services (NULL: none). The config and everything with names must outlive it.
 * SLUICE_E_CONFIG names the offending source and column. */
sluice_status sluice_querymode_open(const sluice_config *config,
                                    const sluice_querymode_services *with,
                                    sluice_querymode **out,
                                    sluice_arena *err_arena,
                                    sluice_error *err);
void sluice_querymode_close(sluice_querymode *qm);

/* One load or query call: who asks, its hooks, and where its memory and error go. The caller
 * fills it for the one call; query mode keeps nothing of it afterwards. */
typedef struct sluice_querymode_request {
    sluice_arena *arena; /* the call's memory: *text and err's message live in it */
    const sluice_qm_caller *caller;
    const sluice_qm_hooks *hooks; /* NULL: no progress, no cancellation */
    sluice_error *err;            /* what failed, for the caller's client */
} sluice_querymode_request;

/* Each fills *out (structuredContent, new reference) and *text (for the model, in the request's
 * arena). Refusals are errors (SLUICE_E_INVALID / DENIED / LIMIT / NOT_FOUND with a message saying
 * how to fix the call); SLUICE_E_NOMEM and SLUICE_E_IO (audit) fail closed. load reads the tool's
 * arguments (source, table, args, where); query runs sql. */
sluice_status sluice_querymode_load(sluice_querymode *qm,
                                    const sluice_querymode_request *in,
                                    const json_t *arguments,
                                    json_t **out,
                                    const char **text);
sluice_status sluice_querymode_query(sluice_querymode *qm,
                                     const sluice_querymode_request *in,
                                     const char *sql,
                                     json_t **out,
                                     const char **text);
sluice_status sluice_querymode_search(sluice_querymode *qm,
                                      sluice_arena *arena,
                                      const sluice_qm_caller *caller,
                                      const char *query,
                                      json_t **out,
                                      sluice_error *err);
sluice_status sluice_querymode_describe(sluice_querymode *qm,
                                        sluice_arena *arena,
                                        const sluice_qm_caller *caller,
                                        const char *table,
                                        json_t **out,
                                        sluice_error *err);
sluice_status sluice_querymode_drop(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    const char *table,
                                    json_t **out,
                                    sluice_error *err);

/* The session registry's idle expiry, for tests that move a manual clock: frees the sessions
 * idle past session_ttl_seconds and returns how many. */
size_t sluice_querymode_expire(sluice_querymode *qm);
size_t sluice_querymode_session_count(sluice_querymode *qm);

/* The MCP session transport_session closed: frees its query-mode sessions now rather than at
 * their TTL (one in use is freed when its call ends). Cannot fail. */
void sluice_querymode_session_closed(sluice_querymode *qm, const char *transport_session);

#endif
