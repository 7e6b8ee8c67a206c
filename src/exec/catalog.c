/*
 * catalog.c — the refcounted catalog snapshot of an executor and its reload on request (see
 * catalog.h). A reload is a generation counter: SIGHUP bumps it, and the next request that takes
 * the catalog of an executor whose snapshot is older reads a fresh one and swaps it in.
 */
#include "exec/catalog.h"

#include "core/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct snapshot {
    atomic_size_t refs; /* the holder's, plus one per request that took it */
    unsigned generation;
    sluice_arena *arena;
    sluice_schema schema;
} snapshot;

struct sluice_exec_catalog {
    pthread_mutex_t lock;
    snapshot *current; /* NULL until the first read */
};

static atomic_uint requested;

void sluice_executor_request_catalog_reload(void)
{
    atomic_fetch_add(&requested, 1u);
}

static void snapshot_release(void *p)
{
    snapshot *s = p;
    if (s != NULL && atomic_fetch_sub(&s->refs, 1) == 1) {
        sluice_arena_free(s->arena);
        free(s);
    }
}

sluice_exec_catalog *sluice_exec_catalog_new(void)
{
    sluice_exec_catalog *cat = calloc(1, sizeof(*cat));
    if (cat != NULL)
        pthread_mutex_init(&cat->lock, NULL);
    return cat;
}

void sluice_exec_catalog_free(sluice_exec_catalog *cat)
{
    if (cat == NULL)
        return;
    snapshot_release(cat->current);
    pthread_mutex_destroy(&cat->lock);
    free(cat);
}

/* Reads a fresh snapshot of generation into *out; its status (err in arena) otherwise. */
static sluice_status read_snapshot(sluice_exec_catalog_read_fn read,
                                   void *ctx,
                                   unsigned generation,
                                   snapshot **out,
                                   sluice_arena *arena,
                                   sluice_error *err)
{
    *out = NULL;
    snapshot *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->arena = sluice_arena_new()) == NULL) {
        free(s);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    atomic_init(&s->refs, 1);
    s->generation = generation;
    sluice_status st = read(ctx, s->arena, &s->schema, err);
    if (st != SLUICE_OK) {
        /* The message lives in the snapshot's arena, which dies now: copy it out first. */
        char message[512];
        snprintf(message, sizeof message, "%s",
                 err->message != NULL ? err->message : "the catalog could not be read");
        snapshot_release(s);
        return sluice_error_set(err, arena, st, "%s", message);
    }
    *out = s;
    return SLUICE_OK;
}

/* Swaps fresh in (NULL: the re-read failed; the old one is kept and counts as current). */
static void install(sluice_exec_catalog *cat, snapshot *fresh, unsigned generation)
{
    snapshot *old = NULL;
    pthread_mutex_lock(&cat->lock);
    if (fresh != NULL) {
        old = cat->current;
        cat->current = fresh;
    } else if (cat->current != NULL) {
        cat->current->generation = generation; /* no retry storm: next SIGHUP tries again */
    }
    pthread_mutex_unlock(&cat->lock);
    snapshot_release(old);
}

sluice_status sluice_exec_catalog_take(sluice_exec_catalog *cat,
                                       sluice_exec_catalog_read_fn read,
                                       void *ctx,
                                       sluice_arena *arena,
                                       const sluice_schema **out,
                                       sluice_error *err)
{
    if (cat == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    unsigned want = atomic_load(&requested);
    pthread_mutex_lock(&cat->lock);
    bool stale = cat->current == NULL || cat->current->generation != want;
    bool first = cat->current == NULL;
    pthread_mutex_unlock(&cat->lock);
    if (stale) {
        snapshot *fresh = NULL;
        sluice_status st = read_snapshot(read, ctx, want, &fresh, arena, err);
        if (st != SLUICE_OK && first)
            return st;
        if (st != SLUICE_OK)
            sluice_log(SLUICE_LOG_WARN,
                       "the catalog could not be re-read (%s); the previous one "
                       "stays in use",
                       err->message != NULL ? err->message : "unknown error");
        else if (!first)
            sluice_log(SLUICE_LOG_INFO, "catalog re-read: %zu tables and views",
                       fresh->schema.table_count);
        install(cat, fresh, want);
    }
    pthread_mutex_lock(&cat->lock);
    snapshot *s = cat->current;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&cat->lock);
    if (sluice_arena_cleanup_add(arena, snapshot_release, s) != SLUICE_OK)
        return SLUICE_E_NOMEM; /* cleanup_add released it already */
    *out = &s->schema;
    return SLUICE_OK;
}
