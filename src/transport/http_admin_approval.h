/*
 * http_admin_approval.h — POST /admin/approvals/<id> {"decision": "approve" | "reject", "as":
 * NAME}: the administrator's decision over HTTP.
 *
 * Owns: the request and answer bodies and the audit record of each decision. Answers: 200
 * {"id","state","decided_by"}; 400 bad body; 404 unknown id; 409 already decided or expired.
 * Does not own: the administrator key and its rate limit (http_admin_key.h, checked once by
 * http_admin.c before it routes here), the decision rules (approval.h, approval_file.c), HTTP
 * itself (transport/http.c).
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_APPROVAL_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_APPROVAL_H

#include "codemode/runtime.h"

#include <stddef.h>

#define SLUICE_APPROVAL_HTTP_PREFIX "/admin/approvals/"

/* Decides approval id (the path after the prefix) as body says, in rt's approval store, and
 * audits it; returns the HTTP status with *out_body (JSON in arena). The key was checked. */
int sluice_approval_http_decide(sluice_runtime *rt,
                                const char *id,
                                const char *body,
                                size_t len,
                                sluice_arena *arena,
                                const char **out_body);

#endif
