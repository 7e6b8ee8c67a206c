/*
 * backend.h — the interface a policy backend implements (policy-internal).
 *
 * Owns: the vtable policy.c dispatches to and the open functions of the backends
 * (cedar_backend.c, command.c). Does not own: routing, the request model or the version hash
 * (policy.c). A backend sees the request as JSON (sluice_policy_request_json) and answers with
 * a decision; anything it cannot do is a deny with an error, never an allow. It includes only the
 * decision's shape (decision.h), never policy.h: policy.c dispatches to the backends, the
 * backends call nothing of policy.c.
 */
#ifndef SLUICE_POLICY_BACKEND_H
#define SLUICE_POLICY_BACKEND_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/hash.h"
#include "policy/decision.h"

#include <jansson.h>

typedef struct sluice_policy_backend_ops {
    const char *name;
    /* Fills out->allow, reasons and errors (arena). Non-OK only on SLUICE_E_NOMEM. */
    sluice_status (*evaluate)(void *state,
                              sluice_arena *arena,
                              const json_t *request,
                              sluice_policy_decision *out,
                              sluice_error *err);
    void (*close)(void *state);
    /* The forbid policies of the set (NULL: the backend cannot tell). */
    size_t (*forbids)(void *state, sluice_arena *arena, sluice_policy_reason **out);
} sluice_policy_backend_ops;

/* Reads and parses the policy, entity and schema files; feeds what decides into version. */
sluice_status sluice_policy_cedar_open(const sluice_config_policy *config,
                                       sluice_hash_state *version,
                                       void **state,
                                       sluice_arena *err_arena,
                                       sluice_error *err);
extern const sluice_policy_backend_ops sluice_policy_cedar_ops;

/* Checks the program is executable; feeds the argv into version. */
sluice_status sluice_policy_command_open(const sluice_config_policy *config,
                                         sluice_hash_state *version,
                                         void **state,
                                         sluice_arena *err_arena,
                                         sluice_error *err);
extern const sluice_policy_backend_ops sluice_policy_command_ops;

#endif
