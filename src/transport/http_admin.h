/*
 * http_admin.h — the operator's side of the HTTP listener: GET /metrics (Prometheus text),
 * /healthz (liveness), /readyz (readiness), and the admin console at /admin/ with its JSON API.
 *
 * Owns: those routes and their answers. /metrics, /healthz and /readyz are public (Host is
 * checked by http.c; they carry counts and rule names, never data or secrets), like the
 * protected resource metadata. The console's page, script and style are public too (static
 * files embedded at build time, served with a Content-Security-Policy that allows only
 * themselves); its data — /admin/api/approvals, /admin/api/audit, /admin/api/summary, ... — and
 * every POST under /admin/ (POST /admin/approvals/<id>, through which the console decides) need
 * the administrator key as "Authorization: Bearer <key>", checked once here, before any route,
 * by transport/http_admin_key.h (one credential, one rate limit). A bearer header, not a
 * cookie, so no other site can make the browser act (no CSRF).
 * Does not own: the MCP endpoint and request plumbing (http.c), the checks (codemode/ready.h),
 * the metrics (core/metrics.h).
 */
#ifndef SLUICE_TRANSPORT_HTTP_ADMIN_H
#define SLUICE_TRANSPORT_HTTP_ADMIN_H

#include "codemode/codemode.h"
#include "config/config.h"
#include "transport/http_admin_key.h"
#include "transport/http_admin_state.h"

#include <stdbool.h>

/* Answers a GET for url when it is one of the routes above: returns true with *ret the MHD
 * result; false (nothing queued) when url is not an admin route. */
bool sluice_http_admin_get(sluice_http_admin *admin,
                           struct MHD_Connection *c,
                           const char *url,
                           int *ret);

/* A sluice_http_post_fn (transport/http.h) for every POST under /admin/; ctx is a
 * sluice_http_admin with a key. Checks the key first, then routes (0: no such route). */
int sluice_http_admin_post(void *ctx,
                           const char *path,
                           const char *authorization,
                           const char *body,
                           size_t len,
                           sluice_arena *arena,
                           const char **out_body,
                           const char **www_authenticate);

#endif
