/*
 * pipeline.c — validate_code and execute_code (see codemode.h).
 *
 * The server never trusts the client to carry state: execute re-analyzes the code it is given
 * and checks every claim of the token against what it computes from the live request.
 */
#include "codemode/approval_gate.h"
#include "codemode/audit.h"
#include "codemode/codefacts.h"
#include "codemode/codemode.h"
#include "codemode/present.h"
#include "codemode/replay.h"
#include "codemode/risk.h"
#include "codemode/secret.h"
#include "codemode/token.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/log.h"
#include "lang/sql/sql.h"
#include "policy/policy.h"

#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct sluice_codemode {
    const sluice_config *config;
    sluice_arena *arena; /* schema, fingerprints */
    sluice_executor *executor;
    sluice_schema schema;
    sluice_secret_ring *ring;
    sluice_replay *replay;
    sluice_approval_store *approvals; /* NULL without an audit log */
    sluice_audit *audit;
    const sluice_frontend *frontend;
    sluice_frontend_context fctx;
    uint8_t rules_fingerprint[SLUICE_HASH_BYTES];
    atomic_bool audit_broken; /* an append failed: no more executions without an audit trail */
    sluice_policy *policy;    /* routes, derived rules and the policy backend */
    /* NULL: the system clock (tests set a manual one) */
    const sluice_clock *clock;
};

/* validate_code reports actions in lower case (read|write|delete|admin); Cedar's ids, from
 * sluice_action_name, are capitalised. */
static const char *action_label(sluice_action action)
{
    static const char *const labels[] = { "read", "write", "delete", "admin" };
    return (unsigned)action <= SLUICE_ACTION_ADMIN ? labels[action] : "admin";
}

/* ---- fingerprints -------------------------------------------------------------------------- */

static void hash_list(sluice_hash_state *h, const char *tag, const sluice_strlist *list)
{
    sluice_hash_update(h, tag, strlen(tag) + 1);
    for (size_t i = 0; i < list->count; i++)
        sluice_hash_update(h, list->items[i], strlen(list->items[i]) + 1);
}

/* Every setting that changes what code may do or return; a token issued under other settings
 * must not execute under these. */
static void compute_rules_fingerprint(sluice_codemode *cm)
{
    const sluice_config_code_mode *c = &cm->config->code_mode;
    char scalars[512];
    int n =
        snprintf(scalars, sizeof scalars, "%d%d%d%d%d%d|%lld|%lld|%lld|%lld|%d%d%d%d|%d",
                 c->sql_reads_enabled, c->sql_allow_writes, c->sql_allow_deletes, c->sql_allow_ddl,
                 c->sql_require_where_on_writes, c->sql_require_limit, (long long)c->sql_max_rows,
                 (long long)c->sql_max_joins, (long long)c->execution_timeout_seconds,
                 (long long)c->max_result_bytes, c->auto_approve[0], c->auto_approve[1],
                 c->auto_approve[2], c->auto_approve[3], (int)c->schema_exposure);
    sluice_hash_state h;
    sluice_hash_start(&h);
    sluice_hash_update(&h, scalars, (size_t)n);
    hash_list(&h, "allowed_tables", &c->sql_allowed_tables);
    hash_list(&h, "blocked_tables", &c->sql_blocked_tables);
    hash_list(&h, "blocked_columns", &c->sql_blocked_columns);
    hash_list(&h, "blocked_fields", &c->blocked_fields);
    sluice_hash_finish(&h, cm->rules_fingerprint);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* schema version + rules + policy version and the caller's route + the caller's groups (their
 * permissions), in a fixed order. */
static sluice_status context_hash(const sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_identity *who,
                                  uint8_t out[SLUICE_HASH_BYTES])
{
    sluice_hash_state h;
    sluice_hash_start(&h);
    sluice_hash_update(&h, cm->schema.version_hash, strlen(cm->schema.version_hash) + 1);
    sluice_hash_update(&h, cm->rules_fingerprint, sizeof cm->rules_fingerprint);
    const char *version = sluice_policy_version(cm->policy);
    const char *route = sluice_policy_route_for(cm->policy, who)->id;
    sluice_hash_update(&h, version, strlen(version) + 1);
    sluice_hash_update(&h, route, strlen(route) + 1);
    if (who != NULL && who->group_count > 0) {
        const char **groups = sluice_arena_calloc(arena, who->group_count, sizeof *groups);
        if (groups == NULL)
            return SLUICE_E_NOMEM;
        memcpy(groups, who->groups, who->group_count * sizeof *groups);
        qsort(groups, who->group_count, sizeof *groups, compare_strings);
        for (size_t i = 0; i < who->group_count; i++)
            sluice_hash_update(&h, groups[i], strlen(groups[i]) + 1);
    }
    sluice_hash_finish(&h, out);
    return SLUICE_OK;
}

/* Canonical JSON (sorted keys, compact) of the variables; "null" when there are none. */
static char *variables_text(const json_t *variables)
{
    if (variables == NULL || json_is_null(variables) ||
        (json_is_object(variables) && json_object_size(variables) == 0))
        return NULL;
    return json_dumps(variables, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static void variables_hash(const char *text, uint8_t out[SLUICE_HASH_BYTES])
{
    const char *t = text != NULL ? text : "null";
    sluice_hash_sha256(t, strlen(t), out);
}

/* ---- open / close -------------------------------------------------------------------------- */

static sluice_status open_stores(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    const sluice_config_code_mode *c = &cm->config->code_mode;
    if (c->audit_log != NULL) {
        sluice_status st = sluice_audit_open(c->audit_log, &cm->audit, err_arena, err);
        if (st != SLUICE_OK)
            return st;
    }
    if (!c->enabled)
        return SLUICE_OK; /* curated tools only: no tokens to sign or spend */
    sluice_status st = sluice_secret_ring_load(
        c->token_secret_file, c->token_secret_env, c->token_previous_secret_file,
        c->token_previous_secret_env, &cm->ring, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    const char *replay_path = c->replay_store;
    if (replay_path == NULL && c->audit_log != NULL)
        replay_path = sluice_arena_printf(cm->arena, "%s.tokens", c->audit_log);
    st =
        sluice_replay_open(replay_path, sluice_clock_now_s(cm->clock), &cm->replay, err_arena, err);
    if (st == SLUICE_OK && c->audit_log != NULL) {
        const char *path = sluice_arena_printf(cm->arena, "%s.approvals", c->audit_log);
        st = path != NULL ? sluice_approval_open(path, &cm->approvals, err_arena, err)
                          : SLUICE_E_NOMEM;
    }
    return st;
}

sluice_status sluice_codemode_open(const sluice_config *config,
                                   sluice_codemode **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    if (!config->has_database)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "code mode and [[tools]] need a [database] to run against; add "
                                "a [database] section with engine and path");
    sluice_codemode *cm = calloc(1, sizeof *cm);
    if (cm == NULL || (cm->arena = sluice_arena_new()) == NULL) {
        free(cm);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    cm->config = config;
    sluice_status st = sluice_policy_open(config, &cm->policy, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_executor_open(&config->database, sluice_policy_engine_rules(cm->policy),
                                  &cm->executor, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_executor_schema(cm->executor, cm->arena, &cm->schema, err);
    if (st == SLUICE_OK)
        st = open_stores(cm, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_codemode_close(cm);
        return st;
    }
    compute_rules_fingerprint(cm);
    cm->frontend = sluice_sql_frontend();
    cm->fctx.code_mode = &config->code_mode;
    cm->fctx.schema = &cm->schema;
    cm->fctx.engine = sluice_executor_engine(cm->executor);
    /* The front end binds on the executor's own catalog and, for SQLite, cross-checks every
     * column SQLite's authorizer reads against its lineage. */
    cm->fctx.executor = cm->executor;
    *out = cm;
    return SLUICE_OK;
}

void sluice_codemode_close(sluice_codemode *cm)
{
    if (cm == NULL)
        return;
    sluice_audit_close(cm->audit);
    sluice_replay_close(cm->replay);
    sluice_approval_close(cm->approvals);
    sluice_secret_ring_free(cm->ring);
    sluice_executor_close(cm->executor);
    sluice_policy_close(cm->policy);
    sluice_arena_free(cm->arena);
    free(cm);
}

sluice_executor *sluice_codemode_executor(sluice_codemode *cm)
{
    return cm->executor;
}

const sluice_schema *sluice_codemode_schema(const sluice_codemode *cm)
{
    return &cm->schema;
}

const sluice_config *sluice_codemode_config(const sluice_codemode *cm)
{
    return cm->config;
}

const sluice_policy *sluice_codemode_policy(const sluice_codemode *cm)
{
    return cm->policy;
}

sluice_arena *sluice_codemode_arena(sluice_codemode *cm)
{
    return cm->arena;
}

void sluice_codemode_set_clock(sluice_codemode *cm, const sluice_clock *clock)
{
    cm->clock = clock;
}

const sluice_clock *sluice_codemode_clock(const sluice_codemode *cm)
{
    return cm->clock;
}

/* ---- audit --------------------------------------------------------------------------------- */

struct sluice_approval_store *sluice_codemode_approvals(sluice_codemode *cm)
{
    return cm->approvals;
}

sluice_status sluice_codemode_audit(sluice_codemode *cm,
                                    sluice_arena *arena,
                                    const sluice_codemode_caller *caller,
                                    const char *event,
                                    json_t *fields,
                                    sluice_error *err)
{
    sluice_status st = SLUICE_OK;
    if (cm->audit != NULL) {
        const sluice_identity *who = caller->identity;
        json_object_set_new(fields, "event", json_string(event));
        json_object_set_new(fields, "user", json_string(who != NULL ? who->user_id : ""));
        json_object_set_new(fields, "auth", json_string(who != NULL ? who->method : ""));
        json_t *groups = json_array();
        for (size_t i = 0; who != NULL && i < who->group_count; i++)
            json_array_append_new(groups, json_string(who->groups[i]));
        json_object_set_new(fields, "groups", groups);
        json_object_set_new(fields, "session", json_string(caller->session_id));
        json_object_set_new(fields, "server", json_string(cm->config->code_mode.server_id));
        st = sluice_audit_append(cm->audit, fields, arena, err);
        if (st != SLUICE_OK) {
            atomic_store(&cm->audit_broken, true);
            sluice_log(SLUICE_LOG_ERROR, "audit log write failed: %s", err ? err->message : "");
        }
    }
    json_decref(fields);
    return st;
}

static json_t *violations_json(const sluice_codefacts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; i < f->violation_count; i++) {
        const sluice_codefacts_violation *v = &f->violations[i];
        json_t *o = json_pack("{s:s, s:s}", "rule", v->rule, "message", v->message);
        json_object_set_new(o, "suggestion",
                            v->suggestion != NULL ? json_string(v->suggestion) : json_null());
        json_object_set_new(o, "line",
                            v->line > 0 ? json_integer((json_int_t)v->line) : json_null());
        json_object_set_new(o, "column",
                            v->column > 0 ? json_integer((json_int_t)v->column) : json_null());
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *strings_json(const sluice_codefacts_list *list)
{
    json_t *a = json_array();
    for (size_t i = 0; i < list->count; i++)
        json_array_append_new(a, json_string(list->items[i]));
    return a;
}

static void iso_time(int64_t t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- validate ------------------------------------------------------------------------------ */

/* Front end analysis under the rules of the caller's route. */
static sluice_status analyze(sluice_codemode *cm,
                             sluice_arena *arena,
                             const sluice_policy_route *route,
                             const char *code,
                             size_t code_len,
                             const char *vars_text,
                             sluice_codefacts **facts,
                             sluice_error *err)
{
    if (code_len > SLUICE_LIMIT_CODE_BYTES) {
        sluice_codefacts *f = sluice_codefacts_new(arena, "sql");
        if (f == NULL)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        sluice_codefacts_violate(
            f, "code_too_large", 0, 0, "split the work or move logic into SQL aggregates",
            "the code is %zu bytes; the limit is %u bytes", code_len, SLUICE_LIMIT_CODE_BYTES);
        *facts = f;
        return SLUICE_OK;
    }
    sluice_frontend_context fctx = cm->fctx;
    fctx.code_mode = route->rules;
    return cm->frontend->analyze(arena, code, code_len, vars_text, &fctx, facts, err);
}

sluice_status sluice_codemode_analyze(sluice_codemode *cm,
                                      sluice_arena *arena,
                                      const char *code,
                                      size_t code_len,
                                      const json_t *variables,
                                      sluice_codefacts **out,
                                      sluice_error *err)
{
    char *vars = variables_text(variables);
    sluice_status st =
        analyze(cm, arena, sluice_policy_default_route(cm->policy), code, code_len, vars, out, err);
    free(vars);
    return st;
}

/* Policy after the configuration rules: a deny (or an evaluation error: fail closed) adds
 * violations. Code that does not parse has no facts to judge and is refused already. *summary
 * (new reference) says what decided, for the result and the audit record. */
static sluice_status apply_policy(sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_codemode_caller *caller,
                                  const sluice_policy_route *route,
                                  sluice_codefacts *f,
                                  json_t **summary,
                                  sluice_error *err)
{
    *summary = json_pack("{s:s, s:s, s:s}", "backend", sluice_policy_backend_name(cm->policy),
                         "route", route->id, "version", sluice_policy_version(cm->policy));
    if (f->code_hash[0] == '\0' || !sluice_policy_active(cm->policy))
        return SLUICE_OK;
    sluice_policy_decision d;
    sluice_status st =
        sluice_policy_evaluate(cm->policy, arena, caller->identity, route, f->action, f, &d, err);
    json_decref(d.request);
    if (st != SLUICE_OK)
        return st;
    json_t *ids = json_array();
    for (size_t i = 0; i < d.reason_count; i++)
        json_array_append_new(ids,
                              json_string(d.reasons[i].annotation != NULL ? d.reasons[i].annotation
                                                                          : d.reasons[i].id));
    json_object_set_new(*summary, "decision", json_string(d.allow ? "allow" : "deny"));
    json_object_set_new(*summary, "determining", ids);
    st = sluice_policy_violate(&d, f->action, route, f);
    return st == SLUICE_OK ? SLUICE_OK : sluice_error_set(err, arena, st, "out of memory");
}

static json_t *validation_json(const sluice_codemode *cm,
                               const sluice_codefacts *f,
                               sluice_risk risk,
                               const char *explanation,
                               const char *token,
                               int64_t expires_at)
{
    bool valid = !sluice_codefacts_refused(f);
    bool auto_ok = valid && cm->config->code_mode.auto_approve[risk];
    char when[32];
    if (token != NULL)
        iso_time(expires_at, when);
    json_t *meta = sluice_codefacts_to_json(f);
    json_t *o =
        json_pack("{s:b, s:s, s:s, s:s, s:o, s:o, s:s, s:b, s:b}", "valid", valid, "action",
                  action_label(f->action), "risk_level", sluice_risk_name(risk), "explanation",
                  explanation != NULL ? explanation : "", "violations", violations_json(f),
                  "warnings", strings_json(&f->warnings), "code_hash", f->code_hash,
                  "auto_approved", auto_ok, "requires_approval", valid && !auto_ok);
    json_object_set_new(o, "approval_token", token != NULL ? json_string(token) : json_null());
    json_object_set_new(o, "expires_at", token != NULL ? json_string(when) : json_null());
    json_object_set_new(o, "metadata", meta != NULL ? meta : json_object());
    return o;
}

static sluice_status issue_token(sluice_codemode *cm,
                                 sluice_arena *arena,
                                 const sluice_codemode_caller *caller,
                                 const sluice_codefacts *f,
                                 sluice_risk risk,
                                 const char *vars_text,
                                 sluice_token_claims *claims,
                                 char **token,
                                 sluice_error *err)
{
    memset(claims, 0, sizeof *claims);
    if (sluice_hash_unhex(f->code_hash, strlen(f->code_hash), claims->code_hash,
                          sizeof claims->code_hash) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL, "analysis produced no code hash");
    claims->user_id = caller->identity->user_id;
    claims->session_id = caller->session_id;
    claims->server_id = cm->config->code_mode.server_id;
    sluice_status st = context_hash(cm, arena, caller->identity, claims->context_hash);
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, st, "out of memory");
    variables_hash(vars_text, claims->variables_hash);
    claims->action = (sluice_action)f->action;
    claims->risk = risk;
    return sluice_token_issue(cm->ring, claims, sluice_clock_now_s(cm->clock),
                              cm->config->code_mode.token_ttl_seconds, arena, token, err);
}

sluice_status sluice_codemode_validate(sluice_codemode *cm,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       const char *code,
                                       size_t code_len,
                                       const json_t *variables,
                                       bool dry_run,
                                       json_t **out,
                                       sluice_error *err)
{
    char *vars = variables_text(variables);
    sluice_codefacts *f = NULL;
    const sluice_policy_route *route = sluice_policy_route_for(cm->policy, caller->identity);
    json_t *policy = NULL;
    sluice_status st = analyze(cm, arena, route, code, code_len, vars, &f, err);
    if (st == SLUICE_OK)
        st = apply_policy(cm, arena, caller, route, f, &policy, err);
    if (st != SLUICE_OK) {
        json_decref(policy);
        free(vars);
        return st;
    }
    sluice_risk risk = sluice_risk_assess(f, NULL);
    const char *explanation = sluice_sql_explain(arena, f);
    char *token = NULL;
    sluice_token_claims claims = { 0 };
    bool valid = !sluice_codefacts_refused(f);
    if (valid && !dry_run) {
        st = issue_token(cm, arena, caller, f, risk, vars, &claims, &token, err);
        if (st != SLUICE_OK) {
            json_decref(policy);
            free(vars);
            return st;
        }
    }
    free(vars);
    json_t *result = validation_json(cm, f, risk, explanation, token, claims.expires_at);
    json_object_set(result, "policy", policy);
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:O}", "decision", valid ? "validated" : "refused",
                  "code", code_len <= SLUICE_LIMIT_CODE_BYTES ? code : "(too large)", "code_hash",
                  f->code_hash, "action", action_label(f->action), "risk", sluice_risk_name(risk),
                  "violations", json_object_get(result, "violations"));
    if (token != NULL) {
        char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
        sluice_hash_hex(claims.token_id, sizeof claims.token_id, id);
        json_object_set_new(record, "token_id", json_string(id));
    }
    json_object_set_new(record, "dry_run", json_boolean(dry_run));
    json_object_set_new(record, "policy", policy);
    st = sluice_codemode_audit(cm, arena, caller, valid ? "validate" : "deny", record, err);
    if (st != SLUICE_OK) {
        json_decref(result);
        return st;
    }
    *out = result;
    return SLUICE_OK;
}

/* ---- execute ------------------------------------------------------------------------------- */

/* Audits a refused execution and passes the status through. */
static sluice_status refuse(sluice_codemode *cm,
                            sluice_arena *arena,
                            const sluice_codemode_caller *caller,
                            const char *code,
                            const char *reason,
                            sluice_status status,
                            sluice_error *err)
{
    json_t *record = json_pack("{s:s, s:s, s:s}", "decision", "refused", "reason", reason,
                               "message", err != NULL && err->message ? err->message : "");
    json_object_set_new(record, "code", json_string(code));
    sluice_error audit_err = { 0 };
    sluice_codemode_audit(cm, arena, caller, "deny", record, &audit_err);
    return status;
}

/* The claims a token must carry to run this code for this caller now. */
static sluice_status expected_claims(sluice_codemode *cm,
                                     sluice_arena *arena,
                                     const sluice_codemode_caller *caller,
                                     const sluice_codefacts *f,
                                     sluice_risk risk,
                                     const char *vars_text,
                                     sluice_token_claims *claims)
{
    memset(claims, 0, sizeof *claims);
    if (sluice_hash_unhex(f->code_hash, strlen(f->code_hash), claims->code_hash,
                          sizeof claims->code_hash) != SLUICE_OK)
        return SLUICE_E_INVALID;
    claims->user_id = caller->identity->user_id;
    claims->session_id = caller->session_id;
    claims->server_id = cm->config->code_mode.server_id;
    variables_hash(vars_text, claims->variables_hash);
    claims->action = (sluice_action)f->action;
    claims->risk = risk;
    return context_hash(cm, arena, caller->identity, claims->context_hash);
}

/* A blocked field must never be a result column name either, whatever the lineage says. */
static const char *blocked_output_name(const sluice_codemode *cm, const sluice_exec_result *r)
{
    const sluice_config_code_mode *c = &cm->config->code_mode;
    const sluice_strlist *lists[2] = { &c->blocked_fields, &c->sql_blocked_columns };
    for (size_t i = 0; i < r->column_count; i++) {
        for (int l = 0; l < 2; l++) {
            for (size_t k = 0; k < lists[l]->count; k++) {
                const char *b = lists[l]->items[k];
                const char *dot = strrchr(b, '.');
                if (strcasecmp(r->columns[i].name, dot != NULL ? dot + 1 : b) == 0)
                    return r->columns[i].name;
            }
        }
    }
    return NULL;
}

static sluice_status check_approval(sluice_codemode *cm,
                                    sluice_arena *arena,
                                    const sluice_codemode_caller *caller,
                                    const sluice_codefacts *f,
                                    sluice_risk risk,
                                    const sluice_token_claims *claims,
                                    const sluice_codemode_exec_hooks *hooks,
                                    sluice_error *err)
{
    if (cm->config->code_mode.auto_approve[risk])
        return SLUICE_OK;
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(claims->token_id, sizeof claims->token_id, id);
    int64_t now = sluice_clock_now_s(cm->clock);
    sluice_status verdict =
        sluice_approval_gate_check(cm, arena, caller, id, f->code_hash, now, err);
    if (verdict != SLUICE_E_NOT_FOUND)
        return verdict;
    json_t *summary = validation_json(cm, f, risk, sluice_sql_explain(arena, f), NULL, 0);
    sluice_status st = hooks != NULL && hooks->approve != NULL
                           ? hooks->approve(hooks->approve_ctx, arena, summary, err)
                           : SLUICE_E_UNSUPPORTED;
    if (st == SLUICE_E_UNSUPPORTED && cm->approvals != NULL) {
        /* No one to ask here: an administrator decides later (recorded and audited there). */
        st = sluice_approval_gate_ask(cm, arena, caller, id, claims->expires_at, summary, now, err);
        json_decref(summary);
        return st;
    }
    json_decref(summary);
    if (st == SLUICE_E_UNSUPPORTED)
        return sluice_error_set(
            err, arena, SLUICE_E_DENIED,
            "this %s statement is %s risk, above the auto-approve levels, and needs human "
            "approval; no approval path is available on this connection, so it was not run. Ask "
            "an administrator, or rewrite it as a lower-risk read",
            action_label(f->action), sluice_risk_name(risk));
    json_t *record =
        json_pack("{s:s, s:s, s:s}", "decision", st == SLUICE_OK ? "approved" : "rejected",
                  "code_hash", f->code_hash, "via", "elicitation");
    if (st != SLUICE_OK)
        json_object_set_new(record, "reason", json_string(err->message));
    sluice_error audit_err = { 0 };
    if (sluice_codemode_audit(cm, arena, caller, "approval", record, &audit_err) != SLUICE_OK &&
        st == SLUICE_OK) {
        *err = audit_err;
        return SLUICE_E_IO;
    }
    return st;
}

static sluice_status run(sluice_codemode *cm,
                         sluice_arena *arena,
                         const sluice_codemode_caller *caller,
                         const sluice_config_code_mode *c,
                         const char *code,
                         size_t code_len,
                         const json_t *variables,
                         const sluice_codefacts *f,
                         const sluice_codemode_exec_hooks *hooks,
                         sluice_exec_result *r,
                         sluice_error *err)
{
    sluice_exec_request req = {
        .code = code,
        .code_len = code_len,
        .variables = variables,
        .limits = sluice_exec_limits_from_config(c),
        .identity = caller->identity,
        .scrub_errors = f->blocked_used.count > 0,
        .register_cancel = hooks != NULL ? hooks->register_cancel : NULL,
        .cancel_ctx = hooks != NULL ? hooks->cancel_ctx : NULL,
    };
    return sluice_executor_execute(cm->executor, arena, &req, r, err);
}

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
                                      sluice_error *err)
{
    if (atomic_load(&cm->audit_broken))
        return sluice_error_set(err, arena, SLUICE_E_IO,
                                "the audit log cannot be written, so nothing runs until an "
                                "administrator repairs it (sluice audit verify)");
    char *vars = variables_text(variables);
    sluice_codefacts *f = NULL;
    const sluice_policy_route *route = sluice_policy_route_for(cm->policy, caller->identity);
    json_t *policy = NULL;
    sluice_status st = analyze(cm, arena, route, code, code_len, vars, &f, err);
    if (st == SLUICE_OK)
        st = apply_policy(cm, arena, caller, route, f, &policy, err);
    json_decref(policy);
    if (st != SLUICE_OK) {
        free(vars);
        return st;
    }
    sluice_risk risk = sluice_risk_assess(f, NULL);
    sluice_token_claims expected, claims;
    st = expected_claims(cm, arena, caller, f, risk, vars, &expected);
    free(vars);
    if (st != SLUICE_OK) {
        sluice_error_set(err, arena, SLUICE_E_DENIED,
                         "the code does not parse, so it cannot be the code that was validated: "
                         "%s",
                         f->violation_count > 0 ? f->violations[0].message : "unparseable");
        return refuse(cm, arena, caller, code, "unparseable", SLUICE_E_DENIED, err);
    }
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    int64_t now = sluice_clock_now_s(cm->clock);
    st = sluice_token_verify(cm->ring, token, strlen(token), &expected, now, arena, &claims,
                             &problem, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, sluice_token_problem_name(problem), st, err);
    if (sluice_codefacts_refused(f)) {
        sluice_error_set(err, arena, SLUICE_E_DENIED, "the code is no longer allowed: %s",
                         f->violations[0].message);
        return refuse(cm, arena, caller, code, "violations", SLUICE_E_DENIED, err);
    }
    st = check_approval(cm, arena, caller, f, risk, &claims, hooks, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, "approval", st, err);
    sluice_status used = sluice_replay_consume(cm->replay, claims.token_id, claims.expires_at, now);
    if (used == SLUICE_E_DENIED) {
        sluice_error_set(err, arena, SLUICE_E_TOKEN,
                         "this approval token was already used; tokens run once. Call "
                         "validate_code again to get a new one");
        return refuse(cm, arena, caller, code, "replayed", SLUICE_E_TOKEN, err);
    }
    if (used != SLUICE_OK) {
        /* Without a durable record of the use, a replay after a restart could not be refused. */
        sluice_error_set(err, arena, SLUICE_E_IO,
                         "the server could not record that this token was used (%s), so it "
                         "refuses to run it; tell the administrator",
                         sluice_status_name(used));
        return refuse(cm, arena, caller, code, "replay_store", SLUICE_E_IO, err);
    }
    sluice_exec_result r = { 0 };
    st = run(cm, arena, caller, route->rules, code, code_len, variables, f, hooks, &r, err);
    const char *leaked = st == SLUICE_OK ? blocked_output_name(cm, &r) : NULL;
    if (leaked != NULL)
        st = sluice_error_set(err, arena, SLUICE_E_DENIED,
                              "result column '%s' has the name of a blocked field; rename it",
                              leaked);
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(claims.token_id, sizeof claims.token_id, id);
    json_t *record = json_pack("{s:s, s:s, s:s, s:s, s:I, s:b, s:I}", "decision",
                               st == SLUICE_OK ? "executed" : "failed", "code", code, "code_hash",
                               f->code_hash, "token_id", id, "rows", (json_int_t)r.row_count,
                               "truncated", r.truncated, "elapsed_ms", (json_int_t)r.elapsed_ms);
    if (st != SLUICE_OK)
        json_object_set_new(record, "error", json_string(err->message));
    sluice_error audit_err = { 0 };
    if (sluice_codemode_audit(cm, arena, caller, "execute", record, &audit_err) != SLUICE_OK &&
        st == SLUICE_OK) {
        *err = audit_err;
        return SLUICE_E_IO;
    }
    if (st != SLUICE_OK)
        return st;
    *out = sluice_present_result_json(&r);
    *out_text = sluice_present_untrusted_text(arena, &r);
    return *out != NULL && *out_text != NULL
               ? SLUICE_OK
               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}
