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

/* The operation whose id is id (exactly), or NULL. */
const sluice_js_apiop *sluice_js_ops_find(const sluice_js_ops *ops, const char *id);

/* An SDK call `api.<op->id>(args)` (sdk_operations) as the path form's template, so the rest of
 * the analysis is the path form's: each {param} of op's path is the literal string or integer
 * args gives it (`api.getUser({ id: "u2" })` is "/users/u2", as `api.get("/users/u2")`), else a
 * "{}" hole (as `/users/${x}`); an args object with a spread or a computed key gives only
 * holes. Violations for what validate knows the run refuses: a key that is no parameter of op
 * (with the nearest name; path and query parameters by name, the body as `body` on POST, PUT
 * and PATCH), a path parameter an object literal leaves out, a literal value the path rule
 * refuses, more than one argument. NULL when the arena fails (f->incomplete set). */
const char *sluice_js_ops_sdk_template(sluice_arena *arena,
                                       sluice_codefacts *f,
                                       const sluice_js_apiop *op,
                                       const sluice_js_node *call);

#endif
