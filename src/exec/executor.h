/*
 * executor.h — one interface in front of every backend that runs code: open, schema, execute,
 * close. DESIGN.md §1: `execute(code, variables, limits, identity) -> result`.
 *
 * Owns: the request/result shapes, the vtable each engine fills (exec/duckdb.c, exec/sqlite.c),
 * and the calls that go through it. Engines include this header and nothing above it; which
 * engine a [database] names, and opening it, is exec/engines.h's (sluice_executor_open), the one
 * module that includes every engine.
 * Does not own: policy. An executor never decides whether code may run; the analyzer and the
 * code-mode pipeline do. It only enforces the engine-level hardening (read-only, no files, no
 * extensions, one statement) and the limits it is given (time, rows, bytes, cancellation).
 *
 * Threads: one sluice_executor is shared by all requests; execute() may run on many threads at
 * once (each call uses its own engine connection). Everything a call returns lives in the arena
 * it was given.
 */
#ifndef SLUICE_EXEC_EXECUTOR_H
#define SLUICE_EXEC_EXECUTOR_H

#include "auth/identity.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/tree.h"
#include "exec/schema.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_executor sluice_executor;

/* Limits for one execution. 0 in any field means "no limit of this kind". An executor enforces
 * every kind its work has (a database has no API calls; a plan interpreter has no rows of its
 * own) and names the setting in the error when one is hit. */
typedef struct sluice_exec_limits {
    int64_t timeout_ms;          /* wall clock; at the deadline the engine is interrupted */
    int64_t max_rows;            /* rows returned; one more is fetched to tell N from N+1 apart */
    size_t max_bytes;            /* compact JSON size of the rows array (or value) returned */
    int64_t max_api_calls;       /* upstream calls a plan may make (max_api_calls) */
    int64_t max_loop_iterations; /* iterations of all loops of a plan together */
    int64_t max_steps;           /* interpreter steps (statements and expressions evaluated) */
    size_t max_memory_bytes;     /* memory the execution may hold (engine or interpreter) */
    /* Name of the setting the timeout came from, quoted in the error so the reader knows what to
     * change ("execution_timeout_seconds"); NULL = "timeout". */
    const char *timeout_setting;
} sluice_exec_limits;

/* The limits [code_mode] sets: execution_timeout_seconds, sql_max_rows, max_result_bytes. */
sluice_exec_limits sluice_exec_limits_from_config(const sluice_config_code_mode *code_mode);

/* How the caller learns about cancellation without exec depending on the MCP core: execute()
 * calls register_cancel(cancel_ctx, fn, data) once before it starts; whoever owns cancellation
 * calls fn(data) from any thread when the client cancels (sluice_mcp_call_on_cancel fits with a
 * one-line adapter). data lives in the request arena, so fn stays safe to call until that arena
 * is freed, even after execute() returned (it is then a no-op). */
typedef void (*sluice_exec_register_cancel_fn)(void *cancel_ctx, void (*fn)(void *), void *data);

typedef struct sluice_exec_request {
    const char *code; /* exactly one statement */
    size_t code_len;
    /* JSON object or NULL. Bound as parameters by name, never spliced into the text:
     * DuckDB `$name` (and `$1`/`?` as keys "1", "2", ...); SQLite `:name`, `@name`, `$name`, `?N`
     * (keys without the sigil; "1", "2", ... for positional). Values: string, integer, real,
     * boolean, null. A parameter without a variable, or a variable no parameter uses, is an
     * error. */
    const json_t *variables;
    sluice_exec_limits limits;
    const sluice_identity *identity; /* who runs it; local engines only log it. May be NULL. */
    /* The caller inside the database (PostgreSQL only; the route's caller_roles and
     * caller_claims, policy.h sluice_policy_db_role): the role the transaction runs as
     * (SET LOCAL ROLE; NULL: the connection's own), and whether identity is published as the
     * transaction-local settings sluice.user (text) and sluice.groups (a JSON array). */
    const char *db_role;
    bool publish_claims;
    /* Set when blocked columns are involved: engine errors are then replaced by their class and
     * position ("Conversion Error at line 1, column 8"), never echoing values (research D8). */
    bool scrub_errors;
    /* The analysis proved the program uses only operations the engine's own limits govern
     * (CodeFacts engine_bounded): the backend may skip its outer process bound. */
    bool engine_bounded;
    /* The same text runs on every call and only its variables change (a curated tool's
     * statement): the backend may keep the statement prepared between calls. */
    bool fixed_statement;
    /* An approved program (code mode), whose text may come again under a new token: the backend
     * may keep it prepared too, apart from the fixed statements, so programs run once never push
     * a curated tool's statement out. Whether it may is the backend's: nothing of the caller may
     * be part of the plan it keeps. */
    bool repeated_statement;
    /* The caller reads the rows only as rows_text (an answer that splices it, core/json_splice.h):
     * a backend that can may write each value straight into rows_text and leave rows NULL.
     * False (the default): rows is the tree of the values, as every consumer of them needs. */
    bool rows_text_only;
    sluice_exec_register_cancel_fn register_cancel; /* NULL: not cancellable */
    void *cancel_ctx;
    /* The catalog snapshot the code was analysed against (sluice_executor_catalog), so a
     * backend that reads results with its schema uses the same one even when a reload swapped
     * in another meanwhile; NULL: the executor takes the catalog itself. */
    const sluice_schema *schema;
    /* Plans (exec/js_plan.h): the operations validation resolved (calledOperations); a call to
     * any other is refused at run time. NULL: every call is refused. */
    const sluice_strlist *validated_operations;
    /* The approval token's id (hex): writes derive their Idempotency-Key from it. */
    const char *token_id;
    /* Plans: the approval was given below high risk, which assumes the plan reads no blocked
     * field; the run checks that and refuses (SLUICE_E_DENIED) one that would let such a
     * value leave instead of honouring the approval (docs/openapi.md, "Blocked fields"). */
    bool below_high_risk;
} sluice_exec_request;

typedef struct sluice_exec_column {
    const char *name;
    const char *type; /* engine type text: "INTEGER", "VARCHAR", "DECIMAL(18,2)", ... */
} sluice_exec_column;

/* Result of one execution; all memory in the request arena (rows are released with it).
 * Values are JSON-typed: integers, doubles, strings, booleans, null; dates and timestamps as ISO
 * 8601 strings; DECIMAL with scale 0 as an integer, else an exact decimal string; integers
 * beyond 64 bits (HUGEINT, UHUGEINT, UBIGINT) as exact decimal strings, smaller ones as numbers;
 * LIST/ARRAY as arrays; STRUCT as objects; MAP as an array of
 * {"key":..,"value":..}; BLOB as base64; anything else as its VARCHAR text. */
/* What a result holds: a table (columns and rows: SQL) or any JSON value (a GraphQL response's
 * data, a plan's return value). */
typedef enum sluice_exec_shape {
    SLUICE_EXEC_TABLE = 0,
    SLUICE_EXEC_VALUE = 1,
} sluice_exec_shape;

typedef struct sluice_exec_result {
    sluice_exec_shape shape;
    json_t *value; /* SLUICE_EXEC_VALUE: the result, owned by the arena (do not json_decref) */
    sluice_exec_column *columns;
    size_t column_count;
    /* array of arrays, owned by the arena (do not json_decref); NULL when the request asked for
     * rows_text_only and the backend honoured it */
    json_t *rows;
    size_t row_count;
    bool truncated;           /* more rows (or list items) existed than were returned */
    const char *truncated_by; /* "max_rows" | "max_bytes" | NULL */
    size_t bytes;             /* compact JSON size of rows */
    /* Each row's compact JSON followed by a newline, as the row accumulator (values.h) measured
     * it: the text content shows this instead of serializing every row a second time. */
    const char *rows_text;
    int64_t elapsed_ms;
    const char *statement_type; /* "SELECT", "INSERT", ... as the engine classified it */
    /* A plan (exec/js_plan.h): every upstream call it made with its outcome, and those that
     * failed (also when the plan caught them). NULL for other engines. Arena-owned. */
    json_t *calls;
    json_t *failed_calls;
} sluice_exec_result;

/* One read the engine itself reports it would make for a statement (SQLite's authorizer):
 * the catalog/bind service's cross-check of a front end's own analysis. */
typedef struct sluice_exec_read {
    const char *table;  /* as the engine names it (base table) */
    const char *column; /* "" for count(*)-style reads of no particular column */
    const char *via;    /* innermost view or CTE the read came through, or NULL */
} sluice_exec_read;

typedef struct sluice_exec_reads {
    sluice_exec_read *reads; /* every read the engine saw, duplicates removed */
    size_t read_count;
    const char **functions; /* every function called, lower case, duplicates removed */
    size_t function_count;
} sluice_exec_reads;

/* The vtable an engine fills. Engines live in exec/<engine>.c; callers use the functions below. */
typedef struct sluice_executor_ops {
    const char *name; /* "duckdb", "sqlite" */
    sluice_status (*schema)(sluice_executor *ex,
                            sluice_arena *arena,
                            sluice_schema *out,
                            sluice_error *err);
    sluice_status (*execute)(sluice_executor *ex,
                             sluice_arena *arena,
                             const sluice_exec_request *req,
                             sluice_exec_result *out,
                             sluice_error *err);
    void (*close)(void *state);
    /* The engine itself is opened by the first call that needs it (schema, bind_catalog,
     * execute), not by open: callers then read nothing of it at start-up either. */
    bool opens_on_first_use;
    /* The catalog/bind service (both optional). bind_catalog: sets *out to a duckdb_database
     * (as void *) whose catalog is this backend's, to bind SQL against, never to execute, or
     * fails (err in arena) when the engine could not be opened. engine_reads: the reads the
     * engine itself would make for code, prepared never run. */
    sluice_status (*bind_catalog)(sluice_executor *ex,
                                  void **out,
                                  sluice_arena *arena,
                                  sluice_error *err);
    /* Optional: the idle analyzer connections kept beside the bind catalog
     * (sluice_executor_bind_idle). */
    void *(*bind_idle)(sluice_executor *ex);
    sluice_status (*engine_reads)(sluice_executor *ex,
                                  sluice_arena *arena,
                                  const char *code,
                                  size_t code_len,
                                  sluice_exec_reads *out,
                                  sluice_error *err);
    /* The engine's own plan for req's code (prepared with a generic plan, never run): optional. */
    sluice_status (*explain)(sluice_executor *ex,
                             sluice_arena *arena,
                             const sluice_exec_request *req,
                             const char **plan_json,
                             sluice_error *err);
    /* Optional: true when nothing, in this process or another, can change the data or the
     * catalog this backend reads while it serves (a DuckDB file opened read_only). */
    bool (*data_fixed)(const sluice_executor *ex);
} sluice_executor_ops;

/* Tables, views, columns, types, approximate row counts, blocked and hidden marks, and a
 * SHA-256 version hash over names and types. Everything in arena. */
sluice_status sluice_executor_schema(sluice_executor *ex,
                                     sluice_arena *arena,
                                     sluice_schema *out,
                                     sluice_error *err);

/* Runs req->code once. On success fills *out. On failure: SLUICE_E_INVALID (not exactly one
 * statement, bad variables), SLUICE_E_DENIED (statement type or operation refused by the engine
 * hardening), SLUICE_E_TIMEOUT, SLUICE_E_CANCELLED, SLUICE_E_ENGINE (the engine's message, or
 * its class and position when req->scrub_errors). */
sluice_status sluice_executor_execute(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_exec_request *req,
                                      sluice_exec_result *out,
                                      sluice_error *err);

/* --- the catalog/bind service: what a front end may ask without naming the engine --------- */

/* The catalog of ex (sluice_executor_schema's, marks included) as last read: at the first use,
 * and again after a reload request (SIGHUP: sluice_executor_request_catalog_reload in
 * exec/catalog.h); one refcounted snapshot shared by every request,
 * held until arena is freed (exec/catalog.c). When a re-read fails, the previous catalog stays
 * (logged as a warning): names it does not know are still refused. Errors (first read only): as
 * sluice_executor_schema; SLUICE_E_NOMEM. */
sluice_status sluice_executor_catalog(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_schema **out,
                                      sluice_error *err);

/* True when the engine opens on first need (sluice_executor_ops.opens_on_first_use). */
bool sluice_executor_opens_on_first_use(const sluice_executor *ex);

/* True when the backend's data cannot change while it serves (sluice_executor_ops.data_fixed):
 * what its planner estimated for a statement then stays what it was. */
bool sluice_executor_data_fixed(const sluice_executor *ex);

/* Sets *out to the DuckDB catalog (a duckdb_database, as void *) to bind this backend's SQL
 * against, or to NULL when the backend offers none: the front end then mirrors
 * sluice_executor_schema. Fails (err in arena) when the backend has one but could not open it
 * (DuckDB opens on first need): the caller must refuse, never fall back to a mirror. */
sluice_status sluice_executor_bind_catalog(sluice_executor *ex,
                                           void **out,
                                           sluice_arena *arena,
                                           sluice_error *err);

/* What sluice_executor_bind_tree gives: DuckDB's json_serialize_sql or json_serialize_plan. */
typedef enum sluice_bind_tree {
    SLUICE_BIND_PARSE_TREE = 0,
    SLUICE_BIND_PLAN = 1,
} sluice_bind_tree;

/* The bind service's one parse + one bind (issue 23, docs/architecture.md "Binding once"):
 * on conn (a duckdb_connection, as void *, on a bind catalog) the value
 * `SELECT json_serialize_sql|json_serialize_plan($1, skip_null := true, skip_empty := true)`
 * would return for sql, as json_loads(text, JSON_DECODE_INT_AS_REAL) reads it (*out, owned by
 * arena), without running that query; *raw (when given) receives the text as DuckDB writes it.
 * DuckDB's own refusals come back inside the value ({"error": true, ...}), as from the query.
 * SLUICE_E_UNSUPPORTED when sluice was built without the bind-once unit (-DSLUICE_DUCKDB_CPP):
 * the caller then runs the query. SLUICE_E_NOMEM, SLUICE_E_INTERNAL (a value jansson cannot
 * hold: the caller fails closed, as when json_loads refuses the query's text). */
sluice_status sluice_executor_bind_tree(void *conn,
                                        const char *sql,
                                        sluice_bind_tree which,
                                        sluice_arena *arena,
                                        json_t **out,
                                        const char **raw,
                                        sluice_error *err);

/* One operator of a physical plan, with what EXPLAIN (FORMAT JSON) prints of it that
 * lang/sql/estimate.c reads: {"name", "extra_info": {"Estimated Cardinality"}, "children"}. */
typedef struct sluice_physical_op sluice_physical_op;
struct sluice_physical_op {
    const char *name;                  /* "HASH_JOIN", "SEQ_SCAN ", ... */
    const char *estimated_cardinality; /* its text ("9091"); NULL where EXPLAIN prints none */
    size_t n_children;
    sluice_physical_op *children; /* [n_children], in EXPLAIN's order */
};

/* What one parse and one bind of a statement give the SQL front end (issue 23,
 * docs/architecture.md "Binding once"): everything validate used to ask DuckDB for in five calls
 * (extract, the parse tree query, prepare, the plan query, EXPLAIN), each field what that call
 * gave. Filled in two steps, so that a statement the front end must bind in a capped child is
 * never bound in the server first: sluice_executor_bind_parse (the parse), then
 * sluice_executor_bind_plan (the bind, the optimizer and the physical plan of the parsed
 * statement). Everything is owned by the arena the parse was given. */
typedef struct sluice_bound_statement {
    /* --- the parse (duckdb_extract_statements + json_serialize_sql) --- */
    size_t statement_count;      /* statements in the text: 0 on a syntax error or an empty text */
    const char *parse_error;     /* duckdb_extract_statements_error's text, or NULL */
    sluice_tree *parse_tree;     /* json_serialize_sql's value when statement_count is 1 (a
                                    refusal value for a statement that is not a SELECT), as an
                                    arena tree; NULL when JSON cannot hold it (the caller fails
                                    closed) */
    const char *parse_tree_text; /* its text as DuckDB writes it, less every "query_location"
                                    member: the canonical form's body (lang/sql/canonical.c) */
    /* --- the bind (duckdb_prepare_extracted_statement), after sluice_executor_bind_plan --- */
    bool planned;               /* sluice_executor_bind_plan ran */
    const char *bind_error;     /* duckdb_prepare_error's text (JSON or plain, as the connection
                                   gives errors); NULL when the statement bound */
    int statement_type;         /* duckdb_statement_type, as duckdb_prepared_statement_type */
    const char *statement_name; /* DuckDB's own name for it ("MERGE_INTO_STATEMENT") */
    size_t column_count;        /* the result's columns: */
    const char **column_names;
    int *column_types;  /* duckdb_type, as duckdb_prepared_statement_column_type */
    size_t param_count; /* duckdb_nparams; [i] is parameter i + 1: */
    const char **param_names;
    int *param_types; /* duckdb_type, as duckdb_param_type (DUCKDB_TYPE_INVALID when
                         DuckDB inferred none) */
    /* json_serialize_plan's value (a SELECT that bound; NULL otherwise, and NULL when JSON cannot
     * hold it: plan_unholdable, the caller fails closed), as the arena's tree (core/tree.h): the
     * members, kinds and order json_loads(JSON_DECODE_INT_AS_REAL) would give of the query's
     * text, without a jansson node per element (issue 23) */
    sluice_tree *plan;
    bool plan_unholdable;
    /* The optimized physical plan's root operator as EXPLAIN (FORMAT JSON) prints it, for a
     * SELECT without parameters that bound; NULL otherwise (with parameters the estimate plans
     * with the caller's values). */
    sluice_physical_op *physical;
    void *parsed; /* the unit's parsed statement until it is bound (freed with the arena) */
} sluice_bound_statement;

/* The parse (sql on conn, a duckdb_connection as void * on a bind catalog): *out receives the
 * statement count, the extract error and the parse tree, and keeps the parsed statement for
 * sluice_executor_bind_plan. DuckDB's parser options are read at conn's first parse and kept
 * with conn (a SET on conn after it is not seen: sluice's own connections run none).
 * SLUICE_E_UNSUPPORTED when sluice was built without the bind-once unit, or sql is not UTF-8
 * (DuckDB's VARCHAR refuses it: the caller's C API route reports that); SLUICE_E_NOMEM. */
sluice_status sluice_executor_bind_parse(void *conn,
                                         const char *sql,
                                         sluice_arena *arena,
                                         sluice_bound_statement **out,
                                         sluice_error *err);

/* The bind of the one statement bound->statement_count says there is: binds it once (as
 * duckdb_prepare_extracted_statement does: planned, then optimized and physically planned when
 * every parameter has a type), fills the bind fields, the plan json_serialize_plan would give and
 * the physical plan's cardinalities. DuckDB's refusal is bind_error, not a failure. Call at most
 * once per parse. SLUICE_E_INVALID when there is not exactly one statement or it was bound
 * already; SLUICE_E_NOMEM. */
sluice_status sluice_executor_bind_plan(void *conn,
                                        sluice_bound_statement *bound,
                                        sluice_arena *arena,
                                        sluice_error *err);

/* Connects to a bind catalog (db: a duckdb_database, as void *) the one way sluice connects to
 * DuckDB, hardened or not at all (exec/duckdb_connect.h): *out receives the duckdb_connection, as
 * void *, or stays NULL with err set. json_errors: the catalog's errors come as JSON (the
 * executor's own database); a mirror keeps DuckDB's plain text. */
sluice_status sluice_executor_bind_connect(
    void *db, bool json_errors, void **out, sluice_arena *arena, sluice_error *err);

/* The analysis's connection to db, as sluice_executor_bind_connect makes it, held until arena is
 * freed: taken from idle (sluice_executor_bind_idle; NULL: none kept) when it holds one, and
 * given back to it then when the connection is as new, else disconnected. idle is used only with
 * json_errors (its connections have the executor's database's errors as JSON). */
sluice_status sluice_executor_bind_session(
    void *db, void *idle, bool json_errors, void **out, sluice_arena *arena, sluice_error *err);

/* The idle analyzer connections the executor keeps beside its bind catalog (DuckDB:
 * exec/duckdb_connect.h's sluice_duckdb_idle), for sluice_executor_bind_session; NULL when it
 * keeps none. */
void *sluice_executor_bind_idle(sluice_executor *ex);

/* DuckDB's own name for the type of prepared (a duckdb_prepared_statement, as void *), e.g.
 * "MERGE_INTO_STATEMENT", for the C API's DUCKDB_STATEMENT_TYPE_INVALID (DuckDB 1.4 has no C
 * value for three types); NULL when it cannot tell or sluice was built without the bind-once
 * unit: the caller then refuses the statement as of unknown type. */
const char *sluice_executor_bind_statement_kind(void *prepared);

/* The reads the engine itself would make for code (prepared, never run), to cross-check an
 * analysis. SLUICE_E_UNSUPPORTED when the engine cannot report them; SLUICE_E_ENGINE (err with
 * line/column) when the engine refuses the statement; SLUICE_E_LIMIT (err naming the setting)
 * when preparing it passed [code_mode] analysis_timeout_ms or analysis_memory_mb. */
sluice_status sluice_executor_engine_reads(sluice_executor *ex,
                                           sluice_arena *arena,
                                           const char *code,
                                           size_t code_len,
                                           sluice_exec_reads *out,
                                           sluice_error *err);

/* The plan the engine itself makes for req's read (semantic analysis, names resolved by the
 * engine), as JSON text in arena, prepared with a generic plan for its parameters and never run;
 * inside the read role's read-only transaction, under req->limits.timeout_ms, as req's caller
 * would run it (req->db_role as SET LOCAL ROLE, req->publish_claims' settings: row-level
 * security filters the estimate as it will the rows; only code, limits and those are read).
 * PostgreSQL:
 * {"plan": EXPLAIN (VERBOSE, FORMAT JSON), "indexes": {index name: [key column or null, ...]}}.
 * SLUICE_E_UNSUPPORTED when the engine has none; SLUICE_E_ENGINE (err with line/column) when the
 * engine refuses to plan it; SLUICE_E_TIMEOUT. */
sluice_status sluice_executor_explain(sluice_executor *ex,
                                      sluice_arena *arena,
                                      const sluice_exec_request *req,
                                      const char **plan_json,
                                      sluice_error *err);

/* "duckdb" | "sqlite" */
const char *sluice_executor_engine_name(const sluice_executor *ex);
sluice_engine_kind sluice_executor_engine(const sluice_executor *ex);

/* The blocked-column test shared by schema introspection and callers: true when table.column
 * (or column alone) is listed in blocked_fields or sql_blocked_columns. Case-insensitive. */
bool sluice_executor_column_blocked(const sluice_executor *ex,
                                    const char *table,
                                    const char *column);

/* The same test on a list of "table.column" or "column" entries (blocked_fields,
 * sql_blocked_columns) for callers without an executor; schema prefixes on table are ignored. */
bool sluice_exec_list_has_column(const sluice_strlist *list, const char *table, const char *column);

/* Closes the engine. Executions must have finished. NULL does nothing. */
void sluice_executor_close(sluice_executor *ex);

/* --- for engine implementations only ------------------------------------------------------ */

/* Wraps an engine's state; takes a deep copy of the code_mode lists it needs. On failure calls
 * ops->close(state). */
sluice_status sluice_executor_wrap(const sluice_executor_ops *ops,
                                   void *state,
                                   sluice_engine_kind kind,
                                   const sluice_config_code_mode *code_mode,
                                   sluice_executor **out);

/* The engine state given to sluice_executor_wrap. */
void *sluice_executor_state(const sluice_executor *ex);

/* True when the table is hidden by sql_allowed_tables / sql_blocked_tables. */
bool sluice_executor_table_hidden(const sluice_executor *ex, const char *table);

/* True when the config lets code change data or schema (the engine then opens read-write). */
bool sluice_executor_config_writable(const sluice_config_code_mode *code_mode);

/* The check a file database gets before its engine opens it: path exists and is a regular file.
 * SLUICE_E_IO otherwise, naming the path (and the system's reason), in err_arena. */
sluice_status
sluice_executor_check_file(const char *path, sluice_arena *err_arena, sluice_error *err);

#endif
