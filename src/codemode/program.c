/*
 * program.c — saved programs: records, seals, the catalog, parameters (see program.h).
 *
 * A store line is {"prev", "name", "version", "record", "key", "mac"}, record being the record's
 * canonical JSON as a string. The MAC covers a domain tag, prev and exactly that text (verified
 * as stored, never re-serialised), so neither a record nor its place in the chain can be changed
 * without the key. The outer name and version (which the store checks its rules on)
 * must equal the record's.
 */
#include "codemode/program.h"

#include "core/hash.h"
#include "core/json_schema.h"
#include "core/limits.h"

#include <stdio.h>
#include <string.h>

#define MAC_TAG "sluice-program-v1"
/* JSON Schema's and JavaScript's safe integers: the default bounds of integer parameters. */
#define SAFE_INT 9007199254740991LL

static const char *const type_names[] = { "string", "integer", "number", "boolean" };

static bool ident_char(char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static bool param_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!ident_char(name[i], i == 0))
            return false;
    return true;
}

bool sluice_program_name_valid(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!ident_char(name[i], false) && name[i] != '.' && name[i] != '-')
            return false;
    return true;
}

bool sluice_program_name_reserved(const sluice_config *config, const char *name)
{
    /* tag-builtin-tool-names: surface/tools.c, surface/discover.c, surface/querymode_tools.c */
    static const char *const builtin[] = { "validate_code", "execute_code",  "search",
                                           "describe",      "search_tables", "describe_table",
                                           "load",          "query",         "drop_table" };
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(name, builtin[i]) == 0)
            return true;
    for (size_t i = 0; i < config->tool_count; i++)
        if (strcmp(name, config->tools[i].name) == 0)
            return true;
    return false;
}

/* ---- parameters ---------------------------------------------------------------------------- */

static bool type_of_name(const char *name, sluice_param_type *out)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (name != NULL && strcmp(name, type_names[i]) == 0) {
            *out = (sluice_param_type)i;
            return true;
        }
    return false;
}

/* An integer bound of a spec entry (entry may be NULL), def when absent; false when it is not
 * a whole number within ±2^53. */
static bool bound(const json_t *entry, const char *key, int64_t def, int64_t *out)
{
    const json_t *v = json_object_get(entry, key);
    if (v == NULL) {
        *out = def;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < -SAFE_INT ||
        json_integer_value(v) > SAFE_INT)
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

/* The type and description of a parameter from its spec entry, whose keys must all be known. */
static sluice_status
param_spec(sluice_arena *arena, const json_t *entry, sluice_program_param *p, sluice_error *err)
{
    static const char *const known[] = { "type", "description", "minimum", "maximum", "maxLength" };
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)entry, key, v)
    {
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "parameter '%s': unknown key '%.64s' (use type, "
                                    "description, minimum, maximum, maxLength)",
                                    p->name, key);
    }
    if (!type_of_name(json_string_value(json_object_get(entry, "type")), &p->type))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': type must be \"string\", \"integer\", "
                                "\"number\" or \"boolean\"",
                                p->name);
    const json_t *d = json_object_get(entry, "description");
    if (d != NULL && !json_is_string(d))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': description must be a string", p->name);
    if (d != NULL && (p->description = sluice_arena_strdup(arena, json_string_value(d))) == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    return SLUICE_OK;
}

/* The type of a parameter without a spec entry: that of its example value. */
static sluice_status
param_example(sluice_arena *arena, const json_t *value, sluice_program_param *p, sluice_error *err)
{
    if (json_is_string(value))
        p->type = SLUICE_PARAM_STRING;
    else if (json_is_integer(value))
        p->type = SLUICE_PARAM_INTEGER;
    else if (json_is_real(value))
        p->type = SLUICE_PARAM_NUMBER;
    else if (json_is_boolean(value))
        p->type = SLUICE_PARAM_BOOLEAN;
    else
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "variable '%s' is %s: a saved program's parameters are strings, "
                                "numbers or booleans; give its type in the parameter spec",
                                p->name, json_is_null(value) ? "null" : "an object or array");
    return SLUICE_OK;
}

/* The bounds of a typed parameter: minimum/maximum for numbers, maxLength for strings (entry
 * may be NULL: the defaults). */
static sluice_status
param_bounds(sluice_arena *arena, const json_t *entry, sluice_program_param *p, sluice_error *err)
{
    bool numeric = p->type == SLUICE_PARAM_INTEGER || p->type == SLUICE_PARAM_NUMBER;
    bool string = p->type == SLUICE_PARAM_STRING;
    if (entry != NULL && !numeric &&
        (json_object_get(entry, "minimum") != NULL || json_object_get(entry, "maximum") != NULL))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': minimum and maximum apply to integer and number "
                                "parameters only",
                                p->name);
    if (entry != NULL && !string && json_object_get(entry, "maxLength") != NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': maxLength applies to string parameters only",
                                p->name);
    const char *bad =
        !bound(entry, "minimum", -SAFE_INT, &p->minimum)  ? "minimum"
        : !bound(entry, "maximum", SAFE_INT, &p->maximum) ? "maximum"
        : !bound(entry, "maxLength", SLUICE_LIMIT_PROGRAM_STRING_CHARS, &p->max_length)
            ? "maxLength"
            : NULL;
    if (bad != NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': %s must be a whole number within ±2^53", p->name,
                                bad);
    if (p->minimum > p->maximum)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': minimum %lld is above maximum %lld", p->name,
                                (long long)p->minimum, (long long)p->maximum);
    if (p->max_length < 1 || p->max_length > (int64_t)SLUICE_LIMIT_PROGRAM_STRING_CHARS_MAX)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%s': maxLength must be 1 .. %u", p->name,
                                SLUICE_LIMIT_PROGRAM_STRING_CHARS_MAX);
    return SLUICE_OK;
}

/* One parameter from its spec entry (an object) or, without one, from its example value. */
static sluice_status param_from(sluice_arena *arena,
                                const char *name,
                                const json_t *entry,
                                const json_t *value,
                                sluice_program_param *p,
                                sluice_error *err)
{
    memset(p, 0, sizeof *p);
    p->name = sluice_arena_strdup(arena, name);
    if (p->name == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (!param_name_valid(name))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "parameter '%.64s' is not a valid name: use 1-64 of A-Z a-z 0-9 _, "
                                "not starting with a digit",
                                name);
    sluice_status st =
        entry != NULL ? param_spec(arena, entry, p, err) : param_example(arena, value, p, err);
    return st == SLUICE_OK ? param_bounds(arena, entry, p, err) : st;
}

/* The JSON Schema of one parameter. */
static json_t *param_schema(const sluice_program_param *p)
{
    json_t *s = json_pack("{s:s}", "type", type_names[p->type]);
    if (s == NULL)
        return NULL;
    int bad = 0;
    if (p->description != NULL)
        bad |= json_object_set_new(s, "description", json_string(p->description));
    if (p->type == SLUICE_PARAM_INTEGER || p->type == SLUICE_PARAM_NUMBER) {
        bad |= json_object_set_new(s, "minimum", json_integer((json_int_t)p->minimum));
        bad |= json_object_set_new(s, "maximum", json_integer((json_int_t)p->maximum));
    }
    if (p->type == SLUICE_PARAM_STRING)
        bad |= json_object_set_new(s, "maxLength", json_integer((json_int_t)p->max_length));
    if (bad != 0) {
        json_decref(s);
        return NULL;
    }
    return s;
}

static json_t *schema_of(const sluice_program_param *params, size_t count)
{
    json_t *props = json_object();
    json_t *required = json_array();
    json_t *schema = json_pack("{s:s, s:o, s:o, s:b}", "type", "object", "properties", props,
                               "required", required, "additionalProperties", 0);
    if (schema == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++)
        if (json_object_set_new(props, params[i].name, param_schema(&params[i])) != 0 ||
            json_array_append_new(required, json_string(params[i].name)) != 0) {
            json_decref(schema);
            return NULL;
        }
    return schema;
}

json_t *sluice_program_input_schema(const sluice_program *p)
{
    return schema_of(p->params, p->param_count);
}

json_t *sluice_program_sample_arguments(const sluice_program *p)
{
    json_t *args = json_object();
    for (size_t i = 0; args != NULL && i < p->param_count; i++) {
        const sluice_program_param *q = &p->params[i];
        json_t *v = q->type == SLUICE_PARAM_STRING    ? json_string("")
                    : q->type == SLUICE_PARAM_BOOLEAN ? json_false()
                    : q->type == SLUICE_PARAM_NUMBER  ? json_real((double)q->minimum)
                                                      : json_integer((json_int_t)q->minimum);
        if (json_object_set_new(args, q->name, v) != 0) {
            json_decref(args);
            args = NULL;
        }
    }
    return args;
}

static sluice_status check_against(const sluice_program_param *params,
                                   size_t count,
                                   const json_t *arguments,
                                   const char *root,
                                   sluice_arena *arena,
                                   sluice_error *err)
{
    json_t *schema = schema_of(params, count);
    if (schema == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    json_t *empty = arguments == NULL || json_is_null(arguments) ? json_object() : NULL;
    sluice_status st = empty == NULL && arguments == NULL
                           ? SLUICE_E_NOMEM
                           : sluice_json_schema_validate(schema, empty != NULL ? empty : arguments,
                                                         root, arena, err);
    json_decref(empty);
    json_decref(schema);
    if (st == SLUICE_E_NOMEM)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    return st;
}

sluice_status sluice_program_check_arguments(const sluice_program *p,
                                             const json_t *arguments,
                                             sluice_arena *arena,
                                             sluice_error *err)
{
    return check_against(p->params, p->param_count, arguments, "arguments", arena, err);
}

sluice_status sluice_program_params_from(sluice_arena *arena,
                                         const json_t *spec,
                                         const json_t *example,
                                         sluice_program_param **out,
                                         size_t *out_count,
                                         sluice_error *err)
{
    if (spec != NULL && !json_is_object(spec))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "the parameter spec must be an object {name: {type, ...}}");
    if (example != NULL && !json_is_null(example) && !json_is_object(example))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "variables must be a JSON object {\"name\": value}");
    const json_t *from = spec != NULL ? spec : example;
    size_t n = json_is_object(from) ? json_object_size(from) : 0;
    if (n > SLUICE_LIMIT_PROGRAM_PARAMS)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "too many parameters: %zu (limit is %u)", n,
                                SLUICE_LIMIT_PROGRAM_PARAMS);
    sluice_program_param *params = sluice_arena_calloc(arena, n + 1, sizeof *params);
    if (params == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    size_t i = 0;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)from, key, v)
    {
        if (spec != NULL && !json_is_object(v))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "parameter '%.64s': its spec must be an object {type, ...}",
                                    key);
        sluice_status st = param_from(arena, key, spec != NULL ? v : NULL, v, &params[i++], err);
        if (st != SLUICE_OK)
            return st;
    }
    /* the example the program was validated with must fit what callers will be held to */
    sluice_status st = check_against(params, n, example, "variables", arena, err);
    if (st == SLUICE_E_INVALID)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "the validated variables do not fit the parameters: %s; pass one "
                                "value per parameter, of its type and within its bounds",
                                err->message);
    if (st != SLUICE_OK)
        return st;
    *out = params;
    *out_count = n;
    return SLUICE_OK;
}

/* ---- records -------------------------------------------------------------------------------- */

json_t *sluice_program_to_json(const sluice_program *p)
{
    json_t *params = json_array();
    for (size_t i = 0; params != NULL && i < p->param_count; i++) {
        const sluice_program_param *q = &p->params[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I}", "name", q->name, "type",
                              type_names[q->type], "minimum", (json_int_t)q->minimum, "maximum",
                              (json_int_t)q->maximum, "maxLength", (json_int_t)q->max_length);
        if (o != NULL && q->description != NULL &&
            json_object_set_new(o, "description", json_string(q->description)) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (json_array_append_new(params, o) != 0) {
            json_decref(params);
            params = NULL;
        }
    }
    if (params == NULL)
        return NULL;
    return json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:{s:s, s:s, s:s, s:s}, "
                     "s:s, s:I, s:s}",
                     "name", p->name, "version", (json_int_t)p->version, "state",
                     p->demoted ? "demoted" : "promoted", "language", p->language, "code", p->code,
                     "code_hash", p->code_hash, "description",
                     p->description != NULL ? p->description : "", "parameters", params, "action",
                     p->action, "risk", p->risk, "basis", "backend", p->basis.backend, "schema",
                     p->basis.schema_version, "policy", p->basis.policy_version, "rules",
                     p->basis.rules, "by", p->by, "at", (json_int_t)p->at, "reason",
                     p->reason != NULL ? p->reason : "");
}

/* HMAC over the tag, prev and the record's canonical text, as hex into out. */
static sluice_status mac_text(const sluice_secret *key,
                              const char *prev,
                              const char *record_text,
                              sluice_arena *arena,
                              uint8_t mac[SLUICE_SECRET_MAC_BYTES])
{
    size_t tag = sizeof MAC_TAG, plen = strlen(prev) + 1, rlen = strlen(record_text);
    char *data = sluice_arena_alloc(arena, tag + plen + rlen);
    if (data == NULL)
        return SLUICE_E_NOMEM;
    memcpy(data, MAC_TAG, tag);
    memcpy(data + tag, prev, plen);
    memcpy(data + tag + plen, record_text, rlen);
    sluice_secret_mac(key, data, tag + plen + rlen, mac);
    return SLUICE_OK;
}

/* The canonical text of v (sorted keys, compact), in arena; NULL on NOMEM. The text is read
 * back and compared with v: jansson 2.14 can write a wrong text without an error when an
 * allocation fails inside json_dumps (found by this file's sweep), and a sealed wrong text would
 * be a valid record of something nobody promoted. */
static const char *canonical(const json_t *v, sluice_arena *arena)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *back = text != NULL ? json_loads(text, 0, NULL) : NULL;
    const char *copy =
        back != NULL && json_equal(back, v) ? sluice_arena_strdup(arena, text) : NULL;
    json_decref(back);
    free(text);
    return copy;
}

typedef struct seal_ctx {
    const sluice_secret *key;
    const json_t *record;
    const char *name;
    int64_t version;
} seal_ctx;

static const char *seal_line(void *ctx, const char *prev, sluice_arena *arena)
{
    const seal_ctx *s = ctx;
    const char *text = canonical(s->record, arena);
    uint8_t mac[SLUICE_SECRET_MAC_BYTES];
    if (text == NULL || mac_text(s->key, prev, text, arena, mac) != SLUICE_OK)
        return NULL;
    char hex[2 * SLUICE_SECRET_MAC_BYTES + 1];
    sluice_hash_hex(mac, sizeof mac, hex);
    json_t *line = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s}", "prev", prev, "name", s->name,
                             "version", (json_int_t)s->version, "record", text, "key",
                             sluice_secret_key_id(s->key), "mac", hex);
    const char *out = line != NULL ? canonical(line, arena) : NULL;
    json_decref(line);
    return out;
}

sluice_status sluice_program_save(sluice_program_store *store,
                                  const sluice_secret_ring *ring,
                                  const sluice_program *p,
                                  sluice_arena *arena,
                                  sluice_error *err)
{
    if (!sluice_program_name_valid(p->name))
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "'%.64s' is not a valid saved-program name: use 1-64 of A-Z a-z "
                                "0-9 _ . -",
                                p->name != NULL ? p->name : "");
    json_t *record = sluice_program_to_json(p);
    if (record == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    seal_ctx ctx = { sluice_secret_ring_current(ring), record, p->name, p->version };
    sluice_status st =
        sluice_program_store_append(store, arena, p->name, p->version, seal_line, &ctx, err);
    json_decref(record);
    return st;
}

/* ---- opening and the catalog --------------------------------------------------------------- */

static const char *text_of(const json_t *o, const char *key, sluice_arena *arena, bool *ok)
{
    const json_t *v = json_object_get(o, key);
    const char *s = json_is_string(v) ? sluice_arena_strdup(arena, json_string_value(v)) : NULL;
    *ok = *ok && s != NULL;
    return s;
}

/* Reads a verified record into p; false when it is not a record this version writes. */
static bool record_from(const json_t *r, sluice_program *p, sluice_arena *arena)
{
    bool ok = true;
    p->name = text_of(r, "name", arena, &ok);
    p->version = (int64_t)json_integer_value(json_object_get(r, "version"));
    const char *state = text_of(r, "state", arena, &ok);
    p->demoted = ok && strcmp(state, "demoted") == 0;
    p->language = text_of(r, "language", arena, &ok);
    p->code = text_of(r, "code", arena, &ok);
    p->code_hash = text_of(r, "code_hash", arena, &ok);
    p->description = text_of(r, "description", arena, &ok);
    p->action = text_of(r, "action", arena, &ok);
    p->risk = text_of(r, "risk", arena, &ok);
    const json_t *b = json_object_get(r, "basis");
    p->basis.backend = text_of(b, "backend", arena, &ok);
    p->basis.schema_version = text_of(b, "schema", arena, &ok);
    p->basis.policy_version = text_of(b, "policy", arena, &ok);
    p->basis.rules = text_of(b, "rules", arena, &ok);
    p->by = text_of(r, "by", arena, &ok);
    p->at = (int64_t)json_integer_value(json_object_get(r, "at"));
    p->reason = text_of(r, "reason", arena, &ok);
    const json_t *params = json_object_get(r, "parameters");
    size_t n = json_is_array(params) ? json_array_size(params) : 0;
    if (!ok || !json_is_array(params) || n > SLUICE_LIMIT_PROGRAM_PARAMS)
        return false;
    p->params = sluice_arena_calloc(arena, n + 1, sizeof *p->params);
    p->param_count = n;
    for (size_t i = 0; p->params != NULL && i < n; i++) {
        const json_t *q = json_array_get(params, i);
        sluice_program_param *pp = &p->params[i];
        pp->name = text_of(q, "name", arena, &ok);
        ok = ok && type_of_name(json_string_value(json_object_get(q, "type")), &pp->type);
        pp->minimum = (int64_t)json_integer_value(json_object_get(q, "minimum"));
        pp->maximum = (int64_t)json_integer_value(json_object_get(q, "maximum"));
        pp->max_length = (int64_t)json_integer_value(json_object_get(q, "maxLength"));
        const json_t *d = json_object_get(q, "description");
        if (d != NULL)
            pp->description = text_of(q, "description", arena, &ok);
    }
    return ok && p->params != NULL;
}

/* Verifies one store line with ring: its record text when the MAC holds (in arena), NULL when
 * it does not; *key_id names the key the line claims (in arena). SLUICE_E_NOMEM only when memory
 * ran out (then nothing may be concluded). */
static sluice_status verify_line(const sluice_secret_ring *ring,
                                 const sluice_program_line *l,
                                 sluice_arena *arena,
                                 const char **record_text,
                                 const char **key_id)
{
    *record_text = NULL;
    *key_id = "no key named";
    json_t *line = json_loads(l->text, 0, NULL);
    if (line == NULL)
        return SLUICE_E_NOMEM; /* the store parsed this text already: only memory fails now */
    const char *record = json_string_value(json_object_get(line, "record"));
    const char *id = json_string_value(json_object_get(line, "key"));
    const char *mac_hex = json_string_value(json_object_get(line, "mac"));
    const char *prev = json_string_value(json_object_get(line, "prev"));
    const sluice_secret *key = id != NULL ? sluice_secret_ring_find(ring, id, strlen(id)) : NULL;
    uint8_t want[SLUICE_SECRET_MAC_BYTES], got[SLUICE_SECRET_MAC_BYTES];
    sluice_status st = SLUICE_OK;
    if (id != NULL && (*key_id = sluice_arena_strdup(arena, id)) == NULL)
        st = SLUICE_E_NOMEM;
    if (st == SLUICE_OK && key != NULL && record != NULL && mac_hex != NULL &&
        sluice_hash_unhex(mac_hex, strlen(mac_hex), got, sizeof got) == SLUICE_OK) {
        st = mac_text(key, prev, record, arena, want);
        if (st == SLUICE_OK && sluice_hash_equal(want, got, sizeof want) &&
            (*record_text = sluice_arena_strdup(arena, record)) == NULL)
            st = SLUICE_E_NOMEM;
    }
    json_decref(line);
    return st;
}

/* Opens one store line into p: verified and parsed, or p->disabled says why not. SLUICE_E_NOMEM
 * only when memory ran out (then nothing may be concluded). */
static sluice_status open_line(const sluice_secret_ring *ring,
                               const sluice_program_line *l,
                               sluice_arena *arena,
                               sluice_program *p)
{
    memset(p, 0, sizeof *p);
    p->name = l->name;
    p->version = l->version;
    const char *text = NULL, *key_id = NULL;
    sluice_status st = verify_line(ring, l, arena, &text, &key_id);
    if (st != SLUICE_OK)
        return st;
    if (text == NULL) {
        p->disabled = sluice_arena_printf(
            arena,
            "saved program '%s' is disabled: its record (version %lld, line %zu of the store) does "
            "not verify: it was changed outside sluice, or signed with a key no longer in the "
            "keyring (%s); an administrator must re-promote it",
            l->name, (long long)l->version, l->line_no, key_id);
        return p->disabled != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    json_t *record = json_loads(text, 0, NULL);
    if (record == NULL)
        return SLUICE_E_NOMEM; /* sealed by us, so it is JSON: only memory fails */
    sluice_program r;
    memset(&r, 0, sizeof r);
    bool ok = record_from(record, &r, arena);
    json_decref(record);
    if (!ok && sluice_arena_failed(arena))
        return SLUICE_E_NOMEM;
    if (!ok || strcmp(r.name, l->name) != 0 || r.version != l->version)
        p->disabled = sluice_arena_printf(arena,
                                          "saved program '%s' version %lld has a record this "
                                          "server cannot read; an administrator must re-promote it",
                                          l->name, (long long)l->version);
    else if (r.demoted)
        p->disabled = sluice_arena_printf(
            arena,
            "saved program '%s' was demoted by %s (version %lld)%s%s; it no longer runs. Ask an "
            "administrator to promote it again, or validate the code with validate_code",
            r.name, r.by, (long long)r.version, r.reason[0] != '\0' ? ": " : "", r.reason);
    else {
        *p = r;
        return SLUICE_OK;
    }
    if (ok) {
        const char *why = p->disabled;
        *p = r;
        p->disabled = why;
    }
    return p->disabled != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

sluice_status sluice_program_catalog_load(sluice_program_store *store,
                                          const sluice_secret_ring *ring,
                                          sluice_arena *arena,
                                          sluice_program_catalog *out,
                                          sluice_error *err)
{
    sluice_program_line *lines = NULL;
    size_t count = 0;
    sluice_status st = sluice_program_store_read(store, arena, &lines, &count, err);
    if (st != SLUICE_OK)
        return st;
    sluice_program_catalog c = { sluice_arena_calloc(arena, count + 1, sizeof *c.items), 0 };
    if (c.items == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        sluice_program p;
        if (open_line(ring, &lines[i], arena, &p) != SLUICE_OK)
            return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        size_t k = 0;
        while (k < c.count && strcmp(c.items[k].name, p.name) != 0)
            k++;
        if (k == c.count && c.count == SLUICE_LIMIT_PROGRAMS)
            return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                    "too many saved programs in the store (limit is %u)",
                                    SLUICE_LIMIT_PROGRAMS);
        c.items[k] = p;
        if (k == c.count)
            c.count++;
    }
    *out = c;
    return SLUICE_OK;
}

const sluice_program *sluice_program_find(const sluice_program_catalog *catalog, const char *name)
{
    for (size_t i = 0; name != NULL && i < catalog->count; i++)
        if (strcmp(catalog->items[i].name, name) == 0)
            return &catalog->items[i];
    return NULL;
}

const char *
sluice_program_stale(const sluice_program *p, const sluice_program_basis *live, sluice_arena *arena)
{
    const char *what = NULL;
    if (strcmp(p->basis.backend, live->backend) != 0)
        what = sluice_arena_printf(arena,
                                   "it was promoted for database '%s', and your route runs on "
                                   "'%s'",
                                   p->basis.backend, live->backend);
    else if (strcmp(p->basis.schema_version, live->schema_version) != 0)
        what = sluice_arena_printf(
            arena, "the schema of database '%s' changed since it was promoted", p->basis.backend);
    else if (strcmp(p->basis.policy_version, live->policy_version) != 0)
        what = sluice_arena_printf(arena,
                                   "the policy set changed since it was promoted (policy version "
                                   "%.12s, now %.12s)",
                                   p->basis.policy_version, live->policy_version);
    else if (strcmp(p->basis.rules, live->rules) != 0)
        what = "the [code_mode] rules changed since it was promoted";
    else
        return NULL;
    const char *msg = sluice_arena_printf(
        arena,
        "saved program '%s' (version %lld) is disabled: %s, so the approval its promotion gave no "
        "longer holds. An administrator must validate it again and re-promote it (sluice "
        "program promote); until then use validate_code and execute_code",
        p->name, (long long)p->version, what != NULL ? what : "(out of memory)");
    return msg != NULL ? msg : "(out of memory)";
}
