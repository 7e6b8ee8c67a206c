/*
 * prm.c — Protected Resource Metadata documents and URLs (see prm.h).
 */
#include "auth/prm.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Where the authority of an http(s) URL ends (its path starts), or NULL. */
static const char *path_of(const char *url)
{
    const char *rest = strncmp(url, "https://", 8) == 0  ? url + 8
                       : strncmp(url, "http://", 7) == 0 ? url + 7
                                                         : NULL;
    if (rest == NULL || *rest == '\0' || *rest == '/')
        return NULL;
    return rest + strcspn(rest, "/?");
}

char *sluice_prm_metadata_url(sluice_arena *arena, const char *resource)
{
    const char *path = path_of(resource);
    if (path == NULL)
        return NULL;
    size_t path_len = strcspn(path, "?");
    if (path_len == 1 && path[0] == '/')
        path_len = 0;
    return sluice_arena_printf(arena, "%.*s%s%.*s", (int)(path - resource), resource,
                               SLUICE_PRM_WELL_KNOWN, (int)path_len, path);
}

static json_t *strings(const sluice_strlist *list)
{
    json_t *a = json_array();
    for (size_t i = 0; list != NULL && i < list->count; i++)
        json_array_append_new(a, json_string(list->items[i]));
    return a;
}

const char *sluice_prm_get(void *ctx, const char *path, sluice_arena *arena)
{
    const sluice_prm *prm = ctx;
    size_t base = strlen(SLUICE_PRM_WELL_KNOWN);
    const char *own = path_of(prm->resource);
    if (own == NULL || strncmp(path, SLUICE_PRM_WELL_KNOWN, base) != 0)
        return NULL;
    const char *tail = path + base;
    size_t own_len = strcspn(own, "?");
    bool root = tail[0] == '\0';
    bool path_aware = own_len > 1 && strlen(tail) == own_len && strncmp(tail, own, own_len) == 0;
    if (!root && !path_aware)
        return NULL;
    json_t *doc =
        json_pack("{s:s, s:o, s:o, s:[s], s:s}", "resource", prm->resource, "authorization_servers",
                  strings(prm->authorization_servers), "scopes_supported",
                  strings(prm->scopes_supported), "bearer_methods_supported", "header",
                  "resource_name", prm->resource_name != NULL ? prm->resource_name : "sluice");
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    char *out = text != NULL ? sluice_arena_strdup(arena, text) : NULL;
    free(text);
    return out;
}
