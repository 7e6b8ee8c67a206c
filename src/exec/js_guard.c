/*
 * js_guard.c — the output guard of a plan's result (see js_plan.h): blocked keys at any depth
 * and key case stripped or refused, and the result cap with its truncation.
 *
 * Owns: the walk over the returned JSON and the cut.
 * Does not own: which keys are blocked (config) or the run (js_plan.c).
 */
#include "core/buf.h"
#include "core/limits.h"
#include "exec/js_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_blocked(const sluice_strlist *const blocked[2], const char *key)
{
    for (size_t b = 0; b < 2; b++)
        for (size_t i = 0; blocked[b] != NULL && i < blocked[b]->count; i++)
            if (strcasecmp(blocked[b]->items[i], key) == 0)
                return true;
    return false;
}

typedef struct guard {
    sluice_arena *arena;
    const sluice_strlist *const *blocked;
    bool refuse;
    size_t stripped;
    const char *first_hit;
    sluice_error *err;
} guard;

static sluice_status walk(guard *g, json_t *v, const char *path, size_t depth);

/* A string holding JSON (an object, an array, or a string holding one: an upstream's raw body, an
 * MCP tool's text) is walked as the JSON it holds; what is stripped there is stripped from the
 * text (written back compactly). Any other string is left as it is. */
static sluice_status walk_text(guard *g, json_t *v, const char *path, size_t depth)
{
    const char *text = json_string_value(v);
    size_t i = 0;
    while (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')
        i++;
    bool none = true; /* nothing blocked: nothing to look for */
    for (size_t b = 0; b < 2; b++)
        none = none && (g->blocked[b] == NULL || g->blocked[b]->count == 0);
    if (none || (text[i] != '{' && text[i] != '[' && text[i] != '"'))
        return SLUICE_OK;
    json_error_t jerr;
    json_t *inner =
        json_loadb(text, json_string_length(v), JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (inner == NULL) /* not JSON: a plain string; unread for want of memory: fail closed */
        return json_error_code(&jerr) == json_error_out_of_memory
                   ? sluice_error_set(g->err, g->arena, SLUICE_E_NOMEM, "out of memory")
                   : SLUICE_OK;
    size_t before = g->stripped;
    const char *at = sluice_arena_printf(g->arena, "%s(its JSON text)", path);
    sluice_status st = at != NULL
                           ? walk(g, inner, at, depth + 1)
                           : sluice_error_set(g->err, g->arena, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && g->stripped > before) {
        char *out = json_dumps(inner, JSON_COMPACT | JSON_ENCODE_ANY);
        if (out == NULL || json_string_set(v, out) != 0)
            st = sluice_error_set(g->err, g->arena, SLUICE_E_NOMEM, "out of memory");
        free(out);
    }
    json_decref(inner);
    return st;
}

/* SLUICE_OK, SLUICE_E_DENIED (refused hit, or too deep), SLUICE_E_NOMEM. */
static sluice_status walk(guard *g, json_t *v, const char *path, size_t depth)
{
    if (depth > SLUICE_LIMIT_JS_RESULT_DEPTH)
        return sluice_error_set(g->err, g->arena, SLUICE_E_DENIED,
                                "the plan's result nests deeper than %u levels at %s; the "
                                "output guard refuses what it cannot walk",
                                SLUICE_LIMIT_JS_RESULT_DEPTH, path);
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            const char *at = sluice_arena_printf(g->arena, "%s[%zu]", path, i);
            if (at == NULL)
                return sluice_error_set(g->err, g->arena, SLUICE_E_NOMEM, "out of memory");
            sluice_status st = walk(g, json_array_get(v, i), at, depth + 1);
            if (st != SLUICE_OK)
                return st;
        }
        return SLUICE_OK;
    }
    if (json_is_string(v))
        return walk_text(g, v, path, depth);
    if (!json_is_object(v))
        return SLUICE_OK;
    const char *key;
    json_t *child;
    void *tmp;
    json_object_foreach_safe(v, tmp, key, child)
    {
        const char *at = sluice_arena_printf(g->arena, "%s.%s", path, key);
        if (at == NULL)
            return sluice_error_set(g->err, g->arena, SLUICE_E_NOMEM, "out of memory");
        if (is_blocked(g->blocked, key)) {
            if (g->first_hit == NULL)
                g->first_hit = at;
            if (g->refuse)
                return sluice_error_set(g->err, g->arena, SLUICE_E_DENIED,
                                        "the plan's result holds the blocked field '%s' (at %s); "
                                        "leave it out of what the plan returns",
                                        key, at);
            json_object_del(v, key);
            g->stripped++;
            continue;
        }
        sluice_status st = walk(g, child, at, depth + 1);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

sluice_status sluice_js_guard_blocked(sluice_arena *arena,
                                      json_t *v,
                                      const sluice_strlist *const blocked[2],
                                      bool refuse,
                                      size_t *stripped,
                                      const char **first_hit,
                                      sluice_error *err)
{
    guard g = { .arena = arena, .blocked = blocked, .refuse = refuse, .err = err };
    sluice_status st = walk(&g, v, "$", 0);
    *stripped = g.stripped;
    *first_hit = g.first_hit;
    return st;
}

static size_t compact_size(const json_t *v)
{
    return json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
}

sluice_status sluice_js_guard_cap(
    json_t *v, size_t max_bytes, json_t **out, bool *truncated, size_t *bytes, sluice_error *err)
{
    *truncated = false;
    *bytes = compact_size(v);
    if (max_bytes == 0 || *bytes <= max_bytes) {
        *out = json_incref(v);
        return SLUICE_OK;
    }
    *truncated = true;
    if (json_is_array(v)) {
        /* items measured one by one: each costs its size plus a comma */
        json_t *cut = json_array();
        size_t used = 2;
        for (size_t i = 0; cut != NULL && i < json_array_size(v); i++) {
            size_t n = compact_size(json_array_get(v, i)) + (i > 0 ? 1 : 0);
            if (used + n > max_bytes)
                break;
            if (json_array_append(cut, json_array_get(v, i)) != 0) {
                json_decref(cut);
                cut = NULL;
            }
            used += n;
        }
        if (cut == NULL)
            return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory capping the result");
        *out = cut;
        *bytes = used;
        return SLUICE_OK;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL)
        return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory capping the result");
    /* the text becomes a JSON string: its escapes may grow it, so shrink until it fits */
    size_t keep = max_bytes;
    json_t *s = NULL;
    do {
        json_decref(s);
        keep = keep > 64 ? keep - 64 : 0;
        while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--; /* never cut inside a UTF-8 sequence */
        s = json_stringn(text, keep);
    } while (s != NULL && keep > 0 && compact_size(s) > max_bytes);
    free(text);
    if (s == NULL)
        return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory capping the result");
    *out = s;
    *bytes = compact_size(s);
    return SLUICE_OK;
}
