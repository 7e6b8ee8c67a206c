/*
 * identity.h — who is calling: the identity every request carries, and the hook that finds it.
 *
 * Owns: sluice_identity (user, groups, how it was established) and the authenticator interface
 * the HTTP transport calls once per request. Today: static API keys (apikey.c, constant-time
 * compare) and the stdio identity from config/environment. OAuth bearer JWTs (issue 4) plug in
 * as another sluice_authenticator without touching the transports.
 * Does not own: what an identity may do (policy/), nor sessions (sessions are not identities).
 */
#ifndef SLUICE_AUTH_IDENTITY_H
#define SLUICE_AUTH_IDENTITY_H

#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>

typedef struct sluice_identity {
    const char *user_id;       /* never NULL for an authenticated request */
    const char *const *groups; /* group names */
    size_t group_count;
    const char *method; /* "stdio-config", "stdio-env", "api-key", "jwt", "none" */
} sluice_identity;

/* What the HTTP transport hands the authenticator: only headers, never the body. */
typedef struct sluice_auth_request {
    const char *authorization; /* Authorization header or NULL */
    const char *api_key;       /* X-API-Key header or NULL */
    const char *resource_url;  /* this server's canonical /mcp URL (for audiences, challenges) */
} sluice_auth_request;

/* On failure the transport answers 401 with www_authenticate as the WWW-Authenticate header. */
typedef struct sluice_auth_failure {
    const char *www_authenticate; /* e.g. Bearer realm="sluice", resource_metadata="..." */
    const char *message;          /* for the client body and the audit log; no secrets */
} sluice_auth_failure;

typedef struct sluice_authenticator sluice_authenticator;

struct sluice_authenticator {
    /* Fills *out (strings in arena) and returns SLUICE_OK, or SLUICE_E_AUTH with *failure. */
    sluice_status (*authenticate)(const sluice_authenticator *self,
                                  sluice_arena *arena,
                                  const sluice_auth_request *request,
                                  sluice_identity *out,
                                  sluice_auth_failure *failure);
    void (*destroy)(sluice_authenticator *self);
    void *state;
};

/* Copies an identity into arena (deep), so it can outlive the request that produced it. */
sluice_status
sluice_identity_copy(sluice_arena *arena, const sluice_identity *from, sluice_identity *to);

/* True when identity is a member of group. */
int sluice_identity_in_group(const sluice_identity *identity, const char *group);

#endif
