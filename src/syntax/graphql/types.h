/*
 * types.h — questions about a GraphQL document and schema model that both the analysis
 * (lang/graphql) and the executor's response walk (exec/graphql_shape.c) ask: named types behind
 * wrappers, composite / input / leaf kinds, fragment overlap, subtyping of variable types, which
 * operation a request selects, and whether a field is on a blocked list.
 *
 * Owns: small, pure helpers over the schema model and the syntax tree; no rule and no limit.
 * Does not own: what a blocked field means (lang/graphql refuses it, exec strips or refuses it).
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_TYPES_H
#define SLUICE_SYNTAX_GRAPHQL_TYPES_H

#include "core/strlist.h"
#include "syntax/graphql/schema.h"

#include <stdbool.h>

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

/* The field name selects on t, as graphql-js's getFieldDef: __schema and __type on the query
 * root, __typename on any composite type (the schema's meta fields), else t's own field; NULL
 * when there is none. */
const sluice_gql_schema_field *sluice_gql_field_def(const sluice_gql_schema *s,
                                                    const sluice_gql_schema_type *t,
                                                    sluice_gql_str name);

/* Whether t is one of the introspection types (__Schema, __Type, ...): schema, not data. */
bool sluice_gql_meta_type(const sluice_gql_schema_type *t);

/* The operation operation_name selects (NULL: the only one), or NULL. */
const sluice_gql_definition *sluice_gql_select_operation(const sluice_gql_document *doc,
                                                         const char *operation_name);

/* True when type.field (or the bare field) is in one of the two blocked lists (either may be
 * NULL); case-insensitive. */
bool sluice_gql_blocked(const sluice_strlist *const blocked[2],
                        const char *type,
                        size_t type_len,
                        const char *field,
                        size_t field_len);

/* As sluice_gql_blocked for field name selected on type t, or on an interface t implements (an
 * interface's blocked field is blocked in every implementation); on an interface or union, true
 * when it is blocked on any object type t can be, or on an interface of one. */
bool sluice_gql_blocked_on(const sluice_strlist *const blocked[2],
                           const sluice_gql_schema *schema,
                           const sluice_gql_schema_type *t,
                           sluice_gql_str name);

#endif
