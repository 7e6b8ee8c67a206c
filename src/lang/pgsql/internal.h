/*
 * internal.h (lang/pgsql) — what the PostgreSQL analyzer's files share.
 *
 * Owns: the analysis context, the relation/scope model of name resolution, and one prototype
 * per stage: parse.c (libpg_query, statement kind, canonical form), query.c (SELECT, FROM,
 * CTEs, set operations, views), write.c (changes), expr.c (expressions, lineage, the predicate
 * rules),
 * functions.c (the allowlist), frontend.c (passes, rules, scores).
 * Does not own: the facts record (facts/codefacts.h, lang/sql/sql.h).
 */
#ifndef SLUICE_LANG_PGSQL_INTERNAL_H
#define SLUICE_LANG_PGSQL_INTERNAL_H

#include "lang/pgsql/pgsql.h"
#include "lang/sql/sql.h"

#include <jansson.h>
#include <stdbool.h>

/* Nesting of queries, views and expressions the resolver follows before refusing. */
#define SLUICE_PGSQL_MAX_DEPTH 256u
/* What libpg_query is given, checked token by token before it parses (parse.c): its parse and
 * its JSON output recurse once per nesting level, so a long operator chain (`1+1+...`, each `+`
 * one level deeper) or deep brackets would overflow the stack inside the library. Every token
 * that can deepen the tree (an operator, or a keyword such as AND, NOT, IS, UNION, JOIN, CASE)
 * counts against SLUICE_PGSQL_MAX_OPERATORS; bracket depth against SLUICE_PGSQL_MAX_NESTING. */
#define SLUICE_PGSQL_MAX_OPERATORS 2000u
#define SLUICE_PGSQL_MAX_NESTING   100u
/* Tokens (not spaces or comments) libpg_query is given: its parse, its JSON output, the JSON tree
 * and the walks over it take about 4 KB of the server's memory per token (`ORDER BY id,id,...`
 * at the 256 KB code limit: 128,000 tokens, 504 MB and 3 s; 51,000 coalesce arguments 5.9 s). At
 * this bound that is about 130 MB and under a second, inside analysis_memory_mb's default. */
#define SLUICE_PGSQL_MAX_TOKENS 32768u
/* What PostgreSQL is asked to plan: CTEs defined and FROM items read (views' own items, CTE and
 * subquery bodies included) in one statement. The planner's search grows with both, and a long
 * CTE chain planned for minutes past statement_timeout, since planning checks for interrupts
 * rarely (issue 21); the read role's transaction also pins the collapse limits (exec/postgres.c).
 * Joins: sql_max_joins of [code_mode]. */
#define SLUICE_PGSQL_MAX_CTES      32u
#define SLUICE_PGSQL_MAX_RELATIONS 64u
/* PostgreSQL's plan, walked by plan.c: relations and subplans it names, and nodes. */
#define SLUICE_PGSQL_MAX_PLAN_RELS  256u
#define SLUICE_PGSQL_MAX_PLAN_NODES 4096u
/* Passes of taint propagation (each can block more columns) before refusing. */
#define SLUICE_PGSQL_MAX_TAINT_PASSES 8u

/* One column of a relation: the base columns ("table.column") it is computed from, and base
 * when it is one base-table column passed through unchanged (a join key may be compared with a
 * blocked column only then). */
typedef struct pg_col {
    const char *name;
    sluice_codefacts_list lineage;
    const char *base;
    const char *type; /* the catalog's type when known (base columns, casts), else NULL */
} pg_col;

typedef struct pg_rel {
    pg_col *cols;
    size_t count;
} pg_rel;

/* A FROM item visible by alias. */
typedef struct pg_entry {
    const char *alias;
    pg_rel rel;
} pg_entry;

typedef struct pg_cte {
    const char *name;
    pg_rel rel;
    const struct pg_cte *next;
    bool pending; /* not resolved yet: naming it is refused (see query.c with_clause) */
    /* NOT MATERIALIZED: PostgreSQL plans its body at every reference, so each reference adds
     * the body's FROM items (relations) to the planning bound (query.c count_inlined_use) */
    bool inlined;
    size_t relations;
} pg_cte;

typedef struct pg_scope {
    const struct pg_scope *parent;
    pg_entry *entries;
    size_t count;
    size_t cap;
    const pg_cte *ctes;
    const pg_rel *outputs; /* the SELECT list, for ORDER BY by output name; may be NULL */
    json_t *windows;       /* the SELECT's WINDOW clause (WindowDef nodes); may be NULL */
} pg_scope;

typedef enum pg_mode {
    PG_VALUE, /* computes a value: lineage only */
    /* a top-level (AND-ed) conjunct of WHERE, ON, HAVING or FILTER: blocked columns refused but
     * a bare = and IS [NOT] NULL; below anything but AND a predicate becomes PG_STRICT */
    PG_PREDICATE,
    /* orders, partitions, counts rows (LIMIT/OFFSET, a set-returning function's arguments) or
     * wraps a comparison (OR, NOT, CASE, IS TRUE, = false, a function): no blocked column at
     * all, since each of these answers many guesses or one bit of every row (issue 21) */
    PG_STRICT,
} pg_mode;

typedef struct pg_ctx {
    sluice_arena *arena;
    sluice_codefacts *facts;
    const char *code;
    size_t code_len;
    const sluice_config_code_mode *cm;
    const sluice_schema *schema;
    sluice_codefacts_list tainted;   /* equated with blocked ones in an earlier pass */
    sluice_codefacts_list new_taint; /* found in this pass */
    size_t depth;
    size_t relations; /* FROM items resolved in this pass */
    size_t ctes;      /* CTEs defined in this pass */
    /* the first value computed from a blocked column in this pass (query.c note_computed) */
    const char *computed;
    bool nomem;
} pg_ctx;

/* ---- variables.c ---- */

/* Adds `sql_variables` violations for each $N of tree without a variable "N", each variable no
 * $N uses, and each variable that is not a position. variables_json: the execute-time variables
 * ("{}" for none); NULL (analysis without a request): nothing is checked. SLUICE_E_NOMEM when
 * memory runs out. */
sluice_status
sluice_pgsql_check_variables(pg_ctx *c, const json_t *tree, const char *variables_json);

/* ---- parse.c ---- */

/* Parses text; *tree is the libpg_query JSON (released with arena) or NULL after a syntax error,
 * which is then a violation. Non-OK only on NOMEM. */
sluice_status sluice_pgsql_parse(pg_ctx *c, const char *text, json_t **tree);

/* The one statement of a parsed tree (violations for none or several), or NULL. */
json_t *sluice_pgsql_single_statement(pg_ctx *c, json_t *tree);

/* Sets facts->statement_kind and action from the statement node. */
void sluice_pgsql_classify(pg_ctx *c, json_t *stmt);

/* Canonical form (the tree without locations, keys sorted) and its hash into facts. */
sluice_status sluice_pgsql_canonicalize(pg_ctx *c, json_t *tree);

/* ---- node helpers (parse.c) ---- */

/* The node type of {"Type": {...}} (NULL when node is not one), and its body. */
const char *sluice_pgsql_node_type(json_t *node);
json_t *sluice_pgsql_node_body(json_t *node, const char *type);
/* The sval of a {"String":{"sval":..}} node, or NULL. */
const char *sluice_pgsql_string(json_t *node);
/* Adds a violation at the node's location (its "location" key, else no place). */
void sluice_pgsql_violate(
    pg_ctx *c, json_t *body, const char *rule, const char *suggestion, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Adds s to list, marking the context out of memory on failure. */
void sluice_pgsql_add(pg_ctx *c, sluice_codefacts_list *list, const char *s);
void sluice_pgsql_add_all(pg_ctx *c,
                          sluice_codefacts_list *list,
                          const sluice_codefacts_list *from);

/* ---- query.c ---- */

/* The relation a query node (SelectStmt) produces, resolved in parent (NULL at the top) with
 * the CTEs visible there. Problems are violations; the relation may then be partial. */
pg_rel sluice_pgsql_query(pg_ctx *c, const pg_scope *parent, const pg_cte *ctes, json_t *node);

/* The FROM items of a list (FROM, UPDATE ... FROM, DELETE ... USING) added to s. */
void sluice_pgsql_from_list(pg_ctx *c, pg_scope *s, json_t *from);

/* The table a change writes (a RangeVar of a base table in the catalog; never a view or a CTE):
 * added to resources_written and to s by its alias. False (a violation) when it is not one. */
bool sluice_pgsql_target(pg_ctx *c, pg_scope *s, json_t *range_var);

/* ---- plan.c ---- */

/* Judges PostgreSQL's own plan (sluice_executor_explain's JSON) against the contract: *refused
 * (with plan_refused violations) when it outputs, orders or counts rows by a blocked column, or
 * shows something the walk does not know. SLUICE_E_NOMEM only. */
sluice_status sluice_pgsql_judge_plan(pg_ctx *c, const char *plan_json, bool *refused);

/* ---- write.c ---- */

/* Resolves an INSERT, UPDATE, DELETE, TRUNCATE or MERGE and applies the rules of changes. */
void sluice_pgsql_change(pg_ctx *c, json_t *stmt);

/* ---- expr.c ---- */

/* Adds the base columns expr is computed from to out, applying the predicate rules in mode. */
void sluice_pgsql_expr(
    pg_ctx *c, const pg_scope *s, json_t *expr, pg_mode mode, sluice_codefacts_list *out);

/* True when a base column ("table.column") is blocked: by configuration, by the schema's marks,
 * or tainted by comparison. */
bool sluice_pgsql_blocked(const pg_ctx *c, const char *base);
bool sluice_pgsql_lineage_blocked(const pg_ctx *c, const sluice_codefacts_list *lineage);

/* Resolves an ORDER BY/GROUP BY/USING name against the scope; NULL when unknown. */
const pg_col *sluice_pgsql_find_column(
    pg_ctx *c, const pg_scope *s, const char *qualifier, const char *name, json_t *body);

/* `(alias).field` (an A_Indirection body) as the column it names, or NULL when it is not one. */
const pg_col *sluice_pgsql_field_of_row(pg_ctx *c, const pg_scope *s, json_t *body);

/* ---- functions.c ---- */

/* Checks a called function (lower-case name, schema or NULL): a violation when it is not on the
 * allowlist, naming why for the dangerous ones. Counts aggregates and windows. */
void sluice_pgsql_check_function(pg_ctx *c, json_t *body, const char *schema, const char *name);

/* True for a set-returning function: its arguments decide the row count, wherever it is
 * called (FROM or the SELECT list), so no blocked column may reach them. */
bool sluice_pgsql_set_returning(const char *name);

/* Set-returning functions allowed in FROM (one output column). */
bool sluice_pgsql_table_function_allowed(const char *name);

#endif
