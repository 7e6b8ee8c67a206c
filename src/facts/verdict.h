/*
 * verdict.h — a decider's verdict on a program: refused or not, and the violations that say why.
 *
 * Owns: the record policy (and any later decider) returns instead of writing into the analyzer's
 * CodeFacts; the pipeline merges the analyzer's violations and every verdict into one result.
 * Does not own: what is decided (policy/), or the facts (codefacts.h).
 *
 * Fail closed: `refused` is set before anything is allocated, so a verdict whose violation could
 * not be recorded still refuses.
 */
#ifndef SLUICE_FACTS_VERDICT_H
#define SLUICE_FACTS_VERDICT_H

#include "core/arena.h"
#include "core/error.h"
#include "facts/codefacts.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_verdict {
    bool refused;
    sluice_codefacts_violation *violations;
    size_t violation_count;
    size_t violation_cap;
    sluice_arena *arena;
} sluice_verdict;

/* An empty verdict (not refused) whose strings will live in arena. */
void sluice_verdict_init(sluice_verdict *v, sluice_arena *arena);

/* Refuses, and records why (rule, suggestion may be NULL, printf-style message). SLUICE_E_NOMEM
 * when the reason could not be recorded: the verdict refuses all the same. */
sluice_status sluice_verdict_refuse(sluice_verdict *v,
                                    const char *rule,
                                    const char *suggestion,
                                    const char *fmt,
                                    ...) __attribute__((format(printf, 4, 5)));

#endif
