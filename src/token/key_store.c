/*
 * key_store.c — the live token keyring (see key_store.h).
 *
 * One mutex guards everything but the request flag: the ring in use (with its reader count),
 * the rings replaced while readers still held them (a short list), and the file stamps of the
 * last re-read attempt. A re-read happens under the mutex, so readers wait for a few small file
 * reads at most, and two threads never re-read at once. Files are stat'ed before they are read:
 * a file replaced in between is seen as changed at the next acquire and read again.
 */
#include "token/key_store.h"

#include "core/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The files a store watches: the current key's and the previous key's. */
#define WATCHED_FILES 2u

/* What identifies one version of a file; exists false when stat failed (missing). */
typedef struct file_stamp {
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} file_stamp;

/* A ring and how many readers hold it. */
typedef struct snapshot {
    sluice_secret_ring *ring;
    size_t readers;
    struct snapshot *next; /* in the retired list */
} snapshot;

struct sluice_key_store {
    sluice_key_sources sources;
    atomic_bool reload_requested;
    pthread_mutex_t lock; /* guards everything below */
    snapshot *current;    /* never NULL */
    snapshot *retired;    /* replaced, still held by readers */
    file_stamp stamps[WATCHED_FILES];
};

static void stamp_read(const char *path, file_stamp *out)
{
    struct stat sb;
    memset(out, 0, sizeof *out);
    if (path == NULL || stat(path, &sb) != 0)
        return;
    *out = (file_stamp){ .exists = true,
                         .dev = sb.st_dev,
                         .ino = sb.st_ino,
                         .size = sb.st_size,
                         .mtime = sb.st_mtim,
                         .ctime = sb.st_ctim };
}

static bool stamp_equal(const file_stamp *a, const file_stamp *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static void stamps_read(const sluice_key_store *ks, file_stamp out[WATCHED_FILES])
{
    stamp_read(ks->sources.file, &out[0]);
    stamp_read(ks->sources.prev_file, &out[1]);
}

static sluice_status load_ring(const sluice_key_store *ks,
                               sluice_secret_ring **out,
                               sluice_arena *err_arena,
                               sluice_error *err)
{
    const sluice_key_sources *s = &ks->sources;
    return sluice_secret_ring_load(s->file, s->env, s->prev_file, s->prev_env, out, err_arena, err);
}

/* "k2 (previous: k1)" for the log; key ids are not secret. */
static void describe(const sluice_secret_ring *ring, char *out, size_t cap)
{
    int n = snprintf(out, cap, "'%s'", sluice_secret_key_id(sluice_secret_ring_current(ring)));
    const sluice_secret *prev;
    for (size_t i = 0; (prev = sluice_secret_ring_previous(ring, i)) != NULL; i++) {
        if (n < 0 || (size_t)n >= cap)
            return;
        n += snprintf(out + n, cap - (size_t)n, "%s'%s'", i == 0 ? " (previous: " : ", ",
                      sluice_secret_key_id(prev));
    }
    if (n >= 0 && (size_t)n < cap && sluice_secret_ring_previous(ring, 0) != NULL)
        snprintf(out + n, cap - (size_t)n, ")");
}

/* Frees a snapshot's ring (secret.c wipes the key bytes and the key structs) and the snapshot. */
static void snapshot_free(snapshot *snap)
{
    if (snap == NULL)
        return;
    sluice_secret_ring_free(snap->ring);
    free(snap);
}

/* Installs ring as the one in use (caller holds lock); the old one is freed now when nobody
 * holds it, else retired until its last reader leaves. Fails only for lack of memory, and then
 * the old ring stays (ring is freed). */
static sluice_status install_locked(sluice_key_store *ks, sluice_secret_ring *ring)
{
    snapshot *snap = calloc(1, sizeof *snap);
    if (snap == NULL) {
        sluice_secret_ring_free(ring);
        return SLUICE_E_NOMEM;
    }
    snap->ring = ring;
    snapshot *old = ks->current;
    ks->current = snap;
    if (old != NULL && old->readers == 0) {
        snapshot_free(old);
    } else if (old != NULL) {
        old->next = ks->retired;
        ks->retired = old;
    }
    return SLUICE_OK;
}

/* Re-reads the keys (caller holds lock); stamps are the files' as seen before the read. */
static sluice_status reload_locked(sluice_key_store *ks,
                                   const char *why,
                                   const file_stamp stamps[WATCHED_FILES],
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    memcpy(ks->stamps, stamps, sizeof ks->stamps); /* a broken version is reported once */
    sluice_secret_ring *ring = NULL;
    sluice_status st = load_ring(ks, &ring, err_arena, err);
    if (st == SLUICE_OK)
        st = install_locked(ks, ring);
    char keys[4 * SLUICE_SECRET_KEY_ID_MAX];
    describe(ks->current->ring, keys, sizeof keys);
    if (st != SLUICE_OK) {
        sluice_log(SLUICE_LOG_ERROR,
                   "token keys NOT reloaded (%s): %s; keeping the keys in use, still signing "
                   "with %s",
                   why, err != NULL && err->message != NULL ? err->message : "out of memory", keys);
        return st;
    }
    sluice_log(SLUICE_LOG_INFO, "token keys reloaded (%s): signing with %s", why, keys);
    return SLUICE_OK;
}

sluice_status sluice_key_store_open(const sluice_key_sources *sources,
                                    sluice_key_store **out,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    sluice_key_store *ks = calloc(1, sizeof *ks);
    if (ks == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory loading keys");
    ks->sources = *sources;
    atomic_init(&ks->reload_requested, false);
    stamps_read(ks, ks->stamps);
    sluice_secret_ring *ring = NULL;
    sluice_status st = load_ring(ks, &ring, err_arena, err);
    if (st == SLUICE_OK && (st = install_locked(ks, ring)) != SLUICE_OK)
        sluice_error_set(err, err_arena, st, "out of memory loading keys");
    if (st == SLUICE_OK && pthread_mutex_init(&ks->lock, NULL) != 0)
        st = sluice_error_set(err, err_arena, SLUICE_E_INTERNAL, "cannot create a mutex");
    if (st != SLUICE_OK) {
        snapshot_free(ks->current);
        free(ks);
        return st;
    }
    *out = ks;
    return SLUICE_OK;
}

const sluice_secret_ring *sluice_key_store_acquire(sluice_key_store *ks)
{
    bool requested = atomic_exchange(&ks->reload_requested, false);
    file_stamp now[WATCHED_FILES];
    stamps_read(ks, now); /* outside the lock: two stat calls */
    pthread_mutex_lock(&ks->lock);
    bool changed = false;
    for (size_t i = 0; i < WATCHED_FILES; i++)
        changed |= !stamp_equal(&now[i], &ks->stamps[i]);
    if (requested || changed) {
        sluice_arena *scratch = sluice_arena_new(); /* NULL: the message is a fixed text */
        sluice_error err = { 0 };
        reload_locked(ks, requested ? "SIGHUP" : "a key file changed", now, scratch, &err);
        sluice_arena_free(scratch);
    }
    snapshot *snap = ks->current;
    snap->readers++;
    pthread_mutex_unlock(&ks->lock);
    return snap->ring;
}

void sluice_key_store_release(sluice_key_store *ks, const sluice_secret_ring *ring)
{
    if (ring == NULL)
        return;
    snapshot *done = NULL;
    pthread_mutex_lock(&ks->lock);
    if (ks->current->ring == ring) {
        ks->current->readers--;
    } else {
        for (snapshot **p = &ks->retired; *p != NULL; p = &(*p)->next) {
            if ((*p)->ring != ring)
                continue;
            if (--(*p)->readers == 0) {
                done = *p;
                *p = done->next;
            }
            break;
        }
    }
    pthread_mutex_unlock(&ks->lock);
    snapshot_free(done); /* outside the lock: nobody can reach it any more */
}

sluice_status sluice_key_store_reload(sluice_key_store *ks,
                                      const char *why,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    file_stamp now[WATCHED_FILES];
    stamps_read(ks, now);
    pthread_mutex_lock(&ks->lock);
    sluice_status st = reload_locked(ks, why, now, err_arena, err);
    pthread_mutex_unlock(&ks->lock);
    return st;
}

void sluice_key_store_request_reload(sluice_key_store *ks)
{
    if (ks != NULL)
        atomic_store(&ks->reload_requested, true);
}

void sluice_key_store_refresh(sluice_key_store *ks)
{
    if (ks != NULL)
        sluice_key_store_release(ks, sluice_key_store_acquire(ks));
}

void sluice_key_store_close(sluice_key_store *ks)
{
    if (ks == NULL)
        return;
    snapshot_free(ks->current);
    while (ks->retired != NULL) { /* a reader never released: free anyway, we are closing */
        snapshot *next = ks->retired->next;
        snapshot_free(ks->retired);
        ks->retired = next;
    }
    pthread_mutex_destroy(&ks->lock);
    free(ks);
}
