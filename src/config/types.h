/*
 * types.h — the typed configuration's shape: one struct per table, every key's C type.
 *
 * Owns: the types the loader (config.h) fills and every module reads, and that the checks
 * (checks.h) and the key table (keys.h) name; below all three, so the loader runs the checks and
 * the checks read the config without either including the other's header.
 * Does not own: loading, validation, defaults (config.h, config.c).
 */
#ifndef SLUICE_CONFIG_TYPES_H
#define SLUICE_CONFIG_TYPES_H

#include "core/arena.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/strlist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    const char *log_format;          /* text|json; default text */
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
    const char *listen;     /* "host:port" of a separate admin listener; NULL = the MCP one */
} sluice_config_admin;

/* [state] — what replicas share (docs/deploy.md): consume-once token ids and pending approvals
 * in Redis, the audit trail in PostgreSQL, and this replica's name for query-mode sessions. */
typedef struct sluice_config_state {
    const char *redis_url;           /* "redis://HOST:PORT" or "unix:/PATH"; NULL = local files */
    const char *redis_password_file; /* or */
    const char *redis_password_env;
    int64_t redis_timeout_ms;   /* connect and each command; default 2000 */
    const char *redis_prefix;   /* key prefix; default "sluice:" */
    const char *audit_postgres; /* libpq conninfo of the audit database; NULL = audit_log */
    const char *audit_postgres_password_file;
    const char *audit_postgres_password_env;
    const char *audit_postgres_table; /* default "sluice_audit" */
    /* libpq conninfo of the saved-program store shared by replicas (state/program_store_pg.h);
     * NULL = [code_mode] programs_file, or no saved programs */
    const char *programs_postgres;
    const char *programs_postgres_password_file;
    const char *programs_postgres_password_env;
    const char *programs_postgres_table; /* default "sluice_programs" */
    const char *replica_id;              /* names this replica in query-mode session handles */
} sluice_config_state;

typedef enum sluice_engine_kind {
    SLUICE_ENGINE_DUCKDB = 0,
    SLUICE_ENGINE_SQLITE = 1,
    SLUICE_ENGINE_POSTGRES = 2,
    SLUICE_ENGINE_GRAPHQL = 3, /* an upstream GraphQL server over HTTP (exec/graphql_http.c) */
    SLUICE_ENGINE_OPENAPI = 4, /* a REST service described by OpenAPI, run by JS plans */
} sluice_engine_kind;

/* [database] — the backend code mode runs against — and [[databases]], more backends by name,
 * chosen per policy route ([[policy.servers]] database = "<name>"). */
typedef struct sluice_config_database {
    const char *name;          /* [[databases]]: required, unique; [database]: "default" */
    sluice_engine_kind engine; /* engine = "duckdb" | "sqlite" | "postgres"; default duckdb */
    const char *path;          /* database file, relative paths resolved against the config dir */
    const char *memory_limit;  /* DuckDB memory_limit, default "512MB" */
    int64_t threads;           /* DuckDB threads, default 2, range 1..64 */
    /* engine "postgres" (docs/postgres.md): libpq keywords or a URI without a password; the
     * password comes from password_file or password_env only. */
    const char *conninfo;
    const char *password_file;
    const char *password_env;
    const char *search_path; /* pinned per call, default "public" */
    int64_t pool_size;       /* connections kept open, default 4, range 1..64 */
    /* The separate write role that routes allowing writes run as (docs/postgres.md); NULL:
     * every call runs on the read role, so the server refuses any change. */
    const char *write_conninfo;
    const char *write_password_file;
    const char *write_password_env;
    /* engine = "graphql": the upstream server. path is then the schema (SDL file). */
    const char *endpoint;        /* http(s) URL the operation is POSTed to */
    const char *auth_header;     /* header name for the credential; default Authorization */
    const char *auth_token_env;  /* credential from this environment variable, or */
    const char *auth_token_file; /* from this file (first line) */
    const char *auth_scheme;     /* prefix, default "Bearer" ("" = the raw value) */
    int64_t max_response_bytes;  /* default 8 MiB */
    const char *ca_file;         /* extra CA bundle for https (verification stays on) */
    /* engine = "openapi": path is the spec (JSON or YAML); endpoint the base URL (default: the
     * spec's first server). The credential is sent in auth_header, or, when this is set, as
     * this query parameter (an API key in the query string). */
    const char *auth_query_param;
    /* engine = "graphql" | "openapi": the assertion sluice signs for the upstream about the
     * caller (exec/caller_assertion.h), sent in this header on every upstream request; NULL =
     * none. Never the caller's own token. */
    const char *caller_assertion_header;
    const char *caller_assertion_secret_env; /* the HS256 key (at least 32 bytes), or */
    const char *caller_assertion_secret_file;
    const char *caller_assertion_audience; /* its "aud"; default the endpoint */
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
    /* a retry of the call cannot apply it twice; default: PUT and DELETE yes, POST/PATCH no */
    bool idempotent;
    bool has_idempotent; /* idempotent was written */
    /* output-blocked fields a plan may send to this operation (path, query or body): a lookup
     * by that field; its value still never comes back (docs/openapi.md, "Blocked fields") */
    sluice_strlist passable_fields;
} sluice_config_operation;

/* [[code_mode.mcp_servers]] — a downstream MCP server JavaScript plans call with
 * mcp.call(name, tool, args) (exec/mcp_client.h). Started by sluice from command (argv from
 * config only), or reached at url (Streamable HTTP); its tools are listed once at start-up. */
typedef struct sluice_config_mcp_server {
    const char *name;                /* the first argument of mcp.call; required */
    sluice_strlist command;          /* argv of the stdio server; exactly one of command, url */
    const char *url;                 /* the Streamable HTTP server's endpoint */
    const char *token_env;           /* url only: the bearer token's variable, */
    const char *token_file;          /* or its file (first line) */
    sluice_strlist allowed_tools;    /* tools plans may call; ["*"] = every listed tool */
    sluice_strlist read_tools;       /* overrides of the tool's annotations: these are Read, */
    sluice_strlist write_tools;      /* these Write, */
    sluice_strlist delete_tools;     /* these Delete */
    bool allow_writes;               /* Write tools may be called; default false */
    bool allow_deletes;              /* Delete tools may be called; default false */
    int64_t timeout_seconds;         /* one tools/call; default 30 */
    int64_t startup_timeout_seconds; /* initialize + tools/list; default 10 */
    size_t max_response_bytes;       /* one response; default 1 MiB */
} sluice_config_mcp_server;

/* How one class of OpenAPI operations is governed (read_mode .. admin_mode; pmcp-code-mode
 * 0.7.4's modes). DERIVED: from the openapi_* switches and lists, as pmcp derives them. */
typedef enum sluice_class_mode {
    SLUICE_CLASS_MODE_DERIVED = 0,
    SLUICE_CLASS_MODE_DENY_ALL = 1,
    SLUICE_CLASS_MODE_ALLOW_ALL = 2,
    SLUICE_CLASS_MODE_ALLOWLIST = 3,
    SLUICE_CLASS_MODE_BLOCKLIST = 4,
} sluice_class_mode;

/* action_tags = { name = "read" | "write" | "delete" | "admin" }: names[i] is actions[i]. */
typedef struct sluice_config_action_tags {
    const char **names;
    const char **actions; /* the static strings of sluice_keys_action_names */
    size_t count;
} sluice_config_action_tags;

/* A table of name = "string" (file order): caller_roles = { group = "role" }. */
typedef struct sluice_config_strmap {
    const char **names;
    const char **values;
    size_t count;
} sluice_config_strmap;

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
    size_t audit_rotate_bytes;         /* rotate the log past this size; 0 = never */
    int64_t audit_rotate_seconds;      /* rotate a log older than this; 0 = never */
    const char *replay_store;          /* path where used token ids persist; default beside audit */
    /* The saved-program store (codemode/program.h): promoted programs served as tools; NULL =
     * no saved programs. */
    const char *programs_file;
    /* The languages validate_code accepts (lang/registry.h names); the first is the default
     * when a call names none. Default ["sql"]. */
    sluice_strlist languages;
    bool token_bind_session; /* bind tokens to the transport session too; default true */
    /* validate_code {"execute": true} runs an auto-approved program in the same call (issue 23);
     * default false: the two-step contract (read the explanation, then run) stays unless a
     * route opts in. [[policy.servers]] may override it per route. */
    bool execute_on_validate;
    /* The caller inside PostgreSQL (docs/postgres.md, "The caller inside the database"): the
     * role code runs as (SET LOCAL ROLE; the read role must be a member of it), chosen by the
     * first entry of caller_roles (file order) one of whose groups the caller is in, else
     * caller_default_role, else the call is refused; and whether the verified identity is
     * published as the settings sluice.user / sluice.groups for row-level security policies.
     * PostgreSQL only: refused at load for a route on any other engine. */
    sluice_config_strmap caller_roles;
    const char *caller_default_role;
    bool caller_claims; /* default false */
    /* Cost known before approval (issue 24): a read whose engine estimate (PostgreSQL's plan)
     * is above these is refused at validate_code; 0 = no limit. */
    int64_t max_estimated_rows;
    int64_t max_estimated_cost;
    /* The estimate is signed into the token; execute_code makes it again and refuses when the
     * rows or cost grew past this many times the approved figure (default 10; 0 = not checked).
     * docs/config.md says why 10. */
    int64_t estimate_drift_factor;
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
    /* JavaScript plans over an OpenAPI upstream (seed 000's cost-coach keys; docs/js-plans.md) */
    int64_t max_api_calls;                          /* every upstream call counts; default 50 */
    int64_t max_loop_iterations;                    /* all loops of a plan together; default 100 */
    bool openapi_reads_enabled;                     /* default true */
    bool openapi_allow_writes;                      /* default false */
    bool openapi_allow_deletes;                     /* default false */
    sluice_strlist openapi_output_blocked_fields;   /* never in a plan's result, any depth */
    sluice_strlist openapi_internal_blocked_fields; /* stripped from responses before the plan */
    /* The class policy (facts/class_policy.h): modes per class, their lists, blocked paths. */
    sluice_class_mode read_mode, write_mode, delete_mode, admin_mode; /* default derived */
    sluice_strlist openapi_allowed_reads;    /* read allowlist (sluice's; pmcp has none) */
    sluice_strlist openapi_allowed_writes;   /* write allowlist: ids, "POST /x", "POST:/x/{id}" */
    sluice_strlist openapi_allowed_deletes;  /* delete allowlist */
    sluice_strlist openapi_allowed_admin;    /* admin allowlist (sluice's) */
    sluice_strlist openapi_blocked_writes;   /* methods or operations blocked in every class */
    sluice_strlist openapi_blocked_paths;    /* path globs blocked in every class */
    bool openapi_require_output_declaration; /* every return has a declared shape */
    /* pmcp's SDK mode: when not empty, a plan calls these operations (OpenAPI operationIds) as
     * api.<operationId>(args), and only these: api.get(path) and the other path-form methods are
     * refused. Each call is composed into the operation's request and checked as the path form
     * is (lang/js/analyze.c, exec/openapi.c). */
    sluice_strlist sdk_operations;
    sluice_config_action_tags action_tags; /* operation or root field -> its action */
    int64_t max_field_count;               /* GraphQL fields selected, fragments expanded */
    sluice_config_operation *operations;   /* [[code_mode.operations]] */
    size_t operation_count;
    sluice_strlist delete_operations; /* ids of the operations with category "delete" */
    int64_t max_steps;                /* interpreter steps per plan; default 10,000,000 */
    int64_t max_memory_bytes;         /* memory a plan's values may hold; default 64 MiB */
    sluice_graphql_blocked_output openapi_blocked_output; /* "strip" | "refuse"; default strip */
    sluice_config_mcp_server *mcp_servers;                /* [[code_mode.mcp_servers]] */
    size_t mcp_server_count;
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
    sluice_strlist graphql_size_arguments;  /* list-size arguments beside first, last, limit */
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
    /* integer / number parameters: the inclusive range the tool's inputSchema enforces;
     * SLUICE_PARAM_NO_MIN / SLUICE_PARAM_NO_MAX when not set */
    int64_t minimum;
    int64_t maximum;
} sluice_config_param;

#define SLUICE_PARAM_NO_MIN INT64_MIN
#define SLUICE_PARAM_NO_MAX INT64_MAX

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

/* The quotas a caller has per route (state/quota.h): [quotas] for every route, a route's
 * `quotas` table for its own. Names the fields of sluice_config_quotas, in their order. */
typedef enum sluice_quota_id {
    SLUICE_QUOTA_VALIDATE_PER_MINUTE = 0,
    SLUICE_QUOTA_VALIDATE_PER_DAY = 1,
    SLUICE_QUOTA_EXECUTE_PER_MINUTE = 2,
    SLUICE_QUOTA_EXECUTE_PER_DAY = 3,
    SLUICE_QUOTA_ROWS_PER_DAY = 4,
    SLUICE_QUOTA_BYTES_PER_DAY = 5,
    SLUICE_QUOTA_UPSTREAM_CALLS_PER_DAY = 6,
    SLUICE_QUOTA_COUNT = 7,
} sluice_quota_id;

/* Each limit per principal: > 0 the limit, 0 no limit, -1 not set (a route inherits
 * [quotas]). */
typedef struct sluice_config_quotas {
    int64_t validate_per_minute, validate_per_day, execute_per_minute, execute_per_day;
    int64_t rows_per_day, bytes_per_day, upstream_calls_per_day;
} sluice_config_quotas;

/* [[policy.servers]] — role-to-server routing: a caller in one of `groups` is evaluated against
 * this server id, with these overrides of [code_mode] (src/policy/policy.h derives the rules). */
typedef struct sluice_config_policy_server {
    const char *id; /* the Cedar resource CodeMode::Server::"<id>" */
    sluice_strlist groups;
    bool allow_writes, allow_deletes, allow_admin, execute_on_validate;
    /* Set when the key is present; absent keys inherit [code_mode]. */
    bool has_allow_writes, has_allow_deletes, has_allow_admin, has_execute_on_validate;
    /* The caller inside PostgreSQL, as in [code_mode]; present keys replace its. */
    sluice_config_strmap caller_roles;
    const char *caller_default_role;
    bool caller_claims;
    bool has_caller_roles, has_caller_default_role, has_caller_claims;
    int64_t max_estimated_rows, max_estimated_cost; /* 0 = [code_mode]'s */
    int64_t estimate_drift_factor;                  /* 0 = [code_mode]'s */
    sluice_strlist allowed_operations; /* SQL: "<kind>_<table>", e.g. "update_budget_note" */
    int64_t max_rows;                  /* 0 = [code_mode] sql_max_rows */
    const char *database;              /* a [[databases]] name; NULL = [database] */
    sluice_config_quotas quotas;       /* `quotas = { ... }`: this route's own limits */
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

/* [query_mode] — bulk reads into a per-caller scratch DuckDB session (docs/query-mode.md). */
typedef struct sluice_config_query_mode {
    bool enabled;
    int64_t session_ttl_seconds;        /* idle TTL; default 600 */
    int64_t max_sessions;               /* in total; default 64 */
    int64_t max_sessions_per_principal; /* default 4 */
    const char *session_memory_limit;   /* DuckDB memory_limit per session; default "256MB" */
    const char *session_max_spill;      /* max_temp_directory_size per session; default "1GB" */
    const char *spill_dir;              /* parent of the per-session folders; default /tmp */
    int64_t max_load_rows;              /* per load; default 1000000 */
    size_t max_load_bytes;              /* response bytes per load; default 256 MiB */
    int64_t max_pages;                  /* per load unless a source says fewer; default 1000 */
    int64_t query_max_rows;             /* rows a query returns; default 1000 */
    size_t query_max_bytes;             /* bytes a query returns; default 1 MiB */
    int64_t query_timeout_seconds;      /* default 30 */
    size_t cache_max_bytes;             /* the per-principal source cache, all users; 64 MiB */
} sluice_config_query_mode;

/* [[sources.params]] — one request parameter; with `column` a SQL filter that maps onto it. */
typedef struct sluice_config_source_param {
    const char *name;          /* the request's query parameter */
    const char *default_value; /* key "default" */
    const char *column;        /* the filter column it pushes down; NULL = args only */
    const char *op;            /* key "operator": "=", ">=", ">", "<=", "<"; default "=" */
    bool required;             /* a load without it (and without a default) is refused */
} sluice_config_source_param;

/* [[sources.columns]] — one column of the source's table. */
typedef struct sluice_config_source_column {
    const char *name; /* SQL column name */
    const char *type; /* VARCHAR, BIGINT, INTEGER, DOUBLE, BOOLEAN, DATE, TIMESTAMP, DECIMAL(p,s) */
    const char *path; /* dotted path in a row object; default name */
} sluice_config_source_column;

/* [sources.response] */
typedef struct sluice_config_source_response {
    const char *path; /* dotted path to the rows array ("Invoices", "data.items"); "" = the body */
} sluice_config_source_response;

/* [sources.pagination] */
typedef struct sluice_config_source_pagination {
    const char *style;        /* "none" | "page" | "offset" | "cursor" | "link" | "body_next" */
    const char *page_param;   /* page: default "page" */
    int64_t first_page;       /* page: default 1 */
    const char *offset_param; /* offset: default "offset" */
    const char *size_param;   /* the page-size parameter; default "page_size" */
    int64_t page_size;        /* default 100 */
    const char *cursor_param; /* cursor: default "cursor" */
    const char *cursor_path;  /* cursor: dotted path of the next cursor; default "next_cursor" */
    const char *next_path;    /* body_next: dotted path of the next URL; default "next" */
    int64_t max_pages;        /* 0 = [query_mode] max_pages */
} sluice_config_source_pagination;

/* [[sources]] — a read source query mode can load as a table. */
typedef struct sluice_config_source {
    const char *name;
    const char *kind; /* "http" | "file" | "mcp" */
    const char *description;
    const char *file;        /* kind = "file": the CSV, Parquet or JSON file (config-relative) */
    const char *format;      /* kind = "file": "csv" | "parquet" | "json" | "auto" (by suffix) */
    sluice_strlist command;  /* kind = "mcp": the downstream server's argv (stdio) */
    const char *tool;        /* kind = "mcp": the read tool called */
    const char *base_url;    /* kind = "http": http(s)://host[:port] */
    const char *path;        /* request path, default "/" */
    const char *method;      /* "GET" */
    sluice_strlist headers;  /* "Name: value", never secrets */
    const char *auth_header; /* default "Authorization" */
    const char *auth_scheme; /* default "Bearer"; "" sends the token alone */
    const char *token_env;   /* credential from the environment ... */
    const char *token_file;  /* ... or a file; never inline */
    sluice_config_source_param *params;
    size_t param_count;
    sluice_config_source_column *columns; /* none: inferred from the first page */
    size_t column_count;
    sluice_config_source_response response;
    sluice_config_source_pagination pagination;
    int64_t requests_per_minute;     /* 0 = no limit */
    int64_t max_retries;             /* on 429 and 5xx; default 5 */
    int64_t retry_base_ms;           /* first backoff; doubles; default 200 */
    int64_t retry_after_max_seconds; /* longest Retry-After honoured; default 60 */
    int64_t timeout_seconds;         /* per request; default 30 */
    bool allow_404_empty;            /* a 404 is an empty result, not an error */
    sluice_strlist blocked_columns;  /* join/filter only, never returned */
    bool auto_load;                  /* `query` naming it loads it, with its filters pushed down */
    int64_t cache_ttl_seconds;       /* the per-principal cache of its loads; 0 = none; 300 */
    int64_t max_concurrency;         /* page/offset pages of one load in flight at once; 1 */
    size_t line;
} sluice_config_source;

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
    sluice_config_state state;
    sluice_config_quotas quotas; /* [quotas]: every route's, unless the route sets its own */
    sluice_config_tool *tools;
    size_t tool_count;
    sluice_config_prompt *prompts;
    size_t prompt_count;
    sluice_config_resource *resources;
    size_t resource_count;
    sluice_config_policy policy;
    bool has_policy; /* a [policy] table was present */
    sluice_config_query_mode query_mode;
    sluice_config_source *sources; /* [[sources]] */
    size_t source_count;
} sluice_config;

#endif
