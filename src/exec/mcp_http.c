/*
 * mcp_http.c — the Streamable HTTP transport of the MCP client (see mcp_http.h).
 *
 * Owns: one libcurl handle per server (kept for connection reuse), the session id and the
 * credential header. A response is matched by id exactly as over stdio: the server's
 * notifications and requests in an SSE stream are skipped. The transfer stops as soon as the
 * event carrying the response id has arrived, so a server that keeps the stream open cannot hold
 * the call past its answer.
 * Does not own: JSON-RPC methods or the handshake (exec/mcp_stdio.c sluice_mcp_handshake).
 */
#include "exec/mcp_http.h"

#include "core/clock.h"
#include "core/netguard.h"
#include "exec/http_body.h"
#include "exec/http_credential.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sluice_mcp_http {
    const sluice_config_mcp_server *cfg;
    CURL *curl;
    sluice_netguard_conn guard; /* may the url reach internal addresses; refused this exchange */
    char *auth;                 /* "Authorization: Bearer ..." (malloc, wiped at stop) or NULL */
    char *session;              /* "Mcp-Session-Id: ..." (malloc) once initialize returned one */
    json_int_t next_id;
    char detail[256]; /* the last failure in words; "" when none */
};

/* One exchange in flight: the body, what the headers said, the id awaited. */
typedef struct exchange {
    sluice_mcp_http *h;
    sluice_http_body in;
    bool sse;
    char *session;  /* Mcp-Session-Id of this answer (malloc) */
    json_int_t id;  /* 0: a notification, no answer awaited */
    size_t scanned; /* SSE: bytes already split into events */
    json_t *found;  /* the response, once seen */
    atomic_bool *cancelled;
} exchange;

sluice_status sluice_mcp_http_start(sluice_mcp_http **out,
                                    const sluice_config_mcp_server *cfg,
                                    sluice_arena *err_arena,
                                    sluice_error *err)
{
    *out = NULL;
    char *token = NULL;
    const char *key = sluice_arena_printf(err_arena, "mcp server '%s': token", cfg->name);
    if (key == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st =
        sluice_http_credential_read(key, cfg->token_env, cfg->token_file, &token, err_arena, err);
    if (st != SLUICE_OK)
        return st;
    sluice_mcp_http *h = calloc(1, sizeof *h);
    if (h != NULL && token != NULL) {
        size_t n = strlen(token) + sizeof "Authorization: Bearer ";
        h->auth = malloc(n);
        if (h->auth != NULL)
            snprintf(h->auth, n, "Authorization: Bearer %s", token);
    }
    if (token != NULL) {
        explicit_bzero(token, strlen(token));
        free(token);
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (h != NULL)
        h->curl = curl_easy_init();
    if (h == NULL || h->curl == NULL || (token != NULL && h->auth == NULL)) {
        sluice_mcp_http_stop(h);
        return SLUICE_E_NOMEM;
    }
    h->cfg = cfg;
    h->guard = sluice_netguard_conn_for(cfg->url);
    *out = h;
    return SLUICE_OK;
}

void sluice_mcp_http_stop(sluice_mcp_http *h)
{
    if (h == NULL)
        return;
    if (h->curl != NULL)
        curl_easy_cleanup(h->curl);
    if (h->auth != NULL) {
        explicit_bzero(h->auth, strlen(h->auth));
        free(h->auth);
    }
    free(h->session);
    free(h);
}

/* Whether header line (name: value) is name; *value then points past the colon and blanks. */
static bool header_is(const char *line, size_t n, const char *name, const char **value)
{
    size_t k = strlen(name);
    if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
        return false;
    const char *v = line + k + 1;
    while (v < line + n && (*v == ' ' || *v == '\t'))
        v++;
    *value = v;
    return true;
}

static size_t on_header(char *ptr, size_t size, size_t n, void *user)
{
    exchange *x = user;
    size_t len = size * n;
    size_t end = len;
    while (end > 0 && (ptr[end - 1] == '\r' || ptr[end - 1] == '\n'))
        end--;
    const char *v = NULL;
    if (header_is(ptr, end, "content-type", &v))
        x->sse = strncasecmp(v, "text/event-stream", 17) == 0;
    else if (header_is(ptr, end, "mcp-session-id", &v) && x->session == NULL) {
        size_t vl = (size_t)(ptr + end - v);
        bool ok = vl > 0 && vl <= 256;
        for (size_t i = 0; ok && i < vl; i++)
            ok = v[i] >= 0x21 && v[i] <= 0x7e; /* visible ASCII, as the spec requires */
        x->session = ok ? malloc(vl + sizeof "Mcp-Session-Id: ") : NULL;
        if (x->session != NULL)
            snprintf(x->session, vl + sizeof "Mcp-Session-Id: ", "Mcp-Session-Id: %.*s", (int)vl,
                     v);
    }
    return len;
}

/* Splits the complete SSE events buffered so far; keeps the answer when one carries it. */
static void scan_events(exchange *x)
{
    for (;;) {
        char *start = x->in.data + x->scanned;
        char *end = strstr(start, "\n\n");
        char *crlf = strstr(start, "\r\n\r\n");
        if (crlf != NULL && (end == NULL || crlf < end))
            end = crlf;
        if (end == NULL)
            return;
        size_t sep = end[0] == '\r' ? 4 : 2;
        /* the event's data lines joined by newlines, per the SSE rules */
        json_t *m = NULL;
        size_t cap = (size_t)(end - start) + 1, dl = 0;
        char *data = malloc(cap);
        for (char *line = start; data != NULL && line < end;) {
            char *nl = memchr(line, '\n', (size_t)(end - line));
            char *le = nl != NULL ? nl : end;
            size_t ll = (size_t)(le - line);
            if (ll > 0 && line[ll - 1] == '\r')
                ll--;
            if (ll >= 5 && strncmp(line, "data:", 5) == 0) {
                size_t off = ll > 5 && line[5] == ' ' ? 6 : 5;
                if (dl > 0)
                    data[dl++] = '\n';
                memcpy(data + dl, line + off, ll - off);
                dl += ll - off;
            }
            line = le + 1;
        }
        if (data != NULL && dl > 0)
            m = json_loadb(data, dl, 0, NULL);
        free(data);
        x->scanned = (size_t)(end - x->in.data) + sep;
        if (m != NULL && sluice_mcp_is_response(m, x->id)) {
            x->found = m;
            return;
        }
        json_decref(m);
    }
}

static size_t on_body(char *ptr, size_t size, size_t n, void *user)
{
    exchange *x = user;
    size_t got = sluice_http_body_write(ptr, size, n, &x->in);
    if (got == 0 || !x->sse || x->id == 0)
        return got;
    scan_events(x);
    return x->found != NULL ? 0 : got; /* 0 ends the transfer: the answer is in */
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    exchange *x = user;
    return x->cancelled != NULL && atomic_load(x->cancelled) ? 1 : 0;
}

/* Records the failure's words (the server's URL appended) and returns st. */
__attribute__((format(printf, 3, 4))) static sluice_status
fail(sluice_mcp_http *h, sluice_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(h->detail, sizeof h->detail, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof h->detail)
        snprintf(h->detail + n, sizeof h->detail - (size_t)n, " (%s)", h->cfg->url);
    return st;
}

/* POSTs msg (released) and, when x->id is set, reads the answer into x->found. */
static sluice_status post(sluice_mcp_http *h, json_t *msg, sluice_mcp_bounds *b, exchange *x)
{
    h->detail[0] = '\0';
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    int64_t left = b->deadline_ms - sluice_clock_monotonic_ms(NULL);
    if (text == NULL)
        return SLUICE_E_NOMEM;
    if (left <= 0) {
        free(text);
        return SLUICE_E_TIMEOUT;
    }
    struct curl_slist *hd = NULL, *t = NULL;
    const char *lines[] = { "Content-Type: application/json",
                            "Accept: application/json, text/event-stream",
                            "MCP-Protocol-Version: " SLUICE_MCP_CLIENT_PROTOCOL, h->auth,
                            h->session };
    bool ok = true;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (lines[i] != NULL && ok)
            ok = (t = curl_slist_append(hd, lines[i])) != NULL && (hd = t) != NULL;
    if (!ok) {
        curl_slist_free_all(hd);
        free(text);
        return SLUICE_E_NOMEM;
    }
    x->in.max = b->budget;
    CURL *c = h->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, h->cfg->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    h->guard.refused = false;
    sluice_netguard_conn_install(c, &h->guard); /* no proxy either: none ever sees the token */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hd);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)left);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hd);
    free(text);
    size_t used = x->in.len < b->budget ? x->in.len : b->budget;
    b->budget -= used;
    if (x->found != NULL)
        return SLUICE_OK;
    if (x->in.too_large)
        return fail(h, SLUICE_E_LIMIT, "sent more than its byte limit");
    if (rc == CURLE_ABORTED_BY_CALLBACK)
        return SLUICE_E_CANCELLED;
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return SLUICE_E_TIMEOUT;
    if (rc != CURLE_OK && h->guard.refused)
        return fail(h, SLUICE_E_IO,
                    "resolved to an internal address, and its url does not name one: refused "
                    "(SSRF guard)");
    if (rc != CURLE_OK)
        return fail(h, SLUICE_E_IO, "could not be reached: %s", curl_easy_strerror(rc));
    if (code >= 300) {
        char why[96];
        snprintf(why, sizeof why, "%ld%s", code,
                 code == 401 || code == 403          ? ", check token_env / token_file"
                 : code == 404 && h->session != NULL ? ", the session expired"
                                                     : "");
        return fail(h, SLUICE_E_IO, "answered HTTP %s", why);
    }
    return SLUICE_OK;
}

static sluice_status http_request(void *self,
                                  const char *method,
                                  json_t *params,
                                  sluice_mcp_bounds *b,
                                  sluice_arena *arena,
                                  json_t **response)
{
    (void)arena;
    sluice_mcp_http *h = self;
    *response = NULL;
    exchange x = { .h = h, .id = ++h->next_id, .cancelled = b->cancelled };
    json_t *msg = sluice_mcp_request_message(x.id, method, params);
    if (msg == NULL)
        return SLUICE_E_NOMEM;
    sluice_status st = post(h, msg, b, &x);
    if (st == SLUICE_OK && x.found == NULL && !x.sse && x.in.data != NULL) {
        json_t *m = json_loadb(x.in.data, x.in.len, 0, NULL);
        if (m != NULL && sluice_mcp_is_response(m, x.id))
            x.found = m;
        else
            json_decref(m);
    }
    if (st == SLUICE_OK && x.found == NULL)
        st = fail(h, SLUICE_E_IO, "answered %s without the response",
                  x.sse ? "an event stream" : "a body");
    if (st == SLUICE_OK && strcmp(method, "initialize") == 0 && x.session != NULL) {
        free(h->session);
        h->session = x.session;
        x.session = NULL;
    }
    free(x.session);
    free(x.in.data);
    if (st != SLUICE_OK) {
        json_decref(x.found);
        return st;
    }
    *response = x.found;
    return SLUICE_OK;
}

static sluice_status http_notify(void *self, json_t *msg, sluice_mcp_bounds *b)
{
    sluice_mcp_http *h = self;
    exchange x = { .h = h, .cancelled = b->cancelled };
    sluice_status st = post(h, msg, b, &x);
    free(x.session);
    free(x.in.data);
    return st;
}

static const char *http_detail(void *self)
{
    const sluice_mcp_http *h = self;
    return h->detail[0] != '\0' ? h->detail : NULL;
}

sluice_mcp_transport sluice_mcp_http_transport(sluice_mcp_http *h)
{
    return (sluice_mcp_transport){
        .self = h, .request = http_request, .notify = http_notify, .detail = http_detail
    };
}
