/*
 * tool_result.c — the CallToolResult every surface tool answers with (see tool_result.h).
 */
#include "surface/tool_result.h"

#include "core/json_write.h"

#include <stdlib.h>

/* A text block {type: "text", text} (NULL when out of memory or text is not UTF-8). Member by
 * member: json_pack parses its format and checks the text's UTF-8 byte by byte,
 * sluice_json_string checks ASCII a word at a time (a validation's brief: 16k -> a few k). */
static json_t *text_block(const char *text)
{
    json_t *block = json_object();
    int bad = json_object_set_new_nocheck(block, "type", json_string_nocheck("text"));
    bad |= json_object_set_new_nocheck(block, "text", sluice_json_string(text));
    if (bad != 0) {
        json_decref(block);
        return NULL;
    }
    return block;
}

/* {content: [the blocks of texts[0..n)], structuredContent} (structured stolen). */
static json_t *result_of(json_t *structured, const char *const *texts, size_t n)
{
    json_t *content = json_array();
    int bad = 0;
    for (size_t i = 0; i < n; i++) /* each _new call takes its value, even failing */
        bad |= json_array_append_new(content, text_block(texts[i]));
    json_t *r = json_object();
    bad |= json_object_set_new_nocheck(r, "content", content);
    bad |= json_object_set_new_nocheck(r, "structuredContent", structured);
    if (bad != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

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
    const char *texts[1] = { text != NULL ? text : dump };
    json_t *r = result_of(structured, texts, 1);
    free(dump);
    return r;
}

json_t *sluice_surface_tool_result2(json_t *structured, const char *first, const char *second)
{
    const char *texts[2] = { first, second };
    return result_of(structured, texts, 2);
}
