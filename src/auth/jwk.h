/*
 * jwk.h — JSON Web Keys (RFC 7517) read from a JWKS document and turned into PEM public keys.
 *
 * Owns: parsing a JWKS ({"keys":[...]}) with jansson, checking each key (RSA with n and e, at
 * least 2048 bits; EC on P-256 with 32-byte x and y), and encoding it as a PEM
 * SubjectPublicKeyInfo (DER built here, base64 via libsodium) that libjwt/OpenSSL can load.
 * A key with private parts ("d", "p", ...) makes the whole file an error: a JWKS published to a
 * resource server holds public keys only. Keys of other types (oct, OKP, P-384, ...) and keys
 * whose "use" is not "sig" are skipped, not errors.
 * Does not own: choosing a key for a token, or verifying signatures (jwt.c).
 */
#ifndef SLUICE_AUTH_JWK_H
#define SLUICE_AUTH_JWK_H

#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>

typedef enum sluice_jwk_kind {
    SLUICE_JWK_RSA = 0,     /* verifies RS256 */
    SLUICE_JWK_EC_P256 = 1, /* verifies ES256 */
} sluice_jwk_kind;

typedef struct sluice_jwk {
    sluice_jwk_kind kind;
    const char *kid; /* NULL when the key has none */
    const char *alg; /* NULL when the key does not pin one */
    const char *pem; /* "-----BEGIN PUBLIC KEY-----\n...", NUL-terminated */
    size_t pem_len;
} sluice_jwk;

typedef struct sluice_jwks {
    sluice_jwk *keys;
    size_t count;
} sluice_jwks;

/* Parses a JWKS document of len bytes into out (everything in arena). SLUICE_E_INVALID with err
 * naming the key (by index and kid) and what is wrong with it. */
sluice_status sluice_jwks_parse(
    sluice_arena *arena, const char *text, size_t len, sluice_jwks *out, sluice_error *err);

/* Base64url without padding (RFC 7515 §2) into arena; SLUICE_E_INVALID when malformed or longer
 * than max bytes decoded. */
sluice_status sluice_jwk_b64url_decode(sluice_arena *arena,
                                       const char *in,
                                       size_t in_len,
                                       size_t max,
                                       unsigned char **out,
                                       size_t *out_len);

#endif
