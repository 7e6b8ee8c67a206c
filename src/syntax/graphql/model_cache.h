/*
 * model_cache.h — the schema model of an upstream schema document, built once (see
 * model_cache.c).
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_MODEL_CACHE_H
#define SLUICE_SYNTAX_GRAPHQL_MODEL_CACHE_H

#include "syntax/graphql/schema.h"

/* The model of sdl[0..len) (copied: sdl need only live for the call; the model lives for the
 * process, or in arena past the cache's size). Same failures as sluice_graphql_schema_build, err's
 * strings in arena. */
sluice_status sluice_graphql_model(sluice_arena *arena,
                                   const char *sdl,
                                   size_t len,
                                   const sluice_gql_schema **out,
                                   sluice_error *err);

#endif
