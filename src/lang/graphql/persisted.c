/*
 * persisted.c — the persisted-operation allowlist (graphql_persisted_only): only operations
 * whose canonical hash is that of an operation in the manifest may run.
 *
 * Owns: reading an Apollo persisted-query manifest ({"format": "apollo-persisted-query-
 * manifest", "version": 1, "operations": [{"id", "name", "type", "body"}]}) once per path, the
 * canonical hash of every body (so whitespace, commas and comments do not matter, literals and
 * order do), and the membership test. A manifest that cannot be read or has a body that does
 * not parse refuses everything (fail closed).
 * Does not own: the rest of the analysis (frontend.c).
 * Threads: a mutex guards the cache; a loaded manifest is read-only.
 */
#include "lang/graphql/persisted.h"

#include "core/limits.h"
#include "syntax/graphql/graphql.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLUICE_GRAPHQL_MANIFESTS 4u

typedef struct manifest {
    char *path;
    char (*hashes)[65];
    size_t count;
    const char *error; /* static text when the manifest is unusable */
} manifest;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static manifest cache[SLUICE_GRAPHQL_MANIFESTS];
static size_t used;

static const char *load(manifest *m, const char *path)
{
    json_t *doc = json_load_file(path, 0, NULL);
    const json_t *ops = json_object_get(doc, "operations");
    const char *format = json_string_value(json_object_get(doc, "format"));
    if (doc == NULL || !json_is_array(ops) || format == NULL ||
        strcmp(format, "apollo-persisted-query-manifest") != 0) {
        json_decref(doc);
        return "is not an Apollo persisted-query manifest";
    }
    m->hashes = calloc(json_array_size(ops) + 1, sizeof *m->hashes);
    const char *why = m->hashes == NULL ? "could not be loaded (out of memory)" : NULL;
    size_t i;
    const json_t *op;
    json_array_foreach(ops, i, op)
    {
        const json_t *body = json_object_get(op, "body");
        sluice_arena *a = why == NULL ? sluice_arena_new() : NULL;
        sluice_error err;
        if (why == NULL &&
            (a == NULL || !json_is_string(body) ||
             sluice_graphql_canonical_hash(a, json_string_value(body), json_string_length(body),
                                           NULL, m->hashes[m->count], &err) != SLUICE_OK))
            why = "has an operation whose body does not parse";
        else if (why == NULL)
            m->count++;
        sluice_arena_free(a);
    }
    json_decref(doc);
    return why;
}

sluice_status
sluice_graphql_persisted(const char *manifest_path, const char *hash, bool *found, const char **why)
{
    *found = false;
    *why = NULL;
    pthread_mutex_lock(&lock);
    manifest *m = NULL;
    for (size_t i = 0; m == NULL && i < used; i++)
        if (strcmp(cache[i].path, manifest_path) == 0)
            m = &cache[i];
    if (m == NULL && used < SLUICE_GRAPHQL_MANIFESTS) {
        m = &cache[used];
        m->path = strdup(manifest_path);
        m->error = m->path != NULL ? load(m, manifest_path) : "could not be loaded";
        used++;
    }
    sluice_status st = SLUICE_OK;
    if (m == NULL)
        *why = "is one manifest too many (at most 4 per process)";
    else if (m->error != NULL)
        *why = m->error;
    for (size_t i = 0; m != NULL && m->error == NULL && i < m->count && !*found; i++)
        *found = strcmp(m->hashes[i], hash) == 0;
    pthread_mutex_unlock(&lock);
    return st;
}
