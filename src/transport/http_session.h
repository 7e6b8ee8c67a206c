/*
 * http_session.h — the HTTP transport's session table and per-request streams (internal to
 * src/transport).
 *
 * Owns: HTTP sessions (each wraps one sluice_mcp_session under a random 32-byte hex id bound to
 * the user who created it), the table (hash buckets under a per-table SipHash key, so a lookup
 * compares few ids; a constant-time compare each) with its cap and idle expiry, reference
 * counting, and the streams a session's sink routes each outgoing message to: the POST stream
 * of the request it relates to, or the session's GET stream for unrelated ones (dropped if none
 * is open).
 * Does not own: HTTP itself, status codes and libmicrohttpd (http.c), event bytes (sse.c).
 *
 * Lifetime: the table holds one reference, each connection or stream using a session another;
 * removing a session (DELETE, expiry, stop) marks it closed, which wakes and ends its streams;
 * the last reference frees the MCP session (cancelling its calls, running its close hooks) and
 * then the wrapper. Locks: table->lock guards the list, counts and last_used; hs->lock guards
 * the streams. Neither is held while calling into the MCP core.
 */
#ifndef SLUICE_TRANSPORT_HTTP_SESSION_H
#define SLUICE_TRANSPORT_HTTP_SESSION_H

#include "auth/identity.h"
#include "mcp/server.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define SLUICE_HTTP_SESSION_ID_BYTES 32u
/* Bytes queued on one stream before a client that does not read loses it. */
#define SLUICE_HTTP_STREAM_QUEUE_BYTES (8u * 1024u * 1024u)
/* Seconds an idle SSE stream waits before it writes a keep-alive comment. */
#define SLUICE_HTTP_KEEPALIVE_SECONDS 15
/* Milliseconds between checks, while a request waits for its answer, that its client is still
 * connected (a client gone mid-call has the call cancelled). */
#define SLUICE_HTTP_PEER_CHECK_MS 250
/* Hash buckets of the session table: a lookup compares (in constant time) only the ids in one
 * bucket, not every live session's. */
#define SLUICE_HTTP_TABLE_BUCKETS   1024u
#define SLUICE_HTTP_TABLE_KEY_BYTES 16u /* SipHash key, random per table */

typedef struct sluice_http_table sluice_http_table;
typedef struct sluice_http_session sluice_http_session;

typedef struct sluice_http_event {
    char *text; /* a complete SSE event, malloc'd */
    size_t len;
    struct sluice_http_event *next;
} sluice_http_event;

typedef struct sluice_http_stream {
    sluice_http_session *hs;
    json_t *request_id; /* NULL for the GET stream */
    bool json_mode;     /* POST answered as application/json: only the response is kept */
    char *response;     /* json_mode: the response text once it arrived */
    sluice_http_event *head, *tail;
    size_t queued_bytes;
    size_t head_offset; /* bytes of head already handed out */
    bool lazy;          /* stateless POST: the response alone is kept as JSON (like json_mode)
                           unless a notification came first, which makes it an SSE stream */
    bool had_events;    /* an event was queued: the answer is an SSE stream */
    int response_code;  /* the response's JSON-RPC error code, 0 for a result */
    bool done;          /* the response was queued: end after draining */
    bool closed;        /* client gone, session closed or queue overflow */
    int peer_fd;        /* the client's socket, watched while waiting (-1: not watched) */
    bool peer_gone;     /* closed because the client closed its connection */
    struct sluice_http_stream *next;
} sluice_http_stream;

struct sluice_http_session {
    sluice_http_table *table;
    char id[2 * SLUICE_HTTP_SESSION_ID_BYTES + 1];
    char *owner; /* user id of the identity that created it */
    sluice_mcp_session *mcp;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    sluice_http_stream *streams; /* POST streams and the GET stream */
    sluice_http_stream *get_stream;
    bool closed;
    atomic_int refs;
    time_t last_used;                 /* guarded by the table lock */
    sluice_http_session *next;        /* the table's list of every session */
    sluice_http_session *bucket_next; /* the chain of its hash bucket */
};

struct sluice_http_table {
    pthread_mutex_t lock;
    sluice_http_session *sessions;
    sluice_http_session *buckets[SLUICE_HTTP_TABLE_BUCKETS];
    unsigned char hash_key[SLUICE_HTTP_TABLE_KEY_BYTES];
    size_t count;
    size_t max;
    int64_t idle_seconds;
    time_t last_sweep; /* lookups sweep expired sessions at most once a second */
    atomic_bool stopping;
};

void sluice_http_table_init(sluice_http_table *table, size_t max, int64_t idle_seconds);
/* Marks the table stopping, closes every session (waking their blocked streams) and returns
 * them, still referenced by the table; release each with sluice_http_session_release_all once
 * the connection threads are gone. */
sluice_http_session *sluice_http_table_close_all(sluice_http_table *table);
void sluice_http_session_release_all(sluice_http_session *list);
void sluice_http_table_destroy(sluice_http_table *table);
size_t sluice_http_table_count(sluice_http_table *table);

/* A new session for who (one reference, the caller's; not in the table yet), with a fresh id;
 * NULL when out of memory or an attach hook refused it. */
sluice_http_session *sluice_http_session_create(sluice_http_table *table,
                                                sluice_mcp_server *server,
                                                const sluice_identity *who);
/* A session for one stateless (2026-07-28) request: never put in the table, no attach hooks, no
 * id; the caller's reference is the only one until a stream takes it over. NULL when out of
 * memory. */
sluice_http_session *sluice_http_session_create_stateless(sluice_http_table *table,
                                                          sluice_mcp_server *server,
                                                          const sluice_identity *who);
/* Adds hs to the table (which takes its own reference); false at the cap or while stopping. */
bool sluice_http_table_insert(sluice_http_table *table, sluice_http_session *hs);
/* Finds a live session by id and takes a reference, or NULL. Also sweeps expired sessions (at
 * most once a second: expiry counts whole seconds anyway). */
sluice_http_session *sluice_http_table_find(sluice_http_table *table, const char *id);
/* Removes hs from the table (if still there), closes it, drops the table's reference. */
void sluice_http_table_remove(sluice_http_table *table, sluice_http_session *hs);
/* Marks hs used now (idle expiry counts from the end of its last stream). */
void sluice_http_table_touch(sluice_http_table *table, sluice_http_session *hs);
/* Drops one reference; the last one frees the session. NULL does nothing. */
void sluice_http_session_release(sluice_http_session *hs);

/* Opens a stream on hs for the request request_id (NULL: the GET stream; the caller installs
 * it as hs->get_stream); NULL when out of memory. */
sluice_http_stream *
sluice_http_stream_open(sluice_http_session *hs, const json_t *request_id, bool json_mode);
/* A lazy stream (see sluice_http_stream.lazy) for request_id; NULL when out of memory. */
sluice_http_stream *sluice_http_stream_open_lazy(sluice_http_session *hs, const json_t *request_id);
/* Lazy stream: waits until the response arrived with nothing before it (true: take it with
 * sluice_http_stream_take_response) or an event was queued or the stream closed (false: answer
 * as an SSE stream, which ends at once when closed). */
bool sluice_http_stream_wait_lazy(sluice_http_stream *st);
/* Unlinks and frees st (its queued events are dropped). */
void sluice_http_stream_close(sluice_http_stream *st);
/* Watches fd (the request's connection) while st waits for its answer: once the client has
 * closed it, the wait ends with st closed and peer_gone set. */
void sluice_http_stream_watch_peer(sluice_http_stream *st, int fd);
/* True when st is a request's stream whose response never arrived (the client went away or the
 * session closed first): the transport then cancels the call. */
bool sluice_http_stream_abandoned(sluice_http_stream *st);
/* Installs st as hs's GET stream; false when one is open already. */
bool sluice_http_stream_set_get(sluice_http_session *hs, sluice_http_stream *st);
/* json_mode: the response text (malloc'd, the caller frees it), waiting for it when wait is
 * true; NULL when the stream closed first (or, without wait, when it has not arrived). */
char *sluice_http_stream_take_response(sluice_http_stream *st, bool wait);
/* SSE mode, when the response is queued already (a call answered while it was fed): every
 * queued event in one malloc'd buffer (*out_len bytes), so the answer goes out with a
 * Content-Length in one write. NULL when the stream is not finished or out of memory (the
 * events stay queued then). */
char *sluice_http_stream_take_finished(sluice_http_stream *st, size_t *out_len);
/* SSE mode: copies the next bytes (at most max > 0) into buf, blocking until there are some,
 * and returns their count; a keep-alive comment after SLUICE_HTTP_KEEPALIVE_SECONDS idle.
 * Returns 0 with *end set at the end of the stream (response delivered, or closed). */
size_t sluice_http_stream_read(sluice_http_stream *st, char *buf, size_t max, bool *end);

#endif
