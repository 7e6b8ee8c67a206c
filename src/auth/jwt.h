/*
 * jwt.h — OAuth 2.1 resource server: a sluice_authenticator over bearer JWTs (libjwt 1.10).
 *
 * Owns: reading "Authorization: Bearer <JWT>", choosing the verification key from the token's
 * header BEFORE libjwt sees it (RS256 → an RSA key, ES256 → an EC P-256 key, HS256 → the
 * configured secret only; anything else, "none" included, is refused, so a token can never pick
 * an algorithm that turns a public key into an HMAC secret), selecting by "kid" (refused when
 * no key or several keys match), re-reading the JWKS file when its mtime changes, and checking
 * iss, aud (this server's audience only: no token passthrough), exp and nbf with bounded clock
 * skew. The user id and groups come from configurable claims. EdDSA is not accepted: libjwt
 * 1.10 has no Ed25519 support.
 * Failures answer WWW-Authenticate: Bearer realm="sluice", resource_metadata="<PRM URL>" and,
 * when a token was presented, error="invalid_token", error_description="...". Tokens are never
 * logged, kept, or handed on.
 * Does not own: the metadata document (prm.c), API keys (apikey.c), what a user may do.
 */
#ifndef SLUICE_AUTH_JWT_H
#define SLUICE_AUTH_JWT_H

#include "auth/identity.h"
#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>
#include <stdint.h>

/* Shortest HS256 secret accepted (RFC 7518 §3.2: at least the hash size). */
#define SLUICE_JWT_MIN_SECRET_BYTES 32u

typedef struct sluice_jwt_options {
    const char *jwks_file;         /* RS256 / ES256 keys; may be NULL when hs256_secret_file set */
    const char *hs256_secret_file; /* NULL: HS256 refused */
    const char *issuer;            /* required */
    const char *audience;          /* required: this server's resource URL by default */
    const char *user_claim;        /* default "sub" */
    const char *groups_claim;      /* default "groups" */
    int64_t clock_skew_seconds;
    const char *resource_metadata_url; /* for the challenge; required */
} sluice_jwt_options;

/* Builds the authenticator: loads the JWKS file and secret now (SLUICE_E_CONFIG with err naming
 * the file and what is wrong). Free with out->destroy(out). */
sluice_status sluice_jwt_new(const sluice_jwt_options *options,
                             sluice_authenticator **out,
                             sluice_arena *err_arena,
                             sluice_error *err);

/* Verifies one token at time now (Unix seconds). SLUICE_OK fills *out (strings in arena);
 * SLUICE_E_AUTH sets *problem to a fixed, token-free description. For tests and for the
 * authenticate hook, which calls it with the current time. */
sluice_status sluice_jwt_verify(const sluice_authenticator *auth,
                                sluice_arena *arena,
                                const char *token,
                                size_t token_len,
                                int64_t now,
                                sluice_identity *out,
                                const char **problem);

#endif
