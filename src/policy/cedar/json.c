/*
 * json.c — Cedar's JSON value format to Cedar values.
 *
 * Owns: the mapping (true/false -> Bool, integers -> Long, strings, arrays -> Set, objects ->
 * Record; {"__entity": {type, id}} -> entity; {"__extn": {fn, arg}} -> extension value) and
 * its errors: JSON syntax errors carry line and column, shape errors carry the JSON path.
 * Without a schema, a bare {type, id} object is a record (as cedar-wasm treats it), except where
 * an entity uid is expected (entity uids and parents), where both forms are accepted.
 * Does not own: the entity store (entities.c).
 */
#include "policy/cedar/json.h"

#include "core/limits.h"

#include <string.h>

static sluice_status shape_error(cedar_json *c, const char *path, const char *what)
{
    return sluice_error_set(c->err, c->arena, SLUICE_E_INVALID, "%s: %s: %s", c->source, path,
                            what);
}

static const char *child_path(cedar_json *c, const char *path, const char *key, size_t index)
{
    char *s = key != NULL ? sluice_arena_printf(c->arena, "%s.%s", path, key)
                          : sluice_arena_printf(c->arena, "%s[%zu]", path, index);
    return s != NULL ? s : path;
}

static sluice_status copy_string(cedar_json *c, const json_t *j, const char **s, uint32_t *len)
{
    size_t n = json_string_length(j);
    char *copy = sluice_arena_strndup(c->arena, json_string_value(j), n);
    if (copy == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory reading JSON");
    *s = copy;
    *len = (uint32_t)n;
    return SLUICE_OK;
}

sluice_status
sluice_cedar_json_uid(cedar_json *c, const json_t *j, const char *path, sluice_cedar_uid *out)
{
    const json_t *inner = json_object_get(j, "__entity");
    if (inner != NULL)
        j = inner;
    const json_t *type = json_object_get(j, "type"), *id = json_object_get(j, "id");
    if (!json_is_object(j) || !json_is_string(type) || !json_is_string(id))
        return shape_error(c, path,
                           "expected an entity reference {\"type\": \"...\", \"id\": "
                           "\"...\"}");
    const char *ts, *is;
    uint32_t tl, il;
    sluice_status st = copy_string(c, type, &ts, &tl);
    if (st == SLUICE_OK)
        st = copy_string(c, id, &is, &il);
    if (st == SLUICE_OK)
        sluice_cedar_uid_make(out, ts, tl, is, il);
    return st;
}

/* {"__extn": {"fn": "ip", "arg": "10.0.0.1"}} */
static sluice_status
extension(cedar_json *c, const json_t *x, const char *path, sluice_cedar_value *out)
{
    const json_t *fn = json_object_get(x, "fn"), *arg = json_object_get(x, "arg");
    if (!json_is_string(fn) || !json_is_string(arg))
        return shape_error(c, path, "expected {\"__extn\": {\"fn\": \"...\", \"arg\": \"...\"}}");
    const char *name = json_string_value(fn);
    const char *s;
    uint32_t n;
    sluice_status st = copy_string(c, arg, &s, &n);
    if (st != SLUICE_OK)
        return st;
    const char *why;
    memset(out, 0, sizeof(*out));
    if (strcmp(name, "ip") == 0 || strcmp(name, "ipaddr") == 0) {
        sluice_cedar_ip *ip = sluice_arena_alloc(c->arena, sizeof(*ip));
        if (ip == NULL)
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        why = sluice_cedar_ip_parse(s, n, ip);
        out->kind = SLUICE_CEDAR_IPADDR;
        out->u.ip = ip;
    } else if (strcmp(name, "decimal") == 0) {
        why = sluice_cedar_decimal_parse(s, n, &out->u.l);
        out->kind = SLUICE_CEDAR_DECIMAL;
    } else if (strcmp(name, "datetime") == 0) {
        why = sluice_cedar_datetime_parse(s, n, &out->u.l);
        out->kind = SLUICE_CEDAR_DATETIME;
    } else if (strcmp(name, "duration") == 0) {
        why = sluice_cedar_duration_parse(s, n, &out->u.l);
        out->kind = SLUICE_CEDAR_DURATION;
    } else {
        return shape_error(c, path,
                           "unknown extension function (expected ip, decimal, datetime "
                           "or duration)");
    }
    return why != NULL ? shape_error(c, path, why) : SLUICE_OK;
}

static sluice_status
record(cedar_json *c, const json_t *j, const char *path, unsigned depth, sluice_cedar_value *out)
{
    size_t n = json_object_size(j);
    sluice_cedar_field *fields = sluice_arena_calloc(c->arena, n ? n : 1, sizeof(*fields));
    if (fields == NULL)
        return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory reading JSON");
    size_t i = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)j, key, v)
    {
        fields[i].key = sluice_arena_strdup(c->arena, key);
        fields[i].key_len = (uint32_t)strlen(key);
        if (fields[i].key == NULL)
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        sluice_status st =
            sluice_cedar_json_value(c, v, child_path(c, path, key, 0), depth + 1, &fields[i].value);
        if (st != SLUICE_OK)
            return st;
        i++;
    }
    if (sluice_cedar_value_record(fields, n, out) != SLUICE_OK)
        return shape_error(c, path, "duplicate key in record");
    return SLUICE_OK;
}

sluice_status sluice_cedar_json_value(
    cedar_json *c, const json_t *j, const char *path, unsigned depth, sluice_cedar_value *out)
{
    if (depth > SLUICE_LIMIT_NESTING_DEPTH)
        return sluice_error_set(c->err, c->arena, SLUICE_E_LIMIT,
                                "%s: %s: value nests too deeply (limit is %u)", c->source, path,
                                SLUICE_LIMIT_NESTING_DEPTH);
    memset(out, 0, sizeof(*out));
    switch (json_typeof(j)) {
    case JSON_TRUE:
    case JSON_FALSE:
        *out = sluice_cedar_value_bool(json_is_true(j));
        return SLUICE_OK;
    case JSON_INTEGER:
        *out = sluice_cedar_value_long((int64_t)json_integer_value(j));
        return SLUICE_OK;
    case JSON_REAL:
        return shape_error(c, path, "Cedar has no floating-point numbers (use decimal)");
    case JSON_NULL:
        return shape_error(c, path, "JSON null is not allowed in Cedar");
    case JSON_STRING: {
        const char *s;
        uint32_t n;
        sluice_status st = copy_string(c, j, &s, &n);
        *out = sluice_cedar_value_string(s, n);
        return st;
    }
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        sluice_cedar_value *items = sluice_arena_calloc(c->arena, n ? n : 1, sizeof(*items));
        if (items == NULL)
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            sluice_status st = sluice_cedar_json_value(
                c, json_array_get(j, i), child_path(c, path, NULL, i), depth + 1, &items[i]);
            if (st != SLUICE_OK)
                return st;
        }
        *out = sluice_cedar_value_set(items, n);
        return SLUICE_OK;
    }
    case JSON_OBJECT:
        break;
    }
    const json_t *ent = json_object_get(j, "__entity");
    const json_t *ext = json_object_get(j, "__extn");
    if (ent != NULL && json_object_size(j) == 1) {
        sluice_cedar_uid *uid = sluice_arena_alloc(c->arena, sizeof(*uid));
        if (uid == NULL)
            return sluice_error_set(c->err, c->arena, SLUICE_E_NOMEM, "out of memory");
        out->kind = SLUICE_CEDAR_ENTITY;
        out->u.uid = uid;
        return sluice_cedar_json_uid(c, ent, path, uid);
    }
    if (ext != NULL && json_object_size(j) == 1)
        return extension(c, ext, path, out);
    return record(c, j, path, depth, out);
}

sluice_status sluice_cedar_json_load(cedar_json *c, const char *text, size_t len, json_t **out)
{
    json_error_t jerr;
    *out = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (*out == NULL)
        return sluice_error_at(
            c->err, c->arena, SLUICE_E_INVALID, c->source, jerr.line > 0 ? (size_t)jerr.line : 0,
            jerr.column > 0 ? (size_t)jerr.column : 0, "invalid JSON: %s", jerr.text);
    return SLUICE_OK;
}

sluice_status
sluice_cedar_context_from_json(cedar_json *c, const json_t *j, sluice_cedar_value *out)
{
    if (!json_is_object(j))
        return sluice_error_at(c->err, c->arena, SLUICE_E_INVALID, c->source, 1, 1,
                               "the context must be a JSON object");
    return record(c, j, "context", 1, out);
}

static void json_release(void *j)
{
    json_decref(j);
}

static sluice_status parse_value(sluice_arena *arena,
                                 const char *text,
                                 size_t len,
                                 const char *source,
                                 bool need_record,
                                 sluice_cedar_value *out,
                                 sluice_error *err)
{
    sluice_error scratch;
    cedar_json c = { arena, source != NULL ? source : "<json>", err != NULL ? err : &scratch };
    sluice_error_clear(c.err);
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        i++;
    if (need_record && i == len) {
        out->kind = SLUICE_CEDAR_RECORD;
        out->len = 0;
        out->u.fields = NULL;
        return SLUICE_OK;
    }
    json_t *j;
    sluice_status st = sluice_cedar_json_load(&c, text, len, &j);
    if (st != SLUICE_OK)
        return st;
    if (sluice_arena_cleanup_add(arena, json_release, j) != SLUICE_OK)
        return sluice_error_set(c.err, arena, SLUICE_E_NOMEM, "out of memory");
    if (need_record)
        return sluice_cedar_context_from_json(&c, j, out);
    return sluice_cedar_json_value(&c, j, "value", 0, out);
}

sluice_status sluice_cedar_value_parse_json(sluice_arena *arena,
                                            const char *text,
                                            size_t len,
                                            const char *source,
                                            sluice_cedar_value *out,
                                            sluice_error *err)
{
    return parse_value(arena, text, len, source, false, out, err);
}

sluice_status sluice_cedar_context_parse_json(sluice_arena *arena,
                                              const char *text,
                                              size_t len,
                                              const char *source,
                                              sluice_cedar_value *out,
                                              sluice_error *err)
{
    return parse_value(arena, text, len, source, true, out, err);
}
