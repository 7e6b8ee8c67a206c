/*
 * validate.h — GraphQL operation validation: the spec's rules against a schema model, and the
 * operation analysis (selection by operationName, limits with fragments expanded, blocked
 * fields, introspection, root-field classification, facts).
 *
 * Owns: sluice_graphql_validate (the executable-document rules of the spec that matter for
 * safety, graphql-js 16's rule names in the violations) and sluice_graphql_analyze_operation
 * (validate.c and operation.c). Both report into a sluice_codefacts as violations with line
 * and column, so callers have one shape to render.
 * Does not own: parsing, the schema model (schema.h), the front end's registration, risk or
 * explanation (frontend.c), executing the operation.
 *
 * Not implemented (left to the upstream server, which validates again): SingleFieldSubscriptions
 * (subscriptions are refused) and @oneOf input objects. Introspection (__schema, __type and
 * fragments on __Type ...) is validated against the introspection types like any selection.
 */
#ifndef SLUICE_LANG_GRAPHQL_VALIDATE_H
#define SLUICE_LANG_GRAPHQL_VALIDATE_H

#include "config/config.h"
#include "facts/codefacts.h"
#include "syntax/graphql/schema.h"

#include <jansson.h>

/* The rules of one analysis ([code_mode] graphql_* keys). Zero limits mean the defaults. */
typedef struct sluice_graphql_rules {
    int64_t max_depth, max_aliases, max_root_fields, max_directives, max_tokens, max_chars;
    int64_t max_cost;
    int64_t max_fields; /* max_field_count: fields selected, fragments expanded, aliases counted */
    const sluice_config_action_tags *action_tags; /* root field -> its action (NULL: none) */
    bool allow_introspection;
    bool allow_mutations;
    const sluice_strlist *blocked[2]; /* graphql_blocked_fields, blocked_fields */
    const sluice_strlist *allowed_queries, *blocked_queries;
    const sluice_strlist *allowed_mutations, *blocked_mutations;
    const sluice_strlist *delete_mutations; /* [[code_mode.operations]] category "delete" */
    const sluice_strlist *delete_patterns;  /* graphql_delete_patterns (fnmatch globs) */
    const sluice_strlist *size_arguments;   /* graphql_size_arguments, beside first/last/limit */
} sluice_graphql_rules;

/* The rules a [code_mode] section sets (NULL = defaults). */
sluice_graphql_rules sluice_graphql_rules_of(const sluice_config_code_mode *code_mode);

/* What only GraphQL has (the CodeFacts extension, see frontend.c). */
typedef struct sluice_graphql_facts {
    const char *operation_name; /* "" when anonymous */
    const char *operation_type; /* "query" | "mutation" | "subscription" */
    size_t alias_count, root_field_count, directive_count, token_count, field_count;
    int64_t cost;
    bool introspection;
    const sluice_gql_definition *operation; /* the selected operation */
    const sluice_gql_document *document;
    const sluice_gql_schema *schema;
} sluice_graphql_facts;

/* Checks every definition of doc against schema with the spec's validation rules; each problem
 * becomes a violation in f (rule = the graphql-js rule name). SLUICE_OK even when the document
 * is refused; SLUICE_E_NOMEM when a violation or an allocation was lost (f is then
 * incomplete). */
sluice_status sluice_graphql_validate(sluice_arena *arena,
                                      const sluice_gql_document *doc,
                                      const sluice_gql_schema *schema,
                                      sluice_codefacts *f);

/* Selects the operation (operation_name NULL: the only one), refuses subscriptions, counts the
 * limits with fragments expanded and aliases counted, checks blocked fields, introspection, the
 * root-field allow/block lists and the variables (declared, typed, required ones present), and
 * fills f (action, statement kind, depth, fields read, outputs with lineage, operations) and x.
 * variables may be NULL (= none given). Same status contract as sluice_graphql_validate. */
sluice_status sluice_graphql_analyze_operation(sluice_arena *arena,
                                               const sluice_gql_document *doc,
                                               const sluice_gql_schema *schema,
                                               const sluice_graphql_rules *rules,
                                               const json_t *variables,
                                               const char *operation_name,
                                               sluice_codefacts *f,
                                               sluice_graphql_facts *x);

/* The operationName a variables object carries under the reserved key "$operationName" (a key
 * no GraphQL variable can have), or NULL. */
const char *sluice_graphql_operation_name(const json_t *variables);

#endif
