/*
 * test_guide_languages.c — code-mode://instructions is written per configured language from
 * each front end's guide hook: a GraphQL-only server hears about operations, variables, its
 * limits as configured, blocked fields, introspection and code-mode://schema, and nothing about
 * SQL; a SQL server keeps its dialect text; both together get one section each.
 */
#include "codemode/guide.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static sluice_config *config_with(int64_t depth, bool introspection)
{
    sluice_config *c = NULL;
    assert_int_equal(sluice_config_defaults(&c), SLUICE_OK);
    static const char *blocked[] = { "Customer.ssn" };
    static const char *columns[] = { "customers.email" };
    c->code_mode.graphql_blocked_fields = (sluice_strlist){ blocked, 1 };
    c->code_mode.sql_blocked_columns = (sluice_strlist){ columns, 1 };
    c->code_mode.graphql_max_depth = depth;
    c->code_mode.graphql_allow_introspection = introspection;
    return c;
}

static char *instructions(sluice_arena *a, sluice_config *c, const char *const *langs, size_t n)
{
    char *text = sluice_guide_instructions(a, c, "duckdb", langs, n, false);
    assert_non_null(text);
    return text;
}

static void test_graphql_only_is_about_graphql(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config *c = config_with(7, false);
    static const char *const langs[] = { "graphql" };
    const char *t = instructions(a, c, langs, 1);
    assert_non_null(strstr(t, "# Code mode (GraphQL)"));
    assert_non_null(strstr(t, "ONE GraphQL operation"));
    assert_non_null(strstr(t, "$operationName"));
    assert_non_null(strstr(t, "depth 7,")); /* the configured value, not the default 10 */
    assert_non_null(strstr(t, "`Customer.ssn`"));
    assert_null(strstr(t, "customers.email")); /* SQL's own blocked columns are not GraphQL's */
    assert_non_null(strstr(t, "Introspection (`__schema`, `__type`) is off"));
    assert_non_null(strstr(t, "`code-mode://schema` is the schema"));
    assert_null(strstr(t, "SQL"));
    assert_null(strstr(t, "JOIN"));
    assert_null(strstr(t, "statement"));
    sluice_config_free(c);
    sluice_arena_free(a);
}

static void test_introspection_allowed_says_so(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config *c = config_with(10, true);
    static const char *const langs[] = { "graphql" };
    const char *t = instructions(a, c, langs, 1);
    assert_non_null(strstr(t, "is allowed"));
    assert_null(strstr(t, "is off"));
    sluice_config_free(c);
    sluice_arena_free(a);
}

static void test_sql_keeps_its_dialect_text(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config *c = config_with(10, false);
    const char *t = instructions(a, c, NULL, 0); /* no languages: the default, sql */
    assert_non_null(strstr(t, "# Code mode (SQL, duckdb dialect)"));
    assert_non_null(strstr(t, "explains the statement"));
    /* blocked columns are listed once, in code-mode://policies, and pointed to here */
    assert_null(strstr(t, "`customers.email`"));
    assert_non_null(strstr(t, "listed once, in `code-mode://policies`"));
    assert_non_null(strstr(t, "SELECT * EXCLUDE"));
    assert_null(strstr(t, "GraphQL"));
    sluice_config_free(c);
    sluice_arena_free(a);
}

static void test_two_languages_get_a_section_each(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config *c = config_with(10, false);
    static const char *const langs[] = { "sql", "graphql" };
    const char *t = instructions(a, c, langs, 2);
    assert_non_null(strstr(t, "# Code mode (SQL, duckdb dialect; GraphQL)"));
    assert_non_null(strstr(t, "`validate_code` {code, language, variables}"));
    const char *sql = strstr(t, "## `sql`");
    const char *gql = strstr(t, "## `graphql`");
    assert_non_null(sql);
    assert_non_null(gql);
    assert_true(sql < gql);
    assert_non_null(strstr(gql, "exactly one operation"));
    sluice_config_free(c);
    sluice_arena_free(a);
}

/* code-mode://policies speaks the route's language and says only what is true: operations and
 * fields on GraphQL and plan routes (no tables, joins or WHERE), the route's own never-returned
 * fields, and the audit sentence only when an audit log is configured. */
static void test_policies_speak_the_language(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config *c = config_with(7, false);
    static const char *out_blocked[] = { "token" };
    c->code_mode.openapi_output_blocked_fields = (sluice_strlist){ out_blocked, 1 };
    c->database.engine = SLUICE_ENGINE_OPENAPI;
    const char *g = sluice_guide_policies(a, c, NULL, NULL, "graphql");
    const char *j = sluice_guide_policies(a, c, NULL, NULL, "javascript");
    const char *q = sluice_guide_policies(a, c, NULL, NULL, "sql");
    assert_non_null(g);
    assert_non_null(j);
    assert_non_null(q);
    for (const char *t = g; t != NULL; t = t == g ? j : NULL) {
        assert_null(strstr(t, "join"));
        assert_null(strstr(t, "Tables"));
        assert_null(strstr(t, "WHERE"));
        assert_null(strstr(t, "audit log")); /* none configured */
    }
    assert_non_null(strstr(g, "- write (mutations): refused"));
    assert_non_null(strstr(g, "never returned (usable in filter arguments): `Customer.ssn`"));
    assert_non_null(strstr(g, "depth 7, cost 5000"));
    assert_non_null(strstr(j, "- read (GET operations): allowed"));
    assert_non_null(strstr(j, "never in a plan's result (at any depth): `token`"));
    assert_non_null(strstr(j, "at most 50 API calls"));
    assert_non_null(strstr(q, "Never returned (join/filter only): `customers.email`"));
    c->code_mode.audit_log = "audit.log";
    assert_non_null(strstr(sluice_guide_policies(a, c, NULL, NULL, "graphql"), "audit log"));
    sluice_config_free(c);
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graphql_only_is_about_graphql),
        cmocka_unit_test(test_introspection_allowed_says_so),
        cmocka_unit_test(test_sql_keeps_its_dialect_text),
        cmocka_unit_test(test_two_languages_get_a_section_each),
        cmocka_unit_test(test_policies_speak_the_language),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
