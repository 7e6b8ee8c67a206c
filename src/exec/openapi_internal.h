/*
 * openapi_internal.h — what the openapi_*.c files share and nobody else uses: the YAML reader
 * and the lazy $ref helpers.
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

/* node, or the value its $ref chain ends at (local refs only, at most
 * SLUICE_LIMIT_OPENAPI_REF_DEPTH of them); NULL when the chain does not resolve, which a spec
 * that loaded never has where its structure is. */
const json_t *sluice_openapi_deref(const json_t *doc, const json_t *node);

/* "User" for {"$ref": "#/components/schemas/User"}: the name a declaration gives the type;
 * NULL for anything else (no ref, another place, a name with escapes). */
const char *sluice_openapi_ref_name(const json_t *node);

/* Checks once that every $ref reachable from paths is local and resolves without an endless
 * chain of refs to refs; each target is walked once, so a recursive schema is fine. Examples,
 * defaults, enums and x- extensions are data: a "$ref" in them is not followed. SLUICE_OK, or
 * SLUICE_E_CONFIG (err->key = the ref), SLUICE_E_NOMEM. */
sluice_status sluice_openapi_check_refs(sluice_arena *arena,
                                        const json_t *doc,
                                        const json_t *paths,
                                        sluice_error *err);

#endif
