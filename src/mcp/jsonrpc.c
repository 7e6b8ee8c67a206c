/*
 * jsonrpc.c — JSON-RPC 2.0 framing for MCP (see jsonrpc.h).
 *
 * Classification follows the 2025-11-25 base protocol: "jsonrpc" must be "2.0"; ids are strings
 * or integers, never null; requests carry a string method and object params (or none); responses
 * carry exactly one of result and error. Batches were removed in 2025-06-18; we refuse them with
 * a message rather than half-support them (the conformance suite does not send them).
 */
#include "mcp/jsonrpc.h"

#include "core/json_schema.h"
#include "core/json_write.h"
#include "core/limits.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(char *message, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *message, size_t cap, const char *fmt, ...)
{
    if (message == NULL || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, cap, fmt, ap);
    va_end(ap);
}

/* Finds the deepest nesting of arrays/objects outside strings without building anything, so a
 * hostile "[[[[..." never reaches the recursive parser. Returns the byte offset where the limit
 * was crossed, or len when the text stays within it. */
static size_t depth_violation(const char *data, size_t len, size_t limit)
{
    size_t depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return len;
}

sluice_status sluice_jsonrpc_parse(
    const char *data, size_t len, size_t max_bytes, json_t **out, char *message, size_t cap)
{
    size_t limit = max_bytes != 0 ? max_bytes : SLUICE_LIMIT_MESSAGE_BYTES;
    if (len > limit) {
        say(message, cap, "message too large: %zu bytes (limit is %zu)", len, limit);
        return SLUICE_E_LIMIT;
    }
    size_t at = depth_violation(data, len, SLUICE_LIMIT_NESTING_DEPTH);
    if (at < len) {
        say(message, cap, "JSON nested too deeply at byte %zu (limit is %u levels)", at,
            SLUICE_LIMIT_NESTING_DEPTH);
        return SLUICE_E_LIMIT;
    }
    json_error_t jerr;
    /* NULs are legal in JSON strings (\u0000): refusing them answered with "id": null and hung
     * the client. Every consumer reads strings with json_string_length (code hash included). */
    json_t *value =
        json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (value == NULL) {
        say(message, cap, "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
            jerr.text);
        return SLUICE_E_INVALID;
    }
    *out = value;
    return SLUICE_OK;
}

/* ---- id recovery from broken text --------------------------------------------------------- */

/* A cursor over broken JSON text; every helper stops at len. */
typedef struct id_scan {
    const char *p;
    size_t i, len;
} id_scan;

static void scan_ws(id_scan *s)
{
    while (s->i < s->len &&
           (s->p[s->i] == ' ' || s->p[s->i] == '\t' || s->p[s->i] == '\n' || s->p[s->i] == '\r'))
        s->i++;
}

static bool scan_eat(id_scan *s, char c)
{
    scan_ws(s);
    if (s->i >= s->len || s->p[s->i] != c)
        return false;
    s->i++;
    return true;
}

/* At '"': moves past the closing quote (escapes respected); false when cut off. */
static bool scan_string(id_scan *s)
{
    for (s->i++; s->i < s->len; s->i++) {
        if (s->p[s->i] == '\\')
            s->i++;
        else if (s->p[s->i] == '"') {
            s->i++;
            return true;
        }
    }
    return false;
}

/* Moves past one value: a string, a nested object/array (strings inside skipped, depth bounded)
 * or a scalar (a run of number/literal characters). false when broken or cut off. */
static bool scan_value(id_scan *s)
{
    scan_ws(s);
    size_t depth = 0, start = s->i;
    while (s->i < s->len) {
        char c = s->p[s->i];
        if (c == '"') {
            if (!scan_string(s))
                return false;
        } else if (c == '{' || c == '[') {
            if (++depth > SLUICE_LIMIT_NESTING_DEPTH)
                return false;
            s->i++;
        } else if ((c == '}' || c == ']') && depth > 0) {
            depth--;
            s->i++;
        } else if (depth > 0) {
            s->i++;
        } else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   c == '+' || c == '-' || c == '.') { /* numbers, true, false, null */
            s->i++;
            continue;
        } else {
            break;
        }
        if (depth == 0)
            return true;
    }
    return depth == 0 && s->i > start;
}

/* The id text as a JSON value: a short plain string or an integer of at most 18 digits. */
static json_t *id_from_text(const char *t, size_t n)
{
    if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
        if (n - 2 > SLUICE_LIMIT_RECOVERED_ID_BYTES)
            return NULL;
        for (size_t i = 1; i + 1 < n; i++) {
            if ((unsigned char)t[i] < 0x20 || t[i] == '\\')
                return NULL;
        }
        return json_stringn(t + 1, n - 2); /* NULL for invalid UTF-8 */
    }
    size_t i = n > 0 && t[0] == '-' ? 1 : 0;
    if (n == i || n - i > 18 || (t[i] == '0' && n - i > 1))
        return NULL;
    json_int_t v = 0;
    for (size_t k = i; k < n; k++) {
        if (t[k] < '0' || t[k] > '9')
            return NULL;
        v = v * 10 + (t[k] - '0');
    }
    return json_integer(i == 1 ? -v : v);
}

json_t *sluice_jsonrpc_recover_id(const char *data, size_t len)
{
    id_scan s = { data, 0, len };
    const char *id = NULL;
    size_t id_len = 0;
    if (data == NULL || !scan_eat(&s, '{'))
        return NULL;
    do {
        scan_ws(&s);
        size_t key = s.i;
        if (s.i >= len || data[s.i] != '"' || !scan_string(&s))
            break; /* the end, or where the text breaks */
        bool is_id = s.i - key == 4 && memcmp(data + key, "\"id\"", 4) == 0;
        if (memchr(data + key, '\\', s.i - key) != NULL)
            return NULL; /* "\u0069d" is "id" too: do not guess */
        if (!scan_eat(&s, ':'))
            break;
        scan_ws(&s);
        size_t value = s.i;
        if (!scan_value(&s))
            break;
        if (is_id && id != NULL)
            return NULL; /* two ids: ambiguous */
        if (is_id) {
            id = data + value;
            id_len = s.i - value;
            scan_ws(&s);
            if (s.i >= len || (data[s.i] != ',' && data[s.i] != '}'))
                return NULL; /* "id": 12 cut off, or followed by junk */
        }
    } while (scan_eat(&s, ','));
    return id != NULL ? id_from_text(id, id_len) : NULL;
}

const char *sluice_jsonrpc_type_name(const json_t *value)
{
    return sluice_json_type_name(value);
}

static void invalid(sluice_jsonrpc_frame *out, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void invalid(sluice_jsonrpc_frame *out, int code, const char *fmt, ...)
{
    out->kind = SLUICE_JSONRPC_INVALID;
    out->error_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
}

static bool id_usable(const json_t *id)
{
    return id != NULL && (json_is_string(id) || json_is_integer(id));
}

/* Response: {jsonrpc, id, result} or {jsonrpc, id?, error{code, message, data?}}. */
static void classify_response(json_t *value, json_t *id, sluice_jsonrpc_frame *out)
{
    json_t *result = json_object_get(value, "result");
    json_t *error = json_object_get(value, "error");
    if (result != NULL && error != NULL) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                "a response must carry exactly one of 'result' and 'error', not both");
        return;
    }
    if (error != NULL) {
        json_t *code = json_object_get(error, "code");
        json_t *msg = json_object_get(error, "message");
        if (!json_is_object(error) || !json_is_integer(code) || !json_is_string(msg)) {
            invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                    "'error' must be an object with an integer 'code' and a string 'message'");
            return;
        }
        if (id != NULL && !id_usable(id) && !json_is_null(id)) {
            invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                    "'id' must be a string or an integer, got %s", sluice_jsonrpc_type_name(id));
            return;
        }
    } else {
        if (!id_usable(id)) {
            invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                    "'id' must be a string or an integer, got %s",
                    id == NULL ? "nothing" : sluice_jsonrpc_type_name(id));
            return;
        }
        if (!json_is_object(result)) {
            invalid(out, SLUICE_JSONRPC_INVALID_REQUEST, "'result' must be an object, got %s",
                    sluice_jsonrpc_type_name(result));
            return;
        }
    }
    out->kind = SLUICE_JSONRPC_RESPONSE;
    out->id = id_usable(id) ? id : NULL;
    out->result = result;
    out->error = error;
}

void sluice_jsonrpc_classify(json_t *value, sluice_jsonrpc_frame *out)
{
    memset(out, 0, sizeof *out);
    if (json_is_array(value)) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                "batch arrays are not supported (JSON-RPC batching was removed in MCP "
                "2025-06-18): send one message per frame");
        return;
    }
    if (!json_is_object(value)) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST, "a JSON-RPC message must be an object, got %s",
                sluice_jsonrpc_type_name(value));
        return;
    }
    json_t *id = json_object_get(value, "id");
    if (id_usable(id))
        out->id = id; /* kept even when invalid, so the error can answer it */
    json_t *version = json_object_get(value, "jsonrpc");
    if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST, "'jsonrpc' must be the string \"2.0\"");
        return;
    }
    json_t *method = json_object_get(value, "method");
    if (method == NULL) {
        if (json_object_get(value, "result") == NULL && json_object_get(value, "error") == NULL) {
            invalid(out, SLUICE_JSONRPC_INVALID_REQUEST,
                    "a message needs 'method' (request or notification) or 'result'/'error' "
                    "(response)");
            return;
        }
        classify_response(value, id, out);
        return;
    }
    if (!json_is_string(method) || json_string_length(method) == 0) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST, "'method' must be a non-empty string, got %s",
                json_is_string(method) ? "an empty string" : sluice_jsonrpc_type_name(method));
        return;
    }
    if (id != NULL && !id_usable(id)) {
        invalid(out, SLUICE_JSONRPC_INVALID_REQUEST, "'id' must be a string or an integer, got %s",
                sluice_jsonrpc_type_name(id));
        return;
    }
    json_t *params = json_object_get(value, "params");
    if (params != NULL && !json_is_object(params)) {
        invalid(out, SLUICE_JSONRPC_INVALID_PARAMS, "'params' must be an object, got %s",
                sluice_jsonrpc_type_name(params));
        return;
    }
    out->kind = id != NULL ? SLUICE_JSONRPC_REQUEST : SLUICE_JSONRPC_NOTIFICATION;
    out->method = json_string_value(method);
    out->params = params;
}

static json_t *envelope(const json_t *id)
{
    json_t *msg = json_object();
    if (msg == NULL)
        return NULL;
    json_t *id_copy = id != NULL ? json_deep_copy(id) : json_null();
    if (json_object_set_new(msg, "jsonrpc", json_string("2.0")) != 0 ||
        json_object_set_new(msg, "id", id_copy) != 0) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *sluice_jsonrpc_result(const json_t *id, json_t *result)
{
    json_t *msg = envelope(id);
    if (msg == NULL) {
        json_decref(result);
        return NULL;
    }
    if (json_object_set_new(msg, "result", result) != 0) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *sluice_jsonrpc_error(const json_t *id, int code, const char *message, json_t *data)
{
    json_t *error = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (error != NULL && data != NULL && json_object_set_new(error, "data", data) != 0) {
        json_decref(error);
        return NULL;
    }
    if (error == NULL)
        json_decref(data);
    json_t *msg = envelope(id);
    if (msg == NULL || error == NULL || json_object_set_new(msg, "error", error) != 0) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *sluice_jsonrpc_request(const json_t *id, const char *method, json_t *params)
{
    json_t *msg = envelope(id);
    if (msg == NULL) {
        json_decref(params);
        return NULL;
    }
    if (json_object_set_new(msg, "method", json_string(method)) != 0 ||
        (params != NULL && json_object_set_new(msg, "params", params) != 0)) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *sluice_jsonrpc_notification(const char *method, json_t *params)
{
    json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    if (msg == NULL) {
        json_decref(params);
        return NULL;
    }
    if ((params != NULL && json_object_set_new(msg, "params", params) != 0)) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

char *sluice_jsonrpc_dump(const json_t *msg, size_t *out_len)
{
    /* Compact text never has newlines; control characters inside strings are escaped. */
    return sluice_json_write_text(msg, out_len);
}
