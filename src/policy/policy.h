/*
 * policy.h — policy on business actions: who may Read, Write, Delete or Admin, evaluated locally
 * on every validate_code and execute_code.
 *
 * Owns: role-to-server routing ([[policy.servers]]: the first route one of whose groups the
 * caller is in, else the default server), the rules derived for a route (the route's overrides
 * applied to [code_mode], so the built-in rules always run with the route's settings), the
 * request model of seed 000 (principal CodeMode::User with its groups as parents, action
 * CodeMode::Action, resource CodeMode::Server with the route's attributes, the CodeFacts as
 * context), the backends (cedar_backend.c, command.c, none) and the policy version hash that
 * binds approval tokens to the policies they were issued under.
 * Does not own: the Cedar language (policy/cedar/), how a decision becomes violations or a
 * token (codemode/pipeline.c), or the texts shown to the model (codemode/guide.c).
 *
 * Fail closed: an evaluation error, an unreachable command or a malformed answer is a deny.
 */
#ifndef SLUICE_POLICY_POLICY_H
#define SLUICE_POLICY_POLICY_H

#include "auth/identity.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "facts/codefacts.h"
#include "facts/verdict.h"
#include "policy/decision.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_policy sluice_policy;

/* Where a caller is evaluated: the resource id and the rules that apply to them. */
typedef struct sluice_policy_route {
    const char *id;                           /* CodeMode::Server::"<id>" */
    const sluice_config_code_mode *rules;     /* [code_mode] with the route's overrides */
    const sluice_strlist *allowed_operations; /* empty list on the default route */
    const sluice_strlist *groups;             /* NULL on the default route */
    const char *database; /* the backend its code runs on: a [database]/[[databases]] name */
    bool is_default;
} sluice_policy_route;

/* Opens the backend the config names (reads and parses policy, entity and schema files, checks
 * the command exists). Without a [policy] table (or with backend "none") there is no evaluator
 * and the configuration rules alone decide: a warning is logged saying so. Errors name the file
 * and place. The config must outlive the policy. */
sluice_status sluice_policy_open(const sluice_config *config,
                                 sluice_policy **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err);
void sluice_policy_close(sluice_policy *policy);

/* "cedar" | "command" | "none" */
const char *sluice_policy_backend_name(const sluice_policy *policy);
/* Hex SHA-256 over the backend, its files (policy text, entities, schema), the command and the
 * routes: any change gives a new version and invalidates tokens issued before it. */
const char *sluice_policy_version(const sluice_policy *policy);
/* The policy file's name (for rendering source lines), NULL unless cedar. */
const char *sluice_policy_source(const sluice_policy *policy);

/* The caller's route (never NULL). */
const sluice_policy_route *sluice_policy_route_for(const sluice_policy *policy,
                                                   const sluice_identity *who);
/* The default route (code_mode.server_id with the [code_mode] rules). */
const sluice_policy_route *sluice_policy_default_route(const sluice_policy *policy);
/* The most permissive rules of all routes, for opening the engine: it must be writable when
 * any route may write (and validate_code offers "execute" when any route may run on validate).
 * Per caller, the analysis enforces the route's own rules. */
const sluice_config_code_mode *sluice_policy_engine_rules(const sluice_policy *policy);

/* Evaluates one request. facts NULL means "no code yet" (an empty script context, used to
 * summarise what a caller may do). Fails only on SLUICE_E_NOMEM; everything else is a deny
 * with errors. Strings live in arena; out->request must be decref'd. */
sluice_status sluice_policy_evaluate(const sluice_policy *policy,
                                     sluice_arena *arena,
                                     const sluice_identity *who,
                                     const sluice_policy_route *route,
                                     sluice_action action,
                                     const sluice_codefacts *facts,
                                     sluice_policy_decision *out,
                                     sluice_error *err);

/* The forbid policies that apply whatever the caller is permitted (cedar; 0 otherwise). */
size_t
sluice_policy_forbids(const sluice_policy *policy, sluice_arena *arena, sluice_policy_reason **out);

/* True when the policy has an evaluator (cedar or command). */
bool sluice_policy_active(const sluice_policy *policy);

/* The request as the backends see it: {principal:{type,id}, groups:[..], action:{type,id},
 * resource:{type,id,attrs:{..}}, context:{..}}. New reference; NULL on NOMEM. */
json_t *sluice_policy_request_json(const sluice_policy *policy,
                                   const sluice_identity *who,
                                   const sluice_policy_route *route,
                                   sluice_action action,
                                   const sluice_codefacts *facts);

/* The decision as a verdict: on deny, refused with one violation per reason (rule "policy", or
 * "policy_error" for evaluation errors). Untouched on allow. SLUICE_E_NOMEM when a reason could
 * not be recorded (the verdict refuses all the same). */
sluice_status sluice_policy_verdict(const sluice_policy_decision *decision,
                                    sluice_action action,
                                    const sluice_policy_route *route,
                                    sluice_verdict *verdict);

/* The database role the caller's code runs as on route (caller_roles: the first entry, in file
 * order, one of whose groups the caller is in; else caller_default_role): *role NULL when the
 * route maps no role (code runs as the connection's own role). A caller in none of the mapped
 * groups on a route without caller_default_role is refused: verdict gets rule "caller_roles",
 * naming the groups that map (fail closed: never the read role's wider view instead). Returns
 * SLUICE_E_NOMEM when the reason could not be recorded (the verdict refuses all the same). */
sluice_status sluice_policy_db_role(const sluice_policy_route *route,
                                    const sluice_identity *who,
                                    const char **role,
                                    sluice_verdict *verdict);

#endif
