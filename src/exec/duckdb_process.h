/*
 * duckdb_process.h — the DuckDB table functions that act on the whole server process.
 *
 * Owns: their names, for the executor's guard (exec/duckdb.c, which refuses a statement naming or
 * planning one) and for the bind unit (exec/duckdb_plan.cpp, which makes each run a refusal
 * inside the database itself).
 * Does not own: the analyzer's own list (lang/sql/functions.c classifies them as changing state).
 */
#ifndef SLUICE_EXEC_DUCKDB_PROCESS_H
#define SLUICE_EXEC_DUCKDB_PROCESS_H

/* Table functions that act on the whole process rather than return data. In 1.5.6
 * `SELECT * FROM enable_logging(storage='file', ...)` aborts the process (research D4) and
 * storage='stdout' prints every later query: no SELECT may reach them, analyzer or not. */
#define SLUICE_DUCKDB_PROCESS_FUNCTIONS 3
static const char *const sluice_duckdb_process_functions[SLUICE_DUCKDB_PROCESS_FUNCTIONS] = {
    "enable_logging",
    "disable_logging",
    "truncate_duckdb_logs",
};

#endif
