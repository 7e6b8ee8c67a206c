/*
 * pipeline.c — validate_code and execute_code (see codemode.h).
 *
 * The server never trusts the client to carry state: execute opens the token first (format,
 * MAC, expiry: garbage costs no analysis), judges the code it is given again — reusing the
 * analysis validate kept (analysis_cache.h) only for the same text or under the code's own
 * canonical hash, and the live context and variables — and checks every claim of the token
 * against what it computes from the live request. validate itself reuses a kept analysis only
 * of the same text, and only where the data cannot change (may_recall_validated).
 * The pipeline names no language and no engine: front ends come from lang/registry.h, the
 * executor from exec/executor.h.
 */
#include "codemode/analysis_cache.h"
#include "codemode/approval_gate.h"
#include "codemode/codemode.h"
#include "codemode/estimate.h"
#include "codemode/observe.h"
#include "codemode/present.h"
#include "codemode/program.h"
#include "codemode/quota_gate.h"
#include "codemode/risk.h"
#include "codemode/runtime.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/hash.h"
#include "core/hash_memo.h"
#include "core/json_write.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/metrics.h"
#include "exec/engines.h"
#include "facts/codefacts.h"
#include "facts/verdict.h"
#include "lang/registry.h"
#include "policy/policy.h"
#include "token/approval_state.h"
#include "token/token.h"

#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
    sluice_runtime *rt; /* keys, stores, audit sink and clock: borrowed from the CLI */
    /* The configured languages ([code_mode] languages); the first is the default. */
    const sluice_frontend *langs[SLUICE_LANG_MAX_FRONTENDS];
    size_t lang_count;
    uint8_t rules_fingerprint[SLUICE_HASH_BYTES];
    sluice_policy *policy;           /* routes, derived rules and the policy backend */
    sluice_analysis_cache *analyses; /* validated analyses, for execute */
};

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
    json_t *policy_summary;  /* what decided (released when the arena is freed) */
    sluice_risk risk;
    const char *risk_reason;
    const char *vars; /* canonical variables text (in the arena) or NULL */
} judgement;

/* One request on its way through the stages (SQLite's Parse): what was asked, and what the
 * stages concluded so far. Every stage takes it; everything it holds lives in the request's
 * arena (jansson values as arena cleanups), so a request is freed in one place, with that
 * arena, on every path. */
typedef struct request {
    sluice_codemode *cm;
    const sluice_codemode_request *in; /* the call: caller, code, variables, token, hooks */
    sluice_arena *arena;               /* in->arena */
    sluice_error *err;                 /* in->err: what failed, for the caller's client */
    judgement j;
    sluice_token_claims claims; /* execute: the opened token's; validate: the signed one's */
    sluice_quota_room room;     /* execute: what today's quotas still let the run return */
    bool recall;   /* validate: the facts kept for the same text may answer (recall_or_analyze) */
    bool recalled; /* they did: nothing new to keep */
    /* Hashed once per request, when first needed (the code and the judged context do not
     * change within one): the text's SHA-256 (text_hash_of), the context hash (context_hash),
     * the variables' hash (vars_hash_of, for the variables text vars_of, which judge sets). */
    bool text_hashed, context_hashed, vars_hashed;
    uint8_t text_hash[SLUICE_HASH_BYTES];
    uint8_t context[SLUICE_HASH_BYTES];
    const char *vars_of;
    uint8_t vars_hash[SLUICE_HASH_BYTES];
} request;

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

/* Orders hash parts that are NUL-terminated strings (their NUL included). */
static int compare_string_parts(const void *a, const void *b)
{
    return strcmp(((const sluice_hash_part *)a)->data, ((const sluice_hash_part *)b)->data);
}

static sluice_hash_part string_part(const char *s)
{
    return (sluice_hash_part){ s, strlen(s) + 1 };
}

/* language + schema version + rules + policy version and the caller's route + the caller's
 * groups (their permissions), in a fixed order. The language is in it so a token for code in one
 * language never runs the same bytes read as another. A caller's calls hash the same bytes, so
 * each thread remembers its last (core/hash_memo.h: keyed by every byte hashed, never stale). */
static sluice_status compute_context_hash(const request *r, uint8_t out[SLUICE_HASH_BYTES])
{
    static _Thread_local sluice_hash_memo memo;
    enum { FIXED_PARTS = 7 };
    const sluice_codemode *cm = r->cm;
    const sluice_identity *who = r->in->caller->identity;
    size_t groups = who != NULL ? who->group_count : 0;
    sluice_hash_part fixed[FIXED_PARTS], *parts = fixed;
    if (groups > 0) {
        parts = sluice_arena_calloc(r->arena, FIXED_PARTS + groups, sizeof *parts);
        if (parts == NULL)
            return SLUICE_E_NOMEM;
    }
    size_t n = 0;
    parts[n++] = string_part(r->j.fe->language);
    parts[n++] = string_part(r->j.be->name);
    /* the live catalog's version: a verdict or token from before a schema reload never
     * matches after it (the analysis cache is keyed by this hash too) */
    parts[n++] = string_part(r->j.schema->version_hash);
    parts[n++] = (sluice_hash_part){ cm->rules_fingerprint, sizeof cm->rules_fingerprint };
    parts[n++] = string_part(sluice_policy_version(cm->policy));
    parts[n++] = string_part(sluice_policy_route_for(cm->policy, who)->id);
    if (cm->rt->writer_slot > 1)
        parts[n++] = (sluice_hash_part){ &cm->rt->writer_slot, sizeof cm->rt->writer_slot };
    for (size_t i = 0; i < groups; i++)
        parts[n + i] = string_part(who->groups[i]);
    qsort(parts + n, groups, sizeof *parts, compare_string_parts);
    sluice_hash_memo_sha256(&memo, parts, n + groups, out);
    return SLUICE_OK;
}

/* r's context hash (compute_context_hash), computed once r is judged and kept for the rest of
 * the request. */
static sluice_status context_hash(request *r, uint8_t out[SLUICE_HASH_BYTES])
{
    if (!r->context_hashed) {
        sluice_status st = compute_context_hash(r, r->context);
        if (st != SLUICE_OK)
            return st;
        r->context_hashed = true;
    }
    memcpy(out, r->context, sizeof r->context);
    return SLUICE_OK;
}

/* The SHA-256 of r's code as sent. */
static const uint8_t *text_hash_of(request *r)
{
    if (!r->text_hashed) {
        sluice_hash_sha256(r->in->code, r->in->code_len, r->text_hash);
        r->text_hashed = true;
    }
    return r->text_hash;
}

static bool no_variables(const json_t *variables)
{
    return variables == NULL || json_is_null(variables) ||
           (json_is_object(variables) && json_object_size(variables) == 0);
}

/* Canonical JSON (sorted keys, compact) of the variables, in arena; NULL when there are none
 * (or when out of memory: callers tell the two apart with no_variables). */
static const char *variables_text(sluice_arena *arena, const json_t *variables)
{
    if (no_variables(variables))
        return NULL;
    char *text = json_dumps(variables, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    const char *copy = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return copy;
}

/* Most calls have no variables ("null") or a caller's same ones: each thread remembers its last
 * (core/hash_memo.h: keyed by every byte). */
static void variables_hash(const char *text, uint8_t out[SLUICE_HASH_BYTES])
{
    static _Thread_local sluice_hash_memo memo;
    const char *t = text != NULL ? text : "null";
    sluice_hash_memo_sha256(&memo, &(sluice_hash_part){ t, strlen(t) }, 1, out);
}

/* variables_hash of r's variables text, hashed once per request: recall_text, the claims and
 * analysis_key all ask for it. */
static void vars_hash_of(request *r, uint8_t out[SLUICE_HASH_BYTES])
{
    if (!r->vars_hashed || r->vars_of != r->j.vars) {
        variables_hash(r->j.vars, r->vars_hash);
        r->vars_of = r->j.vars;
        r->vars_hashed = true;
    }
    memcpy(out, r->vars_hash, SLUICE_HASH_BYTES);
}

/* ---- open / close -------------------------------------------------------------------------- */

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
                                "too many databases (limit is %u); remove [[databases]] entries",
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

/* A code mode on config and rt with nothing opened yet; NULL when out of memory. */
static sluice_codemode *codemode_new(const sluice_config *config, sluice_runtime *rt)
{
    sluice_codemode *cm = calloc(1, sizeof *cm);
    if (cm == NULL || (cm->arena = sluice_arena_new()) == NULL) {
        free(cm);
        return NULL;
    }
    cm->config = config;
    cm->rt = rt;
    return cm;
}

/* Opens everything but the policy and the default executor around ex, on cm (from
 * codemode_new, its policy open). Both are owned from here on; on failure both are closed. */
static sluice_status open_around(sluice_codemode *cm,
                                 sluice_executor *ex,
                                 sluice_codemode **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    const sluice_config *config = cm->config;
    sluice_status st = add_backend(
        cm, config->database.name != NULL ? config->database.name : "default", ex, err_arena, err);
    if (st == SLUICE_OK)
        st = open_named_backends(cm, err_arena, err);
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
                                   sluice_runtime *rt,
                                   sluice_codemode **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    if (!config->has_database)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "code mode and [[tools]] need a [database] to run against; add "
                                "a [database] section with engine and path");
    sluice_codemode *cm = codemode_new(config, rt);
    if (cm == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    sluice_executor *ex = NULL;
    sluice_status st = sluice_policy_open(config, &cm->policy, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_executor_open(&config->database, sluice_policy_engine_rules(cm->policy), &ex,
                                  err_arena, err);
    if (st != SLUICE_OK) {
        sluice_codemode_close(cm);
        return st;
    }
    return open_around(cm, ex, out, err_arena, err);
}

sluice_status sluice_codemode_open_on(const sluice_config *config,
                                      sluice_runtime *rt,
                                      sluice_executor *executor,
                                      sluice_codemode **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_codemode *cm = codemode_new(config, rt);
    sluice_status st = cm != NULL
                           ? sluice_policy_open(config, &cm->policy, err_arena, err)
                           : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        sluice_executor_close(executor);
        sluice_codemode_close(cm);
        return st;
    }
    return open_around(cm, executor, out, err_arena, err);
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

sluice_arena *sluice_codemode_arena(sluice_codemode *cm)
{
    return cm->arena;
}

/* ---- audit --------------------------------------------------------------------------------- */

sluice_status sluice_codemode_audit(sluice_codemode *cm,
                                    sluice_arena *arena,
                                    const sluice_codemode_caller *caller,
                                    const char *event,
                                    json_t *fields,
                                    sluice_error *err)
{
    return sluice_runtime_audit(cm->rt, arena, caller, event, fields, err);
}

/* Appends every violation; false (list unusable) unless all of them are in: a refusal always
 * says why. Members are set one by one (json_pack parses its format on every call) with the
 * unchecked setter: the keys are literals. */
static bool append_violations(json_t *list, const sluice_codefacts_violation *vs, size_t n)
{
    for (size_t i = 0; list != NULL && i < n; i++) {
        const sluice_codefacts_violation *v = &vs[i];
        json_t *o = json_object();
        int bad = json_object_set_new_nocheck(o, "rule", sluice_json_string(v->rule));
        bad |= json_object_set_new_nocheck(o, "message", sluice_json_string(v->message));
        bad |= json_object_set_new_nocheck(o, "suggestion",
                                           v->suggestion != NULL ? sluice_json_string(v->suggestion)
                                                                 : json_null());
        bad |= json_object_set_new_nocheck(
            o, "line", v->line > 0 ? json_integer((json_int_t)v->line) : json_null());
        bad |= json_object_set_new_nocheck(
            o, "column", v->column > 0 ? json_integer((json_int_t)v->column) : json_null());
        if (bad != 0 || json_array_append_new(list, o) != 0) {
            if (bad != 0)
                json_decref(o);
            return false;
        }
    }
    return list != NULL;
}

/* ---- judging: language → analysis → policy → risk (validate and execute alike) ------------- */

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

/* Facts that only carry a refusal made before any front end looked at the code: r's facts. */
static sluice_status refusal_facts(
    request *r, const char *language, const char *rule, const char *suggestion, const char *message)
{
    sluice_codefacts *f = sluice_codefacts_new(r->arena, language);
    if (f == NULL ||
        sluice_codefacts_violate(f, rule, 0, 0, suggestion, "%s", message) != SLUICE_OK)
        return sluice_error_set(r->err, r->arena, SLUICE_E_NOMEM, "out of memory");
    r->j.facts = f;
    return SLUICE_OK;
}

/* Front end analysis under the rules of r's route, on its backend's catalog: r's facts. */
static sluice_status analyze(request *r)
{
    const judgement *j = &r->j;
    size_t code_len = r->in->code_len;
    if (code_len > SLUICE_LIMIT_CODE_BYTES) {
        char msg[128];
        snprintf(msg, sizeof msg, "the code is %zu bytes; the limit is %u bytes", code_len,
                 SLUICE_LIMIT_CODE_BYTES);
        return refusal_facts(r, j->fe->language, "code_too_large",
                             "split the work or move logic into aggregates", msg);
    }
    sluice_frontend_context fctx = j->be->fctx;
    fctx.code_mode = j->route->rules;
    fctx.schema = j->schema;
    fctx.identity = r->in->caller != NULL ? r->in->caller->identity : NULL;
    fctx.db_role = j->db_role;
    /* always the execute-time variables ("{}" for none), so a front end checks them now */
    sluice_status st = j->fe->analyze(r->arena, r->in->code, code_len,
                                      j->vars != NULL ? j->vars : "{}", &fctx, &r->j.facts, r->err);
    /* the route's estimate limits, in one place for every language and engine (issue 24) */
    if (st == SLUICE_OK && sluice_estimate_limit(r->j.facts, j->route->rules) != SLUICE_OK)
        st = sluice_error_set(r->err, r->arena, SLUICE_E_NOMEM, "out of memory");
    return st;
}

sluice_status sluice_codemode_analyze(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      sluice_codefacts **out)
{
    request r = { .cm = cm, .in = req, .arena = req->arena, .err = req->err };
    r.j.route = sluice_policy_default_route(cm->policy);
    r.j.be = backend_for(cm, r.j.route);
    r.j.fe = frontend_for(cm, NULL);
    sluice_status st = sluice_executor_catalog(r.j.be->executor, r.arena, &r.j.schema, r.err);
    if (st != SLUICE_OK)
        return st;
    r.j.vars = variables_text(r.arena, req->variables);
    st = analyze(&r);
    if (st == SLUICE_OK)
        *out = r.j.facts;
    return st;
}

/* Policy after the configuration rules: a deny (or an evaluation error: fail closed) is a
 * refusing verdict. Code that does not parse has no facts to judge and is refused already. */
static sluice_status apply_policy(request *r)
{
    sluice_codemode *cm = r->cm;
    judgement *j = &r->j;
    const sluice_codefacts *f = j->facts;
    if (f->code_hash[0] == '\0' || !sluice_policy_active(cm->policy))
        return SLUICE_OK;
    sluice_policy_decision d;
    sluice_status st = sluice_policy_evaluate(cm->policy, r->arena, r->in->caller->identity,
                                              j->route, f->action, f, &d, r->err);
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
    return st == SLUICE_OK ? SLUICE_OK : sluice_error_set(r->err, r->arena, st, "out of memory");
}

/* The cache key of r's code for its caller now: its canonical hash (the front end's parse-only
 * hash), the live context hash and the request's variables. Non-OK: no key (the code does not
 * parse, or out of memory); the caller analyses instead. */
static sluice_status analysis_key(request *r, sluice_analysis_key *key)
{
    const judgement *j = &r->j;
    char hex[65];
    sluice_error scratch = { 0 };
    sluice_frontend_context fctx = j->be->fctx;
    fctx.code_mode = j->route->rules;
    fctx.schema = j->schema;
    sluice_status st =
        j->fe->canonical_hash(r->arena, r->in->code, r->in->code_len, &fctx, hex, &scratch);
    if (st == SLUICE_OK)
        st = sluice_hash_unhex(hex, strlen(hex), key->code_hash, sizeof key->code_hash);
    if (st == SLUICE_OK)
        st = context_hash(r, key->context_hash);
    vars_hash_of(r, key->variables_hash);
    return st;
}

/* Whether execute must analyse r's code again for a live estimate: the token's estimate came
 * from the engine's planner and the data may have moved it since approval (admit compares the
 * two, and a kept analysis would hide the move). A backend whose data cannot change (a DuckDB
 * file opened read_only) plans the same estimate again, so its kept analysis is the live one. */
static bool needs_live_estimate(const request *r, const sluice_token_claims *claims)
{
    return sluice_estimate_needs_live(claims) && !sluice_executor_data_fixed(r->j.be->executor);
}

/* The facts validate kept for exactly r's text, looked up without parsing it: by the SHA-256
 * of the text as sent, with the live context and variables hashes. The entry that answers was
 * analysed from the same bytes under the same context hash, so its canonical hash is the one
 * the text has now (the canonical form is a function of the text and of what the context hash
 * covers); another text, even one of the same canonical form, misses here. */
static sluice_status recall_text(request *r)
{
    sluice_analysis_text_key key;
    memcpy(key.text_hash, text_hash_of(r), sizeof key.text_hash);
    vars_hash_of(r, key.variables_hash);
    sluice_status st = context_hash(r, key.context_hash);
    if (st == SLUICE_OK)
        st = sluice_analysis_cache_get_text(r->cm->analyses, &key, sluice_runtime_now_s(r->cm->rt),
                                            r->arena, &r->j.facts);
    return st;
}

/* The facts validate kept for r's canonical form, when the code's own canonical hash has the
 * token's code mark (hint: the opened token) and the context and variables are the same now.
 * The mark only saves a lookup that could not match: every part of the key is computed here. */
static sluice_status recall_canonical(request *r, const sluice_token_claims *hint)
{
    sluice_analysis_key key;
    sluice_status st = analysis_key(r, &key);
    if (st == SLUICE_OK &&
        memcmp(key.code_hash, hint->marks[SLUICE_TOKEN_MARK_CODE], SLUICE_TOKEN_MARK_BYTES) != 0)
        st = SLUICE_E_NOT_FOUND;
    if (st == SLUICE_OK)
        st = sluice_analysis_cache_get(r->cm->analyses, &key, sluice_runtime_now_s(r->cm->rt),
                                       r->arena, &r->j.facts);
    return st;
}

/* Whether validate may take the facts kept for exactly r's text instead of analysing it: only
 * on a backend whose data cannot change (a DuckDB file opened read_only). Everything an analysis
 * reads is then in recall_text's key or cannot move:
 * - the text (its SHA-256), the variables (their canonical text, the one analyze passes) and the
 *   context hash: language, backend, the live catalog's version, the rules fingerprint, the
 *   policy version and the caller's route (the route's rules, which analyze and the estimate
 *   limits read, are a function of the configuration, fixed for cm's life, and of those two) and
 *   groups;
 * - the caller's identity and db_role reach no DuckDB bind (the SQL front end never reads them;
 *   only the PostgreSQL front end asks a plan as the caller's role, and a PostgreSQL backend's
 *   data is never fixed), and policy, db_role and risk are judged again on every call anyway;
 * - the catalog beyond its version (view bodies, macros) and the table statistics the planner's
 *   estimate comes from cannot change under a read-only file; no caller can SET anything on the
 *   analyzer's connection (the analyzer refuses SET and session functions);
 * - time: no analysis reads the clock (a bind that times out is refused, and refused facts are
 *   never kept), and the kept facts expire with the token first issued for them;
 * - configuration: loaded once per code mode (SIGHUP reloads keys and catalogs, whose versions
 *   are in the key), limits are constants or configuration.
 * So the kept facts are what the analysis would say now; the token, policy, risk, audit record,
 * quotas and metrics are made on every call as before. */
static bool may_recall_validated(const request *r)
{
    return r->recall && sluice_executor_data_fixed(r->j.be->executor);
}

/* For execute (hint: the opened token): the facts validate kept for this text (no parse), else
 * for its canonical form (a parse), else a full analysis. Whatever answers, admit then checks
 * the token's claims against the facts' own code hash and the live context and variables.
 * For validate (may_recall_validated): the facts kept for this text, else a full analysis. */
static sluice_status recall_or_analyze(request *r, const sluice_token_claims *hint)
{
    bool fits = r->in->code_len <= SLUICE_LIMIT_CODE_BYTES;
    if (fits && hint != NULL && !needs_live_estimate(r, hint) &&
        (recall_text(r) == SLUICE_OK || recall_canonical(r, hint) == SLUICE_OK))
        r->recalled = true;
    else if (fits && hint == NULL && may_recall_validated(r) && recall_text(r) == SLUICE_OK)
        r->recalled = true;
    if (!r->recalled)
        return analyze(r);
    sluice_metric_inc(SLUICE_METRIC_ANALYSIS_RECALLS, hint != NULL ? "execute" : "validate", NULL,
                      NULL);
    return SLUICE_OK;
}

/* Keeps the facts of code just validated for its token's lifetime, under the claims' hashes
 * (the same ones analysis_key computes at execute) and the hash of the text itself
 * (recall_text). Facts made while an allocation of the request failed may lack a fact the
 * analyzer could not add: they are never kept, since a later call would take them as whole. A
 * failure only costs a later call an analysis. */
static void remember(request *r)
{
    if (sluice_arena_failed(r->arena))
        return;
    const sluice_token_claims *claims = &r->claims;
    sluice_analysis_key key;
    memcpy(key.code_hash, claims->code_hash, sizeof key.code_hash);
    memcpy(key.context_hash, claims->context_hash, sizeof key.context_hash);
    memcpy(key.variables_hash, claims->variables_hash, sizeof key.variables_hash);
    sluice_analysis_cache_put(r->cm->analyses, &key, text_hash_of(r), r->j.facts,
                              claims->expires_at, sluice_runtime_now_s(r->cm->rt));
}

static void release_json(void *value)
{
    json_decref(value);
}

/* Judges r's code for its caller: fills r->j and returns SLUICE_OK, also when the code is
 * refused. Non-OK only when sluice itself failed (r->j.facts may then be NULL). hint: the
 * opened token, on execute (NULL on validate). */
/* What decides for route: the policy backend, the route and the policy's version (NULL when
 * out of memory). Set member by member (json_pack parses its format on every call); the keys
 * are literals, and the version's hex is sluice's own ASCII. */
static json_t *policy_summary(const sluice_codemode *cm, const sluice_policy_route *route)
{
    json_t *o = json_object();
    int bad = json_object_set_new_nocheck(
        o, "backend", sluice_json_string(sluice_policy_backend_name(cm->policy)));
    bad |= json_object_set_new_nocheck(o, "route", sluice_json_string(route->id));
    bad |= json_object_set_new_nocheck(o, "version",
                                       json_string_nocheck(sluice_policy_version(cm->policy)));
    if (bad != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static sluice_status judge(request *r, const sluice_token_claims *hint)
{
    sluice_codemode *cm = r->cm;
    const sluice_codemode_caller *caller = r->in->caller;
    sluice_arena *arena = r->arena;
    judgement *j = &r->j;
    memset(j, 0, sizeof *j);
    sluice_verdict_init(&j->policy, arena);
    j->risk = SLUICE_RISK_CRITICAL; /* until judged otherwise */
    j->vars = variables_text(arena, r->in->variables);
    if (j->vars == NULL && !no_variables(r->in->variables)) /* never a token for "no variables" */
        return sluice_error_set(r->err, arena, SLUICE_E_NOMEM, "out of memory");
    j->route = sluice_policy_route_for(cm->policy, caller->identity);
    j->be = backend_for(cm, j->route);
    sluice_status st = sluice_executor_catalog(j->be->executor, arena, &j->schema, r->err);
    if (st != SLUICE_OK)
        return st;
    /* the arena releases it (at once when the cleanup cannot be registered) */
    json_t *summary = policy_summary(cm, j->route);
    if (summary == NULL || sluice_arena_cleanup_add(arena, release_json, summary) != SLUICE_OK)
        return sluice_error_set(r->err, arena, SLUICE_E_NOMEM, "out of memory");
    j->policy_summary = summary;
    j->fe = frontend_for(cm, caller->language);
    /* before the analysis: the engine's plan is asked for as the role that will run the code */
    if (sluice_policy_db_role(j->route, caller->identity, &j->db_role, &j->policy) != SLUICE_OK)
        return sluice_error_set(r->err, arena, SLUICE_E_NOMEM, "out of memory");
    if (j->fe == NULL) {
        char msg[512];
        snprintf(msg, sizeof msg, "this server does not run '%s' code", caller->language);
        const char *known = sluice_arena_printf(arena, "use one of the configured languages: %s",
                                                sluice_codemode_languages_text(cm, arena));
        st = refusal_facts(r, caller->language, "unknown_language", known, msg);
    } else {
        st = recall_or_analyze(r, hint);
    }
    if (st == SLUICE_OK && j->fe != NULL)
        st = apply_policy(r);
    if (st == SLUICE_OK && !judgement_refused(j))
        j->risk = sluice_risk_assess(j->fe, j->facts, &j->risk_reason);
    return st;
}

/* The histogram label of caller's language: a configured one, else "unknown" (a client's text
 * never becomes a label). */
static const char *language_label(const sluice_codemode *cm, const sluice_codemode_caller *caller)
{
    const sluice_frontend *fe = frontend_for(cm, caller != NULL ? caller->language : NULL);
    return fe != NULL ? fe->language : "unknown";
}

/* The front end's explanation, and the engine's estimate in words when there is one (issue 24:
 * the cost is known, and said, before anyone approves). */
static const char *explain(sluice_arena *arena, const judgement *j)
{
    if (j->fe == NULL || j->fe->explain == NULL)
        return "";
    const char *text = j->fe->explain(arena, j->facts);
    const char *words = sluice_estimate_words(arena, j->facts);
    if (text != NULL && words != NULL && words[0] != '\0') {
        /* "text words", joined by copying (a printf would scan the long text twice); out of
         * memory leaves the front end's text, and validate checks the arena before answering */
        size_t nt = strlen(text), nw = strlen(words);
        char *with = sluice_arena_alloc(arena, nt + nw + 2);
        if (with != NULL) {
            memcpy(with, text, nt);
            with[nt] = ' ';
            memcpy(with + nt + 1, words, nw + 1);
            text = with;
        }
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
                               sluice_arena *arena,
                               const judgement *j,
                               const char *explanation,
                               const char *token,
                               int64_t expires_at)
{
    const sluice_codefacts *f = j->facts;
    bool valid = !judgement_refused(j);
    bool auto_ok = valid && cm->config->code_mode.auto_approve[j->risk];
    char when[SLUICE_CLOCK_UTC_TEXT];
    if (token != NULL)
        sluice_clock_utc_text(expires_at, when);
    /* the metadata as its text, written once from the facts into the request's arena, which the
     * placeholder borrows: the wire sends it as is, and no one here reads inside it
     * (core/json_splice.h; the CLI and tests expand it) */
    json_t *meta = sluice_codefacts_json_splice(f, arena);
    json_t *violations = json_array();
    if (!append_violations(violations, f->violations, f->violation_count) ||
        !append_violations(violations, j->policy.violations, j->policy.violation_count)) {
        json_decref(violations);
        json_decref(meta);
        return NULL;
    }
    /* member by member (json_pack parses its format on every call); the keys are literals */
    json_t *o = json_object();
    int bad = json_object_set_new_nocheck(o, "valid", json_boolean(valid));
    bad |= json_object_set_new_nocheck(o, "language",
                                       sluice_json_string(f->language != NULL ? f->language : ""));
    /* the labels, the hex code_hash, the token (its prefix, base64url and '.') and its expiry
     * time are sluice's own ASCII: no UTF-8 check; text from the code (language, explanation)
     * is checked, by sluice_json_string */
    bad |= json_object_set_new_nocheck(o, "action", json_string_nocheck(action_label(f->action)));
    bad |= json_object_set_new_nocheck(o, "risk_level",
                                       json_string_nocheck(sluice_risk_name(j->risk)));
    bad |= json_object_set_new_nocheck(o, "explanation", sluice_json_string(explanation));
    bad |= json_object_set_new_nocheck(o, "violations", violations);
    bad |= json_object_set_new_nocheck(o, "warnings", sluice_codefacts_list_json(&f->warnings));
    bad |= json_object_set_new_nocheck(o, "code_hash", json_string_nocheck(f->code_hash));
    bad |= json_object_set_new_nocheck(o, "auto_approved", json_boolean(auto_ok));
    bad |= json_object_set_new_nocheck(o, "requires_approval", json_boolean(valid && !auto_ok));
    bad |= json_object_set_new_nocheck(o, "approval_token",
                                       token != NULL ? json_string_nocheck(token) : json_null());
    bad |= json_object_set_new_nocheck(o, "expires_at",
                                       token != NULL ? json_string_nocheck(when) : json_null());
    bad |= json_object_set_new_nocheck(o, "metadata", meta);
    if (bad != 0) {
        json_decref(o); /* all or nothing: NULL means out of memory */
        return NULL;
    }
    return o;
}

/* The claims every token for r's code, caller and variables carries (the signer adds version,
 * key, id and times). SLUICE_E_INVALID when the facts have no code hash (unparseable). */
static sluice_status bound_claims(request *r, sluice_token_claims *claims)
{
    const sluice_config_code_mode *c = &r->cm->config->code_mode;
    const sluice_codemode_caller *caller = r->in->caller;
    const judgement *j = &r->j;
    const sluice_codefacts *f = j->facts;
    memset(claims, 0, sizeof *claims);
    if (sluice_hash_unhex(f->code_hash, strlen(f->code_hash), claims->code_hash,
                          sizeof claims->code_hash) != SLUICE_OK)
        return SLUICE_E_INVALID;
    claims->user_id = caller->identity->user_id;
    /* Without session binding a token follows its principal across transport sessions (the
     * stateless protocol revision has none). */
    claims->session_id = c->token_bind_session ? caller->session_id : "";
    claims->server_id = c->server_id;
    vars_hash_of(r, claims->variables_hash);
    claims->action = (sluice_action)f->action;
    claims->risk = j->risk;
    return context_hash(r, claims->context_hash);
}

/* Signs r's token (its claims in r->claims) into *token. */
static sluice_status issue_token(request *r, char **token)
{
    sluice_runtime *rt = r->cm->rt;
    sluice_status st = bound_claims(r, &r->claims);
    if (st == SLUICE_E_INVALID)
        return sluice_error_set(r->err, r->arena, SLUICE_E_INTERNAL,
                                "analysis produced no code hash");
    if (st != SLUICE_OK)
        return sluice_error_set(r->err, r->arena, st, "out of memory");
    /* the estimate the approver is shown is part of what is approved (execute checks drift) */
    sluice_estimate_bind(r->j.facts, &r->claims);
    const sluice_secret_ring *ring = sluice_key_store_acquire(rt->keys);
    st = sluice_token_issue(ring, &r->claims, sluice_runtime_now_s(rt),
                            r->cm->config->code_mode.token_ttl_seconds, r->arena, token, r->err);
    sluice_key_store_release(rt->keys, ring);
    return st;
}

static sluice_status refuse(const request *r, const char *reason, sluice_status status);

static sluice_quota_gate quota_gate_of(const sluice_codemode *cm)
{
    return (sluice_quota_gate){ cm->rt, cm->config, cm->policy };
}

/* Counts r's call of stage against its caller's quotas, before any analysis (a caller over
 * quota costs no work); a refusal is audited, and at execute the token is kept. */
static sluice_status admit_quota(request *r, sluice_quota_stage stage, sluice_quota_room *room)
{
    const sluice_quota_gate gate = quota_gate_of(r->cm);
    sluice_status st = sluice_quota_gate_admit(&gate, r->arena, r->in->caller, stage, room, r->err);
    if (st != SLUICE_OK)
        return refuse(r, st == SLUICE_E_LIMIT ? "quota" : "quota_store", st);
    return SLUICE_OK;
}

/* The audit record of r's verdict (result): what was decided on which code, its violations, the
 * token's id when one was issued, the policy and the estimate the token signs (shown beside the
 * code to whoever approves it; the console reads it from this record). Written as text straight
 * from the verdict into out, in r's arena (a tree built, written and freed on every validate was
 * a tenth of its cost); a member that cannot be written marks out bad, so the record is not
 * written and the validate fails. */
static void validation_record(const request *r, json_t *result, bool issued, sluice_json_out *out)
{
    const sluice_codemode_request *in = r->in;
    const judgement *j = &r->j;
    const sluice_codefacts *f = j->facts;
    sluice_json_out_key(out, "decision");
    sluice_json_out_string(out, judgement_refused(j) ? "refused" : "validated");
    sluice_json_out_key(out, "language");
    sluice_json_out_string(out, f->language != NULL ? f->language : "");
    sluice_json_out_key(out, "code");
    sluice_json_out_string(out, in->code_len <= SLUICE_LIMIT_CODE_BYTES ? in->code : "(too large)");
    sluice_json_out_key(out, "code_hash");
    sluice_json_out_string(out, f->code_hash);
    sluice_json_out_key(out, "action");
    sluice_json_out_string(out, action_label(f->action));
    sluice_json_out_key(out, "risk");
    sluice_json_out_string(out, sluice_risk_name(j->risk));
    sluice_json_out_key(out, "violations");
    sluice_json_out_value(out, json_object_get(result, "violations"));
    if (issued) {
        char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
        sluice_hash_hex(r->claims.token_id, sizeof r->claims.token_id, id);
        sluice_json_out_key(out, "token_id");
        sluice_json_out_string(out, id);
    }
    sluice_json_out_key(out, "dry_run");
    sluice_json_out_bool(out, in->dry_run);
    sluice_json_out_key(out, "policy");
    sluice_json_out_value(out, j->policy_summary);
    if (f->estimate_kind != SLUICE_ESTIMATE_NONE) {
        sluice_json_out_key(out, "estimate");
        sluice_estimate_write(out, f);
    }
}

/* Audits r's verdict (result) as event, its record written as text (validation_record). */
static sluice_status audit_validation(const request *r, json_t *result, bool issued, bool valid)
{
    sluice_buf buf;
    sluice_buf_init(&buf, r->arena, 0);
    sluice_buf_reserve(&buf, SLUICE_AUDIT_TEXT_RESERVE);
    sluice_json_out out = { .buf = &buf };
    validation_record(r, result, issued, &out);
    const json_t *first = json_array_get(json_object_get(result, "violations"), 0);
    const sluice_codemode_seen seen = {
        .event = valid ? "validate" : "deny",
        .decision = judgement_refused(&r->j) ? "refused" : "validated",
        .rows = -1,
        .reason = json_string_value(json_object_get(first, "rule")),
    };
    return sluice_runtime_audit_members(r->cm->rt, r->arena, r->in->caller, &seen, &out, r->err);
}

static sluice_status validate(request *r, json_t **out)
{
    const sluice_codemode_request *in = r->in;
    sluice_arena *arena = r->arena;
    const judgement *j = &r->j;
    sluice_status st = admit_quota(r, SLUICE_QUOTA_STAGE_VALIDATE, NULL);
    r->recall = true;
    if (st == SLUICE_OK)
        st = judge(r, NULL);
    if (st != SLUICE_OK)
        return st;
    char *token = NULL;
    bool valid = !judgement_refused(j);
    if (valid && !in->dry_run) {
        st = issue_token(r, &token);
        if (st != SLUICE_OK)
            return st;
        /* execute analyses those again anyway; recalled facts are kept already */
        if (!needs_live_estimate(r, &r->claims) && !r->recalled)
            remember(r);
    }
    json_t *result =
        validation_json(r->cm, arena, j, explain(arena, j), token, r->claims.expires_at);
    if (result == NULL || json_object_set(result, "policy", j->policy_summary) != 0 ||
        sluice_arena_failed(arena)) {
        /* checked last: a verdict built while an allocation failed is no verdict */
        json_decref(result);
        return sluice_error_set(r->err, arena, SLUICE_E_NOMEM,
                                "out of memory while validating; nothing was approved");
    }
    st = audit_validation(r, result, token != NULL, valid);
    if (st != SLUICE_OK) {
        json_decref(result);
        return st;
    }
    *out = result;
    return SLUICE_OK;
}

sluice_status
sluice_codemode_validate(sluice_codemode *cm, const sluice_codemode_request *req, json_t **out)
{
    int64_t start = sluice_metric_now_ns();
    request r = { .cm = cm, .in = req, .arena = req->arena, .err = req->err };
    sluice_status st = validate(&r, out);
    sluice_codemode_observe_time(language_label(cm, req->caller), false,
                                 sluice_metric_now_ns() - start);
    return st;
}

/* ---- execute ------------------------------------------------------------------------------- */

/* Audits r's refused execution and passes the status through. */
static sluice_status refuse(const request *r, const char *reason, sluice_status status)
{
    const sluice_error *err = r->err;
    json_t *record = json_pack("{s:s, s:s, s:s}", "decision", "refused", "reason", reason,
                               "message", err != NULL && err->message ? err->message : "");
    json_object_set_new(record, "code", sluice_json_string(r->in->code != NULL ? r->in->code : ""));
    return sluice_runtime_audit_outcome(
        r->cm->rt, r->arena, (sluice_runtime_event){ r->in->caller, "deny", record }, status, NULL);
}

/* A token check failed: counted by the check, then refused like any other. */
static sluice_status
refuse_token(const request *r, sluice_token_problem problem, sluice_status status)
{
    const char *check = sluice_token_problem_name(problem);
    sluice_metric_inc(SLUICE_METRIC_TOKEN_REFUSALS, check, NULL, NULL);
    return refuse(r, check, status);
}

sluice_status sluice_codemode_refuse_request(sluice_codemode *cm,
                                             sluice_arena *arena,
                                             const sluice_codemode_caller *caller,
                                             const char *code,
                                             const char *reason,
                                             const char *message)
{
    sluice_error err = { .message = message };
    const sluice_codemode_request in = {
        .arena = arena, .caller = caller, .code = code, .err = &err
    };
    const request r = { .cm = cm, .in = &in, .arena = arena, .err = &err };
    return refuse(&r, reason, SLUICE_E_DENIED);
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

static sluice_status check_approval(request *r)
{
    sluice_codemode *cm = r->cm;
    sluice_arena *arena = r->arena;
    const sluice_codemode_caller *caller = r->in->caller;
    const sluice_codemode_exec_hooks *hooks = r->in->hooks;
    const judgement *j = &r->j;
    const sluice_token_claims *claims = &r->claims;
    sluice_error *err = r->err;
    const sluice_codefacts *f = j->facts;
    if (cm->config->code_mode.auto_approve[j->risk])
        return SLUICE_OK;
    sluice_status verdict =
        sluice_approval_gate_check(cm->rt, arena, caller, claims, f->code_hash, err);
    if (verdict != SLUICE_E_NOT_FOUND)
        return verdict;
    json_t *summary = validation_json(cm, arena, j, explain(arena, j), NULL, 0);
    if (summary == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    sluice_status st = hooks != NULL && hooks->approve != NULL
                           ? hooks->approve(hooks->approve_ctx, r->in, summary)
                           : SLUICE_E_UNSUPPORTED;
    if (st == SLUICE_E_UNSUPPORTED && cm->rt->approvals != NULL) {
        /* No one to ask here: an administrator decides later (recorded and audited there). */
        st = sluice_approval_gate_ask(cm->rt, arena, caller, claims, summary, err);
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
    return sluice_runtime_audit_outcome(
        cm->rt, arena, (sluice_runtime_event){ caller, "approval", record }, st, err);
}

/* Runs r's admitted program on its route's backend. */
static sluice_status run(const request *r, const char *token_id, sluice_exec_result *result)
{
    const judgement *j = &r->j;
    const sluice_codemode_exec_hooks *hooks = r->in->hooks;
    /* a plan's calls are checked again at run time against what was validated */
    const sluice_strlist validated = { j->facts->operations.items, j->facts->operations.count };
    sluice_exec_request req = {
        .code = r->in->code,
        .code_len = r->in->code_len,
        .variables = r->in->variables,
        .limits = sluice_exec_limits_from_config(j->route->rules),
        .identity = r->in->caller->identity,
        .db_role = j->db_role,
        .publish_claims = j->route->rules->caller_claims,
        .scrub_errors = j->facts->blocked_used.count > 0,
        .engine_bounded = j->facts->engine_bounded,
        /* approved programs come again (a model asks the same question anew): the backend may
         * keep the statement prepared */
        .repeated_statement = true,
        .register_cancel = hooks != NULL ? hooks->register_cancel : NULL,
        .cancel_ctx = hooks != NULL ? hooks->cancel_ctx : NULL,
        .schema = j->schema,
        .validated_operations = &validated,
        .token_id = token_id,
        /* below high, the analysis found no read of a blocked field: the run proves it */
        .below_high_risk = j->risk < SLUICE_RISK_HIGH,
        .rows_text_only = r->in->rows_spliced, /* present splices rows_text (run_and_report) */
    };
    sluice_quota_gate_clamp(&req.limits, &r->room); /* never past what today's quotas allow */
    return sluice_executor_execute(j->be->executor, r->arena, &req, result, r->err);
}

/* Everything before the engine runs: the token opened (before any analysis), the code judged
 * again, the token matched against the live request, approval, single use. SLUICE_OK: the
 * program may run now, r->claims are the token's. Every refusal is audited. */
static sluice_status admit(request *r)
{
    sluice_codemode *cm = r->cm;
    sluice_arena *arena = r->arena;
    const char *token = r->in->token;
    sluice_error *err = r->err;
    judgement *j = &r->j;
    sluice_token_claims *claims = &r->claims;
    sluice_token_problem problem = SLUICE_TOKEN_OK;
    int64_t now = sluice_runtime_now_s(cm->rt);
    const sluice_secret_ring *ring = sluice_key_store_acquire(cm->rt->keys);
    sluice_token_check check = { token, strlen(token), ring, now };
    sluice_status st = sluice_token_open(&check, arena, claims, &problem, err);
    sluice_key_store_release(cm->rt->keys, ring);
    if (st != SLUICE_OK)
        return refuse_token(r, problem, st);
    st = judge(r, claims);
    if (st != SLUICE_OK)
        return refuse(r, "internal", st);
    sluice_token_claims expected;
    st = bound_claims(r, &expected);
    if (st == SLUICE_E_INVALID) {
        const sluice_codefacts *f = j->facts;
        sluice_error_set(err, arena, SLUICE_E_DENIED,
                         "the code does not parse, so it cannot be the code that was validated: "
                         "%s",
                         f->violation_count > 0 ? f->violations[0].message : "unparseable");
        return refuse(r, "unparseable", SLUICE_E_DENIED);
    }
    if (st != SLUICE_OK) {
        sluice_error_set(err, arena, st, "out of memory");
        return refuse(r, "internal", st);
    }
    st = sluice_token_match(claims, &expected, arena, &problem, err);
    if (st == SLUICE_OK) /* the estimate made again now, within the factor of the approved one */
        st = sluice_estimate_drift(claims, j->facts, j->route->rules, arena, &problem, err);
    if (st != SLUICE_OK)
        return refuse_token(r, problem, st);
    if (judgement_refused(j)) {
        const sluice_codefacts *f = j->facts;
        const char *why = f->violation_count > 0          ? f->violations[0].message
                          : j->policy.violation_count > 0 ? j->policy.violations[0].message
                                                          : "it is refused";
        sluice_error_set(err, arena, SLUICE_E_DENIED, "the code is no longer allowed: %s", why);
        return refuse(r, "violations", SLUICE_E_DENIED);
    }
    st = check_approval(r);
    if (st != SLUICE_OK)
        return refuse(r, "approval", st);
    sluice_status used =
        sluice_replay_consume(cm->rt->replay, claims->token_id, claims->expires_at, now);
    if (used == SLUICE_E_DENIED) {
        sluice_error_set(err, arena, SLUICE_E_TOKEN,
                         "this approval token was already used; tokens run once. Call "
                         "validate_code again to get a new one");
        return refuse(r, "replayed", SLUICE_E_TOKEN);
    }
    if (used != SLUICE_OK) {
        /* Without a durable record of the use, a replay after a restart could not be refused. */
        char why[320];
        sluice_replay_describe(cm->rt->replay, why, sizeof why);
        sluice_error_set(err, arena, SLUICE_E_IO,
                         "the server could not record that this token was used (%s: %s), so it "
                         "refuses to run it (fail closed); tell the administrator",
                         sluice_status_name(used), why);
        return refuse(r, "replay_store", SLUICE_E_IO);
    }
    return SLUICE_OK;
}

/* Runs r's admitted program and reports it: usage charged against the quotas, the output
 * guard, one "execute" audit record (naming the program when a saved one ran: its promotion was
 * the approval) and the result. run_id names the run to the executor (the token id, or a saved
 * call's fresh id). */
static sluice_status run_and_report(
    request *r, const char *run_id, const sluice_program *program, json_t **out, char **out_text)
{
    sluice_codemode *cm = r->cm;
    sluice_arena *arena = r->arena;
    sluice_error *err = r->err;
    const sluice_codefacts *f = r->j.facts;
    sluice_exec_result res = { 0 };
    sluice_status st = run(r, run_id, &res);
    if (st != SLUICE_OK)
        sluice_metric_inc(SLUICE_METRIC_ENGINE_ERRORS, sluice_status_name(st), NULL, NULL);
    /* what it returned and called counts even when it then failed; unrecorded, the result is
     * withheld (fail closed: the audit record still says what ran) */
    sluice_error charge_err = { 0 };
    const sluice_quota_gate gate = quota_gate_of(cm);
    if (sluice_quota_gate_charge(&gate, arena, r->in->caller, &res, &charge_err) != SLUICE_OK &&
        st == SLUICE_OK) {
        *err = charge_err;
        st = SLUICE_E_IO;
    }
    const char *leaked = st == SLUICE_OK ? blocked_output_name(cm, &res) : NULL;
    if (leaked != NULL)
        st = sluice_error_set(err, arena, SLUICE_E_DENIED,
                              "result column '%s' has the name of a blocked field; rename it",
                              leaked);
    json_t *record = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I}", "decision",
                               st == SLUICE_OK ? "executed" : "failed", "language", f->language,
                               "code", r->in->code, "code_hash", f->code_hash, "action",
                               action_label(f->action), program != NULL ? "run_id" : "token_id",
                               run_id, "rows", (json_int_t)res.row_count, "truncated",
                               res.truncated, "elapsed_ms", (json_int_t)res.elapsed_ms);
    if (st != SLUICE_OK)
        json_object_set_new(record, "error", json_string(err->message));
    if (res.calls != NULL) /* a plan's upstream calls, with statuses and idempotency keys */
        json_object_set(record, "calls", res.calls);
    if (program != NULL)
        json_object_set_new(record, "program",
                            json_pack("{s:s, s:I, s:s, s:I, s:s}", "name", program->name, "version",
                                      (json_int_t)program->version, "promoted_by", program->by,
                                      "promoted_at", (json_int_t)program->at, "approval",
                                      "promotion"));
    st = sluice_runtime_audit_outcome(
        cm->rt, arena, (sluice_runtime_event){ r->in->caller, "execute", record }, st, err);
    if (st != SLUICE_OK)
        return st;
    *out = r->in->rows_spliced ? sluice_present_result_spliced(&res)
                               : sluice_present_result_json(&res);
    *out_text = sluice_present_untrusted_text(arena, &res);
    return *out != NULL && *out_text != NULL
               ? SLUICE_OK
               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

static sluice_status refuse_broken_audit(const request *r)
{
    return sluice_error_set(r->err, r->arena, SLUICE_E_IO,
                            "the audit log cannot be written, so nothing runs until an "
                            "administrator repairs it (sluice audit verify)");
}

static sluice_status execute(request *r, json_t **out, char **out_text)
{
    if (sluice_runtime_audit_broken(r->cm->rt))
        return refuse_broken_audit(r);
    /* before the token is opened: a caller over quota costs no work, and keeps the token */
    sluice_status st = admit_quota(r, SLUICE_QUOTA_STAGE_EXECUTE, &r->room);
    if (st == SLUICE_OK)
        st = admit(r);
    if (st != SLUICE_OK)
        return st;
    char id[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(r->claims.token_id, sizeof r->claims.token_id, id);
    return run_and_report(r, id, NULL, out, out_text);
}

/* ---- saved programs ------------------------------------------------------------------------ */

/* What a program judged for r is judged on now: r's backend, its live schema, the policy and
 * the rules (hex in r's arena). */
static sluice_status live_basis(const request *r, sluice_program_basis *out)
{
    char *rules = sluice_arena_alloc(r->arena, SLUICE_HASH_HEX_CHARS + 1);
    if (rules == NULL)
        return sluice_error_set(r->err, r->arena, SLUICE_E_NOMEM, "out of memory");
    sluice_hash_hex(r->cm->rules_fingerprint, sizeof r->cm->rules_fingerprint, rules);
    *out = (sluice_program_basis){ r->j.be->name, r->j.schema->version_hash,
                                   sluice_policy_version(r->cm->policy), rules };
    return SLUICE_OK;
}

static sluice_status
need_programs(const sluice_codemode *cm, sluice_arena *arena, sluice_error *err)
{
    return cm->rt->programs != NULL
               ? SLUICE_OK
               : sluice_error_set(err, arena, SLUICE_E_UNSUPPORTED,
                                  "saved programs are off: set [code_mode] programs_file (one "
                                  "server) or [state] programs_postgres (replicas)");
}

sluice_status sluice_codemode_programs(sluice_codemode *cm,
                                       sluice_arena *arena,
                                       sluice_program_catalog *out,
                                       sluice_error *err)
{
    sluice_status st = need_programs(cm, arena, err);
    if (st != SLUICE_OK)
        return st;
    const sluice_secret_ring *ring = sluice_key_store_acquire(cm->rt->keys);
    st = sluice_program_catalog_load(cm->rt->programs, ring, arena, out, err);
    sluice_key_store_release(cm->rt->keys, ring);
    return st;
}

const char *
sluice_codemode_program_unusable(sluice_codemode *cm, sluice_arena *arena, const sluice_program *p)
{
    if (p->disabled != NULL)
        return p->disabled;
    const backend *be = NULL;
    for (size_t i = 0; i < cm->backend_count; i++)
        if (strcmp(cm->backends[i].name, p->basis.backend) == 0)
            be = &cm->backends[i];
    sluice_error scratch = { 0 };
    const sluice_schema *schema = NULL;
    if (be == NULL || sluice_executor_catalog(be->executor, arena, &schema, &scratch) != SLUICE_OK)
        return sluice_arena_printf(arena,
                                   "saved program '%s': its database '%s' is not open on this "
                                   "server; re-promote it",
                                   p->name, p->basis.backend);
    request r = { .cm = cm, .arena = arena, .err = &scratch };
    r.j.be = be;
    r.j.schema = schema;
    sluice_program_basis live;
    if (live_basis(&r, &live) != SLUICE_OK)
        return "(out of memory)";
    return sluice_program_stale(p, &live, arena);
}

/* The risk level named name (critical for an unknown name: never looser than it says). */
static sluice_risk risk_named(const char *name)
{
    for (int i = SLUICE_RISK_LOW; i < SLUICE_RISK_CRITICAL; i++)
        if (strcmp(sluice_risk_name((sluice_risk)i), name) == 0)
            return (sluice_risk)i;
    return SLUICE_RISK_CRITICAL;
}

/* Refuses a saved call with reason, err already set; audited like every refusal. */
static sluice_status refuse_saved(const request *r, const char *reason)
{
    return refuse(r, reason, SLUICE_E_DENIED);
}

/* The saved-call decision, before a saved program runs: its record usable, the arguments typed
 * and bounded, the code judged for this caller now (route, config rules, policy), and the
 * judgement within what the promotion approved (same code, action, no higher risk, the same
 * basis). No token, no approval: the promotion was the approval. SLUICE_OK: it may run;
 * SLUICE_E_DENIED with err and *reason (the audit reason) set; any other status decided nothing
 * (*reason "internal"). Audits nothing: tools/list asks it too. */
static sluice_status decide_saved(request *r, const sluice_program *p, const char **reason)
{
    sluice_arena *arena = r->arena;
    sluice_error *err = r->err;
    *reason = "internal";
    if (p->disabled != NULL) {
        *reason = "program_disabled";
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s", p->disabled);
    }
    sluice_status st = sluice_program_check_arguments(p, r->in->variables, arena, err);
    if (st == SLUICE_E_INVALID) {
        *reason = "arguments";
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "saved program '%s' was not run: %s; pass one argument per "
                                "parameter, of its type and within its bounds",
                                p->name, err->message);
    }
    if (st == SLUICE_OK)
        st = judge(r, NULL);
    sluice_program_basis live;
    if (st == SLUICE_OK)
        st = live_basis(r, &live);
    if (st != SLUICE_OK)
        return st == SLUICE_E_DENIED ? SLUICE_E_INTERNAL : st; /* never read as a verdict */
    const sluice_codefacts *f = r->j.facts;
    const char *stale = sluice_program_stale(p, &live, arena);
    if (stale != NULL) {
        *reason = "program_stale";
        return sluice_error_set(err, arena, SLUICE_E_DENIED, "%s", stale);
    }
    if (judgement_refused(&r->j)) {
        const char *why = f->violation_count > 0            ? f->violations[0].message
                          : r->j.policy.violation_count > 0 ? r->j.policy.violations[0].message
                                                            : "it is refused";
        *reason = "violations";
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "saved program '%s' may not run for you: %s", p->name, why);
    }
    if (strcmp(f->code_hash, p->code_hash) != 0 ||
        strcmp(action_label(f->action), p->action) != 0 || r->j.risk > risk_named(p->risk)) {
        *reason = "program_changed";
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "saved program '%s' (version %lld) is disabled: it is now judged "
                                "%s at %s risk, and was promoted as %s at %s risk; an "
                                "administrator must validate it again and re-promote it",
                                p->name, (long long)p->version, action_label(f->action),
                                sluice_risk_name(r->j.risk), p->action, p->risk);
    }
    return SLUICE_OK;
}

/* The saved-call decision, every refusal audited. */
static sluice_status admit_saved(request *r, const sluice_program *p)
{
    const char *reason = "internal";
    sluice_status st = decide_saved(r, p, &reason);
    if (st == SLUICE_OK)
        return SLUICE_OK;
    return st == SLUICE_E_DENIED ? refuse_saved(r, reason) : refuse(r, reason, st);
}

/* A request for saved program p by caller with arguments (p's code and language). */
static void
saved_request(sluice_codemode_request *in, sluice_codemode_caller *caller, const sluice_program *p)
{
    caller->language = p != NULL ? p->language : NULL;
    in->caller = caller;
    in->code =
        p != NULL && p->code != NULL ? p->code : ""; /* no code: a record that did not open */
    in->code_len = strlen(in->code);
    in->token = NULL;
}

bool sluice_codemode_program_offered(sluice_codemode *cm,
                                     const sluice_codemode_caller *caller,
                                     sluice_arena *arena,
                                     const sluice_program *p)
{
    json_t *args = sluice_program_sample_arguments(p);
    if (args == NULL || sluice_arena_cleanup_add(arena, release_json, args) != SLUICE_OK)
        return false;
    sluice_codemode_caller who = *caller;
    sluice_error err = { 0 };
    sluice_codemode_request in = { .arena = arena, .variables = args, .err = &err };
    saved_request(&in, &who, p);
    request r = { .cm = cm, .in = &in, .arena = arena, .err = &err };
    const char *reason;
    return decide_saved(&r, p, &reason) == SLUICE_OK;
}

sluice_status sluice_codemode_run_program(sluice_codemode *cm,
                                          const sluice_codemode_request *req,
                                          const char *name,
                                          json_t **out,
                                          char **out_text)
{
    int64_t start = sluice_metric_now_ns();
    sluice_program_catalog catalog;
    sluice_status st = sluice_codemode_programs(cm, req->arena, &catalog, req->err);
    const sluice_program *p = st == SLUICE_OK ? sluice_program_find(&catalog, name) : NULL;
    if (st == SLUICE_OK && p == NULL)
        return SLUICE_E_NOT_FOUND;
    sluice_codemode_caller caller = *req->caller;
    sluice_codemode_request in = *req;
    saved_request(&in, &caller, p);
    request r = { .cm = cm, .in = &in, .arena = req->arena, .err = req->err };
    if (st != SLUICE_OK) { /* a store that cannot be read runs nothing */
        sluice_error_set(r.err, r.arena, st, "saved program '%s' was not run: %s", name,
                         r.err->message != NULL ? r.err->message : sluice_status_name(st));
        return refuse(&r, "program_store", st);
    }
    if (sluice_runtime_audit_broken(cm->rt))
        return refuse_broken_audit(&r);
    st = admit_quota(&r, SLUICE_QUOTA_STAGE_EXECUTE, &r.room);
    if (st == SLUICE_OK)
        st = admit_saved(&r, p);
    if (st == SLUICE_OK) {
        uint8_t id[SLUICE_TOKEN_ID_BYTES];
        char hex[2 * SLUICE_TOKEN_ID_BYTES + 1];
        randombytes_buf(id, sizeof id);
        sluice_hash_hex(id, sizeof id, hex);
        st = run_and_report(&r, hex, p, out, out_text);
    }
    sluice_codemode_observe_time(language_label(cm, &caller), true, sluice_metric_now_ns() - start);
    return st;
}

/* The next version of name in catalog (1 when new). */
static int64_t next_version(const sluice_program_catalog *catalog, const char *name)
{
    const sluice_program *p = sluice_program_find(catalog, name);
    return p != NULL ? p->version + 1 : 1;
}

/* Writes p through the store sealed with the current key, then audits event with p's record
 * and estimate (stolen, may be NULL: the engine's estimate the promoter approved, which the
 * console shows beside the code). The record is built before the store is written, so running
 * out of memory leaves the store as it was. */
static sluice_status save_and_audit(sluice_codemode *cm,
                                    const sluice_codemode_request *req,
                                    const sluice_program *p,
                                    const char *event,
                                    json_t *estimate,
                                    json_t **out_record)
{
    json_t *record = sluice_program_to_json(p);
    if (record == NULL)
        json_decref(estimate);
    if (record == NULL ||
        (estimate != NULL && json_object_set_new(record, "estimate", estimate) != 0)) {
        json_decref(record);
        return sluice_error_set(req->err, req->arena, SLUICE_E_NOMEM, "out of memory");
    }
    const sluice_secret_ring *ring = sluice_key_store_acquire(cm->rt->keys);
    sluice_status st = sluice_program_save(cm->rt->programs, ring, p, req->arena, req->err);
    sluice_key_store_release(cm->rt->keys, ring);
    if (st == SLUICE_OK) /* stored: the audit must say so, or the caller hears it failed */
        st = sluice_codemode_audit(cm, req->arena, req->caller, event, json_deep_copy(record),
                                   req->err);
    if (st == SLUICE_OK && out_record != NULL)
        *out_record = record;
    else
        json_decref(record);
    return st;
}

static const char *by_of(const sluice_codemode_request *req)
{
    const sluice_identity *who = req->caller->identity;
    return who != NULL && who->user_id != NULL ? who->user_id : "local";
}

sluice_status sluice_codemode_promote(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      const sluice_codemode_promotion *promotion,
                                      json_t **out)
{
    sluice_arena *arena = req->arena;
    sluice_error *err = req->err;
    sluice_status st = need_programs(cm, arena, err);
    if (st != SLUICE_OK)
        return st;
    if (!sluice_program_name_valid(promotion->name) ||
        sluice_program_name_reserved(cm->config, promotion->name))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "'%.64s' cannot name a saved program: use 1-64 of A-Z a-z 0-9 _ . "
                                "-, and not the name of a built-in or [[tools]] tool",
                                promotion->name != NULL ? promotion->name : "");
    request r = { .cm = cm, .in = req, .arena = arena, .err = err };
    sluice_program p = { .name = promotion->name, .description = promotion->description };
    sluice_program_catalog catalog;
    st = judge(&r, NULL);
    if (st == SLUICE_OK && judgement_refused(&r.j)) {
        const sluice_codefacts *f = r.j.facts;
        const char *why = f->violation_count > 0           ? f->violations[0].message
                          : r.j.policy.violation_count > 0 ? r.j.policy.violations[0].message
                                                           : "it is refused";
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "not promoted: the program is not valid: %s", why);
    }
    if (st == SLUICE_OK)
        st = sluice_program_params_from(arena, promotion->parameters, req->variables, &p.params,
                                        &p.param_count, err);
    if (st == SLUICE_OK)
        st = live_basis(&r, &p.basis);
    if (st == SLUICE_OK)
        st = sluice_codemode_programs(cm, arena, &catalog, err);
    if (st != SLUICE_OK)
        return st;
    const sluice_codefacts *f = r.j.facts;
    p.version = next_version(&catalog, p.name);
    p.language = f->language;
    p.code = req->code;
    p.code_hash = f->code_hash;
    p.description = p.description != NULL ? p.description : "";
    p.action = action_label(f->action);
    p.risk = sluice_risk_name(r.j.risk);
    p.by = by_of(req);
    p.at = sluice_runtime_now_s(cm->rt);
    p.reason = "";
    json_t *record = NULL;
    json_t *estimate = NULL;
    if (f->estimate_kind != SLUICE_ESTIMATE_NONE && (estimate = sluice_estimate_json(f)) == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    st = save_and_audit(cm, req, &p, "promote", estimate, &record);
    if (st != SLUICE_OK)
        return st;
    json_object_set_new(record, "explanation", sluice_json_string(explain(arena, &r.j)));
    json_object_set(record, "policy", r.j.policy_summary);
    if (sluice_arena_failed(arena)) { /* stored and audited; only the answer is incomplete */
        json_decref(record);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory after promoting '%s' version %lld", p.name,
                                (long long)p.version);
    }
    *out = record;
    return SLUICE_OK;
}

sluice_status sluice_codemode_demote(sluice_codemode *cm,
                                     const sluice_codemode_request *req,
                                     const char *name,
                                     const char *reason,
                                     int64_t *out_version)
{
    sluice_arena *arena = req->arena;
    sluice_program_catalog catalog;
    sluice_status st = sluice_codemode_programs(cm, arena, &catalog, req->err);
    if (st != SLUICE_OK)
        return st;
    const sluice_program *cur = sluice_program_find(&catalog, name);
    if (cur == NULL)
        return sluice_error_set(req->err, arena, SLUICE_E_NOT_FOUND,
                                "no saved program is named '%.64s' (sluice program list)",
                                name != NULL ? name : "");
    if (cur->demoted)
        return sluice_error_set(req->err, arena, SLUICE_E_DENIED,
                                "saved program '%s' is already demoted (version %lld)", name,
                                (long long)cur->version);
    if (cur->code == NULL) /* its record does not open: a demotion needs what it demotes */
        return sluice_error_set(req->err, arena, SLUICE_E_DENIED,
                                "%s; promote it again to replace it", cur->disabled);
    sluice_program p = *cur;
    p.version = cur->version + 1;
    p.demoted = true;
    p.disabled = NULL;
    p.by = by_of(req);
    p.at = sluice_runtime_now_s(cm->rt);
    p.reason = reason != NULL ? reason : "";
    st = save_and_audit(cm, req, &p, "demote", NULL, NULL);
    if (st == SLUICE_OK)
        *out_version = p.version;
    return st;
}

/* ---- approval requestStates (MCP 2026-07-28) ---------------------------------------------- */

/* Whom a requestState of req is for: its principal ("" without one) and its approval token. */
static sluice_approval_state_binding binding_of(const sluice_codemode_request *req)
{
    const sluice_identity *who = req->caller->identity;
    const char *user = who != NULL ? who->user_id : NULL;
    return (sluice_approval_state_binding){ user != NULL ? user : "",
                                            req->token != NULL ? req->token : "" };
}

sluice_status sluice_codemode_approval_state_seal(sluice_codemode *cm,
                                                  const sluice_codemode_request *req,
                                                  char **out)
{
    sluice_approval_state_binding b = binding_of(req);
    return sluice_approval_state_seal(cm->rt->keys, &b, sluice_runtime_now_s(cm->rt), req->arena,
                                      out, req->err);
}

sluice_status sluice_codemode_approval_state_open(sluice_codemode *cm,
                                                  const sluice_codemode_request *req,
                                                  const char *state)
{
    sluice_approval_state_answer answer = { .state = state, .binding = binding_of(req) };
    return sluice_approval_state_open(cm->rt->keys, cm->rt->replay, &answer,
                                      sluice_runtime_now_s(cm->rt), req->arena, req->err);
}

sluice_status sluice_codemode_execute(sluice_codemode *cm,
                                      const sluice_codemode_request *req,
                                      json_t **out,
                                      char **out_text)
{
    int64_t start = sluice_metric_now_ns();
    request r = { .cm = cm, .in = req, .arena = req->arena, .err = req->err };
    sluice_status st = execute(&r, out, out_text);
    sluice_codemode_observe_time(language_label(cm, req->caller), true,
                                 sluice_metric_now_ns() - start);
    return st;
}
