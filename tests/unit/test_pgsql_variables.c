/*
 * test_pgsql_variables.c — validate_code checks a PostgreSQL statement's positional parameters
 * against its variables (issue 15, friction 5), on the fixture catalog without a server: a $N
 * without a variable "N" (located), a variable no $N uses, a variable that is not a position are
 * refused; matching variables pass; analysis without a request (NULL) checks nothing.
 */
#include "pgsql_fixture.h"
#include "unit.h"

#include <string.h>

/* The analysis of sql with variables (JSON text or NULL) on the fixture catalog. */
static const sluice_codefacts *analyze_with(sluice_arena *arena, const char *sql, const char *vars)
{
    sluice_config_code_mode cm = pgfx_cm();
    sluice_frontend_context fc = { .code_mode = &cm,
                                   .schema = &pgfx_schema,
                                   .engine = SLUICE_ENGINE_POSTGRES };
    sluice_codefacts *f = NULL;
    sluice_error err;
    assert_int_equal(sluice_pgsql_analyze(arena, sql, strlen(sql), vars, &fc, &f, &err), SLUICE_OK);
    return f;
}

static const sluice_codefacts_violation *var_violation(const sluice_codefacts *f, size_t k)
{
    for (size_t i = 0; i < f->violation_count; i++)
        if (strcmp(f->violations[i].rule, "sql_variables") == 0 && k-- == 0)
            return &f->violations[i];
    return NULL;
}

static void test_pgsql_missing_unused_and_named(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *sql = "SELECT name\nFROM customers WHERE id = $1 AND plan = $2 LIMIT 5";
    const sluice_codefacts *f = analyze_with(arena, sql, "{\"1\": 3}");
    const sluice_codefacts_violation *v = var_violation(f, 0);
    assert_non_null(v);
    assert_string_equal(v->message, "parameter $2 has no value: the variables object has no \"2\"");
    assert_int_equal(v->line, 2);
    assert_int_equal(v->column, 41);
    assert_null(var_violation(f, 1));

    f = analyze_with(arena, sql, "{\"1\": 3, \"2\": \"pro\", \"3\": true}");
    v = var_violation(f, 0);
    assert_non_null(v);
    assert_string_equal(v->message, "variable \"3\" is not used by the statement (no $3)");

    f = analyze_with(arena, sql, "{\"1\": 3, \"2\": \"pro\", \"id\": 3}");
    v = var_violation(f, 0);
    assert_non_null(v);
    assert_string_equal(v->message, "variable \"id\": PostgreSQL parameters are positional");
    sluice_arena_free(arena);
}

static void test_pgsql_matching_and_unchecked(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *sql = "SELECT name FROM customers WHERE id = $1 OR id = $1 + $2 LIMIT 5";
    const sluice_codefacts *f = analyze_with(arena, sql, "{\"1\": 3, \"2\": 1}");
    assert_int_equal(f->violation_count, 0);
    f = pgfx_analyze(arena, sql, strlen(sql)); /* no request: no variables to check */
    assert_non_null(f);
    assert_int_equal(f->violation_count, 0);
    f = analyze_with(arena, "SELECT count(*) AS n FROM customers", "{}");
    assert_int_equal(f->violation_count, 0);
    f = analyze_with(arena, "SELECT count(*) AS n FROM customers", "{\"1\": 2}");
    assert_non_null(var_violation(f, 0));
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgsql_missing_unused_and_named),
        cmocka_unit_test(test_pgsql_matching_and_unchecked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
