/*
 * session.c — the query-mode session registry (see session.h).
 */
#include "querymode/session.h"

#include "core/metrics.h"
#include "core/vec.h"
#include "exec/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct sluice_qm_registry {
    pthread_mutex_t mu;
    const sluice_clock *clock;
    int64_t ttl_ms;
    size_t max_total;
    size_t max_per_user;
    char spill_parent[512];
    char memory_limit[32];
    char max_spill[32];
    sluice_qm_session **sessions;
    size_t count;
};

sluice_status sluice_qm_registry_new(const sluice_config_query_mode *qm,
                                     const sluice_clock *clock,
                                     sluice_qm_registry **out)
{
    *out = NULL;
    sluice_qm_registry *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return SLUICE_E_NOMEM;
    r->max_total = (size_t)qm->max_sessions;
    r->sessions = calloc(r->max_total, sizeof(*r->sessions));
    if (r->sessions == NULL) {
        free(r);
        return SLUICE_E_NOMEM;
    }
    pthread_mutex_init(&r->mu, NULL);
    r->clock = clock;
    r->ttl_ms = qm->session_ttl_seconds * 1000;
    r->max_per_user = (size_t)qm->max_sessions_per_principal;
    const char *tmp = getenv("TMPDIR");
    snprintf(r->spill_parent, sizeof(r->spill_parent), "%s",
             qm->spill_dir != NULL          ? qm->spill_dir
             : tmp != NULL && tmp[0] == '/' ? tmp
                                            : "/tmp");
    snprintf(r->memory_limit, sizeof(r->memory_limit), "%s", qm->session_memory_limit);
    snprintf(r->max_spill, sizeof(r->max_spill), "%s", qm->session_max_spill);
    *out = r;
    return SLUICE_OK;
}

/* Removes the spill folder and what DuckDB left in it (flat: DuckDB writes files only). */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[1200];
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void session_free(sluice_qm_session *s)
{
    sluice_metric_add(SLUICE_METRIC_QUERYMODE_OPEN, -1, NULL, NULL, NULL);
    sluice_executor_close(s->db);
    remove_folder(s->spill_dir);
    pthread_mutex_destroy(&s->lock);
    sluice_arena_free(s->arena);
    free(s->key);
    free(s);
}

void sluice_qm_registry_free(sluice_qm_registry *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->count; i++)
        session_free(r->sessions[i]);
    pthread_mutex_destroy(&r->mu);
    free(r->sessions);
    free(r);
}

static int64_t now_ms(const sluice_qm_registry *r)
{
    return sluice_clock_monotonic_ns(r->clock) / 1000000;
}

/* Under r->mu. */
static size_t expire_locked(sluice_qm_registry *r)
{
    size_t freed = 0;
    int64_t now = now_ms(r);
    for (size_t i = 0; i < r->count;) {
        sluice_qm_session *s = r->sessions[i];
        if (s->refs == 0 && now - s->last_used_ms >= r->ttl_ms) {
            r->sessions[i] = r->sessions[--r->count];
            session_free(s);
            freed++;
        } else {
            i++;
        }
    }
    return freed;
}

size_t sluice_qm_expire(sluice_qm_registry *r)
{
    pthread_mutex_lock(&r->mu);
    size_t n = expire_locked(r);
    pthread_mutex_unlock(&r->mu);
    return n;
}

size_t sluice_qm_session_count(sluice_qm_registry *r)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->count;
    pthread_mutex_unlock(&r->mu);
    return n;
}

/* "user\x1fserver\x1fsession": the separator cannot appear in any of the three from a client
 * (identities and session ids are printable). */
static char *make_key(const char *user, const char *server, const char *transport)
{
    size_t n = strlen(user) + strlen(server) + strlen(transport) + 3;
    char *k = malloc(n);
    if (k != NULL)
        snprintf(k, n, "%s\x1f%s\x1f%s", user, server, transport);
    return k;
}

static sluice_qm_session *lookup_locked(sluice_qm_registry *r, const char *key)
{
    for (size_t i = 0; i < r->count; i++)
        if (!r->sessions[i]->closed && strcmp(r->sessions[i]->key, key) == 0)
            return r->sessions[i];
    return NULL;
}

static sluice_status
check_caps_locked(sluice_qm_registry *r, const char *user, sluice_arena *arena, sluice_error *err)
{
    if (r->count >= r->max_total)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "query mode has %zu live sessions, the most [query_mode] "
                                "max_sessions allows; try again when one expires",
                                r->count);
    size_t mine = 0;
    for (size_t i = 0; i < r->count; i++)
        mine += strcmp(r->sessions[i]->user, user) == 0;
    if (mine >= r->max_per_user)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "you have %zu live query-mode sessions, the most [query_mode] "
                                "max_sessions_per_principal allows; reuse one or let it expire",
                                mine);
    return SLUICE_OK;
}

static sluice_status session_new(sluice_qm_registry *r,
                                 char *key,
                                 const char *user,
                                 const char *transport,
                                 sluice_qm_session **out,
                                 sluice_arena *arena,
                                 sluice_error *err)
{
    sluice_qm_session *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return SLUICE_E_NOMEM;
    s->key = key;
    s->arena = sluice_arena_new();
    s->user = s->arena != NULL ? sluice_arena_strdup(s->arena, user) : NULL;
    s->transport = s->user != NULL ? sluice_arena_strdup(s->arena, transport) : NULL;
    if (s->transport == NULL) {
        sluice_arena_free(s->arena);
        free(s);
        return SLUICE_E_NOMEM;
    }
    snprintf(s->spill_dir, sizeof(s->spill_dir), "%s/sluice-qm-XXXXXX", r->spill_parent);
    if (mkdtemp(s->spill_dir) == NULL) {
        sluice_status st = sluice_error_set(err, arena, SLUICE_E_IO,
                                            "cannot create a session folder in %s: %s "
                                            "(set [query_mode] spill_dir)",
                                            r->spill_parent, strerror(errno));
        sluice_arena_free(s->arena);
        free(s);
        return st;
    }
    sluice_scratch_options o = { .spill_dir = s->spill_dir,
                                 .memory_limit = r->memory_limit,
                                 .max_spill = r->max_spill };
    sluice_status st = sluice_scratch_open(&o, &s->db, arena, err);
    if (st != SLUICE_OK) {
        rmdir(s->spill_dir);
        sluice_arena_free(s->arena);
        free(s);
        return st;
    }
    pthread_mutex_init(&s->lock, NULL);
    sluice_metric_inc(SLUICE_METRIC_QUERYMODE_SESSIONS, NULL, NULL, NULL);
    sluice_metric_add(SLUICE_METRIC_QUERYMODE_OPEN, 1, NULL, NULL, NULL);
    *out = s;
    return SLUICE_OK;
}

static sluice_status get(sluice_qm_registry *r,
                         const char *user,
                         const char *server,
                         const char *transport,
                         bool create,
                         sluice_qm_session **out,
                         sluice_arena *arena,
                         sluice_error *err)
{
    *out = NULL;
    char *key = make_key(user, server, transport);
    if (key == NULL)
        return SLUICE_E_NOMEM;
    pthread_mutex_lock(&r->mu);
    expire_locked(r);
    sluice_qm_session *s = lookup_locked(r, key);
    sluice_status st = SLUICE_OK;
    if (s == NULL && !create)
        st = SLUICE_E_NOT_FOUND;
    if (s == NULL && st == SLUICE_OK)
        st = check_caps_locked(r, user, arena, err);
    if (s == NULL && st == SLUICE_OK) {
        st = session_new(r, key, user, transport, &s, arena, err);
        if (st == SLUICE_OK) {
            key = NULL; /* the session owns it */
            r->sessions[r->count++] = s;
        }
    }
    if (st == SLUICE_OK) {
        s->refs++;
        s->last_used_ms = now_ms(r);
    }
    pthread_mutex_unlock(&r->mu);
    free(key);
    if (st != SLUICE_OK)
        return st;
    pthread_mutex_lock(&s->lock);
    *out = s;
    return SLUICE_OK;
}

sluice_status sluice_qm_acquire(sluice_qm_registry *r,
                                const char *user,
                                const char *server,
                                const char *transport_session,
                                sluice_qm_session **out,
                                sluice_arena *arena,
                                sluice_error *err)
{
    return get(r, user, server, transport_session, true, out, arena, err);
}

sluice_status sluice_qm_find(sluice_qm_registry *r,
                             const char *user,
                             const char *server,
                             const char *transport_session,
                             sluice_qm_session **out)
{
    return get(r, user, server, transport_session, false, out, NULL, NULL);
}

/* Under r->mu: takes s out of the registry's list (it must be there). */
static void unlist_locked(sluice_qm_registry *r, const sluice_qm_session *s)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->sessions[i] == s) {
            r->sessions[i] = r->sessions[--r->count];
            return;
        }
}

void sluice_qm_release(sluice_qm_registry *r, sluice_qm_session *s)
{
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&r->mu);
    s->refs--;
    s->last_used_ms = now_ms(r);
    bool free_now = s->closed && s->refs == 0;
    if (free_now)
        unlist_locked(r, s);
    pthread_mutex_unlock(&r->mu);
    if (free_now)
        session_free(s);
}

size_t sluice_qm_close_transport(sluice_qm_registry *r, const char *transport_session)
{
    size_t n = 0;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->count;) {
        sluice_qm_session *s = r->sessions[i];
        if (s->closed || strcmp(s->transport, transport_session) != 0) {
            i++;
            continue;
        }
        n++;
        s->closed = true;
        if (s->refs > 0) {
            i++;
            continue;
        }
        r->sessions[i] = r->sessions[--r->count];
        session_free(s);
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

int64_t sluice_qm_expires_at_ms(const sluice_qm_registry *r, const sluice_qm_session *s)
{
    return sluice_clock_now_ms(r->clock) + (s->last_used_ms + r->ttl_ms - now_ms(r));
}

sluice_qm_table *sluice_qm_table_find(sluice_qm_session *s, const char *name)
{
    for (size_t i = 0; i < s->table_count; i++)
        if (strcasecmp(s->tables[i].name, name) == 0)
            return &s->tables[i];
    return NULL;
}

sluice_status sluice_qm_table_put(sluice_qm_session *s, const sluice_qm_table *t)
{
    sluice_qm_table *slot = sluice_qm_table_find(s, t->name);
    if (slot == NULL) {
        sluice_qm_table *grown =
            sluice_vec_grow(s->arena, s->tables, s->table_count, &s->table_cap, sizeof(*grown), 8);
        if (grown == NULL)
            return SLUICE_E_NOMEM;
        s->tables = grown;
    }
    sluice_qm_table copy = *t;
    copy.name = sluice_arena_strdup(s->arena, t->name);
    copy.source = sluice_arena_strdup(s->arena, t->source);
    copy.load_key = t->load_key != NULL ? sluice_arena_strdup(s->arena, t->load_key) : NULL;
    if (t->load_key != NULL && copy.load_key == NULL)
        return SLUICE_E_NOMEM;
    copy.columns = sluice_arena_calloc(s->arena, t->column_count + 1, sizeof(*copy.columns));
    if (copy.name == NULL || copy.source == NULL || copy.columns == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < t->column_count; i++) {
        copy.columns[i].name = sluice_arena_strdup(s->arena, t->columns[i].name);
        copy.columns[i].type = sluice_arena_strdup(s->arena, t->columns[i].type);
        if (copy.columns[i].name == NULL || copy.columns[i].type == NULL)
            return SLUICE_E_NOMEM;
    }
    if (slot == NULL)
        slot = &s->tables[s->table_count++];
    *slot = copy;
    return SLUICE_OK;
}

void sluice_qm_table_remove(sluice_qm_session *s, const char *name)
{
    for (size_t i = 0; i < s->table_count; i++)
        if (strcasecmp(s->tables[i].name, name) == 0) {
            s->tables[i] = s->tables[--s->table_count];
            return;
        }
}
