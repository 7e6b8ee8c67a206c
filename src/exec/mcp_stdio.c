/*
 * mcp_stdio.c — the stdio transport of the MCP client (see mcp_stdio.h).
 *
 * Owns: the child process and its socket pair. One socket pair serves as stdin and stdout and
 * is written with MSG_NOSIGNAL, so a server that exits early cannot raise SIGPIPE in sluice.
 * Does not own: JSON-RPC ids or methods (exec/mcp_client.c).
 */
#include "exec/mcp_stdio.h"

#include "core/clock.h"
#include "core/limits.h"
#include "core/vec.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

sluice_status sluice_mcp_stdio_start(sluice_mcp_stdio *c, const char *const *argv, size_t argc)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (argc == 0) {
        errno = ENOENT;
        return SLUICE_E_IO;
    }
    /* posix_spawn needs a NULL-terminated argv; the config's list has a count instead */
    char **args = calloc(argc + 1, sizeof *args);
    if (args == NULL)
        return SLUICE_E_NOMEM;
    memcpy(args, argv, argc * sizeof *args);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        free(args);
        return SLUICE_E_IO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
    int e = posix_spawnp(&c->pid, args[0], &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(args);
    close(sv[1]);
    if (e != 0) {
        close(sv[0]);
        errno = e;
        return SLUICE_E_IO;
    }
    c->fd = sv[0];
    return SLUICE_OK;
}

void sluice_mcp_stdio_stop(sluice_mcp_stdio *c)
{
    free(c->in);
    c->in = NULL;
    c->in_len = c->in_cap = 0;
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    kill(c->pid, SIGTERM);
    int status = 0;
    for (unsigned i = 0; i < SLUICE_LIMIT_MCP_CLIENT_STOP_MS / 50; i++) {
        if (waitpid(c->pid, &status, WNOHANG) == c->pid)
            return;
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
}

sluice_status sluice_mcp_stdio_send(sluice_mcp_stdio *c, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text == NULL)
        return SLUICE_E_NOMEM;
    if (c->fd < 0) {
        free(text);
        return SLUICE_E_IO;
    }
    size_t n = strlen(text), off = 0;
    text[n++] = '\n'; /* json_dumps's NUL becomes the newline; length tracked */
    while (off < n) {
        ssize_t w = send(c->fd, text + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(text);
            return SLUICE_E_IO;
        }
        off += (size_t)w;
    }
    free(text);
    return SLUICE_OK;
}

/* Moves the first line of c->in into arena; 0 when no complete line is buffered. */
static int take_line(sluice_mcp_stdio *c, sluice_arena *arena, char **line, sluice_status *st)
{
    char *nl = c->in_len > 0 ? memchr(c->in, '\n', c->in_len) : NULL;
    if (nl == NULL)
        return 0;
    size_t n = (size_t)(nl - c->in);
    *line = sluice_arena_strndup(arena, c->in, n);
    memmove(c->in, nl + 1, c->in_len - n - 1);
    c->in_len -= n + 1;
    *st = *line != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    return 1;
}

static sluice_status append(sluice_mcp_stdio *c, const char *data, size_t n)
{
    char *p = sluice_vec_grow_heap(c->in, c->in_len + n, &c->in_cap, 1, 16384);
    if (p == NULL)
        return SLUICE_E_NOMEM;
    c->in = p;
    memcpy(c->in + c->in_len, data, n);
    c->in_len += n;
    return SLUICE_OK;
}

/* One complete line (in arena, without the newline) within b. */
static sluice_status
read_line(sluice_mcp_stdio *c, sluice_mcp_bounds *b, sluice_arena *arena, char **line)
{
    int64_t deadline_ms = b->deadline_ms;
    size_t *budget = &b->budget;
    atomic_bool *cancelled = b->cancelled;
    for (;;) {
        sluice_status st = SLUICE_OK;
        if (take_line(c, arena, line, &st))
            return st;
        if (c->fd < 0)
            return SLUICE_E_IO;
        if (cancelled != NULL && atomic_load(cancelled))
            return SLUICE_E_CANCELLED;
        int64_t left = deadline_ms - sluice_clock_monotonic_ms(NULL);
        if (left <= 0)
            return SLUICE_E_TIMEOUT;
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        int r = poll(&p, 1, left < 50 ? (int)left : 50);
        if (r < 0 && errno != EINTR)
            return SLUICE_E_IO;
        if (r <= 0)
            continue;
        char buf[16384];
        ssize_t got = recv(c->fd, buf, sizeof(buf), 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return SLUICE_E_IO; /* the server exited */
        if ((size_t)got > *budget) {
            *budget = 0;
            return SLUICE_E_LIMIT;
        }
        *budget -= (size_t)got;
        st = append(c, buf, (size_t)got);
        if (st != SLUICE_OK)
            return st;
    }
}

json_t *sluice_mcp_request_message(json_int_t id, const char *method, json_t *params)
{
    return json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", id, "method", method, "params",
                     params != NULL ? params : json_object());
}

bool sluice_mcp_is_response(const json_t *m, json_int_t id)
{
    const json_t *rid = json_object_get(m, "id");
    return json_is_integer(rid) && json_integer_value(rid) == id &&
           json_object_get(m, "method") == NULL;
}

sluice_status sluice_mcp_stdio_request(sluice_mcp_stdio *c,
                                       const char *method,
                                       json_t *params,
                                       sluice_mcp_bounds *b,
                                       sluice_arena *arena,
                                       json_t **response)
{
    *response = NULL;
    json_int_t id = ++c->next_id;
    json_t *msg = sluice_mcp_request_message(id, method, params);
    if (msg == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = sluice_mcp_stdio_send(c, msg);
    while (st == SLUICE_OK) {
        char *line = NULL;
        st = read_line(c, b, arena, &line);
        if (st != SLUICE_OK)
            break;
        json_t *m = json_loads(line, 0, NULL);
        if (sluice_mcp_is_response(m, id)) {
            *response = m;
            return SLUICE_OK;
        }
        json_decref(m);
    }
    return st;
}

const char *sluice_mcp_stdio_rpc_error(const json_t *response)
{
    if (json_is_object(json_object_get(response, "result")))
        return NULL;
    const char *m =
        json_string_value(json_object_get(json_object_get(response, "error"), "message"));
    return m != NULL ? m : "a response without a result";
}

sluice_status sluice_mcp_handshake(const sluice_mcp_transport *t,
                                   const char *client_name,
                                   sluice_mcp_bounds *b,
                                   sluice_arena *arena,
                                   const char **refused)
{
    *refused = NULL;
    json_t *res = NULL;
    sluice_status st = t->request(t->self, "initialize",
                                  json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion",
                                            SLUICE_MCP_CLIENT_PROTOCOL, "capabilities",
                                            "clientInfo", "name", client_name, "version", "1"),
                                  b, arena, &res);
    const char *bad = st == SLUICE_OK ? sluice_mcp_stdio_rpc_error(res) : NULL;
    if (bad != NULL) {
        *refused = sluice_arena_strdup(arena, bad);
        st = *refused != NULL ? SLUICE_E_IO : SLUICE_E_NOMEM;
    }
    json_decref(res);
    if (st == SLUICE_OK)
        st = t->notify(
            t->self,
            json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized"), b);
    return st;
}

static sluice_status stdio_request(void *self,
                                   const char *method,
                                   json_t *params,
                                   sluice_mcp_bounds *b,
                                   sluice_arena *arena,
                                   json_t **response)
{
    return sluice_mcp_stdio_request(self, method, params, b, arena, response);
}

static sluice_status stdio_notify(void *self, json_t *msg, sluice_mcp_bounds *b)
{
    (void)b; /* a line on a socket pair: written at once or the server is gone */
    return sluice_mcp_stdio_send(self, msg);
}

static const char *stdio_detail(void *self)
{
    (void)self;
    return NULL;
}

sluice_mcp_transport sluice_mcp_stdio_transport(sluice_mcp_stdio *c)
{
    return (sluice_mcp_transport){
        .self = c, .request = stdio_request, .notify = stdio_notify, .detail = stdio_detail
    };
}

sluice_status sluice_mcp_stdio_handshake(sluice_mcp_stdio *c,
                                         const char *client_name,
                                         sluice_mcp_bounds *b,
                                         sluice_arena *arena,
                                         const char **refused)
{
    sluice_mcp_transport t = sluice_mcp_stdio_transport(c);
    return sluice_mcp_handshake(&t, client_name, b, arena, refused);
}
