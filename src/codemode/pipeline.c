/*
 * pipeline.c — validate_code and execute_code (see codemode.h).
 *
 * The server never trusts the client to carry state: execute opens the token first (format,
 * MAC, expiry: garbage costs no analysis), judges the code it is given again — reusing the
 * analysis validate kept (analysis_cache.h) only under the code's own canonical hash and the live
 * context and variables — and checks every claim of the token against what it computes from the
 * live request.
 * The pipeline names no language and no engine: front ends come from lang/registry.h, the
 * executor from exec/executor.h.
 */
#include "codemode/analysis_cache.h"
#include "codemode/approval_gate.h"
#include "codemode/codemode.h"
#include "codemode/observe.h"
#include "codemode/present.h"
#include "codemode/quota_gate.h"
#include "codemode/risk.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/metrics.h"
#include "facts/codefacts.h"
#include "facts/verdict.h"
#include "lang/registry.h"
#include "policy/policy.h"
#include "state/audit.h"
#include "state/audit_pg.h"
#include "state/replay.h"
#include "state/state_redis.h"
#include "token/approval_state.h"
#include "token/key_store.h"
#include "token/secret.h"
#include "token/token.h"

#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* One backend code runs on: [database] ("default", always first) or a [[databases]] entry. */
typedef struct backend {
    const char *name;
    sluice_executor *executor;
    sluice_schema schema;         /* as read at open; requests judge against the live catalog */
    sluice_frontend_context fctx; /* what front ends may consult for code bound for it */
} backend;

struct sluice_codemode {
    const sluice_config *config;
    sluice_arena *arena; /* schemas, fingerprints */
    backend backends[SLUICE_LIMIT_BACKENDS];
    size_t backend_count;
    sluice_key_store *keys; /* the token keyring, re-read on SIGHUP and file change */
    sluice_replay *replay;
    sluice_approval_store *approvals; /* NULL without an audit log */
    sluice_audit *audit;
    /* 1, or the writer slot this process took because another one holds the audit log; tokens
     * are bound to it, since each slot has its own consume-once store */
    unsigned writer_slot;
    /* The configured languages ([code_mode] languages); the first is the default. */
    const sluice_frontend *langs[SLUICE_LANG_MAX_FRONTENDS];
    size_t lang_count;
    uint8_t rules_fingerprint[SLUICE_HASH_BYTES];
    atomic_bool audit_broken; /* an append failed: no more executions without an audit trail */
    sluice_policy *policy;    /* routes, derived rules and the policy backend */
    /* NULL: the system clock (tests set a manual one) */
    const sluice_clock *clock;
    sluice_analysis_cache *analyses; /* validated analyses, for execute */
    sluice_quota *quotas;            /* NULL: no quota configured */
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

/* language + schema version + rules + policy version and the caller's route + the caller's
 * groups (their permissions), in a fixed order. The language is in it so a token for code in one
 * language never runs the same bytes read as another. */
static sluice_status context_hash(const sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const char *language,
                                  const backend *be,
                                  const sluice_schema *schema,
                                  const sluice_identity *who,
                                  uint8_t out[SLUICE_HASH_BYTES])
{
    sluice_hash_state h;
    sluice_hash_start(&h);
    sluice_hash_update(&h, language, strlen(language) + 1);
    sluice_hash_update(&h, be->name, strlen(be->name) + 1);
    /* the live catalog's version: a verdict or token from before a schema reload never
     * matches after it (the analysis cache is keyed by this hash too) */
    sluice_hash_update(&h, schema->version_hash, strlen(schema->version_hash) + 1);
    sluice_hash_update(&h, cm->rules_fingerprint, sizeof cm->rules_fingerprint);
    const char *version = sluice_policy_version(cm->policy);
    const char *route = sluice_policy_route_for(cm->policy, who)->id;
    sluice_hash_update(&h, version, strlen(version) + 1);
    sluice_hash_update(&h, route, strlen(route) + 1);
    if (cm->writer_slot > 1)
        sluice_hash_update(&h, &cm->writer_slot, sizeof cm->writer_slot);
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

static bool no_variables(const json_t *variables)
{
    return variables == NULL || json_is_null(variables) ||
           (json_is_object(variables) && json_object_size(variables) == 0);
}

/* Canonical JSON (sorted keys, compact) of the variables; NULL when there are none (or when
 * out of memory: callers tell the two apart with no_variables). */
static char *variables_text(const json_t *variables)
{
    if (no_variables(variables))
        return NULL;
    return json_dumps(variables, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static void variables_hash(const char *text, uint8_t out[SLUICE_HASH_BYTES])
{
    const char *t = text != NULL ? text : "null";
    sluice_hash_sha256(t, strlen(t), out);
}

/* ---- open / close -------------------------------------------------------------------------- */

/* The quota counters, when some quota is set: in Redis when replicas share state, else here. */
static sluice_status open_quotas(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    if (!sluice_quota_configured(cm->config))
        return SLUICE_OK;
    if (cm->config->state.redis_url == NULL)
        return sluice_quota_open_local(&cm->quotas) == SLUICE_OK
                   ? SLUICE_OK
                   : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    const sluice_state_redis_options o = sluice_state_redis_options_of(&cm->config->state);
    return sluice_quota_open_redis(&o, &cm->quotas, err_arena, err);
}

static sluice_status open_stores(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    const sluice_config_code_mode *c = &cm->config->code_mode;
    const sluice_config_state *shared = &cm->config->state;
    if (shared->audit_postgres != NULL) { /* shared by replicas: docs/deploy.md */
        const sluice_audit_pg_options o = { shared->audit_postgres,
                                            shared->audit_postgres_password_file,
                                            shared->audit_postgres_password_env,
                                            shared->audit_postgres_table, NULL };
        sluice_status st = sluice_audit_open_pg(&o, &cm->audit, err_arena, err);
        if (st != SLUICE_OK)
            return st;
    } else if (c->audit_log != NULL) {
        const sluice_audit_file_options o = { .clock = NULL,
                                              .rotate_bytes = c->audit_rotate_bytes,
                                              .rotate_seconds = c->audit_rotate_seconds };
        sluice_status st = sluice_audit_open_writer(c->audit_log, &o, &cm->writer_slot, &cm->audit,
                                                    err_arena, err);
        if (st != SLUICE_OK)
            return st;
    }
    if (!c->enabled)
        return SLUICE_OK; /* curated tools only: no tokens to sign or spend */
    const sluice_key_sources keys = { c->token_secret_file, c->token_secret_env,
                                      c->token_previous_secret_file, c->token_previous_secret_env };
    sluice_status st = sluice_key_store_open(&keys, &cm->keys, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    st = open_quotas(cm, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    if (cm->config->state.redis_url != NULL) /* shared by replicas: docs/deploy.md */
        return sluice_state_redis_open(&cm->config->state, &cm->replay, &cm->approvals, err_arena,
                                       err);
    const char *replay_path = c->replay_store;
    if (replay_path == NULL && c->audit_log != NULL)
        replay_path = sluice_arena_printf(cm->arena, "%s.tokens", c->audit_log);
    if (replay_path != NULL && cm->writer_slot > 1) /* a second process: its own store too */
        replay_path = sluice_arena_printf(cm->arena, "%s.w%u", replay_path, cm->writer_slot);
    st =
        sluice_replay_open(replay_path, sluice_clock_now_s(cm->clock), &cm->replay, err_arena, err);
    if (st == SLUICE_OK && c->audit_log != NULL) {
        const char *path = sluice_arena_printf(cm->arena, "%s.approvals", c->audit_log);
        st = path != NULL ? sluice_approval_open(path, &cm->approvals, err_arena, err)
                          : SLUICE_E_NOMEM;
    }
    return st;
}

/* Resolves [code_mode] languages against the registry (default: sql). */
static sluice_status open_languages(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    static const char *const default_languages[] = { "sql" };
    const sluice_strlist *l = &cm->config->code_mode.languages;
    size_t n = l->count > 0 ? l->count : 1;
    if (n > SLUICE_LANG_MAX_FRONTENDS)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[code_mode] languages names %zu languages; at most %u", n,
                                SLUICE_LANG_MAX_FRONTENDS);
    for (size_t i = 0; i < n; i++) {
        const char *name = l->count > 0 ? l->items[i] : default_languages[i];
        const sluice_frontend *fe = sluice_lang_find(name);
        if (fe == NULL)
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "[code_mode] languages: no front end for '%s' is built in; "
                                    "known: %s",
                                    name, sluice_codemode_known_languages(err_arena));
        cm->langs[cm->lang_count++] = fe;
    }
    return SLUICE_OK;
}

const char *sluice_codemode_known_languages(sluice_arena *arena)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    for (size_t i = 0; i < sluice_lang_count(); i++)
        sluice_buf_printf(&b, "%s%s", i > 0 ? ", " : "", sluice_lang_at(i)->language);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "(out of memory)";
}

size_t sluice_codemode_language_count(const sluice_codemode *cm)
{
    return cm->lang_count;
}

const char *sluice_codemode_language(const sluice_codemode *cm, size_t index)
{
    return index < cm->lang_count ? cm->langs[index]->language : NULL;
}

/* Adds a backend on ex (owned by cm from here on, closed with it) and reads its schema. */
static sluice_status add_backend(sluice_codemode *cm,
                                 const char *name,
                                 sluice_executor *ex,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    for (size_t i = 0; i < cm->backend_count; i++)
        if (strcmp(cm->backends[i].name, name) == 0) {
            sluice_executor_close(ex);
            return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                    "two databases are named '%s'; give each [[databases]] "
                                    "entry its own name",
                                    name);
        }
    if (cm->backend_count >= SLUICE_LIMIT_BACKENDS) {
        sluice_executor_close(ex);
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "more than %u databases; the limit is SLUICE_LIMIT_BACKENDS",
                                SLUICE_LIMIT_BACKENDS);
    }
    backend *be = &cm->backends[cm->backend_count++];
    be->name = name;
    be->executor = ex;
    /* The first catalog snapshot, held for cm's life: requests share it until a reload. An
     * engine that opens on first need is not opened for it: requests read the catalog
     * themselves (sluice_executor_catalog), and sluice_codemode_check_backends reads it now. */
    const sluice_schema *first = NULL;
    sluice_status st = SLUICE_OK;
    if (!sluice_executor_opens_on_first_use(ex))
        st = sluice_executor_catalog(ex, cm->arena, &first, err);
    if (first != NULL)
        be->schema = *first;
    be->fctx.code_mode = &cm->config->code_mode;
    be->fctx.schema = &be->schema;
    be->fctx.engine = sluice_executor_engine(ex);
    /* Front ends reach the backend only through its catalog/bind service. */
    be->fctx.executor = ex;
    return st;
}

/* The backend a route's code runs on (checked to exist at open). */
static const backend *backend_for(const sluice_codemode *cm, const sluice_policy_route *route)
{
    for (size_t i = 0; route->database != NULL && i < cm->backend_count; i++)
        if (strcmp(cm->backends[i].name, route->database) == 0)
            return &cm->backends[i];
    return &cm->backends[0];
}

/* Opens the [[databases]] backends and checks that every route names one that exists. */
static sluice_status
open_named_backends(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    const sluice_config *c = cm->config;
    sluice_status st = SLUICE_OK;
    for (size_t i = 0; st == SLUICE_OK && i < c->database_count; i++) {
        sluice_executor *ex = NULL;
        st = sluice_executor_open(&c->databases[i], sluice_policy_engine_rules(cm->policy), &ex,
                                  err_arena, err);
        if (st == SLUICE_OK)
            st = add_backend(cm, c->databases[i].name, ex, err_arena, err);
    }
    for (size_t i = 0; st == SLUICE_OK && c->has_policy && i < c->policy.server_count; i++) {
        const char *want = c->policy.servers[i].database;
        const sluice_policy_route *r = sluice_policy_default_route(cm->policy);
        bool found = want == NULL;
        for (size_t k = 0; !found && k < cm->backend_count; k++)
            found = strcmp(cm->backends[k].name, want) == 0;
        (void)r;
        if (!found)
            st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                  "[[policy.servers]] '%s' runs on database '%s', which no "
                                  "[[databases]] entry names",
                                  c->policy.servers[i].id, want);
    }
    return st;
}

/* Opens everything but the default executor around ex (owned from here on, closed on
 * failure). */
static sluice_status open_around(const sluice_config *config,
                                 sluice_executor *ex,
                                 sluice_policy *policy,
                                 sluice_codemode **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_codemode *cm = calloc(1, sizeof *cm);
    if (cm == NULL || (cm->arena = sluice_arena_new()) == NULL) {
        free(cm);
        sluice_executor_close(ex);
        sluice_policy_close(policy);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    cm->config = config;
    cm->policy = policy;
    sluice_status st = add_backend(
        cm, config->database.name != NULL ? config->database.name : "default", ex, err_arena, err);
    if (st == SLUICE_OK)
        st = open_named_backends(cm, err_arena, err);
    if (st == SLUICE_OK)
        st = open_stores(cm, err_arena, err);
    if (st == SLUICE_OK)
        st = open_languages(cm, err_arena, err);
    if (st == SLUICE_OK && (cm->analyses = sluice_analysis_cache_new(0)) == NULL)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        sluice_codemode_close(cm);
        return st;
    }
    compute_rules_fingerprint(cm);
    *out = cm;
    return SLUICE_OK;
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
    sluice_policy *policy = NULL;
    sluice_executor *ex = NULL;
    sluice_status st = sluice_policy_open(config, &policy, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_executor_open(&config->database, sluice_policy_engine_rules(policy), &ex,
                                  err_arena, err);
    if (st != SLUICE_OK) {
        sluice_policy_close(policy);
        return st;
    }
    return open_around(config, ex, policy, out, err_arena, err);
}

sluice_status sluice_codemode_open_on(const sluice_config *config,
                                      sluice_executor *executor,
                                      sluice_codemode **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_policy *policy = NULL;
    sluice_status st = sluice_policy_open(config, &policy, err_arena, err);
    if (st != SLUICE_OK) {
        sluice_executor_close(executor);
        return st;
    }
    return open_around(config, executor, policy, out, err_arena, err);
}

sluice_status
sluice_codemode_check_backends(sluice_codemode *cm, sluice_arena *err_arena, sluice_error *err)
{
    sluice_status st = SLUICE_OK;
    for (size_t i = 0; st == SLUICE_OK && i < cm->backend_count; i++) {
        const sluice_schema *s = NULL;
        st = sluice_executor_catalog(cm->backends[i].executor, err_arena, &s, err);
    }
    return st;
}

void sluice_codemode_close(sluice_codemode *cm)
{
    if (cm == NULL)
        return;
    sluice_audit_close(cm->audit);
    sluice_replay_close(cm->replay);
    sluice_approval_close(cm->approvals);
    sluice_quota_close(cm->quotas);
    sluice_key_store_close(cm->keys);
    for (size_t i = 0; i < cm->backend_count; i++)
        sluice_executor_close(cm->backends[i].executor);
    sluice_policy_close(cm->policy);
    sluice_analysis_cache_free(cm->analyses);
    sluice_arena_free(cm->arena);
    free(cm);
}

sluice_executor *sluice_codemode_executor(sluice_codemode *cm)
{
    return cm->backends[0].executor;
}

const sluice_schema *sluice_codemode_schema(const sluice_codemode *cm)
{
    return &cm->backends[0].schema;
}

const sluice_schema *sluice_codemode_schema_now(sluice_codemode *cm, sluice_arena *arena)
{
    const sluice_schema *s = NULL;
    sluice_error scratch = { 0 };
    if (sluice_executor_catalog(cm->backends[0].executor, arena, &s, &scratch) != SLUICE_OK)
        return &cm->backends[0].schema;
    return s;
}

const sluice_config *sluice_codemode_config(const sluice_codemode *cm)
{
    return cm->config;
}

const sluice_policy *sluice_codemode_policy(const sluice_codemode *cm)
{
    return cm->policy;
}

sluice_key_store *sluice_codemode_keys(sluice_codemode *cm)
{
    return cm != NULL ? cm->keys : NULL;
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

bool sluice_codemode_audit_broken(const sluice_codemode *cm)
{
    return atomic_load(&cm->audit_broken);
}

sluice_quota *sluice_codemode_quotas(sluice_codemode *cm)
{
    return cm->quotas;
}

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
    sluice_codemode_observe_record(event, fields);
    if (cm->audit != NULL) {
        const sluice_identity *who = caller->identity;
        json_t *groups = json_array();
        for (size_t i = 0; groups != NULL && who != NULL && i < who->group_count; i++)
            if (json_array_append_new(groups, json_string(who->groups[i])) != 0) {
                json_decref(groups);
                groups = NULL;
            }
        bool ok =
            fields != NULL && groups != NULL &&
            json_object_set_new(fields, "event", json_string(event)) == 0 &&
            json_object_set_new(fields, "user", json_string(who != NULL ? who->user_id : "")) ==
                0 &&
            json_object_set_new(fields, "auth", json_string(who != NULL ? who->method : "")) == 0 &&
            json_object_set_new(fields, "session", json_string(caller->session_id)) == 0 &&
            json_object_set_new(fields, "server", json_string(cm->config->code_mode.server_id)) ==
                0;
        if (!ok || json_object_set_new(fields, "groups", groups) != 0) {
            /* a record missing a field is not written: the decision fails with it */
            if (!ok)
                json_decref(groups);
            json_decref(fields);
            return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                    "out of memory writing the audit record");
        }
        st = sluice_audit_append(cm->audit, fields, arena, err);
        if (st != SLUICE_OK) {
            atomic_store(&cm->audit_broken, true);
            sluice_log(SLUICE_LOG_ERROR, "audit log write failed: %s", err ? err->message : "");
        }
    }
    json_decref(fields);
    return st;
}

/* Appends every violation; false (list unusable) unless all of them are in: a refusal always
 * says why. */
static bool append_violations(json_t *list, const sluice_codefacts_violation *vs, size_t n)
{
    for (size_t i = 0; list != NULL && i < n; i++) {
        const sluice_codefacts_violation *v = &vs[i];
        json_t *o = json_pack(
            "{s:s, s:s, s:o, s:o, s:o}", "rule", v->rule, "message", v->message, "suggestion",
            v->suggestion != NULL ? json_string(v->suggestion) : json_null(), "line",
            v->line > 0 ? json_integer((json_int_t)v->line) : json_null(), "column",
            v->column > 0 ? json_integer((json_int_t)v->column) : json_null());
        if (o == NULL || json_array_append_new(list, o) != 0)
            return false;
    }
    return list != NULL;
}

/* NULL unless every string is in the array. */
static json_t *strings_json(const sluice_codefacts_list *list)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < list->count; i++)
        if (json_array_append_new(a, json_string(list->items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static void iso_time(int64_t t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- judging: language → analysis → policy → risk (validate and execute alike) ------------- */

/* Everything the pipeline concluded about one program for one caller. */
typedef struct judgement {
    const sluice_frontend *fe; /* NULL when the language is not configured */
    const sluice_policy_route *route;
    const backend *be;   /* the route's backend */
    const char *db_role; /* the database role the caller's code runs as (NULL: the backend's) */
    /* be's catalog snapshot, taken once per request (held until the arena is freed): analysis,
     * context hash and execution all see the same schema even when a reload lands meanwhile */
    const sluice_schema *schema;
    sluice_codefacts *facts; /* the analyzer's, never written by anyone else */
    sluice_verdict policy;   /* policy's verdict, merged into the result */
    json_t *policy_summary;  /* what decided (owned) */
    sluice_risk risk;
    const char *risk_reason;
    char *vars; /* canonical variables text (malloc'd) or NULL */
} judgement;

static void judgement_dispose(judgement *j)
{
    json_decref(j->policy_summary);
    free(j->vars);
}

static bool judgement_refused(const judgement *j)
{
    return j->fe == NULL || j->policy.refused || sluice_codefacts_refused(j->facts);
}

/* The configured front end the call names (NULL or "" names the default), or NULL. */
static const sluice_frontend *frontend_for(const sluice_codemode *cm, const char *language)
{
    if (language == NULL || language[0] == '\0')
        return cm->lang_count > 0 ? cm->langs[0] : NULL;
    for (size_t i = 0; i < cm->lang_count; i++)
        if (strcmp(cm->langs[i]->language, language) == 0)
            return cm->langs[i];
    return NULL;
}

/* Facts that only carry a refusal made before any front end looked at the code. */
static sluice_status refusal_facts(sluice_arena *arena,
                                   const char *language,
                                   const char *rule,
                                   const char *suggestion,
                                   const char *message,
                                   sluice_codefacts **out,
                                   sluice_error *err)
{
    sluice_codefacts *f = sluice_codefacts_new(arena, language);
    if (f == NULL ||
        sluice_codefacts_violate(f, rule, 0, 0, suggestion, "%s", message) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    *out = f;
    return SLUICE_OK;
}

/* Front end analysis under the rules of the route. */
static sluice_status analyze(const backend *be,
                             const sluice_schema *schema,
                             sluice_arena *arena,
                             const sluice_frontend *fe,
                             const sluice_policy_route *route,
                             const char *code,
                             size_t code_len,
                             const char *vars_text,
                             sluice_codefacts **facts,
                             sluice_error *err)
{
    if (code_len > SLUICE_LIMIT_CODE_BYTES) {
        char msg[128];
        snprintf(msg, sizeof msg, "the code is %zu bytes; the limit is %u bytes", code_len,
                 SLUICE_LIMIT_CODE_BYTES);
        return refusal_facts(arena, fe->language, "code_too_large",
                             "split the work or move logic into aggregates", msg, facts, err);
    }
    sluice_frontend_context fctx = be->fctx;
    fctx.code_mode = route->rules;
    fctx.schema = schema;
    /* always the execute-time variables ("{}" for none), so a front end checks them now */
    return fe->analyze(arena, code, code_len, vars_text != NULL ? vars_text : "{}", &fctx, facts,
                       err);
}

sluice_status sluice_codemode_analyze(sluice_codemode *cm,
                                      sluice_arena *arena,
                                      const char *code,
                                      size_t code_len,
                                      const json_t *variables,
                                      sluice_codefacts **out,
                                      sluice_error *err)
{
    const sluice_policy_route *route = sluice_policy_default_route(cm->policy);
    const backend *be = backend_for(cm, route);
    const sluice_schema *schema = NULL;
    sluice_status st = sluice_executor_catalog(be->executor, arena, &schema, err);
    if (st != SLUICE_OK)
        return st;
    char *vars = variables_text(variables);
    st = analyze(be, schema, arena, frontend_for(cm, NULL), route, code, code_len, vars, out, err);
    free(vars);
    return st;
}

/* Policy after the configuration rules: a deny (or an evaluation error: fail closed) is a
 * refusing verdict. Code that does not parse has no facts to judge and is refused already. */
static sluice_status apply_policy(sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_codemode_caller *caller,
                                  judgement *j,
                                  sluice_error *err)
{
    const sluice_codefacts *f = j->facts;
    if (f->code_hash[0] == '\0' || !sluice_policy_active(cm->policy))
        return SLUICE_OK;
    sluice_policy_decision d;
    sluice_status st = sluice_policy_evaluate(cm->policy, arena, caller->identity, j->route,
                                              f->action, f, &d, err);
    json_decref(d.request);
    if (st != SLUICE_OK)
        return st;
    json_t *ids = json_array();
    for (size_t i = 0; i < d.reason_count; i++)
        json_array_append_new(ids,
                              json_string(d.reasons[i].annotation != NULL ? d.reasons[i].annotation
                                                                          : d.reasons[i].id));
    json_object_set_new(j->policy_summary, "decision", json_string(d.allow ? "allow" : "deny"));
    json_object_set_new(j->policy_summary, "determining", ids);
    st = sluice_policy_verdict(&d, f->action, j->route, &j->policy);
    return st == SLUICE_OK ? SLUICE_OK : sluice_error_set(err, arena, st, "out of memory");
}

/* The cache key of code for caller now: its canonical hash (the front end's parse-only hash),
 * the live context hash and the request's variables. Non-OK: no key (the code does not parse,
 * or out of memory); the caller analyses instead. */
static sluice_status analysis_key(sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_codemode_caller *caller,
                                  const judgement *j,
                                  const char *code,
                                  size_t code_len,
                                  sluice_analysis_key *key)
{
    char hex[65];
    sluice_error scratch = { 0 };
    sluice_frontend_context fctx = j->be->fctx;
    fctx.code_mode = j->route->rules;
    fctx.schema = j->schema;
    sluice_status st = j->fe->canonical_hash(arena, code, code_len, &fctx, hex, &scratch);
    if (st == SLUICE_OK)
        st = sluice_hash_unhex(hex, strlen(hex), key->code_hash, sizeof key->code_hash);
    if (st == SLUICE_OK)
        st = context_hash(cm, arena, j->fe->language, j->be, j->schema, caller->identity,
                          key->context_hash);
    variables_hash(j->vars, key->variables_hash);
    return st;
}

/* For execute (hint: the opened token): the facts validate kept, when the code's own canonical
 * hash is the token's and the context and variables are the same now; else a full analysis.
 * The hint only saves a lookup that could not match: every part of the key is computed here. */
static sluice_status recall_or_analyze(sluice_codemode *cm,
                                       sluice_arena *arena,
                                       const sluice_codemode_caller *caller,
                                       judgement *j,
                                       const char *code,
                                       size_t code_len,
                                       const sluice_token_claims *hint,
                                       sluice_error *err)
{
    sluice_analysis_key key;
    if (hint != NULL && code_len <= SLUICE_LIMIT_CODE_BYTES &&
        analysis_key(cm, arena, caller, j, code, code_len, &key) == SLUICE_OK &&
        memcmp(key.code_hash, hint->code_hash, sizeof key.code_hash) == 0 &&
        sluice_analysis_cache_get(cm->analyses, &key, sluice_clock_now_s(cm->clock), arena,
                                  &j->facts) == SLUICE_OK)
        return SLUICE_OK;
    return analyze(j->be, j->schema, arena, j->fe, j->route, code, code_len, j->vars, &j->facts,
                   err);
}

/* Keeps the facts of code just validated for its token's lifetime, under the claims' hashes
 * (the same ones analysis_key computes at execute). A failure only costs execute an analysis. */
static void remember(sluice_codemode *cm, const sluice_token_claims *claims, const judgement *j)
{
    sluice_analysis_key key;
    memcpy(key.code_hash, claims->code_hash, sizeof key.code_hash);
    memcpy(key.context_hash, claims->context_hash, sizeof key.context_hash);
    memcpy(key.variables_hash, claims->variables_hash, sizeof key.variables_hash);
    sluice_analysis_cache_put(cm->analyses, &key, j->facts, claims->expires_at,
                              sluice_clock_now_s(cm->clock));
}

/* Judges code for caller: fills *j (dispose it) and returns SLUICE_OK, also when the code is
 * refused. Non-OK only when sluice itself failed (j->facts may then be NULL). hint: the opened
 * token, on execute (NULL on validate). */
static sluice_status judge(sluice_codemode *cm,
                           sluice_arena *arena,
                           const sluice_codemode_caller *caller,
                           const char *code,
                           size_t code_len,
                           const json_t *variables,
                           const sluice_token_claims *hint,
                           judgement *j,
                           sluice_error *err)
{
    memset(j, 0, sizeof *j);
    sluice_verdict_init(&j->policy, arena);
    j->risk = SLUICE_RISK_CRITICAL; /* until judged otherwise */
    j->vars = variables_text(variables);
    if (j->vars == NULL && !no_variables(variables)) /* never a token for "no variables" */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    j->route = sluice_policy_route_for(cm->policy, caller->identity);
    j->be = backend_for(cm, j->route);
    sluice_status st = sluice_executor_catalog(j->be->executor, arena, &j->schema, err);
    if (st != SLUICE_OK)
        return st;
    j->policy_summary =
        json_pack("{s:s, s:s, s:s}", "backend", sluice_policy_backend_name(cm->policy), "route",
                  j->route->id, "version", sluice_policy_version(cm->policy));
    if (j->policy_summary == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    j->fe = frontend_for(cm, caller->language);
    if (j->fe == NULL) {
        char msg[512];
        snprintf(msg, sizeof msg, "this server does not run '%s' code", caller->language);
        const char *known = sluice_arena_printf(arena, "use one of the configured languages: %s",
                                                sluice_codemode_languages_text(cm, arena));
        st = refusal_facts(arena, caller->language, "unknown_language", known, msg, &j->facts, err);
    } else {
        st = recall_or_analyze(cm, arena, caller, j, code, code_len, hint, err);
    }
    if (st == SLUICE_OK && j->fe != NULL)
        st = apply_policy(cm, arena, caller, j, err);
    if (st == SLUICE_OK &&
        sluice_policy_db_role(j->route, caller->identity, &j->db_role, &j->policy) != SLUICE_OK)
        st = sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && !judgement_refused(j))
        j->risk = sluice_risk_assess(j->fe, j->facts, &j->risk_reason);
    return st;
}

/* The front end's explanation, and the engine's estimate in words when there is one (issue 24:
 * the cost is known, and said, before anyone approves). */
static const char *explain(sluice_arena *arena, const judgement *j)
{
    if (j->fe == NULL || j->fe->explain == NULL)
        return "";
    const char *text = j->fe->explain(arena, j->facts);
    const sluice_codefacts *f = j->facts;
    if (text != NULL && f->estimate_engine != NULL && !sluice_codefacts_refused(f)) {
        const char *with = sluice_arena_printf(
            arena, "%s %s estimates about %lld row%s at a plan cost of %.0f before running it.",
            text, f->estimate_engine, (long long)f->estimated_rows,
            f->estimated_rows == 1 ? "" : "s", f->estimated_cost);
        text = with != NULL ? with : text;
    }
    return text != NULL ? text : "";
}

const char *sluice_codemode_languages_text(const sluice_codemode *cm, sluice_arena *arena)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 4096);
    for (size_t i = 0; i < cm->lang_count; i++)
        sluice_buf_printf(&b, "%s%s", i > 0 ? ", " : "", cm->langs[i]->language);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "(out of memory)";
}

/* ---- validate ------------------------------------------------------------------------------ */

static json_t *validation_json(const sluice_codemode *cm,
                               const judgement *j,
                               const char *explanation,
                               const char *token,
                               int64_t expires_at)
{
    const sluice_codefacts *f = j->facts;
    bool valid = !judgement_refused(j);
    bool auto_ok = valid && cm->config->code_mode.auto_approve[j->risk];
    char when[32];
    if (token != NULL)
        iso_time(expires_at, when);
    json_t *meta = sluice_codefacts_to_json(f);
    json_t *violations = json_array();
    if (!append_violations(violations, f->violations, f->violation_count) ||
        !append_violations(violations, j->policy.violations, j->policy.violation_count)) {
        json_decref(violations);
        json_decref(meta);
        return NULL;
    }
    json_t *o =
        json_pack("{s:b, s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:b, s:b}", "valid", valid, "language",
                  f->language != NULL ? f->language : "", "action", action_label(f->action),
                  "risk_level", sluice_risk_name(j->risk), "explanation", explanation, "violations",
                  violations, "warnings", strings_json(&f->warnings), "code_hash", f->code_hash,
                  "auto_approved", auto_ok, "requires_approval", valid && !auto_ok);
    if (o == NULL) {
        json_decref(meta);
        return NULL;
    }
    int bad =
        json_object_set_new(o, "approval_token", token != NULL ? json_string(token) : json_null());
    bad |= json_object_set_new(o, "expires_at", token != NULL ? json_string(when) : json_null());
    bad |= json_object_set_new(o, "metadata", meta);
    if (bad != 0) {
        json_decref(o); /* all or nothing: NULL means out of memory */
        return NULL;
    }
    return o;
}

/* The claims every token for this code, caller and request carries (the signer adds version,
 * key, id and times). SLUICE_E_INVALID when the facts have no code hash (unparseable). */
static sluice_status bound_claims(sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_codemode_caller *caller,
                                  const judgement *j,
                                  sluice_token_claims *claims)
{
    const sluice_codefacts *f = j->facts;
    memset(claims, 0, sizeof *claims);
    if (sluice_hash_unhex(f->code_hash, strlen(f->code_hash), claims->code_hash,
                          sizeof claims->code_hash) != SLUICE_OK)
        return SLUICE_E_INVALID;
    claims->user_id = caller->identity->user_id;
    /* Without session binding a token follows its principal across transport sessions (the
     * stateless protocol revision has none). */
    claims->session_id = cm->config->code_mode.token_bind_session ? caller->session_id : "";
    claims->server_id = cm->config->code_mode.server_id;
    variables_hash(j->vars, claims->variables_hash);
    claims->action = (sluice_action)f->action;
    claims->risk = j->risk;
    return context_hash(cm, arena, j->fe->language, j->be, j->schema, caller->identity,
                        claims->context_hash);
}

static sluice_status issue_token(sluice_codemode *cm,
                                 sluice_arena *arena,
                                 const sluice_codemode_caller *caller,
                                 const judgement *j,
                                 sluice_token_claims *claims,
                                 char **token,
                                 sluice_error *err)
{
    sluice_status st = bound_claims(cm, arena, caller, j, claims);
    if (st == SLUICE_E_INVALID)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL, "analysis produced no code hash");
    if (st != SLUICE_OK)
        return sluice_error_set(err, arena, st, "out of memory");
    const sluice_secret_ring *ring = sluice_key_store_acquire(cm->keys);
    st = sluice_token_issue(ring, claims, sluice_clock_now_s(cm->clock),
                            cm->config->code_mode.token_ttl_seconds, arena, token, err);
    sluice_key_store_release(cm->keys, ring);
    return st;
}

static sluice_status refuse(sluice_codemode *cm,
                            sluice_arena *arena,
                            const sluice_codemode_caller *caller,
                            const char *code,
                            const char *reason,
                            sluice_status status,
                            sluice_error *err);

static sluice_status validate(sluice_codemode *cm,
                              sluice_arena *arena,
                              const sluice_codemode_caller *caller,
                              const char *code,
                              size_t code_len,
                              const json_t *variables,
                              bool dry_run,
                              json_t **out,
                              sluice_error *err)
{
    /* before any analysis: a caller over quota costs no work */
    sluice_status st =
        sluice_quota_gate_admit(cm, arena, caller, SLUICE_QUOTA_STAGE_VALIDATE, NULL, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, st == SLUICE_E_LIMIT ? "quota" : "quota_store", st,
                      err);
    judgement j;
    st = judge(cm, arena, caller, code, code_len, variables, NULL, &j, err);
    if (st != SLUICE_OK) {
        judgement_dispose(&j);
        return st;
    }
    char *token = NULL;
    sluice_token_claims claims = { 0 };
    bool valid = !judgement_refused(&j);
    if (valid && !dry_run) {
        st = issue_token(cm, arena, caller, &j, &claims, &token, err);
        if (st != SLUICE_OK) {
            judgement_dispose(&j);
            return st;
        }
        remember(cm, &claims, &j);
    }
    const sluice_codefacts *f = j.facts;
    json_t *result = validation_json(cm, &j, explain(arena, &j), token, claims.expires_at);
    if (result == NULL || json_object_set(result, "policy", j.policy_summary) != 0 ||
        sluice_arena_failed(arena)) {
        /* checked last: a verdict built while an allocation failed is no verdict */
        json_decref(result);
        judgement_dispose(&j);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory while validating; nothing was approved");
    }
    json_t *record = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "decision", valid ? "validated" : "refused",
        "language", f->language != NULL ? f->language : "", "code",
        code_len <= SLUICE_LIMIT_CODE_BYTES ? code : "(too large)", "code_hash", f->code_hash,
        "action", action_label(f->action), "risk", sluice_risk_name(j.risk), "violations",
        json_object_get(result, "violations"));
    if (token != NULL) {
        char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
        sluice_hash_hex(claims.token_id, sizeof claims.token_id, id);
        json_object_set_new(record, "token_id", json_string(id));
    }
    json_object_set_new(record, "dry_run", json_boolean(dry_run));
    json_object_set(record, "policy", j.policy_summary);
    judgement_dispose(&j);
    st = sluice_codemode_audit(cm, arena, caller, valid ? "validate" : "deny", record, err);
    if (st != SLUICE_OK) {
        json_decref(result);
        return st;
    }
    *out = result;
    return SLUICE_OK;
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
    int64_t start = sluice_metric_now_ns();
    sluice_status st = validate(cm, arena, caller, code, code_len, variables, dry_run, out, err);
    sluice_codemode_observe_time(cm, caller, false, sluice_metric_now_ns() - start);
    return st;
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
    json_object_set_new(record, "code", json_string(code != NULL ? code : ""));
    sluice_error audit_err = { 0 };
    sluice_codemode_audit(cm, arena, caller, "deny", record, &audit_err);
    return status;
}

/* A token check failed: counted by the check, then refused like any other. */
static sluice_status refuse_token(sluice_codemode *cm,
                                  sluice_arena *arena,
                                  const sluice_codemode_caller *caller,
                                  const char *code,
                                  sluice_token_problem problem,
                                  sluice_status status,
                                  sluice_error *err)
{
    const char *check = sluice_token_problem_name(problem);
    sluice_metric_inc(SLUICE_METRIC_TOKEN_REFUSALS, check, NULL, NULL);
    return refuse(cm, arena, caller, code, check, status, err);
}

sluice_status sluice_codemode_refuse_request(sluice_codemode *cm,
                                             sluice_arena *arena,
                                             const sluice_codemode_caller *caller,
                                             const char *code,
                                             const char *reason,
                                             const char *message)
{
    sluice_error err = { .message = message };
    return refuse(cm, arena, caller, code, reason, SLUICE_E_DENIED, &err);
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
                                    const judgement *j,
                                    const sluice_token_claims *claims,
                                    const sluice_codemode_exec_hooks *hooks,
                                    sluice_error *err)
{
    const sluice_codefacts *f = j->facts;
    if (cm->config->code_mode.auto_approve[j->risk])
        return SLUICE_OK;
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(claims->token_id, sizeof claims->token_id, id);
    int64_t now = sluice_clock_now_s(cm->clock);
    sluice_status verdict =
        sluice_approval_gate_check(cm, arena, caller, id, f->code_hash, now, err);
    if (verdict != SLUICE_E_NOT_FOUND)
        return verdict;
    json_t *summary = validation_json(cm, j, explain(arena, j), NULL, 0);
    if (summary == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
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
            "this %s program is %s risk, above the auto-approve levels, and needs human "
            "approval; no approval path is available on this connection, so it was not run. Ask "
            "an administrator, or rewrite it as a lower-risk read",
            action_label(f->action), sluice_risk_name(j->risk));
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

static sluice_status run(sluice_arena *arena,
                         const sluice_codemode_caller *caller,
                         const judgement *j,
                         const char *code,
                         size_t code_len,
                         const json_t *variables,
                         const sluice_codemode_exec_hooks *hooks,
                         const char *token_id,
                         const sluice_quota_room *room,
                         sluice_exec_result *r,
                         sluice_error *err)
{
    /* a plan's calls are checked again at run time against what was validated */
    const sluice_strlist validated = { j->facts->operations.items, j->facts->operations.count };
    sluice_exec_request req = {
        .code = code,
        .code_len = code_len,
        .variables = variables,
        .limits = sluice_exec_limits_from_config(j->route->rules),
        .identity = caller->identity,
        .db_role = j->db_role,
        .publish_claims = j->route->rules->caller_claims,
        .scrub_errors = j->facts->blocked_used.count > 0,
        .engine_bounded = j->facts->engine_bounded,
        .register_cancel = hooks != NULL ? hooks->register_cancel : NULL,
        .cancel_ctx = hooks != NULL ? hooks->cancel_ctx : NULL,
        .schema = j->schema,
        .validated_operations = &validated,
        .token_id = token_id,
        /* below high, the analysis found no read of a blocked field: the run proves it */
        .below_high_risk = j->risk < SLUICE_RISK_HIGH,
    };
    sluice_quota_gate_clamp(&req.limits, room); /* never past what today's quotas allow */
    return sluice_executor_execute(j->be->executor, arena, &req, r, err);
}

/* Everything before the engine runs: the token opened (before any analysis), the code judged
 * again, the token matched against the live request, approval, single use. SLUICE_OK: the
 * program may run now, *claims are the token's. Every refusal is audited. */
static sluice_status admit(sluice_codemode *cm,
                           sluice_arena *arena,
                           const sluice_codemode_caller *caller,
                           const char *code,
                           size_t code_len,
                           const char *token,
                           const json_t *variables,
                           const sluice_codemode_exec_hooks *hooks,
                           judgement *j,
                           sluice_token_claims *claims,
                           sluice_error *err)
{
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    int64_t now = sluice_clock_now_s(cm->clock);
    const sluice_secret_ring *ring = sluice_key_store_acquire(cm->keys);
    sluice_status st =
        sluice_token_open(ring, token, strlen(token), now, arena, claims, &problem, err);
    sluice_key_store_release(cm->keys, ring);
    if (st != SLUICE_OK)
        return refuse_token(cm, arena, caller, code, problem, st, err);
    st = judge(cm, arena, caller, code, code_len, variables, claims, j, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, "internal", st, err);
    sluice_token_claims expected;
    st = bound_claims(cm, arena, caller, j, &expected);
    if (st == SLUICE_E_INVALID) {
        const sluice_codefacts *f = j->facts;
        sluice_error_set(err, arena, SLUICE_E_DENIED,
                         "the code does not parse, so it cannot be the code that was validated: "
                         "%s",
                         f->violation_count > 0 ? f->violations[0].message : "unparseable");
        return refuse(cm, arena, caller, code, "unparseable", SLUICE_E_DENIED, err);
    }
    if (st != SLUICE_OK) {
        sluice_error_set(err, arena, st, "out of memory");
        return refuse(cm, arena, caller, code, "internal", st, err);
    }
    st = sluice_token_match(claims, &expected, arena, &problem, err);
    if (st != SLUICE_OK)
        return refuse_token(cm, arena, caller, code, problem, st, err);
    if (judgement_refused(j)) {
        const sluice_codefacts *f = j->facts;
        const char *why = f->violation_count > 0          ? f->violations[0].message
                          : j->policy.violation_count > 0 ? j->policy.violations[0].message
                                                          : "it is refused";
        sluice_error_set(err, arena, SLUICE_E_DENIED, "the code is no longer allowed: %s", why);
        return refuse(cm, arena, caller, code, "violations", SLUICE_E_DENIED, err);
    }
    st = check_approval(cm, arena, caller, j, claims, hooks, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, "approval", st, err);
    sluice_status used =
        sluice_replay_consume(cm->replay, claims->token_id, claims->expires_at, now);
    if (used == SLUICE_E_DENIED) {
        sluice_error_set(err, arena, SLUICE_E_TOKEN,
                         "this approval token was already used; tokens run once. Call "
                         "validate_code again to get a new one");
        return refuse(cm, arena, caller, code, "replayed", SLUICE_E_TOKEN, err);
    }
    if (used != SLUICE_OK) {
        /* Without a durable record of the use, a replay after a restart could not be refused. */
        char why[320];
        sluice_replay_describe(cm->replay, why, sizeof why);
        sluice_error_set(err, arena, SLUICE_E_IO,
                         "the server could not record that this token was used (%s: %s), so it "
                         "refuses to run it (fail closed); tell the administrator",
                         sluice_status_name(used), why);
        return refuse(cm, arena, caller, code, "replay_store", SLUICE_E_IO, err);
    }
    return SLUICE_OK;
}

static sluice_status execute(sluice_codemode *cm,
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
    /* before the token is opened: a caller over quota costs no work, and keeps the token */
    sluice_quota_room room;
    sluice_status st =
        sluice_quota_gate_admit(cm, arena, caller, SLUICE_QUOTA_STAGE_EXECUTE, &room, err);
    if (st != SLUICE_OK)
        return refuse(cm, arena, caller, code, st == SLUICE_E_LIMIT ? "quota" : "quota_store", st,
                      err);
    judgement j;
    memset(&j, 0, sizeof j);
    sluice_token_claims claims;
    st = admit(cm, arena, caller, code, code_len, token, variables, hooks, &j, &claims, err);
    if (st != SLUICE_OK) {
        judgement_dispose(&j);
        return st;
    }
    sluice_exec_result r = { 0 };
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(claims.token_id, sizeof claims.token_id, id);
    st = run(arena, caller, &j, code, code_len, variables, hooks, id, &room, &r, err);
    if (st != SLUICE_OK)
        sluice_metric_inc(SLUICE_METRIC_ENGINE_ERRORS, sluice_status_name(st), NULL, NULL);
    /* what it returned and called counts even when it then failed; unrecorded, the result is
     * withheld (fail closed: the audit record still says what ran) */
    sluice_error charge_err = { 0 };
    if (sluice_quota_gate_charge(cm, arena, caller, &r, &charge_err) != SLUICE_OK &&
        st == SLUICE_OK) {
        *err = charge_err;
        st = SLUICE_E_IO;
    }
    const char *leaked = st == SLUICE_OK ? blocked_output_name(cm, &r) : NULL;
    if (leaked != NULL)
        st = sluice_error_set(err, arena, SLUICE_E_DENIED,
                              "result column '%s' has the name of a blocked field; rename it",
                              leaked);
    json_t *record =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I}", "decision",
                  st == SLUICE_OK ? "executed" : "failed", "language", j.facts->language, "code",
                  code, "code_hash", j.facts->code_hash, "action", action_label(j.facts->action),
                  "token_id", id, "rows", (json_int_t)r.row_count, "truncated", r.truncated,
                  "elapsed_ms", (json_int_t)r.elapsed_ms);
    judgement_dispose(&j);
    if (st != SLUICE_OK)
        json_object_set_new(record, "error", json_string(err->message));
    if (r.calls != NULL) /* a plan's upstream calls, with statuses and idempotency keys */
        json_object_set(record, "calls", r.calls);
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

/* ---- approval requestStates (MCP 2026-07-28) ---------------------------------------------- */

static const char *user_of_caller(const sluice_codemode_caller *caller)
{
    const char *user = caller->identity != NULL ? caller->identity->user_id : NULL;
    return user != NULL ? user : "";
}

sluice_status sluice_codemode_approval_state_seal(sluice_codemode *cm,
                                                  sluice_arena *arena,
                                                  const sluice_codemode_caller *caller,
                                                  const char *approval_token,
                                                  char **out,
                                                  sluice_error *err)
{
    return sluice_approval_state_seal(cm->keys, user_of_caller(caller),
                                      approval_token != NULL ? approval_token : "",
                                      sluice_clock_now_s(cm->clock), arena, out, err);
}

sluice_status sluice_codemode_approval_state_open(sluice_codemode *cm,
                                                  sluice_arena *arena,
                                                  const sluice_codemode_caller *caller,
                                                  const char *approval_token,
                                                  const char *state,
                                                  sluice_error *err)
{
    sluice_approval_state_answer answer = { .state = state,
                                            .user_id = user_of_caller(caller),
                                            .approval_token =
                                                approval_token != NULL ? approval_token : "" };
    return sluice_approval_state_open(cm->keys, cm->replay, &answer, sluice_clock_now_s(cm->clock),
                                      arena, err);
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
    int64_t start = sluice_metric_now_ns();
    sluice_status st =
        execute(cm, arena, caller, code, code_len, token, variables, hooks, out, out_text, err);
    sluice_codemode_observe_time(cm, caller, true, sluice_metric_now_ns() - start);
    return st;
}
