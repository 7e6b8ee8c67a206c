/*
 * test_sql_lineage.c — blocked-field lineage, driven by files: every tests/unit/data/sql_lineage/
 * allow/<case>.sql must analyze with no violation, every refuse/<case>.sql must be refused.
 * A refuse case may start with "-- rule: <rule>" (default blocked_column) and
 * "-- message: <text>" (a substring the violation must contain). Adding a case needs no C.
 * Blocked fields: ssn (any table) and customers.email (sql_fixture.h).
 */
#include "sql_fixture.h"
#include "unit.h"

#include <dirent.h>

static char *header_value(char *sql, const char *key)
{
    char *p = strstr(sql, key);
    if (p == NULL)
        return NULL;
    p += strlen(key);
    size_t n = strcspn(p, "\n");
    return sluice_arena_strndup(fixture_arena, p, n);
}

static size_t run_dir(const char *sub, bool expect_refused)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/unit/data/sql_lineage/%s", SLUICE_SOURCE_DIR, sub);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t cases = 0, failures = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        char *sql = fixture_read_file(path);
        assert_non_null(sql);
        const sluice_codefacts *f = fixture_analyze(sql);
        cases++;
        bool refused = f->violation_count > 0;
        bool ok = refused == expect_refused;
        if (ok && expect_refused) {
            const char *rule = header_value(sql, "-- rule: ");
            const char *msg = header_value(sql, "-- message: ");
            const sluice_codefacts_violation *v =
                fixture_violation(f, rule != NULL ? rule : "blocked_column");
            ok = v != NULL && (msg == NULL || strstr(v->message, msg) != NULL);
        }
        if (!ok) {
            failures++;
            fprintf(stderr, "FAIL %s/%s (expected %s)\n", sub, e->d_name,
                    expect_refused ? "refused" : "allowed");
            fixture_dump(sql, f);
        }
    }
    closedir(d);
    assert_int_equal(failures, 0);
    return cases;
}

static void test_sql_lineage_allowed_cases_pass(void **state)
{
    (void)state;
    assert_true(run_dir("allow", false) >= 20);
}

static void test_sql_lineage_leak_attempts_are_refused(void **state)
{
    (void)state;
    assert_true(run_dir("refuse", true) >= 40);
}

static void test_sql_lineage_message_names_output_and_field(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT name, upper(ssn) AS x FROM customers");
    const sluice_codefacts_violation *v = fixture_violation(f, "blocked_column");
    assert_non_null(v);
    assert_string_equal(v->message, "output column 'x' is computed from blocked field "
                                    "customers.ssn; blocked fields may be used in "
                                    "WHERE/JOIN/GROUP BY but not returned");
    assert_string_equal(v->suggestion, "remove it from the SELECT list or use * EXCLUDE (ssn)");
}

static void test_sql_lineage_outputs_carry_base_columns(void **state)
{
    (void)state;
    const sluice_codefacts *f =
        fixture_analyze("SELECT c.name, sum(o.total_cents) AS total FROM customers c JOIN orders o "
                        "ON o.customer_id = c.id WHERE c.ssn = '1' GROUP BY c.name");
    assert_int_equal(f->violation_count, 0);
    assert_int_equal(f->output_count, 2);
    assert_string_equal(f->outputs[0].name, "name");
    assert_int_equal(f->outputs[0].lineage.count, 1);
    assert_string_equal(f->outputs[0].lineage.items[0], "customers.name");
    assert_string_equal(f->outputs[1].lineage.items[0], "orders.total_cents");
    assert_int_equal(f->blocked_used.count, 1);
    assert_string_equal(f->blocked_used.items[0], "customers.ssn");
    assert_true(sluice_codefacts_list_has(&f->fields_read, "orders.customer_id"));
    assert_true(sluice_codefacts_list_has(&f->resources_read, "orders"));
}

static void test_sql_lineage_view_resolves_to_base_table(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT name FROM customer_directory");
    assert_int_equal(f->violation_count, 0);
    assert_int_equal(f->resources_read.count, 1);
    assert_string_equal(f->resources_read.items[0], "customers");
}

static void test_sql_lineage_cedar_context_lists_output_fields(void **state)
{
    (void)state;
    const sluice_codefacts *f = fixture_analyze("SELECT name AS n FROM customers LIMIT 3");
    json_t *ctx = sluice_codefacts_cedar_context(f);
    assert_non_null(ctx);
    char *text = json_dumps(ctx, JSON_SORT_KEYS | JSON_COMPACT);
    assert_non_null(strstr(text, "\"outputFields\":[\"customers.name\",\"name\"]"));
    assert_non_null(strstr(text, "\"calledOperations\":[]"));
    /* DuckDB's own estimate (issue 24), never above the LIMIT */
    assert_non_null(strstr(text, "\"estimatedRows\":"));
    assert_true(f->estimated_rows >= 0 && f->estimated_rows <= 3);
    assert_string_equal(f->estimate_engine, "DuckDB");
    assert_non_null(strstr(text, "\"statementType\":\"SELECT\""));
    free(text);
    json_decref(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sql_lineage_allowed_cases_pass, fixture_arena_new,
                                        fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_lineage_leak_attempts_are_refused,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_lineage_message_names_output_and_field,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_lineage_outputs_carry_base_columns,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_lineage_view_resolves_to_base_table,
                                        fixture_arena_new, fixture_arena_free),
        cmocka_unit_test_setup_teardown(test_sql_lineage_cedar_context_lists_output_fields,
                                        fixture_arena_new, fixture_arena_free),
    };
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
