/*
 * from_config.h — the HTTP authenticator and metadata the configuration asks for.
 *
 * Owns: turning [[api_keys]] and [auth] into one sluice_authenticator (API keys, JWTs, or
 * either), the canonical resource URL (from [auth] resource_url, else the listen address), and
 * the protected resource metadata that goes with it.
 * Does not own: any check itself (apikey.c, jwt.c, either.c, prm.c).
 */
#ifndef SLUICE_AUTH_FROM_CONFIG_H
#define SLUICE_AUTH_FROM_CONFIG_H

#include "auth/identity.h"
#include "auth/prm.h"
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sluice_http_auth {
    const char *resource_url;   /* canonical MCP URL; NULL on port 0 without JWTs (the
                                   transport then derives it from the bound port) */
    sluice_authenticator *auth; /* NULL: no authentication configured */
    bool has_prm;               /* JWTs configured: serve prm through get_handler */
    sluice_prm prm;
} sluice_http_auth;

/* Fills out for a server bound to host:port (host as in a URL: IPv6 without brackets is
 * bracketed here). SLUICE_E_CONFIG when JWTs are configured on port 0 without resource_url
 * (the audience would be unknowable), or when a key file is wrong. Strings in arena; free
 * out->auth with out->auth->destroy. */
sluice_status sluice_auth_from_config(const sluice_config *config,
                                      const char *host,
                                      uint16_t port,
                                      sluice_arena *arena,
                                      sluice_http_auth *out,
                                      sluice_error *err);

#endif
