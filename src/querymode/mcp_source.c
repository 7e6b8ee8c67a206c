/*
 * mcp_source.c — a kind = "mcp" source: one read tool of a downstream MCP server, started from
 * the source's `command` over stdio, called once per request set with the parameters as its
 * arguments; its structuredContent (or the JSON text of its first text block) holds the rows at
 * response.path. A minimal client of its own: initialize, notifications/initialized, tools/call,
 * nothing else.
 *
 * Owns: spawning the server (argv from config only, never from a caller), newline-delimited
 * JSON-RPC with a deadline (timeout_seconds for the whole exchange) and a byte cap
 * (max_load_bytes), cancellation within 50 ms, and stopping the child (SIGTERM, then SIGKILL).
 * Does not own: the rows' mapping (http_source.c's sluice_qm_deliver), which arguments
 * (fanout.c). Declared in querymode/mcp_source.h.
 */
#include "querymode/mcp_source.h"

#include "core/buf.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct mcp_conn {
    int fd; /* the child's stdin and stdout */
    pid_t pid;
    int64_t deadline_ms;
    size_t max_bytes;
    size_t read_bytes;
    sluice_buf in; /* bytes read and not yet split into lines */
    atomic_bool *cancelled;
} mcp_conn;

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static sluice_status spawn_server(const sluice_config_source *src, mcp_conn *c, sluice_arena *arena)
{
    /* posix_spawn needs a NULL-terminated argv; the config's list has a count instead */
    char **argv = sluice_arena_calloc(arena, src->command.count + 1, sizeof(*argv));
    if (argv == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < src->command.count; i++)
        argv[i] = (char *)src->command.items[i];
    /* One socket pair for stdin and stdout, written with MSG_NOSIGNAL: a server that exits
     * early cannot raise SIGPIPE in sluice (as the policy command backend does). */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return SLUICE_E_IO;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
    int e = posix_spawnp(&c->pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (e != 0) {
        close(sv[0]);
        errno = e;
        return SLUICE_E_IO;
    }
    c->fd = sv[0];
    return SLUICE_OK;
}

static void stop_server(mcp_conn *c)
{
    close(c->fd);
    kill(c->pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 20; i++) { /* a second, then SIGKILL */
        if (waitpid(c->pid, &status, WNOHANG) == c->pid)
            return;
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
}

static sluice_status send_json(mcp_conn *c, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text == NULL)
        return SLUICE_E_NOMEM;
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

/* One complete line from the child (in arena), waiting up to the deadline. */
static sluice_status read_line(mcp_conn *c, sluice_arena *arena, char **line)
{
    for (;;) {
        char *nl = c->in.len > 0 ? memchr(c->in.data, '\n', c->in.len) : NULL;
        if (nl != NULL) {
            size_t n = (size_t)(nl - c->in.data);
            *line = sluice_arena_strndup(arena, c->in.data, n);
            memmove(c->in.data, nl + 1, c->in.len - n - 1);
            c->in.len -= n + 1;
            return *line != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
        }
        if (c->cancelled != NULL && atomic_load(c->cancelled))
            return SLUICE_E_CANCELLED;
        int64_t left = c->deadline_ms - mono_ms();
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
        c->read_bytes += (size_t)got;
        if (c->read_bytes > c->max_bytes)
            return SLUICE_E_LIMIT;
        sluice_buf_append(&c->in, buf, (size_t)got);
        if (sluice_buf_status(&c->in) != SLUICE_OK)
            return SLUICE_E_NOMEM;
    }
}

/* Sends request id and reads until its response (notifications and other ids are skipped). */
static sluice_status
call(mcp_conn *c, json_t *request, json_int_t id, sluice_arena *arena, json_t **result)
{
    *result = NULL;
    sluice_status st = send_json(c, request);
    while (st == SLUICE_OK) {
        char *line = NULL;
        st = read_line(c, arena, &line);
        if (st != SLUICE_OK)
            break;
        json_t *msg = json_loads(line, 0, NULL);
        if (json_integer_value(json_object_get(msg, "id")) == id &&
            json_object_get(msg, "method") == NULL) {
            *result = msg;
            return SLUICE_OK;
        }
        json_decref(msg);
    }
    return st;
}

static sluice_status fail(const sluice_config_source *src,
                          sluice_status st,
                          const char *what,
                          sluice_arena *arena,
                          sluice_error *err)
{
    static const char *const why[] = { [SLUICE_E_TIMEOUT] = "timed out (timeout_seconds)",
                                       [SLUICE_E_LIMIT] = "sent more than max_load_bytes",
                                       [SLUICE_E_IO] = "exited or could not be started" };
    if (st == SLUICE_E_CANCELLED)
        return sluice_error_set(err, arena, st, "the load was cancelled");
    if (st == SLUICE_E_NOMEM)
        return st;
    const char *reason =
        (size_t)st < sizeof(why) / sizeof(why[0]) && why[st] != NULL ? why[st] : "failed";
    return sluice_error_set(err, arena, st == SLUICE_E_LIMIT ? SLUICE_E_LIMIT : SLUICE_E_IO,
                            "source '%s': the MCP server %s during %s", src->name, reason, what);
}

static json_t *arguments(const sluice_qm_fetch *f)
{
    json_t *a = json_object();
    for (size_t i = 0; a != NULL && i < f->param_count; i++)
        json_object_set_new(a, f->params[i].name, json_string(f->params[i].value));
    return a;
}

/* The rows of a tools/call result: structuredContent, else the first text block as JSON. */
static sluice_status rows_of(const sluice_config_source *src,
                             const json_t *res,
                             json_t **doc,
                             sluice_arena *arena,
                             sluice_error *err)
{
    const json_t *r = json_object_get(res, "result");
    if (r == NULL || json_is_true(json_object_get(r, "isError"))) {
        const char *msg =
            json_string_value(json_object_get(json_object_get(res, "error"), "message"));
        const json_t *c0 = json_array_get(json_object_get(r, "content"), 0);
        return sluice_error_set(err, arena, SLUICE_E_IO, "source '%s': tool '%s' failed: %.200s",
                                src->name, src->tool,
                                msg != NULL ? msg
                                : json_string_value(json_object_get(c0, "text")) != NULL
                                    ? json_string_value(json_object_get(c0, "text"))
                                    : "no message");
    }
    const json_t *sc = json_object_get(r, "structuredContent");
    if (sc != NULL) {
        *doc = json_incref((json_t *)sc);
        return SLUICE_OK;
    }
    const char *text = json_string_value(
        json_object_get(json_array_get(json_object_get(r, "content"), 0), "text"));
    json_error_t je;
    *doc = text != NULL ? json_loads(text, 0, &je) : NULL;
    if (*doc == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "source '%s': tool '%s' returned neither structuredContent nor "
                                "JSON text",
                                src->name, src->tool);
    return SLUICE_OK;
}

static sluice_status handshake(mcp_conn *c, sluice_arena *arena)
{
    json_t *res = NULL;
    sluice_status st =
        call(c,
             json_pack("{s:s, s:i, s:s, s:{s:s, s:{}, s:{s:s, s:s}}}", "jsonrpc", "2.0", "id", 1,
                       "method", "initialize", "params", "protocolVersion", "2025-06-18",
                       "capabilities", "clientInfo", "name", "sluice-query-mode", "version", "1"),
             1, arena, &res);
    json_decref(res);
    if (st == SLUICE_OK)
        st = send_json(
            c, json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized"));
    return st;
}

sluice_status sluice_qm_mcp_fetch(sluice_qm_fetch *f, sluice_arena *arena, sluice_error *err)
{
    const sluice_config_source *src = f->source;
    mcp_conn c = { .deadline_ms = mono_ms() + src->timeout_seconds * 1000,
                   .max_bytes = f->max_bytes - f->bytes,
                   .cancelled = f->cancelled };
    sluice_buf_init(&c.in, arena, 0);
    if (spawn_server(src, &c, arena) != SLUICE_OK)
        return sluice_error_set(err, arena, SLUICE_E_IO,
                                "source '%s': cannot start the MCP server %s: %s", src->name,
                                src->command.items[0], strerror(errno));
    sluice_status st = handshake(&c, arena);
    if (st != SLUICE_OK) {
        stop_server(&c);
        return fail(src, st, "initialize", arena, err);
    }
    json_t *res = NULL;
    st = call(&c,
              json_pack("{s:s, s:i, s:s, s:{s:s, s:o}}", "jsonrpc", "2.0", "id", 2, "method",
                        "tools/call", "params", "name", src->tool, "arguments", arguments(f)),
              2, arena, &res);
    stop_server(&c);
    f->bytes += c.read_bytes;
    f->pages++;
    if (st != SLUICE_OK)
        return fail(src, st, "tools/call", arena, err);
    json_t *doc = NULL;
    st = rows_of(src, res, &doc, arena, err);
    json_decref(res);
    const json_t *items = st == SLUICE_OK ? sluice_qm_json_path(doc, src->response.path) : NULL;
    if (st == SLUICE_OK && !json_is_array(items))
        st = sluice_error_set(err, arena, SLUICE_E_INVALID,
                              "source '%s': tool '%s' result has no rows array at "
                              "response.path '%s'",
                              src->name, src->tool, src->response.path);
    if (st == SLUICE_OK)
        st = sluice_qm_deliver(f, items, arena, err);
    if (st == SLUICE_E_LIMIT) {
        f->truncated = true;
        f->truncated_by = "max_load_rows";
        st = SLUICE_OK;
    }
    json_decref(doc);
    if (f->on_page != NULL)
        f->on_page(f->ctx, f->pages, f->rows);
    return st;
}
