/*
 * keys.c — the generic decoder behind every key table (see keys.h).
 *
 * A row says what a key is; this file does the rest for every row alike: type check, range
 * check, NUL and emptiness checks, path resolution, storing, defaults, "did you mean" over the
 * keys of the same table, and the refusal of inline secrets. Keys are visited in file order so the
 * first error is the first one in the file.
 */
#include "config/keys.h"

#include "config/suggest.h"
#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Values longer than this are shortened when quoted back in a message. */
#define SHOW_MAX 48u

/* ------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------ */

sluice_status sluice_keys_nomem(sluice_keys_loader *ld)
{
    return sluice_error_set(ld->err, ld->err_arena, SLUICE_E_NOMEM,
                            "out of memory while loading the configuration");
}

static sluice_status fail_atv(sluice_keys_loader *ld,
                              size_t line,
                              size_t column,
                              const char *key,
                              const char *fmt,
                              va_list ap) __attribute__((format(printf, 5, 0)));

static sluice_status fail_atv(sluice_keys_loader *ld,
                              size_t line,
                              size_t column,
                              const char *key,
                              const char *fmt,
                              va_list ap)
{
    if (ld->err == NULL)
        return SLUICE_E_CONFIG;
    char *msg = ld->err_arena != NULL ? sluice_arena_vprintf(ld->err_arena, fmt, ap) : NULL;
    if (msg == NULL)
        return sluice_keys_nomem(ld);
    sluice_error_clear(ld->err);
    ld->err->status = SLUICE_E_CONFIG;
    ld->err->message = msg;
    ld->err->source = sluice_arena_strdup(ld->err_arena, ld->source);
    ld->err->key = sluice_arena_strdup(ld->err_arena, key);
    ld->err->line = line;
    ld->err->column = column;
    return SLUICE_E_CONFIG;
}

sluice_status sluice_keys_fail_at(
    sluice_keys_loader *ld, size_t line, size_t column, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_status st = fail_atv(ld, line, column, key, fmt, ap);
    va_end(ap);
    return st;
}

sluice_status sluice_keys_fail_value(
    sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sluice_status st = fail_atv(ld, sluice_toml_line(v), sluice_toml_column(v), key, fmt, ap);
    va_end(ap);
    return st;
}

void sluice_keys_hint(sluice_keys_loader *ld, const char *fmt, ...)
{
    if (ld->err == NULL || ld->err_arena == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    ld->err->hint = sluice_arena_vprintf(ld->err_arena, fmt, ap);
    va_end(ap);
}

/* User text quoted back in a message: bounded, control bytes shown as '?'. Keys and values can
 * be anything a quoted TOML string holds, and messages end up in terminals and logs. */
const char *sluice_keys_show(sluice_keys_loader *ld, const char *s)
{
    if (s == NULL)
        return "";
    size_t len = strlen(s), n = len > SHOW_MAX ? SHOW_MAX : len;
    char *out = ld->err_arena != NULL ? sluice_arena_alloc(ld->err_arena, n + 4) : NULL;
    if (out == NULL)
        return "...";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    memcpy(out + n, len > n ? "..." : "", len > n ? 4 : 1);
    return out;
}

/* "in [code_mode]", "in [[tools.parameters]]", or "at the top level". */
static const char *where(sluice_keys_loader *ld, const sluice_section_spec *spec)
{
    if (spec->path == NULL)
        return "at the top level";
    const char *s =
        sluice_arena_printf(ld->err_arena, spec->array ? "in [[%s]]" : "in [%s]", spec->path);
    return s != NULL ? s : spec->path;
}

/* ------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------ */

static void *field(void *obj, size_t offset)
{
    return (char *)obj + offset;
}

static const sluice_key_spec *find_key(const sluice_section_spec *spec, const char *name)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        if (strcmp(spec->keys[i].name, name) == 0)
            return &spec->keys[i];
    }
    return NULL;
}

/* Position of key's value in table, or of the table itself when the key is absent. */
void sluice_keys_value_pos(const sluice_toml_value *table,
                           const char *key,
                           size_t *line,
                           size_t *col)
{
    const sluice_toml_value *v = table != NULL ? sluice_toml_table_get(table, key) : NULL;
    const sluice_toml_value *at = v != NULL ? v : table;
    *line = at != NULL ? sluice_toml_line(at) : 0;
    *col = at != NULL ? sluice_toml_column(at) : 0;
}

/* ------------------------------------------------------------------------------------------
 * The generic decoder
 * ------------------------------------------------------------------------------------------ */

static const char *kind_wants(sluice_key_kind kind)
{
    switch (kind) {
    case SLUICE_KEY_BOOL:
        return "a boolean";
    case SLUICE_KEY_INT:
    case SLUICE_KEY_SIZE:
        return "an integer";
    case SLUICE_KEY_STRING:
    case SLUICE_KEY_PATH:
    case SLUICE_KEY_ENUM:
    case SLUICE_KEY_CHOICE:
        return "a string";
    case SLUICE_KEY_STRLIST:
    case SLUICE_KEY_RISKS:
        return "an array of strings";
    case SLUICE_KEY_TABLES:
        return "an array of tables";
    case SLUICE_KEY_SECTION:
    case SLUICE_KEY_ACTIONS:
    case SLUICE_KEY_NAMES:
        return "a table";
    }
    return "a value";
}

static sluice_toml_type kind_type(sluice_key_kind kind)
{
    switch (kind) {
    case SLUICE_KEY_BOOL:
        return SLUICE_TOML_BOOL;
    case SLUICE_KEY_INT:
    case SLUICE_KEY_SIZE:
        return SLUICE_TOML_INTEGER;
    case SLUICE_KEY_STRING:
    case SLUICE_KEY_PATH:
    case SLUICE_KEY_ENUM:
    case SLUICE_KEY_CHOICE:
        return SLUICE_TOML_STRING;
    case SLUICE_KEY_STRLIST:
    case SLUICE_KEY_RISKS:
    case SLUICE_KEY_TABLES:
        return SLUICE_TOML_ARRAY;
    case SLUICE_KEY_SECTION:
    case SLUICE_KEY_ACTIONS:
    case SLUICE_KEY_NAMES:
        return SLUICE_TOML_TABLE;
    }
    return SLUICE_TOML_TABLE;
}

/* True when a quoted string would be the wanted scalar without its quotes ("300", "true"). */
static bool looks_like(sluice_key_kind kind, const char *s)
{
    if (kind == SLUICE_KEY_BOOL)
        return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
    if (kind != SLUICE_KEY_INT && kind != SLUICE_KEY_SIZE)
        return false;
    size_t sign = s[0] == '-' || s[0] == '+' ? 1 : 0;
    size_t digits = strspn(s + sign, "0123456789_");
    return digits > 0 && s[sign + digits] == '\0';
}

static sluice_status wrong_type(sluice_keys_loader *ld,
                                const sluice_key_spec *k,
                                const sluice_toml_value *v,
                                const sluice_section_spec *spec)
{
    sluice_toml_type got = sluice_toml_type_of(v);
    sluice_keys_fail_value(ld, v, k->name, "'%s' must be %s, got %s", k->name, kind_wants(k->kind),
                           sluice_toml_type_name(got));
    if (k->kind == SLUICE_KEY_TABLES && got == SLUICE_TOML_TABLE)
        sluice_keys_hint(ld, "write [[%s%s%s]] (double brackets) once per entry",
                         spec->path ? spec->path : "", spec->path ? "." : "", k->name);
    else if (k->kind == SLUICE_KEY_SECTION && got == SLUICE_TOML_ARRAY)
        sluice_keys_hint(ld, "write [%s%s%s] (single brackets): there is only one",
                         spec->path ? spec->path : "", spec->path ? "." : "", k->name);
    else if (got == SLUICE_TOML_STRING && looks_like(k->kind, sluice_toml_string(v, NULL)))
        sluice_keys_hint(ld, "remove the quotes");
    return SLUICE_E_CONFIG;
}

/* Copies a TOML string into the config arena, refusing embedded NUL (it would silently cut a
 * path or a name short) and strings below min bytes. */
static sluice_status take_string(sluice_keys_loader *ld,
                                 const sluice_toml_value *v,
                                 const char *key,
                                 int64_t min,
                                 const char **out)
{
    size_t len = 0;
    const char *s = sluice_toml_string(v, &len);
    if (memchr(s, '\0', len) != NULL)
        return sluice_keys_fail_value(ld, v, key, "'%s' must not contain a NUL character", key);
    if (min > 0 && len < (size_t)min)
        return sluice_keys_fail_value(ld, v, key, "'%s' must not be empty", key);
    char *copy = sluice_arena_strndup(ld->arena, s, len);
    if (copy == NULL)
        return sluice_keys_nomem(ld);
    *out = copy;
    return SLUICE_OK;
}

/* dir + "/" + path unless path is absolute or there is no dir. */
static sluice_status resolve_path(sluice_keys_loader *ld, const char *path, const char **out)
{
    if (path[0] == '/' || ld->dir == NULL) {
        *out = path;
        return SLUICE_OK;
    }
    const char *joined = sluice_arena_printf(ld->arena, "%s/%s", ld->dir, path);
    if (joined == NULL)
        return sluice_keys_nomem(ld);
    *out = joined;
    return SLUICE_OK;
}

/* Index of s in the NULL-terminated choices, or an error listing them. */
static sluice_status take_choice(sluice_keys_loader *ld,
                                 const sluice_toml_value *v,
                                 const char *key,
                                 const char *const *choices,
                                 size_t *out)
{
    const char *s = sluice_toml_string(v, NULL);
    for (size_t i = 0; choices[i] != NULL; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return SLUICE_OK;
        }
    }
    sluice_buf b;
    sluice_buf_init(&b, ld->err_arena, 512);
    sluice_suggest sug;
    sluice_suggest_init(&sug, s);
    for (size_t i = 0; choices[i] != NULL; i++) {
        sluice_buf_printf(&b, "%s\"%s\"", i > 0 ? ", " : "", choices[i]);
        sluice_suggest_consider(&sug, choices[i]);
    }
    sluice_keys_fail_value(ld, v, key, "'%s' must be one of %s, got \"%s\"", key,
                           sluice_buf_status(&b) == SLUICE_OK ? b.data : "the documented values",
                           sluice_keys_show(ld, s));
    if (sluice_suggest_best(&sug) != NULL)
        sluice_keys_hint(ld, "did you mean '%s'?", sluice_suggest_best(&sug));
    return SLUICE_E_CONFIG;
}

const char *const sluice_keys_risk_names[] = { "low", "medium", "high", "critical", NULL };
const char *const sluice_keys_action_names[] = { "read", "write", "delete", "admin", NULL };

/* Arrays of strings: every item a string, non-empty, without NUL. */
static sluice_status take_strlist(sluice_keys_loader *ld,
                                  const sluice_toml_value *v,
                                  const sluice_key_spec *k,
                                  sluice_strlist *out)
{
    size_t n = sluice_toml_array_count(v);
    const char **items = n > 0 ? sluice_arena_calloc(ld->arena, n, sizeof(*items)) : NULL;
    if (n > 0 && items == NULL)
        return sluice_keys_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_STRING)
            return sluice_keys_fail_value(ld, item, k->name,
                                          "'%s' must be an array of strings, got %s at "
                                          "index %zu",
                                          k->name, sluice_toml_type_name(sluice_toml_type_of(item)),
                                          i);
        sluice_status st = take_string(ld, item, k->name, 1, &items[i]);
        if (st != SLUICE_OK)
            return st;
        if (k->kind == SLUICE_KEY_RISKS) {
            size_t level;
            st = take_choice(ld, item, k->name, sluice_keys_risk_names, &level);
            if (st != SLUICE_OK)
                return st;
        }
    }
    if (out != NULL) {
        out->items = items;
        out->count = n;
    }
    return SLUICE_OK;
}

static sluice_status
take_tables(sluice_keys_loader *ld, const sluice_toml_value *v, const sluice_key_spec *k, void *obj)
{
    size_t n = sluice_toml_array_count(v);
    for (size_t i = 0; i < n; i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_TABLE)
            return sluice_keys_fail_value(ld, item, k->name,
                                          "'%s' must be an array of tables, got %s at "
                                          "index %zu",
                                          k->name, sluice_toml_type_name(sluice_toml_type_of(item)),
                                          i);
    }
    char *elems = NULL;
    bool store = k->offset != SLUICE_KEY_NO_FIELD;
    if (store && n > 0) {
        elems = sluice_arena_calloc(ld->arena, n, k->sub->size);
        if (elems == NULL)
            return sluice_keys_nomem(ld);
    }
    for (size_t i = 0; i < n; i++) {
        void *elem = elems != NULL ? elems + i * k->sub->size : NULL;
        sluice_status st = sluice_keys_decode(ld, k->sub, sluice_toml_array_get(v, i), elem);
        if (st != SLUICE_OK)
            return st;
    }
    if (store) {
        memcpy(field(obj, k->offset), &elems, sizeof(elems));
        memcpy(field(obj, k->count_offset), &n, sizeof(n));
    }
    return SLUICE_OK;
}

/* A table of name = string into names/values (count entries, file order; NULL out: stored
 * nowhere):
 * SLUICE_KEY_ACTIONS values are one of the action names (the static string is stored),
 * SLUICE_KEY_NAMES values any string of at least k->min bytes (copied). */
static sluice_status take_map(sluice_keys_loader *ld,
                              const sluice_toml_value *v,
                              const sluice_key_spec *k,
                              const char ***names_out,
                              const char ***values_out,
                              size_t *count_out)
{
    size_t n = sluice_toml_table_count(v);
    bool store = names_out != NULL;
    const char **names = store ? sluice_arena_calloc(ld->arena, n + 1, sizeof *names) : NULL;
    const char **values = store ? sluice_arena_calloc(ld->arena, n + 1, sizeof *values) : NULL;
    if (store && (names == NULL || values == NULL))
        return sluice_keys_nomem(ld);
    for (size_t i = 0; i < n; i++) {
        const sluice_toml_value *item = sluice_toml_table_value(v, i);
        const char *name = sluice_toml_table_key(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_STRING)
            return sluice_keys_fail_value(
                ld, item, k->name, "'%s' values must be strings, got %s for '%s'", k->name,
                sluice_toml_type_name(sluice_toml_type_of(item)), sluice_keys_show(ld, name));
        const char *value = NULL;
        sluice_status st = SLUICE_OK;
        if (k->kind == SLUICE_KEY_ACTIONS) {
            size_t action;
            st = take_choice(ld, item, k->name, sluice_keys_action_names, &action);
            value = st == SLUICE_OK ? sluice_keys_action_names[action] : NULL;
        } else {
            st = take_string(ld, item, k->name, k->min, &value);
        }
        if (st != SLUICE_OK)
            return st;
        if (store) {
            names[i] = sluice_arena_strdup(ld->arena, name);
            values[i] = value;
            if (names[i] == NULL)
                return sluice_keys_nomem(ld);
        }
    }
    if (store) {
        *names_out = names;
        *values_out = values;
        *count_out = n;
    }
    return SLUICE_OK;
}

/* An INT (int64_t at at) or SIZE (size_t) key within k's bounds, when k has them. */
static sluice_status
take_integer(sluice_keys_loader *ld, const sluice_key_spec *k, const sluice_toml_value *v, void *at)
{
    int64_t n = sluice_toml_integer(v);
    if (k->min < k->max && (n < k->min || n > k->max))
        return sluice_keys_fail_value(ld, v, k->name,
                                      "'%s' must be between %lld and %lld, got %lld", k->name,
                                      (long long)k->min, (long long)k->max, (long long)n);
    if (at != NULL && k->kind == SLUICE_KEY_INT)
        memcpy(at, &n, sizeof(n));
    if (at != NULL && k->kind == SLUICE_KEY_SIZE) {
        size_t z = (size_t)n;
        memcpy(at, &z, sizeof(z));
    }
    return SLUICE_OK;
}

/* A STRING key of at least k->min bytes, or a PATH (not empty, resolved against the config
 * file's folder). */
static sluice_status
take_text(sluice_keys_loader *ld, const sluice_key_spec *k, const sluice_toml_value *v, void *at)
{
    const char *s = NULL;
    sluice_status st = take_string(ld, v, k->name, k->kind == SLUICE_KEY_PATH ? 1 : k->min, &s);
    if (st == SLUICE_OK && k->kind == SLUICE_KEY_PATH)
        st = resolve_path(ld, s, &s);
    if (st == SLUICE_OK && at != NULL)
        memcpy(at, &s, sizeof(s));
    return st;
}

/* One of k->choices: an ENUM stores its index (int), a CHOICE the choice's static string. */
static sluice_status
take_named(sluice_keys_loader *ld, const sluice_key_spec *k, const sluice_toml_value *v, void *at)
{
    size_t index;
    sluice_status st = take_choice(ld, v, k->name, k->choices, &index);
    if (st == SLUICE_OK && at != NULL && k->kind == SLUICE_KEY_ENUM) {
        int e = (int)index;
        memcpy(at, &e, sizeof(e));
    } else if (st == SLUICE_OK && at != NULL) {
        memcpy(at, &k->choices[index], sizeof(k->choices[index]));
    }
    return st;
}

/* A list of risk levels as four flags (bool[4] at at, in sluice_keys_risk_names' order). */
static sluice_status
take_risks(sluice_keys_loader *ld, const sluice_key_spec *k, const sluice_toml_value *v, void *at)
{
    sluice_strlist levels = { 0 };
    sluice_status st = take_strlist(ld, v, k, &levels);
    for (size_t i = 0; st == SLUICE_OK && at != NULL && i < 4; i++) {
        bool on = false;
        for (size_t j = 0; j < levels.count; j++)
            on = on || strcmp(levels.items[j], sluice_keys_risk_names[i]) == 0;
        memcpy((bool *)at + i, &on, sizeof(on));
    }
    return st;
}

/* Type-checks v against k and stores it in obj (unless k is stored nowhere). */
static sluice_status take_value(sluice_keys_loader *ld,
                                const sluice_section_spec *spec,
                                const sluice_key_spec *k,
                                const sluice_toml_value *v,
                                void *obj)
{
    if (sluice_toml_type_of(v) != kind_type(k->kind))
        return wrong_type(ld, k, v, spec);
    void *at = k->offset != SLUICE_KEY_NO_FIELD ? field(obj, k->offset) : NULL;
    sluice_status st = SLUICE_OK;
    switch (k->kind) {
    case SLUICE_KEY_BOOL: {
        bool b = sluice_toml_bool(v);
        if (at != NULL)
            memcpy(at, &b, sizeof(b));
        break;
    }
    case SLUICE_KEY_INT:
    case SLUICE_KEY_SIZE:
        st = take_integer(ld, k, v, at);
        break;
    case SLUICE_KEY_STRING:
    case SLUICE_KEY_PATH:
        st = take_text(ld, k, v, at);
        break;
    case SLUICE_KEY_ENUM:
    case SLUICE_KEY_CHOICE:
        st = take_named(ld, k, v, at);
        break;
    case SLUICE_KEY_STRLIST:
        st = take_strlist(ld, v, k, at);
        break;
    case SLUICE_KEY_RISKS:
        st = take_risks(ld, k, v, at);
        break;
    case SLUICE_KEY_SECTION:
        st = k->sub != NULL ? sluice_keys_decode(ld, k->sub, v, at) : SLUICE_OK;
        break;
    case SLUICE_KEY_TABLES:
        st = take_tables(ld, v, k, obj);
        break;
    case SLUICE_KEY_ACTIONS: {
        sluice_config_action_tags *tags = at;
        st = take_map(ld, v, k, tags != NULL ? &tags->names : NULL,
                      tags != NULL ? &tags->actions : NULL, tags != NULL ? &tags->count : NULL);
        break;
    }
    case SLUICE_KEY_NAMES: {
        sluice_config_strmap *map = at;
        st = take_map(ld, v, k, map != NULL ? &map->names : NULL, map != NULL ? &map->values : NULL,
                      map != NULL ? &map->count : NULL);
        break;
    }
    }
    if (st == SLUICE_OK && k->check != NULL)
        st = k->check(ld, v, k->name, obj);
    return st;
}

/* An inline secret: refused whatever its value. */
static sluice_status
refuse(sluice_keys_loader *ld, const sluice_key_spec *k, size_t line, size_t column)
{
    sluice_keys_fail_at(ld, line, column, k->name, "inline secrets are refused: use %s", k->why);
    sluice_keys_hint(ld, "a secret in a config file ends up in backups, diffs and support tickets");
    return SLUICE_E_CONFIG;
}

/* The first table that has key, for a key written above every table header. */
static const sluice_section_spec *home_of(const sluice_section_spec *root, const char *key)
{
    for (size_t i = 0; i < root->key_count; i++) {
        const sluice_section_spec *sub = root->keys[i].sub;
        if (sub != NULL && find_key(sub, key) != NULL)
            return sub;
    }
    return NULL;
}

static sluice_status unknown_key(sluice_keys_loader *ld,
                                 const sluice_section_spec *spec,
                                 const char *key,
                                 const sluice_toml_value *v,
                                 size_t line,
                                 size_t column)
{
    bool top_table = spec->path == NULL && sluice_toml_type_of(v) == SLUICE_TOML_TABLE;
    if (top_table)
        sluice_keys_fail_at(ld, line, column, key, "unknown table '%s'", sluice_keys_show(ld, key));
    else
        sluice_keys_fail_at(ld, line, column, key, "unknown key '%s' %s", sluice_keys_show(ld, key),
                            where(ld, spec));
    if (spec->path == NULL && !top_table && home_of(spec, key) != NULL) {
        sluice_keys_hint(ld, "'%s' belongs %s, below its header", key,
                         where(ld, home_of(spec, key)));
        return SLUICE_E_CONFIG;
    }
    const char *best = NULL;
    for (const sluice_key_alias *a = spec->aliases; a != NULL && a->from != NULL; a++) {
        if (strcmp(a->from, key) == 0)
            best = a->to;
    }
    /* pmcp-code-mode also accepts the SQL keys without their sql_ prefix; we do not. */
    const char *prefixed = sluice_arena_printf(ld->err_arena, "sql_%s", key);
    if (best == NULL && prefixed != NULL && find_key(spec, prefixed) != NULL)
        best = find_key(spec, prefixed)->name;
    if (best == NULL) {
        sluice_suggest sug;
        sluice_suggest_init(&sug, key);
        for (size_t i = 0; i < spec->key_count; i++)
            sluice_suggest_consider(&sug, spec->keys[i].name);
        best = sluice_suggest_best(&sug);
    }
    if (best != NULL)
        sluice_keys_hint(ld, "did you mean '%s'?", best);
    return SLUICE_E_CONFIG;
}

/* Writes every row's constant default, recursing into sections (absent sections get their
 * defaults too), then the section's computed defaults. */
sluice_status
sluice_keys_apply_defaults(sluice_keys_loader *ld, const sluice_section_spec *spec, void *obj)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        const sluice_key_spec *k = &spec->keys[i];
        if (k->offset == SLUICE_KEY_NO_FIELD)
            continue;
        void *at = field(obj, k->offset);
        bool b = k->def != 0;
        int e = (int)k->def;
        size_t z = (size_t)k->def;
        switch (k->kind) {
        case SLUICE_KEY_BOOL:
            memcpy(at, &b, sizeof(b));
            break;
        case SLUICE_KEY_INT:
            memcpy(at, &k->def, sizeof(k->def));
            break;
        case SLUICE_KEY_SIZE:
            memcpy(at, &z, sizeof(z));
            break;
        case SLUICE_KEY_ENUM:
            memcpy(at, &e, sizeof(e));
            break;
        case SLUICE_KEY_STRING:
        case SLUICE_KEY_CHOICE:
            memcpy(at, &k->def_str, sizeof(k->def_str));
            break;
        case SLUICE_KEY_SECTION:
            if (k->sub != NULL) {
                sluice_status st = sluice_keys_apply_defaults(ld, k->sub, at);
                if (st != SLUICE_OK)
                    return st;
            }
            break;
        case SLUICE_KEY_PATH:
        case SLUICE_KEY_STRLIST:
        case SLUICE_KEY_RISKS:
        case SLUICE_KEY_TABLES:
        case SLUICE_KEY_ACTIONS:
        case SLUICE_KEY_NAMES:
            break; /* zero (NULL, empty) from calloc; non-constant ones come from init */
        }
    }
    return spec->init != NULL ? spec->init(ld, obj) : SLUICE_OK;
}

/* Decodes table against spec into obj. Keys are visited in file order so
 * the first error reported is the first one in the file. */
sluice_status sluice_keys_decode(sluice_keys_loader *ld,
                                 const sluice_section_spec *spec,
                                 const sluice_toml_value *table,
                                 void *obj)
{
    sluice_status st;
    if (spec->array) {
        st = sluice_keys_apply_defaults(ld, spec, obj);
        if (st != SLUICE_OK)
            return st;
    }
    for (size_t i = 0; i < sluice_toml_table_count(table); i++) {
        const char *key = sluice_toml_table_key(table, i);
        const sluice_toml_value *v = sluice_toml_table_value(table, i);
        size_t line = 0, column = 0;
        sluice_toml_table_key_position(table, i, &line, &column);
        /* "sql_allow_writes\u0000x" must not pass for sql_allow_writes. */
        if (sluice_toml_table_key_length(table, i) != strlen(key))
            return sluice_keys_fail_at(ld, line, column, key,
                                       "key '%s' %s contains a NUL character",
                                       sluice_keys_show(ld, key), where(ld, spec));
        const sluice_key_spec *k = find_key(spec, key);
        if (k == NULL)
            return unknown_key(ld, spec, key, v, line, column);
        if (k->status == SLUICE_KEY_INLINE_SECRET)
            return refuse(ld, k, line, column);
        st = take_value(ld, spec, k, v, obj);
        if (st != SLUICE_OK)
            return st;
    }
    for (size_t i = 0; i < spec->key_count; i++) {
        const sluice_key_spec *k = &spec->keys[i];
        if (k->required && sluice_toml_table_get(table, k->name) == NULL)
            return sluice_keys_fail_at(ld, sluice_toml_line(table), sluice_toml_column(table),
                                       k->name, "missing required key '%s' %s", k->name,
                                       where(ld, spec));
    }
    if (spec->finish != NULL)
        return spec->finish(ld, table, obj);
    return SLUICE_OK;
}
