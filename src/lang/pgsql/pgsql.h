/*
 * pgsql.h — the PostgreSQL-dialect SQL analyzer (libpg_query), the "sql" language when the
 * backend is engine "postgres" (lang/dialect.c chooses it).
 *
 * Owns: the public entry points of src/lang/pgsql/: analyze, canonical hash, risk.
 * Does not own: execution (exec/postgres.c), the SQL extension record, its explanation and its
 * Cedar keys (lang/sql/sql.h: shared with the DuckDB analyzer so policies and explanations read
 * the same facts whatever the engine).
 *
 * What it guarantees (docs/postgres.md): exactly one statement; its action; a canonical hash
 * from the parse tree (whitespace, comments and keyword case do not change it; literals do);
 * lineage of every output column by name resolution against the catalog the executor read at
 * start-up (views through their definitions); blocked fields never returned; blocked fields in
 * predicates only bare with = (or IS NOT DISTINCT FROM) against a base-table column, a parameter
 * or a literal, and what they are compared with blocked in turn; a function allowlist. Anything
 * it cannot resolve is refused, naming what.
 */
#ifndef SLUICE_LANG_PGSQL_PGSQL_H
#define SLUICE_LANG_PGSQL_PGSQL_H

#include "lang/frontend.h"

/* The dialect name the analyzer writes into its facts' SQL extension (sluice_sql_facts). */
#define SLUICE_PGSQL_DIALECT "postgresql"

/* Context needs: code_mode (rules, blocked fields) and schema (or executor, whose schema is
 * read). See frontend.h for the contract. */
sluice_status sluice_pgsql_analyze(sluice_arena *arena,
                                   const char *code,
                                   size_t code_len,
                                   const char *variables_json,
                                   const sluice_frontend_context *ctx,
                                   sluice_codefacts **out,
                                   sluice_error *err);

/* The hex SHA-256 of the canonical parse tree; SLUICE_E_INVALID (err with line/column) when
 * the code does not parse as exactly one statement. */
sluice_status sluice_pgsql_canonical_hash(sluice_arena *arena,
                                          const char *code,
                                          size_t code_len,
                                          const sluice_frontend_context *ctx,
                                          char out_hex[65],
                                          sluice_error *err);

/* The SQL risk rules, with any predicate on a blocked field at least high (a human sees even
 * point lookups). */
sluice_risk sluice_pgsql_risk(const sluice_codefacts *facts, const char **reason);

#endif
