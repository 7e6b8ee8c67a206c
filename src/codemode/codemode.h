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
#include "codemode/runtime.h"
#include "config/config.h"
#include "exec/executor.h"

#include <jansson.h>
#include <stdbool.h>

typedef struct sluice_codemode sluice_codemode;
typedef struct sluice_codemode_request sluice_codemode_request;

/* Asks a human (or an administrator's record) whether the validated statement of req, an
 * execute_code call, may run; returns SLUICE_OK to run, SLUICE_E_DENIED (with req->err, in
 * req->arena) otherwise. The MCP tools wire elicitation here; NULL means no approval path
 * exists, so anything above the auto-approve level is refused. */
typedef sluice_status (*sluice_codemode_approve_fn)(void *ctx,
                                                    const sluice_codemode_request *req,
                                                    const json_t *validation);

typedef struct sluice_codemode_exec_hooks {
    sluice_exec_register_cancel_fn register_cancel;
    void *cancel_ctx;
    sluice_codemode_approve_fn approve;
    void *approve_ctx;
} sluice_codemode_exec_hooks;

/* One validate_code or execute_code call (the request object every stage of the pipeline
 * receives): who asks, the program and its variables, and where the call's memory and error go.
 * The caller fills it for the one call; code mode keeps nothing of it after the call. */
struct sluice_codemode_request {
    /* The request's memory: everything the call makes (the judgement, the facts, error texts)
     * lives in it, jansson values included (as arena cleanups), and goes when it is freed. */
    sluice_arena *arena;
    const sluice_codemode_caller *caller; /* unused by sluice_codemode_analyze */
    const char *code;
    size_t code_len;
    const json_t *variables;                 /* NULL: none */
    const char *token;                       /* execute: the approval token validate signed */
    bool dry_run;                            /* validate: judge only, sign no token */
    const sluice_codemode_exec_hooks *hooks; /* execute: cancel and approval paths; may be NULL */
    /* execute: the answer's rows are a splice placeholder of the rows text
     * (sluice_present_result_spliced), for a caller that only hands the answer to the MCP
     * writer; each value is then converted once, straight into that text. False: a tree. */
    bool rows_spliced;
    sluice_error *err; /* what failed, for the caller's client (in arena) */
};

/* Reads every backend's catalog now, opening any engine that opens on first need: what
 * `sluice config check` does so that a database DuckDB cannot open fails there, not at the first
 * call of a server. */
sluice_status
sluice_codemode_check_backends(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err);

/* Opens the executors and the policy the config names on rt (the keyring, the stores, the
 * audit sink and the clock, cli/runtime.h; code mode never opens a store itself), and reads the
 * schema once (not for a DuckDB file, which opens on first need: see
 * sluice_codemode_check_backends). config and rt must outlive the returned object. Errors name
 * the setting that is wrong (a database that cannot be opened hardened, a route naming no
 * database, ...). */
sluice_status sluice_codemode_open(const sluice_config *config,
                                   sluice_runtime *rt,
                                   sluice_codemode **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err);
/* As sluice_codemode_open, on an executor the caller opened (a backend plugged in without a
 * [database] section, e.g. a test's toy engine): cm owns executor from here on, and closes it
 * on failure too. */
sluice_status sluice_codemode_open_on(const sluice_config *config,
                                      sluice_runtime *rt,
                                      sluice_executor *executor,
                                      sluice_codemode **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err);
void sluice_codemode_close(sluice_codemode *cm);

/* validate_code of req (its token and hooks are not read). *out is the structuredContent object
 * (new reference) for valid AND invalid code: invalid code is a result with violations, never an
 * error. Non-OK only when sluice itself failed (memory, audit log unwritable: fail closed). Its
 * "metadata" is a splice placeholder (core/json_splice.h): the MCP writer sends its text, while
 * json_dumps refuses it, so a reader of its members expands it first (sluice_json_splice_expand).
 * The placeholder borrows its text from req->arena: release *out (and anything it was nested in)
 * before that arena is freed or reset. The same holds for the validation an approve hook is
 * given. */
sluice_status
sluice_codemode_validate(sluice_codemode *cm, const sluice_codemode_request *req, json_t **out);

/* execute_code of req (dry_run is not read). SLUICE_OK: *out is the structuredContent {columns,
 * rows, row_count, truncated, elapsed_ms} and *out_text the untrusted-data presentation for the
 * text content. Otherwise err says what to do (SLUICE_E_TOKEN, SLUICE_E_DENIED, SLUICE_E_TIMEOUT,
 * SLUICE_E_ENGINE ...). */
sluice_status sluice_codemode_execute(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      json_t **out,
                                      char **out_text);

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

/* Analysis only (no token, no audit): the front end's CodeFacts for req's code and variables
 * on the default route (req's caller, token and hooks are not read), for checks made at
 * start-up such as curated tools. */
struct sluice_codefacts;
sluice_status sluice_codemode_analyze(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      struct sluice_codefacts **out);

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

/* Human approval under MCP 2026-07-28 (token/approval_state.h), for req, the execute_code call
 * asking: seals the requestState of an approval asked for req's principal and req->token (into
 * *out, req->arena; SLUICE_E_NOMEM), and opens one the client returned, consuming it once
 * (SLUICE_E_TOKEN tampered, expired or misbound, SLUICE_E_DENIED replayed, the replay store's
 * failure otherwise: fail closed). Errors go to req->err. */
sluice_status sluice_codemode_approval_state_seal(sluice_codemode *cm,
                                                  const sluice_codemode_request *req,
                                                  char **out);
sluice_status sluice_codemode_approval_state_open(sluice_codemode *cm,
                                                  const sluice_codemode_request *req,
                                                  const char *state);

/* Appends an audit record through cm's runtime (sluice_runtime_audit: fields consumed; no-op
 * without an audit log). Fails closed: SLUICE_E_IO. */
sluice_status sluice_codemode_audit(sluice_codemode *cm,
                                    sluice_arena *arena,
                                    const sluice_codemode_caller *caller,
                                    const char *event,
                                    json_t *fields,
                                    sluice_error *err);

/* ---- saved programs (codemode/program.h) ---------------------------------------------------
 * An administrator promotes a validated program to a named tool; callers run it by name with
 * typed arguments. A call is judged like execute_code (quotas, the caller's route and policy,
 * config rules, blocked fields, limits, audit) but needs no token and no approval of its own:
 * the promotion was the approval, and every run's audit record names it. */

struct sluice_program;
struct sluice_program_catalog;

/* What an administrator promotes: req's code, its language (req->caller->language) and example
 * variables (req->variables), judged for req->caller as validate_code judges them. */
typedef struct sluice_codemode_promotion {
    const char *name;
    const char *description; /* for the model; may be NULL */
    /* {name: {type, description?, minimum?, maximum?, maxLength?}}; NULL: derived from the
     * example variables */
    const json_t *parameters;
} sluice_codemode_promotion;

/* Promotes: judges the code, refuses it (SLUICE_E_DENIED, err naming the first violation) unless
 * it is valid, derives the parameters and writes the next version of the name, sealed, to the
 * program store, and audits it ("promote"). *out: the record written plus "validation" (new
 * reference). SLUICE_E_UNSUPPORTED without [code_mode] programs_file; SLUICE_E_INVALID for a bad
 * name or parameter spec; the store's errors (SLUICE_E_DENIED: someone promoted it meanwhile). */
sluice_status sluice_codemode_promote(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      const sluice_codemode_promotion *promotion,
                                      json_t **out);

/* Demotes name (by req->caller, for reason; req's code and variables are not read): writes its
 * next version as demoted and audits it. *out_version: the version written. SLUICE_E_NOT_FOUND,
 * SLUICE_E_DENIED (already demoted), SLUICE_E_UNSUPPORTED, the store's errors. */
sluice_status sluice_codemode_demote(sluice_codemode *cm,
                                     const sluice_codemode_request *req,
                                     const char *name,
                                     const char *reason,
                                     int64_t *out_version);

/* The program store read now (latest version of each name; see sluice_program_catalog_load),
 * in arena. SLUICE_E_UNSUPPORTED without a store; a damaged store is an error. */
sluice_status sluice_codemode_programs(sluice_codemode *cm,
                                       sluice_arena *arena,
                                       struct sluice_program_catalog *out,
                                       sluice_error *err);

/* Why p cannot run now whoever calls it (disabled, demoted, or its basis changed: the schema of
 * its database, the policy set, the rules), or NULL. In arena. */
const char *sluice_codemode_program_unusable(sluice_codemode *cm,
                                             sluice_arena *arena,
                                             const struct sluice_program *p);

/* true when p would be offered to caller in tools/list: the saved-call decision (its record,
 * the caller's route and policy, the basis, what the promotion approved) passes with the least
 * arguments p accepts (sluice_program_sample_arguments). Nothing audited; false on any failure
 * (a program that cannot be judged is not offered). The call is judged again with its own
 * arguments. */
bool sluice_codemode_program_offered(sluice_codemode *cm,
                                     const sluice_codemode_caller *caller,
                                     sluice_arena *arena,
                                     const struct sluice_program *p);

/* Runs saved program name for req->caller with req->variables as its arguments (req's code,
 * language and token are not read). As sluice_codemode_execute; SLUICE_E_NOT_FOUND with
 * err->message NULL when no program has that name (nothing audited). */
sluice_status sluice_codemode_run_program(sluice_codemode *cm,
                                          const sluice_codemode_request *req,
                                          const char *name,
                                          json_t **out,
                                          char **out_text);

#endif
