/*
 * checks.h — the checks of particular keys and sections (config-internal).
 *
 * Owns: value checks hung on key rows (listen address, origins, hosts, environment variable
 * names, SHA-256 digests, DuckDB memory sizes, mime types, URIs) and the cross-checks that run
 * once a table is decoded ([[api_keys]], [database], [code_mode] secrets, [[tools]] and their
 * $placeholders, [[prompts]] and their {{arguments}}, [[resources]] and their files), plus the
 * bounded file reader they share with config.c. Does not own: the key tables (config.c) or the
 * generic decoder (keys.c).
 */
#ifndef SLUICE_CONFIG_CHECKS_H
#define SLUICE_CONFIG_CHECKS_H

#include "config/keys.h"

#include <stdbool.h>
#include <stddef.h>

/* Checks every string of array v with ok: the first that fails is "'KEY' RULE, got \"S\"" at
 * its position, with hint (NULL: none) below it; SLUICE_E_CONFIG then (SLUICE_E_NOMEM when even
 * that could not be said), else SLUICE_OK. rule says what an entry must be ("entries are paths that
 * start with '/'"). */
sluice_status sluice_checks_each_entry(sluice_keys_loader *ld,
                                       const sluice_toml_value *v,
                                       const char *key,
                                       bool (*ok)(const char *s),
                                       const char *rule,
                                       const char *hint);

/* Row checks (sluice_key_check_fn). */
sluice_status sluice_checks_listen(sluice_keys_loader *ld,
                                   const sluice_toml_value *v,
                                   const char *key,
                                   void *obj);
sluice_status sluice_checks_origins(sluice_keys_loader *ld,
                                    const sluice_toml_value *v,
                                    const char *key,
                                    void *obj);
sluice_status
sluice_checks_hosts(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj);
sluice_status sluice_checks_env_name(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj);
sluice_status sluice_checks_sha256(sluice_keys_loader *ld,
                                   const sluice_toml_value *v,
                                   const char *key,
                                   void *obj);
sluice_status sluice_checks_memory_limit(sluice_keys_loader *ld,
                                         const sluice_toml_value *v,
                                         const char *key,
                                         void *obj);
sluice_status
sluice_checks_mime(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj);
sluice_status
sluice_checks_uri(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj);

/* Section cross-checks (sluice_section_spec.finish). */
sluice_status
sluice_checks_api_key(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status
sluice_checks_database(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* [[databases]]: as [database], and a name other than "default" is required. */
sluice_status
sluice_checks_named_database(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status
sluice_checks_code_mode(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status
sluice_checks_policy(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* [[code_mode.operations]]: records whether idempotent was written (absent: the method's
 * default). Never fails. */
sluice_status
sluice_checks_operation(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* [[code_mode.mcp_servers]]: exactly one of command and url; token_env / token_file only with
 * url, and not both. Fails with the position of the offending key. */
sluice_status
sluice_checks_mcp_server(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);

sluice_status
sluice_checks_policy_server(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status sluice_checks_tool(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* [[sources]] (sources.c): names, URL, credentials, headers, params, columns. */
sluice_status
sluice_checks_source(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* ^[A-Za-z_][A-Za-z0-9_]{0,63}$ — SQL parameter, column and environment variable names. */
bool sluice_checks_identifier(const char *s);
sluice_status
sluice_checks_param(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status
sluice_checks_prompt(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status
sluice_checks_resource(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);

/* Reads a whole file of at most max bytes into arena (NUL-terminated). Returns 0, an errno
 * value, EFBIG when the file is larger than max, EAGAIN when it grew while being read, or
 * EINVAL when it is not a regular file and regular_only is set (a FIFO would block forever). */
int sluice_checks_read_file(sluice_arena *arena,
                            const char *path,
                            size_t max,
                            bool regular_only,
                            char **out,
                            size_t *out_len);

/* [auth] and [admin]: an http(s) URL without whitespace or fragment; a list of them; the
 * JWT keys that need each other; exactly one admin credential. */
sluice_status
sluice_checks_url(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj);
sluice_status sluice_checks_url_list(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj);
sluice_status sluice_checks_auth(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
sluice_status sluice_checks_admin_listen(sluice_keys_loader *ld,
                                         const sluice_toml_value *v,
                                         const char *key,
                                         void *obj);
sluice_status
sluice_checks_admin(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);
/* True when a libpq conninfo string or URI carries a password (refused: inline secret). */
bool sluice_checks_conninfo_has_password(const char *conninfo);
/* [state]: one password source each, the prefix's length, the audit table's name (checks_state.c).
 */
sluice_status
sluice_checks_state(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj);

/* The OpenAPI class-policy keys (checks_openapi.c). An entry of openapi_allowed_* and
 * openapi_blocked_writes: an operation id, an HTTP method, or "METHOD /path" / "METHOD:/path". */
bool sluice_checks_operation_entry(const char *s);
sluice_status sluice_checks_operation_entries(sluice_keys_loader *ld,
                                              const sluice_toml_value *v,
                                              const char *key,
                                              void *obj);
sluice_status sluice_checks_path_globs(sluice_keys_loader *ld,
                                       const sluice_toml_value *v,
                                       const char *key,
                                       void *obj);
/* sdk_operations: each entry a JavaScript identifier a plan can write after "api." (not a
 * path-form method, "constructor", "prototype", nothing starting with "__"). */
bool sluice_checks_sdk_operation(const char *s);
sluice_status sluice_checks_sdk_operations(sluice_keys_loader *ld,
                                           const sluice_toml_value *v,
                                           const char *key,
                                           void *obj);
/* sdk_operations without any engine = "openapi" database: refused (it would configure nothing). */
sluice_status sluice_checks_sdk_engine(sluice_keys_loader *ld, const sluice_toml_value *root);
/* allowlist / blocklist modes whose lists are empty. */
sluice_status sluice_checks_class_modes(sluice_keys_loader *ld,
                                        const sluice_toml_value *table,
                                        const sluice_config_code_mode *cm);

/* The caller in the database (checks_caller.c): role names PostgreSQL keeps whole (a string or
 * a table of them), and caller_* keys on a route whose database is not PostgreSQL refused. */
sluice_status sluice_checks_pg_roles(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj);
/* An HTTP header name (RFC 9110 token): caller_assertion_header. */
sluice_status sluice_checks_header_name(sluice_keys_loader *ld,
                                        const sluice_toml_value *v,
                                        const char *key,
                                        void *obj);
sluice_status sluice_checks_caller_engines(sluice_keys_loader *ld, const sluice_toml_value *root);

#endif
