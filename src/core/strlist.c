/*
 * strlist.c — copying and searching lists of strings (see strlist.h).
 */
#include "core/strlist.h"

#include <string.h>
#include <strings.h>

sluice_status sluice_strlist_copy(sluice_arena *arena,
                                  sluice_strlist *to,
                                  const sluice_strlist *a,
                                  const sluice_strlist *b)
{
    size_t n = a->count + (b != NULL ? b->count : 0);
    to->count = 0;
    to->items = sluice_arena_calloc(arena, n + 1, sizeof(*to->items));
    if (to->items == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < a->count; i++)
        to->items[to->count++] = sluice_arena_strdup(arena, a->items[i]);
    for (size_t i = 0; b != NULL && i < b->count; i++)
        to->items[to->count++] = sluice_arena_strdup(arena, b->items[i]);
    for (size_t i = 0; i < to->count; i++)
        if (to->items[i] == NULL)
            return SLUICE_E_NOMEM;
    return SLUICE_OK;
}

bool sluice_strlist_contains(const sluice_strlist *list, const char *s)
{
    for (size_t i = 0; list != NULL && i < list->count; i++)
        if (strcmp(list->items[i], s) == 0)
            return true;
    return false;
}

bool sluice_strlist_contains_folded(const sluice_strlist *list, const char *s)
{
    for (size_t i = 0; list != NULL && i < list->count; i++)
        if (strcasecmp(list->items[i], s) == 0)
            return true;
    return false;
}
