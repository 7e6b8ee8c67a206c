/*
 * http_stateless.c — the revision of each POST and the 2026-07-28 header checks (see
 * http_stateless.h).
 */
#include "transport/http_stateless.h"

#include "core/limits.h"
#include "mcp/protocol.h"
#include "mcp/stateless.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

/* Mcp-Name values longer than this are refused (a tool name or resource URI is far shorter). */
#define NAME_HEADER_MAX 2048u

static const char sentinel_open[] = "=?base64?";
static const char sentinel_close[] = "?=";

bool sluice_http_stateless_selected(const sluice_http_mcp_headers *h,
                                    const sluice_jsonrpc_frame *frame)
{
    if (h->protocol_version != NULL)
        return sluice_mcp_protocol_find(h->protocol_version) == NULL;
    if (h->session_id != NULL || frame->kind != SLUICE_JSONRPC_REQUEST)
        return false;
    return sluice_mcp_stateless_request(frame->method, frame->params);
}

unsigned sluice_http_stateless_status(int code)
{
    if (code == SLUICE_JSONRPC_METHOD_NOT_FOUND)
        return 404;
    if (code == SLUICE_JSONRPC_HEADER_MISMATCH || code == SLUICE_JSONRPC_MISSING_CLIENT_CAP ||
        code == SLUICE_JSONRPC_UNSUPPORTED_PROTOCOL)
        return 400;
    return 200;
}

/* value without the optional whitespace (SP, HTAB) around a field value, which RFC 9110 says is
 * not part of it, copied into buf; NULL when it does not fit. */
static const char *trimmed(const char *value, char *buf, size_t cap)
{
    while (*value == ' ' || *value == '\t')
        value++;
    size_t len = strlen(value);
    while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
        len--;
    if (len >= cap)
        return NULL;
    memcpy(buf, value, len);
    buf[len] = '\0';
    return buf;
}

/* The header value as the client meant it: Base64-decoded from the sentinel form into buf, or
 * the value itself. NULL when the sentinel form does not decode or does not fit. */
static const char *decoded(const char *value, char *buf, size_t cap)
{
    size_t len = strlen(value), open = sizeof sentinel_open - 1, close = sizeof sentinel_close - 1;
    if (len < open + close || strncmp(value, sentinel_open, open) != 0 ||
        strcmp(value + len - close, sentinel_close) != 0)
        return value;
    size_t out = 0;
    if (sodium_base642bin((unsigned char *)buf, cap - 1, value + open, len - open - close, NULL,
                          &out, NULL, sodium_base64_VARIANT_ORIGINAL) != 0)
        return NULL;
    buf[out] = '\0';
    return strlen(buf) == out ? buf : NULL; /* a NUL inside cannot equal a JSON string */
}

/* The body field Mcp-Name mirrors for method, or NULL when the method has none. */
static const char *name_field(const char *method)
{
    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
        return "name";
    if (strcmp(method, "resources/read") == 0)
        return "uri";
    return NULL;
}

/* A -32020 refusal (NULL when out of memory); sets *refused. */
static json_t *
mismatch(const sluice_jsonrpc_frame *frame, unsigned *status, bool *refused, const char *message)
{
    *status = 400;
    *refused = true;
    return sluice_jsonrpc_error(frame->id, SLUICE_JSONRPC_HEADER_MISMATCH, message, NULL);
}

/* The Mcp-Method and Mcp-Name checks; *refused stays false when they pass. */
static json_t *method_headers(const sluice_http_mcp_headers *h,
                              const sluice_jsonrpc_frame *frame,
                              unsigned *status,
                              bool *refused)
{
    char message[256], method[NAME_HEADER_MAX];
    if (h->method == NULL)
        return mismatch(frame, status, refused,
                        "Header mismatch: the Mcp-Method header is required");
    const char *m = trimmed(h->method, method, sizeof method);
    if (m == NULL || strcmp(m, frame->method) != 0) {
        snprintf(message, sizeof message,
                 "Header mismatch: Mcp-Method header value '%.64s' does not match body value "
                 "'%.64s'",
                 h->method, frame->method);
        return mismatch(frame, status, refused, message);
    }
    const char *field = name_field(frame->method);
    const char *body =
        field != NULL ? json_string_value(json_object_get(frame->params, field)) : NULL;
    if (body == NULL)
        return NULL; /* no name to mirror; the method itself refuses the missing field */
    if (h->name == NULL) {
        snprintf(message, sizeof message,
                 "Header mismatch: %.32s needs the Mcp-Name header (the value of params.%s)",
                 frame->method, field);
        return mismatch(frame, status, refused, message);
    }
    char raw[NAME_HEADER_MAX], buf[NAME_HEADER_MAX];
    const char *plain = trimmed(h->name, raw, sizeof raw);
    const char *name = plain != NULL ? decoded(plain, buf, sizeof buf) : NULL;
    if (name == NULL || strcmp(name, body) != 0) {
        snprintf(message, sizeof message,
                 "Header mismatch: Mcp-Name header value '%.64s' does not match body value "
                 "'%.64s'",
                 h->name, body);
        return mismatch(frame, status, refused, message);
    }
    return NULL;
}

/* The refusal of a stateless request (NULL when out of memory) with *refused set. */
static json_t *refusal_of(const sluice_http_mcp_headers *h,
                          const sluice_jsonrpc_frame *frame,
                          unsigned *status,
                          bool *refused)
{
    const json_t *meta = json_object_get(frame->params, "_meta");
    const char *body_version = json_string_value(json_object_get(meta, SLUICE_MCP_META_PROTOCOL));
    char message[256];
    if (h->protocol_version == NULL)
        return mismatch(frame, status, refused,
                        "Header mismatch: the MCP-Protocol-Version header is required");
    if (body_version != NULL && strcmp(h->protocol_version, body_version) != 0) {
        snprintf(message, sizeof message,
                 "Header mismatch: MCP-Protocol-Version header value '%.40s' does not match "
                 "body value '%.40s'",
                 h->protocol_version, body_version);
        return mismatch(frame, status, refused, message);
    }
    if (!sluice_mcp_protocol_is_stateless(h->protocol_version)) {
        json_t *data = json_pack("{s:o, s:s}", "supported", sluice_mcp_protocol_all_json(),
                                 "requested", h->protocol_version);
        *status = 400;
        *refused = true;
        return data != NULL ? sluice_jsonrpc_error(frame->id, SLUICE_JSONRPC_UNSUPPORTED_PROTOCOL,
                                                   "Unsupported protocol version", data)
                            : NULL;
    }
    json_t *refusal = NULL;
    if (!sluice_mcp_stateless_check(frame->id, frame->method, frame->params, &refusal)) {
        int code =
            (int)json_integer_value(json_object_get(json_object_get(refusal, "error"), "code"));
        *status = code == SLUICE_JSONRPC_METHOD_NOT_FOUND ? 404 : 400;
        *refused = true;
        return refusal;
    }
    return method_headers(h, frame, status, refused);
}

bool sluice_http_stateless_admit(const sluice_http_mcp_headers *h,
                                 const sluice_jsonrpc_frame *frame,
                                 json_t **out_refusal,
                                 unsigned *status)
{
    *out_refusal = NULL;
    *status = 200;
    if (frame->kind != SLUICE_JSONRPC_REQUEST)
        return true;
    bool refused = false;
    *out_refusal = refusal_of(h, frame, status, &refused);
    if (refused && *out_refusal == NULL)
        *status = 500;
    return !refused;
}
