/*
 * deadline.h — one process-wide thread that calls back at deadlines (an execution's timeout),
 * instead of a thread started and joined for every execution.
 *
 * Owns: the watcher thread (started by the first arm, detached, alive as long as the process)
 * and the list of armed deadlines. A thread per execution cost a clone, its exit (which gives
 * its 8 MB stack back with an madvise every other thread's TLB pays for) and a join on every
 * execute_code: about a tenth of a millisecond of each governed seed-003 call (issue 23).
 * Does not own: the deadlines' memory (the caller's, disarmed before it is freed) or what a
 * callback does.
 *
 * Rules: fire runs on the watcher thread with the watcher's lock held, once per arming, at or
 * after at_ms; it must be short and must neither arm nor disarm. Once sluice_deadline_disarm
 * returns, fire is not running and will not run. The watcher sleeps until the earliest armed
 * deadline, so a disarmed one costs at most one early wake-up. A forked child calls
 * sluice_deadline_in_child before anything else: it starts with nothing armed and gets a watcher
 * of its own on its first arm (fork copies only the calling thread).
 */
#ifndef SLUICE_EXEC_DEADLINE_H
#define SLUICE_EXEC_DEADLINE_H

#include "sluice/sluice.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sluice_deadline {
    int64_t at_ms; /* sluice_clock_monotonic_ms(NULL) */
    void (*fire)(void *arg);
    void *arg;
    /* the watcher's, under its lock */
    struct sluice_deadline *prev, *next;
    bool armed;
} sluice_deadline;

/* Arms d (at_ms, fire and arg set by the caller; d not armed). SLUICE_E_INTERNAL when the
 * watcher thread could not be started (nothing is armed then). */
sluice_status sluice_deadline_arm(sluice_deadline *d);

/* Disarms d whether or not it fired; a d never armed is fine. */
void sluice_deadline_disarm(sluice_deadline *d);

/* First thing in a forked child: forget the parent's watcher and what it had armed. */
void sluice_deadline_in_child(void);

#endif
