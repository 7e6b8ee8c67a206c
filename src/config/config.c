/*
 * config.c — the typed configuration loader (see config.h).
 *
 * Owns: the key tables, one declarative row per key (name, type, field, range, default, refused or
 * not), computed defaults, checks across sections (uniqueness, merged blocked columns), and the
 * entry points. Adding a key is one row here and one in docs/config.md; the generic decoder
 * (keys.c) gives it type and range checks, "did you mean" and its default; checks.c holds the
 * rules a type cannot express.
 * Does not own: TOML syntax (toml.c), what a setting does (each module reads its part), secrets
 * (the token module reads token_secret_file / token_secret_env; no secret is ever in here).
 *
 * The TOML tree lives in a scratch arena freed before returning; everything the config keeps is
 * copied into the config's own arena. Error strings live in the caller's err_arena.
 */
#include "config/config.h"

#include "config/checks.h"
#include "config/keys.h"
#include "config/toml.h"
#include "core/limits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------
 * Computed defaults
 * ------------------------------------------------------------------------------------------ */

static sluice_status
strlist_of(sluice_keys_loader *ld, sluice_strlist *out, const char *const *items)
{
    size_t n = 0;
    while (items[n] != NULL)
        n++;
    const char **copy = sluice_arena_calloc(ld->arena, n, sizeof(*copy));
    if (copy == NULL)
        return sluice_keys_nomem(ld);
    memcpy(copy, items, n * sizeof(*copy));
    out->items = copy;
    out->count = n;
    return SLUICE_OK;
}

static sluice_status init_server(sluice_keys_loader *ld, void *obj)
{
    /* Entries without a port match any port (see docs/config.md). */
    static const char *const origins[] = { "http://localhost", "http://127.0.0.1", "http://[::1]",
                                           NULL };
    static const char *const hosts[] = { "localhost", "127.0.0.1", "[::1]", NULL };
    sluice_config_server *server = obj;
    server->listen_host = "127.0.0.1";
    server->listen_port = 8808;
    sluice_status st = strlist_of(ld, &server->allowed_origins, origins);
    return st == SLUICE_OK ? strlist_of(ld, &server->allowed_hosts, hosts) : st;
}

static sluice_status init_identity(sluice_keys_loader *ld, void *obj)
{
    sluice_config_identity *identity = obj;
    const char *user = getenv("SLUICE_USER");
    identity->user =
        user != NULL && user[0] != '\0' ? sluice_arena_strdup(ld->arena, user) : "local";
    return identity->user != NULL ? SLUICE_OK : sluice_keys_nomem(ld);
}

static sluice_status init_code_mode(sluice_keys_loader *ld, void *obj)
{
    (void)ld;
    sluice_config_code_mode *cm = obj;
    cm->auto_approve[SLUICE_RISK_LOW] = true;
    return SLUICE_OK;
}

/* ------------------------------------------------------------------------------------------
 * The key tables. One row per key; docs/config.md documents each one.
 * ------------------------------------------------------------------------------------------ */

/* Row shorthands: T is the section's struct, f a field whose name is the key's name. */
#define BOOL_KEY(T, f, d) .name = #f, .kind = SLUICE_KEY_BOOL, .offset = offsetof(T, f), .def = (d)
#define INT_KEY(T, f, lo, hi, d)                                                            \
    .name = #f, .kind = SLUICE_KEY_INT, .offset = offsetof(T, f), .min = (lo), .max = (hi), \
    .def = (d)
#define SIZE_KEY(T, f, lo, hi, d)                                                            \
    .name = #f, .kind = SLUICE_KEY_SIZE, .offset = offsetof(T, f), .min = (lo), .max = (hi), \
    .def = (d)
#define STR_KEY(T, f)  .name = #f, .kind = SLUICE_KEY_STRING, .offset = offsetof(T, f)
#define PATH_KEY(T, f) .name = #f, .kind = SLUICE_KEY_PATH, .offset = offsetof(T, f)
#define LIST_KEY(T, f) .name = #f, .kind = SLUICE_KEY_STRLIST, .offset = offsetof(T, f)
#define ENUM_KEY(T, f, ch, d) \
    .name = #f, .kind = SLUICE_KEY_ENUM, .offset = offsetof(T, f), .choices = (ch), .def = (d)
#define CHOICE_KEY(T, f, ch, d) \
    .name = #f, .kind = SLUICE_KEY_CHOICE, .offset = offsetof(T, f), .choices = (ch), .def_str = (d)
#define TABLES_KEY(n, T, f, count, s)                                 \
    .name = (n), .kind = SLUICE_KEY_TABLES, .offset = offsetof(T, f), \
    .count_offset = offsetof(T, count), .sub = (s)
#define SECTION_KEY(T, f, s) \
    .name = #f, .kind = SLUICE_KEY_SECTION, .offset = offsetof(T, f), .sub = (s)
/* Section shorthands: a [table] p of rows k, an [[array of tables]] p of struct T. */
#define ROWS(k)            .keys = (k), .key_count = COUNT(k)
#define TABLE_OF(p, k)     .path = (p), ROWS(k)
#define TABLES_OF(p, T, k) .path = (p), .array = true, .size = sizeof(T), ROWS(k)
#define INLINE_SECRET(n, instead)                                          \
    .name = (n), .kind = SLUICE_KEY_STRING, .offset = SLUICE_KEY_NO_FIELD, \
    .status = SLUICE_KEY_INLINE_SECRET, .why = (instead)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(sluice_engine_kind) == sizeof(int), "SLUICE_KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_exposure) == sizeof(int), "SLUICE_KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_param_type) == sizeof(int), "SLUICE_KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_policy_backend) == sizeof(int), "SLUICE_KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_class_mode) == sizeof(int), "SLUICE_KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_graphql_blocked_output) == sizeof(int),
               "SLUICE_KEY_ENUM stores an int");

static const char *const log_levels[] = { "debug", "info", "warn", "error", NULL };
static const char *const log_formats[] = { "text", "json", NULL };
static const char *const engines[] = { "duckdb", "sqlite", "postgres", "graphql", "openapi", NULL };
static const char *const blocked_outputs[] = { "strip", "refuse", NULL };
/* indexed by sluice_class_mode */
static const char *const class_modes[] = { "derived",   "deny_all",  "allow_all",
                                           "allowlist", "blocklist", NULL };
static const char *const exposures[] = { "full", "read_only", "allowlist", NULL };
static const char *const param_types[] = { "string", "integer", "number", "boolean", NULL };
static const char *const roles[] = { "user", "assistant", NULL };
static const char *const policy_backends[] = { "none", "cedar", "command", NULL };

#define T sluice_config_server
static const sluice_key_spec server_keys[] = {
    { STR_KEY(T, name), .min = 1, .def_str = "sluice" },
    { STR_KEY(T, instructions) },
    { STR_KEY(T, listen), .def_str = "127.0.0.1:8808", .check = sluice_checks_listen },
    { LIST_KEY(T, allowed_origins), .check = sluice_checks_origins },
    { LIST_KEY(T, allowed_hosts), .check = sluice_checks_hosts },
    { SIZE_KEY(T, max_body_bytes, 1024, 64 * 1024 * 1024, 1024 * 1024) },
    { SIZE_KEY(T, max_sessions, 1, 65536, 256) },
    { INT_KEY(T, session_idle_seconds, 10, 604800, 1800) },
    { INT_KEY(T, request_timeout_seconds, 1, 3600, 60) },
    { CHOICE_KEY(T, log_level, log_levels, "info") },
    { CHOICE_KEY(T, log_format, log_formats, "text") },
};
#undef T

#define T sluice_config_identity
static const sluice_key_spec identity_keys[] = {
    { STR_KEY(T, user), .min = 1 },
    { LIST_KEY(T, groups) },
};
#undef T

#define T sluice_config_api_key
static const sluice_key_spec api_key_keys[] = {
    { STR_KEY(T, user), .min = 1, .required = true },
    { LIST_KEY(T, groups) },
    { .name = "key_sha256",
      .kind = SLUICE_KEY_STRING,
      .offset = offsetof(T, sha256_hex),
      .check = sluice_checks_sha256 },
    { .name = "key_env",
      .kind = SLUICE_KEY_STRING,
      .offset = offsetof(T, env),
      .check = sluice_checks_env_name },
    { INLINE_SECRET("key", "key_sha256 or key_env") },
};
#undef T

#define T sluice_config_auth
static const sluice_key_spec auth_keys[] = {
    { PATH_KEY(T, jwks_file) },
    { PATH_KEY(T, hs256_secret_file) },
    { STR_KEY(T, issuer), .min = 1 },
    { STR_KEY(T, audience), .min = 1 },
    { STR_KEY(T, user_claim), .min = 1, .def_str = "sub" },
    { STR_KEY(T, groups_claim), .min = 1, .def_str = "groups" },
    { INT_KEY(T, clock_skew_seconds, 0, 600, 60) },
    { LIST_KEY(T, authorization_servers), .check = sluice_checks_url_list },
    { LIST_KEY(T, scopes_supported) },
    { STR_KEY(T, resource_url), .check = sluice_checks_url },
    { STR_KEY(T, resource_name), .min = 1 },
    { INLINE_SECRET("hs256_secret", "hs256_secret_file") },
};
#undef T

#define T sluice_config_admin
static const sluice_key_spec admin_keys[] = {
    { .name = "key_sha256",
      .kind = SLUICE_KEY_STRING,
      .offset = offsetof(T, key_sha256),
      .check = sluice_checks_sha256 },
    { .name = "key_env",
      .kind = SLUICE_KEY_STRING,
      .offset = offsetof(T, key_env),
      .check = sluice_checks_env_name },
    { INLINE_SECRET("key", "key_sha256 or key_env") },
    { STR_KEY(T, listen), .check = sluice_checks_admin_listen },
};
#undef T

#define T sluice_config_state
static const sluice_key_spec state_keys[] = {
    { STR_KEY(T, redis_url), .min = 1 },
    { PATH_KEY(T, redis_password_file) },
    { STR_KEY(T, redis_password_env), .check = sluice_checks_env_name },
    { INLINE_SECRET("redis_password", "redis_password_file or redis_password_env") },
    { INT_KEY(T, redis_timeout_ms, 50, 60000, 2000) },
    { STR_KEY(T, redis_prefix), .min = 1, .def_str = "sluice:" },
    { STR_KEY(T, audit_postgres), .min = 1 },
    { PATH_KEY(T, audit_postgres_password_file) },
    { STR_KEY(T, audit_postgres_password_env), .check = sluice_checks_env_name },
    { INLINE_SECRET("audit_postgres_password",
                    "audit_postgres_password_file or audit_postgres_password_env") },
    { STR_KEY(T, audit_postgres_table), .min = 1, .def_str = "sluice_audit" },
    { STR_KEY(T, programs_postgres), .min = 1 },
    { PATH_KEY(T, programs_postgres_password_file) },
    { STR_KEY(T, programs_postgres_password_env), .check = sluice_checks_env_name },
    { INLINE_SECRET("programs_postgres_password",
                    "programs_postgres_password_file or programs_postgres_password_env") },
    { STR_KEY(T, programs_postgres_table), .min = 1, .def_str = "sluice_programs" },
    { STR_KEY(T, replica_id), .min = 1 },
};
#undef T

#define T sluice_config_database
static const sluice_key_spec database_keys[] = {
    { STR_KEY(T, name), .min = 1, .def_str = "default" },
    { ENUM_KEY(T, engine, engines, SLUICE_ENGINE_DUCKDB) },
    { PATH_KEY(T, path) },
    { STR_KEY(T, memory_limit), .def_str = "512MB", .check = sluice_checks_memory_limit },
    { INT_KEY(T, threads, 1, 64, 2) },
    { STR_KEY(T, conninfo), .min = 1 },
    { PATH_KEY(T, password_file) },
    { STR_KEY(T, password_env), .check = sluice_checks_env_name },
    { STR_KEY(T, search_path), .min = 1, .def_str = "public" },
    { INT_KEY(T, pool_size, 1, 64, 4) },
    { INLINE_SECRET("password", "password_file or password_env") },
    { STR_KEY(T, write_conninfo), .min = 1 },
    { PATH_KEY(T, write_password_file) },
    { STR_KEY(T, write_password_env), .check = sluice_checks_env_name },
    { INLINE_SECRET("write_password", "write_password_file or write_password_env") },
    { STR_KEY(T, endpoint), .check = sluice_checks_url },
    { STR_KEY(T, auth_header), .min = 1, .def_str = "Authorization" },
    { STR_KEY(T, auth_token_env), .check = sluice_checks_env_name },
    { PATH_KEY(T, auth_token_file) },
    { STR_KEY(T, auth_scheme), .def_str = "Bearer" },
    { INT_KEY(
        T, max_response_bytes, 1024, 1024 * 1024 * 1024, SLUICE_LIMIT_GRAPHQL_RESPONSE_BYTES) },
    { PATH_KEY(T, ca_file) },
    { INLINE_SECRET("auth_token", "auth_token_env or auth_token_file") },
    { STR_KEY(T, auth_query_param), .min = 1 },
    { STR_KEY(T, caller_assertion_header), .check = sluice_checks_header_name },
    { STR_KEY(T, caller_assertion_secret_env), .check = sluice_checks_env_name },
    { PATH_KEY(T, caller_assertion_secret_file) },
    { STR_KEY(T, caller_assertion_audience), .min = 1 },
    { INLINE_SECRET("caller_assertion_secret",
                    "caller_assertion_secret_env or caller_assertion_secret_file") },
};
#undef T

#define T sluice_config_operation
static const sluice_key_spec operation_keys[] = {
    { STR_KEY(T, id), .min = 1, .required = true },
    { CHOICE_KEY(T, category, sluice_keys_action_names, NULL), .required = true },
    { STR_KEY(T, description) },
    { STR_KEY(T, path) },
    { BOOL_KEY(T, idempotent, false) },
    { LIST_KEY(T, passable_fields) },
};
#undef T

static const sluice_section_spec operation_section = {
    .path = "code_mode.operations",
    .finish = sluice_checks_operation,
    .array = true,
    .size = sizeof(sluice_config_operation),
    ROWS(operation_keys),
};

#define T sluice_config_mcp_server
static const sluice_key_spec mcp_server_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { LIST_KEY(T, command) },
    { STR_KEY(T, url), .check = sluice_checks_url },
    { STR_KEY(T, token_env), .check = sluice_checks_env_name },
    { PATH_KEY(T, token_file) },
    { INLINE_SECRET("token", "token_env or token_file") },
    { LIST_KEY(T, allowed_tools) },
    { LIST_KEY(T, read_tools) },
    { LIST_KEY(T, write_tools) },
    { LIST_KEY(T, delete_tools) },
    { BOOL_KEY(T, allow_writes, false) },
    { BOOL_KEY(T, allow_deletes, false) },
    { INT_KEY(T, timeout_seconds, 1, 600, 30) },
    { INT_KEY(T, startup_timeout_seconds, 1, 600, 10) },
    { SIZE_KEY(T,
               max_response_bytes,
               1024,
               SLUICE_LIMIT_MCP_CLIENT_RESPONSE_BYTES_MAX,
               SLUICE_LIMIT_MCP_CLIENT_RESPONSE_BYTES) },
};
#undef T

static const sluice_section_spec mcp_server_section = {
    .path = "code_mode.mcp_servers",
    .finish = sluice_checks_mcp_server,
    .array = true,
    .size = sizeof(sluice_config_mcp_server),
    ROWS(mcp_server_keys),
};

#define T sluice_config_code_mode
static const sluice_key_spec code_mode_keys[] = {
    { BOOL_KEY(T, enabled, false) },
    { STR_KEY(T, server_id), .min = 1 },
    { INT_KEY(T, token_ttl_seconds, 10, 86400, 300) },
    { PATH_KEY(T, token_secret_file) },
    { STR_KEY(T, token_secret_env), .check = sluice_checks_env_name },
    { PATH_KEY(T, token_previous_secret_file) },
    { STR_KEY(T, token_previous_secret_env), .check = sluice_checks_env_name },
    { INLINE_SECRET("token_secret",
                    "token_secret_file or token_secret_env (run 'sluice keygen')") },
    { INLINE_SECRET("token_previous_secret",
                    "token_previous_secret_file or token_previous_secret_env") },
    { .name = "auto_approve_levels",
      .kind = SLUICE_KEY_RISKS,
      .offset = offsetof(T, auto_approve) },
    { INT_KEY(T, execution_timeout_seconds, 1, 3600, 30) },
    { INT_KEY(T,
              analysis_timeout_ms,
              SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS_MIN,
              SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS_MAX,
              SLUICE_LIMIT_ANALYSIS_TIMEOUT_MS) },
    { INT_KEY(T,
              analysis_memory_mb,
              SLUICE_LIMIT_ANALYSIS_MEMORY_MB_MIN,
              SLUICE_LIMIT_ANALYSIS_MEMORY_MB_MAX,
              SLUICE_LIMIT_ANALYSIS_MEMORY_MB) },
    { INT_KEY(T, max_result_bytes, 1024, 64 * 1024 * 1024, SLUICE_LIMIT_DEFAULT_RESULT_BYTES) },
    { ENUM_KEY(T, schema_exposure, exposures, SLUICE_EXPOSURE_FULL) },
    { PATH_KEY(T, audit_log) },
    { SIZE_KEY(T, audit_rotate_bytes, 0, 1024LL * 1024 * 1024 * 1024, 0) },
    { INT_KEY(T, audit_rotate_seconds, 0, 366 * 86400, 0) },
    { PATH_KEY(T, replay_store) },
    { PATH_KEY(T, programs_file) },
    { LIST_KEY(T, languages) },
    { BOOL_KEY(T, token_bind_session, true) },
    { BOOL_KEY(T, execute_on_validate, false) },
    { .name = "caller_roles",
      .kind = SLUICE_KEY_NAMES,
      .offset = offsetof(T, caller_roles),
      .check = sluice_checks_pg_roles },
    { STR_KEY(T, caller_default_role), .check = sluice_checks_pg_roles },
    { BOOL_KEY(T, caller_claims, false) },
    { INT_KEY(T, max_estimated_rows, 0, 1000000000000000LL, 0) },
    { INT_KEY(T, max_estimated_cost, 0, 1000000000000000LL, 0) },
    { INT_KEY(T, estimate_drift_factor, 0, 1000000, 10) },
    { BOOL_KEY(T, sql_reads_enabled, true) },
    { BOOL_KEY(T, sql_allow_writes, false) },
    { BOOL_KEY(T, sql_allow_deletes, false) },
    { BOOL_KEY(T, sql_allow_ddl, false) },
    { BOOL_KEY(T, sql_require_where_on_writes, true) },
    { BOOL_KEY(T, sql_require_limit, false) },
    { INT_KEY(T, sql_max_rows, 1, 10000000, 10000) },
    { INT_KEY(T, sql_max_joins, 0, 64, 5) },
    { LIST_KEY(T, sql_allowed_tables) },
    { LIST_KEY(T, sql_blocked_tables) },
    { LIST_KEY(T, sql_blocked_columns) },
    { LIST_KEY(T, blocked_fields) },
    /* The JavaScript/OpenAPI interpreter (seed 000's cost-coach block). */
    { BOOL_KEY(T, openapi_reads_enabled, true) },
    { BOOL_KEY(T, openapi_allow_writes, false) },
    { BOOL_KEY(T, openapi_allow_deletes, false) },
    { ENUM_KEY(T, read_mode, class_modes, SLUICE_CLASS_MODE_DERIVED) },
    { ENUM_KEY(T, write_mode, class_modes, SLUICE_CLASS_MODE_DERIVED) },
    { ENUM_KEY(T, delete_mode, class_modes, SLUICE_CLASS_MODE_DERIVED) },
    { ENUM_KEY(T, admin_mode, class_modes, SLUICE_CLASS_MODE_DERIVED) },
    { LIST_KEY(T, openapi_allowed_reads), .check = sluice_checks_operation_entries },
    { LIST_KEY(T, openapi_allowed_writes), .check = sluice_checks_operation_entries },
    { LIST_KEY(T, openapi_allowed_deletes), .check = sluice_checks_operation_entries },
    { LIST_KEY(T, openapi_allowed_admin), .check = sluice_checks_operation_entries },
    { LIST_KEY(T, openapi_blocked_writes), .check = sluice_checks_operation_entries },
    { LIST_KEY(T, openapi_blocked_paths), .check = sluice_checks_path_globs },
    { LIST_KEY(T, openapi_internal_blocked_fields) },
    { LIST_KEY(T, openapi_output_blocked_fields) },
    { BOOL_KEY(T, openapi_require_output_declaration, false) },
    { .name = "max_api_calls",
      .kind = SLUICE_KEY_INT,
      .offset = offsetof(T, max_api_calls),
      .min = 1,
      .max = 100000,
      .def = 50 },
    { .name = "max_loop_iterations",
      .kind = SLUICE_KEY_INT,
      .offset = offsetof(T, max_loop_iterations),
      .min = 1,
      .max = 100000000,
      .def = 100 },
    { INT_KEY(T, max_steps, 1000, 1000000000, SLUICE_LIMIT_JS_STEPS_DEFAULT) },
    { SIZE_KEY(T,
               max_memory_bytes,
               1024 * 1024,
               4LL * 1024 * 1024 * 1024,
               SLUICE_LIMIT_JS_MEMORY_DEFAULT) },
    { ENUM_KEY(T, openapi_blocked_output, blocked_outputs, SLUICE_GRAPHQL_STRIP) },
    { LIST_KEY(T, sdk_operations), .check = sluice_checks_sdk_operations },
    { TABLES_KEY("operations", T, operations, operation_count, &operation_section) },
    { TABLES_KEY("mcp_servers", T, mcp_servers, mcp_server_count, &mcp_server_section) },
    /* GraphQL code mode (lang/graphql/validate.h). */
    { BOOL_KEY(T, allow_mutations, false) },
    { LIST_KEY(T, allowed_mutations) },
    { LIST_KEY(T, blocked_mutations) },
    { LIST_KEY(T, allowed_queries) },
    { LIST_KEY(T, blocked_queries) },
    { INT_KEY(T, graphql_max_depth, 1, 256, 10) },
    { INT_KEY(T, graphql_max_aliases, 0, 10000, 15) },
    { INT_KEY(T, graphql_max_root_fields, 1, 10000, 20) },
    { INT_KEY(T, graphql_max_directives, 0, 10000, 50) },
    { INT_KEY(T, graphql_max_tokens, 1, SLUICE_LIMIT_GRAPHQL_TOKENS, 1000) },
    { INT_KEY(T, graphql_max_chars, 1, SLUICE_LIMIT_GRAPHQL_DOCUMENT_BYTES, 15000) },
    { INT_KEY(T, graphql_max_cost, 1, 1000000000, 5000) },
    { BOOL_KEY(T, graphql_allow_introspection, false) },
    { LIST_KEY(T, graphql_blocked_fields) },
    { LIST_KEY(T, graphql_delete_patterns) },
    { LIST_KEY(T, graphql_size_arguments) },
    { ENUM_KEY(T, graphql_blocked_output, blocked_outputs, SLUICE_GRAPHQL_STRIP) },
    { BOOL_KEY(T, graphql_persisted_only, false) },
    { PATH_KEY(T, graphql_persisted_manifest) },
    { INT_KEY(T, max_field_count, 1, 1000000, 100) },
    { .name = "action_tags", .kind = SLUICE_KEY_ACTIONS, .offset = offsetof(T, action_tags) },
};
#undef T

/* Names from pmcp-code-mode's README and toolkit that are not real keys anywhere. */
static const sluice_key_alias code_mode_aliases[] = {
    { "max_query_depth", "graphql_max_depth" },
    { "max_depth", "graphql_max_depth" },
    { "max_cost", "graphql_max_cost" },
    { "allow_introspection", "graphql_allow_introspection" },
    { "max_query_fields", "max_field_count" },
    { "auto_approve_threshold", "auto_approve_levels" },
    { "query_timeout_seconds", "execution_timeout_seconds" },
    { "max_result_rows", "sql_max_rows" },
    { NULL, NULL },
};

#define T sluice_config_param
static const sluice_key_spec param_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { ENUM_KEY(T, type, param_types, SLUICE_PARAM_STRING), .required = true },
    { STR_KEY(T, description) },
    { BOOL_KEY(T, required, true) },
    /* the range is JSON's exact integers; unset stays outside it */
    { INT_KEY(T, minimum, -(1LL << 53), 1LL << 53, SLUICE_PARAM_NO_MIN) },
    { INT_KEY(T, maximum, -(1LL << 53), 1LL << 53, SLUICE_PARAM_NO_MAX) },
};
#undef T

static const sluice_section_spec param_section = {
    TABLES_OF("tools.parameters", sluice_config_param, param_keys),
    .finish = sluice_checks_param,
};

#define T sluice_config_tool
static const sluice_key_spec tool_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { STR_KEY(T, statement), .min = 1, .required = true },
    { TABLES_KEY("parameters", T, params, param_count, &param_section) },
};
#undef T

#define T sluice_config_prompt_arg
static const sluice_key_spec prompt_arg_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, description) },
    { BOOL_KEY(T, required, false) },
};
#undef T

#define T sluice_config_prompt_message
static const sluice_key_spec prompt_message_keys[] = {
    { CHOICE_KEY(T, role, roles, "user"), .required = true },
    { STR_KEY(T, text), .required = true },
};
#undef T

static const sluice_section_spec prompt_arg_section = {
    TABLES_OF("prompts.arguments", sluice_config_prompt_arg, prompt_arg_keys),
};

static const sluice_section_spec prompt_message_section = {
    TABLES_OF("prompts.messages", sluice_config_prompt_message, prompt_message_keys),
};

#define T sluice_config_prompt
static const sluice_key_spec prompt_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { TABLES_KEY("arguments", T, args, arg_count, &prompt_arg_section) },
    { TABLES_KEY("messages", T, messages, message_count, &prompt_message_section) },
};
#undef T

#define T sluice_config_resource
static const sluice_key_spec resource_keys[] = {
    { STR_KEY(T, uri), .required = true, .check = sluice_checks_uri },
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { STR_KEY(T, mime_type), .def_str = "text/plain", .check = sluice_checks_mime },
    { STR_KEY(T, text) },
    { PATH_KEY(T, file) },
};
#undef T

/* [quotas] and a route's `quotas`: per principal, 1 .. 10^15 (0: no limit); a key left out is
 * -1, "not set", so a route inherits [quotas] key by key. */
#define QUOTA_MAX 1000000000000000LL
#define T         sluice_config_quotas
static const sluice_key_spec quota_keys[] = {
    { INT_KEY(T, validate_per_minute, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, validate_per_day, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, execute_per_minute, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, execute_per_day, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, rows_per_day, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, bytes_per_day, 0, QUOTA_MAX, -1) },
    { INT_KEY(T, upstream_calls_per_day, 0, QUOTA_MAX, -1) },
};
#undef T

static const sluice_section_spec quota_section = {
    TABLE_OF("quotas", quota_keys),
};

#define T sluice_config_policy_server
static const sluice_key_spec policy_server_keys[] = {
    { STR_KEY(T, id), .min = 1, .required = true },
    { LIST_KEY(T, groups), .required = true },
    { BOOL_KEY(T, allow_writes, false) },
    { BOOL_KEY(T, allow_deletes, false) },
    { BOOL_KEY(T, allow_admin, false) },
    { BOOL_KEY(T, execute_on_validate, false) },
    { .name = "caller_roles",
      .kind = SLUICE_KEY_NAMES,
      .offset = offsetof(T, caller_roles),
      .check = sluice_checks_pg_roles },
    { STR_KEY(T, caller_default_role), .check = sluice_checks_pg_roles },
    { BOOL_KEY(T, caller_claims, false) },
    { INT_KEY(T, max_estimated_rows, 1, 1000000000000000LL, 0) },
    { INT_KEY(T, max_estimated_cost, 1, 1000000000000000LL, 0) },
    { INT_KEY(T, estimate_drift_factor, 1, 1000000, 0) },
    { LIST_KEY(T, allowed_operations) },
    { INT_KEY(T, max_rows, 1, 10000000, 0) },
    { STR_KEY(T, database), .min = 1 },
    { SECTION_KEY(T, quotas, &quota_section) },
};
#undef T

static const sluice_section_spec policy_server_section = {
    TABLES_OF("policy.servers", sluice_config_policy_server, policy_server_keys),
    .finish = sluice_checks_policy_server,
};

#define T sluice_config_policy
static const sluice_key_spec policy_keys[] = {
    { ENUM_KEY(T, backend, policy_backends, SLUICE_POLICY_BACKEND_NONE), .required = true },
    { PATH_KEY(T, policies) },
    { PATH_KEY(T, entities) },
    { PATH_KEY(T, schema) },
    { LIST_KEY(T, command) },
    { INT_KEY(T, timeout_ms, 10, 60000, 2000) },
    { TABLES_KEY("servers", T, servers, server_count, &policy_server_section) },
};
#undef T

static const sluice_section_spec server_section = {
    TABLE_OF("server", server_keys),
    .init = init_server,
};

static const sluice_section_spec identity_section = {
    TABLE_OF("identity", identity_keys),
    .init = init_identity,
};

static const sluice_section_spec api_key_section = {
    TABLES_OF("api_keys", sluice_config_api_key, api_key_keys),
    .finish = sluice_checks_api_key,
};

static const sluice_section_spec auth_section = {
    TABLE_OF("auth", auth_keys),
    .finish = sluice_checks_auth,
};

static const sluice_section_spec admin_section = {
    TABLE_OF("admin", admin_keys),
    .finish = sluice_checks_admin,
};

static const sluice_section_spec state_section = {
    TABLE_OF("state", state_keys),
    .finish = sluice_checks_state,
};

static const sluice_section_spec database_section = {
    TABLE_OF("database", database_keys),
    .finish = sluice_checks_database,
};

static const sluice_section_spec databases_section = {
    TABLES_OF("databases", sluice_config_database, database_keys),
    .finish = sluice_checks_named_database,
};

static const sluice_section_spec code_mode_section = {
    TABLE_OF("code_mode", code_mode_keys),
    .aliases = code_mode_aliases,
    .init = init_code_mode,
    .finish = sluice_checks_code_mode,
};

static const sluice_section_spec policy_section = {
    TABLE_OF("policy", policy_keys),
    .finish = sluice_checks_policy,
};

static const sluice_section_spec tool_section = {
    TABLES_OF("tools", sluice_config_tool, tool_keys),
    .finish = sluice_checks_tool,
};

static const sluice_section_spec prompt_section = {
    TABLES_OF("prompts", sluice_config_prompt, prompt_keys),
    .finish = sluice_checks_prompt,
};

static const sluice_section_spec resource_section = {
    TABLES_OF("resources", sluice_config_resource, resource_keys),
    .finish = sluice_checks_resource,
};

/* ---- query mode and its sources (checks in sources.c) ------------------------------------ */

static const char *const source_kinds[] = { "http", "file", "mcp", NULL };
static const char *const file_formats[] = { "auto", "csv", "parquet", "json", NULL };
static const char *const source_methods[] = { "GET", NULL };
static const char *const source_ops[] = { "=", ">=", ">", "<=", "<", NULL };
static const char *const page_styles[] = { "none", "page",      "offset", "cursor",
                                           "link", "body_next", NULL };

#define T sluice_config_query_mode
static const sluice_key_spec query_mode_keys[] = {
    { BOOL_KEY(T, enabled, false) },
    { INT_KEY(T, session_ttl_seconds, 10, 86400, 600) },
    { INT_KEY(T, max_sessions, 1, 4096, 64) },
    { INT_KEY(T, max_sessions_per_principal, 1, 256, 4) },
    { STR_KEY(T, session_memory_limit), .min = 1, .def_str = "256MB" },
    { STR_KEY(T, session_max_spill), .min = 1, .def_str = "1GB" },
    { PATH_KEY(T, spill_dir) },
    { INT_KEY(T, max_load_rows, 1, 100000000, 1000000) },
    { SIZE_KEY(T, max_load_bytes, 1024, 16ll * 1024 * 1024 * 1024, 256 * 1024 * 1024) },
    { INT_KEY(T, max_pages, 1, 1000000, 1000) },
    { INT_KEY(T, query_max_rows, 1, 1000000, 1000) },
    { SIZE_KEY(T, query_max_bytes, 1024, 64 * 1024 * 1024, 1024 * 1024) },
    { INT_KEY(T, query_timeout_seconds, 1, 3600, 30) },
    { SIZE_KEY(T, cache_max_bytes, 0, 16ll * 1024 * 1024 * 1024, 64 * 1024 * 1024) },
};
#undef T

#define T sluice_config_source_param
static const sluice_key_spec source_param_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { .name = "default", .kind = SLUICE_KEY_STRING, .offset = offsetof(T, default_value) },
    { STR_KEY(T, column), .min = 1 },
    { .name = "operator",
      .kind = SLUICE_KEY_CHOICE,
      .offset = offsetof(T, op),
      .choices = source_ops,
      .def_str = "=" },
    { BOOL_KEY(T, required, false) },
};
#undef T

#define T sluice_config_source_column
static const sluice_key_spec source_column_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, type), .min = 1, .def_str = "VARCHAR" },
    { STR_KEY(T, path), .min = 1 },
};
#undef T

#define T sluice_config_source_response
static const sluice_key_spec source_response_keys[] = {
    { STR_KEY(T, path), .def_str = "" },
};
#undef T

#define T sluice_config_source_pagination
static const sluice_key_spec source_pagination_keys[] = {
    { CHOICE_KEY(T, style, page_styles, "none") },
    { STR_KEY(T, page_param), .min = 1, .def_str = "page" },
    { INT_KEY(T, first_page, 0, 1, 1) },
    { STR_KEY(T, offset_param), .min = 1, .def_str = "offset" },
    { STR_KEY(T, size_param), .min = 1, .def_str = "page_size" },
    { INT_KEY(T, page_size, 1, 10000, 100) },
    { STR_KEY(T, cursor_param), .min = 1, .def_str = "cursor" },
    { STR_KEY(T, cursor_path), .min = 1, .def_str = "next_cursor" },
    { STR_KEY(T, next_path), .min = 1, .def_str = "next" },
    { INT_KEY(T, max_pages, 0, 1000000, 0) },
};
#undef T

static const sluice_section_spec source_param_section = {
    TABLES_OF("sources.params", sluice_config_source_param, source_param_keys),
};

static const sluice_section_spec source_column_section = {
    TABLES_OF("sources.columns", sluice_config_source_column, source_column_keys),
};

static const sluice_section_spec source_response_section = {
    TABLE_OF("sources.response", source_response_keys),
};

static const sluice_section_spec source_pagination_section = {
    TABLE_OF("sources.pagination", source_pagination_keys),
};

#define T sluice_config_source
static const sluice_key_spec source_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { CHOICE_KEY(T, kind, source_kinds, "http"), .required = true },
    { STR_KEY(T, description) },
    { PATH_KEY(T, file) },
    { CHOICE_KEY(T, format, file_formats, "auto") },
    { LIST_KEY(T, command) },
    { STR_KEY(T, tool), .min = 1 },
    { STR_KEY(T, base_url), .min = 1 },
    { STR_KEY(T, path), .min = 1, .def_str = "/" },
    { CHOICE_KEY(T, method, source_methods, "GET") },
    { LIST_KEY(T, headers) },
    { STR_KEY(T, auth_header), .min = 1, .def_str = "Authorization" },
    { STR_KEY(T, auth_scheme), .def_str = "Bearer" },
    { STR_KEY(T, token_env), .min = 1 },
    { PATH_KEY(T, token_file) },
    { INLINE_SECRET("token", "token_env or token_file") },
    { TABLES_KEY("params", T, params, param_count, &source_param_section) },
    { TABLES_KEY("columns", T, columns, column_count, &source_column_section) },
    { SECTION_KEY(T, response, &source_response_section) },
    { SECTION_KEY(T, pagination, &source_pagination_section) },
    { INT_KEY(T, requests_per_minute, 0, 1000000, 0) },
    { INT_KEY(T, max_retries, 0, 20, 5) },
    { INT_KEY(T, retry_base_ms, 1, 60000, 200) },
    { INT_KEY(T, retry_after_max_seconds, 0, 3600, 60) },
    { INT_KEY(T, timeout_seconds, 1, 600, 30) },
    { BOOL_KEY(T, allow_404_empty, false) },
    { LIST_KEY(T, blocked_columns) },
    { BOOL_KEY(T, auto_load, false) },
    { INT_KEY(T, cache_ttl_seconds, 0, 86400, 300) },
    { INT_KEY(T, max_concurrency, 1, 16, 1) },
};
#undef T

static const sluice_section_spec query_mode_section = {
    TABLE_OF("query_mode", query_mode_keys),
};

static const sluice_section_spec source_section = {
    TABLES_OF("sources", sluice_config_source, source_keys),
    .finish = sluice_checks_source,
};

#define T sluice_config
static const sluice_key_spec root_keys[] = {
    { SECTION_KEY(T, server, &server_section) },
    { SECTION_KEY(T, identity, &identity_section) },
    { TABLES_KEY("api_keys", T, api_keys, api_key_count, &api_key_section) },
    { TABLES_KEY("databases", T, databases, database_count, &databases_section) },
    { SECTION_KEY(T, auth, &auth_section) },
    { SECTION_KEY(T, admin, &admin_section) },
    { SECTION_KEY(T, database, &database_section) },
    { SECTION_KEY(T, code_mode, &code_mode_section) },
    { SECTION_KEY(T, state, &state_section) },
    { SECTION_KEY(T, quotas, &quota_section) },
    { TABLES_KEY("tools", T, tools, tool_count, &tool_section) },
    { TABLES_KEY("prompts", T, prompts, prompt_count, &prompt_section) },
    { TABLES_KEY("resources", T, resources, resource_count, &resource_section) },
    { SECTION_KEY(T, policy, &policy_section) },
    { SECTION_KEY(T, query_mode, &query_mode_section) },
    { TABLES_KEY("sources", T, sources, source_count, &source_section) },
};
#undef T

static const sluice_section_spec root_section = {
    .path = NULL,
    ROWS(root_keys),
};

/* ------------------------------------------------------------------------------------------
 * Checks across sections
 * ------------------------------------------------------------------------------------------ */

/* Fails when the string at field `offset` of element i equals that of an earlier element. */
static sluice_status check_unique(sluice_keys_loader *ld,
                                  const sluice_toml_value *root,
                                  const char *array_key,
                                  const char *key,
                                  const char *what,
                                  const void *elems,
                                  size_t count,
                                  size_t size,
                                  size_t offset)
{
    const sluice_toml_value *array = sluice_toml_table_get(root, array_key);
    for (size_t i = 0; i < count; i++) {
        const char *a;
        memcpy(&a, (const char *)elems + i * size + offset, sizeof(a));
        for (size_t j = 0; a != NULL && j < i; j++) {
            const char *b;
            memcpy(&b, (const char *)elems + j * size + offset, sizeof(b));
            if (b == NULL || strcmp(a, b) != 0)
                continue;
            size_t line, col, first_line, first_col;
            sluice_keys_value_pos(sluice_toml_array_get(array, j), key, &first_line, &first_col);
            sluice_keys_value_pos(sluice_toml_array_get(array, i), key, &line, &col);
            return sluice_keys_fail_at(ld, line, col, key,
                                       "%s '%s' is declared twice (first at line %zu)", what,
                                       sluice_keys_show(ld, a), first_line);
        }
    }
    return SLUICE_OK;
}

/* blocked_fields and sql_blocked_columns name the same thing for SQL; every consumer reading
 * sql_blocked_columns sees both, so no reader can forget one of them. */
static sluice_status merge_blocked(sluice_keys_loader *ld, sluice_config_code_mode *cm)
{
    size_t n = cm->sql_blocked_columns.count + cm->blocked_fields.count;
    if (cm->blocked_fields.count == 0)
        return SLUICE_OK;
    const char **items = sluice_arena_calloc(ld->arena, n, sizeof(*items));
    if (items == NULL)
        return sluice_keys_nomem(ld);
    size_t k = 0;
    const sluice_strlist *lists[] = { &cm->sql_blocked_columns, &cm->blocked_fields };
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->count; i++) {
            bool seen = false;
            for (size_t j = 0; j < k; j++)
                seen = seen || strcmp(items[j], lists[l]->items[i]) == 0;
            if (!seen)
                items[k++] = lists[l]->items[i];
        }
    }
    cm->sql_blocked_columns.items = items;
    cm->sql_blocked_columns.count = k;
    return SLUICE_OK;
}

static sluice_status finish_config(sluice_keys_loader *ld, const sluice_toml_value *root)
{
    sluice_config *cfg = ld->cfg;
    if (cfg->code_mode.server_id == NULL)
        cfg->code_mode.server_id = cfg->server.name;
    sluice_status st = merge_blocked(ld, &cfg->code_mode);
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "tools", "name", "tool", cfg->tools, cfg->tool_count,
                          sizeof(*cfg->tools), offsetof(sluice_config_tool, name));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "prompts", "name", "prompt", cfg->prompts, cfg->prompt_count,
                          sizeof(*cfg->prompts), offsetof(sluice_config_prompt, name));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "sources", "name", "source", cfg->sources, cfg->source_count,
                          sizeof(*cfg->sources), offsetof(sluice_config_source, name));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "resources", "uri", "resource", cfg->resources,
                          cfg->resource_count, sizeof(*cfg->resources),
                          offsetof(sluice_config_resource, uri));
    const sluice_toml_value *policy = sluice_toml_table_get(root, "policy");
    if (st == SLUICE_OK && cfg->has_policy)
        st = check_unique(ld, policy, "servers", "id", "policy server", cfg->policy.servers,
                          cfg->policy.server_count, sizeof(*cfg->policy.servers),
                          offsetof(sluice_config_policy_server, id));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "api_keys", "key_sha256", "api key", cfg->api_keys,
                          cfg->api_key_count, sizeof(*cfg->api_keys),
                          offsetof(sluice_config_api_key, sha256_hex));
    if (st == SLUICE_OK)
        st = sluice_checks_caller_engines(ld, root);
    if (st == SLUICE_OK)
        st = sluice_checks_sdk_engine(ld, root);
    if (st == SLUICE_OK && cfg->code_mode.programs_file != NULL &&
        cfg->state.programs_postgres != NULL) {
        size_t line, col;
        sluice_keys_value_pos(sluice_toml_table_get(root, "state"), "programs_postgres", &line,
                              &col);
        st = sluice_keys_fail_at(ld, line, col, "programs_postgres",
                                 "[state] programs_postgres and [code_mode] programs_file are two "
                                 "places for the same saved programs: set only one (PostgreSQL "
                                 "when replicas share them, the file for one server)");
    }
    return st;
}

bool sluice_config_programs_on(const sluice_config *config)
{
    return config->code_mode.programs_file != NULL || config->state.programs_postgres != NULL;
}

/* ------------------------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------------------------ */

/* A fresh config with every default, in its own arena. */
static sluice_status new_config(sluice_keys_loader *ld, const char *path, const char *dir)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = arena != NULL ? sluice_arena_calloc(arena, 1, sizeof(*cfg)) : NULL;
    if (cfg == NULL) {
        sluice_arena_free(arena);
        return sluice_keys_nomem(ld);
    }
    cfg->arena = arena;
    ld->cfg = cfg;
    ld->arena = arena;
    cfg->path = sluice_arena_strdup(arena, path);
    cfg->dir = sluice_arena_strdup(arena, dir);
    ld->dir = cfg->dir;
    sluice_status st = (path != NULL && cfg->path == NULL) || (dir != NULL && cfg->dir == NULL)
                           ? sluice_keys_nomem(ld)
                           : sluice_keys_apply_defaults(ld, &root_section, cfg);
    if (st != SLUICE_OK) {
        sluice_arena_free(arena);
        ld->cfg = NULL;
    }
    return st;
}

/* "read_only-true" is one bare key to TOML ('-' is a key character), so the parser can only say
 * "expected '=' after key 'read_only-true'". Show the line the writer most likely meant. */
static void hint_missing_equals(sluice_keys_loader *ld, const char *message)
{
    static const char prefix[] = "expected '=' after key '";
    if (message == NULL || strncmp(message, prefix, sizeof prefix - 1) != 0)
        return;
    const char *key = message + sizeof prefix - 1;
    const char *end = strrchr(key, '\'');
    const char *dash = end != NULL ? memchr(key, '-', (size_t)(end - key)) : NULL;
    if (dash == NULL || dash == key || dash + 1 == end) {
        sluice_keys_hint(ld, "a key and its value are written key = value");
        return;
    }
    const char *last = dash;
    for (const char *p = dash; p < end; p++)
        last = *p == '-' ? p : last;
    sluice_keys_hint(ld,
                     "did you mean '%.*s = %.*s'? ('-' is part of a key name; '=' sets its value)",
                     (int)(last - key), key, (int)(end - last - 1), last + 1);
}

/* Copies a TOML error out of the scratch arena, as a configuration error. */
static sluice_status toml_failed(sluice_keys_loader *ld, sluice_status st, const sluice_error *terr)
{
    if (st == SLUICE_E_NOMEM)
        return sluice_keys_nomem(ld);
    if (ld->err == NULL)
        return SLUICE_E_CONFIG;
    sluice_error_clear(ld->err);
    ld->err->status = SLUICE_E_CONFIG;
    ld->err->message = sluice_arena_strdup(ld->err_arena, terr->message);
    if (ld->err->message == NULL)
        return sluice_keys_nomem(ld);
    ld->err->source = sluice_arena_strdup(ld->err_arena, ld->source);
    ld->err->key = sluice_arena_strdup(ld->err_arena, terr->key);
    ld->err->hint = sluice_arena_strdup(ld->err_arena, terr->hint);
    ld->err->line = terr->line;
    ld->err->column = terr->column;
    ld->err->offset = terr->offset;
    ld->err->length = terr->length;
    if (ld->err->hint == NULL)
        hint_missing_equals(ld, terr->message);
    return SLUICE_E_CONFIG;
}

static sluice_status load_in(sluice_arena *scratch,
                             const char *text,
                             size_t len,
                             const char *source,
                             const char *dir,
                             sluice_config **out,
                             sluice_arena *err_arena,
                             sluice_error *err)
{
    sluice_keys_loader ld = { .err_arena = err_arena, .err = err, .source = source, .dir = dir };
    sluice_toml_value *root = NULL;
    sluice_error terr;
    sluice_error_clear(&terr);
    sluice_status st = sluice_toml_parse(scratch, text, len, source, &root, &terr);
    if (st != SLUICE_OK)
        return toml_failed(&ld, st, &terr);
    st = new_config(&ld, source, dir);
    if (st != SLUICE_OK)
        return st;
    st = sluice_keys_decode(&ld, &root_section, root, ld.cfg);
    if (st == SLUICE_OK)
        st = finish_config(&ld, root);
    if (st != SLUICE_OK) {
        sluice_arena_free(ld.cfg->arena);
        return st;
    }
    *out = ld.cfg;
    return SLUICE_OK;
}

sluice_status sluice_config_load_text(const char *text,
                                      size_t len,
                                      const char *source,
                                      const char *dir,
                                      sluice_config **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_error_clear(err);
    sluice_arena *scratch = sluice_arena_new();
    if (scratch == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory while loading the configuration");
    sluice_status st =
        load_in(scratch, text, len, source != NULL ? source : "<config>", dir, out, err_arena, err);
    sluice_arena_free(scratch);
    return st;
}

/* The directory relative paths are resolved against: the config file's, made absolute so a
 * later chdir cannot change what a path means. */
static char *config_dir(sluice_arena *arena, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL   ? sluice_arena_strdup(arena, ".")
                : slash == path ? sluice_arena_strdup(arena, "/")
                                : sluice_arena_strndup(arena, path, (size_t)(slash - path));
    if (dir == NULL)
        return NULL;
    char *real = realpath(dir, NULL);
    if (real == NULL)
        return dir;
    char *copy = sluice_arena_strdup(arena, real);
    free(real);
    return copy;
}

sluice_status sluice_config_load(const char *path,
                                 sluice_config **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_error_clear(err);
    sluice_arena *scratch = sluice_arena_new();
    if (scratch == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory while loading the configuration");
    char *text = NULL;
    size_t len = 0;
    int e = sluice_checks_read_file(scratch, path, SLUICE_LIMIT_CONFIG_BYTES, false, &text, &len);
    sluice_status st;
    if (e == ENOMEM)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                              "out of memory while loading the configuration");
    else if (e == EFBIG)
        st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                              "%s: configuration file is too large (limit is %u bytes)", path,
                              SLUICE_LIMIT_CONFIG_BYTES);
    else if (e != 0)
        st = sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot read %s: %s", path, strerror(e));
    else {
        char *dir = config_dir(scratch, path);
        st = dir == NULL ? sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                            "out of memory while loading the configuration")
                         : load_in(scratch, text, len, path, dir, out, err_arena, err);
    }
    sluice_arena_free(scratch);
    return st;
}

sluice_status sluice_config_defaults(sluice_config **out)
{
    sluice_keys_loader ld = { 0 };
    sluice_status st = new_config(&ld, NULL, NULL);
    if (st != SLUICE_OK)
        return st;
    ld.cfg->code_mode.server_id = ld.cfg->server.name;
    *out = ld.cfg;
    return SLUICE_OK;
}

void sluice_config_free(sluice_config *config)
{
    if (config != NULL)
        sluice_arena_free(config->arena);
}

const char *sluice_risk_name(sluice_risk risk)
{
    return (unsigned)risk < 4 ? sluice_keys_risk_names[risk] : "unknown";
}

static void each_key(const sluice_section_spec *spec,
                     void (*fn)(const char *table, const char *key, bool built, void *ctx),
                     void *ctx)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        const sluice_key_spec *k = &spec->keys[i];
        fn(spec->path != NULL ? spec->path : "", k->name, k->status == SLUICE_KEY_BUILT, ctx);
        if (k->sub != NULL)
            each_key(k->sub, fn, ctx);
    }
}

void sluice_config_each_key(void (*fn)(const char *table, const char *key, bool built, void *ctx),
                            void *ctx)
{
    each_key(&root_section, fn, ctx);
}

bool sluice_config_error_quotes_secret(const sluice_error *err)
{
    return err != NULL && err->message != NULL &&
           strncmp(err->message, "inline secrets are refused", 26) == 0;
}
