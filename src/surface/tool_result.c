/*
 * tool_result.c — the CallToolResult every surface tool answers with (see tool_result.h).
 */
#include "surface/tool_result.h"

#include "core/json_write.h"

#include <stdlib.h>

json_t *sluice_surface_tool_result(json_t *structured, const char *text)
{
    /* the MCP writer, not json_dumps: structured may hold a splice (core/json_splice.h), which
     * json_dumps refuses; no text is no result (the caller answers an error), never an empty
     * text block */
    char *dump = text == NULL ? sluice_json_write_text(structured, NULL) : NULL;
    if (text == NULL && dump == NULL) {
        json_decref(structured);
        return NULL;
    }
    json_t *r = json_pack("{s:[{s:s, s:s}], s:o}", "content", "type", "text", "text",
                          text != NULL ? text : (dump != NULL ? dump : ""), "structuredContent",
                          structured);
    free(dump);
    return r;
}
