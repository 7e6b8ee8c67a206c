/*
 * json_splice.h — JSON text written ahead of time, carried inside a jansson tree as a
 * placeholder value that the MCP writer (core/json_write.c) replaces by the text itself.
 *
 * Owns: making such a placeholder and recognising one. It exists so that a value converted
 * once into JSON text (a result's rows, exec/values.h) is not built again as a jansson tree only
 * to be serialized a second time: the answer holds the placeholder where the tree would be, and
 * whatever forwards the answer (a one-call merge that nests it) moves the placeholder with it.
 * The placeholder is a jansson string whose bytes begin with 0xFF (the text follows) or 0xFE
 * (the address and length of text kept elsewhere follow), which no UTF-8 text holds: jansson
 * makes such a string only through its *_nocheck constructors, which only this module uses for
 * values, so no data can pass for a placeholder; and any other serializer (json_dumps) refuses
 * the string as invalid UTF-8 instead of sending a placeholder in place of the text.
 * Does not own: checking that the text is JSON (its maker wrote it with a JSON writer), writing
 * it (core/json_write.c).
 * In core because the maker (codemode/present.c) sits below the writer (mcp/).
 */
#ifndef SLUICE_CORE_JSON_SPLICE_H
#define SLUICE_CORE_JSON_SPLICE_H

#include "core/buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* A placeholder standing for text[0..len), one complete compact JSON value (copied). New
 * reference; NULL when out of memory. */
json_t *sluice_json_splice_new(const char *text, size_t len);

/* A placeholder for the JSON array whose items are the lines of lines[0..len): each line one
 * compact JSON value ended by '\n' (compact JSON holds no raw newline), the last newline
 * optional; "" is []. Written in one pass, without a copy of the lines first. NULL when out of
 * memory. */
json_t *sluice_json_splice_lines(const char *lines, size_t len);

/* A placeholder standing for text[0..len), one complete compact JSON value, without a copy: it
 * holds text's address and length, so it must be released before text is (a request's answer
 * whose text is in the request's arena is released before the arena is freed or reset; a reader
 * of a placeholder that outlived its text reads freed memory). The text is what the placeholder
 * stands for from then on: it must not change. NULL when text is NULL or empty, or out of memory.
 */
json_t *sluice_json_splice_borrow(const char *text, size_t len);

/* A deep copy of value with every placeholder replaced by the tree its text parses to, for a
 * consumer that must read inside, pretty-print or json_dumps what the wire carries as text (the
 * CLI, tests). New reference; NULL when out of memory or a placeholder's text does not parse. */
json_t *sluice_json_splice_expand(const json_t *value);

/* True when value is a placeholder; *text and *len then give its JSON text (valid while value
 * lives). */
bool sluice_json_splice_text(const json_t *value, const char **text, size_t *len);

#endif
