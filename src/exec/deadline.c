/*
 * deadline.c — the watcher of deadline.h: a detached thread, a mutex, a condition variable on
 * CLOCK_MONOTONIC and a doubly linked list of the armed deadlines.
 *
 * Owns: the list and the time the watcher sleeps until (so an arm wakes it only when it must
 * wake earlier). Does not own: the deadlines.
 */
#include "exec/deadline.h"

#include "core/clock.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cv; /* CLOCK_MONOTONIC, made with the thread */
static bool watch_started;
static sluice_deadline *watch_head;
static int64_t watch_until = INT64_MAX; /* when the watcher wakes next (INT64_MAX: only if told) */

static void unlink_deadline(sluice_deadline *d)
{
    if (d->prev != NULL)
        d->prev->next = d->next;
    else
        watch_head = d->next;
    if (d->next != NULL)
        d->next->prev = d->prev;
    d->prev = d->next = NULL;
    d->armed = false;
}

/* Fires what is due and returns the earliest deadline still armed; watch_mu held. */
static int64_t fire_due(void)
{
    int64_t now = sluice_clock_monotonic_ms(NULL), next = INT64_MAX;
    sluice_deadline *d = watch_head;
    while (d != NULL) {
        sluice_deadline *after = d->next;
        if (d->at_ms <= now) {
            unlink_deadline(d);
            d->fire(d->arg);
        } else if (d->at_ms < next) {
            next = d->at_ms;
        }
        d = after;
    }
    return next;
}

static void *watch(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&watch_mu);
    for (;;) {
        watch_until = fire_due();
        if (watch_until == INT64_MAX) {
            pthread_cond_wait(&watch_cv, &watch_mu);
        } else {
            struct timespec at = { .tv_sec = (time_t)(watch_until / 1000),
                                   .tv_nsec = (long)(watch_until % 1000) * 1000000L };
            pthread_cond_timedwait(&watch_cv, &watch_mu, &at);
        }
    }
    return NULL;
}

/* Starts the watcher; watch_mu held. */
static bool start_watcher(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&watch_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_t t;
    if (pthread_create(&t, NULL, watch, NULL) != 0) {
        pthread_cond_destroy(&watch_cv);
        return false;
    }
    pthread_detach(t);
    watch_started = true;
    return true;
}

sluice_status sluice_deadline_arm(sluice_deadline *d)
{
    pthread_mutex_lock(&watch_mu);
    if (!watch_started && !start_watcher()) {
        pthread_mutex_unlock(&watch_mu);
        return SLUICE_E_INTERNAL;
    }
    d->prev = NULL;
    d->next = watch_head;
    if (watch_head != NULL)
        watch_head->prev = d;
    watch_head = d;
    d->armed = true;
    if (d->at_ms < watch_until) { /* the watcher sleeps past it (or until told) */
        watch_until = d->at_ms;
        pthread_cond_signal(&watch_cv);
    }
    pthread_mutex_unlock(&watch_mu);
    return SLUICE_OK;
}

void sluice_deadline_disarm(sluice_deadline *d)
{
    pthread_mutex_lock(&watch_mu);
    if (d->armed)
        unlink_deadline(d);
    pthread_mutex_unlock(&watch_mu);
}

void sluice_deadline_in_child(void)
{
    /* the parent's lock may have been held by its watcher at the fork: start over */
    pthread_mutex_init(&watch_mu, NULL);
    watch_started = false;
    watch_head = NULL;
    watch_until = INT64_MAX;
}
