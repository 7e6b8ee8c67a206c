/*
 * test_sql_functions.c — one test per function code mode refuses (functions.c): each is called
 * the way an attacker would and must be refused with its reason; plus the allowlist's edges.
 * Generated once from the denylists in src/lang/sql/functions.c, then kept by hand.
 */
#include "lang/sql/internal.h"
#include "sql_fixture.h"
#include "unit.h"

static void expect_denied(const char *sql, const char *message)
{
    const sluice_codefacts *f = fixture_analyze(sql);
    const sluice_codefacts_violation *v = fixture_violation(f, "blocked_function");
    if (v == NULL || strstr(v->message, message) == NULL)
        fixture_dump(sql, f);
    assert_non_null(v);
    assert_non_null(strstr(v->message, message));
}

#define DENY(id, sql, message)                     \
    static void test_sql_denies_##id(void **state) \
    {                                              \
        (void)state;                               \
        expect_denied(sql, message);               \
    }

DENY(table_arrow_scan,
     "SELECT * FROM arrow_scan()",
     "table function arrow_scan() is not allowed: it reads memory by address")
DENY(table_arrow_scan_dumb,
     "SELECT * FROM arrow_scan_dumb()",
     "table function arrow_scan_dumb() is not allowed: it reads memory by address")
DENY(table_check_peg_parser,
     "SELECT * FROM check_peg_parser()",
     "table function check_peg_parser() is not allowed: it changes server state")
DENY(table_checkpoint,
     "SELECT * FROM checkpoint()",
     "table function checkpoint() is not allowed: it changes server state")
DENY(table_disable_logging,
     "SELECT * FROM disable_logging()",
     "table function disable_logging() is not allowed: it changes server state")
DENY(table_disable_peg_parser,
     "SELECT * FROM disable_peg_parser()",
     "table function disable_peg_parser() is not allowed: it changes server state")
DENY(table_disable_profiling,
     "SELECT * FROM disable_profiling()",
     "table function disable_profiling() is not allowed: it changes server state")
DENY(table_enable_logging,
     "SELECT * FROM enable_logging(storage='stdout')",
     "table function enable_logging() is not allowed: it changes server state")
DENY(table_enable_peg_parser,
     "SELECT * FROM enable_peg_parser()",
     "table function enable_peg_parser() is not allowed: it changes server state")
DENY(table_enable_profiling,
     "SELECT * FROM enable_profiling()",
     "table function enable_profiling() is not allowed: it changes server state")
DENY(table_force_checkpoint,
     "SELECT * FROM force_checkpoint()",
     "table function force_checkpoint() is not allowed: it changes server state")
DENY(table_glob,
     "SELECT * FROM glob('/etc/*')",
     "table function glob() is not allowed: it reads files")
DENY(table_icu_calendar_names,
     "SELECT * FROM icu_calendar_names()",
     "table function icu_calendar_names() is not allowed: it reports server internals or settings")
DENY(table_json_execute_serialized_sql,
     "SELECT * FROM json_execute_serialized_sql()",
     "table function json_execute_serialized_sql() is not allowed: it runs SQL given as a string")
DENY(table_parquet_bloom_probe,
     "SELECT * FROM parquet_bloom_probe()",
     "table function parquet_bloom_probe() is not allowed: it reads files")
DENY(table_parquet_file_metadata,
     "SELECT * FROM parquet_file_metadata()",
     "table function parquet_file_metadata() is not allowed: it reads files")
DENY(table_parquet_full_metadata,
     "SELECT * FROM parquet_full_metadata()",
     "table function parquet_full_metadata() is not allowed: it reads files")
DENY(table_parquet_kv_metadata,
     "SELECT * FROM parquet_kv_metadata()",
     "table function parquet_kv_metadata() is not allowed: it reads files")
DENY(table_parquet_metadata,
     "SELECT * FROM parquet_metadata()",
     "table function parquet_metadata() is not allowed: it reads files")
DENY(table_parquet_scan,
     "SELECT * FROM parquet_scan()",
     "table function parquet_scan() is not allowed: it reads files")
DENY(table_parquet_schema,
     "SELECT * FROM parquet_schema()",
     "table function parquet_schema() is not allowed: it reads files")
DENY(table_pg_timezone_names,
     "SELECT * FROM pg_timezone_names()",
     "table function pg_timezone_names() is not allowed: it reports server internals or settings")
DENY(table_query,
     "SELECT * FROM query('SELECT ssn FROM customers')",
     "table function query() is not allowed: it runs SQL given as a string")
DENY(table_query_table,
     "SELECT * FROM query_table('customers')",
     "table function query_table() is not allowed: it runs SQL given as a string")
DENY(table_read_blob,
     "SELECT * FROM read_blob()",
     "table function read_blob() is not allowed: it reads files")
DENY(table_read_csv,
     "SELECT * FROM read_csv('/etc/passwd')",
     "table function read_csv() is not allowed: it reads files")
DENY(table_read_csv_auto,
     "SELECT * FROM read_csv_auto()",
     "table function read_csv_auto() is not allowed: it reads files")
DENY(table_read_duckdb,
     "SELECT * FROM read_duckdb()",
     "table function read_duckdb() is not allowed: it reads files")
DENY(table_read_json,
     "SELECT * FROM read_json()",
     "table function read_json() is not allowed: it reads files")
DENY(table_read_json_auto,
     "SELECT * FROM read_json_auto()",
     "table function read_json_auto() is not allowed: it reads files")
DENY(table_read_json_objects,
     "SELECT * FROM read_json_objects()",
     "table function read_json_objects() is not allowed: it reads files")
DENY(table_read_json_objects_auto,
     "SELECT * FROM read_json_objects_auto()",
     "table function read_json_objects_auto() is not allowed: it reads files")
DENY(table_read_ndjson,
     "SELECT * FROM read_ndjson()",
     "table function read_ndjson() is not allowed: it reads files")
DENY(table_read_ndjson_auto,
     "SELECT * FROM read_ndjson_auto()",
     "table function read_ndjson_auto() is not allowed: it reads files")
DENY(table_read_ndjson_objects,
     "SELECT * FROM read_ndjson_objects()",
     "table function read_ndjson_objects() is not allowed: it reads files")
DENY(table_read_ndjson_objects_auto,
     "SELECT * FROM read_ndjson_objects_auto()",
     "table function read_ndjson_objects_auto() is not allowed: it reads files")
DENY(table_read_parquet,
     "SELECT * FROM read_parquet('orders/*.parquet')",
     "table function read_parquet() is not allowed: it reads files")
DENY(table_read_text,
     "SELECT * FROM read_text()",
     "table function read_text() is not allowed: it reads files")
DENY(table_sniff_csv,
     "SELECT * FROM sniff_csv()",
     "table function sniff_csv() is not allowed: it reads files")
DENY(table_sql_auto_complete,
     "SELECT * FROM sql_auto_complete()",
     "table function sql_auto_complete() is not allowed: it reports server internals or settings")
DENY(table_summary,
     "SELECT * FROM summary()",
     "table function summary() is not allowed: it returns every column of its input, including "
     "blocked ones")
DENY(table_truncate_duckdb_logs,
     "SELECT * FROM truncate_duckdb_logs()",
     "table function truncate_duckdb_logs() is not allowed: it changes server state")
DENY(table_which_secret,
     "SELECT * FROM which_secret()",
     "table function which_secret() is not allowed: it reports server internals or settings")
DENY(table_duckdb_tables,
     "SELECT * FROM duckdb_tables()",
     "table function duckdb_tables() is not allowed: it reports server internals or settings")
DENY(table_duckdb_settings,
     "SELECT * FROM duckdb_settings()",
     "table function duckdb_settings() is not allowed: it reports server internals or settings")
DENY(table_duckdb_secrets,
     "SELECT * FROM duckdb_secrets()",
     "table function duckdb_secrets() is not allowed: it reports server internals or settings")
DENY(table_pragma_table_info,
     "SELECT * FROM pragma_table_info()",
     "table function pragma_table_info() is not allowed: it reports server internals or settings")
DENY(table_json_each,
     "SELECT * FROM json_each()",
     "table function json_each() is not allowed: it is not on the table function allowlist")
DENY(table_test_all_types,
     "SELECT * FROM test_all_types()",
     "table function test_all_types() is not allowed: it is not on the table function allowlist")
DENY(table_repeat_row,
     "SELECT * FROM repeat_row()",
     "table function repeat_row() is not allowed: it is not on the table function allowlist")
DENY(fn_col_description,
     "SELECT col_description()",
     "function col_description() is not allowed: it reports server internals or settings")
DENY(fn_combine,
     "SELECT combine()",
     "function combine() is not allowed: it operates on internal aggregate states")
DENY(fn_current_catalog,
     "SELECT current_catalog()",
     "function current_catalog() is not allowed: it reports server internals or settings")
DENY(fn_current_connection_id,
     "SELECT current_connection_id()",
     "function current_connection_id() is not allowed: it reports server internals or settings")
DENY(fn_current_database,
     "SELECT current_database()",
     "function current_database() is not allowed: it reports server internals or settings")
DENY(fn_current_query,
     "SELECT current_query()",
     "function current_query() is not allowed: it reports server internals or settings")
DENY(fn_current_query_id,
     "SELECT current_query_id()",
     "function current_query_id() is not allowed: it reports server internals or settings")
DENY(fn_current_schema,
     "SELECT current_schema()",
     "function current_schema() is not allowed: it reports server internals or settings")
DENY(fn_current_schemas,
     "SELECT current_schemas()",
     "function current_schemas() is not allowed: it reports server internals or settings")
DENY(fn_current_setting,
     "SELECT current_setting('threads')",
     "function current_setting() is not allowed: it reads server settings")
DENY(fn_current_transaction_id,
     "SELECT current_transaction_id()",
     "function current_transaction_id() is not allowed: it reports server internals or settings")
DENY(fn_currval, "SELECT currval('seq')", "function currval() is not allowed: it reads a sequence")
DENY(fn_error,
     "SELECT error(ssn) FROM customers",
     "function error() is not allowed: it puts a value into an error message, which bypasses "
     "blocked fields")
DENY(fn_finalize,
     "SELECT finalize()",
     "function finalize() is not allowed: it operates on internal aggregate states")
DENY(fn_get_block_size,
     "SELECT get_block_size()",
     "function get_block_size() is not allowed: it reports server internals or settings")
DENY(fn_getvariable,
     "SELECT getvariable('v')",
     "function getvariable() is not allowed: it reads session variables")
DENY(fn_in_search_path,
     "SELECT in_search_path()",
     "function in_search_path() is not allowed: it reports server internals or settings")
DENY(fn_inet_client_addr,
     "SELECT inet_client_addr()",
     "function inet_client_addr() is not allowed: it reports server internals or settings")
DENY(fn_inet_client_port,
     "SELECT inet_client_port()",
     "function inet_client_port() is not allowed: it reports server internals or settings")
DENY(fn_inet_server_addr,
     "SELECT inet_server_addr()",
     "function inet_server_addr() is not allowed: it reports server internals or settings")
DENY(fn_inet_server_port,
     "SELECT inet_server_port()",
     "function inet_server_port() is not allowed: it reports server internals or settings")
DENY(fn_json_deserialize_sql,
     "SELECT json_deserialize_sql('{}')",
     "function json_deserialize_sql() is not allowed: it runs SQL given as a string")
DENY(fn_json_serialize_plan,
     "SELECT json_serialize_plan('SELECT 1')",
     "function json_serialize_plan() is not allowed: it runs SQL given as a string")
DENY(fn_json_serialize_sql,
     "SELECT json_serialize_sql('SELECT 1')",
     "function json_serialize_sql() is not allowed: it runs SQL given as a string")
DENY(fn_nextval,
     "SELECT nextval('seq')",
     "function nextval() is not allowed: it advances a sequence (a write)")
DENY(fn_obj_description,
     "SELECT obj_description()",
     "function obj_description() is not allowed: it reports server internals or settings")
DENY(fn_parse_duckdb_log_message,
     "SELECT parse_duckdb_log_message()",
     "function parse_duckdb_log_message() is not allowed: it reads the server log")
DENY(fn_pg_conf_load_time,
     "SELECT pg_conf_load_time()",
     "function pg_conf_load_time() is not allowed: it reports server internals or settings")
DENY(fn_pg_get_constraintdef,
     "SELECT pg_get_constraintdef()",
     "function pg_get_constraintdef() is not allowed: it reports server internals or settings")
DENY(fn_pg_get_expr,
     "SELECT pg_get_expr()",
     "function pg_get_expr() is not allowed: it reports server internals or settings")
DENY(fn_pg_get_viewdef,
     "SELECT pg_get_viewdef()",
     "function pg_get_viewdef() is not allowed: it reports server internals or settings")
DENY(fn_pg_postmaster_start_time,
     "SELECT pg_postmaster_start_time()",
     "function pg_postmaster_start_time() is not allowed: it reports server internals or settings")
DENY(fn_pg_sleep, "SELECT pg_sleep(1)", "function pg_sleep() is not allowed: it stalls the server")
DENY(fn_setseed,
     "SELECT setseed(0.5)",
     "function setseed() is not allowed: it changes the session's random seed")
DENY(fn_shobj_description,
     "SELECT shobj_description()",
     "function shobj_description() is not allowed: it reports server internals or settings")
DENY(fn_sleep_ms,
     "SELECT sleep_ms(1000)",
     "function sleep_ms() is not allowed: it stalls the server")
DENY(fn_stats,
     "SELECT stats(ssn) FROM customers",
     "function stats() is not allowed: it reveals column statistics over the whole table")
DENY(fn_txid_current,
     "SELECT txid_current()",
     "function txid_current() is not allowed: it reports server internals or settings")
DENY(fn_vector_type,
     "SELECT vector_type()",
     "function vector_type() is not allowed: it reports server internals or settings")
DENY(fn_version,
     "SELECT version()",
     "function version() is not allowed: it reports server internals or settings")
DENY(fn_write_log,
     "SELECT write_log('x')",
     "function write_log() is not allowed: it writes to the server log")

static void test_sql_denies_function_hidden_in_macro(void **state)
{
    (void)state;
    expect_denied("SELECT sneaky()", "function current_setting() is not allowed");
}

static void test_sql_denies_function_inside_lambda(void **state)
{
    (void)state;
    expect_denied("SELECT list_transform([1, 2], x -> nextval('seq'))",
                  "function nextval() is not allowed");
}

static void test_sql_denies_replacement_scan_of_a_file(void **state)
{
    (void)state;
    expect_denied("SELECT * FROM '/etc/passwd'", "'/etc/passwd' looks like a file path");
}

static void test_sql_unknown_function_fails_closed(void **state)
{
    (void)state;
    assert_string_equal(sluice_sql_function_refusal(SLUICE_SQL_FN_SCALAR, "made_up_fn"),
                        "it is not on the reviewed function allowlist");
    assert_string_equal(sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, "made_up_fn"),
                        "it is not on the table function allowlist");
}

static void test_sql_allowlist_admits_reviewed_functions(void **state)
{
    (void)state;
    const char *ok[] = { "upper", "sum", "count_star", "row_number",  "date_trunc",
                         "+",     "~~",  "list_value", "struct_pack", "icu_collate_de" };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_null(sluice_sql_function_refusal(SLUICE_SQL_FN_SCALAR, ok[i]));
    assert_null(sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, "range"));
    assert_null(sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, "generate_series"));
    assert_null(sluice_sql_function_refusal(SLUICE_SQL_FN_TABLE, "unnest"));
}

static void test_sql_allowed_functions_analyze_clean(void **state)
{
    (void)state;
    const sluice_codefacts *f =
        fixture_analyze("SELECT upper(name), date_trunc('month', created_at) AS m, count(*) AS n "
                        "FROM customers, range(3) GROUP BY ALL");
    if (f->violation_count > 0)
        fixture_dump("allowed", f);
    assert_int_equal(f->violation_count, 0);
}

int main(void)
{
#define T(id) \
    cmocka_unit_test_setup_teardown(test_sql_denies_##id, fixture_arena_new, fixture_arena_free)
    const struct CMUnitTest tests[] = {
        T(table_arrow_scan),
        T(table_arrow_scan_dumb),
        T(table_check_peg_parser),
        T(table_checkpoint),
        T(table_disable_logging),
        T(table_disable_peg_parser),
        T(table_disable_profiling),
        T(table_enable_logging),
        T(table_enable_peg_parser),
        T(table_enable_profiling),
        T(table_force_checkpoint),
        T(table_glob),
        T(table_icu_calendar_names),
        T(table_json_execute_serialized_sql),
        T(table_parquet_bloom_probe),
        T(table_parquet_file_metadata),
        T(table_parquet_full_metadata),
        T(table_parquet_kv_metadata),
        T(table_parquet_metadata),
        T(table_parquet_scan),
        T(table_parquet_schema),
        T(table_pg_timezone_names),
        T(table_query),
        T(table_query_table),
        T(table_read_blob),
        T(table_read_csv),
        T(table_read_csv_auto),
        T(table_read_duckdb),
        T(table_read_json),
        T(table_read_json_auto),
        T(table_read_json_objects),
        T(table_read_json_objects_auto),
        T(table_read_ndjson),
        T(table_read_ndjson_auto),
        T(table_read_ndjson_objects),
        T(table_read_ndjson_objects_auto),
        T(table_read_parquet),
        T(table_read_text),
        T(table_sniff_csv),
        T(table_sql_auto_complete),
        T(table_summary),
        T(table_truncate_duckdb_logs),
        T(table_which_secret),
        T(table_duckdb_tables),
        T(table_duckdb_settings),
        T(table_duckdb_secrets),
        T(table_pragma_table_info),
        T(table_json_each),
        T(table_test_all_types),
        T(table_repeat_row),
        T(fn_col_description),
        T(fn_combine),
        T(fn_current_catalog),
        T(fn_current_connection_id),
        T(fn_current_database),
        T(fn_current_query),
        T(fn_current_query_id),
        T(fn_current_schema),
        T(fn_current_schemas),
        T(fn_current_setting),
        T(fn_current_transaction_id),
        T(fn_currval),
        T(fn_error),
        T(fn_finalize),
        T(fn_get_block_size),
        T(fn_getvariable),
        T(fn_in_search_path),
        T(fn_inet_client_addr),
        T(fn_inet_client_port),
        T(fn_inet_server_addr),
        T(fn_inet_server_port),
        T(fn_json_deserialize_sql),
        T(fn_json_serialize_plan),
        T(fn_json_serialize_sql),
        T(fn_nextval),
        T(fn_obj_description),
        T(fn_parse_duckdb_log_message),
        T(fn_pg_conf_load_time),
        T(fn_pg_get_constraintdef),
        T(fn_pg_get_expr),
        T(fn_pg_get_viewdef),
        T(fn_pg_postmaster_start_time),
        T(fn_pg_sleep),
        T(fn_setseed),
        T(fn_shobj_description),
        T(fn_sleep_ms),
        T(fn_stats),
        T(fn_txid_current),
        T(fn_vector_type),
        T(fn_version),
        T(fn_write_log),
        T(function_hidden_in_macro),
        T(function_inside_lambda),
        T(replacement_scan_of_a_file),
        cmocka_unit_test_setup_teardown(test_sql_unknown_function_fails_closed, fixture_arena_new,
                                        fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_allowlist_admits_reviewed_functions,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_allowed_functions_analyze_clean, fixture_arena_new,
                                        fixture_arena_free),
    };
#undef T
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
