/*
 * group_commit.c — leader/follower group commit (see group_commit.h).
 *
 * Why the leader notes `written` before it drops the mutex: a record written after that point
 * may not be in the file when fdatasync starts, so only tickets up to the noted one are covered;
 * the writers of later ones wait for the next round.
 */
#include "core/group_commit.h"

bool sluice_group_commit_init(sluice_group_commit *gc, uint64_t max_unsynced)
{
    *gc = (sluice_group_commit){ .max_unsynced = max_unsynced };
    return pthread_cond_init(&gc->done, NULL) == 0;
}

void sluice_group_commit_destroy(sluice_group_commit *gc)
{
    pthread_cond_destroy(&gc->done);
}

bool sluice_group_commit_reserve(sluice_group_commit *gc, pthread_mutex_t *lock)
{
    while (!gc->failed && gc->max_unsynced > 0 && gc->written - gc->durable >= gc->max_unsynced)
        pthread_cond_wait(&gc->done, lock);
    return !gc->failed;
}

uint64_t sluice_group_commit_ticket(sluice_group_commit *gc)
{
    return ++gc->written;
}

void sluice_group_commit_fail(sluice_group_commit *gc)
{
    gc->failed = true;
    pthread_cond_broadcast(&gc->done);
}

/* One round as leader: covers every ticket written so far. */
static void
lead(sluice_group_commit *gc, pthread_mutex_t *lock, const sluice_group_commit_ops *ops, void *ctx)
{
    gc->syncing = true;
    uint64_t target = gc->written;
    ops->begin(ctx);
    if (!gc->per_record)
        pthread_mutex_unlock(lock);
    bool ok = ops->sync(ctx);
    if (!gc->per_record)
        pthread_mutex_lock(lock);
    gc->syncing = false;
    gc->syncs++;
    if (ok && target > gc->durable)
        gc->durable = target;
    if (!ok)
        gc->failed = true;
    pthread_cond_broadcast(&gc->done);
}

bool sluice_group_commit_wait(sluice_group_commit *gc,
                              pthread_mutex_t *lock,
                              uint64_t ticket,
                              const sluice_group_commit_ops *ops,
                              void *ctx)
{
    while (gc->durable < ticket && !gc->failed) {
        if (gc->syncing)
            pthread_cond_wait(&gc->done, lock);
        else
            lead(gc, lock, ops, ctx);
    }
    return gc->durable >= ticket;
}
