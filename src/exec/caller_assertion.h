/*
 * caller_assertion.h — the short-lived assertion sluice mints and signs for an HTTP upstream so
 * the upstream can authorise per user (issue 24): who the caller is, never the caller's own
 * token (no confused deputy: the upstream sees sluice vouching for a user, with an audience that
 * is only it and an expiry no later than the execution's timeout).
 *
 * Owns: the key ([database] caller_assertion_secret_env / _file, at least 32 bytes), the claims
 * and their encoding: a compact JWS (RFC 7515) with HS256 over
 * {"iss": server id, "sub": user, "groups": [...], "aud": audience, "iat", "exp", "jti"},
 * and the header line "<caller_assertion_header>: <jws>". Used by the GraphQL and OpenAPI
 * backends. Does not own: which requests carry it (each backend adds it to every upstream
 * request of a call), the server-side credential (http_credential.h), or verification (the
 * upstream's; docs/graphql.md shows it).
 */
#ifndef SLUICE_EXEC_CALLER_ASSERTION_H
#define SLUICE_EXEC_CALLER_ASSERTION_H

#include "auth/identity.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <stdint.h>

typedef struct sluice_caller_assertion sluice_caller_assertion;

/* Reads the key the database names into arena (which must outlive the result) and fixes issuer
 * and audience (caller_assertion_audience, else the endpoint). *out NULL when the database sets
 * no caller_assertion_header. SLUICE_E_CONFIG (a key shorter than 32 bytes, an unset variable),
 * SLUICE_E_IO, SLUICE_E_NOMEM; err in err_arena. */
sluice_status sluice_caller_assertion_open(const sluice_config_database *db,
                                           const char *issuer,
                                           const char *endpoint,
                                           sluice_arena *arena,
                                           sluice_caller_assertion **out,
                                           sluice_arena *err_arena,
                                           sluice_error *err);

/* The header line for who, valid from now_s for ttl_s seconds (at least 1), in arena.
 * SLUICE_E_DENIED when who has no user (an assertion about nobody is never sent: the call is
 * refused), SLUICE_E_NOMEM. */
sluice_status sluice_caller_assertion_header(const sluice_caller_assertion *a,
                                             sluice_arena *arena,
                                             const sluice_identity *who,
                                             int64_t now_s,
                                             int64_t ttl_s,
                                             const char **line,
                                             sluice_error *err);

/* The lifetime of an assertion for a call with this timeout: its whole seconds, at least 1 and
 * never more than the timeout rounded up (0 = no timeout: 60 s). */
int64_t sluice_caller_assertion_ttl(int64_t timeout_ms);

#endif
