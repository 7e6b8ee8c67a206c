/*
 * http_admin.c — /metrics, /healthz, /readyz and the admin console (see http_admin.h).
 */
#include "transport/http_admin.h"

#include "codemode/ready.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/metrics.h"
#include "state/approval.h"
#include "state/audit.h"
#include "state/audit_pg.h"
#include "state/quota.h"
#include "transport/admin_assets.h"
#include "transport/http_admin_api.h"
#include "transport/http_admin_approval.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONSOLE_PREFIX  "/admin/"
#define API_PREFIX      "/admin/api/"
#define PROGRAMS_PREFIX "/admin/api/programs/"
#define PENDING_SHOWN   100u
#define AUDIT_DEFAULT_N 100u

/* ---- observability ---------------------------------------------------------------------- */

static int metrics(struct MHD_Connection *c)
{
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_metrics_render(&b);
    int ret = sluice_buf_status(&b) == SLUICE_OK
                  ? sluice_http_admin_reply(c, 200, "text/plain; version=0.0.4; charset=utf-8",
                                            b.data, b.len, NULL)
                  : sluice_http_admin_reply(c, 500, "text/plain", "out of memory\n", 14, NULL);
    sluice_buf_dispose(&b);
    return ret;
}

static int readyz(sluice_http_admin *admin, struct MHD_Connection *c)
{
    json_t *checks = json_object();
    bool ready = checks != NULL && sluice_codemode_ready(admin->cm, admin->rt, checks);
    return sluice_http_admin_reply_json(
        c, ready ? 200 : 503,
        json_pack("{s:s, s:o*}", "status", ready ? "ready" : "not ready", "checks", checks));
}

/* ---- console files ------------------------------------------------------------------------ */

static int asset(struct MHD_Connection *c, const char *name)
{
    for (size_t i = 0; i < sluice_admin_asset_count; i++) {
        const sluice_admin_asset *a = &sluice_admin_assets[i];
        if (strcmp(a->name, name) == 0)
            return sluice_http_admin_reply(c, 200, a->content_type, a->data, a->len, NULL);
    }
    return sluice_http_admin_reply(c, 404, "text/plain", "not found\n", 10, NULL);
}

/* ---- console API -------------------------------------------------------------------------- */

/* "<action> statement, <risk> risk: <explanation>" (approval_gate.c) into its parts. */
static json_t *pending_json(const sluice_approval *a, const json_t *trail)
{
    const char *summary = a->summary;
    const char *comma = strstr(summary, " statement, ");
    const char *risk_end = comma != NULL ? strstr(comma, " risk: ") : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I}", "id", a->id, "user", a->user, "summary", summary,
                          "expires_at", (json_int_t)a->expires_at);
    if (o != NULL && comma != NULL && risk_end != NULL) {
        json_object_set_new(o, "action", json_stringn(summary, (size_t)(comma - summary)));
        const char *risk = comma + strlen(" statement, ");
        json_object_set_new(o, "risk", json_stringn(risk, (size_t)(risk_end - risk)));
        json_object_set_new(o, "explanation", json_string(risk_end + strlen(" risk: ")));
    }
    /* the exact code: the validate record that issued this token (the approval id is its id) */
    size_t i;
    const json_t *rec;
    json_array_foreach(trail, i, rec)
    {
        const char *tid = json_string_value(json_object_get(rec, "token_id"));
        if (tid != NULL && strcmp(tid, a->id) == 0 &&
            json_is_string(json_object_get(rec, "code"))) {
            json_object_set(o, "code", json_object_get(rec, "code"));
            json_object_set(o, "language", json_object_get(rec, "language"));
            json_object_set(o, "requested_at", json_object_get(rec, "ts"));
            /* the estimate the approver weighs beside the code (issue 24) */
            if (json_is_object(json_object_get(rec, "estimate")))
                json_object_set(o, "estimate", json_object_get(rec, "estimate"));
            break;
        }
    }
    return o;
}

static int api_approvals(sluice_http_admin *admin, struct MHD_Connection *c)
{
    sluice_approval_store *store = admin->rt->approvals;
    sluice_approval *list = malloc(PENDING_SHOWN * sizeof *list);
    if (list == NULL)
        return sluice_http_admin_reply_error(c, 500, "out of memory");
    int64_t now = sluice_runtime_now_s(admin->rt);
    size_t total = store != NULL ? sluice_approval_pending(store, now, list, PENDING_SHOWN) : 0;
    const char *source = NULL;
    char why[320];
    json_t *trail =
        sluice_http_admin_trail(admin, SLUICE_LIMIT_ADMIN_AUDIT_RECORDS, &source, why, sizeof why);
    json_t *pending = json_array();
    for (size_t i = 0; pending != NULL && i < total && i < PENDING_SHOWN; i++)
        if (json_array_append_new(pending, pending_json(&list[i], trail)) != 0) {
            json_decref(pending);
            pending = NULL;
        }
    json_decref(trail);
    free(list);
    if (pending == NULL)
        return sluice_http_admin_reply_error(c, 500, "out of memory");
    return sluice_http_admin_reply_json(c, 200,
                                        json_pack("{s:o, s:I, s:I}", "pending", pending, "total",
                                                  (json_int_t)total, "now", (json_int_t)now));
}

static int api_audit(sluice_http_admin *admin, struct MHD_Connection *c)
{
    const char *limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    long n = limit != NULL ? strtol(limit, NULL, 10) : (long)AUDIT_DEFAULT_N;
    if (n <= 0 || n > (long)SLUICE_LIMIT_ADMIN_AUDIT_RECORDS)
        n = (long)SLUICE_LIMIT_ADMIN_AUDIT_RECORDS;
    const char *source = NULL;
    char why[320];
    json_t *records = sluice_http_admin_trail(admin, (size_t)n, &source, why, sizeof why);
    if (source == NULL)
        return sluice_http_admin_reply_json(c, 200,
                                            json_pack("{s:[], s:b}", "records", "enabled", 0));
    if (records == NULL)
        return sluice_http_admin_reply_error(c, 500, why);
    return sluice_http_admin_reply_json(
        c, 200, json_pack("{s:o, s:b, s:s}", "records", records, "enabled", 1, "file", source));
}

/* GET /admin/api/quotas: every live quota counter — principal, route, quota, used, limit and
 * when it resets — from the store all replicas share (or this process's). */
static int api_quotas(sluice_http_admin *admin, struct MHD_Connection *c)
{
    sluice_quota *q = admin->rt->quotas;
    if (q == NULL)
        return sluice_http_admin_reply_json(c, 200,
                                            json_pack("{s:[], s:b}", "usage", "enabled", 0));
    int64_t now = sluice_clock_now_ms(admin->rt->clock);
    json_t *usage = sluice_quota_usage(q, sluice_codemode_config(admin->cm), now,
                                       SLUICE_LIMIT_ADMIN_QUOTA_ROWS);
    if (usage == NULL) {
        char why[320], msg[400];
        sluice_quota_describe(q, why, sizeof why);
        snprintf(msg, sizeof msg, "cannot read the quota counters: %s", why);
        return sluice_http_admin_reply_error(c, 503, msg);
    }
    return sluice_http_admin_reply_json(c, 200,
                                        json_pack("{s:o, s:b, s:I}", "usage", usage, "enabled", 1,
                                                  "limit",
                                                  (json_int_t)SLUICE_LIMIT_ADMIN_QUOTA_ROWS));
}

/* What the configuration says, as loaded, with nothing secret: key and password settings are
 * never read here, and a PostgreSQL conninfo is shown as "set" only. */
/* The languages code mode accepts (the configured list, or its default). */
static json_t *languages_json(const sluice_codemode *cm)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < sluice_codemode_language_count(cm); i++)
        json_array_append_new(a, json_string(sluice_codemode_language(cm, i)));
    return a;
}

static json_t *summary_json(const sluice_config *cfg, const sluice_codemode *cm)
{
    static const char *const risks[] = { "low", "medium", "high", "critical" };
    static const char *const engines[] = { "duckdb", "sqlite", "postgres" };
    static const char *const backends[] = { "none", "cedar", "command" };
    const sluice_config_code_mode *cmode = &cfg->code_mode;
    json_t *auto_approve = json_array();
    for (int i = 0; auto_approve != NULL && i < 4; i++)
        if (cmode->auto_approve[i])
            json_array_append_new(auto_approve, json_string(risks[i]));
    json_t *routes = json_array();
    for (size_t i = 0; routes != NULL && i < cfg->policy.server_count; i++) {
        const sluice_config_policy_server *s = &cfg->policy.servers[i];
        json_array_append_new(routes, json_pack("{s:s?, s:o, s:s?}", "id", s->id, "groups",
                                                sluice_http_admin_strlist(&s->groups), "database",
                                                s->database));
    }
    unsigned engine = (unsigned)cfg->database.engine;
    unsigned backend = (unsigned)cfg->policy.backend;
    return json_pack(
        "{s:{s:s, s:s?}, s:{s:b, s:s?, s:o, s:o, s:o, s:I, s:s?, s:I}, s:{s:s, s:s?, s:b}, "
        "s:{s:s, s:s?, s:o}}",
        "server", "name", cfg->server.name, "listen", cfg->server.listen, "code_mode", "enabled",
        cmode->enabled, "server_id", cmode->server_id, "languages", languages_json(cm),
        "auto_approve_levels", auto_approve, "blocked_fields",
        sluice_http_admin_strlist(&cmode->blocked_fields), "token_ttl_seconds",
        (json_int_t)cmode->token_ttl_seconds, "audit_log", cmode->audit_log, "sql_max_rows",
        (json_int_t)cmode->sql_max_rows, "database", "engine",
        engine < 3 ? engines[engine] : "other", "path", cfg->database.path, "conninfo_set",
        cfg->database.conninfo != NULL, "policy", "backend",
        backend < 3 ? backends[backend] : "other", "policies", cfg->policy.policies, "routes",
        routes);
}

static int api(sluice_http_admin *admin, struct MHD_Connection *c, const char *what)
{
    if (admin->key == NULL || admin->cm == NULL)
        return sluice_http_admin_reply_error(
            c, 404,
            "the admin console needs [admin] key_sha256 or key_env and code mode "
            "with an audit_log");
    sluice_admin_auth auth = sluice_admin_key_check(
        admin->key, MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    if (auth != SLUICE_ADMIN_OK) {
        char text[256];
        const char *challenge = NULL;
        int status = sluice_admin_key_refusal(admin->key, auth, text, sizeof text, &challenge);
        return sluice_http_admin_reply(c, (unsigned)status, "application/json", text, strlen(text),
                                       challenge);
    }
    if (strcmp(what, "approvals") == 0)
        return api_approvals(admin, c);
    if (strcmp(what, "audit") == 0)
        return api_audit(admin, c);
    if (strcmp(what, "quotas") == 0)
        return api_quotas(admin, c);
    if (strcmp(what, "programs") == 0)
        return sluice_http_admin_programs(admin, c);
    if (strcmp(what, "policies") == 0)
        return sluice_http_admin_policies(admin, c);
    if (strcmp(what, "evaluate") == 0)
        return sluice_http_admin_evaluate(admin, c);
    if (strcmp(what, "audit/export") == 0)
        return sluice_http_admin_export(admin, c);
    if (strcmp(what, "summary") == 0 && admin->config != NULL)
        return sluice_http_admin_reply_json(c, 200, summary_json(admin->config, admin->cm));
    return sluice_http_admin_reply_error(c, 404, "unknown admin API path");
}

bool sluice_http_admin_get(sluice_http_admin *admin,
                           struct MHD_Connection *c,
                           const char *url,
                           int *ret)
{
    if (strcmp(url, "/metrics") == 0)
        *ret = metrics(c);
    else if (strcmp(url, "/healthz") == 0)
        *ret = sluice_http_admin_reply(c, 200, "application/json", "{\"status\":\"ok\"}", 15, NULL);
    else if (strcmp(url, "/readyz") == 0)
        *ret = readyz(admin, c);
    else if (strcmp(url, "/admin") == 0 || strcmp(url, CONSOLE_PREFIX) == 0)
        *ret = asset(c, "index.html");
    else if (strncmp(url, API_PREFIX, strlen(API_PREFIX)) == 0)
        *ret = api(admin, c, url + strlen(API_PREFIX));
    else if (strncmp(url, CONSOLE_PREFIX, strlen(CONSOLE_PREFIX)) == 0)
        *ret = asset(c, url + strlen(CONSOLE_PREFIX));
    else
        return false;
    return true;
}

int sluice_http_admin_post(void *ctx,
                           const char *path,
                           const char *authorization,
                           const char *body,
                           size_t len,
                           sluice_arena *arena,
                           const char **out_body,
                           const char **www_authenticate)
{
    sluice_http_admin *admin = ctx;
    if (strncmp(path, CONSOLE_PREFIX, strlen(CONSOLE_PREFIX)) != 0)
        return 0;
    /* the key before the route: a caller without it learns nothing of which paths exist */
    sluice_admin_auth auth = sluice_admin_key_check(admin->key, authorization);
    if (auth != SLUICE_ADMIN_OK) {
        char text[256];
        int status =
            sluice_admin_key_refusal(admin->key, auth, text, sizeof text, www_authenticate);
        *out_body = sluice_arena_strdup(arena, text);
        return status;
    }
    size_t prefix = strlen(SLUICE_APPROVAL_HTTP_PREFIX);
    if (strncmp(path, SLUICE_APPROVAL_HTTP_PREFIX, prefix) == 0)
        return sluice_approval_http_decide(admin->rt, path + prefix, body, len, arena, out_body);
    if (strncmp(path, PROGRAMS_PREFIX, strlen(PROGRAMS_PREFIX)) == 0)
        return sluice_http_admin_program_post(admin, path + strlen(PROGRAMS_PREFIX), body, len,
                                              arena, out_body);
    return 0;
}
