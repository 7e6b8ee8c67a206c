/*
 * internal.h — what the files of query mode share; nothing outside src/querymode/ includes it.
 *
 * Owns: the query-mode handle's layout and one prototype per shared step: guard.c (audit, the
 * policy check), loader.c (filling a session table from a source), autoload.c (the loads a
 * query's pushdown asks for).
 */
#ifndef SLUICE_QUERYMODE_INTERNAL_H
#define SLUICE_QUERYMODE_INTERNAL_H

#include "facts/codefacts.h"
#include "lang/frontend.h"
#include "querymode/cache.h"
#include "querymode/fanout.h"
#include "querymode/http_source.h"
#include "querymode/session.h"
#include "querymode/types.h"

struct sluice_querymode {
    const sluice_config *config;
    sluice_runtime *rt;                 /* audit (NULL: none) */
    const struct sluice_policy *policy; /* NULL: none */
    sluice_qm_registry *sessions;
    sluice_qm_cache *cache;
    sluice_qm_rate *rates; /* one per config source, shared by all its loads */
    const sluice_frontend *sql;
};

/* One audit record (fields stolen); fails closed when the log cannot take it. */
sluice_status sluice_qm_audit(sluice_querymode *qm,
                              sluice_arena *arena,
                              const sluice_qm_caller *c,
                              const char *event,
                              json_t *fields,
                              sluice_error *err);

/* Cedar (or the command backend) on a Read of facts' resources_read (source names).
 * SLUICE_E_DENIED with the policy's reason; SLUICE_OK when no policy is active. */
sluice_status sluice_qm_policy_read(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    sluice_codefacts *facts,
                                    sluice_error *err);

/* The same for one source being loaded. */
sluice_status sluice_qm_policy_source(sluice_querymode *qm,
                                      sluice_arena *arena,
                                      const sluice_qm_caller *caller,
                                      const sluice_config_source *src,
                                      sluice_error *err);

const char *sluice_qm_user_of(const sluice_qm_caller *c);

/* ---- loader.c ---------------------------------------------------------------------------- */

typedef struct sluice_qm_load_spec {
    const sluice_config_source *source;
    const char *table;
    const sluice_qm_requests *requests;
    int64_t limit;        /* > 0: stop after this many rows (a query's LIMIT) */
    bool use_cache;       /* read the per-principal cache first (auto-load) */
    const char *load_key; /* recorded with the table (auto-load); NULL for `load` */
} sluice_qm_load_spec;

typedef struct sluice_qm_load_result {
    int64_t rows;
    int64_t pages;
    int64_t requests;
    bool truncated; /* a cap stopped it (a LIMIT is not truncation) */
    const char *truncated_by;
    bool cached;
    sluice_exec_column *columns;
    size_t column_count;
} sluice_qm_load_result;

/* Fills spec->table in the held session from the source (every request set, in order, into one
 * table), or from the cache; records the table on success and drops it otherwise. Progress and
 * cancellation through hooks. Errors: the source's (http_source.h), SLUICE_E_CANCELLED,
 * SLUICE_E_INVALID (no rows and no declared columns, a value that does not fit its column). */
sluice_status sluice_qm_load_source(sluice_querymode *qm,
                                    sluice_arena *arena,
                                    const sluice_qm_caller *caller,
                                    sluice_qm_session *session,
                                    const sluice_qm_load_spec *spec,
                                    const sluice_qm_hooks *hooks,
                                    sluice_qm_load_result *out,
                                    sluice_error *err);

/* ---- autoload.c -------------------------------------------------------------------------- */

/* Before sql is analysed: loads every auto_load source it names that the session does not hold
 * with the same request plan, pushing its WHERE/JOIN/IN filters and a plain LIMIT down; each
 * load is policy-checked and audited. *loaded (may be NULL) receives a JSON array describing
 * them (new reference). Errors: a missing required filter (naming the column, its operators
 * and where its values could come from), the loads' errors. */
sluice_status sluice_qm_autoload(sluice_querymode *qm,
                                 sluice_arena *arena,
                                 const sluice_qm_caller *caller,
                                 sluice_qm_session *session,
                                 const char *sql,
                                 const sluice_qm_hooks *hooks,
                                 json_t **loaded,
                                 sluice_error *err);

#endif
