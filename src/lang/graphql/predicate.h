/*
 * predicate.h — blocked fields named in arguments (predicate.c): an equality lookup is allowed at
 * high risk, any other use (prefix, range, order, list of guesses, operator object) refused.
 */
#ifndef SLUICE_LANG_GRAPHQL_PREDICATE_H
#define SLUICE_LANG_GRAPHQL_PREDICATE_H

#include "lang/graphql/vcommon.h"

/* Judges argument a (declared as in) of a field of owner in operation op against the blocked
 * fields (sluice_graphql_rules.blocked: graphql_blocked_fields, blocked_fields), its value followed
 * through lists, input objects and variables (their bound values in variables, else their
 * defaults): records an equality lookup in v->f (blocked_used, blocked_in_predicate), refuses
 * any other use with rule graphql_blocked_predicate. */
void sluice_graphql_judge_argument(sluice_gql_vctx *v,
                                   const sluice_strlist *const blocked[2],
                                   const json_t *variables,
                                   const sluice_gql_definition *op,
                                   const sluice_gql_schema_type *owner,
                                   const sluice_gql_argument *a,
                                   const sluice_gql_schema_input *in);

#endif
