/*
 * policy.c — routing, derived rules, the request model and dispatch to a backend (see policy.h).
 */
#include "policy/policy.h"

#include "core/buf.h"
#include "policy/backend.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sluice_policy {
    const sluice_config *config;
    sluice_arena *arena;
    const sluice_policy_backend_ops *ops; /* NULL: no evaluator, config rules only */
    void *state;
    const char *source;
    char version[2 * SLUICE_HASH_BYTES + 1];
    sluice_policy_route default_route;
    sluice_policy_route *routes;
    size_t route_count;
    sluice_config_code_mode engine_rules;
};

static const sluice_strlist no_strings = { NULL, 0 };

/* [code_mode] with a route's overrides: the built-in rules keep running, with its settings. */
static sluice_config_code_mode derive_rules(const sluice_config_code_mode *base,
                                            const sluice_config_policy_server *s)
{
    sluice_config_code_mode r = *base;
    /* A route's switch decides its class: the OpenAPI mode falls back to derived (the switch
     * and the lists), or to deny_all for admin. */
    if (s->has_allow_writes) {
        r.sql_allow_writes = r.openapi_allow_writes = s->allow_writes;
        r.write_mode = SLUICE_CLASS_MODE_DERIVED;
    }
    if (s->has_allow_deletes) {
        r.sql_allow_deletes = r.openapi_allow_deletes = s->allow_deletes;
        r.delete_mode = SLUICE_CLASS_MODE_DERIVED;
    }
    if (s->has_allow_admin) {
        r.sql_allow_ddl = s->allow_admin;
        if (!s->allow_admin)
            r.admin_mode = SLUICE_CLASS_MODE_DENY_ALL;
    }
    if (s->max_rows > 0)
        r.sql_max_rows = s->max_rows;
    if (s->has_execute_on_validate)
        r.execute_on_validate = s->execute_on_validate;
    if (s->has_caller_roles)
        r.caller_roles = s->caller_roles;
    if (s->has_caller_default_role)
        r.caller_default_role = s->caller_default_role;
    if (s->has_caller_claims)
        r.caller_claims = s->caller_claims;
    if (s->max_estimated_rows > 0)
        r.max_estimated_rows = s->max_estimated_rows;
    if (s->max_estimated_cost > 0)
        r.max_estimated_cost = s->max_estimated_cost;
    if (s->estimate_drift_factor > 0)
        r.estimate_drift_factor = s->estimate_drift_factor;
    return r;
}

static void hash_str(sluice_hash_state *h, const char *s)
{
    const char *t = s != NULL ? s : "";
    sluice_hash_update(h, t, strlen(t) + 1);
}

static void hash_strlist(sluice_hash_state *h, const sluice_strlist *list)
{
    for (size_t i = 0; i < list->count; i++)
        hash_str(h, list->items[i]);
    hash_str(h, "|");
}

/* Who code runs as in the database, and the estimate limits, are part of what a token was issued
 * under: a change gives a new policy version. */
static void hash_caller(sluice_hash_state *h, const sluice_config_code_mode *r)
{
    for (size_t i = 0; i < r->caller_roles.count; i++) {
        hash_str(h, r->caller_roles.names[i]);
        hash_str(h, r->caller_roles.values[i]);
    }
    hash_str(h, "|");
    hash_str(h, r->caller_default_role);
    hash_str(h, r->caller_claims ? "claims" : "no claims");
    char limits[64];
    int n = snprintf(limits, sizeof limits, "%lld|%lld", (long long)r->max_estimated_rows,
                     (long long)r->max_estimated_cost);
    sluice_hash_update(h, limits, (size_t)n);
}

static sluice_status build_routes(sluice_policy *p, sluice_hash_state *h)
{
    const sluice_config *c = p->config;
    const sluice_config_policy *cp = &c->policy;
    p->default_route = (sluice_policy_route){ .id = c->code_mode.server_id,
                                              .rules = &c->code_mode,
                                              .allowed_operations = &no_strings,
                                              .database = c->database.name,
                                              .is_default = true };
    p->engine_rules = c->code_mode;
    p->route_count = c->has_policy ? cp->server_count : 0;
    p->routes = sluice_arena_calloc(p->arena, p->route_count + 1, sizeof *p->routes);
    sluice_config_code_mode *rules =
        sluice_arena_calloc(p->arena, p->route_count + 1, sizeof *rules);
    if (p->routes == NULL || rules == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < p->route_count; i++) {
        const sluice_config_policy_server *s = &cp->servers[i];
        rules[i] = derive_rules(&c->code_mode, s);
        p->routes[i] =
            (sluice_policy_route){ .id = s->id,
                                   .rules = &rules[i],
                                   .allowed_operations = &s->allowed_operations,
                                   .database = s->database != NULL ? s->database : c->database.name,
                                   .groups = &s->groups };
        p->engine_rules.sql_allow_writes |= rules[i].sql_allow_writes;
        p->engine_rules.sql_allow_deletes |= rules[i].sql_allow_deletes;
        p->engine_rules.sql_allow_ddl |= rules[i].sql_allow_ddl;
        p->engine_rules.execute_on_validate |= rules[i].execute_on_validate;
        if (rules[i].sql_max_rows > p->engine_rules.sql_max_rows)
            p->engine_rules.sql_max_rows = rules[i].sql_max_rows;
        char flags[96];
        int n = snprintf(flags, sizeof flags, "%d%d%d|%lld", rules[i].sql_allow_writes,
                         rules[i].sql_allow_deletes, rules[i].sql_allow_ddl,
                         (long long)rules[i].sql_max_rows);
        hash_str(h, s->id);
        hash_str(h, p->routes[i].database);
        sluice_hash_update(h, flags, (size_t)n);
        hash_strlist(h, &s->groups);
        hash_strlist(h, &s->allowed_operations);
        hash_caller(h, &rules[i]);
    }
    hash_caller(h, &c->code_mode);
    return SLUICE_OK;
}

sluice_status sluice_policy_open(const sluice_config *config,
                                 sluice_policy **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_policy *p = calloc(1, sizeof *p);
    if (p == NULL || (p->arena = sluice_arena_new()) == NULL) {
        free(p);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    p->config = config;
    sluice_hash_state h;
    sluice_hash_start(&h);
    sluice_policy_backend kind =
        config->has_policy ? config->policy.backend : SLUICE_POLICY_BACKEND_NONE;
    hash_str(&h, kind == SLUICE_POLICY_BACKEND_CEDAR     ? "cedar"
                 : kind == SLUICE_POLICY_BACKEND_COMMAND ? "command"
                                                         : "none");
    sluice_status st = SLUICE_OK;
    if (kind == SLUICE_POLICY_BACKEND_CEDAR) {
        p->ops = &sluice_policy_cedar_ops;
        p->source = config->policy.policies;
        st = sluice_policy_cedar_open(&config->policy, &h, &p->state, err_arena, err);
    } else if (kind == SLUICE_POLICY_BACKEND_COMMAND) {
        p->ops = &sluice_policy_command_ops;
        st = sluice_policy_command_open(&config->policy, &h, &p->state, err_arena, err);
    } /* no backend: only the configuration rules decide; `sluice serve` says so once */
    if (st == SLUICE_OK && build_routes(p, &h) != SLUICE_OK)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        sluice_policy_close(p);
        return st;
    }
    uint8_t digest[SLUICE_HASH_BYTES];
    sluice_hash_finish(&h, digest);
    sluice_hash_hex(digest, sizeof digest, p->version);
    *out = p;
    return SLUICE_OK;
}

void sluice_policy_close(sluice_policy *policy)
{
    if (policy == NULL)
        return;
    if (policy->ops != NULL && policy->state != NULL)
        policy->ops->close(policy->state);
    sluice_arena_free(policy->arena);
    free(policy);
}

const char *sluice_policy_backend_name(const sluice_policy *policy)
{
    return policy->ops != NULL ? policy->ops->name : "none";
}

const char *sluice_policy_version(const sluice_policy *policy)
{
    return policy->version;
}

const char *sluice_policy_source(const sluice_policy *policy)
{
    return policy->source;
}

size_t
sluice_policy_forbids(const sluice_policy *policy, sluice_arena *arena, sluice_policy_reason **out)
{
    *out = NULL;
    return policy->ops != NULL && policy->ops->forbids != NULL
               ? policy->ops->forbids(policy->state, arena, out)
               : 0;
}

bool sluice_policy_active(const sluice_policy *policy)
{
    return policy->ops != NULL;
}

const sluice_policy_route *sluice_policy_route_for(const sluice_policy *policy,
                                                   const sluice_identity *who)
{
    for (size_t i = 0; who != NULL && i < policy->route_count; i++) {
        const sluice_strlist *groups = policy->routes[i].groups;
        for (size_t g = 0; g < groups->count; g++) {
            if (sluice_identity_in_group(who, groups->items[g]))
                return &policy->routes[i];
        }
    }
    return &policy->default_route;
}

const sluice_policy_route *sluice_policy_default_route(const sluice_policy *policy)
{
    return &policy->default_route;
}

const sluice_config_code_mode *sluice_policy_engine_rules(const sluice_policy *policy)
{
    return &policy->engine_rules;
}

/* ---- the request model (seed 000) ----------------------------------------------------------- */

/* A new array of the strings; NULL when any cannot be added: a list missing an item (a group,
 * a blocked field) could flip a decision, so the request is all or nothing. */
static json_t *strings_json(const char *const *items, size_t count)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < count; i++)
        if (json_array_append_new(a, json_string(items[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *strlist_json(const sluice_strlist *list)
{
    return strings_json(list->items, list->count);
}

static json_t *uid_json(const char *type, const char *id)
{
    return json_pack("{s:s, s:s}", "type", type, "id", id);
}

/* The fields seed 000's forbid rule keeps out of every result: sql_blocked_columns (with
 * blocked_fields merged in) and openapi_output_blocked_fields. NULL on NOMEM. */
static json_t *output_blocked_json(const sluice_config_code_mode *r)
{
    json_t *a = strlist_json(&r->sql_blocked_columns);
    json_t *b = strlist_json(&r->openapi_output_blocked_fields);
    if (a == NULL || b == NULL || json_array_extend(a, b) != 0) {
        json_decref(a);
        a = NULL;
    }
    json_decref(b);
    return a;
}

/* The resource's attributes: what the route lets code do, in seed 000's names. serverId is the
 * server (code_mode.server_id) so policies written for it hold on every route; the route is the
 * resource's entity id and routeId. */
static json_t *resource_attrs(const sluice_policy *p, const sluice_policy_route *route)
{
    const sluice_config_code_mode *r = route->rules;
    return json_pack(
        "{s:s, s:s, s:s, s:b, s:b, s:b, s:b, s:o, s:o, s:o, s:o, s:I, s:I}", "serverId",
        p->config->code_mode.server_id, "routeId", route->id, "serverType", "sql", "allowRead",
        r->sql_reads_enabled, "allowWrite", r->sql_allow_writes || r->openapi_allow_writes,
        "allowDelete", r->sql_allow_deletes || r->openapi_allow_deletes, "allowAdmin",
        r->sql_allow_ddl, "allowedOperations", strlist_json(route->allowed_operations),
        "outputBlockedFields", output_blocked_json(r), "blockedTables",
        strlist_json(&r->sql_blocked_tables), "allowedTables", strlist_json(&r->sql_allowed_tables),
        "maxRows", (json_int_t)r->sql_max_rows, "maxJoins", (json_int_t)r->sql_max_joins);
}

static json_t *context_json(const sluice_codefacts *facts)
{
    return facts == NULL ? json_object() : sluice_codefacts_cedar_context(facts);
}

json_t *sluice_policy_request_json(const sluice_policy *policy,
                                   const sluice_identity *who,
                                   const sluice_policy_route *route,
                                   sluice_action action,
                                   const sluice_codefacts *facts)
{
    json_t *groups = who != NULL ? strings_json(who->groups, who->group_count) : json_array();
    json_t *resource = uid_json("CodeMode::Server", route->id);
    if (resource != NULL &&
        json_object_set_new(resource, "attrs", resource_attrs(policy, route)) != 0) {
        json_decref(resource);
        resource = NULL; /* every part or nothing: json_pack below fails on NULL */
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "principal",
                     uid_json("CodeMode::User", who != NULL ? who->user_id : ""), "groups", groups,
                     "action", uid_json("CodeMode::Action", sluice_action_name(action)), "resource",
                     resource, "context", context_json(facts));
}

sluice_status sluice_policy_evaluate(const sluice_policy *policy,
                                     sluice_arena *arena,
                                     const sluice_identity *who,
                                     const sluice_policy_route *route,
                                     sluice_action action,
                                     const sluice_codefacts *facts,
                                     sluice_policy_decision *out,
                                     sluice_error *err)
{
    memset(out, 0, sizeof *out);
    out->request = sluice_policy_request_json(policy, who, route, action, facts);
    if (out->request == NULL || sluice_arena_failed(arena))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (policy->ops == NULL) {
        out->allow = true;
        return SLUICE_OK;
    }
    sluice_status st = policy->ops->evaluate(policy->state, arena, out->request, out, err);
    if (st == SLUICE_OK && out->error_count > 0)
        out->allow = false; /* fail closed: a policy that could not be evaluated never allows */
    if (st == SLUICE_OK && sluice_arena_failed(arena)) {
        /* checked last: an evaluation that lost an allocation (even one it handled) may have
         * skipped a forbid, so it decides nothing */
        out->allow = false;
        return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                "out of memory while evaluating "
                                "the policy; nothing was allowed");
    }
    return st;
}

static const char *action_phrase(sluice_action action)
{
    static const char *const phrases[] = { "read data", "change data", "delete data",
                                           "change the schema or run admin statements" };
    return (unsigned)action <= SLUICE_ACTION_ADMIN ? phrases[action] : "run this";
}

sluice_status sluice_policy_verdict(const sluice_policy_decision *decision,
                                    sluice_action action,
                                    const sluice_policy_route *route,
                                    sluice_verdict *verdict)
{
    if (decision->allow)
        return SLUICE_OK;
    verdict->refused = true; /* before anything can fail */
    for (size_t i = 0; i < decision->error_count; i++) {
        sluice_status st = sluice_verdict_refuse(
            verdict, "policy_error", "ask the policy administrator to fix the policy",
            "the policy could not be evaluated, so the request is denied: %s", decision->errors[i]);
        if (st != SLUICE_OK)
            return st;
    }
    if (decision->error_count > 0 && decision->reason_count == 0)
        return SLUICE_OK;
    if (decision->reason_count == 0)
        return sluice_verdict_refuse(verdict, "policy",
                                     "read code-mode://policies for what you may do",
                                     "no policy permits you to %s (%s) on %s: denied by default",
                                     action_phrase(action), sluice_action_name(action), route->id);
    for (size_t i = 0; i < decision->reason_count; i++) {
        const sluice_policy_reason *r = &decision->reasons[i];
        sluice_status st = sluice_verdict_refuse(
            verdict, "policy",
            r->forbid ? "remove what the policy forbids (see code-mode://policies)"
                      : "read code-mode://policies for what you may do",
            "policy %s%s%s%s forbids this %s on %s%s", r->id,
            r->annotation != NULL ? " @id(\"" : "", r->annotation != NULL ? r->annotation : "",
            r->annotation != NULL ? "\")" : "", sluice_action_name(action), route->id,
            r->text != NULL && strstr(r->text, "outputBlockedFields") != NULL
                ? ": the result would contain a blocked output field"
                : "");
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

sluice_status sluice_policy_db_role(const sluice_policy_route *route,
                                    const sluice_identity *who,
                                    const char **role,
                                    sluice_verdict *verdict)
{
    const sluice_config_code_mode *r = route->rules;
    *role = NULL;
    for (size_t i = 0; who != NULL && i < r->caller_roles.count; i++)
        if (sluice_identity_in_group(who, r->caller_roles.names[i])) {
            *role = r->caller_roles.values[i];
            return SLUICE_OK;
        }
    *role = r->caller_default_role;
    if (*role != NULL || r->caller_roles.count == 0)
        return SLUICE_OK;
    sluice_buf b;
    sluice_buf_init(&b, verdict->arena, 1024);
    for (size_t i = 0; i < r->caller_roles.count; i++)
        sluice_buf_printf(&b, "%s'%s'", i > 0 ? ", " : "", r->caller_roles.names[i]);
    return sluice_verdict_refuse(
        verdict, "caller_roles",
        "ask an administrator to add one of your groups to caller_roles, or to set "
        "caller_default_role",
        "route '%s' runs code as a database role chosen by group, and user '%s' is in none of "
        "its groups (%s)",
        route->id, who != NULL && who->user_id != NULL ? who->user_id : "(unknown)",
        sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : "?");
}
