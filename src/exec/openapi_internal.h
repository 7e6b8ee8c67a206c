/*
 * openapi_internal.h — what the openapi_*.c files share and nobody else uses: the YAML reader
 * and the $ref resolver.
 */
#ifndef SLUICE_EXEC_OPENAPI_INTERNAL_H
#define SLUICE_EXEC_OPENAPI_INTERNAL_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>

/* YAML text (one document) as JSON: mappings to objects (keys as text), sequences to arrays,
 * plain scalars true/false/null/numbers resolved as YAML 1.2's core schema does, anything
 * quoted a string; aliases followed, nesting bounded (SLUICE_LIMIT_OPENAPI_NESTING). A new
 * reference, or NULL with err set: SLUICE_E_CONFIG (err->line/column: the YAML error),
 * SLUICE_E_NOMEM. */
json_t *sluice_openapi_yaml_to_json(
    sluice_arena *arena, const char *name, const char *text, size_t len, sluice_error *err);

/* A deep copy of node with every local $ref ("#/components/...") replaced by its target,
 * resolved recursively. A new reference, or NULL with err set: SLUICE_E_CONFIG (a ref that is
 * not local, does not resolve, chains deeper than SLUICE_LIMIT_OPENAPI_REF_DEPTH or is
 * cyclic; err->key = the ref), SLUICE_E_NOMEM. */
json_t *sluice_openapi_resolve(sluice_arena *arena,
                               const json_t *doc,
                               const json_t *node,
                               sluice_error *err);

#endif
