/*
 * log_level.c — the MCP logging levels (see log_level.h).
 */
#include "mcp/log_level.h"

#include <stddef.h>
#include <string.h>

/* In order of severity: a session at level i receives messages of level i and above. */
static const char *const log_levels[] = { "debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency" };

int sluice_mcp_log_level_index(const char *level)
{
    for (size_t i = 0; level != NULL && i < sizeof log_levels / sizeof log_levels[0]; i++)
        if (strcmp(level, log_levels[i]) == 0)
            return (int)i;
    return -1;
}
