/*
 * apikey.h — a sluice_authenticator over static API keys from configuration ([[api_keys]]).
 *
 * Owns: loading keys (a SHA-256 hex digest, or the name of an environment variable holding the
 * key, hashed at load and never kept in clear), reading the presented key from
 * "Authorization: Bearer <key>" or "X-API-Key: <key>", and matching it in constant time against
 * every configured digest (sodium_memcmp over SHA-256 digests, no early exit), so neither the
 * key nor which entry matched leaks through timing. Failure challenges with
 * WWW-Authenticate: Bearer realm="sluice".
 * Does not own: what the identity may do (policy/), JWT bearer tokens (jwt.c).
 */
#ifndef SLUICE_AUTH_APIKEY_H
#define SLUICE_AUTH_APIKEY_H

#include "auth/identity.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>

/* Keys read from an environment variable must be at least this long. */
#define SLUICE_APIKEY_MIN_LENGTH 16u

/* Builds the authenticator from count config entries. SLUICE_E_CONFIG when an entry has neither
 * or both of sha256_hex and env, a digest is not 64 hex characters, the variable is unset or
 * the key in it is shorter than SLUICE_APIKEY_MIN_LENGTH; err (messages in err_arena) names the
 * user and the config line. Free with out->destroy(out). */
sluice_status sluice_apikey_new(const sluice_config_api_key *keys,
                                size_t count,
                                sluice_authenticator **out,
                                sluice_arena *err_arena,
                                sluice_error *err);

#endif
