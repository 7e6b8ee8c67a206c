/*
 * duckdb_plan.h — binding a statement once through DuckDB's C++ API (exec/duckdb_plan.cpp, the
 * only C++ file; issue 23, docs/architecture.md "Binding once"), and the per-connection
 * hardening the C API cannot give on DuckDB 1.4.
 *
 * Built only with -DSLUICE_DUCKDB_CPP=ON, against the C++ headers of exactly the release of the
 * libduckdb.so it links (CMake refuses another pair): DuckDB's C++ API has no stable ABI.
 *
 * Owns: translating DuckDB's bound logical plan into sluice's own arena-allocated tree — every
 * operator, expression and statement class named as json_serialize_plan names it (DuckDB's
 * EnumUtil), never judged. Does not own:
 * deciding anything from the tree (lang/sql's walker is the fail-closed allowlist: a class it
 * does not know is refused there, by name).
 */
#ifndef SLUICE_EXEC_DUCKDB_PLAN_H
#define SLUICE_EXEC_DUCKDB_PLAN_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/arena.h"
#include "core/error.h"

#include <duckdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest operator or expression nesting translated; deeper plans are refused (SLUICE_E_LIMIT)
 * rather than walked on the C++ stack. */
#define SLUICE_DUCKDB_PLAN_MAX_DEPTH 256

/* No binding / index: DuckDB's own DConstants::INVALID_INDEX. */
#define SLUICE_DUCKDB_PLAN_NONE UINT64_MAX

typedef struct sluice_duckdb_expr sluice_duckdb_expr;
struct sluice_duckdb_expr {
    const char *cls;  /* "BOUND_FUNCTION", "BOUND_REF", ... (static strings) */
    const char *type; /* "COMPARE_EQUAL", "BOUND_FUNCTION", ... */
    const char *name; /* the function, aggregate or window function's name; "" otherwise */
    const char *alias;
    /* BOUND_COLUMN_REF: (table_index, column_index); BOUND_REF: column_index = its index into
     * the child's output; otherwise both SLUICE_DUCKDB_PLAN_NONE. */
    uint64_t table_index;
    uint64_t column_index;
    /* BOUND_CONSTANT: the value as DuckDB prints it, and whether it is NULL; else NULL. */
    const char *constant;
    bool constant_is_null;
    size_t n_children;
    sluice_duckdb_expr **children;
};

typedef struct sluice_duckdb_op sluice_duckdb_op;
struct sluice_duckdb_op {
    const char *name; /* "LOGICAL_GET", "LOGICAL_CTE_REF", ... */
    /* LOGICAL_GET: the scan function ("seq_scan", "read_csv", ...) and the catalog table it
     * reads ("" for a table function that reads none); NULL for every other operator. */
    const char *function;
    const char *table;
    uint64_t estimated_cardinality; /* SLUICE_DUCKDB_PLAN_NONE when DuckDB made no estimate */
    size_t n_exprs;
    sluice_duckdb_expr **exprs; /* every expression of the operator, in DuckDB's order */
    size_t n_children;
    sluice_duckdb_op **children;
};

typedef struct sluice_duckdb_plan {
    const char *statement; /* "SELECT_STATEMENT", "MERGE_INTO_STATEMENT", ... */
    sluice_duckdb_op *root;
    size_t n_columns;   /* the result's columns: */
    const char **names; /* their names, */
    const char **types; /* and DuckDB's type names ("INTEGER", "DECIMAL(18,2)", ...) */
    size_t n_params;    /* the statement's parameters ($1, ...) */
    size_t n_ops;       /* operators and expressions translated (for the bench and the tests) */
    size_t n_exprs;
} sluice_duckdb_plan;

/* Sets what DuckDB 1.4 keeps per connection and the C API cannot set once lock_configuration
 * is on — home_directory = directory (so "~" expands to a directory that does not exist) and
 * errors_as_json = json_errors (errors carry class and position) — and the database's
 * secret_directory = directory, which 1.4.4 drops when given before the open. Call once on each
 * new connection, before any statement: exec/duckdb_connect.c does, for every connection sluice
 * opens. SLUICE_E_ENGINE when DuckDB refused, SLUICE_E_NOMEM (err says which); the caller then
 * must not use conn. */
sluice_status sluice_exec_duckdb_plan_harden(duckdb_connection conn,
                                             const char *directory,
                                             bool json_errors,
                                             sluice_arena *arena,
                                             sluice_error *err);

/* Makes each of exec/duckdb_process.h's process functions, in conn's whole database, run a
 * refusal naming it (a Permission Error) instead of acting on the process: whatever statement
 * plans one — through query() with a parameter's text, a view, a macro — it cannot act, even
 * where the executor's guard cannot read the plan. Binding is unchanged, so the analyzer still
 * sees and names them. Call once per database, on its first connection, before any other
 * connection exists (it writes the catalog's function entries). SLUICE_E_ENGINE, SLUICE_E_NOMEM
 * (err says which); the database must then not be served. */
sluice_status
sluice_exec_duckdb_plan_seal(duckdb_connection conn, sluice_arena *arena, sluice_error *err);

/* Whether conn's own state is as a new connection's as far as a statement can leave it:
 * auto-commit, no transaction open, not interrupted, no prepared name (duckdb_connect.c keeps
 * only such an idle connection). Reads conn only; conn must be idle. */
bool sluice_exec_duckdb_plan_as_new(duckdb_connection conn);

/* Parses and binds the one statement sql once on conn (in a transaction of its own, as
 * json_serialize_plan does: not optimized, column bindings resolved), with params[0..n_params)
 * bound to $1.. when given (the estimate plans with the caller's values), and returns the plan as
 * sluice's tree in arena. SLUICE_E_ENGINE with DuckDB's message when it refused the statement;
 * SLUICE_E_INVALID when sql is not exactly one statement; SLUICE_E_LIMIT past
 * SLUICE_DUCKDB_PLAN_MAX_DEPTH; SLUICE_E_NOMEM. *out is set only on SLUICE_OK. */
sluice_status sluice_exec_duckdb_plan_bind(duckdb_connection conn,
                                           const char *sql,
                                           const duckdb_value *params,
                                           size_t n_params,
                                           sluice_arena *arena,
                                           sluice_duckdb_plan **out,
                                           sluice_error *err);

/* A prepared statement's type by DuckDB's own name ("MERGE_INTO_STATEMENT", ...; a static
 * string), NULL when ps is NULL or failed. DuckDB 1.4's C API says DUCKDB_STATEMENT_TYPE_INVALID
 * for the types it has no C value for (MERGE INTO among them): lang/sql names those by this. */
const char *sluice_exec_duckdb_plan_statement_type(duckdb_prepared_statement ps);

/* Says of a table function's name whether it is one the caller looks for: a static string
 * naming it, or NULL. */
typedef const char *(*sluice_duckdb_function_match)(const char *name);

/* The first table function the physical plan DuckDB made for ps will run for which match says
 * yes, into *hit (NULL when none does): every operator EXPLAIN shows (GetChildren, delim joins'
 * and positional scans' extra children included) that scans a table function. The plan is the
 * one execution runs when ps has no parameters and the catalog does not change before it (a
 * rebind plans the same text again). SLUICE_E_UNSUPPORTED when there is no such plan to read —
 * ps has parameters (DuckDB may plan again with their values), DuckDB made none, or an operator
 * runs a function whose name this cannot read (a table in-out function) — and the caller must
 * check otherwise; SLUICE_E_LIMIT past SLUICE_DUCKDB_PLAN_MAX_DEPTH; SLUICE_E_NOMEM. *hit is
 * set only on SLUICE_OK. */
sluice_status sluice_exec_duckdb_plan_find_function(duckdb_prepared_statement ps,
                                                    sluice_duckdb_function_match match,
                                                    const char **hit);

#ifdef __cplusplus
}
#endif

#endif
