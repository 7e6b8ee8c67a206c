/*
 * cache.c — the per-principal source cache (see cache.h).
 */
#include "querymode/cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    struct entry *next;
    char *key; /* user \x1f key */
    json_t *rows;
    sluice_arena *arena; /* the columns */
    sluice_exec_column *columns;
    size_t column_count;
    size_t bytes;
    int64_t pages;
    int64_t expires_ms;
} entry;

struct sluice_qm_cache {
    pthread_mutex_t mu;
    const sluice_clock *clock;
    size_t max_bytes;
    size_t bytes;
    entry *head; /* newest first */
};

sluice_status
sluice_qm_cache_new(size_t max_bytes, const sluice_clock *clock, sluice_qm_cache **out)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_init(&(*out)->mu, NULL);
    (*out)->clock = clock;
    (*out)->max_bytes = max_bytes;
    return SLUICE_OK;
}

static void entry_free(entry *e)
{
    json_decref(e->rows);
    sluice_arena_free(e->arena);
    free(e->key);
    free(e);
}

void sluice_qm_cache_free(sluice_qm_cache *c)
{
    if (c == NULL)
        return;
    while (c->head != NULL) {
        entry *e = c->head;
        c->head = e->next;
        entry_free(e);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static int64_t now_ms(const sluice_qm_cache *c)
{
    return sluice_clock_monotonic_ns(c->clock) / 1000000;
}

/* Under mu: unlinks expired entries, and (when room > 0) the oldest until room bytes fit. */
static void sweep_locked(sluice_qm_cache *c, size_t room)
{
    int64_t now = now_ms(c);
    for (entry **p = &c->head; *p != NULL;) {
        entry *e = *p;
        if (now >= e->expires_ms) {
            *p = e->next;
            c->bytes -= e->bytes;
            entry_free(e);
        } else {
            p = &e->next;
        }
    }
    while (room > 0 && c->head != NULL && c->bytes + room > c->max_bytes) {
        entry **p = &c->head;
        while ((*p)->next != NULL)
            p = &(*p)->next;
        c->bytes -= (*p)->bytes;
        entry_free(*p);
        *p = NULL;
    }
}

static char *full_key(const char *user, const char *key)
{
    size_t n = strlen(user) + strlen(key) + 2;
    char *k = malloc(n);
    if (k != NULL)
        snprintf(k, n, "%s\x1f%s", user, key);
    return k;
}

static bool
copy_columns(sluice_arena *arena, const sluice_exec_column *from, size_t n, sluice_exec_column **to)
{
    *to = sluice_arena_calloc(arena, n + 1, sizeof(**to));
    for (size_t i = 0; *to != NULL && i < n; i++) {
        (*to)[i].name = sluice_arena_strdup(arena, from[i].name);
        (*to)[i].type = sluice_arena_strdup(arena, from[i].type);
        if ((*to)[i].name == NULL || (*to)[i].type == NULL)
            return false;
    }
    return *to != NULL;
}

bool sluice_qm_cache_get(sluice_qm_cache *c,
                         const char *user,
                         const char *key,
                         sluice_arena *arena,
                         sluice_qm_cached *out)
{
    memset(out, 0, sizeof(*out));
    char *k = full_key(user, key);
    if (k == NULL)
        return false;
    bool hit = false;
    pthread_mutex_lock(&c->mu);
    sweep_locked(c, 0);
    for (entry *e = c->head; e != NULL && !hit; e = e->next) {
        if (strcmp(e->key, k) != 0)
            continue;
        hit = copy_columns(arena, e->columns, e->column_count, &out->columns);
        if (hit) {
            out->rows = json_incref(e->rows);
            out->column_count = e->column_count;
            out->pages = e->pages;
        }
    }
    pthread_mutex_unlock(&c->mu);
    free(k);
    return hit;
}

void sluice_qm_cache_put(sluice_qm_cache *c,
                         const char *user,
                         const char *key,
                         int64_t ttl_ms,
                         json_t *rows,
                         const sluice_exec_column *columns,
                         size_t column_count,
                         size_t bytes,
                         int64_t pages)
{
    if (ttl_ms <= 0 || rows == NULL || bytes > c->max_bytes)
        return;
    entry *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return;
    e->key = full_key(user, key);
    e->arena = sluice_arena_new();
    if (e->key == NULL || e->arena == NULL ||
        !copy_columns(e->arena, columns, column_count, &e->columns)) {
        entry_free(e);
        return;
    }
    e->rows = json_incref(rows);
    e->column_count = column_count;
    e->bytes = bytes;
    e->pages = pages;
    pthread_mutex_lock(&c->mu);
    for (entry **p = &c->head; *p != NULL; p = &(*p)->next)
        if (strcmp((*p)->key, e->key) == 0) { /* replaced by the fresher load */
            entry *old = *p;
            *p = old->next;
            c->bytes -= old->bytes;
            entry_free(old);
            break;
        }
    sweep_locked(c, bytes);
    e->expires_ms = now_ms(c) + ttl_ms;
    e->next = c->head;
    c->head = e;
    c->bytes += bytes;
    pthread_mutex_unlock(&c->mu);
}

size_t sluice_qm_cache_count(sluice_qm_cache *c)
{
    pthread_mutex_lock(&c->mu);
    sweep_locked(c, 0);
    size_t n = 0;
    for (entry *e = c->head; e != NULL; e = e->next)
        n++;
    pthread_mutex_unlock(&c->mu);
    return n;
}
