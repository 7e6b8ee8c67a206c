/*
 * prm.h — OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint.
 *
 * Owns: the metadata document {resource, authorization_servers, scopes_supported,
 * bearer_methods_supported:["header"], resource_name}, served at both the root well-known path
 * /.well-known/oauth-protected-resource and the path-aware one
 * /.well-known/oauth-protected-resource<resource path> (e.g. .../mcp), through the HTTP
 * transport's get_handler; and the path-aware URL the 401 challenge points at.
 * Does not own: tokens (jwt.c), the authorization server.
 */
#ifndef SLUICE_AUTH_PRM_H
#define SLUICE_AUTH_PRM_H

#include "config/config.h"
#include "core/arena.h"

#define SLUICE_PRM_WELL_KNOWN "/.well-known/oauth-protected-resource"

typedef struct sluice_prm {
    const char *resource; /* canonical MCP URL, e.g. https://mcp.example.com/mcp */
    const sluice_strlist *authorization_servers;
    const sluice_strlist *scopes_supported;
    const char *resource_name;
} sluice_prm;

/* A sluice_http_get_fn: ctx is a sluice_prm. The JSON document for either well-known path, in
 * arena; NULL for any other path (404). */
const char *sluice_prm_get(void *ctx, const char *path, sluice_arena *arena);

/* "<scheme://authority>/.well-known/oauth-protected-resource<path of resource>" in arena; NULL
 * when resource is not an absolute http(s) URL or memory runs out. */
char *sluice_prm_metadata_url(sluice_arena *arena, const char *resource);

#endif
