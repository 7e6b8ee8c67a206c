/*
 * codefacts.h — CodeFacts: what a program does, as found by its language front end.
 *
 * Owns: the language-neutral fact record (action, resources read and written, fields read,
 * operations called, output lineage, complexity figures, violations, warnings), the slot for a
 * language's own extension, the builders the analyzers use to fill it, and its two JSON
 * renderings: the Cedar context record and the full record for results and audit.
 * Does not own: how facts are found (src/lang/<language>/), what they mean for policy (Cedar),
 * risk or the explanation (each front end's own, through the language registry), or policy's
 * verdict (verdict.h). A leaf: it includes nothing of lang/, policy/ or codemode/.
 *
 * Ownership rule: only an analyzer writes a sluice_codefacts (through the sluice_codefacts_add_*
 * builders below); every consumer receives `const sluice_codefacts *`. Everything lives in the
 * request arena the analyzer was given; nothing is freed singly.
 */
#ifndef SLUICE_FACTS_CODEFACTS_H
#define SLUICE_FACTS_CODEFACTS_H

#include "core/arena.h"
#include "core/json_write.h"

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

/* Whose estimate a program has (issue 24). The two PLAN kinds come from the engine's planner
 * over the data's statistics: they move when the data does, with the same code and schema, so
 * execute makes them again (token.h: estimate_live). The others follow from the code and the
 * schema alone. */
typedef enum sluice_estimate_kind {
    SLUICE_ESTIMATE_NONE = 0,
    SLUICE_ESTIMATE_PLAN_COST = 1,    /* PostgreSQL: rows of the top node, planner cost units */
    SLUICE_ESTIMATE_PLAN_ROWS = 2,    /* DuckDB: cardinality; cost = rows through every operator */
    SLUICE_ESTIMATE_GRAPHQL_COST = 3, /* cost = one per field times the list sizes above it */
    SLUICE_ESTIMATE_CALL_BOUND = 4,   /* a plan: cost = its static bound of upstream calls */
} sluice_estimate_kind;

typedef struct sluice_codefacts {
    const char *language; /* "sql", "graphql", ... */
    sluice_action action;
    const char *statement_kind; /* "SELECT", "INSERT", "CREATE", ... ; "" when unparseable */
    char code_hash[65];         /* hex SHA-256 of the canonical form; "" when unparseable */
    const char *canonical;      /* the canonical form itself (for audit and tests) */

    /* What the program reads and changes, in its language's terms: base tables (after views and
     * CTEs resolve), API operations' resources, GraphQL types, MCP tools. */
    sluice_codefacts_list resources_read;
    sluice_codefacts_list resources_written;
    sluice_codefacts_list fields_read; /* "resource.field", read anywhere */
    sluice_codefacts_output *outputs;
    size_t output_count;
    size_t output_cap;
    sluice_codefacts_list functions; /* functions called, as written */
    /* calledOperations: named API/tool operations; SQL names a change "<kind>_<table>" */
    sluice_codefacts_list operations;
    /* blocked fields (and columns a predicate equates with them) read but never returned */
    sluice_codefacts_list blocked_used;
    /* a blocked (or tainted) field is compared, grouped or tested in a predicate, even in an
     * allowed way (docs/security.md): risk is at least high */
    bool blocked_in_predicate;
    /* The analyzer proved the program cannot build values larger than its inputs, so the
     * engine's own memory and time limits govern it and the executor may run it without an
     * outer process bound (SQL: lang/sql/amplify.c). False whenever unsure. */
    bool engine_bounded;

    /* Complexity figures, each 0 when the language has no such thing. */
    int64_t estimated_rows; /* -1 when unknown */
    /* The estimate validate_code reports (issue 24: cost known before approval), made before
     * anything runs; estimate_kind says whose it is and in which unit estimated_cost counts
     * (codemode/estimate.h words it, limits it, binds it into the token). -1 when none. */
    double estimated_cost;
    sluice_estimate_kind estimate_kind;
    const char *estimate_engine; /* "PostgreSQL", "DuckDB": static, NULL for non-plan kinds */
    int64_t complexity;          /* the language's documented score (docs/risk.md) */
    size_t depth;                /* deepest nesting (selection sets, subqueries, blocks) */
    size_t call_count;           /* upstream calls the program may make */
    size_t loop_count;           /* loops in the program */

    sluice_codefacts_violation *violations;
    size_t violation_count;
    size_t violation_cap;
    sluice_codefacts_list warnings;
    /* Sticky: a builder failed (a fact or a violation may be missing) or the analyzer could not
     * finish. An incomplete record is refused whatever else it says (fail closed). */
    bool incomplete;

    /* The language's own facts (e.g. sluice_sql_facts): only that language's explain and risk
     * read them; ext_ops renders them. NULL when the analysis stopped before it had any. */
    void *ext;
    const struct sluice_codefacts_ext_ops *ext_ops;

    sluice_arena *arena; /* where everything above lives */
} sluice_codefacts;

/* How a language's extension joins the two JSON renderings. cedar_context adds its keys to the
 * script object and returns false on allocation failure (the context then fails: NULL);
 * write_json writes its members of the full record's text (each key then its value) into out,
 * whose failures are sticky (the record then fails). */
typedef struct sluice_codefacts_ext_ops {
    bool (*cedar_context)(const sluice_codefacts *facts, json_t *script);
    void (*write_json)(const sluice_codefacts *facts, sluice_json_out *out);
    /* A deep copy of facts->ext in arena (sluice_codefacts_copy); NULL on NOMEM. A language
     * without one has facts that cannot be copied (or cached). */
    void *(*copy)(const sluice_codefacts *facts, sluice_arena *arena);
} sluice_codefacts_ext_ops;

/* A fresh, empty record for language in arena (action Read, estimated rows -1, no extension).
 * NULL on NOMEM. */
sluice_codefacts *sluice_codefacts_new(sluice_arena *arena, const char *language);

/* "Read" | "Write" | "Delete" | "Admin" — the Cedar action ids. */
const char *sluice_action_name(sluice_action action);

/* True when the analysis found at least one violation, or is incomplete (a builder failed,
 * the analyzer gave up, or the arena lost an allocation): the program must not run. */
bool sluice_codefacts_refused(const sluice_codefacts *facts);

/* Builders (analyzers only). Each copies its strings into the facts' arena and returns
 * SLUICE_E_NOMEM on allocation failure, leaving the record consistent and marked incomplete
 * (so a caller that ignores the status still refuses). */
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

/* The Cedar context record: {"script": {language, statementType, action, outputFields,
 * outputNames, calledOperations, functions, tables, tablesWritten, columns, complexity,
 * [estimatedRows], and the extension's keys}}. The names do not change per language: "tables"
 * are the resources read, "columns" the fields read.
 * outputFields holds, for every output column, each base column it is computed from in both
 * "table.column" and bare "column" form, so `outputFields.containsAny(blocked)` matches either
 * way blocked fields are written. New reference (caller decrefs); NULL on NOMEM. */
json_t *sluice_codefacts_cedar_context(const sluice_codefacts *facts);

/* A deep copy of facts — every string, list, output, violation and the extension — in arena
 * (codefacts_copy.c), so it outlives the arena facts live in. NULL on NOMEM, or when the
 * extension has no copy hook. */
sluice_codefacts *sluice_codefacts_copy(const sluice_codefacts *facts, sluice_arena *arena);

/* Copies list's strings into arena as *out; SLUICE_E_NOMEM on failure (for extension copiers). */
sluice_status sluice_codefacts_list_copy(sluice_arena *arena,
                                         const sluice_codefacts_list *list,
                                         sluice_codefacts_list *out);

/* A list as a JSON array of strings. New reference; NULL on NOMEM. */
json_t *sluice_codefacts_list_json(const sluice_codefacts_list *list);

/* A list as a JSON array of strings written into out (for extensions' write_json). */
void sluice_codefacts_list_write(sluice_json_out *out, const sluice_codefacts_list *list);

/* The whole record as compact JSON text appended to buf: {language, action, statementType,
 * codeHash, tablesRead, tablesWritten, columnsRead, outputs, functions, calledOperations,
 * blockedFieldsUsedOnlyInternally, blockedFieldInPredicate, estimatedRows, estimatedCost,
 * estimateEngine, complexity, depth, callCount, loopCount, the extension's members, violations,
 * warnings}. SLUICE_E_INVALID when a string is missing or not UTF-8, else buf's status. */
sluice_status sluice_codefacts_write_json(const sluice_codefacts *facts, sluice_buf *buf);

/* The record's text as a splice placeholder (core/json_splice.h), as validate_code's answer
 * carries its metadata: the MCP writer sends the text, json_dumps refuses it. The text is written
 * in arena (a request's: no malloc and realloc as it grows) and stays there: the placeholder
 * borrows it, so it must be released before arena is freed or reset. New reference; NULL on
 * NOMEM or when the text could not be written. */
json_t *sluice_codefacts_json_splice(const sluice_codefacts *facts, sluice_arena *arena);

/* The same record as a tree (its text parsed: one rendering), for readers of its members (the
 * approval summary, the admin API, tests). New reference; NULL on NOMEM. */
json_t *sluice_codefacts_to_json(const sluice_codefacts *facts);

#endif
