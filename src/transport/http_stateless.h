/*
 * http_stateless.h — Streamable HTTP for MCP 2026-07-28 beside 2025-11-25 on one endpoint
 * (internal to src/transport).
 *
 * Owns: choosing the revision of each POST (what the client sent: the MCP-Protocol-Version
 * header, else the body's _meta), the checks 2026-07-28 adds on the headers — MCP-Protocol-Version
 * and Mcp-Method present and equal to the body, Mcp-Name (Base64 sentinel decoded) on
 * tools/call, prompts/get and resources/read, all -32020 HeaderMismatch — with the body's own
 * envelope check (mcp/stateless.h) after them, and the HTTP status of a stateless answer.
 * Does not own: sessions and streams (http_session.c), MHD responses (http.c), the revision
 * itself (mcp/stateless.c).
 */
#ifndef SLUICE_TRANSPORT_HTTP_STATELESS_H
#define SLUICE_TRANSPORT_HTTP_STATELESS_H

#include "mcp/jsonrpc.h"

#include <jansson.h>
#include <stdbool.h>

/* The request headers the choice and the checks read (NULL when absent). */
typedef struct sluice_http_mcp_headers {
    const char *protocol_version; /* MCP-Protocol-Version */
    const char *method;           /* Mcp-Method */
    const char *name;             /* Mcp-Name */
    const char *session_id;       /* Mcp-Session-Id */
} sluice_http_mcp_headers;

/* True when the POST is served statelessly: its MCP-Protocol-Version header names no handshake
 * revision (2026-07-28, or one we do not speak: that gets UnsupportedProtocolVersion), or it has
 * no header and no Mcp-Session-Id and its body is a stateless request (mcp/stateless.h). Anything
 * else keeps today's 2025-11-25 handling exactly. */
bool sluice_http_stateless_selected(const sluice_http_mcp_headers *h,
                                    const sluice_jsonrpc_frame *frame);

/* True when the stateless request may be fed to a session (notifications always may). False
 * when refused: *out_refusal is the JSON-RPC error response to send (new reference, carrying the
 * request id; NULL when out of memory, then *status is 500 and the caller answers with a fixed
 * text), *status its HTTP status (400 for -32020/-32022/-32602, 404 for -32601). */
bool sluice_http_stateless_admit(const sluice_http_mcp_headers *h,
                                 const sluice_jsonrpc_frame *frame,
                                 json_t **out_refusal,
                                 unsigned *status);

/* The HTTP status of a stateless answer whose JSON-RPC error code is code (0: a result):
 * 404 for -32601, 400 for -32020..-32022, 200 otherwise (tool errors are results). */
unsigned sluice_http_stateless_status(int code);

#endif
