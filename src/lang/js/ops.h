/*
 * ops.h — the OpenAPI operations the javascript front end resolves call sites against (ops.c).
 */
#ifndef SLUICE_LANG_JS_OPS_H
#define SLUICE_LANG_JS_OPS_H

#include "core/arena.h"
#include "core/error.h"
#include "facts/codefacts.h"

#include <jansson.h>
#include <stdbool.h>

typedef struct sluice_js_apiop {
    const char *id, *method, *path;
    sluice_action action;
    bool idempotent;
} sluice_js_apiop;

typedef struct sluice_js_ops {
    sluice_js_apiop *ops;
    size_t count;
} sluice_js_ops;

/* Reads the normalized operations document into out (arena). SLUICE_E_INVALID when it is not
 * one, SLUICE_E_NOMEM. */
sluice_status
sluice_js_ops_read(sluice_arena *arena, const char *document, size_t len, sluice_js_ops *out);

/* The operation method ("GET") and tmpl ("/users/{}") resolve to, or NULL. */
const sluice_js_apiop *
sluice_js_ops_match(const sluice_js_ops *ops, const char *method, const char *tmpl);

#endif
