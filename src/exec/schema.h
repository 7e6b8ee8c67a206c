/*
 * schema.h — the database schema as sluice sees it: tables, columns, types, and the exposure
 * marks (blocked = joinable-not-returnable, hidden = not exposed at all).
 *
 * Owns: the plain data structure, filled by each executor's introspection (exec/duckdb.c,
 * exec/sqlite.c) and read by the analyzer (to mirror a catalog), the code-mode://schema resource
 * and the context hash. Does not own: how it is read from an engine.
 */
#ifndef SLUICE_EXEC_SCHEMA_H
#define SLUICE_EXEC_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sluice_arena;
struct sluice_config_code_mode;

/* Whether one caller may call an API operation: their policy's verdict on a program that calls
 * that operation alone (action: a sluice_action). */
typedef bool (*sluice_schema_may_call)(void *ctx, const char *operation, int action);

typedef struct sluice_schema_column {
    const char *name;
    const char *type; /* engine type text: "INTEGER", "VARCHAR", "TIMESTAMP", ... */
    bool nullable;
    bool blocked; /* in blocked_fields: usable in joins/filters, never in output */
} sluice_schema_column;

/* What the model is told about a column beside its type; NULL/false when the engine does not
 * say (only DuckDB fills them today). values: the few distinct values of a short text column
 * ("'enterprise', 'free', 'pro'"), never shown for a blocked column. */
typedef struct sluice_schema_column_notes {
    bool primary_key;
    const char *references; /* "customers.id" for a foreign key */
    const char *comment;
    const char *values;
} sluice_schema_column_notes;

typedef struct sluice_schema_table_notes {
    const char *comment;                 /* COMMENT ON TABLE, NULL when none */
    sluice_schema_column_notes *columns; /* the table's column_count entries */
    /* An API entry (schema "openapi": an operation, or a named type when is_view): its
     * TypeScript-style declaration, what the describe tool shows; NULL for tables. */
    const char *declaration;
    /* An operation's action ("read", "write", "delete", "admin"); NULL for anything else. */
    const char *action;
} sluice_schema_table_notes;

typedef struct sluice_schema_table {
    const char *schema; /* "main" */
    const char *name;
    bool is_view;
    bool hidden; /* excluded by exposure rules (allow/block lists) */
    sluice_schema_column *columns;
    size_t column_count;
    int64_t approx_rows; /* -1 unknown */
    /* A view's defining query in the engine's dialect, for front ends that resolve names
     * themselves (PostgreSQL); NULL when the engine does not report it. */
    const char *definition;
} sluice_schema_table;

typedef struct sluice_schema {
    sluice_schema_table *tables;
    size_t table_count;
    char version_hash[65]; /* hex SHA-256 over names and types, for the token's context hash */
    /* An API backend's own schema document (GraphQL SDL), NULL for databases; the front end
     * of that language builds its model from it. */
    const char *document;
    size_t document_len;
    /* table_count entries, by the index of tables; NULL when the engine gives none (kept out of
     * the table and column structs so their positional initializers stay valid) */
    sluice_schema_table_notes *notes;
    /* The model the language's describer built of document, living as long as this schema (a
     * catalog snapshot re-read on SIGHUP carries its own); NULL: front ends build or cache one. */
    const void *document_model;
    /* What code-mode://schema shows instead of tables when set: an API backend's compact
     * declaration of what code may call (OpenAPI: TypeScript-style), under the server's own
     * [code_mode] rules. */
    const char *declaration;
    /* The declaration as one caller may use it: under their route's rules, each operation also
     * asked of may_call (NULL: rules alone), so a writer sees the request bodies of the writes
     * it may call and the rest is named as not callable. declare_state is the backend's; the
     * text is in arena, NULL on NOMEM. NULL when the declaration is the same for everyone. */
    const char *(*declare)(const void *declare_state,
                           struct sluice_arena *arena,
                           const struct sluice_config_code_mode *rules,
                           sluice_schema_may_call may_call,
                           void *may_ctx);
    const void *declare_state;
    /* A plan backend's downstream MCP tools (exec/mcp_plan.h's catalog document, JSON text), NULL
     * when it has none: the JavaScript front end resolves mcp.call sites against it. */
    const char *mcp_tools;
} sluice_schema;

#endif
