/*
 * sql.h — the SQL front end (DuckDB dialect; SQLite through a mirrored DuckDB catalog).
 *
 * Owns: the public entry points of src/lang/sql/: the sluice_frontend vtable for "sql", a
 * direct analyze call, and the SQLite mirror catalog the analyzer binds SQLite code against.
 * Does not own: execution (src/exec/), risk (codemode/risk.h), Cedar.
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

#endif
