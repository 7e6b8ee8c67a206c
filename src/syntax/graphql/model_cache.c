/*
 * model_cache.c — the upstream schema models, built once per schema document.
 *
 * Owns: a small process-wide cache from a schema document (its text, compared byte for byte: a
 * caller's buffer may be freed and its address reused for another document) to the schema
 * model built from its own copy, so callers without a model at hand (tests, the fuzzer) do not
 * rebuild it per request. A live server's models ride in its catalog snapshots instead
 * (sluice_schema.document_model, built by describe.c). Entries are never freed; past
 * SLUICE_GRAPHQL_MODEL_CACHE documents a model is built into the caller's arena instead.
 * Does not own: building (schema.c) or reading the document (the executor).
 * Threads: a mutex guards the table; a model is read-only once built.
 */
#include "syntax/graphql/model_cache.h"

#include <pthread.h>
#include <string.h>

#define SLUICE_GRAPHQL_MODEL_CACHE 8u

typedef struct cached {
    const char *text; /* the cache's copy of the document the model was built from */
    size_t len;
    sluice_arena *arena;
    sluice_gql_schema *schema;
} cached;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cached table[SLUICE_GRAPHQL_MODEL_CACHE];
static size_t used;

static sluice_gql_schema *find(const char *sdl, size_t len)
{
    for (size_t i = 0; i < used; i++)
        if (table[i].len == len && memcmp(table[i].text, sdl, len) == 0)
            return table[i].schema;
    return NULL;
}

sluice_status sluice_graphql_model(sluice_arena *arena,
                                   const char *sdl,
                                   size_t len,
                                   const sluice_gql_schema **out,
                                   sluice_error *err)
{
    pthread_mutex_lock(&lock);
    sluice_gql_schema *s = find(sdl, len);
    sluice_status st = SLUICE_OK;
    if (s == NULL && used < SLUICE_GRAPHQL_MODEL_CACHE) {
        sluice_arena *a = sluice_arena_new();
        char *copy = a != NULL ? sluice_arena_strndup(a, sdl, len) : NULL;
        st = copy != NULL ? sluice_graphql_schema_build(a, copy, len, "upstream schema", &s, err)
                          : SLUICE_E_NOMEM;
        if (st == SLUICE_OK) {
            table[used++] = (cached){ copy, len, a, s };
        } else {
            /* err's strings live in a: copy the message out before it goes */
            if (err != NULL && a != NULL)
                sluice_error_set(err, arena, st, "the upstream schema does not build: %s",
                                 err->message != NULL ? err->message : "?");
            sluice_arena_free(a);
            s = NULL;
        }
    } else if (s == NULL) {
        st = sluice_graphql_schema_build(arena, sdl, len, "upstream schema", &s, err);
    }
    pthread_mutex_unlock(&lock);
    if (st == SLUICE_OK)
        *out = s;
    return st;
}
