/*
 * class_policy.h — the class policy of OpenAPI calls: which read, write, delete and admin
 * operations a plan may call (pmcp-code-mode 0.7's OpenApiClassPolicy keys, enforced natively).
 *
 * Owns: the mode of each class (read_mode .. admin_mode, or derived from the openapi_* switches
 * and lists as pmcp derives it), blocked methods and operations (openapi_blocked_writes, in
 * every class), blocked path globs (openapi_blocked_paths), the allowlists, and matching a call
 * (a path template with run-time segments, or a resolved path) against them.
 * Does not own: an operation's class (exec/openapi_spec.c: the catalog category, action_tags, the
 * spec's x-sluice-category, else the method), refusing a plan (lang/js/analyze.c), the run-time
 * call (exec/openapi.c).
 *
 * A template's run-time segment ("{}" or "{id}") may hold any characters but '/': the executor
 * percent-encodes the value into one segment. A path is blocked when some value of its
 * run-time segments lands under a blocked glob, so a template cannot reach a blocked path that
 * a literal could not.
 */
#ifndef SLUICE_FACTS_CLASS_POLICY_H
#define SLUICE_FACTS_CLASS_POLICY_H

#include "config/config.h"
#include "core/arena.h"
#include "facts/codefacts.h"

#include <stdbool.h>

typedef struct sluice_class_call {
    const char *method; /* "GET" (any case) */
    const char *path;   /* "/users/{}", "/users/{id}" or "/users/7" */
    const char *op_id;  /* the matched operation's id, NULL when none */
    sluice_action action;
} sluice_class_call;

typedef struct sluice_class_refusal {
    const char *rule; /* the key that refuses: "openapi_blocked_paths", "write_mode", ... */
    const char *why;  /* "is under a blocked path", names no caller value */
    const char *hint; /* what an administrator could change */
} sluice_class_refusal;

/* The mode governing class a under cm (derived when the key is not written). */
sluice_class_mode sluice_class_policy_mode(const sluice_config_code_mode *cm, sluice_action a);

/* "deny_all", ... for a mode that is not DERIVED. */
const char *sluice_class_policy_mode_name(sluice_class_mode m);

/* Whether call is allowed under cm. false fills *out (static strings, or arena text); a call
 * the check cannot finish (no memory, a path past the matcher's bound) is refused, never
 * allowed. cm NULL: only reads are allowed. */
bool sluice_class_policy_allows(sluice_arena *arena,
                                const sluice_config_code_mode *cm,
                                const sluice_class_call *call,
                                sluice_class_refusal *out);

/* Only the blocks (methods, operations, paths): what does not depend on the caller's route,
 * so the run re-checks it on the resolved path. Same contract as sluice_class_policy_allows. */
bool sluice_class_policy_blocks_allow(sluice_arena *arena,
                                      const sluice_config_code_mode *cm,
                                      const sluice_class_call *call,
                                      sluice_class_refusal *out);

/* Whether some value of path's run-time segments falls under the glob pattern (case ignored;
 * '*' matches any run; a pattern without '*' covers the path and everything below it).
 * Exposed for tests. -1 when the matcher cannot decide (no memory, too long). */
int sluice_class_policy_path_blocked(sluice_arena *arena, const char *pattern, const char *path);

#endif
