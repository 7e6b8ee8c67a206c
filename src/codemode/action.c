/*
 * action.c — names of the unified actions (see action.h).
 */
#include "codemode/action.h"

static const char *const action_names[] = {
    [SLUICE_ACTION_READ] = "read",
    [SLUICE_ACTION_WRITE] = "write",
    [SLUICE_ACTION_DELETE] = "delete",
    [SLUICE_ACTION_ADMIN] = "admin",
};

const char *sluice_action_name(sluice_action action)
{
    return sluice_action_valid((int)action) ? action_names[action] : "unknown";
}

bool sluice_action_valid(int value)
{
    return value >= 0 && value <= (int)SLUICE_ACTION_MAX;
}
