/*
 * http.c — Streamable HTTP for MCP on libmicrohttpd (see http.h).
 *
 * Shape: a table of HTTP sessions, each wrapping one sluice_mcp_session whose sink routes every
 * outgoing message to exactly one stream: the POST stream of the request it relates to, or the
 * session's GET stream for unrelated ones (dropped if none is open). A POST answered as JSON
 * blocks its connection thread until the response arrives; a POST answered as SSE hands MHD a
 * content reader that blocks until the next event. MHD runs one thread per connection, so
 * blocking there is safe.
 *
 * Lifetime: sessions are reference counted (the table holds one reference, each connection or
 * stream using it another); removing a session (DELETE, expiry, stop) marks it closed, which
 * wakes and ends its streams; the last reference frees the MCP session (cancelling its calls)
 * and then the wrapper.
 */
#include "transport/http.h"

#include "core/limits.h"
#include "core/log.h"
#include "mcp/jsonrpc.h"

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
#define DEFAULT_MAX_SESSIONS 256u
#define DEFAULT_IDLE_SECONDS 1800
#define KEEPALIVE_SECONDS    15
#define CONNECTION_TIMEOUT_S 120u
#define MAX_CONNECTIONS      512u
/* Events queued on one stream for a client that does not read; past this the stream is cut. */
#define STREAM_QUEUE_BYTES (8u * 1024u * 1024u)
#define SESSION_ID_BYTES   32u

static const char *const supported_protocols[] = { "2025-11-25", "2025-06-18", "2025-03-26" };

/* ---- structures ---------------------------------------------------------------------------------
 */

typedef struct event {
    char *text; /* a complete SSE event ("event: message\ndata: ...\n\n"), malloc'd */
    size_t len;
    struct event *next;
} event;

typedef struct http_session http_session;

typedef struct stream {
    http_session *hs;
    json_t *request_id; /* NULL for the GET stream */
    bool json_mode;     /* POST answered as application/json: only the response is kept */
    char *response;     /* json_mode: the response text once it arrived */
    event *head, *tail;
    size_t queued_bytes;
    size_t head_offset; /* bytes of head already handed to MHD */
    bool done;          /* the response was queued: end after draining */
    bool closed;        /* client gone, session closed or queue overflow */
    struct stream *next;
} stream;

struct http_session {
    sluice_http_server *http;
    char id[2 * SESSION_ID_BYTES + 1];
    char *owner; /* user id of the identity that created it */
    sluice_mcp_session *mcp;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    stream *streams; /* POST streams and the GET stream */
    stream *get_stream;
    bool closed;
    atomic_int refs;
    time_t last_used; /* guarded by the table lock */
    http_session *next;
};

struct sluice_http_server {
    sluice_mcp_server *server;
    sluice_authenticator *auth;
    struct MHD_Daemon *daemon;
    uint16_t port;
    char path[256];
    char resource_url[512];
    const char *const *allowed_origins;
    size_t allowed_origin_count;
    const char *const *allowed_hosts;
    size_t allowed_host_count;
    size_t max_body;
    size_t max_sessions;
    int64_t idle_seconds;
    bool prefer_json;
    sluice_identity anonymous;
    sluice_http_get_fn get_handler;
    void *get_ctx;
    sluice_http_post_fn post_handler;
    void *post_ctx;
    pthread_mutex_t table_lock;
    http_session *sessions;
    size_t session_count;
    atomic_bool stopping;
};

/* Per-request state kept across MHD's calls for one request. */
typedef struct request {
    sluice_arena *arena;
    char *body;
    size_t len, cap;
    bool too_large;
    bool answered;    /* a response was queued on the first call already */
    http_session *hs; /* reference held until the request completes (JSON) */
    sluice_identity identity;
    bool has_identity;
    const char *side_path; /* a POST to post_handler's paths, answered once the body is in */
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

static bool protocol_supported(const char *v)
{
    for (size_t i = 0; i < sizeof supported_protocols / sizeof supported_protocols[0]; i++)
        if (strcmp(v, supported_protocols[i]) == 0)
            return true;
    return false;
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

/* ---- Origin and Host (DNS rebinding) ------------------------------------------------------------
 */

static bool loopback_host(const char *host, size_t len)
{
    return (len == 9 && strncasecmp(host, "localhost", 9) == 0) ||
           (len == 9 && strncmp(host, "127.0.0.1", 9) == 0) ||
           (len == 5 && strncmp(host, "[::1]", 5) == 0);
}

/* Length of the host part of "host[:port]" (IPv6 in brackets); 0 when malformed. */
static size_t host_part(const char *value)
{
    if (value[0] == '[') {
        const char *close = strchr(value, ']');
        if (close == NULL)
            return 0;
        size_t n = (size_t)(close - value) + 1;
        return value[n] == '\0' || value[n] == ':' ? n : 0;
    }
    size_t n = strcspn(value, ":");
    return n;
}

static bool port_ok(const char *p)
{
    if (*p == '\0')
        return true;
    if (*p++ != ':' || *p == '\0')
        return false;
    for (; *p != '\0'; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static bool host_allowed(const sluice_http_server *http, const char *host)
{
    if (host == NULL)
        return false;
    size_t n = host_part(host);
    if (n == 0 || !port_ok(host + n))
        return false;
    if (http->allowed_host_count == 0)
        return loopback_host(host, n);
    for (size_t i = 0; i < http->allowed_host_count; i++) {
        const char *a = http->allowed_hosts[i];
        if (strcasecmp(a, host) == 0 || (strlen(a) == n && strncasecmp(a, host, n) == 0))
            return true;
    }
    return false;
}

/* An allowlist entry without a port matches that scheme and host on any port, as for Host
 * entries and as docs/config.md promises (the config's loopback defaults carry no port). */
static bool origin_matches(const char *allowed, const char *origin)
{
    size_t n = strlen(allowed);
    if (strncasecmp(allowed, origin, n) != 0)
        return false;
    if (origin[n] == '\0')
        return true;
    const char *authority = strstr(allowed, "://");
    if (origin[n] != ':' || authority == NULL)
        return false;
    authority += 3;
    size_t host = host_part(authority);
    return host > 0 && authority[host] == '\0' && port_ok(origin + n);
}

static bool origin_allowed(const sluice_http_server *http, const char *origin)
{
    if (origin == NULL)
        return true; /* not a browser request */
    if (http->allowed_origin_count > 0) {
        for (size_t i = 0; i < http->allowed_origin_count; i++)
            if (origin_matches(http->allowed_origins[i], origin))
                return true;
        return false;
    }
    const char *rest = NULL;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (rest == NULL)
        return false;
    size_t n = host_part(rest);
    return n > 0 && port_ok(rest + n) && loopback_host(rest, n);
}

/* ---- sessions -----------------------------------------------------------------------------------
 */

static void stream_free_events(stream *st)
{
    while (st->head != NULL) {
        event *e = st->head;
        st->head = e->next;
        free(e->text);
        free(e);
    }
    st->tail = NULL;
}

static void session_destroy(http_session *hs)
{
    /* Cancels in-flight calls and waits for them; their messages find no stream and are
     * dropped by the sink, which is still valid here. */
    sluice_mcp_session_free(hs->mcp);
    pthread_mutex_destroy(&hs->lock);
    pthread_cond_destroy(&hs->cond);
    free(hs->owner);
    free(hs);
}

static void session_release(http_session *hs)
{
    if (hs != NULL && atomic_fetch_sub(&hs->refs, 1) == 1)
        session_destroy(hs);
}

static void session_close(http_session *hs)
{
    pthread_mutex_lock(&hs->lock);
    hs->closed = true;
    for (stream *st = hs->streams; st != NULL; st = st->next)
        st->closed = true;
    pthread_cond_broadcast(&hs->cond);
    pthread_mutex_unlock(&hs->lock);
}

/* Takes sessions idle past the limit out of the table (caller holds table_lock); they are
 * closed and released by the caller after unlocking. */
static http_session *take_expired_locked(sluice_http_server *http, time_t now)
{
    http_session *expired = NULL;
    for (http_session **p = &http->sessions; *p != NULL;) {
        http_session *hs = *p;
        /* Only the table's reference left: no connection or stream uses it. */
        if (atomic_load(&hs->refs) == 1 && now - hs->last_used > http->idle_seconds) {
            *p = hs->next;
            http->session_count--;
            hs->next = expired;
            expired = hs;
        } else {
            p = &hs->next;
        }
    }
    return expired;
}

static void close_and_release_all(http_session *list)
{
    while (list != NULL) {
        http_session *next = list->next;
        session_close(list);
        session_release(list);
        list = next;
    }
}

/* Finds a live session and takes a reference, or NULL. Also sweeps expired sessions. */
static http_session *session_find(sluice_http_server *http, const char *id)
{
    time_t now = time(NULL);
    pthread_mutex_lock(&http->table_lock);
    http_session *expired = take_expired_locked(http, now);
    http_session *found = NULL;
    for (http_session *hs = http->sessions; hs != NULL && found == NULL; hs = hs->next) {
        if (strlen(id) == sizeof hs->id - 1 && sodium_memcmp(hs->id, id, sizeof hs->id - 1) == 0) {
            atomic_fetch_add(&hs->refs, 1);
            hs->last_used = now;
            found = hs;
        }
    }
    pthread_mutex_unlock(&http->table_lock);
    close_and_release_all(expired);
    return found;
}

static void session_touch(sluice_http_server *http, http_session *hs)
{
    pthread_mutex_lock(&http->table_lock);
    hs->last_used = time(NULL);
    pthread_mutex_unlock(&http->table_lock);
}

/* Removes hs from the table (if still there) and drops the table's reference. */
static void session_remove(sluice_http_server *http, http_session *hs)
{
    bool was_listed = false;
    pthread_mutex_lock(&http->table_lock);
    for (http_session **p = &http->sessions; *p != NULL; p = &(*p)->next) {
        if (*p == hs) {
            *p = hs->next;
            http->session_count--;
            was_listed = true;
            break;
        }
    }
    pthread_mutex_unlock(&http->table_lock);
    session_close(hs);
    if (was_listed)
        session_release(hs);
}

static bool is_response_to(const json_t *msg, const json_t *id)
{
    return json_object_get(msg, "method") == NULL && id != NULL &&
           json_equal(json_object_get(msg, "id"), (json_t *)id);
}

static void enqueue_locked(stream *st, char *text, size_t len)
{
    static const char prefix[] = "event: message\ndata: ";
    size_t total = sizeof prefix - 1 + len + 2;
    event *e = malloc(sizeof *e);
    char *buf = malloc(total + 1);
    if (e == NULL || buf == NULL || st->queued_bytes + total > STREAM_QUEUE_BYTES) {
        free(e);
        free(buf);
        st->closed = true; /* a client that cannot keep up loses the stream, not the server */
        return;
    }
    memcpy(buf, prefix, sizeof prefix - 1);
    memcpy(buf + sizeof prefix - 1, text, len);
    memcpy(buf + sizeof prefix - 1 + len, "\n\n", 3);
    e->text = buf;
    e->len = total;
    e->next = NULL;
    if (st->tail != NULL)
        st->tail->next = e;
    else
        st->head = e;
    st->tail = e;
    st->queued_bytes += total;
}

/* The MCP session's sink: each message goes on exactly one stream. */
static void session_sink(void *ctx, json_t *msg, const json_t *related)
{
    http_session *hs = ctx;
    size_t len = 0;
    char *text = sluice_jsonrpc_dump(msg, &len);
    pthread_mutex_lock(&hs->lock);
    stream *target = NULL;
    for (stream *st = hs->streams; st != NULL && related != NULL; st = st->next)
        if (!st->closed && !st->done && st->request_id != NULL &&
            json_equal(st->request_id, (json_t *)related))
            target = st;
    /* Requests and notifications with no POST stream able to carry them (none related, or a
     * JSON-mode POST that carries only its response) go on the GET stream; responses never do. */
    bool is_message = json_object_get(msg, "method") != NULL;
    if ((target == NULL || (target->json_mode && is_message)) && is_message &&
        hs->get_stream != NULL && !hs->get_stream->closed)
        target = hs->get_stream;
    if (target != NULL && text != NULL) {
        bool response = target->request_id != NULL && is_response_to(msg, target->request_id);
        if (target->json_mode) {
            if (response) {
                target->response = text;
                text = NULL;
            }
        } else {
            enqueue_locked(target, text, len);
        }
        if (response)
            target->done = true;
        pthread_cond_broadcast(&hs->cond);
    }
    pthread_mutex_unlock(&hs->lock);
    free(text);
    json_decref(msg);
}

static stream *stream_open(http_session *hs, const json_t *request_id, bool json_mode)
{
    stream *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->hs = hs;
    st->request_id = request_id != NULL ? json_deep_copy(request_id) : NULL;
    st->json_mode = json_mode;
    pthread_mutex_lock(&hs->lock);
    st->closed = hs->closed;
    st->next = hs->streams;
    hs->streams = st;
    pthread_mutex_unlock(&hs->lock);
    return st;
}

static void stream_close(stream *st)
{
    http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    for (stream **p = &hs->streams; *p != NULL; p = &(*p)->next) {
        if (*p == st) {
            *p = st->next;
            break;
        }
    }
    if (hs->get_stream == st)
        hs->get_stream = NULL;
    pthread_mutex_unlock(&hs->lock);
    stream_free_events(st);
    free(st->response);
    json_decref(st->request_id);
    free(st);
}

/* ---- SSE content reader -------------------------------------------------------------------------
 */

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream *st = cls;
    http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    while (st->head == NULL && !st->closed && !st->done) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += KEEPALIVE_SECONDS;
        if (pthread_cond_timedwait(&hs->cond, &hs->lock, &deadline) != 0 && st->head == NULL &&
            !st->closed && !st->done) {
            pthread_mutex_unlock(&hs->lock);
            static const char ping[] = ": keepalive\n\n"; /* detects clients that went away */
            size_t n = sizeof ping - 1 < max ? sizeof ping - 1 : max;
            memcpy(buf, ping, n);
            return (ssize_t)n;
        }
    }
    ssize_t out;
    if (st->head != NULL) {
        event *e = st->head;
        size_t n = e->len - st->head_offset;
        if (n > max)
            n = max;
        memcpy(buf, e->text + st->head_offset, n);
        st->head_offset += n;
        if (st->head_offset == e->len) {
            st->head = e->next;
            if (st->head == NULL)
                st->tail = NULL;
            st->queued_bytes -= e->len;
            st->head_offset = 0;
            free(e->text);
            free(e);
        }
        out = (ssize_t)n;
    } else {
        out = MHD_CONTENT_READER_END_OF_STREAM; /* response delivered, or closed */
    }
    pthread_mutex_unlock(&hs->lock);
    return out;
}

static void sse_free(void *cls)
{
    stream *st = cls;
    http_session *hs = st->hs;
    stream_close(st);
    session_touch(hs->http, hs);
    session_release(hs);
}

/* Answers with an SSE response that drains st; the stream takes over the session reference. */
static enum MHD_Result send_stream(struct MHD_Connection *c, stream *st, const char *session_id)
{
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, st, sse_free);
    if (r == NULL) {
        sse_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (session_id != NULL)
        MHD_add_response_header(r, "Mcp-Session-Id", session_id);
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* Waits for a JSON-mode response and sends it; closes st. */
static enum MHD_Result
send_json_answer(struct MHD_Connection *c, stream *st, const char *session_id)
{
    http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    while (st->response == NULL && !st->closed)
        pthread_cond_wait(&hs->cond, &hs->lock);
    char *text = st->response;
    st->response = NULL;
    pthread_mutex_unlock(&hs->lock);
    stream_close(st);
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

static http_session *session_create(sluice_http_server *http, const sluice_identity *who)
{
    http_session *hs = calloc(1, sizeof *hs);
    if (hs == NULL)
        return NULL;
    unsigned char raw[SESSION_ID_BYTES];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(hs->id, sizeof hs->id, raw, sizeof raw);
    hs->http = http;
    hs->owner = strdup(who->user_id != NULL ? who->user_id : "");
    pthread_mutex_init(&hs->lock, NULL);
    pthread_cond_init(&hs->cond, NULL);
    atomic_init(&hs->refs, 1); /* the creating request's */
    sluice_mcp_sink sink = { session_sink, hs };
    if (hs->owner == NULL ||
        sluice_mcp_session_new(http->server, who, hs->id, sink, &hs->mcp) != SLUICE_OK) {
        pthread_mutex_destroy(&hs->lock);
        pthread_cond_destroy(&hs->cond);
        free(hs->owner);
        free(hs);
        return NULL;
    }
    return hs;
}

/* Adds hs to the table (taking a reference for it); false when the cap is reached. */
static bool session_insert(sluice_http_server *http, http_session *hs)
{
    time_t now = time(NULL);
    pthread_mutex_lock(&http->table_lock);
    http_session *expired = take_expired_locked(http, now);
    bool ok = http->session_count < http->max_sessions && !atomic_load(&http->stopping);
    if (ok) {
        hs->last_used = now;
        hs->next = http->sessions;
        http->sessions = hs;
        http->session_count++;
        atomic_fetch_add(&hs->refs, 1);
    }
    pthread_mutex_unlock(&http->table_lock);
    close_and_release_all(expired);
    return ok;
}

static const sluice_identity *request_identity(sluice_http_server *http, request *rq)
{
    return rq->has_identity ? &rq->identity : &http->anonymous;
}

/* Resolves Mcp-Session-Id for a non-initialize request: 400 missing, 404 unknown or owned by
 * someone else (we do not reveal that it exists). */
static http_session *require_session(struct MHD_Connection *c,
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
    http_session *hs = session_find(http, id);
    const char *who = request_identity(http, rq)->user_id;
    if (hs != NULL && strcmp(hs->owner, who != NULL ? who : "") != 0) {
        sluice_log(SLUICE_LOG_WARN, "http: session used by another identity; refused");
        session_release(hs);
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
    http_session *hs = session_create(http, request_identity(http, rq));
    if (hs == NULL)
        return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                          "out of memory");
    /* initialize is answered inline, so the response is in the stream when feed returns. */
    stream *st = stream_open(hs, id, true);
    if (st == NULL) {
        session_release(hs);
        return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                          "out of memory");
    }
    sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
    bool ok = sluice_mcp_session_initialized(hs->mcp);
    if (ok && !session_insert(http, hs)) {
        stream_close(st);
        session_release(hs);
        return send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, id, SLUICE_JSONRPC_SERVER_BUSY,
                          "too many sessions; try again later");
    }
    pthread_mutex_lock(&hs->lock);
    char *text = st->response;
    st->response = NULL;
    pthread_mutex_unlock(&hs->lock);
    stream_close(st);
    enum MHD_Result ret;
    if (text == NULL) {
        ret = send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, SLUICE_JSONRPC_INTERNAL_ERROR,
                         "initialize produced no response");
    } else if (sse) {
        static const char prefix[] = "event: message\ndata: ";
        char *body = malloc(sizeof prefix + strlen(text) + 2);
        if (body != NULL) {
            memcpy(body, prefix, sizeof prefix - 1);
            memcpy(body + sizeof prefix - 1, text, strlen(text));
            memcpy(body + sizeof prefix - 1 + strlen(text), "\n\n", 3);
        }
        struct MHD_Response *r =
            body != NULL
                ? MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE)
                : NULL;
        if (r == NULL) {
            free(body);
            ret = MHD_NO;
        } else {
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
            MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
            if (ok)
                MHD_add_response_header(r, "Mcp-Session-Id", hs->id);
            ret = MHD_queue_response(c, MHD_HTTP_OK, r);
            MHD_destroy_response(r);
        }
    } else {
        ret = send_body(c, MHD_HTTP_OK, "application/json", text, ok ? "Mcp-Session-Id" : NULL,
                        hs->id);
    }
    free(text);
    session_release(hs); /* the table keeps it when initialize succeeded */
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
    if (frame.kind == SLUICE_JSONRPC_INVALID) {
        ret = send_error(c, MHD_HTTP_BAD_REQUEST, frame.id, frame.error_code, frame.message);
    } else if (frame.kind == SLUICE_JSONRPC_REQUEST && strcmp(frame.method, "initialize") == 0 &&
               header(c, "Mcp-Session-Id") == NULL) {
        ret = handle_initialize(c, http, rq, msg, frame.id, sse);
    } else {
        http_session *hs = require_session(c, http, rq, &ret);
        if (hs != NULL && frame.kind != SLUICE_JSONRPC_REQUEST) {
            sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
            ret = send_body(c, MHD_HTTP_ACCEPTED, NULL, NULL, NULL, NULL);
            session_release(hs);
        } else if (hs != NULL) {
            stream *s = stream_open(hs, frame.id, !sse);
            if (s == NULL) {
                session_release(hs);
                ret = send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, frame.id,
                                 SLUICE_JSONRPC_INTERNAL_ERROR, "out of memory");
            } else {
                sluice_mcp_session_feed_value(hs->mcp, msg, request_identity(http, rq), NULL);
                if (sse) {
                    ret = send_stream(c, s, NULL); /* the stream owns the reference now */
                } else {
                    ret = send_json_answer(c, s, NULL);
                    session_release(hs);
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
    http_session *hs = require_session(c, http, rq, &ret);
    if (hs == NULL)
        return ret;
    stream *st = stream_open(hs, NULL, false);
    bool taken = false;
    if (st != NULL) {
        pthread_mutex_lock(&hs->lock);
        taken = hs->get_stream != NULL;
        if (!taken)
            hs->get_stream = st;
        pthread_mutex_unlock(&hs->lock);
    }
    if (st == NULL || taken) {
        if (st != NULL)
            stream_close(st);
        session_release(hs);
        return send_error(c, MHD_HTTP_CONFLICT, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "this session already has a GET stream open");
    }
    return send_stream(c, st, NULL);
}

static enum MHD_Result
handle_delete(struct MHD_Connection *c, sluice_http_server *http, request *rq)
{
    enum MHD_Result ret;
    http_session *hs = require_session(c, http, rq, &ret);
    if (hs == NULL)
        return ret;
    session_remove(http, hs);
    session_release(hs);
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
    if (!host_allowed(http, header(c, MHD_HTTP_HEADER_HOST))) {
        *ret = send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                          "Host header not allowed (DNS rebinding protection)");
        return true;
    }
    if (!origin_allowed(http, header(c, MHD_HTTP_HEADER_ORIGIN))) {
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
    const char *version = header(c, "MCP-Protocol-Version");
    if (version != NULL && !protocol_supported(version)) {
        char message[160];
        snprintf(message, sizeof message,
                 "unsupported MCP-Protocol-Version '%.40s' (supported: 2025-11-25, 2025-06-18, "
                 "2025-03-26)",
                 version);
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
            if (!host_allowed(http, header(c, MHD_HTTP_HEADER_HOST)))
                ret = send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                                 "Host header not allowed (DNS rebinding protection)");
            else if (strcmp(method, "POST") == 0 && http->post_handler != NULL) {
                if (!origin_allowed(http, header(c, MHD_HTTP_HEADER_ORIGIN))) {
                    ret = send_error(c, MHD_HTTP_FORBIDDEN, NULL, SLUICE_JSONRPC_INVALID_REQUEST,
                                     "Origin not allowed");
                } else if ((rq->side_path = sluice_arena_strdup(rq->arena, url)) != NULL) {
                    return MHD_YES; /* answered when the body is in */
                } else {
                    ret = MHD_NO; /* out of memory */
                }
            } else {
                const char *doc = strcmp(method, "GET") == 0 && http->get_handler != NULL
                                      ? http->get_handler(http->get_ctx, url, rq->arena)
                                      : NULL;
                ret = doc != NULL ? send_body(c, MHD_HTTP_OK, "application/json", doc, NULL, NULL)
                                  : send_body(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n",
                                              NULL, NULL);
            }
            rq->answered = true;
        } else if (strcmp(method, "POST") != 0 && strcmp(method, "GET") != 0 &&
                   strcmp(method, "DELETE") != 0) {
            ret =
                send_body(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "use POST, GET or DELETE\n",
                          MHD_HTTP_HEADER_ALLOW, "POST, GET, DELETE");
            rq->answered = true;
        } else if (refuse_early(c, http, rq, method, &ret)) {
            rq->answered = true;
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
        if (rq->len + n > rq->cap) {
            size_t cap = rq->cap == 0 ? 4096 : rq->cap;
            while (cap < rq->len + n)
                cap *= 2;
            char *grown = realloc(rq->body, cap);
            if (grown == NULL)
                return MHD_NO;
            rq->body = grown;
            rq->cap = cap;
        }
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
    (void)cls;
    (void)c;
    (void)code;
    request *rq = *con_cls;
    if (rq == NULL)
        return;
    free(rq->body);
    sluice_arena_free(rq->arena);
    free(rq);
    *con_cls = NULL;
}

/* ---- start / stop -------------------------------------------------------------------------------
 */

static sluice_status fixed_error(sluice_error *err, sluice_status status, const char *message)
{
    if (err != NULL) {
        sluice_error_clear(err);
        err->status = status;
        err->message = message;
    }
    return status;
}

sluice_status sluice_http_start(sluice_mcp_server *server,
                                const sluice_http_options *options,
                                sluice_authenticator *auth,
                                sluice_http_server **out,
                                sluice_error *err)
{
    static const sluice_http_options defaults = { 0 };
    const sluice_http_options *o = options != NULL ? options : &defaults;
    if (sodium_init() < 0)
        return fixed_error(err, SLUICE_E_INTERNAL, "libsodium failed to initialize");
    sluice_http_server *http = calloc(1, sizeof *http);
    if (http == NULL)
        return fixed_error(err, SLUICE_E_NOMEM, "out of memory");
    http->server = server;
    http->auth = auth;
    snprintf(http->path, sizeof http->path, "%s", o->path != NULL ? o->path : "/mcp");
    http->allowed_origins = o->allowed_origins;
    http->allowed_origin_count = o->allowed_origin_count;
    http->allowed_hosts = o->allowed_hosts;
    http->allowed_host_count = o->allowed_host_count;
    http->max_body = o->max_body_bytes > 0 ? o->max_body_bytes : DEFAULT_BODY_BYTES;
    http->max_sessions = o->max_sessions > 0 ? o->max_sessions : DEFAULT_MAX_SESSIONS;
    http->idle_seconds =
        o->session_idle_seconds > 0 ? o->session_idle_seconds : DEFAULT_IDLE_SECONDS;
    http->prefer_json = o->prefer_json;
    http->anonymous =
        o->anonymous != NULL ? *o->anonymous : (sluice_identity){ "anonymous", NULL, 0, "none" };
    http->get_handler = o->get_handler;
    http->get_ctx = o->get_ctx;
    http->post_handler = o->post_handler;
    http->post_ctx = o->post_ctx;
    pthread_mutex_init(&http->table_lock, NULL);

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
        pthread_mutex_destroy(&http->table_lock);
        free(http);
        return fixed_error(err, SLUICE_E_INVALID,
                           "bind address must be an IPv4 or IPv6 literal such as 127.0.0.1");
    }
    http->daemon = MHD_start_daemon(
        flags, o->port, NULL, NULL, on_request, http, MHD_OPTION_SOCK_ADDR, &addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, http, MHD_OPTION_CONNECTION_TIMEOUT,
        CONNECTION_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS, MHD_OPTION_END);
    if (http->daemon == NULL) {
        pthread_mutex_destroy(&http->table_lock);
        free(http);
        return fixed_error(err, SLUICE_E_IO, "cannot listen on the configured address and port");
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
    pthread_mutex_lock(&http->table_lock);
    size_t n = http->session_count;
    pthread_mutex_unlock(&http->table_lock);
    return n;
}

void sluice_http_stop(sluice_http_server *http)
{
    if (http == NULL)
        return;
    atomic_store(&http->stopping, true);
    pthread_mutex_lock(&http->table_lock);
    http_session *all = http->sessions;
    http->sessions = NULL;
    http->session_count = 0;
    pthread_mutex_unlock(&http->table_lock);
    /* Close first so blocked connection threads wake; MHD then joins them. */
    for (http_session *hs = all; hs != NULL; hs = hs->next)
        session_close(hs);
    MHD_stop_daemon(http->daemon);
    while (all != NULL) {
        http_session *next = all->next;
        session_release(all);
        all = next;
    }
    pthread_mutex_destroy(&http->table_lock);
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
