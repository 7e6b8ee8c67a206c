/*
 * vcommon.h — what validate.c and operation.c share: the violation reporter (line and column
 * from a node's offset) and the type-system questions both ask (named types behind wrappers,
 * composite / input kinds, fragment overlap, subtyping of variable types).
 *
 * Owns: small helpers over the schema model and AST, no rule of its own.
 * Does not own: any validation rule or limit.
 */
#ifndef SLUICE_LANG_GRAPHQL_VCOMMON_H
#define SLUICE_LANG_GRAPHQL_VCOMMON_H

#include "facts/codefacts.h"
#include "syntax/graphql/schema.h"

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

bool sluice_gql_same(sluice_gql_str a, sluice_gql_str b);
bool sluice_gql_is(const char *p, size_t len, const char *name);

/* The named type inside list/non-null wrappers, and its schema type (NULL when unknown). */
sluice_gql_str sluice_gql_type_name(const sluice_gql_type *t);
const sluice_gql_schema_type *sluice_gql_named(const sluice_gql_schema *s,
                                               const sluice_gql_type *t);
const sluice_gql_schema_type *sluice_gql_type_named(const sluice_gql_schema *s,
                                                    sluice_gql_str name);

/* "[Int!]!" for messages; "?" on NOMEM. */
const char *sluice_gql_type_text(sluice_arena *arena, const sluice_gql_type *t);
/* A short rendering of a literal for messages; "?" on NOMEM. */
const char *sluice_gql_value_text(sluice_arena *arena, const sluice_gql_value *v);

const sluice_gql_schema_input *sluice_gql_input_field(const sluice_gql_schema_type *t,
                                                      sluice_gql_str name);
bool sluice_gql_enum_has(const sluice_gql_schema_type *t, sluice_gql_str value);
bool sluice_gql_composite(const sluice_gql_schema_type *t);
bool sluice_gql_input(const sluice_gql_schema_type *t);
bool sluice_gql_leaf(const sluice_gql_schema_type *t);

/* Whether some object type can be both a and b (PossibleFragmentSpreads). */
bool sluice_gql_overlap(const sluice_gql_schema *s,
                        const sluice_gql_schema_type *a,
                        const sluice_gql_schema_type *b);

/* Whether a variable of type var may stand where loc is expected (isTypeSubTypeOf). */
bool sluice_gql_subtype(const sluice_gql_type *var, const sluice_gql_type *loc);

/* __schema or __type: the introspection entry points of the query root. */
bool sluice_gql_introspection_root(sluice_gql_str name);

#endif
