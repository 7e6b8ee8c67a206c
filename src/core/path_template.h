/*
 * path_template.h — an OpenAPI path template ("/repos/{owner}/{repo}/contents/{path}") matched
 * against a path, one rule for the two places that match: the javascript front end at validate
 * (a call site's template, whose "${...}" holes are filled at run time) and the OpenAPI backend at
 * run time (the composed path). Validate and execute agree because they run this same code.
 *
 * Owns: segment splitting, the match (a literal template segment equals its path segment; a
 * {parameter} takes one non-empty segment, or one or more when it may span segments, GitHub's
 * x-multi-segment), and the choice among ways to match: the fewest segments taken by spanning
 * parameters, so `/branches/main/protection` is the protection of branch "main" when both that
 * operation and `/branches/{branch}` (spanning) exist; what a segment filling a parameter may
 * contain; which methods send a body. Does not own: the operations, encoding
 * (exec/openapi_match.c).
 */
#ifndef SLUICE_CORE_PATH_TEMPLATE_H
#define SLUICE_CORE_PATH_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Segments beyond this in a path or a template match nothing. */
#define SLUICE_PATH_MAX_SEGMENTS 128u
/* Parameters of one template that may span segments (more would make matching costly). */
#define SLUICE_PATH_MAX_SPANNING 2u

typedef struct sluice_path_segment {
    const char *text;
    size_t len;
} sluice_path_segment;

/* Splits path ("/a/b", a leading '/' required) into at most max segments; returns the count,
 * or SIZE_MAX when it does not start with '/' or has more than max. "/a//b" has an empty one. */
size_t sluice_path_split(const char *path, sluice_path_segment *out, size_t max);

/* NULL when a segment filling a parameter obeys the rules (pmcp 0.6's, stricter), else the rule
 * it breaks: not empty, not "." or "..", no "..", '?', '#', '\\', '%' (so no "%2e" nor "%25"
 * double encoding) or control byte. The run applies them to every segment of a composed path a
 * parameter takes; validate to every literal one a call site's path gives a parameter. */
const char *sluice_path_value_rule(const char *text, size_t len);

/* Whether a segment is a template parameter: "{name}". */
bool sluice_path_is_param(const char *text, size_t len);

/* Matches path against tmpl. spanning: bit i set when template segment i is a parameter that may
 * span segments (bits from i = 64 on are ignored). holes: path is a call site's template, in which
 * a segment holding "{}" is filled at run time (it fills parameters only, never a literal);
 * otherwise every path segment is text. Returns how many segments spanning parameters took beyond
 * one each (the fewest of all ways to match), or -1 when it does not match. at, when not NULL,
 * holds SLUICE_PATH_MAX_SEGMENTS + 1 entries: at[i] is the first path segment template segment i
 * took, at[template segment count] the path's segment count. */
int sluice_path_template_match(
    const char *tmpl, uint64_t spanning, const char *path, bool holes, size_t *at);

/* Whether a call of method (upper case) sends a request body: POST, PUT and PATCH. The path
 * form's second argument and the SDK form's `body` key follow this one rule, at validate (the
 * javascript front end) and at run time (the OpenAPI backend) alike. */
bool sluice_openapi_method_sends_body(const char *method);

#endif
