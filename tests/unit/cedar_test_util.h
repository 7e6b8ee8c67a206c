/*
 * cedar_test_util.h — helpers shared by the Cedar unit tests: parse or fail with the rendered
 * error, decide a request, and evaluate one expression as true / false / error.
 */
#ifndef SLUICE_TESTS_CEDAR_TEST_UTIL_H
#define SLUICE_TESTS_CEDAR_TEST_UTIL_H

#include "policy/cedar/cedar.h"

/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
/* clang-format on */

#include <cmocka.h>

/* "<source>:<line>:<col>: <message>" of a failed policy parse, or "OK". */
static inline const char *cedar_parse_error(sluice_arena *arena, const char *text)
{
    sluice_cedar_policyset *set;
    sluice_error err;
    if (sluice_cedar_policyset_parse(arena, text, strlen(text), "p.cedar", &set, &err) == SLUICE_OK)
        return "OK";
    return sluice_arena_printf(arena, "%s:%zu:%zu: %s", err.source, err.line, err.column,
                               err.message);
}

static inline sluice_cedar_policyset *cedar_parse_ok(sluice_arena *arena, const char *text)
{
    sluice_cedar_policyset *set = NULL;
    sluice_error err;
    sluice_status st =
        sluice_cedar_policyset_parse(arena, text, strlen(text), "p.cedar", &set, &err);
    if (st != SLUICE_OK)
        fail_msg("parse failed: %s:%zu:%zu: %s", err.source, err.line, err.column, err.message);
    return set;
}

static inline sluice_cedar_uid cedar_uid(sluice_arena *arena, const char *text)
{
    sluice_cedar_uid uid;
    assert_int_equal(sluice_cedar_uid_parse(arena, text, strlen(text), &uid, NULL), SLUICE_OK);
    return uid;
}

/* Decides principal/action/resource (Cedar syntax) with entities and context as JSON text. */
static inline sluice_cedar_decision cedar_decide(sluice_arena *arena,
                                                 const sluice_cedar_policyset *set,
                                                 const char *entities,
                                                 const char *principal,
                                                 const char *action,
                                                 const char *resource,
                                                 const char *context)
{
    sluice_cedar_entities *ents;
    sluice_error err;
    if (sluice_cedar_entities_parse_json(arena, entities, strlen(entities), "entities.json", &ents,
                                         &err) != SLUICE_OK)
        fail_msg("entities: %s", err.message);
    sluice_cedar_request req;
    req.principal = cedar_uid(arena, principal);
    req.action = cedar_uid(arena, action);
    req.resource = cedar_uid(arena, resource);
    if (sluice_cedar_context_parse_json(arena, context, strlen(context), "context.json",
                                        &req.context, &err) != SLUICE_OK)
        fail_msg("context: %s", err.message);
    sluice_cedar_decision d;
    assert_int_equal(sluice_cedar_is_authorized(set, ents, &req, arena, &d, &err), SLUICE_OK);
    return d;
}

enum { CEDAR_FALSE = 0, CEDAR_TRUE = 1, CEDAR_ERROR = -1 };

/* Evaluates expr as the only condition of a permit: CEDAR_TRUE, CEDAR_FALSE or CEDAR_ERROR.
 * The request is User::"alice" / Action::"view" / Doc::"d1". */
static inline int
cedar_eval_expr(sluice_arena *arena, const char *expr, const char *entities, const char *context)
{
    const char *text =
        sluice_arena_printf(arena, "permit(principal, action, resource) when { %s };", expr);
    sluice_cedar_policyset *set = cedar_parse_ok(arena, text);
    sluice_cedar_decision d = cedar_decide(arena, set, entities, "User::\"alice\"",
                                           "Action::\"view\"", "Doc::\"d1\"", context);
    if (d.error_count > 0)
        return CEDAR_ERROR;
    return d.allow ? CEDAR_TRUE : CEDAR_FALSE;
}

#endif
