/*
 * cedar_backend.c — the local Cedar backend: seed 000's request model on sluice's Cedar engine.
 *
 * Owns: loading [policy] policies/entities/schema once, and per request the entity store the
 * request needs — the entities file plus the principal (its identity groups as parents, merged
 * with any parents the file gives it) and the resource (the route's attributes, which replace
 * any the file declares for that server: the configuration is the truth about what a route
 * allows). Does not own: Cedar semantics (policy/cedar/) or the request JSON (policy.c).
 */
#include "config/checks.h"
#include "core/limits.h"
#include "policy/backend.h"
#include "policy/cedar/cedar.h"
#include "policy/cedar/json.h"
#include "policy/cedar/schema.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct cedar_state {
    sluice_arena *arena;
    const sluice_cedar_policyset *set;
    json_t *entities; /* the entities file's array (empty without one) */
    const char *source;
} cedar_state;

static sluice_status read_text(sluice_arena *arena,
                               const char *path,
                               const char *key,
                               char **text,
                               size_t *len,
                               sluice_arena *err_arena,
                               sluice_error *err)
{
    int e = sluice_checks_read_file(arena, path, SLUICE_LIMIT_POLICY_FILE_BYTES, true, text, len);
    if (e == ENOMEM)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (e != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "[policy] %s: cannot read %s: %s",
                                key, path,
                                e == EFBIG    ? "file too large"
                                : e == EINVAL ? "not a regular file"
                                              : strerror(e));
    return SLUICE_OK;
}

/* Copies an engine error (in the state's arena) into err_arena. */
static sluice_status
config_error(const sluice_error *from, const char *key, sluice_arena *err_arena, sluice_error *err)
{
    sluice_status st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "[policy] %s: %s", key,
                                        from->message != NULL ? from->message : "invalid");
    if (err != NULL) {
        err->source = from->source != NULL ? sluice_arena_strdup(err_arena, from->source) : NULL;
        err->line = from->line;
        err->column = from->column;
    }
    return st;
}

static sluice_status check_schema(cedar_state *s,
                                  const char *path,
                                  sluice_hash_state *version,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    char *text;
    size_t len;
    sluice_status st = read_text(s->arena, path, "schema", &text, &len, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    sluice_hash_update(version, text, len + 1);
    sluice_error e = { 0 };
    sluice_cedar_schema *schema;
    if (sluice_cedar_schema_parse_json(s->arena, text, len, path, &schema, &e) != SLUICE_OK)
        return config_error(&e, "schema", err_arena, err);
    sluice_cedar_validation v;
    if (sluice_cedar_schema_validate(s->arena, schema, s->set, &v) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (v.count == 0)
        return SLUICE_OK;
    const sluice_cedar_policy *p = v.problems[0].policy;
    return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                            "[policy] %s:%zu: policy %s does not validate against the schema %s: "
                            "%s (%zu problem%s; run 'sluice policy check %s --schema %s')",
                            s->source, sluice_cedar_policy_first_line(p), sluice_cedar_policy_id(p),
                            path, v.problems[0].message, v.count, v.count == 1 ? "" : "s",
                            s->source, path);
}

static void cedar_close(void *state)
{
    cedar_state *s = state;
    json_decref(s->entities);
    sluice_arena_free(s->arena);
    free(s);
}

sluice_status sluice_policy_cedar_open(const sluice_config_policy *config,
                                       sluice_hash_state *version,
                                       void **state,
                                       sluice_arena *err_arena,
                                       sluice_error *err)
{
    cedar_state *s = calloc(1, sizeof *s);
    if (s == NULL || (s->arena = sluice_arena_new()) == NULL) {
        free(s);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    s->source = config->policies;
    char *text;
    size_t len;
    sluice_error e = { 0 };
    sluice_cedar_policyset *set = NULL;
    sluice_status st =
        read_text(s->arena, config->policies, "policies", &text, &len, err_arena, err);
    if (st == SLUICE_OK) {
        sluice_hash_update(version, text, len + 1);
        if (sluice_cedar_policyset_parse(s->arena, text, len, config->policies, &set, &e) !=
            SLUICE_OK)
            st = config_error(&e, "policies", err_arena, err);
        s->set = set;
    }
    if (st == SLUICE_OK && config->entities != NULL) {
        st = read_text(s->arena, config->entities, "entities", &text, &len, err_arena, err);
        sluice_cedar_entities *check;
        if (st == SLUICE_OK) {
            sluice_hash_update(version, text, len + 1);
            if (sluice_cedar_entities_parse_json(s->arena, text, len, config->entities, &check,
                                                 &e) != SLUICE_OK)
                st = config_error(&e, "entities", err_arena, err);
        }
        if (st == SLUICE_OK)
            s->entities = json_loadb(text, len, 0, NULL);
    } else if (st == SLUICE_OK) {
        s->entities = json_array();
    }
    if (st == SLUICE_OK && s->entities == NULL)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && config->schema != NULL)
        st = check_schema(s, config->schema, version, err_arena, err);
    if (st != SLUICE_OK) {
        cedar_close(s);
        return st;
    }
    *state = s;
    return SLUICE_OK;
}

/* ---- per request ---------------------------------------------------------------------------- */

static bool same_uid(const json_t *a, const json_t *b)
{
    const json_t *ua = json_object_get(a, "__entity") != NULL ? json_object_get(a, "__entity") : a;
    return json_equal(json_object_get(ua, "type"), json_object_get(b, "type")) &&
           json_equal(json_object_get(ua, "id"), json_object_get(b, "id"));
}

/* Appends v (stolen); a failed append clears *ok. */
static void append(json_t *array, json_t *v, bool *ok)
{
    if (v == NULL || json_array_append_new(array, v) != 0)
        *ok = false;
}

/* The principal entity: the file's (if any) with the identity's groups added as parents. NULL
 * when any part is missing: an entity without one of its groups could skip a forbid. */
static json_t *principal_entity(const json_t *request, const json_t *file_entity)
{
    const json_t *who = json_object_get(request, "principal");
    json_t *parents = json_array();
    json_t *attrs = json_object();
    bool ok = parents != NULL && attrs != NULL;
    const json_t *g;
    size_t i;
    json_array_foreach(json_object_get(request, "groups"), i, g)
    {
        if (ok)
            append(parents, json_pack("{s:s, s:O}", "type", "CodeMode::Group", "id", g), &ok);
    }
    if (ok && file_entity != NULL) {
        const json_t *fp = json_object_get(file_entity, "parents");
        const json_t *fa = json_object_get(file_entity, "attrs");
        ok = (fp == NULL || json_array_extend(parents, (json_t *)fp) == 0) &&
             (fa == NULL || json_object_update(attrs, (json_t *)fa) == 0);
    }
    if (!ok) {
        json_decref(parents);
        json_decref(attrs);
        return NULL;
    }
    return json_pack("{s:O, s:o, s:o}", "uid", who, "attrs", attrs, "parents", parents);
}

/* The file's entities, then the principal and the resource as this request defines them. NULL
 * unless every entity made it in (a missing parent or attribute could flip the decision). */
static json_t *request_entities(const cedar_state *s, const json_t *request)
{
    const json_t *principal = json_object_get(request, "principal");
    const json_t *resource = json_object_get(request, "resource");
    json_t *all = json_array();
    bool ok = all != NULL;
    const json_t *file_principal = NULL, *e;
    size_t i;
    json_array_foreach(s->entities, i, e)
    {
        const json_t *uid = json_object_get(e, "uid");
        if (same_uid(uid, principal))
            file_principal = e;
        else if (ok && !same_uid(uid, resource))
            ok = json_array_append(all, (json_t *)e) == 0;
    }
    if (ok)
        append(all, principal_entity(request, file_principal), &ok);
    if (ok)
        append(all,
               json_pack("{s:{s:O, s:O}, s:O, s:[]}", "uid", "type",
                         json_object_get(resource, "type"), "id", json_object_get(resource, "id"),
                         "attrs", json_object_get(resource, "attrs"), "parents"),
               &ok);
    if (!ok) {
        json_decref(all);
        return NULL;
    }
    return all;
}

/* false on NOMEM (a blank uid would match no policy's scope, including a forbid's) */
static bool uid_from(sluice_arena *arena, const json_t *j, sluice_cedar_uid *uid)
{
    const char *type = json_string_value(json_object_get(j, "type"));
    const char *id = json_string_value(json_object_get(j, "id"));
    type = sluice_arena_strdup(arena, type != NULL ? type : "");
    id = sluice_arena_strdup(arena, id != NULL ? id : "");
    if (type == NULL || id == NULL)
        return false;
    sluice_cedar_uid_make(uid, type, strlen(type), id, strlen(id));
    return true;
}

static sluice_policy_reason reason_of(const sluice_cedar_policy *p)
{
    size_t len;
    const char *text = sluice_cedar_policy_text(p, &len);
    (void)len;
    return (sluice_policy_reason){ .id = sluice_cedar_policy_id(p),
                                   .annotation = sluice_cedar_policy_annotation(p, "id"),
                                   .text = text,
                                   .first_line = sluice_cedar_policy_first_line(p),
                                   .last_line = sluice_cedar_policy_last_line(p),
                                   .forbid = sluice_cedar_policy_is_forbid(p) };
}

static sluice_status convert(const cedar_state *s,
                             sluice_arena *arena,
                             const sluice_cedar_decision *d,
                             sluice_policy_decision *out)
{
    out->allow = d->allow;
    out->reason_count = d->determining_count;
    out->reasons = sluice_arena_calloc(arena, d->determining_count + 1, sizeof *out->reasons);
    if (out->reasons == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < d->determining_count; i++)
        out->reasons[i] = reason_of(d->determining[i]);
    for (size_t i = 0; i < d->error_count; i++) {
        const sluice_cedar_policy *p = d->errors[i].policy;
        const char *ann = sluice_cedar_policy_annotation(p, "id");
        sluice_status st = sluice_policy_decision_error(
            out, arena, "policy %s%s%s%s (%s:%zu): %s", sluice_cedar_policy_id(p),
            ann != NULL ? " @id(\"" : "", ann != NULL ? ann : "", ann != NULL ? "\")" : "",
            s->source, sluice_cedar_policy_first_line(p), d->errors[i].message);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static sluice_status cedar_evaluate(void *state,
                                    sluice_arena *arena,
                                    const json_t *request,
                                    sluice_policy_decision *out,
                                    sluice_error *err)
{
    const cedar_state *s = state;
    json_t *entities = request_entities(s, request);
    if (entities == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    sluice_error e = { 0 };
    cedar_json c = { arena, "entities", &e };
    sluice_cedar_entities *store = NULL;
    sluice_cedar_request req = { 0 };
    sluice_status st = sluice_cedar_entities_from_json(&c, entities, &store);
    json_decref(entities);
    if (st == SLUICE_OK)
        st = sluice_cedar_context_from_json(&c, json_object_get(request, "context"), &req.context);
    if (st == SLUICE_E_NOMEM)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK)
        return sluice_policy_decision_error(out, arena, "%s", e.message) == SLUICE_OK
                   ? SLUICE_OK
                   : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!uid_from(arena, json_object_get(request, "principal"), &req.principal) ||
        !uid_from(arena, json_object_get(request, "action"), &req.action) ||
        !uid_from(arena, json_object_get(request, "resource"), &req.resource))
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    sluice_cedar_decision d;
    st = sluice_cedar_is_authorized(s->set, store, &req, arena, &d, &e);
    if (st == SLUICE_OK)
        st = convert(s, arena, &d, out);
    else if (st != SLUICE_E_NOMEM)
        st = sluice_policy_decision_error(out, arena, "%s", e.message);
    return st == SLUICE_OK ? SLUICE_OK : sluice_error_set(err, arena, st, "out of memory");
}

static size_t cedar_forbids(void *state, sluice_arena *arena, sluice_policy_reason **out)
{
    const cedar_state *s = state;
    size_t n = sluice_cedar_policyset_count(s->set), k = 0;
    *out = sluice_arena_calloc(arena, n + 1, sizeof **out);
    for (size_t i = 0; *out != NULL && i < n; i++) {
        const sluice_cedar_policy *p = sluice_cedar_policyset_get(s->set, i);
        if (sluice_cedar_policy_is_forbid(p))
            (*out)[k++] = reason_of(p);
    }
    return k;
}

const sluice_policy_backend_ops sluice_policy_cedar_ops = {
    .name = "cedar",
    .evaluate = cedar_evaluate,
    .close = cedar_close,
    .forbids = cedar_forbids,
};
