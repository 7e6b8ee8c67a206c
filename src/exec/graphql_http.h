/*
 * graphql_http.h — the GraphQL backend: an upstream GraphQL server reached over HTTP(S) with
 * libcurl ([database] engine = "graphql").
 *
 * Owns: opening the backend (endpoint, the schema file, the server-side credential), POSTing
 * one validated operation with its variables as JSON, the transport limits (timeout, response
 * size cap, TLS verification always on), turning upstream `errors` into a tool error; every
 * response goes through the walk of graphql_shape.h before it is returned.
 * Does not own: parsing or validating GraphQL (syntax/graphql, lang/graphql), the walk itself.
 */
#ifndef SLUICE_EXEC_GRAPHQL_HTTP_H
#define SLUICE_EXEC_GRAPHQL_HTTP_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "exec/executor.h"

#include <jansson.h>

/* Opens the backend db describes (engine graphql): reads the schema file and the credential
 * once. SLUICE_E_IO (schema or credential file unreadable), SLUICE_E_CONFIG (no endpoint, an
 * empty credential), SLUICE_E_NOMEM. */
sluice_status sluice_exec_graphql_open(const sluice_config_database *db,
                                       const sluice_config_code_mode *code_mode,
                                       sluice_executor **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err);

#endif
