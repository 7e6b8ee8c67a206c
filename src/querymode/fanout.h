/*
 * fanout.h — from filters to requests: a source's parameter defaults, `args`, and filter terms
 * (from `load`'s `where` or pushed down from a `query`) become one or more sets of request
 * parameters. An IN list (or the values a JOIN supplies) on an "=" parameter fans out into one
 * request set per value; several lists multiply.
 *
 * Owns: which [[sources.params]] entry a term maps onto (exactly, or — when the caller re-filters
 * the rows, as `query` does — onto a wider parameter: > onto >=, < onto <=, = onto a >=/<= pair),
 * the required-filter check and its message (the column and the operators it accepts), the cap
 * on fan-out, and the canonical key of a request plan (the cache key). Does not own: parsing
 * (where.c, pushdown.c), sending the requests (http_source.c).
 */
#ifndef SLUICE_QUERYMODE_FANOUT_H
#define SLUICE_QUERYMODE_FANOUT_H

#include "config/config.h"
#include "querymode/http_source.h"
#include "querymode/where.h"

#include <jansson.h>
#include <stdbool.h>

typedef struct sluice_qm_param_set {
    sluice_qm_param *items;
    size_t count;
} sluice_qm_param_set;

typedef struct sluice_qm_requests {
    sluice_qm_param_set *sets; /* one per request fan-out combination; at least one */
    size_t count;
    bool exact;      /* every term became a parameter with its own operator */
    const char *key; /* canonical text of the whole plan (source, sorted params per set) */
} sluice_qm_requests;

/* How terms map. widen: a term may map onto a wider parameter or be left to the caller (who
 * filters the rows again); otherwise every term must map exactly or it is an error listing the
 * filters the source pushes down. label prefixes positions in messages ("where" or "query"). */
typedef struct sluice_qm_fanout_options {
    bool widen;
    const char *label;
} sluice_qm_fanout_options;

/* Builds the request plan in arena. args may be NULL or an object of declared parameter names.
 * Errors: SLUICE_E_INVALID (an undeclared or ill-typed arg, an unmapped term in exact mode, a
 * missing required filter: names the column and its operators), SLUICE_E_LIMIT (more than
 * SLUICE_LIMIT_QM_FANOUT requests), SLUICE_E_NOMEM. */
sluice_status sluice_qm_fanout(const sluice_config_source *src,
                               const json_t *args,
                               const sluice_qm_term *terms,
                               size_t term_count,
                               const sluice_qm_fanout_options *options,
                               sluice_qm_requests *out,
                               sluice_arena *arena,
                               sluice_error *err);

/* "Date >=, Date <=, Status =": the filters src pushes down (only those on column `only` when
 * it is not NULL), for messages. Never NULL. */
const char *
sluice_qm_pushable(const sluice_config_source *src, sluice_arena *arena, const char *only);

#endif
