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

/* A run-time call matched to the operation validate approved at its call site. parts: the
 * path as the plan wrote it (sluice_js_call.path_parts: literal text at even indexes, each
 * ${...} value at odd ones; count 0 when computed, which is refused); path: the composed path
 * the plan sent, which must be their concatenation. The literal parts with "{}" for the holes
 * are matched as validate matched them, so a value fills only the parameter its hole stands
 * in; each value must obey the rules and holds no '/' unless its parameter may span
 * segments. SLUICE_OK: *op and *url_path (each parameter value percent-encoded, segment by
 * segment, arena). SLUICE_E_DENIED naming the rule (never quoting a value, which may carry a
 * blocked field). */
sluice_status sluice_openapi_match_call(sluice_arena *arena,
                                        const sluice_openapi_spec *spec,
                                        const char *method,
                                        const char *path,
                                        const char *const *parts,
                                        size_t count,
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
