/*
 * fuzz_jwt.c — libFuzzer target for the JWT front door: the first byte picks JWKS parsing
 * (sluice_jwks_parse: JSON, base64url, the DER/PEM encoder) or bearer token checking
 * (sluice_jwt_verify with an HS256 secret: shape, header, alg and kid choice, claims).
 * Seeds: tests/fuzz/corpus/fuzz_jwt/ (from tests/unit/data/jwt/).
 */
#include "auth/jwk.h"
#include "auth/jwt.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One HS256 authenticator for the whole run (its secret in a temporary file). */
static sluice_authenticator *authenticator(void)
{
    static sluice_authenticator *auth;
    if (auth != NULL)
        return auth;
    char path[] = "/tmp/sluice-fuzz-jwt-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, "0123456789abcdef0123456789abcdef", 32) != 32)
        abort();
    close(fd);
    sluice_jwt_options o = { .hs256_secret_file = path,
                             .issuer = "https://as.example.com",
                             .audience = "https://mcp.example.com/mcp",
                             .clock_skew_seconds = 60,
                             .resource_metadata_url = "https://mcp.example.com/.well-known/x" };
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    if (sluice_jwt_new(&o, &auth, arena, &err) != SLUICE_OK)
        abort();
    sluice_arena_free(arena);
    unlink(path);
    return auth;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    sluice_arena *arena = sluice_arena_new();
    if (data[0] & 1) {
        sluice_jwks keys;
        sluice_error err;
        sluice_jwks_parse(arena, (const char *)data + 1, size - 1, &keys, &err);
    } else {
        char *token = sluice_arena_strndup(arena, (const char *)data + 1, size - 1);
        sluice_identity who;
        const char *problem = NULL;
        if (token != NULL)
            sluice_jwt_verify(authenticator(), arena, token, size - 1, 1900000000, &who, &problem);
    }
    sluice_arena_free(arena);
    return 0;
}
