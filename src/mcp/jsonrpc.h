/*
 * jsonrpc.h — JSON-RPC 2.0 frames for MCP: parse with limits, classify strictly, build replies.
 *
 * Owns: turning one frame's bytes into a jansson value (size checked first, nesting depth checked
 * while scanning, duplicate keys rejected), deciding what the value is (request, notification,
 * response, or invalid with the JSON-RPC error code and a message that says what was wrong), and
 * building the messages the server sends (results, errors, requests, notifications) and their
 * compact serialization.
 * Does not own: what a method means (server.c) or how bytes travel (transport/).
 */
#ifndef SLUICE_MCP_JSONRPC_H
#define SLUICE_MCP_JSONRPC_H

#include "core/error.h"

#include <jansson.h>
#include <stddef.h>

/* Standard JSON-RPC codes and the MCP ones we use. */
#define SLUICE_JSONRPC_PARSE_ERROR        (-32700)
#define SLUICE_JSONRPC_INVALID_REQUEST    (-32600)
#define SLUICE_JSONRPC_METHOD_NOT_FOUND   (-32601)
#define SLUICE_JSONRPC_INVALID_PARAMS     (-32602)
#define SLUICE_JSONRPC_INTERNAL_ERROR     (-32603)
#define SLUICE_JSONRPC_RESOURCE_NOT_FOUND (-32002)
/* Implementation-defined (-32000..-32099): a server limit was reached (too many in flight). */
#define SLUICE_JSONRPC_SERVER_BUSY (-32000)
/* Defined by MCP 2026-07-28 (its reserved range -32020..-32099). */
#define SLUICE_JSONRPC_HEADER_MISMATCH      (-32020)
#define SLUICE_JSONRPC_MISSING_CLIENT_CAP   (-32021)
#define SLUICE_JSONRPC_UNSUPPORTED_PROTOCOL (-32022)

typedef enum sluice_jsonrpc_kind {
    SLUICE_JSONRPC_REQUEST = 'q',
    SLUICE_JSONRPC_NOTIFICATION = 'n',
    SLUICE_JSONRPC_RESPONSE = 'r',
    SLUICE_JSONRPC_INVALID = 'x',
} sluice_jsonrpc_kind;

/* A classified frame. Every pointer borrows from the root value it was classified from. */
typedef struct sluice_jsonrpc_frame {
    sluice_jsonrpc_kind kind;
    json_t *id;         /* request / response id (string or integer); NULL for notifications */
    const char *method; /* requests and notifications */
    json_t *params;     /* object or NULL */
    json_t *result;     /* responses: exactly one of result / error */
    json_t *error;
    /* For INVALID: the code to answer with and why (fixed-size so classification never
     * allocates; longer messages are truncated). */
    int error_code;
    char message[256];
} sluice_jsonrpc_frame;

/* Parses one frame. Sizes above max_bytes (0 = SLUICE_LIMIT_MESSAGE_BYTES) and nesting deeper
 * than SLUICE_LIMIT_NESTING_DEPTH are refused before jansson sees the bytes. On failure returns
 * SLUICE_E_LIMIT or SLUICE_E_INVALID and writes the reason (with line and column for syntax
 * errors) into message (cap bytes, always NUL-terminated). On success *out is a new reference. */
sluice_status sluice_jsonrpc_parse(
    const char *data, size_t len, size_t max_bytes, json_t **out, char *message, size_t cap);

/* The id of a frame that did not parse, read conservatively from its text so the error reply
 * carries it and the client can match it: the value of the only top-level "id" key (found by a
 * scanner that skips strings, escapes and nested values), when it is an integer of at most 18
 * digits or a string of at most SLUICE_LIMIT_RECOVERED_ID_BYTES bytes without escapes or control
 * characters, followed by ',' or '}'. Returns a new reference, or NULL (answer "id": null) when
 * the id is absent, repeated, of another shape, cut off, after the point where the text breaks,
 * or behind a key written with escapes, and when out of memory. Never reads past len. */
json_t *sluice_jsonrpc_recover_id(const char *data, size_t len);

/* Classifies a parsed value. Never fails: invalid frames get kind INVALID with error_code and
 * message set, and id set when a usable id could still be read (so the error can carry it).
 * Arrays (batches) are INVALID with a message explaining that batching is not supported. */
void sluice_jsonrpc_classify(json_t *value, sluice_jsonrpc_frame *out);

/* Builders. Each returns a new reference, or NULL when out of memory. id may be NULL (the error
 * then carries "id": null, as JSON-RPC asks when the id could not be read). result and data are
 * stolen (NULL data means none). */
json_t *sluice_jsonrpc_result(const json_t *id, json_t *result);
json_t *sluice_jsonrpc_error(const json_t *id, int code, const char *message, json_t *data);
json_t *sluice_jsonrpc_request(const json_t *id, const char *method, json_t *params);
json_t *sluice_jsonrpc_notification(const char *method, json_t *params);

/* Compact serialization without embedded newlines (stdio framing needs that); malloc'd,
 * free() it. NULL when out of memory. */
char *sluice_jsonrpc_dump(const json_t *msg, size_t *out_len);

/* Short name of a JSON type for messages: "null", "string", "number", "integer"... */
const char *sluice_jsonrpc_type_name(const json_t *value);

#endif
