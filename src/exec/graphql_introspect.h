/*
 * graphql_introspect.h — the upstream GraphQL schema by introspection, printed as SDL for the
 * schema builder (see graphql_introspect.c).
 */
#ifndef SLUICE_EXEC_GRAPHQL_INTROSPECT_H
#define SLUICE_EXEC_GRAPHQL_INTROSPECT_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>

/* The query sent at start-up when [database] path (the SDL file) is not set. */
extern const char sluice_graphql_introspection_query[];

/* The SDL of an introspection answer's `data` (in arena, *len without the NUL).
 * SLUICE_E_ENGINE when it has no usable __schema (introspection off upstream, malformed
 * types), SLUICE_E_NOMEM. */
sluice_status sluice_graphql_introspection_sdl(
    sluice_arena *arena, const json_t *data, const char **sdl, size_t *len, sluice_error *err);

#endif
