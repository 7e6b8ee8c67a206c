/*
 * graphql_http.h — the GraphQL backend: an upstream GraphQL server reached over HTTP(S) with
 * libcurl ([database] engine = "graphql").
 *
 * Owns: opening the backend (endpoint, the schema file, the server-side credential), POSTing
 * one validated operation with its variables as JSON, the transport limits (timeout, response
 * size cap, TLS verification always on), turning upstream `errors` into a tool error, and the
 * hook through which the GraphQL front end shapes the response.
 * Does not own: parsing or validating GraphQL (lang/graphql/, which registers the shaper; exec
 * looks only down, so the operation-aware walk is handed in rather than called by name).
 * Without a registered shaper every execution is refused (fail closed).
 */
#ifndef SLUICE_EXEC_GRAPHQL_HTTP_H
#define SLUICE_EXEC_GRAPHQL_HTTP_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"

#include <jansson.h>

/* What the shaper is told besides the operation: the blocked lists and what to do on a hit. */
typedef struct sluice_exec_graphql_shape {
    const char *code; /* the validated operation text */
    size_t code_len;
    const char *operation_name; /* NULL: the only operation */
    const char *sdl;            /* the upstream schema */
    size_t sdl_len;
    const sluice_strlist *blocked[2]; /* graphql_blocked_fields, blocked_fields */
    bool refuse;                      /* graphql_blocked_output = "refuse" */
    int64_t max_list_items;           /* 0 = no cap */
    /* out */
    bool truncated;        /* a list was cut at max_list_items */
    size_t stripped;       /* response keys removed */
    const char *first_hit; /* response path of the first blocked key, for the refusal */
} sluice_exec_graphql_shape;

/* Walks data (the response's `data`, modified in place) with the operation: response keys
 * that are blocked fields (aliases resolved through the selection) or that the operation did
 * not ask for are removed, or the whole result refused (SLUICE_E_DENIED, err names the path)
 * when sh->refuse; lists longer than max_list_items are cut. SLUICE_E_INVALID when the
 * operation or schema does not parse (it was validated, so this is an internal mismatch);
 * SLUICE_E_NOMEM. */
typedef sluice_status (*sluice_exec_graphql_shaper)(sluice_arena *arena,
                                                    json_t *data,
                                                    sluice_exec_graphql_shape *sh,
                                                    sluice_error *err);

/* Describes the upstream schema sdl[0..len) as tables (object and interface types) and
 * columns (their fields, "Type (arguments)" as the type text, blocked marks from the two
 * lists) for code-mode://schema. Everything in arena. SLUICE_E_INVALID when it does not build. */
typedef sluice_status (*sluice_exec_graphql_describer)(sluice_arena *arena,
                                                       const char *sdl,
                                                       size_t len,
                                                       const sluice_strlist *const blocked[2],
                                                       sluice_schema *out,
                                                       sluice_error *err);

/* Sets the shaper and the describer (the GraphQL front end does, at program start). */
void sluice_exec_graphql_set_hooks(sluice_exec_graphql_shaper shape,
                                   sluice_exec_graphql_describer describe);

/* Opens the backend db describes (engine graphql): reads the schema file and the credential
 * once. SLUICE_E_IO (schema or credential file unreadable), SLUICE_E_CONFIG (no endpoint, an
 * empty credential), SLUICE_E_NOMEM. */
sluice_status sluice_exec_graphql_open(const sluice_config_database *db,
                                       const sluice_config_code_mode *code_mode,
                                       sluice_executor **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err);

#endif
