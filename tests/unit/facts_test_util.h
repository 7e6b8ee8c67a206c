/*
 * facts_test_util.h — what the front ends' unit tests ask of a judgement's facts: the first
 * violation of a rule (NULL: none).
 */
#ifndef SLUICE_TESTS_FACTS_TEST_UTIL_H
#define SLUICE_TESTS_FACTS_TEST_UTIL_H

#include "facts/codefacts.h"

#include <stddef.h>
#include <string.h>

static inline const sluice_codefacts_violation *facts_violation(const sluice_codefacts *f,
                                                                const char *rule)
{
    for (size_t i = 0; i < f->violation_count; i++)
        if (f->violations[i].rule != NULL && strcmp(f->violations[i].rule, rule) == 0)
            return &f->violations[i];
    return NULL;
}

#endif
