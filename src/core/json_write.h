/*
 * json_write.h — compact JSON text of a jansson value, without json_dumps' per-node costs.
 *
 * Owns: serializing a json_t into a sluice_buf byte-for-byte as json_dumps(value, JSON_COMPACT |
 * JSON_ENCODE_ANY) would (insertion key order, the same escapes, jansson's real format), so the
 * wire does not change. It exists because json_dumps formats every container's address with
 * snprintf and hashes it for loop detection, which was a fifth of a stdio round trip; here a
 * depth ceiling (SLUICE_LIMIT_JSON_WRITE_DEPTH) stops a cycle instead. The one difference: a
 * splice placeholder (core/json_splice.h) is written as the JSON text it carries, where
 * json_dumps fails on it.
 * Also: sluice_json_out, the same text written from values with no tree (a record written straight
 * from its fields); sluice_json_string, jansson's json_string with a cheaper check for ASCII text.
 * Does not own: parsing (jansson, mcp/jsonrpc.c), pretty printing, sorted keys.
 */
#ifndef SLUICE_CORE_JSON_WRITE_H
#define SLUICE_CORE_JSON_WRITE_H

#include "core/buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Appends value's text to buf, each splice placeholder as its text. SLUICE_E_INVALID when a string
 * is not valid UTF-8, a real is not finite, or the nesting passes SLUICE_LIMIT_JSON_WRITE_DEPTH (a
 * cycle); otherwise buf's own status (SLUICE_E_LIMIT, SLUICE_E_NOMEM). On failure buf holds a
 * partial text: discard it. */
sluice_status sluice_json_write(sluice_buf *buf, const json_t *value);

/* Appends one member of an object, key (key_len bytes) and value as json_dumps(JSON_COMPACT)
 * writes them inside it ("key":value, no separator), for text built member by member that must
 * equal json_dumps' (the audit record). Unlike sluice_json_write, a splice placeholder is refused
 * (SLUICE_E_INVALID) as json_dumps refuses it; otherwise the same failures. */
sluice_status
sluice_json_write_member(sluice_buf *buf, const char *key, size_t key_len, const json_t *value);

/* Appends v's decimal digits, as "%lld" (and json_dumps) write them, without printf. */
void sluice_json_put_integer(sluice_buf *buf, json_int_t v);

/* The text as a malloc'd NUL-terminated string (free() it) and its length in *out_len (may be
 * NULL); NULL on any failure above. */
char *sluice_json_write_text(const json_t *value, size_t *out_len);

/* JSON text written value by value straight from a record's fields, with no tree in between: the
 * same bytes as sluice_json_write of the tree those values would make, members in the order
 * written. Separators are the writer's: a key, an opened container or a value after a value in the
 * same container is preceded by ','. A string that is NULL or not UTF-8, or a real that is not
 * finite, marks the text bad (json_string and json_real would have given no value); the buffer
 * keeps its own failures. Check sluice_json_out_status once at the end. */
typedef struct sluice_json_out {
    sluice_buf *buf;
    bool comma; /* a value ended in the open container: what comes next needs ',' first */
    bool bad;
} sluice_json_out;

/* An object member's key (then its value): a string literal with nothing to escape, written as
 * the text ,"key": made at compile time (sluice_json_out_keyn writes it, without its ',' when
 * the key comes first). */
#define sluice_json_out_key(out, key) sluice_json_out_keyn((out), ",\"" key "\":", sizeof(key) + 3)
void sluice_json_out_keyn(sluice_json_out *out, const char *text, size_t len);
/* '{' or '[' opens a container, '}' or ']' closes it. */
void sluice_json_out_open(sluice_json_out *out, char bracket);
void sluice_json_out_close(sluice_json_out *out, char bracket);
void sluice_json_out_string(sluice_json_out *out, const char *s);
void sluice_json_out_integer(sluice_json_out *out, json_int_t v);
/* As jansson writes json_real(v) (its "%.17g" with ".0" added to an integral value). */
void sluice_json_out_real(sluice_json_out *out, double v);
void sluice_json_out_bool(sluice_json_out *out, bool v);
void sluice_json_out_null(sluice_json_out *out);
/* A tree's value (a member of a top-level object: the depth ceiling counts from there), as
 * sluice_json_write_member writes it: a splice placeholder, NULL or what that refuses marks the
 * text bad. For a record written as text that holds a tree made elsewhere. */
void sluice_json_out_value(sluice_json_out *out, const json_t *value);
/* SLUICE_E_INVALID when the text is bad (above), else the buffer's status. */
sluice_status sluice_json_out_status(const sluice_json_out *out);

/* json_string(s), the same value or NULL (s NULL, not valid UTF-8, out of memory), for less: an
 * all-ASCII s, most of what validate answers and audits (names, the code, the explanation), skips
 * jansson's byte-by-byte UTF-8 check, since ASCII cannot fail it; anything else is checked by
 * jansson as before. */
json_t *sluice_json_string(const char *s);

#endif
