/*
 * pushdown.h — what a `query` asks of its sources: from the statement's parse tree, for each
 * table that names an auto-loadable source, the filters that can become request parameters.
 *
 * Owns: reading the parse tree (DuckDB's json_serialize_sql shape) of every SELECT in the
 * statement — WHERE conjuncts and INNER JOIN conditions of the form column op constant,
 * column IN (constants), column BETWEEN constants, and, for required filters that arrive from
 * another table, column = other.column (a JOIN) or column IN (SELECT col FROM other), whose
 * values the caller fans out; a plain top-level LIMIT that may stop paging. Sources named more
 * than once with different filters are marked (one table cannot hold both). Does not own:
 * mapping terms onto parameters (fanout.c), loading (querymode.c), whether the statement may
 * run at all (the SQL analysis that follows).
 *
 * Every term found is one conjunct the query applies again to the loaded rows, so loading a
 * superset is always correct; LIMIT is only passed on when the query is a plain projection of
 * one source whose every WHERE conjunct became a term.
 */
#ifndef SLUICE_QUERYMODE_PUSHDOWN_H
#define SLUICE_QUERYMODE_PUSHDOWN_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "querymode/where.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Deepest parse tree walked (deeper statements simply get no pushdown). */
#define SLUICE_QM_PUSHDOWN_MAX_DEPTH 200u
/* Most auto-loaded sources one query may name. */
#define SLUICE_QM_PUSHDOWN_MAX_SOURCES 16u
/* Most terms gathered for one source. */
#define SLUICE_QM_PUSHDOWN_MAX_TERMS 64u

typedef struct sluice_qm_need {
    const sluice_config_source *source;
    sluice_qm_term *terms; /* values NULL where from_table is set (resolved by the caller) */
    const char **from_table;
    const char **from_column;
    /* per term: the other table's own constant filters (its WHERE / ON conjuncts, or the IN
     * subquery's), which narrow the values handed over */
    const sluice_qm_term **from_filters;
    size_t *from_filter_count;
    size_t term_count;
    int64_t limit; /* > 0: the loader may stop after this many rows */
    size_t refs;   /* how many times the statement names the source */
    bool conflict; /* named again with other filters: no term applies */
} sluice_qm_need;

typedef struct sluice_qm_pushdown_env {
    /* The auto-loadable source table names (NULL: not one — a session table or unknown). */
    const sluice_config_source *(*source_of)(void *ctx, const char *table);
    /* 1 when table has column, 0 when it has not, -1 when unknown. */
    int (*has_column)(void *ctx, const char *table, const char *column);
    void *ctx;
} sluice_qm_pushdown_env;

/* The needs of tree (sluice_scratch_parse's node; NULL gives none), in arena, in the order the
 * sources first appear. SLUICE_E_LIMIT past SLUICE_QM_PUSHDOWN_MAX_SOURCES; SLUICE_E_NOMEM. */
sluice_status sluice_qm_pushdown(const json_t *tree,
                                 const sluice_qm_pushdown_env *env,
                                 sluice_qm_need **needs,
                                 size_t *count,
                                 sluice_arena *arena,
                                 sluice_error *err);

#endif
