/*
 * http_admin_program.c — saved programs in the admin console (see http_admin_api.h):
 * GET /admin/api/programs lists the store, POST /admin/api/programs/promote and
 * /admin/api/programs/demote change it, as `sluice program` does from the command line.
 *
 * The judging, sealing, storing and auditing are codemode's (sluice_codemode_promote and
 * _demote); this file only turns a request body into their request, with the administrator as
 * the caller ("as", authenticated "admin-http", judged with the groups the body names), and
 * their status into an HTTP answer that says what was wrong, where, and how to fix it.
 */
#include "codemode/program.h"
#include "core/limits.h"
#include "transport/http_admin_api.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS     32u
#define MAX_NAME_CHARS 100u  /* "as" and each group, as the approval endpoint bounds "as" */
#define MAX_TEXT_CHARS 4096u /* a description or a demotion's reason */
#define PROMOTE_FIELDS "name, code, language, variables, parameters, description, as, groups"
#define DEMOTE_FIELDS  "name, reason, as"

/* ---- GET /admin/api/programs ------------------------------------------------------------ */

/* The estimate recorded when p's version was promoted (the audit "promote" record), or NULL. */
static json_t *promoted_estimate(const json_t *trail, const sluice_program *p)
{
    size_t i;
    const json_t *rec;
    json_array_foreach(trail, i, rec)
    {
        const char *event = json_string_value(json_object_get(rec, "event"));
        const char *name = json_string_value(json_object_get(rec, "name"));
        if (event != NULL && strcmp(event, "promote") == 0 && name != NULL &&
            strcmp(name, p->name) == 0 &&
            json_integer_value(json_object_get(rec, "version")) == p->version)
            return json_object_get(rec, "estimate");
    }
    return NULL;
}

static json_t *program_json(sluice_http_admin *admin,
                            sluice_arena *arena,
                            const sluice_program *p,
                            const json_t *trail)
{
    const char *why = sluice_codemode_program_unusable(admin->cm, arena, p);
    const char *status = why == NULL ? "runs" : p->demoted ? "demoted" : "disabled";
    json_t *o = json_pack("{s:s, s:I, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:I, s:o*}", "name",
                          p->name, "version", (json_int_t)p->version, "status", status, "reason",
                          why, "language", p->language, "code", p->code, "description",
                          p->description, "action", p->action, "by", p->by, "at", (json_int_t)p->at,
                          "input_schema", p->demoted ? NULL : sluice_program_input_schema(p));
    if (o == NULL || (!p->demoted && json_object_get(o, "input_schema") == NULL) ||
        json_object_set_new(o, "risk", json_string(p->risk != NULL ? p->risk : "")) != 0) {
        json_decref(o);
        return NULL;
    }
    const json_t *estimate = promoted_estimate(trail, p);
    if (estimate != NULL && json_object_set(o, "estimate", (json_t *)estimate) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int sluice_http_admin_programs(sluice_http_admin *admin, struct MHD_Connection *c)
{
    const sluice_config *config = sluice_codemode_config(admin->cm);
    /* the store as the page names it: the file, or the PostgreSQL table replicas share */
    const char *file = config->code_mode.programs_file != NULL
                           ? config->code_mode.programs_file
                           : config->state.programs_postgres_table;
    if (!sluice_config_programs_on(config))
        return sluice_http_admin_reply_json(c, 200,
                                            json_pack("{s:[], s:b}", "programs", "enabled", 0));
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return sluice_http_admin_reply_error(c, 500, "out of memory");
    sluice_program_catalog catalog;
    sluice_error err = { 0 };
    if (sluice_codemode_programs(admin->cm, arena, &catalog, &err) != SLUICE_OK) {
        int ret = sluice_http_admin_reply_error(
            c, 503, err.message != NULL ? err.message : "cannot read the program store");
        sluice_arena_free(arena);
        return ret;
    }
    const char *source = NULL;
    char why[320];
    json_t *trail =
        sluice_http_admin_trail(admin, SLUICE_LIMIT_ADMIN_AUDIT_RECORDS, &source, why, sizeof why);
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < catalog.count; i++)
        if (json_array_append_new(list, program_json(admin, arena, &catalog.items[i], trail)) !=
            0) {
            json_decref(list);
            list = NULL;
        }
    json_decref(trail);
    bool failed = sluice_arena_failed(arena);
    sluice_arena_free(arena);
    if (list == NULL || failed) { /* fail closed: never a list with a program missing */
        json_decref(list);
        return sluice_http_admin_reply_error(c, 500, "out of memory");
    }
    return sluice_http_admin_reply_json(
        c, 200, json_pack("{s:o, s:b, s:s}", "programs", list, "enabled", 1, "file", file));
}

/* ---- POST /admin/api/programs/{promote,demote} ------------------------------------------- */

typedef struct program_body {
    const char *name, *code, *language, *description, *reason, *as;
    const json_t *variables, *parameters;
    const char *groups[MAX_GROUPS];
    size_t group_count;
} program_body;

static int answer(sluice_arena *arena, const char **out_body, int status, json_t *doc)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    *out_body = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    if (*out_body == NULL) { /* fail closed: the status of an answer that could not be written */
        *out_body = "{\"error\":\"out of memory\"}";
        return 500;
    }
    return status;
}

/* message NULL: it could not be written (out of memory), and the answer says so. */
static int fail(sluice_arena *arena, const char **out_body, int status, const char *message)
{
    return answer(arena, out_body, message != NULL ? status : 500,
                  json_pack("{s:s}", "error", message != NULL ? message : "out of memory"));
}

/* A string field: NULL when absent; *bad set when present but not a string of 1..max chars. */
static const char *text_field(const json_t *doc, const char *key, size_t max, bool *bad)
{
    const json_t *v = json_object_get(doc, key);
    if (v == NULL)
        return NULL;
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > max ||
        strlen(json_string_value(v)) != json_string_length(v)) /* no NUL inside */
        *bad = true;
    return json_string_value(v);
}

/* What is wrong with body, or NULL when it is well formed and read into b (out of memory while
 * saying what is wrong: NULL too, with the arena failed). */
static const char *
body_problem(const json_t *doc, bool promote, program_body *b, sluice_arena *arena)
{
    if (!json_is_object(doc))
        return promote ? "the body must be a JSON object: {\"name\": ..., \"code\": ..., "
                         "\"variables\": {...}} (fields: " PROMOTE_FIELDS ")"
                       : "the body must be a JSON object: {\"name\": ...} (fields: " DEMOTE_FIELDS
                         ")";
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)doc, key, v)
    {
        const char *known = promote ? " " PROMOTE_FIELDS "," : " " DEMOTE_FIELDS ",";
        char pattern[80];
        snprintf(pattern, sizeof pattern, " %.64s,", key);
        if (strlen(key) > 64 || strstr(known, pattern) == NULL)
            return sluice_arena_printf(arena, "unknown field '%.64s' (the fields are: %s)", key,
                                       promote ? PROMOTE_FIELDS : DEMOTE_FIELDS);
    }
    bool bad = false;
    b->name = text_field(doc, "name", MAX_NAME_CHARS, &bad);
    if (b->name == NULL || bad)
        return "\"name\" must be the program's tool name (1-64 of A-Z a-z 0-9 _ . -)";
    b->as = text_field(doc, "as", MAX_NAME_CHARS, &bad);
    if (bad)
        return "\"as\" must be your name, 1-100 characters (recorded as the promoter)";
    if (b->as == NULL)
        b->as = "admin";
    if (!promote) {
        b->reason = text_field(doc, "reason", MAX_TEXT_CHARS, &bad);
        return bad ? "\"reason\" must be a string of 1-4096 characters" : NULL;
    }
    b->code = text_field(doc, "code", SLUICE_LIMIT_CODE_BYTES, &bad);
    if (b->code == NULL || bad)
        return sluice_arena_printf(arena, "\"code\" must be the program's code, 1 to %u bytes",
                                   SLUICE_LIMIT_CODE_BYTES);
    b->language = text_field(doc, "language", MAX_NAME_CHARS, &bad);
    b->description = text_field(doc, "description", MAX_TEXT_CHARS, &bad);
    if (bad)
        return "\"language\" (a code mode language) and \"description\" (at most 4096 "
               "characters) must be strings";
    b->variables = json_object_get(doc, "variables");
    b->parameters = json_object_get(doc, "parameters");
    if ((b->variables != NULL && !json_is_object(b->variables)) ||
        (b->parameters != NULL && !json_is_object(b->parameters)))
        return "\"variables\" (the values it is validated with, {\"n\": 10}) and \"parameters\" "
               "({\"n\": {\"type\": \"integer\", \"minimum\": 1}}) must be objects";
    const json_t *groups = json_object_get(doc, "groups");
    if (groups != NULL && (!json_is_array(groups) || json_array_size(groups) > MAX_GROUPS))
        return sluice_arena_printf(arena,
                                   "\"groups\" must be an array of at most %u group names (the "
                                   "groups the program is judged for)",
                                   MAX_GROUPS);
    for (size_t i = 0; i < json_array_size(groups); i++) {
        const json_t *g = json_array_get(groups, i);
        if (!json_is_string(g) || json_string_length(g) == 0 ||
            json_string_length(g) > MAX_NAME_CHARS ||
            strlen(json_string_value(g)) != json_string_length(g))
            return sluice_arena_printf(arena,
                                       "\"groups\"[%zu] must be a group name of 1-100 "
                                       "characters",
                                       i);
        b->groups[b->group_count++] = json_string_value(g);
    }
    return NULL;
}

/* The HTTP status of a codemode status: the caller's mistakes are 4xx, the server's 5xx. */
static int status_of(sluice_status st, bool promote)
{
    switch (st) {
    case SLUICE_E_INVALID:
    case SLUICE_E_LIMIT:
        return 400;
    case SLUICE_E_NOT_FOUND:
    case SLUICE_E_UNSUPPORTED:
        return 404;
    case SLUICE_E_DENIED:
        return promote ? 422 : 409; /* not valid / already demoted (or a concurrent change) */
    default:
        return 500;
    }
}

int sluice_http_admin_program_post(sluice_http_admin *admin,
                                   const char *action,
                                   const char *body,
                                   size_t len,
                                   sluice_arena *arena,
                                   const char **out_body)
{
    bool promote = strcmp(action, "promote") == 0;
    if (!promote && strcmp(action, "demote") != 0)
        return fail(arena, out_body, 404,
                    "unknown path: POST /admin/api/programs/promote or /admin/api/programs/demote");
    if (admin->cm == NULL)
        return fail(arena, out_body, 404, "saved programs need code mode");
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL && json_error_code(&jerr) == json_error_out_of_memory)
        return fail(arena, out_body, 500, "out of memory");
    if (doc == NULL)
        return fail(arena, out_body, 400,
                    sluice_arena_printf(arena, "the body is not JSON: %s (line %d, column %d)",
                                        jerr.text, jerr.line, jerr.column));
    program_body b = { 0 };
    const char *bad = body_problem(doc, promote, &b, arena);
    if (bad != NULL || sluice_arena_failed(arena)) { /* fail(NULL): out of memory, 500 */
        json_decref(doc);
        return fail(arena, out_body, 400, bad);
    }
    sluice_identity who = {
        .user_id = b.as, .groups = b.groups, .group_count = b.group_count, .method = "admin-http"
    };
    sluice_codemode_caller caller = { .identity = &who,
                                      .session_id = "admin-console",
                                      .language = b.language };
    sluice_error err = { 0 };
    sluice_codemode_request req = { .arena = arena, .caller = &caller, .err = &err };
    sluice_status st;
    json_t *reply = NULL;
    if (promote) {
        req.code = b.code;
        req.code_len = strlen(b.code);
        req.variables = b.variables;
        const sluice_codemode_promotion promotion = { b.name, b.description, b.parameters };
        st = sluice_codemode_promote(admin->cm, &req, &promotion, &reply);
    } else {
        int64_t version = 0;
        st = sluice_codemode_demote(admin->cm, &req, b.name, b.reason, &version);
        if (st == SLUICE_OK &&
            (reply = json_pack("{s:s, s:I, s:b, s:s}", "name", b.name, "version",
                               (json_int_t)version, "demoted", 1, "by", b.as)) == NULL)
            st = sluice_error_set(&err, arena, SLUICE_E_NOMEM,
                                  "out of memory after demoting '%s' version %lld", b.name,
                                  (long long)version);
    }
    if (st == SLUICE_OK) {
        json_decref(doc);
        return answer(arena, out_body, 200, reply);
    }
    const char *message = err.message != NULL ? err.message : sluice_status_name(st);
    if (promote && st == SLUICE_E_DENIED && strstr(message, "polic") != NULL)
        message = sluice_arena_printf(arena,
                                      "%s (judged as '%s' with %zu group%s: give \"groups\" the "
                                      "groups of the callers it is for)",
                                      message, b.as, b.group_count, b.group_count == 1 ? "" : "s");
    json_decref(doc); /* b's strings are doc's */
    return fail(arena, out_body, status_of(st, promote), message);
}
