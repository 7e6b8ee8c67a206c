/*
 * graphql_shape.h — what the GraphQL executor does with the language on its own side: walk an
 * upstream response with the validated operation (graphql_shape.c) and describe the upstream
 * schema as tables for code-mode://schema (graphql_describe.c). Both read GraphQL through
 * syntax/graphql, which sits below exec, so no front end needs to lend them (there was a hook
 * table filled at program start; issue 22 removed it).
 *
 * Owns: these two entry points and the walk's inputs and outputs.
 * Does not own: validation (lang/graphql refuses blocked selections first: the walk is the
 * second line), the HTTP exchange (graphql_http.c).
 */
#ifndef SLUICE_EXEC_GRAPHQL_SHAPE_H
#define SLUICE_EXEC_GRAPHQL_SHAPE_H

#include "core/strlist.h"
#include "exec/schema.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What the walk is told besides the code: the backend's schema document, the blocked lists and
 * what to do on a hit; and what it reports back. */
typedef struct sluice_exec_walk {
    const char *code; /* the validated program text */
    size_t code_len;
    const char *operation_name; /* the entry point the request chose; NULL: the only one */
    const char *document;       /* the backend's schema document (sluice_schema.document) */
    size_t document_len;
    const void *document_model;       /* sluice_schema.document_model, or NULL */
    const sluice_strlist *blocked[2]; /* the language's blocked list, blocked_fields */
    bool refuse;                      /* refuse the whole result on a blocked key, else strip */
    int64_t max_list_items;           /* 0 = no cap */
    /* out */
    bool truncated;        /* a list was cut at max_list_items */
    size_t stripped;       /* keys removed */
    const char *first_hit; /* path of the first blocked key, for the refusal */
} sluice_exec_walk;

/* Walks value (modified in place) with the code that produced it: blocked or unrequested keys
 * removed, or SLUICE_E_DENIED when sh->refuse; lists cut. SLUICE_E_INVALID when the code or
 * the document does not parse; SLUICE_E_NOMEM. */
sluice_status
sluice_graphql_shape(sluice_arena *arena, json_t *value, sluice_exec_walk *sh, sluice_error *err);

/* Describes a schema document as tables and columns (blocked marks from the two lists) for
 * code-mode://schema; the model built rides along in out->document_model. Everything in
 * arena. */
sluice_status sluice_graphql_describe(sluice_arena *arena,
                                      const char *sdl,
                                      size_t len,
                                      const sluice_strlist *const blocked[2],
                                      sluice_schema *out,
                                      sluice_error *err);

#endif
