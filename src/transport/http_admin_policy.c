/*
 * http_admin_policy.c — the console's policies page: the Cedar set in effect with the route
 * map, and the evaluator "would this user be allowed to run this code?" (see http_admin_api.h).
 *
 * Owns: reading the policy file for display, the route map as JSON, one evaluation per request
 * (the same analysis and policy call as `sluice policy eval -c`). Does not own: the analysis
 * (codemode), the decision (policy), the credential check (http_admin.c).
 */
#include "codemode/codemode.h"
#include "core/limits.h"
#include "facts/codefacts.h"
#include "policy/policy.h"
#include "transport/http_admin_api.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The policy file's text (malloc'd), NULL when unreadable or over the limit (said in *why). */
static char *read_policy_text(const char *path, const char **why)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *why = "the policy file cannot be read";
        return NULL;
    }
    char *text = malloc(SLUICE_LIMIT_ADMIN_POLICY_BYTES + 1);
    size_t n = text != NULL ? fread(text, 1, SLUICE_LIMIT_ADMIN_POLICY_BYTES + 1, f) : 0;
    fclose(f);
    if (text == NULL || n > SLUICE_LIMIT_ADMIN_POLICY_BYTES) {
        *why = text == NULL ? "out of memory" : "the policy file is too large to show";
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* Which groups reach which server id; the default route takes everyone else. */
static json_t *route_map(const sluice_config *cfg)
{
    json_t *routes = json_array();
    for (size_t i = 0; routes != NULL && i < cfg->policy.server_count; i++) {
        const sluice_config_policy_server *s = &cfg->policy.servers[i];
        json_t *r = json_pack(
            "{s:s?, s:o, s:s?, s:o, s:I}", "id", s->id, "groups",
            sluice_http_admin_strlist(&s->groups), "database", s->database, "allowed_operations",
            sluice_http_admin_strlist(&s->allowed_operations), "max_rows", (json_int_t)s->max_rows);
        if (r != NULL && s->has_allow_writes)
            json_object_set_new(r, "allow_writes", json_boolean(s->allow_writes));
        if (r != NULL && s->has_allow_deletes)
            json_object_set_new(r, "allow_deletes", json_boolean(s->allow_deletes));
        json_array_append_new(routes, r);
    }
    return routes;
}

int sluice_http_admin_policies(sluice_http_admin *admin, struct MHD_Connection *c)
{
    const sluice_config *cfg = sluice_codemode_config(admin->cm);
    const sluice_policy *policy = sluice_codemode_policy(admin->cm);
    const char *why = NULL;
    char *text = cfg->policy.policies != NULL ? read_policy_text(cfg->policy.policies, &why) : NULL;
    json_t *doc =
        json_pack("{s:s, s:s?, s:s?, s:s?, s:s, s:o}", "backend",
                  sluice_policy_backend_name(policy), "file", cfg->policy.policies, "text", text,
                  "text_error", why, "version", sluice_policy_version(policy), "default_route",
                  json_pack("{s:s}", "id", sluice_policy_default_route(policy)->id));
    free(text);
    if (doc != NULL)
        json_object_set_new(doc, "routes", route_map(cfg));
    return sluice_http_admin_reply_json(c, 200, doc);
}

/* "a,b,c" (cut in place in buf) into at most SLUICE_LIMIT_ADMIN_EVAL_GROUPS names pointing into
 * buf; returns the count. */
static size_t split_groups(char *buf, const char **out)
{
    size_t n = 0;
    for (char *save = NULL, *g = strtok_r(buf, ",", &save);
         g != NULL && n < SLUICE_LIMIT_ADMIN_EVAL_GROUPS; g = strtok_r(NULL, ",", &save)) {
        while (*g == ' ')
            g++;
        if (*g != '\0')
            out[n++] = g;
    }
    return n;
}

static json_t *reasons_json(const sluice_policy_decision *d)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < d->reason_count; i++) {
        const sluice_policy_reason *r = &d->reasons[i];
        json_array_append_new(a, json_pack("{s:s, s:s?, s:s, s:I, s:I, s:s?}", "id", r->id,
                                           "annotation", r->annotation, "effect",
                                           r->forbid ? "forbid" : "permit", "first_line",
                                           (json_int_t)r->first_line, "last_line",
                                           (json_int_t)r->last_line, "text", r->text));
    }
    return a;
}

static json_t *violations_json(const sluice_codefacts *f)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < f->violation_count; i++)
        json_array_append_new(a, json_string(f->violations[i].message));
    return a;
}

/* The decision for who on facts; NULL (with *status) when the policy could not be evaluated. */
static json_t *decide(sluice_http_admin *admin,
                      sluice_arena *arena,
                      const sluice_identity *who,
                      const sluice_codefacts *facts,
                      unsigned *status)
{
    const sluice_policy *policy = sluice_codemode_policy(admin->cm);
    const sluice_policy_route *route = sluice_policy_route_for(policy, who);
    sluice_policy_decision d;
    sluice_error err = { 0 };
    if (sluice_policy_evaluate(policy, arena, who, route, facts->action, facts, &d, &err) !=
        SLUICE_OK) {
        *status = 500;
        return json_pack("{s:s}", "error", err.message != NULL ? err.message : "evaluation failed");
    }
    json_t *errors = json_array();
    for (size_t i = 0; errors != NULL && i < d.error_count; i++)
        json_array_append_new(errors, json_string(d.errors[i]));
    bool refused = sluice_codefacts_refused(facts);
    json_t *doc = json_pack(
        "{s:s, s:s, s:b, s:s, s:s, s:o, s:o, s:O*, s:o, s:o, s:s}", "user", who->user_id, "route",
        route->id, "route_is_default", route->is_default, "backend",
        sluice_policy_backend_name(policy), "decision", d.allow ? "allow" : "deny",
        "determining_policies", reasons_json(&d), "errors", errors, "facts", d.request,
        "code_facts", sluice_codefacts_to_json(facts), "rule_violations", violations_json(facts),
        "verdict",
        !d.allow  ? "the policy denies it"
        : refused ? "the policy allows it, but the configuration rules refuse it"
                  : "allowed (it may still wait for a human above the auto-approve level)");
    json_decref(d.request);
    *status = 200;
    return doc;
}

int sluice_http_admin_evaluate(sluice_http_admin *admin, struct MHD_Connection *c)
{
    const char *user = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "user");
    const char *groups = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "groups");
    const char *code = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "code");
    if (user == NULL || *user == '\0' || code == NULL || *code == '\0')
        return sluice_http_admin_reply_error(c, 400, "give user, code and (optionally) groups");
    if (strlen(code) > SLUICE_LIMIT_CODE_BYTES || strlen(user) > 256 ||
        (groups != NULL && strlen(groups) > 4096))
        return sluice_http_admin_reply_error(c, 413, "the code, user or groups are too long");
    if (!sluice_http_admin_audit(
            admin, c, "policy_evaluate",
            json_pack("{s:s, s:s?, s:s}", "for_user", user, "for_groups", groups, "code", code)))
        return sluice_http_admin_reply_error(c, 500, "the audit record could not be written");
    char gbuf[4097];
    snprintf(gbuf, sizeof gbuf, "%s", groups != NULL ? groups : "");
    const char *names[SLUICE_LIMIT_ADMIN_EVAL_GROUPS];
    sluice_identity who = { .user_id = user, .groups = names, .method = "admin-eval" };
    who.group_count = split_groups(gbuf, names);
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return sluice_http_admin_reply_error(c, 500, "out of memory");
    sluice_codefacts *facts = NULL;
    sluice_error err = { 0 };
    unsigned status = 500;
    json_t *doc = NULL;
    const sluice_codemode_request req = {
        .arena = arena, .code = code, .code_len = strlen(code), .err = &err
    };
    if (sluice_codemode_analyze(admin->cm, &req, &facts) != SLUICE_OK)
        doc = json_pack("{s:s}", "error", err.message != NULL ? err.message : "analysis failed");
    else
        doc = decide(admin, arena, &who, facts, &status);
    int ret = sluice_http_admin_reply_json(c, status, doc);
    sluice_arena_free(arena);
    return ret;
}
