/*
 * fork_gate.c — the shared/exclusive gate of fork_gate.h, a mutex and a condition variable.
 *
 * Owns: the counts (threads in regions, forks waiting, a fork in progress) and each thread's
 * nesting depth. Writer preference: a waiting fork keeps new regions out, so a stream of
 * in-process queries cannot starve it; it waits at most until its deadline.
 * Does not own: what runs in a region or in the child.
 */
#include "exec/fork_gate.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv; /* CLOCK_MONOTONIC, set up once */
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static unsigned gate_readers; /* threads inside a region (outermost holds only) */
static unsigned gate_waiting; /* forks waiting for the readers to leave */
static bool gate_closed;      /* a fork is in progress */
static bool gate_child;       /* this process is a forked child: single-threaded */
static _Thread_local unsigned gate_depth;

static void gate_init(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&gate_cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* Takes a reader's place; gate_mu held. */
static void reader_in(void)
{
    while (gate_closed || gate_waiting > 0)
        pthread_cond_wait(&gate_cv, &gate_mu);
    gate_readers++;
}

/* Gives a reader's place back; gate_mu held. */
static void reader_out(void)
{
    gate_readers--;
    if (gate_readers == 0)
        pthread_cond_broadcast(&gate_cv);
}

void sluice_fork_gate_enter(void)
{
    if (gate_child || gate_depth++ > 0)
        return;
    pthread_once(&gate_once, gate_init);
    pthread_mutex_lock(&gate_mu);
    reader_in();
    pthread_mutex_unlock(&gate_mu);
}

void sluice_fork_gate_leave(void)
{
    if (gate_child || gate_depth == 0 || --gate_depth > 0)
        return;
    pthread_mutex_lock(&gate_mu);
    reader_out();
    pthread_mutex_unlock(&gate_mu);
}

unsigned sluice_fork_gate_suspend(void)
{
    unsigned held = gate_depth;
    if (gate_child || held == 0)
        return 0;
    gate_depth = 1;
    sluice_fork_gate_leave();
    return held;
}

void sluice_fork_gate_resume(unsigned held)
{
    if (gate_child || held == 0)
        return;
    sluice_fork_gate_enter();
    gate_depth = held;
}

bool sluice_fork_gate_close(int64_t deadline_ms, const atomic_bool *abandon)
{
    if (gate_child)
        return true;
    if (gate_depth > 0)
        return false; /* would wait for itself: the caller must suspend first */
    pthread_once(&gate_once, gate_init);
    struct timespec at = { .tv_sec = (time_t)(deadline_ms / 1000),
                           .tv_nsec = (long)(deadline_ms % 1000) * 1000000L };
    pthread_mutex_lock(&gate_mu);
    gate_waiting++;
    bool gave_up = false;
    while ((gate_closed || gate_readers > 0) && !gave_up) {
        gave_up = pthread_cond_timedwait(&gate_cv, &gate_mu, &at) != 0 &&
                  (gate_closed || gate_readers > 0);
        if (abandon != NULL && atomic_load(abandon))
            gave_up = true;
    }
    gate_waiting--;
    if (!gave_up)
        gate_closed = true;
    else
        pthread_cond_broadcast(&gate_cv); /* regions held back by this fork may enter */
    pthread_mutex_unlock(&gate_mu);
    return !gave_up;
}

void sluice_fork_gate_open(void)
{
    if (gate_child)
        return;
    pthread_mutex_lock(&gate_mu);
    gate_closed = false;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

void sluice_fork_gate_wake(void)
{
    if (gate_child)
        return;
    pthread_once(&gate_once, gate_init);
    pthread_mutex_lock(&gate_mu);
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

unsigned sluice_fork_gate_waiting(void)
{
    pthread_mutex_lock(&gate_mu);
    unsigned n = gate_waiting;
    pthread_mutex_unlock(&gate_mu);
    return n;
}

void sluice_fork_gate_in_child(void)
{
    gate_child = true;
}
