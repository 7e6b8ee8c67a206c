/*
 * openapi_http.h — the OpenAPI backend's HTTP side: sluice's own credential, libcurl hardening,
 * the SSRF guard, and many requests of one plan in flight at once (libcurl multi).
 *
 * Owns: the upstream (base URL, credential read once from a file or the environment, never the
 * caller's), per-request hardening (http/https only, redirects off, TLS peer and host
 * verification on, the timeout from the plan's deadline, the response size cap), the SSRF guard
 * (a connection to a loopback, private, link-local, unspecified or multicast address is refused
 * unless the configured base URL itself names such a host), and the concurrent transfers.
 * Does not own: which request may be sent (openapi_match.c and openapi.c decide).
 *
 * Threads: an upstream is shared and read-only after open; a run is one plan's and is used by
 * one thread.
 */
#ifndef SLUICE_EXEC_OPENAPI_HTTP_H
#define SLUICE_EXEC_OPENAPI_HTTP_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sluice_openapi_upstream sluice_openapi_upstream;
typedef struct sluice_openapi_run sluice_openapi_run;

/* The upstream db describes; base_url is db->endpoint, else spec_server_url. Everything in
 * arena. SLUICE_E_CONFIG (no base URL, not http(s), an empty credential or one with control
 * characters, auth_token_env not set), SLUICE_E_IO (auth_token_file unreadable),
 * SLUICE_E_NOMEM. */
sluice_status sluice_openapi_upstream_open(sluice_arena *arena,
                                           const sluice_config_database *db,
                                           const char *spec_server_url,
                                           sluice_openapi_upstream **out,
                                           sluice_error *err);

/* The base URL requests go to (for messages). */
const char *sluice_openapi_upstream_base(const sluice_openapi_upstream *up);

/* A run whose requests all end by deadline_ns (monotonic; 0: none), each with the header line
 * caller_header (the caller assertion, exec/caller_assertion.h; NULL: none; it must outlive the
 * run). NULL on NOMEM. Its resources go with sluice_openapi_run_free (transfers still in flight
 * are abandoned). */
sluice_openapi_run *sluice_openapi_run_new(const sluice_openapi_upstream *up,
                                           int64_t deadline_ns,
                                           const char *timeout_setting,
                                           const char *caller_header);
void sluice_openapi_run_free(sluice_openapi_run *run);

/* One request of the run. */
typedef struct sluice_openapi_request {
    const char *method;          /* "GET", ... */
    const char *path;            /* percent-encoded, starting with '/' */
    const char *query;           /* "a=1&b=x" already encoded, or NULL */
    const char *body;            /* JSON text, or NULL */
    const char *idempotency_key; /* sent as Idempotency-Key, or NULL */
} sluice_openapi_request;

/* Starts req; returns at once with *ticket. SLUICE_OK, SLUICE_E_TIMEOUT (the deadline passed),
 * SLUICE_E_NOMEM. */
sluice_status sluice_openapi_run_start(sluice_openapi_run *run,
                                       sluice_arena *arena,
                                       const sluice_openapi_request *req,
                                       uint64_t *ticket,
                                       sluice_error *err);

/* Waits for ticket (every other transfer moves meanwhile). SLUICE_OK: *status the HTTP status,
 * *body (arena, NUL-terminated) and *len the response. Failures: SLUICE_E_ENGINE (the upstream
 * could not be reached, or the guard refused its address: err says which), SLUICE_E_TIMEOUT
 * (the deadline; err names the timeout setting), SLUICE_E_LIMIT (the response is larger than
 * max_response_bytes), SLUICE_E_NOMEM. */
sluice_status sluice_openapi_run_wait(sluice_openapi_run *run,
                                      sluice_arena *arena,
                                      uint64_t ticket,
                                      long *status,
                                      const char **body,
                                      size_t *len,
                                      sluice_error *err);

#endif
