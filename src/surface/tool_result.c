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
    /* member by member: json_pack parses its format and checks the text's UTF-8 byte by byte,
     * sluice_json_string checks ASCII a word at a time (a validation's brief: 16k -> a few k) */
    json_t *block = json_object();
    int bad = json_object_set_new_nocheck(block, "type", json_string_nocheck("text"));
    bad |=
        json_object_set_new_nocheck(block, "text", sluice_json_string(text != NULL ? text : dump));
    free(dump);
    json_t *content = json_array();
    bad |= json_array_append_new(content, block); /* each _new call takes its value, even failing */
    json_t *r = json_object();
    bad |= json_object_set_new_nocheck(r, "content", content);
    bad |= json_object_set_new_nocheck(r, "structuredContent", structured);
    if (bad != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}
