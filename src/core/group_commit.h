/*
 * group_commit.h — durable appends without one sync per record: a leader/follower group commit.
 *
 * Owns: deciding which writer syncs and when a written record may be acknowledged. Writers append
 * under their store's mutex and take a ticket (the record's generation); then they wait. The first
 * waiter that finds no sync running becomes the leader: it notes the highest ticket written so far,
 * drops the mutex, makes the file durable (the store's sync callback), takes the mutex back and
 * publishes that ticket as durable; the followers sleep on a condition variable until the durable
 * generation covers their ticket, or become the next leader for the records written meanwhile.
 * So N concurrent writers share one fdatasync, and a record is acknowledged only after a sync that
 * began after it was written returned successfully: a crash loses no acknowledged record.
 * A failed sync fails the group closed: every waiter not yet covered gets false, and so does every
 * later writer (after a failed fdatasync the kernel may have dropped the dirty pages, so nothing
 * written since can be trusted to be on disk).
 * Does not own: the file, its format or its mutex (the store's); the in-memory state a record
 * changes (the store updates it under its mutex, before or after waiting, as its contract says).
 */
#ifndef SLUICE_CORE_GROUP_COMMIT_H
#define SLUICE_CORE_GROUP_COMMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* What the leader does. begin runs under the store's mutex when the leader takes the group (note
 * what this sync covers, e.g. the last seq and hash); sync runs without the mutex and returns
 * true when everything written before begin is durable. */
typedef struct sluice_group_commit_ops {
    void (*begin)(void *ctx);
    bool (*sync)(void *ctx);
} sluice_group_commit_ops;

typedef struct sluice_group_commit {
    pthread_cond_t done; /* broadcast after every sync */
    uint64_t written;    /* tickets handed out (records written to the file) */
    uint64_t durable;    /* highest ticket known durable */
    bool syncing;        /* a leader is in sync() */
    bool failed;         /* a sync failed: sticky */
    bool per_record;     /* sync under the mutex, one record per sync (the old way, for benches) */
    uint64_t max_unsynced; /* writers wait before writing while this many records are unsynced */
    uint64_t syncs;        /* syncs performed (statistics, under the mutex) */
} sluice_group_commit;

/* Initialises gc; max_unsynced bounds how far the file may run ahead of its last sync (0: no
 * bound). false when the condition variable cannot be created. */
bool sluice_group_commit_init(sluice_group_commit *gc, uint64_t max_unsynced);
void sluice_group_commit_destroy(sluice_group_commit *gc);

/* Called with lock held before a record is written: waits while max_unsynced records are
 * unsynced. false when the group has failed (write nothing: fail closed). */
bool sluice_group_commit_reserve(sluice_group_commit *gc, pthread_mutex_t *lock);

/* Called with lock held right after a record was written: its ticket. */
uint64_t sluice_group_commit_ticket(sluice_group_commit *gc);

/* Called with lock held after writing the record with ticket; returns with lock held, true once
 * the record is durable, false when a sync that should have covered it failed. */
bool sluice_group_commit_wait(sluice_group_commit *gc,
                              pthread_mutex_t *lock,
                              uint64_t ticket,
                              const sluice_group_commit_ops *ops,
                              void *ctx);

/* Marks the group failed (a write itself failed: the file may hold a torn record). Under lock. */
void sluice_group_commit_fail(sluice_group_commit *gc);

#endif
