/*
 * codemode.h — the code-mode pipeline: validate_code and execute_code, language-independent.
 *
 * Owns: the flow of DESIGN.md §1 — front end analysis → config rules (inside the analysis) →
 * policy → risk → explanation → signed approval token; and at execute: token verification
 * against the live request (code, caller, session, server, context, variables), single use,
 * human approval above the auto-approve level, re-analysis, execution under limits, the output
 * guard, and one audit record per decision. Also the context hash that binds a token to the
 * schema, rules and the caller's permissions.
 * Does not own: parsing (lang/), running code (exec/), keys and token bytes (secret.h,
 * token.h), MCP plumbing (codemode/tools.c registers the tools on the server).
 */
#ifndef SLUICE_CODEMODE_CODEMODE_H
#define SLUICE_CODEMODE_CODEMODE_H

#include "auth/identity.h"
#include "config/config.h"
#include "exec/executor.h"

#include <jansson.h>
#include <stdbool.h>

typedef struct sluice_codemode sluice_codemode;

/* Who is asking, and where. */
typedef struct sluice_codemode_caller {
    const sluice_identity *identity;
    const char *session_id; /* MCP session ("stdio" for the stdio transport, "cli" for the CLI) */
    /* The language the call names (validate_code's `language`); NULL or "" means the server's
     * default, the first of [code_mode] languages. One the server is not configured for is
     * refused with the list of those it is. */
    const char *language;
    /* Optional: where a quota's refusal goes as JSON (state/quota.h
     * sluice_quota_refusal_json; a new reference the caller frees), so the surface can give
     * the client the quota and its reset time in a form it can act on. NULL: not wanted. */
    json_t **refusal;
} sluice_codemode_caller;

/* Asks a human (or an administrator's record) whether a validated statement may run; returns
 * SLUICE_OK to run, SLUICE_E_DENIED (with err) otherwise. The MCP tools wire elicitation here;
 * NULL means no approval path exists, so anything above the auto-approve level is refused. */
typedef sluice_status (*sluice_codemode_approve_fn)(void *ctx,
                                                    sluice_arena *arena,
                                                    const json_t *validation,
                                                    sluice_error *err);

typedef struct sluice_codemode_exec_hooks {
    sluice_exec_register_cancel_fn register_cancel;
    void *cancel_ctx;
    sluice_codemode_approve_fn approve;
    void *approve_ctx;
} sluice_codemode_exec_hooks;

/* Opens the executor, the keyring, the replay store and the audit log the config names, and
 * reads the schema once (not for a DuckDB file, which opens on first need: see
 * sluice_codemode_check_backends). The config must outlive the returned object. Errors name the
 * setting that is wrong (a missing key file, a database that cannot be opened hardened, ...). */
/* Reads every backend's catalog now, opening any engine that opens on first need: what
 * `sluice config check` does so that a database DuckDB cannot open fails there, not at the first
 * call of a server. */
sluice_status
sluice_codemode_check_backends(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err);

sluice_status sluice_codemode_open(const sluice_config *config,
                                   sluice_codemode **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err);
/* As sluice_codemode_open, on an executor the caller opened (a backend plugged in without a
 * [database] section, e.g. a test's toy engine): cm owns executor from here on, and closes it
 * on failure too. */
sluice_status sluice_codemode_open_on(const sluice_config *config,
                                      sluice_executor *executor,
                                      sluice_codemode **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);
void sluice_codemode_close(sluice_codemode *cm);

/* validate_code. *out is the structuredContent object (new reference) for valid AND invalid
 * code: invalid code is a result with violations, never an error. Non-OK only when sluice itself
 * failed (memory, audit log unwritable: fail closed). */
sluice_status sluice_codemode_validate(sluice_codemode *cm,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const char *code,
                                       size_t code_len,
                                       const json_t *variables,
                                       bool dry_run,
                                       json_t **out,
                                       sluice_error *err);

/* execute_code. SLUICE_OK: *out is the structuredContent {columns, rows, row_count, truncated,
 * elapsed_ms} and *out_text the untrusted-data presentation for the text content. Otherwise err
 * says what to do (SLUICE_E_TOKEN, SLUICE_E_DENIED, SLUICE_E_TIMEOUT, SLUICE_E_ENGINE ...). */
sluice_status sluice_codemode_execute(sluice_codemode *cm,
                                      sluice_arena *arena,
                                      const sluice_codemode_caller *caller,
                                      const char *code,
                                      size_t code_len,
                                      const char *token,
                                      const json_t *variables,
                                      const sluice_codemode_exec_hooks *hooks,
                                      json_t **out,
                                      char **out_text,
                                      sluice_error *err);

/* The executor (for curated tools) and the schema/config the guide texts are built from. */
sluice_executor *sluice_codemode_executor(sluice_codemode *cm);
const sluice_schema *sluice_codemode_schema(const sluice_codemode *cm);
/* The default backend's live catalog (re-read after SIGHUP), held until arena is freed; the
 * schema read at open when the snapshot cannot be taken (out of memory). Never NULL. */
const sluice_schema *sluice_codemode_schema_now(sluice_codemode *cm, sluice_arena *arena);
const sluice_config *sluice_codemode_config(const sluice_codemode *cm);
/* The caller routing and policy backend (policy/policy.h), for code-mode://policies. */
struct sluice_policy;
const struct sluice_policy *sluice_codemode_policy(const sluice_codemode *cm);

/* Analysis only (no token, no audit): the front end's CodeFacts for code, for checks made at
 * start-up such as curated tools. variables may be NULL. */
struct sluice_codefacts;
sluice_status sluice_codemode_analyze(sluice_codemode *cm,
                                      sluice_arena *arena,
                                      const char *code,
                                      size_t code_len,
                                      const json_t *variables,
                                      struct sluice_codefacts **out,
                                      sluice_error *err);

/* True once an audit write failed (then nothing runs until the log is repaired). */
bool sluice_codemode_audit_broken(const sluice_codemode *cm);

/* The administrator approval store ("<audit_log>.approvals"), or NULL without an audit log. */
struct sluice_approval_store;
struct sluice_approval_store *sluice_codemode_approvals(sluice_codemode *cm);

/* The quota counters ([quotas] or a route's quotas set; state/quota.h), or NULL. */
struct sluice_quota;
struct sluice_quota *sluice_codemode_quotas(sluice_codemode *cm);

/* The clock token expiry, consume-once pruning and approvals read (NULL: the system clock).
 * Only tests set another one (a sluice_manual_clock), before any request; no config key
 * reaches it. The clock must outlive cm. */
struct sluice_clock;
void sluice_codemode_set_clock(sluice_codemode *cm, const struct sluice_clock *clock);
const struct sluice_clock *sluice_codemode_clock(const sluice_codemode *cm);

/* The live token keyring (token/key_store.h: reload on SIGHUP, key file changes), or NULL
 * when cm is NULL or code mode is off. */
struct sluice_key_store *sluice_codemode_keys(sluice_codemode *cm);

/* Memory that lives as long as cm (for registrations that point back into it). */
sluice_arena *sluice_codemode_arena(sluice_codemode *cm);

/* The configured languages, in order (the first is the default): index < count. */
size_t sluice_codemode_language_count(const sluice_codemode *cm);
const char *sluice_codemode_language(const sluice_codemode *cm, size_t index);
/* "sql, graphql": the configured languages, for messages (in arena; never NULL). */
const char *sluice_codemode_languages_text(const sluice_codemode *cm, sluice_arena *arena);
/* "sql, graphql": every language the registry knows (in arena; never NULL). */
const char *sluice_codemode_known_languages(sluice_arena *arena);

/* Audits a request refused before the pipeline saw it (its arguments failed the tool's input
 * schema, for instance): every refused execute_code leaves a denial record. Returns
 * SLUICE_E_DENIED. */
sluice_status sluice_codemode_refuse_request(sluice_codemode *cm,
                                             sluice_arena *arena,
                                             const sluice_codemode_caller *caller,
                                             const char *code,
                                             const char *reason,
                                             const char *message);

/* Human approval under MCP 2026-07-28 (token/approval_state.h): seals the requestState of an
 * approval asked for caller's principal and approval_token (into *out, arena; SLUICE_E_NOMEM),
 * and opens one, consuming it once (SLUICE_E_TOKEN tampered, expired or misbound,
 * SLUICE_E_DENIED replayed, the replay store's failure otherwise: fail closed). */
sluice_status sluice_codemode_approval_state_seal(sluice_codemode *cm,
                                                  sluice_arena *arena,
                                                  const sluice_codemode_caller *caller,
                                                  const char *approval_token,
                                                  char **out,
                                                  sluice_error *err);
sluice_status sluice_codemode_approval_state_open(sluice_codemode *cm,
                                                  sluice_arena *arena,
                                                  const sluice_codemode_caller *caller,
                                                  const char *approval_token,
                                                  const char *state,
                                                  sluice_error *err);

/* Appends an audit record (no-op without an audit log). Fails closed: SLUICE_E_IO. */
sluice_status sluice_codemode_audit(sluice_codemode *cm,
                                    sluice_arena *arena,
                                    const sluice_codemode_caller *caller,
                                    const char *event,
                                    json_t *fields,
                                    sluice_error *err);

#endif
