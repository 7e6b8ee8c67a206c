/*
 * codefacts.h — CodeFacts: what a program does, as found by its language front end.
 *
 * Owns: the language-neutral fact record (action, tables, columns, output lineage, shape,
 * violations, warnings), the builders the analyzers use to fill it, and its two JSON renderings:
 * the Cedar context record and the full record for results and audit.
 * Does not own: how facts are found (src/lang/<language>/), what they mean for policy (Cedar),
 * risk (risk.h) or the explanation (each front end's explain.c).
 *
 * Ownership rule: only an analyzer writes a sluice_codefacts (through the sluice_codefacts_add_*
 * builders below); every consumer receives `const sluice_codefacts *`. Everything lives in the
 * request arena the analyzer was given; nothing is freed singly.
 */
#ifndef SLUICE_CODEMODE_CODEFACTS_H
#define SLUICE_CODEMODE_CODEFACTS_H

#include "core/arena.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The unified business action (Read < Write < Delete < Admin in severity). The numbers are
 * signed into approval tokens (token.h): append only, never renumber. */
typedef enum sluice_action {
    SLUICE_ACTION_READ = 0,
    SLUICE_ACTION_WRITE = 1,
    SLUICE_ACTION_DELETE = 2,
    SLUICE_ACTION_ADMIN = 3,
} sluice_action;

/* A growable list of distinct strings (arena-owned; order of first insertion). */
typedef struct sluice_codefacts_list {
    const char **items;
    size_t count;
    size_t cap;
} sluice_codefacts_list;

/* One result column: its name, engine type and the base columns ("table.column") it is
 * computed from. */
typedef struct sluice_codefacts_output {
    const char *name;
    const char *type;
    sluice_codefacts_list lineage;
} sluice_codefacts_output;

/* One reason the program is refused. rule is the pmcp config key or rule name
 * ("sql_allow_writes", "blocked_column", "syntax_error", ...). line/column are 1-based, 0 when
 * no place is known. */
typedef struct sluice_codefacts_violation {
    const char *rule;
    const char *message;
    const char *suggestion; /* may be NULL */
    size_t line;
    size_t column;
} sluice_codefacts_violation;

typedef struct sluice_codefacts {
    const char *language; /* "sql", "graphql", ... */
    sluice_action action;
    const char *statement_kind; /* "SELECT", "INSERT", "CREATE", ... ; "" when unparseable */
    char code_hash[65];         /* hex SHA-256 of the canonical form; "" when unparseable */
    const char *canonical;      /* the canonical form itself (for audit and tests) */

    sluice_codefacts_list tables_read; /* base tables, after views and CTEs resolve */
    sluice_codefacts_list tables_written;
    sluice_codefacts_list columns_read; /* "table.column", read anywhere */
    sluice_codefacts_output *outputs;
    size_t output_count;
    size_t output_cap;
    sluice_codefacts_list functions;  /* functions called, as written */
    sluice_codefacts_list operations; /* calledOperations (named API/tool ops; none for SQL) */
    sluice_codefacts_list cte_names;
    /* blocked fields (and columns a predicate equates with them) read but never returned */
    sluice_codefacts_list blocked_used;
    sluice_codefacts_list join_keys; /* "o.customer_id = c.id", as written */
    /* what WHERE clauses test, as written: "c.plan = 'enterprise'" for a column compared with
     * a literal, else the column name */
    sluice_codefacts_list filter_columns;

    size_t join_count;
    size_t subquery_count;
    size_t window_count;
    size_t aggregate_count;
    bool has_where;
    bool has_group_by;
    bool has_order_by;
    bool has_limit;
    /* a blocked (or tainted) field is compared, grouped or tested in a predicate, even in an
     * allowed way (docs/security.md): risk is at least high */
    bool blocked_in_predicate;
    int64_t limit_value;    /* the literal LIMIT, -1 when absent or not a literal */
    int64_t estimated_rows; /* -1 when unknown */
    /* Documented score (docs/risk.md): joins*3 + subqueries*3 + windows*2 + aggregates
     * + ctes*2 + tables. */
    int64_t complexity;

    sluice_codefacts_violation *violations;
    size_t violation_count;
    size_t violation_cap;
    sluice_codefacts_list warnings;

    sluice_arena *arena; /* where everything above lives */
} sluice_codefacts;

/* A fresh, empty record for language in arena (action Read, limit/rows -1). NULL on NOMEM. */
sluice_codefacts *sluice_codefacts_new(sluice_arena *arena, const char *language);

/* "Read" | "Write" | "Delete" | "Admin" — the Cedar action ids. */
const char *sluice_action_name(sluice_action action);

/* True when the analysis found at least one violation: the program must not run. */
bool sluice_codefacts_refused(const sluice_codefacts *facts);

/* Builders (analyzers only). Each copies its strings into the facts' arena and returns
 * SLUICE_E_NOMEM on allocation failure, leaving the record consistent. */
sluice_status
sluice_codefacts_list_add(sluice_codefacts *facts, sluice_codefacts_list *list, const char *s);
bool sluice_codefacts_list_has(const sluice_codefacts_list *list, const char *s);

/* Adds an output column; *out points at it (valid until the next add_output). */
sluice_status sluice_codefacts_add_output(sluice_codefacts *facts,
                                          const char *name,
                                          const char *type,
                                          sluice_codefacts_output **out);

/* Adds a violation. suggestion may be NULL; line/column 0 when unknown. The message is
 * formatted printf-style. */
sluice_status sluice_codefacts_violate(sluice_codefacts *facts,
                                       const char *rule,
                                       size_t line,
                                       size_t column,
                                       const char *suggestion,
                                       const char *fmt,
                                       ...) __attribute__((format(printf, 6, 7)));

/* Adds a formatted warning. */
sluice_status sluice_codefacts_warn(sluice_codefacts *facts, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The Cedar context record: {"script": {statementType, action, outputFields, outputNames,
 * calledOperations, functions, tables, tablesWritten, columns, joinCount, subqueryCount,
 * hasWhere, hasLimit, hasAggregation, complexity, [limit], [estimatedRows]}}.
 * outputFields holds, for every output column, each base column it is computed from in both
 * "table.column" and bare "column" form, so `outputFields.containsAny(blocked)` matches either
 * way blocked fields are written. New reference (caller decrefs); NULL on NOMEM. */
json_t *sluice_codefacts_cedar_context(const sluice_codefacts *facts);

/* The whole record as JSON (validate_code metadata, audit). New reference; NULL on NOMEM. */
json_t *sluice_codefacts_to_json(const sluice_codefacts *facts);

#endif
