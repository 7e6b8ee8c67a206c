/*
 * from_config.c — [[api_keys]] + [auth] → the HTTP authenticator (see from_config.h).
 */
#include "auth/from_config.h"

#include "auth/apikey.h"
#include "auth/either.h"
#include "auth/jwt.h"

#include <string.h>

static sluice_status jwt_from_config(const sluice_config *config,
                                     const char *resource_url,
                                     sluice_arena *arena,
                                     sluice_authenticator **out,
                                     sluice_error *err)
{
    const sluice_config_auth *a = &config->auth;
    sluice_jwt_options o = {
        .jwks_file = a->jwks_file,
        .hs256_secret_file = a->hs256_secret_file,
        .issuer = a->issuer,
        .audience = a->audience != NULL ? a->audience : resource_url,
        .user_claim = a->user_claim,
        .groups_claim = a->groups_claim,
        .clock_skew_seconds = a->clock_skew_seconds,
        .resource_metadata_url = sluice_prm_metadata_url(arena, resource_url),
    };
    if (o.resource_metadata_url == NULL)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "[auth] resource_url '%s' is not an http(s) URL", resource_url);
    return sluice_jwt_new(&o, out, arena, err);
}

sluice_status sluice_auth_from_config(const sluice_config *config,
                                      const char *host,
                                      uint16_t port,
                                      sluice_arena *arena,
                                      sluice_http_auth *out,
                                      sluice_error *err)
{
    memset(out, 0, sizeof *out);
    const sluice_config_auth *a = &config->auth;
    bool jwt = a->jwks_file != NULL || a->hs256_secret_file != NULL;
    if (jwt && a->resource_url == NULL && port == 0)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "[auth] needs resource_url when listening on port 0: tokens must "
                                "name this server as their audience");
    bool v6 = strchr(host, ':') != NULL;
    if (a->resource_url != NULL)
        out->resource_url = a->resource_url;
    else if (port != 0 &&
             (out->resource_url = sluice_arena_printf(arena, "http://%s%s%s:%u/mcp", v6 ? "[" : "",
                                                      host, v6 ? "]" : "", (unsigned)port)) == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    sluice_authenticator *keys = NULL, *tokens = NULL;
    sluice_status st = SLUICE_OK;
    if (config->api_key_count > 0)
        st = sluice_apikey_new(config->api_keys, config->api_key_count, &keys, arena, err);
    if (st == SLUICE_OK && jwt)
        st = jwt_from_config(config, out->resource_url, arena, &tokens, err);
    if (st != SLUICE_OK) {
        if (keys != NULL)
            keys->destroy(keys);
        return st;
    }
    if (keys != NULL && tokens != NULL)
        st = sluice_auth_either_new(tokens, keys, &out->auth);
    else
        out->auth = tokens != NULL ? tokens : keys;
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, st, "out of memory");
    out->has_prm = jwt;
    out->prm = (sluice_prm){
        .resource = out->resource_url,
        .authorization_servers = &a->authorization_servers,
        .scopes_supported = &a->scopes_supported,
        .resource_name = a->resource_name != NULL ? a->resource_name : config->server.name,
    };
    return SLUICE_OK;
}
