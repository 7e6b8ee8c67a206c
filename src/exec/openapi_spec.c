/*
 * openapi_spec.c — reading an OpenAPI 3.x document into operations (see openapi_spec.h).
 *
 * Owns: the file read, the version check, the walk over `paths` (path-level parameters merged
 * into each operation's), actions and idempotency with their overrides.
 * Does not own: YAML (openapi_yaml.c), $refs (openapi_ref.c), the renderings (openapi_decl.c).
 */
#include "exec/openapi_spec.h"

#include "core/limits.h"
#include "core/path_template.h"
#include "exec/openapi_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const methods[] = { "get", "put", "post", "delete", "patch" };

const char *sluice_openapi_action_name(sluice_openapi_action a)
{
    static const char *const names[] = { "read", "write", "delete", "admin" };
    return (unsigned)a < 4 ? names[a] : "admin";
}

static bool action_named(const char *s, sluice_openapi_action *out)
{
    for (int a = SLUICE_OPENAPI_READ; s != NULL && a <= SLUICE_OPENAPI_ADMIN; a++)
        if (strcasecmp(s, sluice_openapi_action_name((sluice_openapi_action)a)) == 0) {
            *out = (sluice_openapi_action)a;
            return true;
        }
    return false;
}

static void decref_cb(void *p)
{
    json_decref(p);
}

/* The bits of op's template segments whose parameter may span segments (x-multi-segment). */
static sluice_status spanning_of(sluice_arena *arena, sluice_openapi_op *op, sluice_error *err)
{
    sluice_path_segment segs[SLUICE_PATH_MAX_SEGMENTS];
    size_t n = sluice_path_split(op->path, segs, SLUICE_PATH_MAX_SEGMENTS);
    if (n == SIZE_MAX)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "path '%s' of the spec has more than %u segments", op->path,
                                SLUICE_PATH_MAX_SEGMENTS);
    unsigned count = 0;
    for (size_t k = 0; k < op->param_count; k++) {
        if (!op->params[k].multi_segment)
            continue;
        size_t len = strlen(op->params[k].name);
        for (size_t i = 0; i < n && i < 64; i++)
            if (segs[i].len == len + 2 && sluice_path_is_param(segs[i].text, segs[i].len) &&
                memcmp(segs[i].text + 1, op->params[k].name, len) == 0) {
                op->spanning |= (uint64_t)1 << i;
                count++;
            }
    }
    if (count > SLUICE_PATH_MAX_SPANNING)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "%s %s has %u path parameters that span segments "
                                "(x-multi-segment); sluice takes at most %u per operation",
                                op->method, op->path, count, SLUICE_PATH_MAX_SPANNING);
    return SLUICE_OK;
}

static sluice_status add_params(sluice_arena *arena,
                                const json_t *doc,
                                sluice_openapi_op *op,
                                const json_t *list,
                                sluice_error *err)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *p = sluice_openapi_deref(doc, json_array_get(list, i));
        const char *name = json_string_value(json_object_get(p, "name"));
        const char *in = json_string_value(json_object_get(p, "in"));
        if (name == NULL || in == NULL)
            return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                    "a parameter of %s %s has no name or no 'in'", op->method,
                                    op->path);
        sluice_openapi_in where;
        if (strcmp(in, "path") == 0)
            where = SLUICE_OPENAPI_IN_PATH;
        else if (strcmp(in, "query") == 0)
            where = SLUICE_OPENAPI_IN_QUERY;
        else if (strcmp(in, "header") == 0)
            where = SLUICE_OPENAPI_IN_HEADER;
        else
            continue; /* cookies: never sent by plans */
        size_t k = 0;
        while (k < op->param_count &&
               !(strcmp(op->params[k].name, name) == 0 && op->params[k].in == where))
            k++; /* an operation-level parameter overrides the path-level one */
        op->params[k] = (sluice_openapi_param){
            .name = name,
            .in = where,
            .required =
                where == SLUICE_OPENAPI_IN_PATH || json_is_true(json_object_get(p, "required")),
            .schema = json_object_get(p, "schema"),
            /* GitHub's extension for a value that spans segments (a file path, a branch) */
            .multi_segment = where == SLUICE_OPENAPI_IN_PATH &&
                             json_is_true(json_object_get(p, "x-multi-segment")),
        };
        if (k == op->param_count)
            op->param_count++;
    }
    return SLUICE_OK;
}

/* The [[code_mode.operations]] entry for op (by id, else by path), or NULL. */
static const sluice_config_operation *override_for(const sluice_config_code_mode *cm,
                                                   const sluice_openapi_op *op)
{
    for (size_t i = 0; cm != NULL && i < cm->operation_count; i++)
        if (strcmp(cm->operations[i].id, op->id) == 0)
            return &cm->operations[i];
    for (size_t i = 0; cm != NULL && i < cm->operation_count; i++)
        if (cm->operations[i].path != NULL && strcmp(cm->operations[i].path, op->path) == 0)
            return &cm->operations[i];
    return NULL;
}

static sluice_status classify(sluice_arena *arena,
                              sluice_openapi_op *op,
                              const json_t *raw,
                              const sluice_config_code_mode *cm,
                              sluice_error *err)
{
    bool safe = strcmp(op->method, "GET") == 0 || strcmp(op->method, "HEAD") == 0 ||
                strcmp(op->method, "OPTIONS") == 0;
    op->action = safe                                ? SLUICE_OPENAPI_READ
                 : strcmp(op->method, "DELETE") == 0 ? SLUICE_OPENAPI_DELETE
                                                     : SLUICE_OPENAPI_WRITE;
    op->idempotent = strcmp(op->method, "PUT") == 0 || strcmp(op->method, "DELETE") == 0 ||
                     strcmp(op->method, "GET") == 0;
    const json_t *x = json_object_get(raw, "x-sluice-category");
    if (x != NULL && !action_named(json_string_value(x), &op->action))
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "%s %s: x-sluice-category must be read, write, delete or admin",
                                op->method, op->path);
    const json_t *xi = json_object_get(raw, "x-sluice-idempotent");
    if (json_is_boolean(xi))
        op->idempotent = json_is_true(xi);
    /* action_tags (pmcp's per-name override), then the catalog's category, which wins */
    for (size_t i = 0; cm != NULL && i < cm->action_tags.count; i++)
        if (strcmp(cm->action_tags.names[i], op->id) == 0)
            action_named(cm->action_tags.actions[i], &op->action);
    const sluice_config_operation *o = override_for(cm, op);
    if (o != NULL) {
        action_named(o->category, &op->action);
        if (o->has_idempotent)
            op->idempotent = o->idempotent;
        if (o->description != NULL)
            op->description = o->description;
    }
    return SLUICE_OK;
}

/* A readable id for an operation without operationId: "get_users_id". */
static const char *synth_id(sluice_arena *arena, const char *method, const char *path)
{
    char *id = sluice_arena_printf(arena, "%s%s", method, path);
    for (char *p = id; p != NULL && *p != '\0'; p++)
        *p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
    return id;
}

/* The application/json schema of a request body or response (as written: a $ref stays one), or
 * NULL. */
static const json_t *json_schema_of(const json_t *doc, const json_t *carrier)
{
    const json_t *media = json_object_get(json_object_get(carrier, "content"), "application/json");
    return json_object_get(sluice_openapi_deref(doc, media), "schema");
}

static sluice_status add_op(sluice_arena *arena,
                            sluice_openapi_spec *s,
                            const char *path,
                            const char *method,
                            const json_t *raw,
                            const json_t *path_params,
                            const sluice_config_code_mode *cm,
                            sluice_error *err)
{
    if (s->op_count >= SLUICE_LIMIT_OPENAPI_OPERATIONS)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "the spec declares more than %u operations",
                                SLUICE_LIMIT_OPENAPI_OPERATIONS);
    sluice_openapi_op *op = &s->ops[s->op_count];
    memset(op, 0, sizeof *op);
    char up[8];
    size_t n = 0;
    for (; method[n] != '\0' && n + 1 < sizeof up; n++)
        up[n] = (char)toupper((unsigned char)method[n]);
    up[n] = '\0';
    op->method = sluice_arena_strdup(arena, up);
    op->path = path;
    const char *id = json_string_value(json_object_get(raw, "operationId"));
    op->id = id != NULL ? id : synth_id(arena, method, path);
    op->description = json_string_value(json_object_get(raw, "summary"));
    if (op->description == NULL)
        op->description = json_string_value(json_object_get(raw, "description"));
    const json_t *own = json_object_get(raw, "parameters");
    op->params = sluice_arena_calloc(arena, json_array_size(path_params) + json_array_size(own) + 1,
                                     sizeof *op->params);
    if (op->method == NULL || op->id == NULL || op->params == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading the spec");
    sluice_status st = add_params(arena, s->doc, op, path_params, err);
    if (st == SLUICE_OK)
        st = add_params(arena, s->doc, op, own, err);
    if (st == SLUICE_OK)
        st = spanning_of(arena, op, err);
    if (st != SLUICE_OK)
        return st;
    const json_t *body = sluice_openapi_deref(s->doc, json_object_get(raw, "requestBody"));
    op->body_schema = json_schema_of(s->doc, body);
    op->body_required = json_is_true(json_object_get(body, "required"));
    const char *code;
    json_t *resp;
    json_object_foreach(json_object_get(raw, "responses"), code, resp)
    {
        if (op->response_schema == NULL && code[0] == '2')
            op->response_schema = json_schema_of(s->doc, sluice_openapi_deref(s->doc, resp));
    }
    for (size_t i = 0; i < s->op_count; i++)
        if (strcmp(s->ops[i].id, op->id) == 0)
            return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                    "two operations have the id '%s'; operationIds must be unique",
                                    op->id);
    st = classify(arena, op, raw, cm, err);
    if (st == SLUICE_OK)
        s->op_count++;
    return st;
}

static size_t count_ops(const json_t *doc, const json_t *paths)
{
    size_t n = 0;
    const char *p;
    json_t *item;
    json_object_foreach((json_t *)paths, p, item)
    {
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
            n += json_object_get(sluice_openapi_deref(doc, item), methods[m]) != NULL;
    }
    return n;
}

/* Every [[code_mode.operations]] entry must name an operation: a typo is not silently ignored. */
static sluice_status check_overrides(sluice_arena *arena,
                                     const sluice_openapi_spec *s,
                                     const sluice_config_code_mode *cm,
                                     sluice_error *err)
{
    for (size_t i = 0; cm != NULL && i < cm->operation_count; i++) {
        const sluice_config_operation *o = &cm->operations[i];
        bool found = false;
        for (size_t k = 0; k < s->op_count && !found; k++)
            found = strcmp(s->ops[k].id, o->id) == 0 ||
                    (o->path != NULL && strcmp(s->ops[k].path, o->path) == 0);
        if (!found)
            return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                    "[[code_mode.operations]] id = \"%s\" names no operation of "
                                    "the OpenAPI spec (by operationId or path)",
                                    o->id);
    }
    return SLUICE_OK;
}

/* The spec's document, JSON or (not starting with '{') YAML, into *out; owned by the arena. */
static sluice_status read_doc(sluice_arena *arena,
                              const char *name,
                              const char *text,
                              size_t len,
                              json_t **out,
                              sluice_error *err)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    json_t *raw;
    if (i < len && text[i] == '{') {
        json_error_t jerr;
        raw = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        /* an integer beyond int64 (an example id, a maximum) is a number all the same: read the
         * document's integers as doubles rather than refuse it */
        if (raw == NULL && strstr(jerr.text, "too big") != NULL)
            raw = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
        if (raw == NULL)
            return sluice_error_at(err, arena, SLUICE_E_CONFIG, name, (size_t)jerr.line,
                                   (size_t)jerr.column, "%s is not valid JSON: %s", name,
                                   jerr.text);
    } else {
        raw = sluice_openapi_yaml_to_json(arena, name, text, len, err);
        if (raw == NULL)
            return err->status;
    }
    if (sluice_arena_cleanup_add(arena, decref_cb, raw) != SLUICE_OK) {
        json_decref(raw);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading the spec");
    }
    *out = raw;
    return SLUICE_OK;
}

/* OpenAPI 3.0 or 3.1 only; Swagger 2 is named as such, with the way to convert it. */
static sluice_status
check_version(sluice_arena *arena, const char *name, const json_t *raw, sluice_error *err)
{
    const char *version = json_string_value(json_object_get(raw, "openapi"));
    const char *swagger = json_string_value(json_object_get(raw, "swagger"));
    if (version == NULL && swagger != NULL)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "%s is Swagger %s; sluice reads OpenAPI 3.0 and 3.1: convert it "
                                "first (for example with swagger2openapi)",
                                name, swagger);
    if (version == NULL || strncmp(version, "3.", 2) != 0)
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "%s is not an OpenAPI 3.0 or 3.1 document (its \"openapi\" is %s)",
                                name, version != NULL ? version : "missing");
    return SLUICE_OK;
}

sluice_status sluice_openapi_spec_parse(sluice_arena *arena,
                                        const char *name,
                                        const char *text,
                                        size_t len,
                                        const sluice_config_code_mode *cm,
                                        sluice_openapi_spec *out,
                                        sluice_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *raw = NULL;
    sluice_status checked = read_doc(arena, name, text, len, &raw, err);
    if (checked == SLUICE_OK)
        checked = check_version(arena, name, raw, err);
    if (checked != SLUICE_OK)
        return checked;
    /* $refs stay where they are: every one a path reaches is checked now, and readers follow
     * them where they read them (openapi_ref.c) */
    const json_t *paths = json_object_get(raw, "paths");
    if (paths != NULL && !json_is_object(paths))
        return sluice_error_set(err, arena, SLUICE_E_CONFIG, "%s: \"paths\" is not an object",
                                name);
    checked = sluice_openapi_check_refs(arena, raw, paths, err);
    if (checked != SLUICE_OK)
        return checked;
    out->doc = raw;
    out->title = json_string_value(json_object_get(json_object_get(raw, "info"), "title"));
    out->server_url = json_string_value(
        json_object_get(json_array_get(json_object_get(raw, "servers"), 0), "url"));
    out->ops = sluice_arena_calloc(arena, count_ops(raw, paths) + 1, sizeof *out->ops);
    if (out->ops == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading the spec");
    const char *path;
    json_t *item;
    json_object_foreach((json_t *)paths, path, item)
    {
        item = (json_t *)sluice_openapi_deref(raw, item);
        if (strncmp(path, "x-", 2) == 0)
            continue; /* a specification extension, not a path */
        if (path[0] != '/')
            return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                    "path '%s' of the spec does not start with '/'", path);
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
            const json_t *raw_op = json_object_get(item, methods[m]);
            if (raw_op == NULL)
                continue;
            sluice_status st = add_op(arena, out, path, methods[m], raw_op,
                                      json_object_get(item, "parameters"), cm, err);
            if (st != SLUICE_OK)
                return st;
        }
    }
    return check_overrides(arena, out, cm, err);
}

sluice_status sluice_openapi_spec_load(sluice_arena *arena,
                                       const char *path,
                                       const sluice_config_code_mode *cm,
                                       sluice_openapi_spec *out,
                                       sluice_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sluice_error_set(err, arena, SLUICE_E_IO, "cannot open the OpenAPI spec %s", path);
    char *buf = malloc(SLUICE_LIMIT_OPENAPI_SPEC_BYTES + 1);
    size_t n = buf != NULL ? fread(buf, 1, SLUICE_LIMIT_OPENAPI_SPEC_BYTES + 1, f) : 0;
    fclose(f);
    if (buf == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory reading %s", path);
    if (n > SLUICE_LIMIT_OPENAPI_SPEC_BYTES) {
        free(buf);
        return sluice_error_set(err, arena, SLUICE_E_IO,
                                "the OpenAPI spec %s is larger than %u bytes", path,
                                SLUICE_LIMIT_OPENAPI_SPEC_BYTES);
    }
    sluice_status st = sluice_openapi_spec_parse(arena, path, buf, n, cm, out, err);
    free(buf);
    return st;
}
