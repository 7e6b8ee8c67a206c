/*
 * test_discover.c — the search and describe tools' texts (surface/discover.c): ranking by name
 * before columns before comments, paging, the caller's exposure rules (a blocked table is not
 * found, a blocked column is marked, an operation whose action is off is marked not callable),
 * the nearest names for a miss, and allocation failure at every step (no answer rather than a
 * partial one).
 */
#include "surface/discover.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static sluice_schema_column customer_cols[] = {
    { "id", "INTEGER", false, false },
    { "name", "VARCHAR", true, false },
    { "ssn", "VARCHAR", true, false },
};
static sluice_schema_column order_cols[] = {
    { "id", "INTEGER", false, false },
    { "customer_id", "INTEGER", false, false },
    { "total", "DECIMAL(12,2)", false, false },
    { "order_date", "DATE", false, false },
};
static sluice_schema_column secret_cols[] = { { "customer_ssn", "VARCHAR", false, false } };
static sluice_schema_table tables[] = {
    { "main", "orders", false, false, order_cols, 4, 120, NULL },
    { "main", "customers", false, false, customer_cols, 3, 10, NULL },
    { "main", "secrets", false, false, secret_cols, 1, 1, NULL },
};
static sluice_schema_table_notes notes[] = {
    { "One row per order; total in dollars", NULL, NULL, NULL },
    { "People who buy", NULL, NULL, NULL },
    { NULL, NULL, NULL, NULL },
};
static const sluice_schema schema = { .tables = tables, .table_count = 3, .notes = notes };

static sluice_config_code_mode rules(void)
{
    static const char *blocked[] = { "ssn" };
    static const char *hidden[] = { "secrets" };
    sluice_config_code_mode r;
    memset(&r, 0, sizeof r);
    r.blocked_fields = (sluice_strlist){ blocked, 1 };
    r.sql_blocked_tables = (sluice_strlist){ hidden, 1 };
    r.openapi_reads_enabled = true;
    return r;
}

static void test_discover_search_ranks_names_before_columns_and_hides_blocked_tables(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode r = rules();
    char *t = sluice_discover_search(a, &schema, &r, "customer ssn", 1);
    assert_string_equal(t,
                        "2 matches (page 1 of 1):\n"
                        "- customers (table, ~10 rows): People who buy; matching: ssn [blocked]\n"
                        "- orders (table, ~120 rows): One row per order; total in dollars; "
                        "matching: customer_id\n"
                        "describe {name} shows the details.\n");
    /* a word the name holds lists no columns for it; elsewhere they explain the hit */
    t = sluice_discover_search(a, &schema, &r, "order customer", 1);
    assert_non_null(strstr(t, "- orders (table, ~120 rows): One row per order; total in dollars; "
                              "matching: customer_id\n"));
    assert_null(strstr(t, "order_date"));
    t = sluice_discover_search(a, &schema, &r, "", 1);
    assert_non_null(strstr(t, "2 matches"));
    assert_null(strstr(t, "secrets"));
    t = sluice_discover_search(a, &schema, &r, "nothing_like_it", 1);
    assert_string_equal(t, "Nothing matches \"nothing_like_it\"; try fewer or other words, or an "
                           "empty query for everything.\n");
    sluice_arena_free(a);
}

static void test_discover_describe_marks_blocked_and_names_the_nearest_on_a_miss(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode r = rules();
    char *t = sluice_discover_describe(a, &schema, &r, "customers", 1);
    assert_string_equal(t, "## customers (table) — about 10 rows\nPeople who buy\n"
                           "- id INTEGER\n- name VARCHAR\n- ssn VARCHAR [join/filter only]\n");
    t = sluice_discover_describe(a, &schema, &r, "secrets", 1); /* hidden: as if absent */
    assert_non_null(strstr(t, "Nothing is named \"secrets\". "));
    assert_null(strstr(t, "customer_ssn"));
    t = sluice_discover_describe(a, &schema, &r, "Orders, customers", 1);
    assert_non_null(strstr(t, "## orders (table)"));
    assert_non_null(strstr(t, "\n\n## customers (table)"));
    sluice_arena_free(a);
}

static void test_discover_pages_and_marks_operations_not_callable(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    enum { N = 25 };
    sluice_schema_table many[N];
    sluice_schema_table_notes many_notes[N];
    char names[N][16];
    memset(many, 0, sizeof many);
    memset(many_notes, 0, sizeof many_notes);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "op%02d", i);
        many[i] = (sluice_schema_table){ .schema = "openapi", .name = names[i], .approx_rows = -1 };
        many_notes[i] = (sluice_schema_table_notes){ .comment = "GET /x",
                                                     .action = i == 3 ? "write" : "read",
                                                     .declaration = "api.get(\"/x\");" };
    }
    sluice_schema s = { .tables = many, .table_count = N, .notes = many_notes };
    sluice_config_code_mode r = rules();
    char *t = sluice_discover_search(a, &s, &r, "", 3);
    assert_non_null(strstr(t, "25 matches (page 3 of 3):\n- op20 (operation, read): GET /x\n"));
    t = sluice_discover_search(a, &s, &r, "op03", 1);
    assert_non_null(
        strstr(t, "- op03 (operation, write; not callable: writes are off for you): GET /x\n"));
    t = sluice_discover_describe(a, &s, &r, "op03", 1);
    assert_string_equal(t, "// not callable: writes are off for you\napi.get(\"/x\");\n");
    sluice_arena_free(a);
}

static void test_discover_allocation_failure_gives_no_answer(void **state)
{
    (void)state;
    sluice_config_code_mode r = rules();
    for (int which = 0; which < 2; which++) {
        sluice_arena *ref = sluice_arena_new();
        const char *want = which == 0 ? sluice_discover_search(ref, &schema, &r, "customer ssn", 1)
                                      : sluice_discover_describe(ref, &schema, &r, "customers", 1);
        assert_non_null(want);
        for (long n = 1;; n++) {
            sluice_arena *a = sluice_arena_new();
            assert_non_null(a);
            sluice_arena_fail_at(n);
            char *t = which == 0 ? sluice_discover_search(a, &schema, &r, "customer ssn", 1)
                                 : sluice_discover_describe(a, &schema, &r, "customers", 1);
            sluice_arena_fail_at(0);
            bool done = t != NULL && !sluice_arena_failed(a);
            if (t != NULL)
                assert_string_equal(t, want); /* never a partial answer */
            sluice_arena_free(a);
            if (done)
                break;
            assert_true(n < 10000);
        }
        sluice_arena_free(ref);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_discover_search_ranks_names_before_columns_and_hides_blocked_tables),
        cmocka_unit_test(test_discover_describe_marks_blocked_and_names_the_nearest_on_a_miss),
        cmocka_unit_test(test_discover_pages_and_marks_operations_not_callable),
        cmocka_unit_test(test_discover_allocation_failure_gives_no_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
