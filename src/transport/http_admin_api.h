/*
 * http_admin_api.h — what the admin console's API files share inside the transport layer: the
 * reply helpers (every answer with the console's security headers) and the policy and export
 * routes (http_admin_policy.c, http_admin_export.c), called by http_admin.c once the
 * administrator key was checked.
 *
 * Owns: those declarations (the helpers: http_admin_reply.c). Does not own: routing and the
 * credential check (http_admin.c, which calls these; nothing here calls it).
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_API_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_API_H

#include "core/arena.h"
#include "core/strlist.h"
#include "transport/http_admin_state.h"

#include <jansson.h>
#include <stddef.h>

/* Queues body (copied) with status, type and the headers every admin answer carries
 * (Content-Security-Policy, no-store, nosniff, DENY framing); challenge: a WWW-Authenticate
 * value or NULL. The MHD result. */
int sluice_http_admin_reply(struct MHD_Connection *c,
                            unsigned status,
                            const char *type,
                            const void *body,
                            size_t len,
                            const char *challenge);
/* Sends doc (stolen) as JSON; 500 when it could not be built (fail closed, never half). */
int sluice_http_admin_reply_json(struct MHD_Connection *c, unsigned status, json_t *doc);
int sluice_http_admin_reply_error(struct MHD_Connection *c, unsigned status, const char *message);

/* A string list as a JSON array (NULL when memory runs out). */
json_t *sluice_http_admin_strlist(const sluice_strlist *l);

/* Audits an administrator's action (event "admin", the `as` query value as user, auth
 * "admin-http") with fields (stolen). False when the record could not be written: the caller
 * then refuses the action (every console action is on the audit trail, or it does not happen). */
bool sluice_http_admin_audit(sluice_http_admin *admin,
                             struct MHD_Connection *c,
                             const char *action,
                             json_t *fields);

/* The console's trail: the last max records of every chain this server audits to — the file
 * log and its writer chains "<log>.wN", or the PostgreSQL table replicas share — newest first,
 * each with its "chain". *source names the log or table; NULL (and NULL returned) when no audit
 * is configured. NULL with *source set: it could not be read (why says so, for the reply). */
json_t *sluice_http_admin_trail(
    sluice_http_admin *admin, size_t max, const char **source, char *why, size_t cap);

/* GET /admin/api/policies: the policy backend, the Cedar policy set in effect (its text), the
 * route map (which groups reach which server id, database and overrides). */
int sluice_http_admin_policies(sluice_http_admin *admin, struct MHD_Connection *c);

/* GET /admin/api/evaluate?user=U&groups=G1,G2&code=...: "would this user be allowed to run
 * this code?" — the route, the decision, the determining policies, the facts the policies saw
 * and the configuration rules' violations; audited. Never runs the code. */
int sluice_http_admin_evaluate(sluice_http_admin *admin, struct MHD_Connection *c);

/* GET /admin/api/audit/export?format=jsonl|csv&q=TEXT&event=E: the recent audit records that
 * match (the console's own filter) as a download; audited. */
int sluice_http_admin_export(sluice_http_admin *admin, struct MHD_Connection *c);

/* GET /admin/api/programs: every saved program's latest version (codemode/program.h) with
 * its status — "runs", or "demoted" / "disabled" with the reason — code, parameters (its input
 * schema), action, risk, promoter, and the engine's estimate recorded with its promotion. */
int sluice_http_admin_programs(sluice_http_admin *admin, struct MHD_Connection *c);

/* POST /admin/api/programs/<action> (action "promote" or "demote"; the key was checked): body
 * promote {"name", "code", "language"?, "variables"?, "parameters"?, "description"?, "as"?,
 * "groups"?}: the code is judged for "as" (default "admin") with those groups as validate_code
 * judges it and saved only when valid, its parameters derived from the example variables (or
 * given); demote {"name", "reason"?, "as"?}. Both audited with "as" as the user, auth
 * "admin-http". Returns the HTTP status with *out_body (JSON in arena): 200 the record written;
 * 400 bad body (which field, what it must be); 404 no such program, or saved programs are off;
 * 409 already demoted; 422 the code is not valid (the first violation); 500 the server failed
 * (nothing is answered 200 after a failure). */
int sluice_http_admin_program_post(sluice_http_admin *admin,
                                   const char *action,
                                   const char *body,
                                   size_t len,
                                   sluice_arena *arena,
                                   const char **out_body);

#endif
