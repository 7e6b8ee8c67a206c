/*
 * http_admin_approval.h — POST /admin/approvals/<id> {"decision": "approve" | "reject", "as":
 * NAME}: the administrator's decision over HTTP.
 *
 * Owns: the endpoint's own credential ([admin] key_sha256 or key_env, sent as
 * "Authorization: Bearer <admin key>", compared as SHA-256 digests in constant time; never an
 * MCP API key or token), the request and answer bodies, and the audit record of each decision.
 * Answers: 200 {"id","state","decided_by"}; 400 bad body; 401 bad or missing key (with a
 * WWW-Authenticate challenge); 404 unknown id; 409 already decided or expired; 429 after
 * SLUICE_ADMIN_FAILURES_PER_WINDOW wrong keys in a window (a rate limit on guessing).
 * Does not own: the decision rules (approval.h, approval_file.c), HTTP itself (transport/http.c).
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_APPROVAL_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_APPROVAL_H

#include "codemode/runtime.h"
#include "config/config.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SLUICE_APPROVAL_HTTP_PREFIX "/admin/approvals/"
/* Wrong admin keys tolerated per window before every check fails until the window ends. */
#define SLUICE_ADMIN_FAILURES_PER_WINDOW 10
#define SLUICE_ADMIN_FAILURE_WINDOW_S    60
#define SLUICE_ADMIN_BAD_KEY_TEXT \
    "send the administrator key ([admin]) as 'Authorization: Bearer <key>'"
#define SLUICE_ADMIN_THROTTLED_TEXT "too many wrong administrator keys; wait a minute and try again"

typedef struct sluice_approval_http {
    sluice_runtime *rt;       /* its approval store, audit sink and clock */
    unsigned char digest[32]; /* SHA-256 of the admin key */
    atomic_int failures;      /* wrong keys in the current window */
    _Atomic int64_t window_start;
} sluice_approval_http;

typedef enum sluice_admin_auth {
    SLUICE_ADMIN_OK,
    SLUICE_ADMIN_BAD_KEY,   /* answer 401 with a challenge */
    SLUICE_ADMIN_THROTTLED, /* answer 429 */
} sluice_admin_auth;

/* Checks "Authorization: Bearer <admin key>" (constant time), counting failures against the
 * rate limit. Thread-safe. The console's GET endpoints use it too (transport/http_admin.c). */
sluice_admin_auth sluice_approval_http_check(sluice_approval_http *h, const char *authorization);

/* SLUICE_E_NOT_FOUND when [admin] sets no key or rt (NULL without code mode) has no approval
 * store (then the endpoint is not served); SLUICE_E_CONFIG when key_env is unset or shorter
 * than 16 bytes. rt must outlive h. */
sluice_status sluice_approval_http_init(sluice_approval_http *h,
                                        sluice_runtime *rt,
                                        const sluice_config_admin *admin,
                                        sluice_arena *err_arena,
                                        sluice_error *err);

/* A sluice_http_post_fn; ctx is a sluice_approval_http. */
int sluice_approval_http_post(void *ctx,
                              const char *path,
                              const char *authorization,
                              const char *body,
                              size_t len,
                              sluice_arena *arena,
                              const char **out_body,
                              const char **www_authenticate);

#endif
