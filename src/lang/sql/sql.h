/*
 * sql.h — the SQL front end (DuckDB dialect; SQLite through a mirrored DuckDB catalog).
 *
 * Owns: the public entry points of src/lang/sql/: the sluice_frontend vtable for "sql", a
 * direct analyze call, and the SQLite mirror catalog the analyzer binds SQLite code against.
 * Does not own: execution (src/exec/), the neutral risk floor (codemode/risk.h), Cedar.
 *
 * What it guarantees (docs/sql.md): exactly one statement; its action; a canonical hash that
 * ignores whitespace, comments and keyword case but not literals; base tables and columns read
 * through views, CTEs and subqueries; the lineage of every output column from DuckDB's own
 * bound plan; blocked fields never returned; a reviewed function allowlist; the
 * sql_* configuration rules. Anything it cannot analyze is refused, naming what it could not.
 */
#ifndef SLUICE_LANG_SQL_SQL_H
#define SLUICE_LANG_SQL_SQL_H

#include "lang/frontend.h"

/* The SQL extension of CodeFacts (facts->ext): what only SQL's explain and risk read. */
typedef struct sluice_sql_facts {
    sluice_codefacts_list cte_names;
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
    bool group_by_all; /* GROUP BY ALL: groups by every selected column that is not an aggregate */
    bool has_order_by;
    bool has_limit;
    int64_t limit_value; /* the literal LIMIT, -1 when absent or not a literal */
    /* The syntactic row guess (LIMIT, one aggregate row, the table's size) when DuckDB's own
     * estimate replaced it in estimated_rows; the risk rule keeps reading it, so the engine's
     * estimate can raise a read's risk but never lower it. -1 when unknown. */
    int64_t guessed_rows;
    /* "postgresql" when lang/pgsql/ made the facts (its risk rules apply); NULL: DuckDB's. */
    const char *dialect;
} sluice_sql_facts;

/* A fresh record for SQL with its extension (limit -1). NULL on NOMEM. */
sluice_codefacts *sluice_sql_facts_new(sluice_arena *arena);

/* The SQL extension of facts made by sluice_sql_facts_new, for the analyzer to fill. */
static inline sluice_sql_facts *sluice_sql_ext(const sluice_codefacts *facts)
{
    return (sluice_sql_facts *)facts->ext;
}

/* The SQL extension to read, or an empty one (limit -1) when facts have none (code refused
 * before analysis, another language). Never NULL. */
const sluice_sql_facts *sluice_sql_facts_of(const sluice_codefacts *facts);

/* The rules of [code_mode] for a change, shared by both SQL analyzers: sql_allow_writes (Write),
 * sql_allow_deletes (Delete), and sql_require_where_on_writes when needs_where (UPDATE, DELETE,
 * TRUNCATE) and the SQL extension's has_where is false. Violations into f. */
void sluice_sql_change_rules(sluice_codefacts *f,
                             const sluice_config_code_mode *cm,
                             bool needs_where);

/* The length limit both SQL analyzers apply before anything else (SLUICE_LIMIT_CODE_BYTES):
 * SLUICE_OK, or SLUICE_E_LIMIT with err naming the length and the limit. */
sluice_status sluice_sql_check_length(size_t code_len, sluice_arena *arena, sluice_error *err);

/* Names each change "<kind>_<table>" in facts->operations ("update_budget_note") unless the
 * facts name operations already. SLUICE_E_NOMEM on allocation failure. */
sluice_status sluice_sql_name_operations(sluice_codefacts *facts);

/* Complexity at or above this is "high complexity" (docs/risk.md). */
#define SLUICE_RISK_HIGH_COMPLEXITY 15
/* A read that may return more rows than this without a LIMIT is "unbounded". */
#define SLUICE_RISK_BIG_READ_ROWS 1000

/* The risk of SQL facts that were not refused (docs/risk.md); *reason names the rule. */
sluice_risk sluice_sql_risk(const sluice_codefacts *facts, const char **reason);

/* The "sql" front end. Context needs: code_mode (rules, blocked fields), and for engine duckdb
 * executor (or, without one, duckdb_database: the handle the analyzer opens its own connection
 * on; binding only, never executing); for engine sqlite, schema or executor (the schema is
 * mirrored into an in-memory DuckDB; with an executor SQLite's own reads are cross-checked). */
const sluice_frontend *sluice_sql_frontend(void);

/* The same as sluice_sql_frontend()->analyze. */
sluice_status sluice_sql_analyze(sluice_arena *arena,
                                 const char *code,
                                 size_t code_len,
                                 const char *variables_json,
                                 const sluice_frontend_context *ctx,
                                 sluice_codefacts **out,
                                 sluice_error *err);

/* The column reads SQLite's authorizer reported for the statement (SQLITE_READ table, column),
 * used to cross-check the analysis: a read the analysis did not see means the two parsers
 * disagree and the statement is refused. Adds violations to facts; OK unless out of memory. */
typedef struct sluice_sql_read {
    const char *table;
    const char *column; /* "" for a row count read (count(*)) */
} sluice_sql_read;

sluice_status sluice_sql_crosscheck_reads(sluice_codefacts *facts,
                                          const sluice_sql_read *reads,
                                          size_t read_count);

/* A business-language explanation of SQL facts ("Reads customers and orders (joined on ...),
 * ..."), allocated in arena; NULL on NOMEM. */
const char *sluice_sql_explain(sluice_arena *arena, const sluice_codefacts *facts);

/* The SQL part of code-mode://instructions (sluice_frontend.guide, lang/sql/guide.c). */
sluice_status sluice_sql_guide(sluice_arena *arena,
                               const sluice_config_code_mode *rules,
                               const char *engine_name,
                               sluice_frontend_guide *out);

#endif
