/*
 * identity.c — copying identities between arenas and group membership (see identity.h).
 *
 * Owns nothing but these helpers; authenticators (apikey.c, jwt.c) build identities.
 */
#include "auth/identity.h"

#include <string.h>

sluice_status
sluice_identity_copy(sluice_arena *arena, const sluice_identity *from, sluice_identity *to)
{
    sluice_identity copy = { 0 };
    copy.user_id = sluice_arena_strdup(arena, from->user_id);
    copy.method = sluice_arena_strdup(arena, from->method);
    if ((from->user_id != NULL && copy.user_id == NULL) ||
        (from->method != NULL && copy.method == NULL))
        return SLUICE_E_NOMEM;
    if (from->group_count > 0) {
        const char **groups = sluice_arena_calloc(arena, from->group_count, sizeof *groups);
        if (groups == NULL)
            return SLUICE_E_NOMEM;
        for (size_t i = 0; i < from->group_count; i++) {
            groups[i] = sluice_arena_strdup(arena, from->groups[i]);
            if (groups[i] == NULL && from->groups[i] != NULL)
                return SLUICE_E_NOMEM;
        }
        copy.groups = groups;
        copy.group_count = from->group_count;
    }
    *to = copy;
    return SLUICE_OK;
}

int sluice_identity_in_group(const sluice_identity *identity, const char *group)
{
    if (identity == NULL || group == NULL)
        return 0;
    for (size_t i = 0; i < identity->group_count; i++)
        if (identity->groups[i] != NULL && strcmp(identity->groups[i], group) == 0)
            return 1;
    return 0;
}
