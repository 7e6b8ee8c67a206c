/*
 * unit.h — what every cmocka unit test includes first. cmocka needs <setjmp.h>, <stdarg.h>,
 * <stddef.h> and <stdint.h> before it, in this order, so clang-format must not sort them.
 * Also the assertions several unit tests share.
 */
#ifndef SLUICE_TESTS_UNIT_H
#define SLUICE_TESTS_UNIT_H

// clang-format off
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
// clang-format on

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fails the test unless rows (a result's rows) print as want in compact JSON; what names the
 * statement or call in the message. */
static inline void assert_rows_json(const char *what, const json_t *rows, const char *want)
{
    char *text = json_dumps(rows, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL || strcmp(text, want) != 0) {
        char got[512];
        snprintf(got, sizeof got, "%s", text != NULL ? text : "(no rows)");
        free(text);
        fail_msg("%s\n got %s\n want %s", what, got, want);
    }
    free(text);
}

#endif
