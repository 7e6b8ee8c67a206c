/*
 * openapi_http.c — the OpenAPI backend's HTTP side (see openapi_http.h).
 *
 * Owns: the credential read, the curl handles of a run (each with the SSRF guard at connect
 * time, core/netguard.h), the deadline and the size cap.
 * Does not own: URLs beyond base + path + query (the caller composes the path from a matched
 * template), or what a response means.
 */
#include "exec/openapi_http.h"

#include "core/clock.h"
#include "core/limits.h"
#include "core/netguard.h"
#include "core/vec.h"
#include "exec/http_body.h"
#include "exec/http_credential.h"

#include <ctype.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct sluice_openapi_upstream {
    const char *base;        /* without a trailing '/' */
    const char *header;      /* "Authorization: Bearer ..." or NULL */
    const char *userpwd;     /* basic auth "user:password" or NULL */
    const char *query_param; /* "key=value" encoded, or NULL */
    const char *ca_file;
    size_t max_response;
    sluice_netguard_conn guard; /* copied into each transfer; base URL naming an internal host */
};

typedef struct transfer {
    CURL *easy;
    struct curl_slist *headers;
    char *url, *body_out;
    sluice_http_body in;
    bool done;
    sluice_netguard_conn guard;
    CURLcode rc;
    long status;
} transfer;

struct sluice_openapi_run {
    const sluice_openapi_upstream *up;
    CURLM *multi;
    int64_t deadline_ns;
    const char *timeout_setting;
    const char *caller_header; /* the caller assertion's header line, or NULL */
    transfer **t;
    size_t count, cap;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* --- open ---------------------------------------------------------------------------------- */

static sluice_status credential(sluice_arena *arena,
                                const sluice_config_database *db,
                                sluice_openapi_upstream *up,
                                sluice_error *err)
{
    char *value = NULL;
    sluice_status st = sluice_http_credential_read("[database] auth_token", db->auth_token_env,
                                                   db->auth_token_file, &value, arena, err);
    if (st != SLUICE_OK || value == NULL)
        return st;
    const char *scheme = db->auth_scheme != NULL ? db->auth_scheme : "Bearer";
    if (db->auth_query_param != NULL) {
        char *k = curl_easy_escape(NULL, db->auth_query_param, 0);
        char *v = curl_easy_escape(NULL, value, 0);
        up->query_param = k != NULL && v != NULL ? sluice_arena_printf(arena, "%s=%s", k, v) : NULL;
        curl_free(k);
        curl_free(v);
    } else if (strcasecmp(scheme, "Basic") == 0) {
        up->userpwd = sluice_arena_strdup(arena, value);
    } else {
        up->header = sluice_http_credential_header(arena, db, value);
    }
    explicit_bzero(value, strlen(value));
    free(value);
    return up->header != NULL || up->userpwd != NULL || up->query_param != NULL
               ? SLUICE_OK
               : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}

sluice_status sluice_openapi_upstream_open(sluice_arena *arena,
                                           const sluice_config_database *db,
                                           const char *spec_server_url,
                                           sluice_openapi_upstream **out,
                                           sluice_error *err)
{
    pthread_once(&curl_once, curl_init_once);
    const char *base = db->endpoint != NULL ? db->endpoint : spec_server_url;
    if (base == NULL || (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0))
        return sluice_error_set(err, arena, SLUICE_E_CONFIG,
                                "the OpenAPI backend needs an http(s) base URL: set [database] "
                                "endpoint, or give the spec a servers entry (got %s)",
                                base != NULL ? base : "none");
    sluice_openapi_upstream *up = sluice_arena_calloc(arena, 1, sizeof *up);
    char *b = up != NULL ? sluice_arena_strdup(arena, base) : NULL;
    if (b == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    size_t n = strlen(b);
    while (n > 0 && b[n - 1] == '/')
        b[--n] = '\0';
    up->base = b;
    up->ca_file = db->ca_file;
    up->max_response = db->max_response_bytes > 0 ? (size_t)db->max_response_bytes
                                                  : SLUICE_LIMIT_GRAPHQL_RESPONSE_BYTES;
    up->guard = sluice_netguard_conn_for(b);
    sluice_status st = credential(arena, db, up, err);
    if (st == SLUICE_OK)
        *out = up;
    return st;
}

const char *sluice_openapi_upstream_base(const sluice_openapi_upstream *up)
{
    return up->base;
}

/* --- a run --------------------------------------------------------------------------------- */

sluice_openapi_run *sluice_openapi_run_new(const sluice_openapi_upstream *up,
                                           int64_t deadline_ns,
                                           const char *timeout_setting,
                                           const char *caller_header)
{
    sluice_openapi_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->up = up;
    r->caller_header = caller_header;
    r->deadline_ns = deadline_ns;
    r->timeout_setting = timeout_setting != NULL ? timeout_setting : "timeout";
    r->multi = curl_multi_init();
    if (r->multi == NULL) {
        free(r);
        return NULL;
    }
    curl_multi_setopt(r->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                      (long)SLUICE_LIMIT_OPENAPI_IN_FLIGHT);
    return r;
}

static void transfer_free(CURLM *multi, transfer *t)
{
    if (t == NULL)
        return;
    if (t->easy != NULL) {
        if (!t->done)
            curl_multi_remove_handle(multi, t->easy);
        curl_easy_cleanup(t->easy);
    }
    curl_slist_free_all(t->headers);
    free(t->url);
    free(t->body_out);
    free(t->in.data);
    free(t);
}

void sluice_openapi_run_free(sluice_openapi_run *run)
{
    if (run == NULL)
        return;
    for (size_t i = 0; i < run->count; i++)
        transfer_free(run->multi, run->t[i]);
    free(run->t);
    curl_multi_cleanup(run->multi);
    free(run);
}

static long remaining_ms(const sluice_openapi_run *run)
{
    if (run->deadline_ns == 0)
        return 0;
    int64_t left = (run->deadline_ns - sluice_clock_monotonic_ns(NULL)) / 1000000;
    return left > 0 ? (long)left : -1;
}

static transfer *transfer_new(sluice_openapi_run *run, const sluice_openapi_request *req)
{
    transfer *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->guard = run->up->guard;
    t->in.max = run->up->max_response;
    const char *q1 = req->query != NULL && req->query[0] != '\0' ? req->query : NULL;
    const char *q2 = run->up->query_param;
    size_t n = strlen(run->up->base) + strlen(req->path) + (q1 ? strlen(q1) : 0) +
               (q2 ? strlen(q2) : 0) + 4;
    t->url = malloc(n);
    t->easy = curl_easy_init();
    if (t->url == NULL || t->easy == NULL) {
        transfer_free(NULL, t);
        return NULL;
    }
    snprintf(t->url, n, "%s%s%s%s%s%s", run->up->base, req->path, q1 || q2 ? "?" : "", q1 ? q1 : "",
             q1 && q2 ? "&" : "", q2 ? q2 : "");
    bool ok = true;
    t->headers = curl_slist_append(NULL, "Accept: application/json");
    ok = t->headers != NULL;
    if (ok && req->body != NULL)
        ok = curl_slist_append(t->headers, "Content-Type: application/json") != NULL;
    if (ok && run->up->header != NULL)
        ok = curl_slist_append(t->headers, run->up->header) != NULL;
    if (ok && run->caller_header != NULL)
        ok = curl_slist_append(t->headers, run->caller_header) != NULL;
    if (ok && req->idempotency_key != NULL) {
        char h[160];
        snprintf(h, sizeof h, "Idempotency-Key: %s", req->idempotency_key);
        ok = curl_slist_append(t->headers, h) != NULL;
    }
    if (ok && req->body != NULL)
        ok = (t->body_out = strdup(req->body)) != NULL;
    if (!ok) {
        transfer_free(NULL, t);
        return NULL;
    }
    return t;
}

static void harden(sluice_openapi_run *run, transfer *t, const sluice_openapi_request *req, long ms)
{
    CURL *c = t->easy;
    curl_easy_setopt(c, CURLOPT_URL, t->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (run->up->ca_file != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, run->up->ca_file);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
    if (strcmp(req->method, "GET") == 0)
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    if (t->body_out != NULL)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, t->body_out);
    if (run->up->userpwd != NULL) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERPWD, run->up->userpwd);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sluice_http_body_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t->in);
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)t->in.max);
    sluice_netguard_conn_install(c, &t->guard);
    curl_easy_setopt(c, CURLOPT_PRIVATE, t);
    if (ms > 0)
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
}

sluice_status sluice_openapi_run_start(sluice_openapi_run *run,
                                       sluice_arena *arena,
                                       const sluice_openapi_request *req,
                                       uint64_t *ticket,
                                       sluice_error *err)
{
    long ms = remaining_ms(run);
    if (ms < 0)
        return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                                "the plan ran out of time (%s) before %s %s", run->timeout_setting,
                                req->method, req->path);
    transfer **n = sluice_vec_grow_heap(run->t, run->count + 1, &run->cap, sizeof *n, 16);
    if (n == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    run->t = n;
    transfer *t = transfer_new(run, req);
    if (t == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    harden(run, t, req, ms);
    if (curl_multi_add_handle(run->multi, t->easy) != CURLM_OK) {
        transfer_free(NULL, t);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "cannot start the request");
    }
    run->t[run->count] = t;
    *ticket = run->count++;
    return SLUICE_OK;
}

/* Moves every transfer; marks the finished ones. false when the multi handle failed. */
static bool pump(sluice_openapi_run *run)
{
    int running = 0;
    if (curl_multi_perform(run->multi, &running) != CURLM_OK)
        return false;
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(run->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        transfer *t = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&t);
        if (t == NULL)
            continue;
        t->rc = m->data.result;
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
        curl_multi_remove_handle(run->multi, t->easy);
        t->done = true;
    }
    return true;
}

static sluice_status
outcome(const sluice_openapi_run *run, sluice_arena *arena, const transfer *t, sluice_error *err)
{
    if (t->rc == CURLE_OK)
        return SLUICE_OK;
    if (t->in.too_large || t->rc == CURLE_FILESIZE_EXCEEDED)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the upstream response is larger than %zu bytes "
                                "([database] max_response_bytes); nothing was returned",
                                t->in.max);
    if (t->rc == CURLE_OPERATION_TIMEDOUT)
        return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                                "the upstream did not answer in time (%s)", run->timeout_setting);
    if (t->guard.refused)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the upstream resolved to an internal address, and the base URL "
                                "does not name one: refused (SSRF guard)");
    return sluice_error_set(err, arena, SLUICE_E_ENGINE, "the upstream could not be reached: %s",
                            curl_easy_strerror(t->rc));
}

sluice_status sluice_openapi_run_wait(sluice_openapi_run *run,
                                      sluice_arena *arena,
                                      uint64_t ticket,
                                      long *status,
                                      const char **body,
                                      size_t *len,
                                      sluice_error *err)
{
    if (ticket >= run->count)
        return sluice_error_set(err, arena, SLUICE_E_INTERNAL, "unknown request");
    transfer *t = run->t[ticket];
    while (!t->done) {
        if (!pump(run))
            return sluice_error_set(err, arena, SLUICE_E_ENGINE, "the HTTP client failed");
        if (t->done)
            break;
        long ms = remaining_ms(run);
        if (ms < 0)
            return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                                    "the plan ran out of time (%s) waiting for the upstream",
                                    run->timeout_setting);
        curl_multi_poll(run->multi, NULL, 0, ms > 0 && ms < 100 ? (int)ms : 100, NULL);
    }
    sluice_status st = outcome(run, arena, t, err);
    if (st != SLUICE_OK)
        return st;
    *status = t->status;
    *len = t->in.len;
    *body = sluice_arena_strndup(arena, t->in.data != NULL ? t->in.data : "", t->in.len);
    return *body != NULL ? SLUICE_OK
                         : sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
}
