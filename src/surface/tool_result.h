/*
 * tool_result.h — the one shape every tool of the surface answers with: a CallToolResult with a
 * text block and structuredContent (tools.c, discover.c, querymode_tools.c), or two text blocks
 * when validate_code ran the program in the same call.
 *
 * Owns: that shape. Does not own: what a tool answers (each tool's handler).
 */
#ifndef SLUICE_SURFACE_TOOL_RESULT_H
#define SLUICE_SURFACE_TOOL_RESULT_H

#include <jansson.h>

/* A CallToolResult {content:[text], structuredContent} (structured stolen). text NULL: the text
 * block carries the structured result as compact JSON, as the spec asks. NULL when out of memory
 * or when that JSON cannot be written. */
json_t *sluice_surface_tool_result(json_t *structured, const char *text);

/* A CallToolResult {content:[first, second], structuredContent} (structured stolen): two text
 * blocks in that order. NULL when out of memory or when a text is not UTF-8. */
json_t *sluice_surface_tool_result2(json_t *structured, const char *first, const char *second);

#endif
