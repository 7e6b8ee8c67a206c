/*
 * vcommon.h — what validate.c and operation.c share: the validation context and the violation
 * reporter (line and column from a node's offset). The type-system questions both ask live in
 * syntax/graphql/types.h, which the GraphQL executor asks too.
 *
 * Owns: the context and the reporter, no rule of its own.
 * Does not own: any validation rule or limit.
 */
#ifndef SLUICE_LANG_GRAPHQL_VCOMMON_H
#define SLUICE_LANG_GRAPHQL_VCOMMON_H

#include "facts/codefacts.h"
#include "syntax/graphql/schema.h"
#include "syntax/graphql/types.h"

#include <stdbool.h>

typedef struct sluice_gql_vctx {
    sluice_arena *arena;
    const sluice_gql_document *doc;
    const sluice_gql_schema *schema;
    sluice_codefacts *f;
    bool nomem; /* sticky: a violation or an allocation was lost */
} sluice_gql_vctx;

/* Adds a violation (rule, hint may be NULL) at the byte offset's line and column. A lost
 * allocation sets v->nomem. */
void sluice_gql_bad(
    sluice_gql_vctx *v, uint32_t offset, const char *rule, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
