/*
 * http_guard.h — the Host and Origin checks of the HTTP transport (DNS rebinding, cross-site
 * requests).
 *
 * Owns: deciding whether a Host header and an Origin header are acceptable, against an
 * allowlist or, when none is configured, loopback only (localhost, 127.0.0.1, [::1], any port).
 * Does not own: the HTTP answers to a refusal (http.c), authentication (auth/).
 */
#ifndef SLUICE_TRANSPORT_HTTP_GUARD_H
#define SLUICE_TRANSPORT_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_http_guard {
    const char *const *allowed_origins; /* exact "scheme://host[:port]"; none: loopback */
    size_t allowed_origin_count;
    const char *const *allowed_hosts; /* "host" (any port) or "host:port"; none: loopback */
    size_t allowed_host_count;
} sluice_http_guard;

/* Whether the Host header value is allowed; a missing (NULL) or malformed one never is. */
bool sluice_http_host_allowed(const sluice_http_guard *guard, const char *host);

/* Whether the Origin header value is allowed; a missing one (NULL: not a browser) always is.
 * An allowlist entry without a port matches that scheme and host on any port. */
bool sluice_http_origin_allowed(const sluice_http_guard *guard, const char *origin);

#endif
