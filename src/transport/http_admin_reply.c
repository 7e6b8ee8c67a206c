/*
 * http_admin_reply.c — what every route of the admin console answers and records with (see
 * http_admin_api.h): the reply helpers with the console's security headers, the audit of an
 * administrator's action, the audit trail it shows.
 */
#include "state/audit.h"
#include "state/audit_pg.h"
#include "transport/http_admin_api.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only the console's own files, no inline script or style, no framing, no form posts: a
 * rendered audit record can never become script. */
#define CONSOLE_CSP                                                                         \
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src " \
    "'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

int sluice_http_admin_reply(struct MHD_Connection *c,
                            unsigned status,
                            const char *type,
                            const void *body,
                            size_t len,
                            const char *challenge)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)(body != NULL ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy", CONSOLE_CSP);
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    if (challenge != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, challenge);
    int ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

int sluice_http_admin_reply_json(struct MHD_Connection *c, unsigned status, json_t *doc)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    int ret = text != NULL
                  ? sluice_http_admin_reply(c, status, "application/json", text, strlen(text), NULL)
                  : sluice_http_admin_reply(c, 500, "application/json",
                                            "{\"error\":\"out of memory\"}", 25, NULL);
    free(text);
    return ret;
}

int sluice_http_admin_reply_error(struct MHD_Connection *c, unsigned status, const char *message)
{
    return sluice_http_admin_reply_json(c, status, json_pack("{s:s}", "error", message));
}

json_t *sluice_http_admin_strlist(const sluice_strlist *l)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < l->count; i++)
        json_array_append_new(a, json_string(l->items[i]));
    return a;
}

json_t *sluice_http_admin_trail(
    sluice_http_admin *admin, size_t max, const char **source, char *why, size_t cap)
{
    const sluice_config *cfg = sluice_codemode_config(admin->cm);
    const sluice_config_state *st = &cfg->state;
    *source = NULL;
    snprintf(why, cap, "no audit log is configured");
    if (st->audit_postgres != NULL) { /* the replica set's one chain */
        const sluice_audit_pg_options o = { st->audit_postgres, st->audit_postgres_password_file,
                                            st->audit_postgres_password_env,
                                            st->audit_postgres_table, NULL };
        *source = st->audit_postgres_table != NULL ? st->audit_postgres_table : "sluice_audit";
        sluice_arena *arena = sluice_arena_new();
        sluice_error err = { 0 };
        json_t *t = arena != NULL ? sluice_audit_tail_pg(&o, max, arena, &err) : NULL;
        snprintf(why, cap, "%s", err.message != NULL ? err.message : "out of memory");
        sluice_arena_free(arena);
        return t;
    }
    if (cfg->code_mode.audit_log == NULL)
        return NULL;
    *source = cfg->code_mode.audit_log;
    snprintf(why, cap, "cannot read the audit log %s or a writer chain beside it", *source);
    return sluice_audit_tail(cfg->code_mode.audit_log, max);
}

bool sluice_http_admin_audit(sluice_http_admin *admin,
                             struct MHD_Connection *c,
                             const char *action,
                             json_t *fields)
{
    const char *as = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "as");
    char who[128];
    snprintf(who, sizeof who, "%s", as != NULL && *as != '\0' ? as : "admin");
    sluice_identity id = { .user_id = who, .method = "admin-http" };
    sluice_codemode_caller caller = { .identity = &id, .session_id = "admin-console" };
    sluice_arena *arena = sluice_arena_new();
    if (fields == NULL || arena == NULL ||
        json_object_set_new(fields, "action", json_string(action)) != 0) {
        json_decref(fields);
        sluice_arena_free(arena);
        return false;
    }
    sluice_error err = { 0 };
    bool ok = sluice_runtime_audit(admin->rt, arena, &caller, "admin", fields, &err) == SLUICE_OK;
    sluice_arena_free(arena);
    return ok;
}
