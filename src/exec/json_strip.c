/*
 * json_strip.c — blocked fields removed from an upstream answer (see json_strip.h).
 */
#include "exec/json_strip.h"

#include "core/limits.h"

#include <strings.h>

static bool blocked(const sluice_strlist *fields, const char *key)
{
    for (size_t i = 0; i < fields->count; i++)
        if (strcasecmp(fields->items[i], key) == 0)
            return true;
    return false;
}

static sluice_status strip(json_t *v, const sluice_strlist *fields, size_t *removed, size_t depth)
{
    if (!json_is_object(v) && !json_is_array(v))
        return SLUICE_OK;
    if (depth >= SLUICE_LIMIT_JSON_WRITE_DEPTH)
        return SLUICE_E_LIMIT;
    sluice_status st = SLUICE_OK;
    if (json_is_array(v)) {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
            if (st == SLUICE_OK)
                st = strip(item, fields, removed, depth + 1);
        }
        return st;
    }
    const char *key;
    json_t *member, *tmp;
    json_object_foreach_safe(v, tmp, key, member)
    {
        if (blocked(fields, key)) {
            json_object_del(v, key);
            (*removed)++;
        } else if (st == SLUICE_OK) {
            st = strip(member, fields, removed, depth + 1);
        }
    }
    return st;
}

sluice_status sluice_json_strip_fields(json_t *v, const sluice_strlist *fields, size_t *removed)
{
    return strip(v, fields, removed, 0);
}
