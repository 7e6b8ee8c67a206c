/*
 * openapi_match.h — a plan's call matched to an operation of the spec, at validate (templates
 * with holes) and at run time (the composed path, every parameter value checked).
 *
 * Owns: template matching, the path-parameter rules (pmcp 0.6's, stricter: no '/', "..", '?',
 * '#', '\', '%' — so no "%25" double encoding —, control bytes, or empty), percent-encoding
 * of parameter values, the query and body checks against the operation's schemas.
 * Does not own: the spec (openapi_spec.c) or sending anything (openapi_http.c).
 */
#ifndef SLUICE_EXEC_OPENAPI_MATCH_H
#define SLUICE_EXEC_OPENAPI_MATCH_H

#include "exec/openapi_spec.h"

/* The operation for method ("GET") and a static template ("/users/{}": each "{}" a hole the
 * plan fills at run time; a segment that is part literal, part hole counts as a hole), or
 * NULL. A literal segment matches a literal or a {param}; a hole only a {param}. */
const sluice_openapi_op *sluice_openapi_match_template(const sluice_openapi_spec *spec,
                                                       const char *method,
                                                       const char *tmpl);

/* The composed path of a run-time call matched again. SLUICE_OK: *op and *url_path (the path
 * with each parameter value percent-encoded, arena). SLUICE_E_DENIED with a message naming the
 * rule: no operation matches (the path left its template), or a parameter value breaks a
 * rule. */
sluice_status sluice_openapi_match_call(sluice_arena *arena,
                                        const sluice_openapi_spec *spec,
                                        const char *method,
                                        const char *path,
                                        const sluice_openapi_op **op,
                                        const char **url_path,
                                        sluice_error *err);

/* Checks value against schema (type, required properties, enum, additionalProperties: false;
 * nested objects and arrays as deep as the value goes, bounded; $refs followed into doc, the
 * spec's document). SLUICE_OK or SLUICE_E_DENIED naming what and where ("body.month: expected
 * string"). */
sluice_status sluice_openapi_check_value(sluice_arena *arena,
                                         const json_t *doc,
                                         const json_t *schema,
                                         const json_t *value,
                                         const char *where,
                                         sluice_error *err);

/* Percent-encodes s (every byte but RFC 3986 unreserved ones) into arena. NULL on NOMEM. */
const char *sluice_openapi_pct_encode(sluice_arena *arena, const char *s);

#endif
