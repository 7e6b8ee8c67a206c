/*
 * decision.h — what a policy decision is: allow or deny, the policies that determined it, the
 * evaluation errors (any error denies), and the facts the policies saw.
 *
 * Owns: the decision and reason shapes and adding an error to a decision. Shared by the policy
 * interface (policy.h) and the backends that fill a decision (backend.h: cedar_backend.c,
 * command.c), which sit below policy.c's dispatch and include nothing above this.
 */
#ifndef SLUICE_POLICY_DECISION_H
#define SLUICE_POLICY_DECISION_H

#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One policy that decided: its id ("policy0", or the command's reason), @id annotation (NULL
 * when absent), whether it forbids, and where it is (lines 0 when not from a file). */
typedef struct sluice_policy_reason {
    const char *id;
    const char *annotation;
    const char *text; /* the policy's source text, NULL when unknown */
    size_t first_line, last_line;
    bool forbid;
} sluice_policy_reason;

typedef struct sluice_policy_decision {
    bool allow;
    sluice_policy_reason *reasons; /* determining policies */
    size_t reason_count;
    const char **errors; /* evaluation errors (any error denies: fail closed) */
    size_t error_count;
    json_t *request; /* the facts used (principal, action, resource, context); owned: decref */
} sluice_policy_decision;

/* Adds an error to a decision (which then denies). */
sluice_status
sluice_policy_decision_error(sluice_policy_decision *d, sluice_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
