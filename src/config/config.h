/*
 * config.h — the typed configuration: every key sluice accepts, its type, range and default.
 *
 * Owns: reading a TOML file into sluice_config, validating every key (an unknown or misspelled
 * key, a wrong type or an out-of-range value is an error naming file, line, column and key, with
 * "did you mean" where one fits), and refusing keys whose feature is not built yet with a message
 * saying so. A silently ignored typo is a security bug here.
 * Does not own: what the settings do; each module reads its own part.
 *
 * The whole config lives in one arena (sluice_config_free releases it) and is replaced whole on
 * reload, never patched. Strings are NUL-terminated; arrays come with a count.
 */
#ifndef SLUICE_CONFIG_CONFIG_H
#define SLUICE_CONFIG_CONFIG_H

#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sluice_strlist {
    const char **items;
    size_t count;
} sluice_strlist;

/* [server] — transport and MCP surface. */
typedef struct sluice_config_server {
    const char *name;                /* serverInfo.name; default "sluice" */
    const char *instructions;        /* InitializeResult.instructions; NULL = built-in text */
    const char *listen;              /* "127.0.0.1:8808" default; "host:port" */
    const char *listen_host;         /* listen parsed: "127.0.0.1" or "::1" (no brackets) */
    uint16_t listen_port;            /* listen parsed; 0 = any free port */
    sluice_strlist allowed_origins;  /* exact "scheme://host[:port]"; default: loopback origins */
    sluice_strlist allowed_hosts;    /* Host header values accepted; default: loopback names */
    size_t max_body_bytes;           /* default 1 MiB, range 1 KiB .. 64 MiB */
    size_t max_sessions;             /* default 256, range 1 .. 65536 */
    int64_t session_idle_seconds;    /* default 1800, range 10 .. 604800 */
    int64_t request_timeout_seconds; /* server->client requests (elicitation...); default 60 */
    const char *log_level;           /* debug|info|warn|error; default info */
} sluice_config_server;

/* [identity] — who the stdio caller is (HTTP callers authenticate per request). */
typedef struct sluice_config_identity {
    const char *user; /* default: $SLUICE_USER, else "local" */
    sluice_strlist groups;
} sluice_config_identity;

/* [[api_keys]] — static API keys for HTTP, mapped to a user and groups. The key itself is never
 * in the file: either its SHA-256 (hex) or the name of an environment variable holding it. */
typedef struct sluice_config_api_key {
    const char *user;
    sluice_strlist groups;
    const char *sha256_hex; /* key_sha256 */
    const char *env;        /* key_env */
    size_t line;            /* where it was declared, for messages */
} sluice_config_api_key;

/* [auth] — OAuth 2.1 bearer JWTs for HTTP (resource server side; see docs/security.md). */
typedef struct sluice_config_auth {
    const char *jwks_file;                /* public keys (JWKS JSON); enables JWT authentication */
    const char *hs256_secret_file;        /* optional shared secret; HS256 only when set */
    const char *issuer;                   /* required with jwks_file / hs256_secret_file */
    const char *audience;                 /* default: resource_url */
    const char *user_claim;               /* default "sub" */
    const char *groups_claim;             /* default "groups" */
    int64_t clock_skew_seconds;           /* default 60, range 0 .. 600 */
    sluice_strlist authorization_servers; /* required with jwks_file / hs256_secret_file */
    sluice_strlist scopes_supported;      /* advertised in the protected resource metadata */
    const char *resource_url;  /* canonical https://host/mcp; default http://<listen>/mcp */
    const char *resource_name; /* default server.name */
} sluice_config_auth;

/* [admin] — the credential of the HTTP admin endpoint (never an MCP API key). */
typedef struct sluice_config_admin {
    const char *key_sha256; /* SHA-256 (hex) of the admin key */
    const char *key_env;    /* or the environment variable holding it */
} sluice_config_admin;

typedef enum sluice_engine_kind {
    SLUICE_ENGINE_DUCKDB = 0,
    SLUICE_ENGINE_SQLITE = 1,
    SLUICE_ENGINE_GRAPHQL = 2, /* an upstream GraphQL server over HTTP (exec/graphql_http.c) */
} sluice_engine_kind;

/* [database] — the backend code mode runs against — and [[databases]], more backends by name,
 * chosen per policy route ([[policy.servers]] database = "<name>"). */
typedef struct sluice_config_database {
    const char *name;          /* [[databases]]: required, unique; [database]: "default" */
    sluice_engine_kind engine; /* engine = "duckdb" | "sqlite"; default duckdb */
    const char *path;          /* database file, relative paths resolved against the config dir */
    const char *memory_limit;  /* DuckDB memory_limit, default "512MB" */
    int64_t threads;           /* DuckDB threads, default 2, range 1..64 */
    /* engine = "graphql": the upstream server. path is then the schema (SDL file). */
    const char *endpoint;        /* http(s) URL the operation is POSTed to */
    const char *auth_header;     /* header name for the credential; default Authorization */
    const char *auth_token_env;  /* credential from this environment variable, or */
    const char *auth_token_file; /* from this file (first line) */
    const char *auth_scheme;     /* prefix, default "Bearer" ("" = the raw value) */
    int64_t max_response_bytes;  /* default 8 MiB */
    const char *ca_file;         /* extra CA bundle for https (verification stays on) */
} sluice_config_database;

/* Signed into approval tokens by number (token.h): append only, never renumber. */
typedef enum sluice_risk {
    SLUICE_RISK_LOW = 0,
    SLUICE_RISK_MEDIUM = 1,
    SLUICE_RISK_HIGH = 2,
    SLUICE_RISK_CRITICAL = 3,
} sluice_risk;

typedef enum sluice_exposure {
    SLUICE_EXPOSURE_FULL = 0,
    SLUICE_EXPOSURE_READ_ONLY = 1,
    SLUICE_EXPOSURE_ALLOWLIST = 2,
} sluice_exposure;

/* [[code_mode.operations]] — the named operations code may call, with their category. */
typedef struct sluice_config_operation {
    const char *id;
    const char *category; /* "read" | "write" | "delete" | "admin" */
    const char *description;
    const char *path;
} sluice_config_operation;

typedef enum sluice_graphql_blocked_output {
    SLUICE_GRAPHQL_STRIP = 0,
    SLUICE_GRAPHQL_REFUSE = 1,
} sluice_graphql_blocked_output;

/* [code_mode] — the pmcp-code-mode key names, enforced natively. */
typedef struct sluice_config_code_mode {
    bool enabled;                  /* default false */
    const char *server_id;         /* default = server.name */
    int64_t token_ttl_seconds;     /* default 300, range 10 .. 86400 */
    const char *token_secret_file; /* one of these two is required when enabled */
    const char *token_secret_env;
    const char *token_previous_secret_file; /* rotation: verifies, never signs */
    const char *token_previous_secret_env;
    bool auto_approve[4]; /* auto_approve_levels, indexed by sluice_risk; default low */
    int64_t execution_timeout_seconds; /* default 30, range 1 .. 3600 */
    int64_t analysis_timeout_ms;       /* default 2000 (0 = default), range 100 .. 60000 */
    int64_t analysis_memory_mb;        /* default 256 (0 = default), range 32 .. 65536 */
    int64_t max_result_bytes;          /* default 1 MiB */
    sluice_exposure schema_exposure;   /* "full" | "read_only" | "allowlist"; default full */
    const char *audit_log;             /* path of the hash-chained audit log; NULL = off */
    const char *replay_store;          /* path where used token ids persist; default beside audit */
    /* The languages validate_code accepts (lang/registry.h names); the first is the default
     * when a call names none. Default ["sql"]. */
    sluice_strlist languages;
    bool token_bind_session; /* bind tokens to the transport session too; default true */
    /* SQL */
    bool sql_reads_enabled;            /* default true */
    bool sql_allow_writes;             /* default false */
    bool sql_allow_deletes;            /* default false */
    bool sql_allow_ddl;                /* default false */
    bool sql_require_where_on_writes;  /* default true */
    bool sql_require_limit;            /* default false */
    int64_t sql_max_rows;              /* default 10000, range 1 .. 10,000,000 */
    int64_t sql_max_joins;             /* default 5, range 0 .. 64 */
    sluice_strlist sql_allowed_tables; /* empty = all */
    sluice_strlist sql_blocked_tables;
    sluice_strlist sql_blocked_columns; /* "col" or "table.col"; merged with blocked_fields */
    sluice_strlist blocked_fields;
    /* Accepted for the later interpreters (seed 000's cost-coach keys), refused while unbuilt. */
    int64_t max_api_calls;
    int64_t max_loop_iterations;
    sluice_config_operation *operations; /* [[code_mode.operations]] */
    size_t operation_count;
    sluice_strlist delete_operations; /* ids of the operations with category "delete" */
    /* GraphQL (lang/graphql/validate.h): limits counted with fragments expanded. */
    int64_t graphql_max_depth;              /* default 10 */
    int64_t graphql_max_aliases;            /* default 15 */
    int64_t graphql_max_root_fields;        /* default 20 */
    int64_t graphql_max_directives;         /* default 50 */
    int64_t graphql_max_tokens;             /* default 1000 */
    int64_t graphql_max_chars;              /* default 15000 */
    int64_t graphql_max_cost;               /* default 5000 */
    bool graphql_allow_introspection;       /* default false: introspection is an Admin action */
    sluice_strlist graphql_blocked_fields;  /* "Type.field" or "field": never returned */
    sluice_strlist graphql_delete_patterns; /* mutation names (globs) that are deletes */
    sluice_graphql_blocked_output graphql_blocked_output; /* "strip" | "refuse"; default strip */
    bool graphql_persisted_only;                          /* only operations in the manifest run */
    const char *graphql_persisted_manifest; /* Apollo persisted-query manifest (JSON) */
    bool allow_mutations;                   /* default false: only allowed_mutations run */
    sluice_strlist allowed_mutations, blocked_mutations, allowed_queries, blocked_queries;
} sluice_config_code_mode;

/* [[tools]] — curated, parameterised SQL tools (MCP Toolbox style) beside code mode. */
typedef enum sluice_param_type {
    SLUICE_PARAM_STRING = 0,
    SLUICE_PARAM_INTEGER = 1,
    SLUICE_PARAM_NUMBER = 2,
    SLUICE_PARAM_BOOLEAN = 3,
} sluice_param_type;

typedef struct sluice_config_param {
    const char *name;
    sluice_param_type type;
    const char *description;
    bool required; /* default true */
} sluice_config_param;

typedef struct sluice_config_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *statement; /* SQL with $name placeholders */
    sluice_config_param *params;
    size_t param_count;
    size_t line;
} sluice_config_tool;

/* [[prompts]] — static prompts served as-is, with {{arg}} substitution. */
typedef struct sluice_config_prompt_arg {
    const char *name;
    const char *description;
    bool required;
} sluice_config_prompt_arg;

typedef struct sluice_config_prompt_message {
    const char *role; /* "user" | "assistant" */
    const char *text;
} sluice_config_prompt_message;

typedef struct sluice_config_prompt {
    const char *name;
    const char *title;
    const char *description;
    sluice_config_prompt_arg *args;
    size_t arg_count;
    sluice_config_prompt_message *messages;
    size_t message_count;
} sluice_config_prompt;

/* [[resources]] — static resources: inline text, or a file read at load time. */
typedef struct sluice_config_resource {
    const char *uri;
    const char *name;
    const char *title;
    const char *description;
    const char *mime_type; /* default text/plain */
    const char *text;      /* text = "..." or file = "path" (read at load) */
    size_t text_len;
    bool is_blob;     /* file with a non-text mime type: served base64 */
    const char *file; /* resolved path when the content came from a file */
} sluice_config_resource;

/* [[policy.servers]] — role-to-server routing: a caller in one of `groups` is evaluated against
 * this server id, with these overrides of [code_mode] (src/policy/policy.h derives the rules). */
typedef struct sluice_config_policy_server {
    const char *id; /* the Cedar resource CodeMode::Server::"<id>" */
    sluice_strlist groups;
    bool allow_writes, allow_deletes, allow_admin;
    /* Set when the key is present; absent keys inherit [code_mode]. */
    bool has_allow_writes, has_allow_deletes, has_allow_admin;
    sluice_strlist allowed_operations; /* SQL: "<kind>_<table>", e.g. "update_budget_note" */
    int64_t max_rows;                  /* 0 = [code_mode] sql_max_rows */
    const char *database;              /* a [[databases]] name; NULL = [database] */
    size_t line;
} sluice_config_policy_server;

typedef enum sluice_policy_backend {
    SLUICE_POLICY_BACKEND_NONE = 0,
    SLUICE_POLICY_BACKEND_CEDAR = 1,
    SLUICE_POLICY_BACKEND_COMMAND = 2,
} sluice_policy_backend;

/* [policy] — who may do what, evaluated on every validate and execute. */
typedef struct sluice_config_policy {
    sluice_policy_backend backend; /* backend = "cedar" | "none" | "command" (required) */
    const char *policies;          /* cedar: policy file (required) */
    const char *entities;          /* cedar: extra entities, Cedar JSON (optional) */
    const char *schema;            /* cedar: JSON schema the policies must validate against */
    sluice_strlist command;        /* command: argv */
    int64_t timeout_ms;            /* command: default 2000, range 10 .. 60000 */
    sluice_config_policy_server *servers;
    size_t server_count;
} sluice_config_policy;

typedef struct sluice_config {
    sluice_arena *arena; /* owns everything below */
    const char *path;    /* the file it came from */
    const char *dir;     /* its directory, for relative paths */
    sluice_config_server server;
    sluice_config_identity identity;
    sluice_config_api_key *api_keys;
    size_t api_key_count;
    sluice_config_auth auth;
    sluice_config_admin admin;
    sluice_config_database database;
    bool has_database;
    sluice_config_database *databases; /* [[databases]] */
    size_t database_count;
    sluice_config_code_mode code_mode;
    sluice_config_tool *tools;
    size_t tool_count;
    sluice_config_prompt *prompts;
    size_t prompt_count;
    sluice_config_resource *resources;
    size_t resource_count;
    sluice_config_policy policy;
    bool has_policy; /* a [policy] table was present */
} sluice_config;

/* Loads and validates path. On failure returns SLUICE_E_CONFIG (or E_IO / E_NOMEM), err names
 * file, line, column, key and, where it fits, "did you mean 'x'?" in err->hint; error strings
 * live in err_arena. On success *out is a fresh config the caller frees. */
sluice_status sluice_config_load(const char *path,
                                 sluice_config **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err);

/* Same, from text already in memory (tests, fuzzing); dir resolves relative paths. */
sluice_status sluice_config_load_text(const char *text,
                                      size_t len,
                                      const char *source,
                                      const char *dir,
                                      sluice_config **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);

/* A config with every default and no file (used when a test builds one by hand). */
sluice_status sluice_config_defaults(sluice_config **out);

void sluice_config_free(sluice_config *config);

/* Calls fn once per key sluice recognises: table is its table's path ("code_mode",
 * "tools.parameters"; "" for the top-level tables themselves), built is false for keys refused
 * until their feature lands (and for inline secrets). For docs checks and tooling. */
void sluice_config_each_key(void (*fn)(const char *table, const char *key, bool built, void *ctx),
                            void *ctx);

/* True when err refuses a secret written inline in the file: render it without the source text
 * (sluice_error_render(arena, err, NULL, 0)) so the secret is not echoed to terminals and logs. */
bool sluice_config_error_quotes_secret(const sluice_error *err);

/* "low" | "medium" | "high" | "critical" */
const char *sluice_risk_name(sluice_risk risk);

#endif
