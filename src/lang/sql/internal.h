/*
 * internal.h — what the files of the SQL front end share; nothing outside src/lang/sql/ includes
 * it.
 *
 * Owns: the per-analysis context (sluice_sql_ctx) and one prototype per stage (the tokens are
 * lexer.h's, below it): statement.c (split + classify), canonical.c (canonical form +
 * hash), parsetree.c (facts from the parse tree), plan_walk.c (lineage from the bound plan),
 * functions.c (the allowlist), rules.c (config rules), explain.c, mirror.c (SQLite catalog).
 */
#ifndef SLUICE_LANG_SQL_INTERNAL_H
#define SLUICE_LANG_SQL_INTERNAL_H

#include "exec/executor.h"
#include "lang/sql/lexer.h"
#include "lang/sql/sql.h"

#include <duckdb.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest string constant a statement may hold and still bind without the bounded child. */
#define SLUICE_SQL_FAST_CONSTANT_BYTES 4096u

/* Deepest nesting of subquery expressions (scalar, EXISTS, IN, ANY) a statement may hold and
 * still bind without the bounded child: DuckDB 1.4.4's filter pushdown takes about twice as long
 * for each further level (EXISTS 16 deep: 0.2 s, 20 deep: 3 s, 34 deep: hours), and its optimizer
 * never checks for an interrupt. At 8 the planning is under a millisecond. */
#define SLUICE_SQL_FAST_SUBQUERY_NESTING 8u

/* Longest text DuckDB parses in the server without first parsing it in the bounded child: its
 * parser is super-linear in some list lengths and never checks for an interrupt (8,000 GROUP BY
 * terms, 63 KB: 4.6 s, 30,000 terms: minutes; it copies every earlier CTE for each CTE it reads,
 * 1,000 CTEs, 24 KB: 5 s). The seeds are under 1.3 KB; 4 KB of either list parses in ~0.1 s. */
#define SLUICE_SQL_FAST_TEXT_BYTES 4096u

/* Most table references (tables, views, CTE names, derived tables, VALUES lists) one statement
 * may hold and still bind without the bounded child: filter pushdown over a chain of joins or
 * cross products is super-linear in their number (64 tables: 3 s, 96: 29 s, 128: minutes) and,
 * like the rest of the optimizer, never checks for an interrupt. The seeds use at most 7. */
#define SLUICE_SQL_FAST_RELATIONS 16u

/* Most parse-tree objects (expressions, table references, query nodes) one statement may hold
 * and still bind without the bounded child: the filter combiner compares each new predicate with
 * those it holds (8,192 comparisons on four tables: 8 s, 4,096 spread over eight: 9 s). The
 * seeds have at most 126; the slowest shape found within both budgets (16 tables, 144 predicates
 * in cycles, 1,910 objects) plans in about 0.2 s. */
#define SLUICE_SQL_FAST_OBJECTS 2048u

/* A blocked field: column in table, or in any table when table is NULL. */
typedef struct sluice_sql_blocked {
    const char *table;
    const char *column;
} sluice_sql_blocked;

typedef struct sluice_sql_ctx {
    sluice_arena *arena;
    sluice_codefacts *facts;
    const char *code; /* NUL-terminated copy */
    size_t code_len;
    const sluice_config_code_mode *cm; /* never NULL (defaults filled in) */
    duckdb_connection conn;            /* on the catalog the code binds against */
    int64_t bounded_since_ms;          /* monotonic: when the first bounded stage began (0: none) */
    sluice_sql_blocked *blocked;
    size_t blocked_count;
    duckdb_statement_type type;    /* of the single statement */
    size_t result_columns;         /* prepared statement column count */
    bool is_query;                 /* a SELECT the lineage walk covers */
    const sluice_tree *parse_tree; /* json_serialize_sql's value (SELECT only), in the arena */
    bool bind_bounded;             /* the parse tree cannot fold into anything large (amplify.c) */
    const char *parse_tree_text;   /* its text less "query_location" members (canonical.c) */
    bool engine_catalog;           /* conn holds the data (not a SQLite mirror): DuckDB estimates */
    /* The one parse and one bind (issue 23): what every stage reads instead of asking DuckDB
     * again; NULL on the C API route (sluice built without the bind-once unit, or text that is
     * not UTF-8), where the stages prepare and query as before. */
    sluice_bound_statement *bound;
    bool single;          /* the text holds exactly one statement */
    bool statement_bound; /* it bound and is of a known type (sluice_sql_statement_bind) */
} sluice_sql_ctx;

/* --- facts.c ------------------------------------------------------------------------------ */
/* "a.b" in arena ("schema.table", "table.column"), without printf's formatting pass: the walkers
 * name every column they meet. NULL when out of memory or when a or b is NULL. */
const char *sluice_sql_dotted(sluice_arena *arena, const char *a, const char *b);

/* --- statement.c -------------------------------------------------------------------------- */
/* Requires exactly one statement: sets ctx->single, or adds a violation (syntax error with line
 * and column, no statement, more than one). Parses once through the bind-once unit (ctx->bound)
 * when sluice has it; on the C API route *out is the extracted statement (else NULL).
 * SLUICE_E_NOMEM. */
sluice_status sluice_sql_statement_extract(sluice_sql_ctx *ctx, duckdb_extracted_statements *out);

/* Binds the one statement (never executing it) and classifies it: sets ctx->type,
 * ctx->result_columns, ctx->statement_bound, facts->action and facts->statement_kind. Through
 * the unit this is the analysis's one bind (ctx->bound then holds the plan and the estimate's
 * physical plan too); on the C API route it prepares ex into *prepared. A bind failure or an
 * unknown statement type is a violation, and the statement is not bound. SLUICE_E_NOMEM. */
sluice_status sluice_sql_statement_bind(sluice_sql_ctx *ctx,
                                        duckdb_extracted_statements ex,
                                        duckdb_prepared_statement *prepared);

/* The bound statement's parameters (1-based, as DuckDB numbers them) and result columns
 * (0-based), from the one bind or from ps on the C API route: names in the arena ("" for a
 * parameter without one; NULL when out of memory, or for a column DuckDB does not name), types
 * as the C API gives them (DUCKDB_TYPE_INVALID when DuckDB inferred none). */
size_t sluice_sql_param_count(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps);
const char *sluice_sql_param_name(sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i);
duckdb_type
sluice_sql_param_type(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i);
const char *sluice_sql_column_name(sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i);
duckdb_type
sluice_sql_column_type(const sluice_sql_ctx *ctx, duckdb_prepared_statement ps, size_t i);

/* --- estimate.c ------------------------------------------------------------------------- */
/* DuckDB's own estimate for a read that bound (issue 24): the physical plan of the one bind
 * (ctx->bound->physical, a read without parameters), else EXPLAIN (FORMAT JSON) prepared on the
 * data's catalog with the execute-time variables bound as text (DuckDB casts them to the types
 * it inferred), never run. Fills estimated_rows (the top operator's cardinality) and
 * estimated_cost (the cardinalities of every operator summed, so a LIMIT over a large join does
 * not hide its work), kind SLUICE_ESTIMATE_PLAN_ROWS. A plan DuckDB will not make
 * leaves no estimate (the route's limits then refuse a read). SLUICE_E_NOMEM. */
sluice_status sluice_sql_estimate(sluice_sql_ctx *ctx, const char *variables_json);

/* --- variables.c ------------------------------------------------------------------------- */
/* Adds an `sql_variables` violation for each parameter of ps without a variable or whose
 * variable does not fit its inferred type, and for each variable no parameter uses.
 * variables_json: the execute-time variables object as JSON text ("{}" for none); NULL when the
 * caller analyzes code without a request (tests, tools): nothing is checked. SLUICE_E_NOMEM when
 * memory runs out (the analysis then fails closed). */
sluice_status sluice_sql_check_variables(sluice_sql_ctx *ctx,
                                         duckdb_prepared_statement ps,
                                         const char *variables_json);

/* --- bind_error.c ------------------------------------------------------------------------ */
/* Adds the `cannot_bind` violation for DuckDB's prepare error text (its JSON form or plain text;
 * NULL when there was none): the sentence, line and column, "Did you mean" when DuckDB has a
 * candidate. Allocation failure marks the facts incomplete (sluice_codefacts_violate). */
void sluice_sql_bind_violation(sluice_sql_ctx *ctx, const char *error);

/* --- bounds.c ----------------------------------------------------------------------------- */
/* Binds and plans the extracted statement once in a child process held to analysis_timeout_ms
 * and analysis_memory_mb: over either, an `analysis_limit` violation naming the setting.
 * Non-OK (no child could start, no memory) means the analysis must fail. */
sluice_status sluice_sql_bounds_probe(sluice_sql_ctx *ctx, duckdb_extracted_statements ex);

/* Parses ctx's code once in such a child when it is longer than SLUICE_SQL_FAST_TEXT_BYTES;
 * *fits is false when the child ran past either bound (the violation is recorded, and the caller
 * must not parse the text in the server). Non-OK as above. */
sluice_status sluice_sql_bounds_parse(sluice_sql_ctx *ctx, bool *fits);

/* The value `SELECT fn($1::VARCHAR, skip_null:=true, skip_empty:=true)` gives for fn
 * json_serialize_sql or json_serialize_plan where the one parse and bind (ctx->bound) did not
 * give it (sluice_sql_serialize_sql and _plan read those): from the bind unit's
 * sluice_executor_bind_tree, or by running that query and parsing its JSON (integers decoded as
 * reals: plans hold 2^64-1).
 * When raw is given it receives DuckDB's JSON text as is (exact integers, for the canonical
 * form). NULL + violation when the call itself fails; DuckDB's {"error":true} comes back as JSON.
 */
json_t *sluice_sql_serialize(sluice_sql_ctx *ctx, const char *fn, const char **raw);

/* json_serialize_sql's value for the statement as the arena tree parsetree.c, amplify.c and
 * canonical.c read (core/tree.h): the one parse's (ctx->bound->parse_tree), or, on the C API
 * route, the query's value copied into the tree once; *text (when text is given) its text as
 * DuckDB writes it less every "query_location" member (the canonical form's body; the bind unit
 * writes it so, the query's text is stripped with sluice_sql_strip_locations). NULL as
 * sluice_sql_serialize (a violation, or facts marked incomplete: the caller fails closed). */
const sluice_tree *sluice_sql_serialize_sql(sluice_sql_ctx *ctx, const char **text);

/* json_serialize_plan's value for the statement as the arena tree plan_walk.c reads
 * (core/tree.h): the one bind's (ctx->bound->plan), or, on the C API route, the query's value
 * copied into the tree once. NULL as sluice_sql_serialize (a violation, or facts marked
 * incomplete: the caller fails closed). */
const sluice_tree *sluice_sql_serialize_plan(sluice_sql_ctx *ctx);

/* --- canonical.c -------------------------------------------------------------------------- */
/* Fills facts->canonical and facts->code_hash (see docs/sql.md, "Canonical form"). */
sluice_status sluice_sql_canonicalize(sluice_sql_ctx *ctx);

/* DuckDB's compact JSON text raw without its "query_location":<n> members, in arena; NULL when
 * out of memory. */
const char *sluice_sql_strip_locations(sluice_arena *arena, const char *raw);

/* --- parsetree.c -------------------------------------------------------------------------- */
/* The 1-based line and column in ctx->code of a parse-tree or plan node's position; 0, 0 when
 * it has none (blocked-predicate refusals and parse-tree refusals point at the node this way). */
void sluice_sql_locate_node(const sluice_sql_ctx *ctx,
                            const sluice_tree *node,
                            size_t *line,
                            size_t *column);
/* Facts from the parse tree when the statement is a query (json_serialize_sql takes nothing
 * else; ctx->parse_tree stays NULL otherwise): joins, subqueries, CTE names,
 * WHERE/GROUP/ORDER/LIMIT, windows, functions as written. Refuses DESCRIBE/SHOW/SUMMARIZE,
 * denied functions, table functions outside the allowlist and file-path table names — before
 * anything binds them, because binding read_csv('x') already opens x. */
sluice_status sluice_sql_parsetree_facts(sluice_sql_ctx *ctx);

/* --- plan_walk.c -------------------------------------------------------------------------- */
/* Walks the bound statement's plan (json_serialize_plan's value) for lineage, fills tables_read,
 * columns_read, outputs, blocked_used, blocked_in_predicate; refuses unknown
 * operators/expressions/keys, functions outside the allowlist, blocked (or tainted) fields in
 * the output and predicates on them outside blocked_predicates.c's table. */
sluice_status sluice_sql_plan_walk(sluice_sql_ctx *ctx, duckdb_prepared_statement prepared);

/* True when table.column is blocked for this analysis. */
bool sluice_sql_is_blocked(const sluice_sql_ctx *ctx, const char *table, const char *column);

/* --- blocked_predicates.c ------------------------------------------------------------------ */
/* How a blocked (or tainted) column is used outside the result: the rows of the documented table
 * in blocked_predicates.c (docs/security.md "Blocked fields in predicates"). */
typedef enum sluice_sql_pred_use {
    SLUICE_SQL_USE_EQ_COLUMN = 0, /* = / IS NOT DISTINCT FROM another base-table column */
    SLUICE_SQL_USE_EQ_LITERAL,    /* = a single literal */
    SLUICE_SQL_USE_EQ_PARAM,      /* = a single parameter */
    SLUICE_SQL_USE_IS_NULL,       /* IS [NOT] NULL */
    SLUICE_SQL_USE_GROUP_KEY,     /* GROUP BY / PARTITION BY / DISTINCT ON the bare column */
    SLUICE_SQL_USE_SUBQUERY_TEST, /* the result of an IN/EXISTS/ANY test checked at its join */
    SLUICE_SQL_USE_EQ_GENERATED,  /* = a generated or computed value (range, VALUES, unnest) */
    SLUICE_SQL_USE_EQ_EXPRESSION, /* = any other expression */
    SLUICE_SQL_USE_NOT_EQUAL,     /* <>, IS DISTINCT FROM */
    SLUICE_SQL_USE_RANGE,         /* <, <=, >, >=, BETWEEN, ASOF inequality */
    SLUICE_SQL_USE_PATTERN,       /* LIKE, ILIKE, SIMILAR TO, regex, GLOB, prefix/contains */
    SLUICE_SQL_USE_IN_LIST,       /* IN (list), NOT IN (list) */
    SLUICE_SQL_USE_FUNCTION,      /* any function, lossy cast, aggregate or arithmetic of it */
    SLUICE_SQL_USE_NESTED,        /* a comparison inside OR, NOT, CASE or another expression */
    SLUICE_SQL_USE_ORDER,         /* ORDER BY / window ORDER BY (compares every pair of rows) */
    SLUICE_SQL_USE_LIMIT,         /* LIMIT / OFFSET, an unnest's argument computed from it */
} sluice_sql_pred_use;

typedef struct sluice_sql_pred_rule {
    sluice_sql_pred_use use;
    const char *what;    /* the clause or operator, as docs/security.md names it */
    bool allowed;        /* false: the statement is refused (rule blocked_predicate) */
    const char *message; /* why, for a refusal; what it reveals, for an allowed use */
} sluice_sql_pred_rule;

/* The table's row for use; never NULL for a value of the enum. */
const sluice_sql_pred_rule *sluice_sql_pred_rule_for(sluice_sql_pred_use use);

/* The whole table (for tests and documentation), *count rows. */
const sluice_sql_pred_rule *sluice_sql_pred_rules(size_t *count);

/* What blocked_predicates.c tells allowed uses from refused ones by: true when the cast e (a
 * BOUND_CAST) keeps every distinct value distinct (to VARCHAR, integer widening, DATE to
 * TIMESTAMP, the same type), so a bare column seen through it is still bare. */
bool sluice_sql_cast_is_lossless(const sluice_tree *e);

/* The BOUND_FUNCTION names that match patterns (LIKE, regex, prefix, ...): the USE_PATTERN row. */
bool sluice_sql_is_pattern_function(const char *name);

/* Adds the refusal for use at the place of node (its query_location) naming the field. */
sluice_status sluice_sql_refuse_predicate(sluice_sql_ctx *ctx,
                                          sluice_sql_pred_use use,
                                          const sluice_tree *node,
                                          const char *field);

/* --- functions.c -------------------------------------------------------------------------- */
typedef enum sluice_sql_fn_kind {
    SLUICE_SQL_FN_SCALAR = 0, /* scalar, aggregate and window functions */
    SLUICE_SQL_FN_TABLE = 1,
} sluice_sql_fn_kind;

/* NULL when name may be called; else why not, for the message ("it reads files", ...). */
const char *sluice_sql_function_refusal(sluice_sql_fn_kind kind, const char *name);

/* May the function's result outgrow its input? (the tag on its allowlist entry) */
typedef enum sluice_sql_fn_growth {
    SLUICE_SQL_AMPLIFIES = 0, /* it may, or nobody reviewed it for that: the safe default */
    SLUICE_SQL_BOUNDED = 1,   /* never larger than its largest input plus a fixed amount */
} sluice_sql_fn_growth;

/* The tag of an allowed scalar, aggregate or window function; SLUICE_SQL_AMPLIFIES for any name
 * not on the allowlist (denied, unknown, a macro, NULL). */
sluice_sql_fn_growth sluice_sql_function_growth(const char *name);

/* The explicit denylist alone (names as written, macros included): NULL or the reason. Used on
 * the parse tree, where macro names the plan later expands are not on the allowlist. */
const char *sluice_sql_function_denied(const char *name);

/* --- amplify.c --------------------------------------------------------------------------- */
/* True when the parse tree of a query can be bound in the server, without the bounded child:
 * every node is of a known harmless kind, every function is tagged SLUICE_SQL_BOUNDED, no
 * table function, lambda or cast to a nested type, and every string constant is at most
 * SLUICE_SQL_FAST_CONSTANT_BYTES. Anything else (or NULL) is false. Allocates nothing. */
bool sluice_sql_tree_bounded(const sluice_tree *tree);

/* Whether one object of the bound plan (one element of json_serialize_plan's "plans"), with its
 * expression_class cls and its type ("" when missing), allows the plan to run inside the server
 * under DuckDB's memory_limit and interrupt alone: only the ordinary relational operators,
 * base-table scans, BOUNDED functions and aggregates, ranking and offset windows, casts to
 * non-nested types; no recursive CTE, unnest or windowed aggregate. The plan is bounded when
 * every object in it is (plan_walk.c's scan asks each as it passes, not a walk of its own). */
bool sluice_sql_plan_node_bounded(const sluice_tree *node, const char *cls, const char *type);

/* --- rules.c ------------------------------------------------------------------------------ */
/* Applies the sql_* configuration rules to the facts gathered so far. */
sluice_status sluice_sql_rules_apply(sluice_sql_ctx *ctx);

/* --- mirror.c ----------------------------------------------------------------------------- */
/* CREATE TABLE statements (DuckDB) for every table of a SQLite schema, types by affinity. */
sluice_status
sluice_sql_mirror_ddl(sluice_arena *arena, const sluice_schema *schema, const char **out);

#endif
