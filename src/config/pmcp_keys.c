/*
 * pmcp_keys.c — which [code_mode] keys of a config pmcp-code-mode 0.7 also reads, and whether
 * they mean the same here (see config.h, sluice_config_pmcp_report).
 *
 * Owns: the comparison table, one row per shared key, written from pmcp-code-mode's sources
 * (config.rs, openapi_policy.rs; docs/policy.md says where the meanings part).
 * Does not own: loading or validating the config (config.c).
 */
#include "config/config.h"
#include "config/toml.h"

#include <string.h>

typedef struct pmcp_row {
    const char *key;
    bool same;
    const char *note;
} pmcp_row;

static const pmcp_row rows[] = {
    { "enabled", true, "code mode on" },
    { "server_id", true, "bound into every token" },
    { "token_ttl_seconds", true, "default 300" },
    { "auto_approve_levels", true, "default [\"low\"]" },
    { "openapi_reads_enabled", true, "reads allowed; derives read_mode" },
    { "openapi_allow_writes", true, "writes allowed; derives write_mode" },
    { "openapi_allow_deletes", true, "deletes allowed; derives delete_mode" },
    { "openapi_allowed_writes", true,
      "write allowlist of ids, \"METHOD /path\", \"METHOD:/path\"; a run-time segment matches "
      "only a {param} or * entry" },
    { "openapi_allowed_deletes", true, "delete allowlist, same entries" },
    { "openapi_blocked_writes", true, "methods and operations refused in every class" },
    { "openapi_blocked_paths", false,
      "same globs (case ignored, '*' any run, no '*' = the subtree); a template is refused only "
      "when a value of a run-time segment (never a '/') could land under a pattern, where pmcp "
      "refuses any dynamic path whose static prefix could; the resolved path is re-checked "
      "percent-decoded" },
    { "read_mode", true,
      "deny_all | allow_all | allowlist | blocklist; \"derived\" is sluice's "
      "default" },
    { "write_mode", true, "as read_mode" },
    { "delete_mode", true, "as read_mode" },
    { "admin_mode", true, "as read_mode; default deny_all" },
    { "openapi_require_output_declaration", false,
      "pmcp reads a // @returns comment; sluice reads the returned object literal's keys" },
    { "openapi_internal_blocked_fields", false, "stripped at any depth; sluice ignores key case" },
    { "openapi_output_blocked_fields", false,
      "sluice ignores key case and refuses at validate a plan that returns one by name" },
    { "action_tags", false,
      "pmcp keys operation names, which a GraphQL caller chooses; sluice keys OpenAPI operation "
      "ids and GraphQL root fields" },
    { "max_field_count", false,
      "default 100; pmcp enforces it only through Cedar, sluice natively with fragments "
      "expanded" },
    { "sdk_operations", false,
      "as pmcp: a plan calls the listed operations as api.<operationId>(args) and only them "
      "(the path form is refused); pmcp dispatches to its SDK unchecked, sluice composes each "
      "call into its OpenAPI request (path and query parameters by name, the body as `body`) "
      "and applies the class policy, blocked paths and fields as to api.get/post" },
    { "operations", true, "the catalog: its category overrides the HTTP method" },
    { "blocked_fields", false, "pmcp: GraphQL only; sluice: every language" },
    { "allow_mutations", true, "any mutation may run" },
    { "allowed_mutations", false, "sluice checks every root field; pmcp the first" },
    { "blocked_mutations", false, "sluice checks every root field; pmcp the first" },
    { "allowed_queries", false, "sluice checks every root field; pmcp the first" },
    { "blocked_queries", false, "sluice checks every root field; pmcp the first" },
    { "max_api_calls", true, "default 50; sluice also refuses a static bound above it" },
    { "sql_allow_writes", true, "INSERT / UPDATE" },
    { "sql_allow_deletes", true, "DELETE" },
    { "sql_allow_ddl", true, "DDL" },
    { "sql_blocked_tables", false, "sluice also sees tables in CTEs and nested expressions" },
    { "sql_blocked_columns", false, "sluice also sees columns under * and in functions" },
    { "sql_max_rows", true, "default 10000" },
    { "sql_max_joins", true, "default 5" },
    { "sql_require_limit", true, "a SELECT needs LIMIT" },
    { "sql_require_where_on_writes", true, "UPDATE / DELETE need WHERE" },
};

sluice_status
sluice_config_pmcp_report(sluice_arena *arena, const char *text, size_t len, sluice_buf *out)
{
    sluice_toml_value *root = NULL;
    sluice_error err = { 0 };
    sluice_status st = sluice_toml_parse(arena, text, len, "config", &root, &err);
    if (st != SLUICE_OK)
        return st;
    const sluice_toml_value *cm = sluice_toml_table_get(root, "code_mode");
    size_t shared = 0;
    for (size_t i = 0; cm != NULL && i < sizeof rows / sizeof rows[0]; i++)
        if (sluice_toml_table_get(cm, rows[i].key) != NULL)
            shared++;
    sluice_buf_printf(out, "keys shared with pmcp-code-mode 0.7: %zu\n", shared);
    for (size_t i = 0; cm != NULL && i < sizeof rows / sizeof rows[0]; i++)
        if (sluice_toml_table_get(cm, rows[i].key) != NULL)
            sluice_buf_printf(out, "  %-36s %s: %s\n", rows[i].key,
                              rows[i].same ? "same" : "differs", rows[i].note);
    return sluice_buf_status(out);
}
