/*
 * stdio.c — newline-delimited JSON-RPC over a pair of file descriptors (see stdio.h).
 *
 * The calling thread is the reader; handlers run on the server's worker pool; every writer
 * (responses from workers, notifications, errors for bad lines) goes through one mutex so lines
 * never interleave. Lines are framed by '\n' only; a trailing '\r' is tolerated.
 */
#include "transport/stdio.h"

#include "core/buf.h"
#include "core/fdio.h"
#include "core/json_write.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/vec.h"
#include "mcp/jsonrpc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK 65536u

typedef struct writer {
    int fd;
    pthread_mutex_t lock;
    bool broken; /* a write failed: the client is gone, drop the rest */
} writer;

/* Serializes msg (stolen) and its newline into one buffer outside the lock, then writes it with
 * one write(): a line is never split between writers, and a round trip costs one syscall. */
static void writer_send(void *ctx, json_t *msg, const json_t *related)
{
    (void)related; /* one stream: everything goes to stdout in order */
    writer *w = ctx;
    sluice_buf line;
    sluice_buf_init(&line, NULL, 0);
    sluice_status st = msg != NULL ? sluice_json_write(&line, msg) : SLUICE_E_NOMEM;
    sluice_buf_putc(&line, '\n');
    json_decref(msg);
    if (st != SLUICE_OK || sluice_buf_status(&line) != SLUICE_OK) {
        sluice_log(SLUICE_LOG_ERROR, "stdio: cannot serialize a message (%s); dropped",
                   sluice_status_name(st != SLUICE_OK ? st : sluice_buf_status(&line)));
        sluice_buf_dispose(&line);
        return;
    }
    pthread_mutex_lock(&w->lock);
    if (!w->broken && !sluice_write_all(w->fd, line.data, line.len)) {
        w->broken = true;
        sluice_log(SLUICE_LOG_WARN, "stdio: writing to the client failed (%s); output dropped",
                   strerror(errno));
    }
    pthread_mutex_unlock(&w->lock);
    sluice_buf_dispose(&line);
}

/* Reads frames from fd until EOF, feeding each complete line to session. */
typedef struct line_reader {
    char *line;
    size_t len, cap, max;
    bool oversized; /* discarding the rest of a line that passed max */
    size_t oversized_len;
    writer *out;
} line_reader;

static void oversized_answer(const line_reader *r)
{
    char message[160];
    snprintf(message, sizeof message, "message too large: %zu bytes (limit is %zu)",
             r->oversized_len, r->max);
    writer_send(r->out, sluice_jsonrpc_error(NULL, SLUICE_JSONRPC_INVALID_REQUEST, message, NULL),
                NULL);
}

static void end_line(sluice_mcp_session *session, line_reader *r)
{
    if (r->oversized) {
        oversized_answer(r);
    } else {
        size_t len = r->len;
        if (len > 0 && r->line[len - 1] == '\r')
            len--;
        if (len > 0)
            sluice_mcp_session_feed(session, r->line, len, NULL, NULL);
    }
    r->len = 0;
    r->oversized = false;
    r->oversized_len = 0;
}

static bool take_bytes(line_reader *r, const char *data, size_t n)
{
    if (r->oversized) {
        r->oversized_len += n;
        return true;
    }
    if (r->len + n > r->max) {
        r->oversized = true;
        r->oversized_len = r->len + n;
        r->len = 0;
        return true;
    }
    char *grown = sluice_vec_grow_heap(r->line, r->len + n, &r->cap, 1, READ_CHUNK);
    if (grown == NULL)
        return false;
    r->line = grown;
    memcpy(r->line + r->len, data, n);
    r->len += n;
    return true;
}

static sluice_status
read_loop(int fd, sluice_mcp_session *session, writer *out, size_t max, sluice_error *err)
{
    line_reader r = { .max = max, .out = out };
    char *chunk = malloc(READ_CHUNK);
    if (chunk == NULL)
        return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory");
    sluice_status st = SLUICE_OK;
    for (;;) {
        ssize_t n = read(fd, chunk, READ_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = sluice_error_fixed(err, SLUICE_E_IO, "reading the input failed");
            break;
        }
        if (n == 0) {
            if (r.len > 0 || r.oversized)
                end_line(session, &r); /* a last line without '\n' still counts */
            break;
        }
        const char *p = chunk, *end = chunk + n;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t take = (size_t)((nl != NULL ? nl : end) - p);
            if (!take_bytes(&r, p, take)) {
                st = sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory");
                goto done;
            }
            p += take;
            if (nl != NULL) {
                end_line(session, &r);
                p++;
            }
        }
    }
done:
    free(chunk);
    free(r.line);
    return st;
}

sluice_status sluice_stdio_serve_fds(sluice_mcp_server *server,
                                     const sluice_identity *identity,
                                     const sluice_stdio_options *options,
                                     sluice_error *err)
{
    int in_fd = options != NULL && options->in_fd >= 0 ? options->in_fd : STDIN_FILENO;
    int out_fd = options != NULL && options->out_fd >= 0 ? options->out_fd : STDOUT_FILENO;
    size_t max = options != NULL && options->max_message_bytes > 0 ? options->max_message_bytes
                                                                   : SLUICE_LIMIT_MESSAGE_BYTES;
    writer w = { .fd = out_fd };
    pthread_mutex_init(&w.lock, NULL);
    sluice_mcp_sink sink = { writer_send, &w };
    /* Each stdio process is its own session: approval tokens are bound to it, so two server
     * processes of the same user must not share a session id. */
    unsigned char nonce[16];
    char session_id[6 + 2 * sizeof nonce + 1] = "stdio-";
    randombytes_buf(nonce, sizeof nonce);
    sodium_bin2hex(session_id + 6, sizeof session_id - 6, nonce, sizeof nonce);
    sluice_mcp_session *session = NULL;
    if (sluice_mcp_session_new(server, identity, session_id, sink, &session) != SLUICE_OK) {
        pthread_mutex_destroy(&w.lock);
        return sluice_error_fixed(err, SLUICE_E_NOMEM, "out of memory creating the session");
    }
    sluice_status st = read_loop(in_fd, session, &w, max, err);
    /* EOF: let in-flight calls answer (they cannot ask the client anything any more). */
    sluice_mcp_session_drain(session);
    sluice_mcp_session_free(session);
    pthread_mutex_destroy(&w.lock);
    return st;
}

sluice_status
sluice_stdio_serve(sluice_mcp_server *server, const sluice_identity *identity, sluice_error *err)
{
    signal(SIGPIPE, SIG_IGN);
    return sluice_stdio_serve_fds(server, identity, NULL, err);
}
