/*
 * http_credential.h — the server-side credential an HTTP backend sends upstream
 * ([database] auth_token_env / auth_token_file, auth_scheme, auth_header), shared by the GraphQL
 * and OpenAPI backends.
 *
 * Owns: where a credential comes from (the variable when named, else the file's first line, at most
 * SLUICE_LIMIT_HTTP_CREDENTIAL_BYTES), the rule that it is neither empty nor holds control bytes,
 * and the header line "<auth_header>: <scheme> <value>". Used by the GraphQL and OpenAPI backends
 * and the Streamable HTTP transport to downstream MCP servers. Does not own: how a backend
 * attaches it (a header, basic auth, a query parameter); never the caller's own token.
 */
#ifndef SLUICE_EXEC_HTTP_CREDENTIAL_H
#define SLUICE_EXEC_HTTP_CREDENTIAL_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

/* The credential named by env (an environment variable) or else file (its first line) into
 * *out (malloc'd; the caller wipes and frees it; NULL when both are NULL). key prefixes the keys
 * in messages ("[database] auth_token" -> "[database] auth_token_env names ..."). SLUICE_E_CONFIG
 * when the variable is unset or the value is empty or holds control characters, SLUICE_E_IO when
 * the file cannot be read, SLUICE_E_NOMEM. */
sluice_status sluice_http_credential_read(const char *key,
                                          const char *env,
                                          const char *file,
                                          char **out,
                                          sluice_arena *err_arena,
                                          sluice_error *err);

/* "<auth_header or Authorization>: <auth_scheme or Bearer> <value>" in arena; NULL without
 * memory. An empty auth_scheme sends the value alone. */
char *sluice_http_credential_header(sluice_arena *arena,
                                    const sluice_config_database *db,
                                    const char *value);

#endif
