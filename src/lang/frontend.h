/*
 * frontend.h — the language front-end interface: parse, canonicalize, analyze → CodeFacts,
 * explain, risk.
 *
 * Owns: the small vtable every language (sql, graphql, js, mcp) implements and registers
 * (lang/registry.h), and the context a front end may read while analyzing (configuration,
 * schema, the executor's catalog/bind service).
 * Does not own: execution (src/exec/), policy, risk or tokens. A front end never executes.
 *
 * Contract for analyze: it returns SLUICE_OK with *out set whenever it could look at the code,
 * including when the code is refused: everything wrong with the input (syntax, statement count,
 * rules, blocked fields) is a violation inside the CodeFacts, so callers have one shape to
 * render. Non-OK means the analyzer itself failed (SLUICE_E_NOMEM, SLUICE_E_LIMIT for code over
 * SLUICE_LIMIT_CODE_BYTES, SLUICE_E_INTERNAL) and err says why; *out is then untouched. An
 * allocation that failed anywhere during the analysis (even one a stage handled) is non-OK:
 * never a verdict built from partial facts.
 */
#ifndef SLUICE_LANG_FRONTEND_H
#define SLUICE_LANG_FRONTEND_H

#include "config/config.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/error.h"
#include "exec/schema.h"
#include "facts/codefacts.h"

#include <stddef.h>

struct sluice_executor; /* exec/executor.h */
struct sluice_identity; /* auth/identity.h */

/* What a front end may consult. Engine handles are opaque here so this header stays free of
 * engine types; each front end documents which it needs. */
typedef struct sluice_frontend_context {
    const sluice_config_code_mode *code_mode; /* rules; NULL = pmcp defaults */
    const sluice_schema *schema; /* NULL: asked of the executor when a front end needs it */
    sluice_engine_kind engine;
    /* The executor the code will run on (preferred). A front end uses only its catalog/bind
     * service (exec/executor.h: schema, bind_catalog, engine_reads), never an engine by name. */
    struct sluice_executor *executor;
    /* Without an executor (tests, tools): a duckdb_database handle itself (not a pointer to
     * it) to bind against. */
    void *duckdb_database;
    /* The caller the code is judged for, and the database role its execution will run as
     * (policy.h sluice_policy_db_role; NULL: the connection's own). A front end that asks the
     * engine for a plan asks it as that role, with the same claims (code_mode->caller_claims),
     * so row-level security and permissions shape the estimate as they will the run. */
    const struct sluice_identity *identity;
    const char *db_role;
} sluice_frontend_context;

/* A language's part of code-mode://instructions; codemode/guide.c frames it with the steps every
 * language shares (schema, validate_code, execute_code). Strings static or in the arena. */
typedef struct sluice_frontend_guide {
    const char *title;     /* "SQL, duckdb dialect" */
    const char *pitch;     /* one sentence: the ONE program to write instead of chained tools */
    const char *schema;    /* what code-mode://schema lists: "the tables you may use" */
    const char *variables; /* what `variables` fills: "`$name` parameters" */
    const char *unit;      /* what validate_code explains: "statement" */
    const char *rules;     /* Markdown paragraphs: limits, blocked fields, what is refused */
    /* For the tool descriptions and the prompt (default language): */
    const char *noun;     /* "SQL statement": "Validate ONE <noun> before running it" */
    const char *run_noun; /* "SQL": "Run <run_noun> that validate_code approved" */
    const char *result;   /* what execute_code returns, a sentence or two */
    const char *approach; /* how to answer well: "with aggregates and a LIMIT"; "" for none */
} sluice_frontend_guide;

typedef struct sluice_frontend {
    const char *language; /* "sql": the value of validate_code's `language` argument */

    /* Analyzes code (code_len bytes, need not be NUL-terminated). variables_json is the
     * execute-time variables object as JSON text, or NULL. See the contract above. */
    sluice_status (*analyze)(sluice_arena *arena,
                             const char *code,
                             size_t code_len,
                             const char *variables_json,
                             const sluice_frontend_context *ctx,
                             sluice_codefacts **out,
                             sluice_error *err);

    /* The hex SHA-256 of the canonical form (65 bytes with NUL) without a full analysis;
     * SLUICE_E_INVALID (err with line/column) when the code does not parse. */
    sluice_status (*canonical_hash)(sluice_arena *arena,
                                    const char *code,
                                    size_t code_len,
                                    const sluice_frontend_context *ctx,
                                    char out_hex[65],
                                    sluice_error *err);

    /* A business-language explanation of the facts, in arena; NULL on NOMEM. Called for refused
     * facts too (they may lack the extension). */
    const char *(*explain)(sluice_arena *arena, const sluice_codefacts *facts);

    /* The language's own risk for facts that were not refused; *reason gets a static sentence.
     * The pipeline raises it to the floor of the action (codemode/risk.h). NULL: the floor
     * alone. */
    sluice_risk (*risk)(const sluice_codefacts *facts, const char **reason);

    /* Fills *out for code-mode://instructions under rules on a backend of engine_name;
     * SLUICE_E_NOMEM. NULL: the guide says only what every language shares. */
    sluice_status (*guide)(sluice_arena *arena,
                           const sluice_config_code_mode *rules,
                           const char *engine_name,
                           sluice_frontend_guide *out);
} sluice_frontend;

/* For guide hooks: appends `a`, `b`, ... of both lists (either may be empty), or "none". */
void sluice_frontend_guide_list(sluice_buf *b,
                                const sluice_strlist *first,
                                const sluice_strlist *second);

/* For canonical_hash implementations that run the full analysis: copies the facts' code hash
 * into out_hex, or returns SLUICE_E_INVALID (err with line/column) when a violation says the
 * code does not parse (syntax_error, empty_statement, multiple_statements). */
sluice_status sluice_frontend_hash_of(sluice_arena *arena,
                                      const sluice_codefacts *facts,
                                      char out_hex[65],
                                      sluice_error *err);

#endif
