/*
 * toml2json.c — prints a TOML file as toml-test's tagged JSON (a test program, not shipped).
 *
 * Owns: the mapping from sluice_toml_value to {"type": T, "value": "text"} per scalar, objects
 * for tables and arrays for arrays, as the toml-test corpus and tests/node/toml_*.mjs expect.
 * Does not own: parsing (src/config/toml.c). Invalid input: the rendered error on stderr, exit 1.
 */
#include "config/toml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *tagged(const char *type, const char *text)
{
    return json_pack("{s:s, s:s}", "type", type, "value", text);
}

static json_t *scalar_json(const sluice_toml_value *v)
{
    char text[64];
    switch (sluice_toml_type_of(v)) {
    case SLUICE_TOML_STRING: {
        size_t len;
        const char *s = sluice_toml_string(v, &len);
        return json_pack("{s:s, s:s#}", "type", "string", "value", s, len);
    }
    case SLUICE_TOML_INTEGER:
        snprintf(text, sizeof text, "%lld", (long long)sluice_toml_integer(v));
        return tagged("integer", text);
    case SLUICE_TOML_FLOAT: {
        double d = sluice_toml_float(v);
        if (d != d)
            return tagged("float", "nan");
        if (d == 1.0 / 0.0 || d == -1.0 / 0.0)
            return tagged("float", d > 0 ? "inf" : "-inf");
        snprintf(text, sizeof text, "%.17g", d);
        return tagged("float", text);
    }
    case SLUICE_TOML_BOOL:
        return tagged("bool", sluice_toml_bool(v) ? "true" : "false");
    case SLUICE_TOML_DATETIME:
        return tagged("datetime", sluice_toml_datetime_text(v));
    case SLUICE_TOML_DATETIME_LOCAL:
        return tagged("datetime-local", sluice_toml_datetime_text(v));
    case SLUICE_TOML_DATE_LOCAL:
        return tagged("date-local", sluice_toml_datetime_text(v));
    case SLUICE_TOML_TIME_LOCAL:
        return tagged("time-local", sluice_toml_datetime_text(v));
    default:
        return NULL;
    }
}

static json_t *to_json(const sluice_toml_value *v)
{
    if (sluice_toml_type_of(v) == SLUICE_TOML_TABLE) {
        json_t *obj = json_object();
        for (size_t i = 0; i < sluice_toml_table_count(v); i++) {
            json_object_setn_new(obj, sluice_toml_table_key(v, i),
                                 sluice_toml_table_key_length(v, i),
                                 to_json(sluice_toml_table_value(v, i)));
        }
        return obj;
    }
    if (sluice_toml_type_of(v) == SLUICE_TOML_ARRAY) {
        json_t *arr = json_array();
        for (size_t i = 0; i < sluice_toml_array_count(v); i++)
            json_array_append_new(arr, to_json(sluice_toml_array_get(v, i)));
        return arr;
    }
    return scalar_json(v);
}

static char *read_file(const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0, n;
    char *data = malloc(cap);
    while (data != NULL && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *bigger = realloc(data, cap * 2);
            if (bigger == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    *out_len = len;
    return data;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.toml\n", argv[0]);
        return 2;
    }
    size_t len;
    char *text = read_file(argv[1], &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
        return 2;
    }
    sluice_arena *arena = sluice_arena_new();
    sluice_toml_value *root = NULL;
    sluice_error err;
    sluice_error_clear(&err);
    int rc = 0;
    if (arena == NULL) {
        rc = 2;
    } else if (sluice_toml_parse(arena, text, len, argv[1], &root, &err) != SLUICE_OK) {
        fputs(sluice_error_render(arena, &err, text, len), stderr);
        rc = 1;
    } else {
        json_t *json = to_json(root);
        char *out = json_dumps(json, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (out != NULL)
            puts(out);
        rc = out != NULL ? 0 : 2;
        free(out);
        json_decref(json);
    }
    sluice_arena_free(arena);
    free(text);
    return rc;
}
