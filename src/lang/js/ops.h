/*
 * ops.h — the OpenAPI operations the javascript front end resolves call sites against (ops.c).
 */
#ifndef SLUICE_LANG_JS_OPS_H
#define SLUICE_LANG_JS_OPS_H

#include "core/arena.h"
#include "core/error.h"
#include "facts/codefacts.h"
#include "syntax/js/ast.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sluice_js_apiop {
    const char *id, *method, *path;
    sluice_action action;
    bool idempotent;
    uint64_t spanning;  /* template segments whose parameter may span segments */
    const char **query; /* the query parameters' names */
    size_t query_count;
} sluice_js_apiop;

typedef struct sluice_js_ops {
    sluice_js_apiop *ops;
    size_t count;
} sluice_js_ops;

/* Reads the normalized operations document into out (arena). SLUICE_E_INVALID when it is not
 * one, SLUICE_E_NOMEM. */
sluice_status
sluice_js_ops_read(sluice_arena *arena, const char *document, size_t len, sluice_js_ops *out);

/* The operation method ("GET") and tmpl ("/users/{}") resolve to, or NULL: the best match as
 * core/path_template.h chooses it, the rule the run time's re-match follows too. */
const sluice_js_apiop *
sluice_js_ops_match(const sluice_js_ops *ops, const char *method, const char *tmpl);

/* What validate can know the run will refuse in a call site resolved to op (tmpl: its path
 * template, as sluice_js_ops_match took it), as violations: a literal path segment filling a
 * parameter that breaks the run's rule (js_path: "%2e", "?"), and a literal query
 * (`api.get(path, {state: "open"})` on a GET or DELETE) key that is not one of op's query
 * parameters (openapi_query_parameter, with the nearest name). Holes, computed keys and
 * non-literal queries are left to the run, which applies the same rules. */
void sluice_js_ops_check_call(sluice_arena *arena,
                              sluice_codefacts *f,
                              const sluice_js_apiop *op,
                              const char *tmpl,
                              const sluice_js_node *call);

#endif
