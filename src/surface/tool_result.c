/*
 * tool_result.c — the CallToolResult every surface tool answers with (see tool_result.h).
 */
#include "surface/tool_result.h"

#include <stdlib.h>

json_t *sluice_surface_tool_result(json_t *structured, const char *text)
{
    char *dump = text == NULL ? json_dumps(structured, JSON_COMPACT) : NULL;
    json_t *r = json_pack("{s:[{s:s, s:s}], s:o}", "content", "type", "text", "text",
                          text != NULL ? text : (dump != NULL ? dump : ""), "structuredContent",
                          structured);
    free(dump);
    return r;
}
