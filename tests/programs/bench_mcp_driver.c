/*
 * bench_mcp_driver.c — the MCP round-trip benchmark client (test-only program, bench/mcp/run.sh).
 *
 * Owns: initialize + notifications/initialized, a warm-up, then N sequential tools/call round
 * trips against one server over stdio (a child process on pipes) or Streamable HTTP (one keep-alive
 * connection, a plain HTTP/1.1 client), timing each call; prints one JSON object with the
 * throughput and latency percentiles. The same driver measures sluice and the TypeScript SDK
 * server, so the client cost is identical on both sides and small (C, no per-call allocation
 * beyond parsing the response).
 * It also reports its own CPU time per call (getrusage, timed phase only) and the server's
 * (all its threads' /proc schedstat; the stdio child, or --server-pid), and it can be the
 * floor itself: --serve-echo (stdio) and --serve-echo-http PORT answer every request with a
 * canned result without parsing JSON, so a run against them measures the driver plus the pipe
 * or loopback TCP and nothing else. run.sh uses both to say whether the driver is the limit.
 * Does not own: starting HTTP servers, comparing results (run.sh), or judging any number.
 *
 *   bench_mcp_driver [--calls N] [--warmup W] [--tool NAME] [--args JSON] [--label L]
 *                    [--server-pid PID] (--http URL | --stdio -- CMD [ARGS...])
 *   bench_mcp_driver --serve-echo                 (a canned stdio server, until EOF)
 *   bench_mcp_driver --serve-echo-http PORT       (a canned HTTP server on 127.0.0.1:PORT)
 * Exit 0 when every call got a non-error result, 1 otherwise (with the reason on stderr).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DRIVER_MAX_RESPONSE (8u * 1024u * 1024u)
#define DRIVER_MAX_REQUEST  (64u * 1024u)
#define DRIVER_PROTOCOL     "2025-11-25"

typedef struct growbuf {
    char *data;
    size_t len;
    size_t cap;
} growbuf;

/* Appends len bytes (keeps a NUL after them); false past DRIVER_MAX_RESPONSE or on ENOMEM. */
static bool growbuf_add(growbuf *b, const char *data, size_t len)
{
    if (len > DRIVER_MAX_RESPONSE - b->len) {
        return false;
    }
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1) {
            cap *= 2;
        }
        char *p = realloc(b->data, cap);
        if (!p) {
            return false;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return true;
}

static void growbuf_consume(growbuf *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    if (b->data) {
        b->data[b->len] = '\0';
    }
}

typedef struct options {
    long calls;
    long warmup;
    const char *tool;
    const char *args_json;
    const char *label;
    const char *url;
    long server_pid; /* whose CPU to report; stdio: the child */
    char **argv;     /* stdio command */
} options;

/* A verified response with its id cut out: a later response that is the same bytes around
 * its own id is the same success, so it needs no JSON parse (which was half the driver's CPU
 * per call and would otherwise make the driver the limit). Learnt per connection from the first
 * call's response, which jansson verified. */
typedef struct shape {
    char *prefix, *suffix;
    size_t prefix_len, suffix_len;
    bool set;
} shape;

typedef struct conn {
    shape sh;
    char *last; /* the text of the last response parsed for its id (to learn the shape) */
    size_t last_len;
    /* stdio */
    pid_t pid;
    int to_child;
    int from_child;
    growbuf in;
    /* http */
    int sock; /* one keep-alive connection; -1 until connected */
    struct sockaddr_in addr;
    char host[128]; /* the Host header */
    char path[256];
    bool with_session; /* after initialize: send the session id and protocol version */
    growbuf body;
    char session_header[256];
    char content_type[128];
} conn;

/* CPU time (user + system) this process has used, in nanoseconds. */
static uint64_t cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* CPU time all threads of process pid have used so far (the first field of each
 * /proc/PID/task/TID/schedstat, in nanoseconds); 0 when unreadable (not Linux, gone). */
static uint64_t process_cpu_ns(long pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/task", pid);
    DIR *d = pid > 0 ? opendir(dir) : NULL;
    uint64_t sum = 0;
    for (struct dirent *e = d ? readdir(d) : NULL; e != NULL; e = readdir(d)) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s/schedstat", dir, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        unsigned long long ns = 0;
        if (f != NULL && fscanf(f, "%llu", &ns) == 1) {
            sum += ns;
        }
        if (f != NULL) {
            fclose(f);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return sum;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* True when a response is a success (no JSON-RPC error, no isError result); *why says what
 * was wrong otherwise. */
static bool response_ok(json_t *msg, const char **why)
{
    json_t *result = json_object_get(msg, "result");
    if (json_object_get(msg, "error")) {
        *why = "JSON-RPC error response";
        return false;
    }
    if (!json_is_object(result)) {
        *why = "response without a result object";
        return false;
    }
    if (json_is_true(json_object_get(result, "isError"))) {
        *why = "tool result with isError:true";
        return false;
    }
    return true;
}

/* Whether msg answers request id (a response: has id, no method). */
static bool is_response_to(json_t *msg, long id)
{
    json_t *jid = json_object_get(msg, "id");
    return json_is_integer(jid) && json_integer_value(jid) == id && !json_object_get(msg, "method");
}

/* Whether text is the learnt shape around id. */
static bool shape_match(const shape *sh, const char *text, size_t len, long id)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%ld", id);
    return sh->set && len == sh->prefix_len + (size_t)n + sh->suffix_len &&
           memcmp(text, sh->prefix, sh->prefix_len) == 0 &&
           memcmp(text + sh->prefix_len, digits, (size_t)n) == 0 &&
           memcmp(text + sh->prefix_len + (size_t)n, sh->suffix, sh->suffix_len) == 0;
}

/* Learns the shape from a verified response to id, when "id":<id> occurs in it exactly once. */
static void shape_learn(shape *sh, const char *text, size_t len, long id)
{
    char key[40];
    int n = snprintf(key, sizeof key, "\"id\":%ld", id);
    const char *at = NULL;
    for (size_t i = 0; i + (size_t)n <= len; i++) {
        if (memcmp(text + i, key, (size_t)n) == 0 &&
            (i + (size_t)n == len || text[i + (size_t)n] < '0' || text[i + (size_t)n] > '9')) {
            if (at != NULL)
                return; /* twice: not a safe template */
            at = text + i;
        }
    }
    if (at == NULL)
        return;
    size_t digits_at = (size_t)(at - text) + 5, digits = (size_t)n - 5;
    sh->prefix_len = digits_at;
    sh->suffix_len = len - digits_at - digits;
    sh->prefix = malloc(sh->prefix_len + 1);
    sh->suffix = malloc(sh->suffix_len + 1);
    if (sh->prefix == NULL || sh->suffix == NULL)
        return;
    memcpy(sh->prefix, text, sh->prefix_len);
    memcpy(sh->suffix, text + digits_at + digits, sh->suffix_len);
    sh->set = true;
}

/* A result that response_ok accepts, standing for a response that matched the shape. */
static json_t *matched_ok(void)
{
    return json_pack("{s:{}}", "result");
}

/* The response to id in text (a new reference), or NULL when text is something else. */
static json_t *check_text(conn *c, const char *text, size_t len, long id)
{
    if (shape_match(&c->sh, text, len, id))
        return matched_ok();
    json_t *msg = json_loadb(text, len, 0, NULL);
    if (msg && is_response_to(msg, id)) {
        char *copy = realloc(c->last, len + 1);
        if (copy != NULL) {
            memcpy(copy, text, len);
            c->last = copy;
            c->last_len = len;
        }
        return msg;
    }
    json_decref(msg);
    return NULL;
}

/* ---- stdio ---------------------------------------------------------------------------------- */

static bool stdio_start(conn *c, char **argv)
{
    int in_pipe[2], out_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) {
        perror("pipe");
        return false;
    }
    c->pid = fork();
    if (c->pid < 0) {
        perror("fork");
        return false;
    }
    if (c->pid == 0) {
        dup2(in_pipe[0], STDIN_FILENO);
        dup2(out_pipe[1], STDOUT_FILENO);
        close(in_pipe[0]);
        close(in_pipe[1]);
        close(out_pipe[0]);
        close(out_pipe[1]);
        execvp(argv[0], argv);
        perror("execvp");
        _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    c->to_child = in_pipe[1];
    c->from_child = out_pipe[0];
    return true;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Reads lines until the response to id; skips notifications and anything else. */
static json_t *stdio_await(conn *c, long id)
{
    for (;;) {
        char *nl = c->in.len ? memchr(c->in.data, '\n', c->in.len) : NULL;
        if (nl) {
            size_t line_len = (size_t)(nl - c->in.data);
            json_t *msg = check_text(c, c->in.data, line_len, id);
            growbuf_consume(&c->in, line_len + 1);
            if (msg) {
                return msg;
            }
            continue;
        }
        char chunk[65536];
        ssize_t n = read(c->from_child, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0 || !growbuf_add(&c->in, chunk, (size_t)n)) {
            fprintf(stderr, "bench_mcp_driver: server closed stdout before answering id %ld\n", id);
            return NULL;
        }
    }
}

static json_t *stdio_roundtrip(conn *c, const char *frame, size_t len, long id)
{
    if (!write_all(c->to_child, frame, len) || !write_all(c->to_child, "\n", 1)) {
        fprintf(stderr, "bench_mcp_driver: cannot write to the server's stdin\n");
        return NULL;
    }
    return id >= 0 ? stdio_await(c, id) : NULL;
}

static void stdio_stop(conn *c)
{
    close(c->to_child);
    close(c->from_child);
    int status = 0;
    waitpid(c->pid, &status, 0);
    free(c->in.data);
}

/* ---- http ----------------------------------------------------------------------------------- */

/* Copies header value into dst when the header line starts with name (case-insensitive). */
static void take_header(const char *line, size_t len, const char *name, char *dst, size_t cap)
{
    size_t nlen = strlen(name);
    if (len <= nlen || strncasecmp(line, name, nlen) != 0) {
        return;
    }
    const char *v = line + nlen;
    size_t vlen = len - nlen;
    while (vlen > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        vlen--;
    }
    while (vlen > 0 && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' ')) {
        vlen--;
    }
    if (vlen < cap) {
        memcpy(dst, v, vlen);
        dst[vlen] = '\0';
    }
}

/* A plain HTTP/1.1 client on one keep-alive socket: libcurl cost 14 us of CPU per call, as much
 * as the sluice server itself, which made the driver the limit. It speaks what the two servers
 * answer: Content-Length or chunked bodies (SSE streams are chunked), or a body up to the close. */

/* Takes "http://HOST:PORT/PATH" (an IPv4 literal or localhost). */
static bool http_start(conn *c, const char *url)
{
    const char *p = strncmp(url, "http://", 7) == 0 ? url + 7 : NULL;
    const char *colon = p ? strchr(p, ':') : NULL;
    const char *slash = colon ? strchr(colon, '/') : NULL;
    if (!slash || (size_t)(slash - p) >= sizeof c->host || strlen(slash) >= sizeof c->path) {
        fprintf(stderr, "bench_mcp_driver: --http wants http://HOST:PORT/PATH, got %s\n", url);
        return false;
    }
    memcpy(c->host, p, (size_t)(slash - p));
    c->host[slash - p] = '\0';
    snprintf(c->path, sizeof c->path, "%s", slash);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
    c->addr.sin_family = AF_INET;
    c->addr.sin_port = htons((uint16_t)strtoul(colon + 1, NULL, 10));
    if (inet_pton(AF_INET, strcmp(name, "localhost") == 0 ? "127.0.0.1" : name,
                  &c->addr.sin_addr) != 1) {
        fprintf(stderr, "bench_mcp_driver: %s is not an IPv4 literal\n", name);
        return false;
    }
    c->sock = -1;
    return true;
}

static bool http_connect(conn *c)
{
    int one = 1;
    c->sock = socket(AF_INET, SOCK_STREAM, 0);
    if (c->sock < 0 || connect(c->sock, (struct sockaddr *)&c->addr, sizeof c->addr) != 0) {
        perror("bench_mcp_driver: connect");
        return false;
    }
    setsockopt(c->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->in.len = 0;
    return true;
}

static void http_disconnect(conn *c)
{
    if (c->sock >= 0) {
        close(c->sock);
    }
    c->sock = -1;
}

/* Reads more bytes into c->in; false at EOF or on an error. */
static bool http_fill(conn *c)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(c->sock, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        return n > 0 && growbuf_add(&c->in, chunk, (size_t)n);
    }
}

/* Moves n bytes from the front of c->in to the body, reading as needed. */
static bool http_take_body(conn *c, size_t n)
{
    while (c->in.len < n) {
        if (!http_fill(c)) {
            return false;
        }
    }
    bool ok = growbuf_add(&c->body, c->in.data, n);
    growbuf_consume(&c->in, n);
    return ok;
}

/* The offset just past the next CRLF in c->in at or after from, reading as needed; 0 at EOF. */
static size_t http_line_end(conn *c, size_t from)
{
    for (;;) {
        char *crlf =
            c->in.len > from ? memmem(c->in.data + from, c->in.len - from, "\r\n", 2) : NULL;
        if (crlf) {
            return (size_t)(crlf - c->in.data) + 2;
        }
        if (!http_fill(c)) {
            return 0;
        }
    }
}

static bool http_read_chunked(conn *c)
{
    for (;;) {
        size_t end = http_line_end(c, 0);
        if (end == 0) {
            return false;
        }
        size_t size = strtoul(c->in.data, NULL, 16);
        growbuf_consume(&c->in, end);
        if (size == 0) { /* no trailers from these servers: just the final CRLF */
            size_t last = http_line_end(c, 0);
            growbuf_consume(&c->in, last);
            return last != 0;
        }
        if (!http_take_body(c, size) || http_line_end(c, 0) != 2) {
            return false;
        }
        growbuf_consume(&c->in, 2);
    }
}

/* Reads one response: status, the headers we use, the whole body into c->body. */
static bool http_read_response(conn *c, long *status)
{
    size_t head_end = 0;
    for (size_t at = 0; head_end == 0;) {
        size_t end = http_line_end(c, at);
        if (end == 0) {
            return false;
        }
        if (end == at + 2) {
            head_end = end; /* the empty line */
        }
        at = end;
    }
    *status = strtol(c->in.data + 9, NULL, 10); /* "HTTP/1.1 200 ..." */
    char length[32] = "", encoding[32] = "", connection[32] = "", sid[200] = "";
    c->content_type[0] = '\0';
    for (const char *line = c->in.data; line < c->in.data + head_end;) {
        const char *eol = memmem(line, (size_t)(c->in.data + head_end - line), "\r\n", 2);
        size_t len = (size_t)(eol - line);
        take_header(line, len, "content-length:", length, sizeof length);
        take_header(line, len, "transfer-encoding:", encoding, sizeof encoding);
        take_header(line, len, "connection:", connection, sizeof connection);
        take_header(line, len, "content-type:", c->content_type, sizeof c->content_type);
        take_header(line, len, "mcp-session-id:", sid, sizeof sid);
        line = eol + 2;
    }
    if (sid[0]) {
        snprintf(c->session_header, sizeof c->session_header, "Mcp-Session-Id: %s", sid);
    }
    growbuf_consume(&c->in, head_end);
    bool ok, closing = strcasecmp(connection, "close") == 0;
    if (strcasecmp(encoding, "chunked") == 0) {
        ok = http_read_chunked(c);
    } else if (length[0] || *status == 204 || *status == 304) {
        ok = http_take_body(c, strtoul(length, NULL, 10));
    } else { /* neither: the body runs to the close */
        while (http_fill(c)) {
        }
        ok = http_take_body(c, c->in.len);
        closing = true;
    }
    if (!ok || closing) {
        http_disconnect(c);
    }
    return ok;
}

/* Sends one request (one write) and reads its response into c->body. */
static bool http_exchange(conn *c, const char *method, const char *frame, size_t len, long *status)
{
    static char head[DRIVER_MAX_REQUEST + 1024];
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\n%s%s%s"
                     "Content-Length: %zu\r\n\r\n",
                     method, c->path, c->host, c->with_session ? c->session_header : "",
                     c->with_session && c->session_header[0] ? "\r\n" : "",
                     c->with_session ? "MCP-Protocol-Version: " DRIVER_PROTOCOL "\r\n" : "", len);
    if (n < 0 || (size_t)n + len > sizeof head) {
        return false;
    }
    memcpy(head + n, frame, len);
    c->body.len = 0;
    if (c->body.data) {
        c->body.data[0] = '\0';
    }
    if (c->sock < 0 && !http_connect(c)) {
        return false;
    }
    if (!write_all(c->sock, head, (size_t)n + len) || !http_read_response(c, status)) {
        fprintf(stderr, "bench_mcp_driver: the HTTP exchange failed\n");
        http_disconnect(c);
        return false;
    }
    return growbuf_add(&c->body, "", 0);
}

/* Finds the response to id in an SSE body (events of "data:" lines) or a JSON body. */
static json_t *http_find_response(conn *c, long id)
{
    if (strncasecmp(c->content_type, "text/event-stream", 17) != 0) {
        return check_text(c, c->body.data, c->body.len, id);
    }
    const char *p = c->body.data;
    const char *end = p + c->body.len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
        size_t skip = len > 6 && p[5] == ' ' ? 6 : 5; /* "data: " or "data:" */
        if (len > 5 && memcmp(p, "data:", 5) == 0) {
            json_t *msg = check_text(c, p + skip, len - skip, id);
            if (msg) {
                return msg;
            }
        }
        p += len + 1;
    }
    return NULL;
}

static json_t *http_roundtrip(conn *c, const char *frame, size_t len, long id)
{
    long status = 0;
    if (!http_exchange(c, "POST", frame, len, &status)) {
        return NULL;
    }
    if (id < 0) {
        if (status != 202 && status != 200) {
            fprintf(stderr, "bench_mcp_driver: notification answered HTTP %ld\n", status);
        }
        return NULL;
    }
    json_t *msg = status == 200 ? http_find_response(c, id) : NULL;
    if (!msg) {
        fprintf(stderr, "bench_mcp_driver: HTTP %ld without the response to id %ld: %.300s\n",
                status, id, c->body.data ? c->body.data : "");
    }
    return msg;
}

static void http_stop(conn *c)
{
    if (c->session_header[0] && c->sock >= 0) {
        /* End the session politely; the status does not matter to the measurement. */
        long status = 0;
        http_exchange(c, "DELETE", "", 0, &status);
    }
    http_disconnect(c);
    free(c->in.data);
    free(c->body.data);
}

/* ---- the run -------------------------------------------------------------------------------- */

static json_t *roundtrip(conn *c, const options *o, const char *frame, size_t len, long id)
{
    return o->url ? http_roundtrip(c, frame, len, id) : stdio_roundtrip(c, frame, len, id);
}

static bool initialize(conn *c, const options *o)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"" DRIVER_PROTOCOL "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench_mcp_driver\","
        "\"version\":\"1.0.0\"}}}";
    static const char initialized[] =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    json_t *resp = roundtrip(c, o, init, sizeof init - 1, 0);
    const char *why = "no response";
    bool ok = resp && response_ok(resp, &why);
    json_decref(resp);
    if (!ok) {
        fprintf(stderr, "bench_mcp_driver: initialize failed: %s\n", why);
        return false;
    }
    c->with_session = true; /* HTTP: every later request carries the session id and version */
    roundtrip(c, o, initialized, sizeof initialized - 1, -1);
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v (n > 0), in microseconds. */
static double pct_us(const uint64_t *v, size_t n, double q)
{
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (rank < 1) {
        rank = 1;
    }
    if (rank > n) {
        rank = n;
    }
    return (double)v[rank - 1] / 1000.0;
}

static bool
run_calls(conn *c, const options *o, const char *args, long first_id, long count, uint64_t *lat)
{
    char frame[DRIVER_MAX_REQUEST];
    for (long i = 0; i < count; i++) {
        long id = first_id + i;
        int n = snprintf(frame, sizeof frame,
                         "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"%s\",\"arguments\":%s}}",
                         id, o->tool, args);
        if (n < 0 || (size_t)n >= sizeof frame) {
            fprintf(stderr, "bench_mcp_driver: request too large\n");
            return false;
        }
        uint64_t t0 = now_ns();
        json_t *resp = roundtrip(c, o, frame, (size_t)n, id);
        uint64_t t1 = now_ns();
        const char *why = "no response";
        bool ok = resp && response_ok(resp, &why);
        json_decref(resp);
        if (!ok) {
            fprintf(stderr, "bench_mcp_driver: call %ld failed: %s\n", id, why);
            return false;
        }
        if (!c->sh.set && c->last != NULL) {
            shape_learn(&c->sh, c->last, c->last_len, id);
        }
        if (lat) {
            lat[i] = t1 - t0;
        }
    }
    return true;
}

/* CPU used in the timed phase, by this driver and by the server (0: unknown). */
typedef struct cpu_use {
    uint64_t driver_ns, server_ns;
} cpu_use;

static void
print_result(const options *o, const uint64_t *lat, size_t n, uint64_t total_ns, cpu_use cpu)
{
    double secs = (double)total_ns / 1e9;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += lat[i];
    }
    printf("{\"label\":\"%s\",\"transport\":\"%s\",\"tool\":\"%s\",\"calls\":%zu,\"warmup\":%ld,"
           "\"seconds\":%.6f,\"calls_per_second\":%.1f,\"mean_us\":%.1f,\"p50_us\":%.1f,"
           "\"p90_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"driver_cpu_us_per_call\":%.2f,"
           "\"driver_cpu_share\":%.3f,\"server_cpu_us_per_call\":%.2f}\n",
           o->label, o->url ? "http" : "stdio", o->tool, n, o->warmup, secs,
           secs > 0 ? (double)n / secs : 0.0, (double)sum / (double)n / 1000.0,
           pct_us(lat, n, 0.50), pct_us(lat, n, 0.90), pct_us(lat, n, 0.99),
           (double)lat[n - 1] / 1000.0, (double)cpu.driver_ns / (double)n / 1000.0,
           total_ns > 0 ? (double)cpu.driver_ns / (double)total_ns : 0.0,
           (double)cpu.server_ns / (double)n / 1000.0);
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_mcp_driver [--calls N] [--warmup W] [--tool NAME] [--args JSON] "
                    "[--label L] (--http URL | --stdio -- CMD [ARGS...])\n");
    return 2;
}

static bool parse_count(const char *s, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || v < 0 || v > 100000000) {
        return false;
    }
    *out = v;
    return true;
}

/* One "--name value" pair; false for an unknown name or a bad value. */
static bool set_option(options *o, const char *name, const char *v)
{
    if (strcmp(name, "--calls") == 0) {
        return parse_count(v, &o->calls) && o->calls > 0;
    }
    if (strcmp(name, "--warmup") == 0) {
        return parse_count(v, &o->warmup);
    }
    if (strcmp(name, "--server-pid") == 0) {
        return parse_count(v, &o->server_pid);
    }
    const char **slot = strcmp(name, "--tool") == 0    ? &o->tool
                        : strcmp(name, "--args") == 0  ? &o->args_json
                        : strcmp(name, "--label") == 0 ? &o->label
                        : strcmp(name, "--http") == 0  ? &o->url
                                                       : NULL;
    if (slot) {
        *slot = v;
    }
    return slot != NULL;
}

static bool parse_options(int argc, char **argv, options *o)
{
    *o = (options){ .calls = 10000,
                    .warmup = 1000,
                    .tool = "echo",
                    .args_json = "{\"message\":\"hello\"}",
                    .label = "server" };
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--stdio") == 0) {
            int cmd = v && strcmp(v, "--") == 0 ? i + 2 : i + 1;
            o->argv = cmd < argc ? &argv[cmd] : NULL;
            return o->argv != NULL && !o->url;
        }
        if (!v || !set_option(o, a, v)) {
            return false;
        }
        i += 2;
    }
    return o->url != NULL;
}

/* ---- the floor: canned servers that parse nothing ------------------------------------------- */

/* The id of a request line ("id":N or "id":"..." copied verbatim), or false for a notification. */
static bool canned_id(const char *line, size_t len, char *id, size_t cap)
{
    const char *p = NULL;
    for (size_t i = 0; i + 5 <= len && p == NULL; i++)
        if (memcmp(line + i, "\"id\":", 5) == 0)
            p = line + i + 5;
    if (p == NULL)
        return false;
    size_t n = 0;
    while (p + n < line + len && p[n] != ',' && p[n] != '}' && n + 1 < cap)
        n++;
    memcpy(id, p, n);
    id[n] = '\0';
    return n > 0;
}

/* The canned answer to request id (also a fine initialize result for this driver). */
static int canned_answer(char *out, size_t cap, const char *id)
{
    return snprintf(out, cap,
                    "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\","
                    "\"text\":\"hello\"}]}}",
                    id);
}

static int serve_echo_stdio(void)
{
    growbuf in = { 0 };
    char chunk[65536], id[64], answer[256];
    for (;;) {
        char *nl = in.len ? memchr(in.data, '\n', in.len) : NULL;
        if (nl) {
            size_t line_len = (size_t)(nl - in.data);
            if (canned_id(in.data, line_len, id, sizeof id)) {
                int n = canned_answer(answer, sizeof answer - 1, id);
                answer[n++] = '\n';
                if (!write_all(STDOUT_FILENO, answer, (size_t)n))
                    return 1;
            }
            growbuf_consume(&in, line_len + 1);
            continue;
        }
        ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !growbuf_add(&in, chunk, (size_t)n))
            break;
    }
    free(in.data);
    return 0;
}

/* Answers the HTTP requests of one keep-alive connection until it closes. */
static void serve_echo_connection(int fd)
{
    growbuf in = { 0 };
    char chunk[65536], id[64], body[256], head[512];
    for (;;) {
        char *end = in.len ? strstr(in.data, "\r\n\r\n") : NULL;
        if (end != NULL) {
            size_t head_len = (size_t)(end - in.data) + 4, body_len = 0;
            const char *cl = strcasestr(in.data, "content-length:");
            if (cl != NULL && cl < end)
                body_len = strtoul(cl + 15, NULL, 10);
            if (in.len >= head_len + body_len) {
                int bn = canned_id(in.data + head_len, body_len, id, sizeof id)
                             ? canned_answer(body, sizeof body, id)
                             : 0;
                int hn =
                    snprintf(head, sizeof head,
                             "HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
                             "Mcp-Session-Id: canned\r\nContent-Length: %d\r\n\r\n%s",
                             bn > 0 || strncmp(in.data, "POST", 4) != 0 ? "200 OK" : "202 Accepted",
                             bn, bn > 0 ? body : "");
                if (!write_all(fd, head, (size_t)hn))
                    break;
                growbuf_consume(&in, head_len + body_len);
                continue;
            }
        }
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !growbuf_add(&in, chunk, (size_t)n))
            break;
    }
    free(in.data);
    close(fd);
}

static int serve_echo_http(const char *port_text)
{
    long port = 0;
    if (!parse_count(port_text, &port) || port < 1 || port > 65535)
        return usage();
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 16) != 0) {
        perror("bench_mcp_driver: listen");
        return 1;
    }
    fprintf(stderr, "bench_mcp_driver: canned HTTP server on 127.0.0.1:%ld\n", port);
    for (;;) { /* one connection at a time: the driver uses one; run.sh kills us when done */
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        serve_echo_connection(fd);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--serve-echo") == 0)
        return serve_echo_stdio();
    if (argc == 3 && strcmp(argv[1], "--serve-echo-http") == 0) {
        signal(SIGPIPE, SIG_IGN);
        return serve_echo_http(argv[2]);
    }
    options o;
    if (!parse_options(argc, argv, &o)) {
        return usage();
    }
    /* Re-serialise the arguments compactly: a stdio frame must be one line. */
    json_t *args = json_loads(o.args_json, 0, NULL);
    char *args_compact = json_is_object(args) ? json_dumps(args, JSON_COMPACT) : NULL;
    json_decref(args);
    if (!args_compact) {
        fprintf(stderr, "bench_mcp_driver: --args must be a JSON object\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    conn c = { .pid = -1, .sock = -1 };
    bool ok = o.url ? http_start(&c, o.url) : stdio_start(&c, o.argv);
    uint64_t *lat = calloc((size_t)o.calls, sizeof *lat);
    uint64_t total = 0;
    cpu_use cpu = { 0, 0 };
    long server = o.server_pid > 0 ? o.server_pid : (long)c.pid;
    ok = ok && lat && initialize(&c, &o);
    ok = ok && run_calls(&c, &o, args_compact, 1, o.warmup, NULL);
    if (ok) {
        uint64_t s0 = process_cpu_ns(server);
        uint64_t t0 = now_ns(), c0 = cpu_ns();
        ok = run_calls(&c, &o, args_compact, 1 + o.warmup, o.calls, lat);
        total = now_ns() - t0;
        cpu.driver_ns = cpu_ns() - c0;
        uint64_t s1 = process_cpu_ns(server);
        cpu.server_ns = s1 > s0 && s0 > 0 ? s1 - s0 : 0;
    }
    if (ok) {
        qsort(lat, (size_t)o.calls, sizeof *lat, cmp_u64);
        print_result(&o, lat, (size_t)o.calls, total, cpu);
    }
    if (o.url) {
        http_stop(&c);
    } else if (c.pid > 0) {
        stdio_stop(&c);
    }
    free(c.sh.prefix);
    free(c.sh.suffix);
    free(c.last);
    free(lat);
    free(args_compact);
    return ok ? 0 : 1;
}
