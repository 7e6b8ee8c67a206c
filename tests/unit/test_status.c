/*
 * test_status.c — status names are stable, and docs/errors.md lists exactly the enum.
 */
#include "sluice/sluice.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static void test_status_names_are_distinct_and_known(void **state)
{
    (void)state;
    for (int a = 0; a <= SLUICE_STATUS_MAX; a++) {
        assert_string_not_equal(sluice_status_name((sluice_status)a), "unknown");
        for (int b = a + 1; b <= SLUICE_STATUS_MAX; b++)
            assert_string_not_equal(sluice_status_name((sluice_status)a),
                                    sluice_status_name((sluice_status)b));
    }
    assert_string_equal(sluice_status_name((sluice_status)(SLUICE_STATUS_MAX + 1)), "unknown");
    assert_string_equal(sluice_status_name((sluice_status)-1), "unknown");
}

static void test_status_docs_match_enum(void **state)
{
    (void)state;
    FILE *f = fopen(SLUICE_SOURCE_DIR "/docs/errors.md", "r");
    assert_non_null(f);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        int code;
        char name[64];
        if (sscanf(line, "| %d | %63[a-z_] |", &code, name) != 2)
            continue;
        assert_int_equal(code, rows);
        assert_string_equal(name, sluice_status_name((sluice_status)code));
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, SLUICE_STATUS_MAX + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names_are_distinct_and_known),
        cmocka_unit_test(test_status_docs_match_enum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
