/*
 * oom_sweep.h — allocation-failure sweeps for the deciding paths (analysis, policy, risk,
 * token, pipeline): fail the Nth allocation point for N = 1, 2, ... until a run completes
 * without reaching its Nth point, and judge every run's outcome.
 *
 * Allocation points are every arena allocation, every sluice_buf growth, and (once
 * oom_count_jansson() ran) every jansson allocation, all on one countdown
 * (sluice_arena_fail_at). Header-only: each test_*_oom.c includes it once.
 *
 * jansson's decoder is not used with failures inside it: jansson 2.14 (Debian's) corrupts
 * memory when an allocation fails while it lexes (lex_save drops the error; upstream
 * akheron/jansson#362, unmerged fixes #735 and #747). The test binary interposes json_loads
 * and json_loadb (libsluice is linked statically, so its calls resolve here): each decode is
 * one allocation point (failing it fails the whole decode, as a clean out-of-memory would),
 * and failures are held while the real decoder runs. Every other jansson allocation is failed
 * in turn.
 */
#ifndef SLUICE_TESTS_OOM_SWEEP_H
#define SLUICE_TESTS_OOM_SWEEP_H

#include "core/arena.h"

#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static int oom_decoding; /* > 0 inside jansson's decoder (see above) */

json_t *json_loads(const char *input, size_t flags, json_error_t *error)
{
    json_t *(*real)(const char *, size_t, json_error_t *);
    *(void **)&real = dlsym(RTLD_NEXT, "json_loads");
    if (sluice_arena_fault_point()) {
        if (error != NULL) { /* as jansson reports one: the text, and the code in its last byte */
            snprintf(error->text, sizeof error->text, "out of memory (injected)");
            error->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
        }
        return NULL;
    }
    oom_decoding++;
    json_t *v = real(input, flags, error);
    oom_decoding--;
    return v;
}

json_t *json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error)
{
    json_t *(*real)(const char *, size_t, size_t, json_error_t *);
    *(void **)&real = dlsym(RTLD_NEXT, "json_loadb");
    if (sluice_arena_fault_point()) {
        if (error != NULL) { /* as jansson reports one: the text, and the code in its last byte */
            snprintf(error->text, sizeof error->text, "out of memory (injected)");
            error->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
        }
        return NULL;
    }
    oom_decoding++;
    json_t *v = real(buffer, buflen, flags, error);
    oom_decoding--;
    return v;
}

/* What one run of the code under test ended in. */
typedef enum oom_outcome {
    OOM_FAILED,  /* an error status: nothing was decided (always acceptable under a fault) */
    OOM_REFUSED, /* a refusal / deny / verify failure */
    OOM_ALLOWED, /* a clean verdict with the facts the case expects */
    OOM_WRONG,   /* a clean verdict whose facts are not the ones expected (never acceptable) */
} oom_outcome;

static const char *const oom_outcome_names[] = { "failed", "refused", "allowed", "WRONG" };

static void *oom_json_malloc(size_t size)
{
    return oom_decoding == 0 && sluice_arena_fault_point() ? NULL : malloc(size);
}

/* Routes jansson's allocations through the countdown, so a sweep fails them too. */
static inline void oom_count_jansson(void)
{
    json_set_alloc_funcs(oom_json_malloc, free);
}

/* Stops a runaway sweep (a run that allocates without end would never complete). */
#define OOM_SWEEP_MAX_POINTS 200000L

/* The outcomes a case accepts under a fault, as a mask. */
#define OOM_ACCEPT(outcome) (1u << (outcome))

/* Runs run(ctx) with the nth allocation point failing, for every n until a run no longer
 * reaches its nth point. Under a fault the outcome must be in the mask `under_fault` (never
 * OOM_WRONG); without a fault it must be exactly `expect`, which proves the case can tell the
 * outcomes apart. Returns the number of allocation points swept, or -1 after printing the first
 * bad run. */
static inline long oom_sweep(const char *name,
                             oom_outcome (*run)(void *ctx),
                             void *ctx,
                             oom_outcome expect,
                             unsigned under_fault)
{
    under_fault &= ~OOM_ACCEPT(OOM_WRONG);
    for (long nth = 1; nth < OOM_SWEEP_MAX_POINTS; nth++) {
        sluice_arena_fail_at(nth);
        oom_outcome got = run(ctx);
        bool fired = !sluice_arena_fail_pending();
        sluice_arena_fail_at(0);
        if (!fired) {
            if (got == expect)
                return nth - 1;
            fprintf(stderr, "%s: without a fault: %s, expected %s\n", name, oom_outcome_names[got],
                    oom_outcome_names[expect]);
            return -1;
        }
        if ((under_fault & OOM_ACCEPT(got)) == 0) {
            fprintf(stderr, "%s: allocation point %ld failed and the run ended %s\n", name, nth,
                    oom_outcome_names[got]);
            return -1;
        }
    }
    fprintf(stderr, "%s: more than %ld allocation points\n", name, OOM_SWEEP_MAX_POINTS);
    return -1;
}

#endif
