/*
 * functions.c — the PostgreSQL function allowlist: every function a statement may call, in one
 * reviewed table, and the dangerous ones refused by name with the reason (a model reads it and
 * a reviewer can check it). Anything else — user-defined functions (SQL-language ones may hide
 * writes), extensions' functions, functions added in later PostgreSQL versions — is refused.
 *
 * Does not own: where functions appear (expr.c).
 */
#include "lang/pgsql/internal.h"

#include <string.h>

static const struct {
    const char *prefix; /* a name, or a prefix ending in '*' */
    const char *reason;
} denied[] = {
    { "pg_read_file", "reads files on the database server" },
    { "pg_read_binary_file", "reads files on the database server" },
    { "pg_ls_*", "lists directories on the database server" },
    { "pg_stat_file", "reads file metadata on the database server" },
    { "lo_*", "reads or writes large objects and server files" },
    { "dblink*", "opens connections outside the read-only transaction" },
    { "set_config", "changes server settings (read-only mode included)" },
    { "current_setting", "can read secrets from the server's settings" },
    { "pg_sleep*", "holds a connection for as long as it likes" },
    { "pg_terminate_backend", "kills other sessions" },
    { "pg_cancel_backend", "cancels other sessions' queries" },
    { "pg_reload_conf", "reloads the server's configuration" },
    { "pg_rotate_logfile", "acts on the server's log files" },
    { "pg_advisory_*", "takes locks that outlive the transaction" },
    { "pg_try_advisory_*", "takes locks that outlive the transaction" },
    { "pg_notify", "sends notifications to other sessions" },
    { "pg_logical_emit_message", "writes to the write-ahead log" },
    { "txid_*", "assigns a transaction id (a write)" },
    { "pg_current_xact_id", "assigns a transaction id (a write)" },
    { "nextval", "advances a sequence (a write no rollback undoes)" },
    { "setval", "changes a sequence" },
    { "query_to_xml*", "runs SQL given as a string, unseen by the analyzer" },
    { "table_to_xml*", "reads whole tables, blocked columns included" },
    { "schema_to_xml*", "reads whole schemas, blocked columns included" },
    { "database_to_xml*", "reads the whole database" },
    { "cursor_to_xml*", "reads through a cursor the analyzer did not see" },
    { "pg_stat_reset*", "resets server statistics" },
    { "pg_create_*", "creates replication slots or restore points" },
    { "pg_drop_replication_slot", "drops replication slots" },
    { "pg_switch_wal", "acts on the write-ahead log" },
    { "pg_backup_*", "controls backups" },
    { "pg_promote", "promotes a standby" },
    { "pg_import_system_collations", "writes the catalog" },
    { "binary_upgrade_*", "writes the catalog" },
};

/* Aggregates: counted for the explanation and risk. */
static const char *const aggregates[] = {
    "array_agg",
    "avg",
    "bit_and",
    "bit_or",
    "bool_and",
    "bool_or",
    "count",
    "every",
    "json_agg",
    "jsonb_agg",
    "json_object_agg",
    "jsonb_object_agg",
    "max",
    "min",
    "mode",
    "percentile_cont",
    "percentile_disc",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "string_agg",
    "sum",
    "variance",
    "var_pop",
    "var_samp",
    "corr",
    "covar_pop",
    "covar_samp",
    "regr_slope",
    "regr_intercept",
    "regr_count",
    "regr_r2",
};

static const char *const allowed[] = {
    /* window functions */
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    /* conditionals and comparison */
    "coalesce",
    "nullif",
    "greatest",
    "least",
    "num_nulls",
    "num_nonnulls",
    /* what the parser itself inserts for `SIMILAR TO` and `LIKE ... ESCAPE` (the pattern's
     * escape applied; the pattern rules of the predicate table still govern the column) */
    "similar_to_escape",
    "like_escape",
    /* math */
    "abs",
    "cbrt",
    "ceil",
    "ceiling",
    "degrees",
    "div",
    "exp",
    "factorial",
    "floor",
    "gcd",
    "lcm",
    "ln",
    "log",
    "log10",
    "mod",
    "pi",
    "power",
    "radians",
    "round",
    "scale",
    "sign",
    "sqrt",
    "trunc",
    "width_bucket",
    "random",
    "acos",
    "asin",
    "atan",
    "atan2",
    "cos",
    "cot",
    "sin",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "trim_scale",
    "min_scale",
    /* strings */
    "ascii",
    "bit_length",
    "btrim",
    "char_length",
    "character_length",
    "chr",
    "concat",
    "concat_ws",
    "format",
    "initcap",
    "left",
    "length",
    "lower",
    "lpad",
    "ltrim",
    "md5",
    "octet_length",
    "overlay",
    "position",
    "quote_ident",
    "quote_literal",
    "quote_nullable",
    "regexp_count",
    "regexp_instr",
    "regexp_like",
    "regexp_match",
    "regexp_matches",
    "regexp_replace",
    "regexp_split_to_array",
    "regexp_substr",
    "repeat",
    "replace",
    "reverse",
    "right",
    "rpad",
    "rtrim",
    "split_part",
    "starts_with",
    "strpos",
    "substr",
    "substring",
    "to_hex",
    "translate",
    "trim",
    "upper",
    "encode",
    "decode",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "string_to_array",
    "array_to_string",
    "to_char",
    "to_number",
    "to_date",
    "to_timestamp",
    "unistr",
    "normalize",
    /* dates and times */
    "age",
    "clock_timestamp",
    "date_bin",
    "date_part",
    "date_trunc",
    "extract",
    "isfinite",
    "justify_days",
    "justify_hours",
    "justify_interval",
    "make_date",
    "make_interval",
    "make_time",
    "make_timestamp",
    "make_timestamptz",
    "now",
    "statement_timestamp",
    "timeofday",
    "transaction_timestamp",
    "timezone",
    /* arrays */
    "array_append",
    "array_cat",
    "array_dims",
    "array_fill",
    "array_length",
    "array_lower",
    "array_ndims",
    "array_position",
    "array_positions",
    "array_prepend",
    "array_remove",
    "array_replace",
    "array_upper",
    "cardinality",
    "unnest",
    "generate_series",
    "generate_subscripts",
    "trim_array",
    /* json (row and whole-row arguments resolve to all their columns) */
    "to_json",
    "to_jsonb",
    "row_to_json",
    "array_to_json",
    "json_build_array",
    "json_build_object",
    "jsonb_build_array",
    "jsonb_build_object",
    "json_object",
    "jsonb_object",
    "json_array_length",
    "jsonb_array_length",
    "json_extract_path",
    "json_extract_path_text",
    "jsonb_extract_path",
    "jsonb_extract_path_text",
    "json_typeof",
    "jsonb_typeof",
    "jsonb_pretty",
    "jsonb_strip_nulls",
    "json_strip_nulls",
    "jsonb_set",
    "jsonb_insert",
    "jsonb_path_exists",
    "jsonb_path_match",
    "jsonb_path_query_array",
    "jsonb_path_query_first",
    "json_array_elements",
    "jsonb_array_elements",
    "json_array_elements_text",
    "jsonb_array_elements_text",
    /* type helpers */
    "pg_typeof",
    "bool",
    "int4",
    "int8",
    "float8",
    "numeric",
    "text",
};

/* One-column set-returning functions allowed in FROM. */
static const char *const table_functions[] = {
    "generate_series",          "unnest",
    "json_array_elements",      "jsonb_array_elements",
    "json_array_elements_text", "jsonb_array_elements_text",
    "regexp_split_to_table",    "generate_subscripts",
};

static bool in(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

#define IN(list, name) in((list), sizeof(list) / sizeof((list)[0]), (name))

static const char *denied_reason(const char *name)
{
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        const char *p = denied[i].prefix;
        size_t n = strlen(p);
        if (p[n - 1] == '*' ? strncmp(name, p, n - 1) == 0 : strcmp(name, p) == 0)
            return denied[i].reason;
    }
    return NULL;
}

bool sluice_pgsql_set_returning(const char *name)
{
    static const char *const srfs[] = {
        "generate_series",
        "generate_subscripts",
        "unnest",
        "json_array_elements",
        "jsonb_array_elements",
        "json_array_elements_text",
        "jsonb_array_elements_text",
        "json_each",
        "jsonb_each",
        "json_each_text",
        "jsonb_each_text",
        "json_object_keys",
        "jsonb_object_keys",
        "jsonb_path_query",
        "regexp_matches",
        "regexp_split_to_table",
        "string_to_table",
        "json_populate_recordset",
        "jsonb_populate_recordset",
        "json_to_recordset",
        "jsonb_to_recordset",
    };
    return IN(srfs, name);
}

bool sluice_pgsql_table_function_allowed(const char *name)
{
    return IN(table_functions, name);
}

void sluice_pgsql_check_function(pg_ctx *c, json_t *body, const char *schema, const char *name)
{
    sluice_pgsql_add(c, &c->facts->functions, name);
    const char *reason = denied_reason(name);
    if (reason != NULL) {
        sluice_pgsql_violate(c, body, "function_not_allowed",
                             "compute the value with allowed functions",
                             "function %s is not allowed: it %s", name, reason);
        return;
    }
    if (schema != NULL && strcmp(schema, "pg_catalog") != 0) {
        sluice_pgsql_violate(
            c, body, "function_not_allowed",
            "call built-in functions only (user-defined functions can hide writes)",
            "function %s.%s is not allowed: only built-in functions are", schema, name);
        return;
    }
    if (IN(aggregates, name)) {
        sluice_sql_ext(c->facts)->aggregate_count++;
        return;
    }
    if (!IN(allowed, name))
        sluice_pgsql_violate(c, body, "function_not_allowed",
                             "use the built-in functions documented in docs/postgres.md",
                             "function %s is not on the allowlist", name);
}
