/*
 * unit.h — what every cmocka unit test includes first. cmocka needs <setjmp.h>, <stdarg.h>,
 * <stddef.h> and <stdint.h> before it, in this order, so clang-format must not sort them.
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

#endif
