/*
 * http_session.c — HTTP sessions, their table and their streams (see http_session.h).
 */
#include "transport/http_session.h"

#include "core/clock.h"
#include "core/log.h"
#include "mcp/jsonrpc.h"
#include "transport/sse.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* ---- the table --------------------------------------------------------------------------------
 */

_Static_assert(SLUICE_HTTP_TABLE_KEY_BYTES == crypto_shorthash_KEYBYTES, "SipHash key size");

void sluice_http_table_init(sluice_http_table *table, size_t max, int64_t idle_seconds)
{
    memset(table, 0, sizeof *table);
    pthread_mutex_init(&table->lock, NULL);
    crypto_shorthash_keygen(table->hash_key);
    table->max = max;
    table->idle_seconds = idle_seconds;
    atomic_init(&table->stopping, false);
}

void sluice_http_table_destroy(sluice_http_table *table)
{
    pthread_mutex_destroy(&table->lock);
}

size_t sluice_http_table_count(sluice_http_table *table)
{
    pthread_mutex_lock(&table->lock);
    size_t n = table->count;
    pthread_mutex_unlock(&table->lock);
    return n;
}

static void stream_free_events(sluice_http_stream *st)
{
    while (st->head != NULL) {
        sluice_http_event *e = st->head;
        st->head = e->next;
        free(e->text);
        free(e);
    }
    st->tail = NULL;
    st->queued_bytes = 0;
    st->head_offset = 0;
}

static void session_destroy(sluice_http_session *hs)
{
    /* Cancels in-flight calls and waits for them; their messages find no stream and are
     * dropped by the sink, which is still valid here. */
    sluice_mcp_session_free(hs->mcp);
    pthread_mutex_destroy(&hs->lock);
    pthread_cond_destroy(&hs->cond);
    free(hs->owner);
    free(hs);
}

void sluice_http_session_release(sluice_http_session *hs)
{
    if (hs != NULL && atomic_fetch_sub(&hs->refs, 1) == 1)
        session_destroy(hs);
}

static void session_close(sluice_http_session *hs)
{
    pthread_mutex_lock(&hs->lock);
    hs->closed = true;
    for (sluice_http_stream *st = hs->streams; st != NULL; st = st->next)
        st->closed = true;
    pthread_cond_broadcast(&hs->cond);
    pthread_mutex_unlock(&hs->lock);
}

/* The bucket of a session id (a keyed hash, so which ids share a bucket reveals nothing). */
static sluice_http_session **bucket_of(sluice_http_table *table, const char *id, size_t len)
{
    unsigned char h[crypto_shorthash_BYTES];
    crypto_shorthash(h, (const unsigned char *)id, len, table->hash_key);
    uint64_t v = 0;
    memcpy(&v, h, sizeof v < sizeof h ? sizeof v : sizeof h);
    return &table->buckets[v % SLUICE_HTTP_TABLE_BUCKETS];
}

/* Unlinks hs from its bucket (caller holds table->lock). */
static void bucket_unlink_locked(sluice_http_table *table, sluice_http_session *hs)
{
    for (sluice_http_session **p = bucket_of(table, hs->id, sizeof hs->id - 1); *p != NULL;
         p = &(*p)->bucket_next) {
        if (*p == hs) {
            *p = hs->bucket_next;
            return;
        }
    }
}

/* Idle past the limit with only the table's reference left (no connection or stream uses it);
 * the caller holds table->lock. */
static bool is_expired(const sluice_http_table *table, sluice_http_session *hs, time_t now)
{
    return atomic_load(&hs->refs) == 1 && now - hs->last_used > table->idle_seconds;
}

/* Takes sessions idle past the limit out of the table (caller holds table->lock); they are
 * closed and released by the caller after unlocking. */
static sluice_http_session *take_expired_locked(sluice_http_table *table, time_t now)
{
    sluice_http_session *expired = NULL;
    table->last_sweep = now;
    for (sluice_http_session **p = &table->sessions; *p != NULL;) {
        sluice_http_session *hs = *p;
        if (is_expired(table, hs, now)) {
            *p = hs->next;
            bucket_unlink_locked(table, hs);
            table->count--;
            hs->next = expired;
            expired = hs;
        } else {
            p = &hs->next;
        }
    }
    return expired;
}

static void close_and_release_all(sluice_http_session *list)
{
    while (list != NULL) {
        sluice_http_session *next = list->next;
        session_close(list);
        sluice_http_session_release(list);
        list = next;
    }
}

sluice_http_session *sluice_http_table_close_all(sluice_http_table *table)
{
    atomic_store(&table->stopping, true);
    pthread_mutex_lock(&table->lock);
    sluice_http_session *all = table->sessions;
    table->sessions = NULL;
    memset(table->buckets, 0, sizeof table->buckets);
    table->count = 0;
    pthread_mutex_unlock(&table->lock);
    for (sluice_http_session *hs = all; hs != NULL; hs = hs->next)
        session_close(hs);
    return all;
}

void sluice_http_session_release_all(sluice_http_session *list)
{
    while (list != NULL) {
        sluice_http_session *next = list->next;
        sluice_http_session_release(list);
        list = next;
    }
}

sluice_http_session *sluice_http_table_find(sluice_http_table *table, const char *id)
{
    time_t now = time(NULL);
    size_t id_len = strlen(id);
    if (id_len != 2 * SLUICE_HTTP_SESSION_ID_BYTES)
        return NULL; /* not an id we issue: no need to look (the length is public) */
    pthread_mutex_lock(&table->lock);
    sluice_http_session *found = NULL;
    for (sluice_http_session *hs = *bucket_of(table, id, id_len); hs != NULL && found == NULL;
         hs = hs->bucket_next)
        if (sodium_memcmp(hs->id, id, id_len) == 0)
            found = hs;
    /* Sweep once a second, and whenever the session asked for has expired since (it goes). */
    bool found_expired = found != NULL && is_expired(table, found, now);
    sluice_http_session *expired =
        found_expired || now != table->last_sweep ? take_expired_locked(table, now) : NULL;
    if (found_expired) {
        found = NULL;
    } else if (found != NULL) {
        atomic_fetch_add(&found->refs, 1);
        found->last_used = now;
    }
    pthread_mutex_unlock(&table->lock);
    close_and_release_all(expired);
    return found;
}

void sluice_http_table_touch(sluice_http_table *table, sluice_http_session *hs)
{
    pthread_mutex_lock(&table->lock);
    hs->last_used = time(NULL);
    pthread_mutex_unlock(&table->lock);
}

void sluice_http_table_remove(sluice_http_table *table, sluice_http_session *hs)
{
    bool was_listed = false;
    pthread_mutex_lock(&table->lock);
    for (sluice_http_session **p = &table->sessions; *p != NULL; p = &(*p)->next) {
        if (*p == hs) {
            *p = hs->next;
            bucket_unlink_locked(table, hs);
            table->count--;
            was_listed = true;
            break;
        }
    }
    pthread_mutex_unlock(&table->lock);
    session_close(hs);
    if (was_listed)
        sluice_http_session_release(hs);
}

bool sluice_http_table_insert(sluice_http_table *table, sluice_http_session *hs)
{
    time_t now = time(NULL);
    pthread_mutex_lock(&table->lock);
    sluice_http_session *expired = take_expired_locked(table, now);
    bool ok = table->count < table->max && !atomic_load(&table->stopping);
    if (ok) {
        hs->last_used = now;
        hs->next = table->sessions;
        table->sessions = hs;
        sluice_http_session **bucket = bucket_of(table, hs->id, sizeof hs->id - 1);
        hs->bucket_next = *bucket;
        *bucket = hs;
        table->count++;
        atomic_fetch_add(&hs->refs, 1);
    }
    pthread_mutex_unlock(&table->lock);
    close_and_release_all(expired);
    return ok;
}

/* ---- the sink: each outgoing message goes on exactly one stream --------------------------------
 */

static bool is_response_to(const json_t *msg, const json_t *id)
{
    return json_object_get(msg, "method") == NULL && id != NULL &&
           json_equal(json_object_get(msg, "id"), (json_t *)id);
}

static void enqueue_locked(sluice_http_stream *st, const char *text, size_t len)
{
    size_t total = 0;
    sluice_http_event *e = malloc(sizeof *e);
    char *event = sluice_sse_event(text, len, &total);
    if (e == NULL || event == NULL || st->queued_bytes + total > SLUICE_HTTP_STREAM_QUEUE_BYTES) {
        free(e);
        free(event);
        st->closed = true; /* a client that cannot keep up loses the stream, not the server */
        return;
    }
    e->text = event;
    e->len = total;
    e->next = NULL;
    if (st->tail != NULL)
        st->tail->next = e;
    else
        st->head = e;
    st->tail = e;
    st->queued_bytes += total;
}

static void session_sink(void *ctx, json_t *msg, const json_t *related)
{
    sluice_http_session *hs = ctx;
    size_t len = 0;
    char *text = sluice_jsonrpc_dump(msg, &len);
    pthread_mutex_lock(&hs->lock);
    sluice_http_stream *target = NULL;
    for (sluice_http_stream *st = hs->streams; st != NULL && related != NULL; st = st->next)
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
        if (response)
            target->response_code =
                (int)json_integer_value(json_object_get(json_object_get(msg, "error"), "code"));
        if (target->json_mode || (target->lazy && response && !target->had_events)) {
            if (response) {
                target->response = text;
                text = NULL;
            }
        } else {
            enqueue_locked(target, text, len);
            target->had_events = true;
        }
        if (response)
            target->done = true;
        pthread_cond_broadcast(&hs->cond);
    }
    pthread_mutex_unlock(&hs->lock);
    free(text);
    json_decref(msg);
}

static sluice_http_session *session_create(sluice_http_table *table,
                                           sluice_mcp_server *server,
                                           const sluice_identity *who,
                                           bool stateless);

sluice_http_session *sluice_http_session_create(sluice_http_table *table,
                                                sluice_mcp_server *server,
                                                const sluice_identity *who)
{
    return session_create(table, server, who, false);
}

sluice_http_session *sluice_http_session_create_stateless(sluice_http_table *table,
                                                          sluice_mcp_server *server,
                                                          const sluice_identity *who)
{
    return session_create(table, server, who, true);
}

static sluice_http_session *session_create(sluice_http_table *table,
                                           sluice_mcp_server *server,
                                           const sluice_identity *who,
                                           bool stateless)
{
    sluice_http_session *hs = calloc(1, sizeof *hs);
    if (hs == NULL)
        return NULL;
    if (!stateless) { /* a stateless request has no session id to mint */
        unsigned char raw[SLUICE_HTTP_SESSION_ID_BYTES];
        randombytes_buf(raw, sizeof raw);
        sodium_bin2hex(hs->id, sizeof hs->id, raw, sizeof raw);
    }
    hs->table = table;
    hs->owner = strdup(who->user_id != NULL ? who->user_id : "");
    pthread_mutex_init(&hs->lock, NULL);
    pthread_cond_init(&hs->cond, NULL);
    atomic_init(&hs->refs, 1); /* the creating request's */
    sluice_mcp_sink sink = { session_sink, hs };
    sluice_status st = SLUICE_E_NOMEM;
    if (hs->owner != NULL)
        st = stateless ? sluice_mcp_session_new_stateless(server, who, sink, &hs->mcp)
                       : sluice_mcp_session_new(server, who, hs->id, sink, &hs->mcp);
    if (st != SLUICE_OK) {
        pthread_mutex_destroy(&hs->lock);
        pthread_cond_destroy(&hs->cond);
        free(hs->owner);
        free(hs);
        return NULL;
    }
    return hs;
}

/* ---- streams ----------------------------------------------------------------------------------
 */

sluice_http_stream *
sluice_http_stream_open(sluice_http_session *hs, const json_t *request_id, bool json_mode)
{
    sluice_http_stream *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->hs = hs;
    st->request_id = request_id != NULL ? json_deep_copy(request_id) : NULL;
    st->json_mode = json_mode;
    st->peer_fd = -1;
    pthread_mutex_lock(&hs->lock);
    st->closed = hs->closed;
    st->next = hs->streams;
    hs->streams = st;
    pthread_mutex_unlock(&hs->lock);
    return st;
}

sluice_http_stream *sluice_http_stream_open_lazy(sluice_http_session *hs, const json_t *request_id)
{
    sluice_http_stream *st = sluice_http_stream_open(hs, request_id, false);
    if (st != NULL) {
        pthread_mutex_lock(&hs->lock); /* the sink may already look at it */
        st->lazy = true;
        pthread_mutex_unlock(&hs->lock);
    }
    return st;
}

bool sluice_http_stream_wait_lazy(sluice_http_stream *st)
{
    sluice_http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    while (st->response == NULL && !st->had_events && !st->closed)
        pthread_cond_wait(&hs->cond, &hs->lock);
    bool response = st->response != NULL;
    pthread_mutex_unlock(&hs->lock);
    return response;
}

void sluice_http_stream_watch_peer(sluice_http_stream *st, int fd)
{
    pthread_mutex_lock(&st->hs->lock);
    st->peer_fd = fd;
    pthread_mutex_unlock(&st->hs->lock);
}

bool sluice_http_stream_abandoned(sluice_http_stream *st)
{
    pthread_mutex_lock(&st->hs->lock);
    bool abandoned = st->request_id != NULL && !st->done;
    pthread_mutex_unlock(&st->hs->lock);
    return abandoned;
}

/* While a request waits for its answer MHD does not read its socket, so a peek sees what the
 * client did: EOF (it closed the connection) or an error means it is gone; bytes (a pipelined
 * request) or nothing yet mean it is still there. A client that only shut down its sending side
 * looks gone too, which HTTP clients waiting for an answer do not do. */
static bool peer_gone(int fd)
{
    char b;
    ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Waits on hs->cond (hs->lock held) until woken or deadline; a stream that watches its peer
 * waits in SLUICE_HTTP_PEER_CHECK_MS slices and is closed (peer_gone) once the peer is gone.
 * Returns pthread_cond_timedwait's result for the deadline (ETIMEDOUT when it passed). */
static int wait_locked(sluice_http_stream *st, const struct timespec *deadline)
{
    sluice_http_session *hs = st->hs;
    if (st->peer_fd < 0)
        return deadline != NULL ? pthread_cond_timedwait(&hs->cond, &hs->lock, deadline)
                                : pthread_cond_wait(&hs->cond, &hs->lock);
    struct timespec slice = sluice_clock_deadline_after(SLUICE_HTTP_PEER_CHECK_MS);
    bool last = deadline != NULL &&
                (deadline->tv_sec < slice.tv_sec ||
                 (deadline->tv_sec == slice.tv_sec && deadline->tv_nsec <= slice.tv_nsec));
    int rc = pthread_cond_timedwait(&hs->cond, &hs->lock, last ? deadline : &slice);
    if (rc == ETIMEDOUT && !last) {
        rc = 0; /* a slice, not the deadline */
        if (peer_gone(st->peer_fd)) {
            st->closed = true;
            st->peer_gone = true;
        }
    }
    return rc;
}

bool sluice_http_stream_set_get(sluice_http_session *hs, sluice_http_stream *st)
{
    pthread_mutex_lock(&hs->lock);
    bool taken = hs->get_stream != NULL;
    if (!taken)
        hs->get_stream = st;
    pthread_mutex_unlock(&hs->lock);
    return !taken;
}

void sluice_http_stream_close(sluice_http_stream *st)
{
    sluice_http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    for (sluice_http_stream **p = &hs->streams; *p != NULL; p = &(*p)->next) {
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

char *sluice_http_stream_take_response(sluice_http_stream *st, bool wait)
{
    sluice_http_session *hs = st->hs;
    pthread_mutex_lock(&hs->lock);
    while (wait && st->response == NULL && !st->closed)
        wait_locked(st, NULL);
    char *text = st->response;
    st->response = NULL;
    pthread_mutex_unlock(&hs->lock);
    return text;
}

char *sluice_http_stream_take_finished(sluice_http_stream *st, size_t *out_len)
{
    sluice_http_session *hs = st->hs;
    char *all = NULL;
    pthread_mutex_lock(&hs->lock);
    if (st->done && !st->closed && st->head != NULL && st->head_offset == 0 &&
        (all = malloc(st->queued_bytes + 1)) != NULL) {
        size_t at = 0;
        for (sluice_http_event *e = st->head; e != NULL; e = e->next) {
            memcpy(all + at, e->text, e->len);
            at += e->len;
        }
        all[at] = '\0';
        *out_len = at;
        stream_free_events(st);
    }
    pthread_mutex_unlock(&hs->lock);
    return all;
}

/* Waits (hs->lock held) until st has bytes, ends, or stays idle past the keep-alive interval;
 * true when it timed out idle. */
static bool wait_for_bytes_locked(sluice_http_stream *st)
{
    struct timespec deadline = sluice_clock_deadline_after(SLUICE_HTTP_KEEPALIVE_SECONDS * 1000LL);
    while (st->head == NULL && !st->closed && !st->done) {
        if (wait_locked(st, &deadline) != 0 && st->head == NULL && !st->closed && !st->done)
            return true;
    }
    return false;
}

size_t sluice_http_stream_read(sluice_http_stream *st, char *buf, size_t max, bool *end)
{
    sluice_http_session *hs = st->hs;
    *end = false;
    pthread_mutex_lock(&hs->lock);
    if (wait_for_bytes_locked(st)) {
        pthread_mutex_unlock(&hs->lock);
        static const char ping[] = SLUICE_SSE_KEEPALIVE; /* detects clients that went away */
        size_t n = sizeof ping - 1 < max ? sizeof ping - 1 : max;
        memcpy(buf, ping, n);
        return n;
    }
    size_t n = 0;
    sluice_http_event *e = st->head;
    if (e != NULL) {
        n = e->len - st->head_offset;
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
    } else {
        *end = true; /* response delivered, or closed */
    }
    pthread_mutex_unlock(&hs->lock);
    return n;
}
