/*
 * test_sql_bind_error.c — a wrong table, column or function name (bind_error.c) comes back as a
 * sentence, never DuckDB's JSON, with the line and column of the name and DuckDB's "did you
 * mean" candidate.
 */
#include "sql_fixture.h"
#include "unit.h"

#include <string.h>

static const sluice_codefacts_violation *bind_error(const char *sql)
{
    const sluice_codefacts_violation *v = fixture_violation(fixture_analyze(sql), "cannot_bind");
    assert_non_null(v);
    assert_null(strchr(v->message, '{')); /* a sentence, not the engine's JSON */
    assert_null(strstr(v->message, "exception_type"));
    return v;
}

static void test_wrong_table_names_the_table_and_suggests(void **state)
{
    (void)state;
    const sluice_codefacts_violation *v = bind_error("SELECT name\nFROM customer");
    assert_string_equal(v->message,
                        "Table with name customer does not exist. Did you mean \"customers\"?");
    assert_int_equal(v->line, 2);
    assert_int_equal(v->column, 6);
}

static void test_wrong_column_is_placed_and_suggested(void **state)
{
    (void)state;
    const sluice_codefacts_violation *v =
        bind_error("SELECT name\n  FROM customers\n WHERE plann = 'enterprise'");
    assert_string_equal(v->message,
                        "Referenced column \"plann\" not found in FROM clause. Did you mean "
                        "\"plan\"?");
    assert_int_equal(v->line, 3);
    assert_int_equal(v->column, 8);
    assert_non_null(v->suggestion);
}

static void test_wrong_function_and_type_mismatch(void **state)
{
    (void)state;
    const sluice_codefacts_violation *v = bind_error("SELECT sumx(id) FROM customers");
    assert_non_null(strstr(v->message, "does not exist. Did you mean \"sum"));
    assert_int_equal(v->line, 1);
    assert_int_equal(v->column, 8);
    /* No single candidate for a type mismatch: the signatures, folded and bounded. */
    v = bind_error("SELECT sum(name) FROM customers");
    assert_non_null(strstr(v->message, "No function matches"));
    assert_null(strchr(v->message, '\n'));
    assert_true(strlen(v->message) < 700);
}

/* A refused statement is not explained as a program that "computes values without reading any
 * table": the explanation says it was not understood, then why. */
static void test_unparsed_or_unbound_is_not_explained_as_a_program(void **state)
{
    (void)state;
    static const char *const codes[] = { "SELEC 1", "SELECT * FROM customer" };
    for (size_t i = 0; i < 2; i++) {
        const char *e = sluice_sql_explain(fixture_arena, fixture_analyze(codes[i]));
        assert_non_null(e);
        assert_null(strstr(e, "without reading any table"));
        assert_non_null(strstr(e, "could not be analyzed"));
        assert_non_null(strstr(e, "Refused: "));
    }
    const char *ok = sluice_sql_explain(fixture_arena, fixture_analyze("SELECT 1"));
    assert_non_null(strstr(ok, "without reading any table"));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_arena_new, fixture_arena_free)
    const struct CMUnitTest tests[] = {
        T(test_wrong_table_names_the_table_and_suggests),
        T(test_wrong_column_is_placed_and_suggested),
        T(test_wrong_function_and_type_mismatch),
        T(test_unparsed_or_unbound_is_not_explained_as_a_program),
    };
#undef T
    return cmocka_run_group_tests(tests, fixture_open, fixture_close);
}
