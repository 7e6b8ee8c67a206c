/*
 * http.c — Streamable HTTP for MCP on libmicrohttpd (see http.h): routing and HTTP answers.
 *
 * Owns: the MHD daemon, per-request state, the checks that need only headers (Host, Origin,
 * authentication, MCP-Protocol-Version, Content-Type, Accept, body size), dispatching POST /
 * GET / DELETE on the MCP endpoint and the side handlers on other paths, and turning streams
 * into HTTP responses. A POST answered as JSON blocks its connection thread until the response
 * arrives; a POST answered as SSE is sent as one buffer when the call answered while it was fed
 * (inline calls), else MHD gets a content reader that blocks until the next event. MHD runs one
 * thread per connection, so blocking there is safe.
 * Does not own: the session table and streams (http_session.c), Host/Origin rules
 * (http_guard.c), event bytes (sse.c), the protocol (mcp/).
 */
#include "transport/http.h"

#include "core/limits.h"
#include "core/log.h"
#include "core/vec.h"
#include "mcp/jsonrpc.h"
#include "mcp/protocol.h"
#include "transport/http_admin.h"
#include "transport/http_guard.h"
#include "transport/http_session.h"
#include "transport/http_stateless.h"
#include "transport/sse.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BODY_BYTES   (1u * 1024u * 1024u)
#define DEFAULT_IDLE_SECONDS 1800
#define CONNECTION_TIMEOUT_S 120u

/* ---- structures ---------------------------------------------------------------------------------
 */

struct sluice_http_server {
    sluice_mcp_server *server;
    sluice_authenticator *auth;
    struct MHD_Daemon *daemon;
    uint16_t port;
    char path[256];
    char resource_url[512];
    sluice_http_guard guard;
    size_t max_body;
    bool prefer_json;
    sluice_identity anonymous;
    sluice_http_get_fn get_handler;
    void *get_ctx;
    sluice_http_post_fn post_handler;
    void *post_ctx;
    sluice_http_admin *admin;
    sluice_http_table table;
    atomic_bool draining; /* stopping: new MCP requests are refused with 503 */
    atomic_int busy;      /* MCP requests admitted and not yet completed */
};

/* Per-request state kept across MHD's calls for one request. */
typedef struct request {
    sluice_arena *arena;
    char *body;
    size_t len, cap;
    bool too_large;
    bool answered; /* a response was queued on the first call already */
    sluice_identity identity;
    bool has_identity;
    const char *side_path; /* a POST to post_handler's paths, answered once the body is in */
    bool counted;          /* in http->busy until on_completed */
} request;

/* ---- small helpers ------------------------------------------------------------------------------
 */

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static enum MHD_Result send_body(struct MHD_Connection *c,
                                 unsigned int status,
                                 const char *content_type,
                                 const char *body,
                                 const char *extra_name,
                                 const char *extra_value)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        body != NULL ? strlen(body) : 0, (void *)(body != NULL ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    if (content_type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (extra_name != NULL && extra_value != NULL)
        MHD_add_response_header(r, extra_name, extra_value);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* An HTTP error with a JSON-RPC error body (id null unless given). */
static enum MHD_Result send_error(
    struct MHD_Connection *c, unsigned int status, const json_t *id, int code, const char *message)
{
    json_t *msg = sluice_jsonrpc_error(id, code, message, NULL);
    char *text = msg != NULL ? sluice_jsonrpc_dump(msg, NULL) : NULL;
    json_decref(msg);
    enum MHD_Result ret = send_body(c, status, "application/json", text, NULL, NULL);
    free(text);
    return ret;
}

/* Does the Accept header admit type ("application/json", "text/event-stream")? A missing header
 * admits anything, as HTTP says. */
static bool accepts(const char *accept, const char *type)
{
    if (accept == NULL)
        return true;
    size_t tlen = strlen(type);
    const char *slash = strchr(type, '/');
    for (const char *p = accept; *p != '\0';) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *end = p;
        while (*end != '\0' && *end != ',' && *end != ';')
            end++;
        size_t n = (size_t)(end - p);
        while (n > 0 && p[n - 1] == ' ')
            n--;
        if ((n == tlen && strncasecmp(p, type, n) == 0) || (n == 3 && strncmp(p, "*/*", 3) == 0) ||
            (n == (size_t)(slash - type) + 2 && strncasecmp(p, type, n - 1) == 0 &&
             p[n - 1] == '*'))
            return true;
        while (*end != '\0' && *end != ',')
            end++;
        p = end;
    }
    return false;
}

/* ---- SSE responses ------------------------------------------------------------------------------
 */

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    bool end = false;
    size_t n = sluice_http_stream_read(cls, buf, max, &end);
    return end ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

/* The client's socket, or -1 when MHD does not say. */
static int connection_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return ci != NULL ? ci->connect_fd : -1;
}

/* A request's stream ended without its answer (the client closed the connection, or a write
 * to it failed): nobody is waiting, so the call is cancelled — an execution stops and is
 * audited as cancelled — instead of running on to its timeout. */
static void cancel_if_abandoned(sluice_http_stream *st)
{
    if (sluice_http_stream_abandoned(st))
        sluice_mcp_session_cancel_request(st->hs->mcp, st->request_id);
}

static void sse_free(void *cls)
{
    sluice_http_stream *st = cls;
    sluice_http_session *hs = st->hs;
    cancel_if_abandoned(st);
    sluice_http_stream_close(st);
    sluice_http_table_touch(hs->table, hs);
    sluice_http_session_release(hs);
}

/* Queues r (consumed) as a 200 SSE answer, with the session id when given. */
static enum MHD_Result
queue_sse(struct MHD_Connection *c, struct MHD_Response *r, const char *session_id)
{
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (session_id != NULL)
        MHD_add_response_header(r, "Mcp-Session-Id", session_id);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* Answers with an SSE response that drains st; the stream takes over the session reference. */
static enum MHD_Result
send_stream(struct MHD_Connection *c, sluice_http_stream *st, const char *session_id)
{
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, st, sse_free);
    if (r == NULL) {
        sse_free(st);
        return MHD_NO;
    }
    return queue_sse(c, r, session_id);
}

/* Answers with complete SSE text (taken over, malloc'd) and a Content-Length: no chunked
 * encoding, no content reader, one write for the whole answer. */
static enum MHD_Result
send_sse_text(struct MHD_Connection *c, char *events, size_t len, const char *session_id)
{
    struct MHD_Response *r =
        events != NULL ? MHD_create_response_from_buffer(len, events, MHD_RESPMEM_MUST_FREE) : NULL;
    if (r == NULL) {
        free(events);
        return MHD_NO;
    }
    return queue_sse(c, r, session_id);
}

/* A request answered as SSE: when the call answered while it was fed (inline calls), the
 * whole stream goes out as one buffer; otherwise MHD drains it as events arrive. */
static enum MHD_Result send_sse_answer(struct MHD_Connection *c, sluice_http_stream *st)
{
    size_t len = 0;
    char *events = sluice_http_stream_take_finished(st, &len);
    if (events == NULL)
        return send_stream(c, st, NULL); /* the stream owns the reference now */
    sluice_http_session *hs = st->hs;
    sluice_http_stream_close(st);
    sluice_http_table_touch(hs->table, hs);
    sluice_http_session_release(hs);
    return send_sse_text(c, events, len, NULL);
}

/* Waits for a JSON-mode response and sends it; closes st. */
static enum MHD_Result
send_json_answer(struct MHD_Connection *c, sluice_http_stream *st, const char *session_id)
{
    sluice_http_stream_watch_peer(st, connection_fd(c));
    char *text = sluice_http_stream_take_response(st, true);
    if (text == NULL)
        cancel_if_abandoned(st);
    bool gone = st->peer_gone;
    sluice_http_stream_close(st);
    if (gone)
        return MHD_NO; /* nobody to answer: MHD closes the connection */
    enum MHD_Result ret;
    if (text == NULL)
        ret = send_error(c, MHD_HTTP_NOT_FOUND, NULL, SLUICE_JSONRPC_SERVER_BUSY,
                         "the session ended before the request was answered");
    else
        ret = send_body(c, MHD_HTTP_OK, "application/json", text,
                        session_id != NULL ? "Mcp-Session-Id" : NULL, session_id);
    free(text);
    return ret;
}

/* ---- request handling ---------------------------------------------------------------------------
 */

static const sluice_identity *request_identity(sluice_http_server *http, request *rq)
{
    return rq->has_identity ? &rq->identity : &http->anonymous;
}

/* Resolves Mcp-Session-Id for a non-initialize request: 400 missing, 404 unknown or owned by
 * someone else (we do not reveal that it exists). */
static sluice_http_session *require_session(struct MHD_Connection *c,
                                            sluice_http_server *http,
                                            request *rq,
                                            enum MHD_Result *ret)
{
    const char *id = header(c, "Mcp-Session-Id");
    if (id == NULL) {
        *ret = send_error(c, MHD_HTTP_BAD_REQUEST, NULL, SLUICE_JSONRPC_SERVER_BUSY,
                          "missing Mcp-Session-Id header: send initialize first, then the "
                          "session id it returned on every request");
        return NULL;
    }
    sluice_http_session *hs = sluice_http_table_find(&http->table, id);
    const char *who = request_identity(http, rq)->user_id;
    if (hs != NULL && strcmp(hs->owner, who != NULL ? who : "") != 0) {
        sluice_log(SLUICE_LOG_WARN, "http: session used by another identity; refused");
        sluice_http_session_release(hs);
        hs = NULL;
    }
    if (hs == NULL)
        *ret = send_error(c, MHD_HTTP_NOT_FOUND, NULL, SLUICE_JSONRPC_SERVER_BUSY,
                          "unknown or expired session: initialize a new one");
    return hs;
}

static enum MHD_Result handle_initialize(struct MHD_Connection *c,
                                         sluice_http_server *http,
                                         request *rq,
                                         json_t *msg,
                                         const json_t *id,
                                         bool sse)
{
    sluice_http_session *hs =
        sluice_http_session_create(&http->table, http->server, request_identity(http, rq));
    if (hs == NULL)
        return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                          "cannot create a session (out of memory, or refused by the server)");
    /* initialize is answered inline, so the response is in the stream when feed returns. */
    sluice_http_stream *st = sluice_http_stream_open(hs, id, true);
    if (st == NULL) {
        sluice_http_session_release(hs);
        return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                          "out of memory");
    }
    sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
    bool ok = sluice_mcp_session_initialized(hs->mcp);
    if (ok && !sluice_http_table_insert(&http->table, hs)) {
        sluice_http_stream_close(st);
        sluice_http_session_release(hs);
        return send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id, SLUICE_JSONRPC_SERVER_BUSY,
                          "too many sessions; try again later");
    }
    char *text = sluice_http_stream_take_response(st, false);
    sluice_http_stream_close(st);
    const char *session_id = ok ? hs->id : NULL;
    enum MHD_Result ret;
    if (text == NULL) {
        ret = send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                         "initialize produced no response");
    } else if (sse) {
        size_t len = 0;
        char *event = sluice_sse_event(text, strlen(text), &len);
        ret = send_sse_text(c, event, len, session_id);
    } else {
        ret = send_body(c, MHD_HTTP_OK, "application/json", text,
                        session_id != NULL ? "Mcp-Session-Id" : NULL, session_id);
    }
    free(text);
    sluice_http_session_release(hs); /* the table keeps it when initialize succeeded */
    return ret;
}

/* ---- 2026-07-28: one request, no session (http_stateless.h) -----------------------------------
 */

/* Sends a stateless answer's JSON text with the status its error code calls for. */
static enum MHD_Result send_stateless_json(struct MHD_Connection *c, sluice_http_stream *st)
{
    char *text = sluice_http_stream_take_response(st, true);
    enum MHD_Result ret =
        text != NULL ? send_body(c, sluice_http_stateless_status(st->response_code),
                                 "application/json", text, NULL, NULL)
                     : send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, SLUICE_JSONRPC_SERVER_BUSY,
                                  "the server stopped before the request was answered");
    free(text);
    return ret;
}

/* Serves a POST of the stateless revision on a session of its own that ends with the answer:
 * any replica can serve any request, and nothing outlives it but what the tools store. The
 * answer is JSON (with its status) unless a notification (progress, a log) comes first and the
 * client accepts SSE; closing that stream cancels the call, as 2026-07-28 says. */
static enum MHD_Result handle_stateless(struct MHD_Connection *c,
                                        sluice_http_server *http,
                                        request *rq,
                                        json_t *msg,
                                        const sluice_jsonrpc_frame *frame,
                                        const sluice_http_mcp_headers *mh,
                                        bool sse)
{
    json_t *refusal = NULL;
    unsigned status = 200;
    if (!sluice_http_stateless_admit(mh, frame, &refusal, &status)) {
        char *text = refusal != NULL ? sluice_jsonrpc_dump(refusal, NULL) : NULL;
        json_decref(refusal);
        enum MHD_Result ret = text != NULL
                                  ? send_body(c, status, "application/json", text, NULL, NULL)
                                  : send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, frame->id,
                                               SLUICE_JSONRPC_INTERNAL_ERROR, "out of memory");
        free(text);
        return ret;
    }
    const sluice_identity *who = request_identity(http, rq);
    if (frame->kind != SLUICE_JSONRPC_REQUEST) /* 2026-07-28 defines none over HTTP: accepted */
        return send_body(c, MHD_HTTP_ACCEPTED, NULL, NULL, NULL, NULL);
    sluice_http_session *hs = sluice_http_session_create_stateless(&http->table, http->server, who);
    sluice_http_stream *st = hs != NULL ? (sse ? sluice_http_stream_open_lazy(hs, frame->id)
                                               : sluice_http_stream_open(hs, frame->id, true))
                                        : NULL;
    if (st == NULL) {
        sluice_http_session_release(hs);
        return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, frame->id,
                          SLUICE_JSONRPC_INTERNAL_ERROR, "out of memory");
    }
    sluice_mcp_session_feed_value(hs->mcp, msg, who, NULL);
    if (sse && !sluice_http_stream_wait_lazy(st))
        return send_stream(c, st, NULL); /* the stream owns the session reference now */
    enum MHD_Result ret = send_stateless_json(c, st);
    sluice_http_stream_close(st);
    sluice_http_session_release(hs);
    return ret;
}

/* 413 with a JSON-RPC body; a body without Content-Length is drained first, then refused. */
static enum MHD_Result refuse_too_large(struct MHD_Connection *c, const sluice_http_server *http)
{
    char message[128];
    snprintf(message, sizeof message, "message too large (limit is %zu bytes)", http->max_body);
    return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, SLUICE_JSONRPC_INVALID_REQUEST, message);
}

static enum MHD_Result handle_post(struct MHD_Connection *c, sluice_http_server *http, request *rq)
{
    if (rq->too_large)
        return refuse_too_large(c, http);
    char message[256];
    json_t *msg = NULL;
    sluice_status st = sluice_jsonrpc_parse(rq->body != NULL ? rq->body : "", rq->len,
                                            http->max_body, &msg, message, sizeof message);
    if (st != SLUICE_OK) {
        json_t *id = sluice_jsonrpc_recover_id(rq->body, rq->len); /* so the client can match it */
        enum MHD_Result ret = send_error(c, MHD_HTTP_BAD_REQUEST, id,
                                         st == SLUICE_E_LIMIT ? SLUICE_JSONRPC_INVALID_REQUEST
                                                              : SLUICE_JSONRPC_PARSE_ERROR,
                                         message);
        json_decref(id);
        return ret;
    }
    sluice_jsonrpc_frame frame;
    sluice_jsonrpc_classify(msg, &frame);
    enum MHD_Result ret;
    const char *accept = header(c, MHD_HTTP_HEADER_ACCEPT);
    bool sse = accepts(accept, "text/event-stream") &&
               !(http->prefer_json && accepts(accept, "application/json"));
    sluice_http_mcp_headers mh = { header(c, "MCP-Protocol-Version"), header(c, "Mcp-Method"),
                                   header(c, "Mcp-Name"), header(c, "Mcp-Session-Id") };
    if (frame.kind == SLUICE_JSONRPC_INVALID) {
        ret = send_error(c, MHD_HTTP_BAD_REQUEST, frame.id, frame.error_code, frame.message);
    } else if (sluice_http_stateless_selected(&mh, &frame)) {
        ret = handle_stateless(c, http, rq, msg, &frame, &mh, sse);
    } else if (frame.kind == SLUICE_JSONRPC_REQUEST && strcmp(frame.method, "initialize") == 0 &&
               header(c, "Mcp-Session-Id") == NULL) {
        ret = handle_initialize(c, http, rq, msg, frame.id, sse);
    } else {
        sluice_http_session *hs = require_session(c, http, rq, &ret);
        if (hs != NULL && frame.kind != SLUICE_JSONRPC_REQUEST) {
            sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
            ret = send_body(c, MHD_HTTP_ACCEPTED, NULL, NULL, NULL, NULL);
            sluice_http_session_release(hs);
        } else if (hs != NULL) {
            sluice_http_stream *s = sluice_http_stream_open(hs, frame.id, !sse);
            if (s == NULL) {
                sluice_http_session_release(hs);
                ret = send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, frame.id,
                                 SLUICE_JSONRPC_INTERNAL_ERROR, "out of memory");
            } else {
                sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
                if (sse) {
                    sluice_http_stream_watch_peer(s, connection_fd(c));
                    ret = send_sse_answer(c, s); /* the stream owns the reference now */
                } else {
                    ret = send_json_answer(c, s, NULL);
                    sluice_http_session_release(hs);
                }
            }
        }
    }
    json_decref(msg);
    return ret;
}

static enum MHD_Result handle_get(struct MHD_Connection *c, sluice_http_server *http, request *rq)
{
    if (!accepts(header(c, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return send_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "GET opens an SSE stream: send 'Accept: text/event-stream'");
    enum MHD_Result ret;
    sluice_http_session *hs = require_session(c, http, rq, &ret);
    if (hs == NULL)
        return ret;
    sluice_http_stream *st = sluice_http_stream_open(hs, NULL, false);
    bool taken = st != NULL && !sluice_http_stream_set_get(hs, st);
    if (st == NULL || taken) {
        if (st != NULL)
            sluice_http_stream_close(st);
        sluice_http_session_release(hs);
        return send_error(c, MHD_HTTP_CONFLICT, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "this session already has a GET stream open");
    }
    sluice_http_stream_watch_peer(st, connection_fd(c)); /* a reconnect finds it gone */
    return send_stream(c, st, NULL);
}

static enum MHD_Result
handle_delete(struct MHD_Connection *c, sluice_http_server *http, request *rq)
{
    enum MHD_Result ret;
    sluice_http_session *hs = require_session(c, http, rq, &ret);
    if (hs == NULL)
        return ret;
    sluice_http_table_remove(&http->table, hs);
    sluice_http_session_release(hs);
    return send_body(c, MHD_HTTP_OK, NULL, NULL, NULL, NULL);
}

static enum MHD_Result
handle_side_post(struct MHD_Connection *c, sluice_http_server *http, request *rq)
{
    if (rq->too_large)
        return refuse_too_large(c, http);
    const char *body = NULL, *challenge = NULL;
    int status =
        http->post_handler(http->post_ctx, rq->side_path, header(c, MHD_HTTP_HEADER_AUTHORIZATION),
                           rq->body != NULL ? rq->body : "", rq->len, rq->arena, &body, &challenge);
    if (status == 0)
        return send_body(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", NULL, NULL);
    return send_body(c, (unsigned)status, "application/json", body,
                     challenge != NULL ? MHD_HTTP_HEADER_WWW_AUTHENTICATE : NULL, challenge);
}

/* Checks that need only the headers; returns true after queueing a refusal. */
static bool refuse_early(struct MHD_Connection *c,
                         sluice_http_server *http,
                         request *rq,
                         const char *method,
                         enum MHD_Result *ret)
{
    if (!sluice_http_host_allowed(&http->guard, header(c, MHD_HTTP_HEADER_HOST))) {
        *ret = send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "Host header not allowed (DNS rebinding protection)");
        return true;
    }
    if (!sluice_http_origin_allowed(&http->guard, header(c, MHD_HTTP_HEADER_ORIGIN))) {
        *ret = send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "Origin not allowed");
        return true;
    }
    if (http->auth != NULL) {
        sluice_auth_request ar = { header(c, MHD_HTTP_HEADER_AUTHORIZATION), header(c, "X-API-Key"),
                                   http->resource_url };
        sluice_auth_failure failure = { NULL, NULL };
        if (http->auth->authenticate(http->auth, rq->arena, &ar, &rq->identity, &failure) !=
            SLUICE_OK) {
            json_t *msg = sluice_jsonrpc_error(
                NULL, SLUICE_JSONRPC_SERVER_BUSY,
                failure.message != NULL ? failure.message : "authentication required", NULL);
            char *text = msg != NULL ? sluice_jsonrpc_dump(msg, NULL) : NULL;
            json_decref(msg);
            *ret = send_body(c, MHD_HTTP_UNAUTHORIZED, "application/json", text,
                             MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                             failure.www_authenticate != NULL ? failure.www_authenticate
                                                              : "Bearer realm=\"sluice\"");
            free(text);
            return true;
        }
        rq->has_identity = true;
    }
    /* A POST's version is judged with its body (http_stateless.c): 2026-07-28, or
     * UnsupportedProtocolVersion carrying the request id. */
    const char *version = header(c, "MCP-Protocol-Version");
    if (strcmp(method, "POST") != 0 && sluice_mcp_protocol_is_stateless(version)) {
        *ret = send_body(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
                         "MCP " SLUICE_MCP_STATELESS_PROTOCOL " has no GET stream or DELETE: "
                         "POST each request\n",
                         MHD_HTTP_HEADER_ALLOW, "POST");
        return true;
    }
    if (strcmp(method, "POST") != 0 && version != NULL &&
        sluice_mcp_protocol_find(version) == NULL) {
        char message[160];
        snprintf(message, sizeof message,
                 "unsupported MCP-Protocol-Version '%.40s' (supported: %s)", version,
                 sluice_mcp_protocol_list());
        *ret = send_error(c, MHD_HTTP_BAD_REQUEST, NULL, SLUICE_JSONRPC_INVALID_REQUEST, message);
        return true;
    }
    if (strcmp(method, "POST") == 0) {
        const char *type = header(c, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
            (type[16] != '\0' && type[16] != ';' && type[16] != ' ')) {
            *ret =
                send_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                           "Content-Type must be application/json");
            return true;
        }
        const char *accept = header(c, MHD_HTTP_HEADER_ACCEPT);
        if (!accepts(accept, "application/json") && !accepts(accept, "text/event-stream")) {
            *ret = send_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                              "Accept must allow application/json or text/event-stream");
            return true;
        }
        const char *length = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (length != NULL && strtoull(length, NULL, 10) > http->max_body) {
            *ret = refuse_too_large(c, http);
            return true;
        }
    }
    return false;
}

/* A request for a path other than the MCP endpoint, once Host is allowed (DNS rebinding): the
 * admin routes (http_admin.c), a POST for post_handler (answered once its body is in, so
 * rq->answered stays false), the public GET documents, else 404. */
static enum MHD_Result side_route(struct MHD_Connection *c,
                                  sluice_http_server *http,
                                  request *rq,
                                  const char *url,
                                  const char *method)
{
    int admin_ret = MHD_NO;
    rq->answered = true;
    if (!sluice_http_host_allowed(&http->guard, header(c, MHD_HTTP_HEADER_HOST)))
        return send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "Host header not allowed (DNS rebinding protection)");
    if (strcmp(method, "GET") == 0 && http->admin != NULL &&
        sluice_http_admin_get(http->admin, c, url, &admin_ret))
        return (enum MHD_Result)admin_ret; /* http_admin.c */
    if (strcmp(method, "POST") == 0 && http->post_handler != NULL) {
        if (!sluice_http_origin_allowed(&http->guard, header(c, MHD_HTTP_HEADER_ORIGIN)))
            return send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                              "Origin not allowed");
        if ((rq->side_path = sluice_arena_strdup(rq->arena, url)) == NULL)
            return MHD_NO; /* out of memory */
        rq->answered = false;
        return MHD_YES;
    }
    const char *doc = strcmp(method, "GET") == 0 && http->get_handler != NULL
                          ? http->get_handler(http->get_ctx, url, rq->arena)
                          : NULL;
    return doc != NULL ? send_body(c, MHD_HTTP_OK, "application/json", doc, NULL, NULL)
                       : send_body(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", NULL, NULL);
}

static enum MHD_Result on_request(void *cls,
                                  struct MHD_Connection *c,
                                  const char *url,
                                  const char *method,
                                  const char *version,
                                  const char *upload_data,
                                  size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    sluice_http_server *http = cls;
    request *rq = *con_cls;
    if (rq == NULL) {
        rq = calloc(1, sizeof *rq);
        if (rq == NULL || (rq->arena = sluice_arena_new()) == NULL) {
            free(rq);
            return MHD_NO;
        }
        *con_cls = rq;
        enum MHD_Result ret = MHD_YES;
        if (strcmp(url, http->path) != 0) {
            ret = side_route(c, http, rq, url, method);
        } else if (strcmp(method, "POST") != 0 && strcmp(method, "GET") != 0 &&
                   strcmp(method, "DELETE") != 0) {
            ret =
                send_body(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "use POST, GET or DELETE\n",
                          MHD_HTTP_HEADER_ALLOW, "POST, GET, DELETE");
            rq->answered = true;
        } else if (atomic_load(&http->draining)) {
            ret = send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, SLUICE_JSONRPC_SERVER_BUSY,
                             "the server is shutting down: retry the request (on another "
                             "replica, or once this one is back)");
            rq->answered = true;
        } else if (refuse_early(c, http, rq, method, &ret)) {
            rq->answered = true;
        } else if (strcmp(method, "GET") != 0) { /* a GET stream lives until the session ends */
            rq->counted = true;
            atomic_fetch_add(&http->busy, 1);
        }
        return ret;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->answered || rq->too_large)
            return MHD_YES;
        if (rq->len + n > http->max_body) {
            rq->too_large = true;
            return MHD_YES;
        }
        char *grown = sluice_vec_grow_heap(rq->body, rq->len + n, &rq->cap, 1, 4096);
        if (grown == NULL)
            return MHD_NO;
        rq->body = grown;
        memcpy(rq->body + rq->len, upload_data, n);
        rq->len += n;
        return MHD_YES;
    }
    if (rq->answered)
        return MHD_YES;
    rq->answered = true;
    if (rq->side_path != NULL)
        return handle_side_post(c, http, rq);
    if (strcmp(method, "POST") == 0)
        return handle_post(c, http, rq);
    if (strcmp(method, "GET") == 0)
        return handle_get(c, http, rq);
    return handle_delete(c, http, rq);
}

static void on_completed(void *cls,
                         struct MHD_Connection *c,
                         void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)c;
    (void)code;
    request *rq = *con_cls;
    if (rq == NULL)
        return;
    if (rq->counted)
        atomic_fetch_sub(&((sluice_http_server *)cls)->busy, 1);
    free(rq->body);
    sluice_arena_free(rq->arena);
    free(rq);
    *con_cls = NULL;
}

/* ---- start / stop -------------------------------------------------------------------------------
 */

sluice_status sluice_http_start(sluice_mcp_server *server,
                                const sluice_http_options *options,
                                sluice_authenticator *auth,
                                sluice_http_server **out,
                                sluice_error *err)
{
    static const sluice_http_options defaults = { 0 };
    const sluice_http_options *o = options != NULL ? options : &defaults;
    if (sodium_init() < 0)
        return sluice_error_fixed(err, SLUICE_E_INTERNAL, "libsodium failed to initialize");
    sluice_http_server *http = calloc(1, sizeof *http);
    if (http == NULL)
        return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory");
    http->server = server;
    http->auth = auth;
    snprintf(http->path, sizeof http->path, "%s", o->path != NULL ? o->path : "/mcp");
    http->guard = (sluice_http_guard){ o->allowed_origins, o->allowed_origin_count,
                                       o->allowed_hosts, o->allowed_host_count };
    http->max_body = o->max_body_bytes > 0 ? o->max_body_bytes : DEFAULT_BODY_BYTES;
    http->prefer_json = o->prefer_json;
    http->anonymous =
        o->anonymous != NULL ? *o->anonymous : (sluice_identity){ "anonymous", NULL, 0, "none" };
    http->get_handler = o->get_handler;
    http->get_ctx = o->get_ctx;
    http->post_handler = o->post_handler;
    http->post_ctx = o->post_ctx;
    http->admin = o->admin;
    sluice_http_table_init(
        &http->table, o->max_sessions > 0 ? o->max_sessions : SLUICE_LIMIT_SESSIONS,
        o->session_idle_seconds > 0 ? o->session_idle_seconds : DEFAULT_IDLE_SECONDS);

    const char *bind = o->bind_address != NULL ? o->bind_address : "127.0.0.1";
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                         MHD_USE_AUTO | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&addr;
    if (inet_pton(AF_INET, bind, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(o->port);
    } else if (inet_pton(AF_INET6, bind, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(o->port);
        flags |= MHD_USE_IPv6;
    } else {
        sluice_http_table_destroy(&http->table);
        free(http);
        return sluice_error_fixed(err, SLUICE_E_INVALID,
                                  "bind address must be an IPv4 or IPv6 literal such as 127.0.0.1");
    }
    http->daemon = MHD_start_daemon(flags, o->port, NULL, NULL, on_request, http,
                                    MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_COMPLETED,
                                    on_completed, http, MHD_OPTION_CONNECTION_TIMEOUT,
                                    CONNECTION_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
                                    SLUICE_LIMIT_HTTP_CONNECTIONS, MHD_OPTION_END);
    if (http->daemon == NULL) {
        sluice_http_table_destroy(&http->table);
        free(http);
        return sluice_error_fixed(err, SLUICE_E_IO,
                                  "cannot listen on the configured address and port");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(http->daemon, MHD_DAEMON_INFO_BIND_PORT);
    http->port = info != NULL ? info->port : o->port;
    if (o->resource_url != NULL)
        snprintf(http->resource_url, sizeof http->resource_url, "%s", o->resource_url);
    else
        snprintf(http->resource_url, sizeof http->resource_url, "http://%s%s%s:%u%s",
                 v6->sin6_family == AF_INET6 ? "[" : "", bind,
                 v6->sin6_family == AF_INET6 ? "]" : "", (unsigned)http->port, http->path);
    *out = http;
    return SLUICE_OK;
}

uint16_t sluice_http_port(const sluice_http_server *http)
{
    return http->port;
}

size_t sluice_http_session_count(sluice_http_server *http)
{
    return sluice_http_table_count(&http->table);
}

int sluice_http_drain(sluice_http_server *http, int wait_ms)
{
    if (http == NULL)
        return 0;
    atomic_store(&http->draining, true);
    for (int waited = 0; atomic_load(&http->busy) > 0 && waited < wait_ms; waited += 10)
        usleep(10 * 1000);
    return atomic_load(&http->busy);
}

void sluice_http_stop(sluice_http_server *http)
{
    if (http == NULL)
        return;
    /* Close first so blocked connection threads wake; MHD then joins them. */
    sluice_http_session *all = sluice_http_table_close_all(&http->table);
    MHD_stop_daemon(http->daemon);
    sluice_http_session_release_all(all);
    sluice_http_table_destroy(&http->table);
    free(http);
}

sluice_status sluice_http_serve(sluice_mcp_server *server,
                                const sluice_http_options *options,
                                sluice_authenticator *auth,
                                volatile sig_atomic_t *stop,
                                sluice_error *err)
{
    sluice_http_server *http = NULL;
    sluice_status st = sluice_http_start(server, options, auth, &http, err);
    if (st != SLUICE_OK)
        return st;
    sluice_log(SLUICE_LOG_INFO, "http: serving MCP on %s", http->resource_url);
    while (stop == NULL || !*stop)
        usleep(100 * 1000);
    sluice_http_stop(http);
    return SLUICE_OK;
}
