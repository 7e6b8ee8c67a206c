/*
 * schema.h — validating Cedar policies against a schema in Cedar's JSON schema format.
 *
 * Owns: loading {"Namespace": {"entityTypes": {...}, "actions": {...}, "commonTypes": {...}}}
 * and a partial validation: entity types and actions named anywhere in a policy must be
 * declared; some action the policy's scope allows must apply to its principal and resource
 * types; and attribute chains rooted at principal, resource or context (principal.a.b) must
 * name declared attributes. It is not Cedar's full type checker (no typing of operators, no
 * "optional attribute needs a has-guard" rule); docs/policy.md lists the gaps.
 * Does not own: the human-readable schema syntax (convert with cedar-wasm's schemaToJson).
 */
#ifndef SLUICE_POLICY_CEDAR_SCHEMA_H
#define SLUICE_POLICY_CEDAR_SCHEMA_H

#include "policy/cedar/cedar.h"

typedef struct sluice_cedar_schema sluice_cedar_schema;

typedef struct sluice_cedar_problem {
    const sluice_cedar_policy *policy;
    const char *message;
} sluice_cedar_problem;

typedef struct sluice_cedar_validation {
    sluice_cedar_problem *problems;
    size_t count;
} sluice_cedar_validation;

/* Parses a JSON schema (errors carry line and column for JSON syntax, else the JSON path). */
sluice_status sluice_cedar_schema_parse_json(sluice_arena *arena,
                                             const char *text,
                                             size_t len,
                                             const char *source,
                                             sluice_cedar_schema **out,
                                             sluice_error *err);

/* Validates every policy of set; problems (possibly none) are listed in out. Fails only on
 * SLUICE_E_NOMEM. */
sluice_status sluice_cedar_schema_validate(sluice_arena *arena,
                                           const sluice_cedar_schema *schema,
                                           const sluice_cedar_policyset *set,
                                           sluice_cedar_validation *out);

#endif
