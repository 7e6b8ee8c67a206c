/*
 * http_source.c — pages of an HTTP source through libcurl (see http_source.h).
 */
#include "querymode/http_source.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/netguard.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Longest Link header / next URL sluice follows. */
#define QM_URL_MAX 4096u

typedef struct page_io {
    sluice_buf body;
    size_t limit;
    bool over;
    char next_link[QM_URL_MAX];
    long retry_after_s; /* -1 none */
    atomic_bool *cancelled;
} page_io;

typedef struct http_ctx {
    sluice_qm_fetch *f;
    sluice_arena *arena;
    sluice_error *err;
    CURL *curl;
    struct curl_slist *headers;
    char origin[512];           /* scheme://host[:port] of base_url */
    sluice_netguard_conn guard; /* may base_url reach internal addresses; refused last attempt */
    int64_t interval_ms;        /* from requests_per_minute */
    sluice_qm_rate own_rate;    /* when the fetch brings no shared one */
    sluice_qm_rate *rate;
    const char **seen_cursors;
    size_t seen_count;
} http_ctx;

const json_t *sluice_qm_json_path(const json_t *v, const char *path)
{
    if (path == NULL)
        return v;
    if (strncmp(path, "$.", 2) == 0)
        path += 2;
    else if (strcmp(path, "$") == 0)
        path++;
    while (v != NULL && *path != '\0') {
        const char *dot = strchr(path, '.');
        size_t n = dot != NULL ? (size_t)(dot - path) : strlen(path);
        char key[256];
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        v = json_is_object(v) ? json_object_get(v, key) : NULL;
        path += n + (dot != NULL);
    }
    return v;
}

/* Waits ms in slices, so a cancel is seen within 50 ms. False when cancelled. */
static bool wait_ms(const http_ctx *h, int64_t ms)
{
    int64_t until = sluice_clock_monotonic_ms(NULL) + ms;
    while (sluice_clock_monotonic_ms(NULL) < until) {
        if (h->f->cancelled != NULL && atomic_load(h->f->cancelled))
            return false;
        int64_t left = until - sluice_clock_monotonic_ms(NULL);
        struct timespec ts = { 0, (long)((left < 50 ? left : 50) * 1000000) };
        nanosleep(&ts, NULL);
    }
    return h->f->cancelled == NULL || !atomic_load(h->f->cancelled);
}

/* ---- one request --------------------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
    page_io *io = userdata;
    size_t len = size * n;
    if (io->cancelled != NULL && atomic_load(io->cancelled))
        return 0;
    if (io->body.len + len > io->limit) {
        io->over = true;
        return 0;
    }
    sluice_buf_append(&io->body, data, len);
    return sluice_buf_status(&io->body) == SLUICE_OK ? len : 0;
}

/* Link: <https://x/y?page=2>; rel="next" — the URL of the rel=next entry. */
static void parse_link(const char *value, size_t len, char *out, size_t out_len)
{
    const char *end = value + len;
    for (const char *p = value; p < end;) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        const char *gt = lt != NULL ? memchr(lt, '>', (size_t)(end - lt)) : NULL;
        if (gt == NULL)
            return;
        const char *comma = memchr(gt, ',', (size_t)(end - gt));
        const char *stop = comma != NULL ? comma : end;
        char params[256];
        size_t pn =
            (size_t)(stop - gt) < sizeof(params) - 1 ? (size_t)(stop - gt) : sizeof(params) - 1;
        memcpy(params, gt, pn);
        params[pn] = '\0';
        if (strcasestr(params, "rel=\"next\"") != NULL || strcasestr(params, "rel=next") != NULL) {
            size_t un = (size_t)(gt - lt - 1);
            if (un < out_len) {
                memcpy(out, lt + 1, un);
                out[un] = '\0';
            }
            return;
        }
        p = stop + 1;
    }
}

static size_t on_header(char *data, size_t size, size_t n, void *userdata)
{
    page_io *io = userdata;
    size_t len = size * n;
    if (len > 5 && strncasecmp(data, "Link:", 5) == 0)
        parse_link(data + 5, len - 5, io->next_link, sizeof(io->next_link));
    else if (len > 12 && strncasecmp(data, "Retry-After:", 12) == 0) {
        char tmp[32];
        size_t tn = len - 12 < sizeof(tmp) - 1 ? len - 12 : sizeof(tmp) - 1;
        memcpy(tmp, data + 12, tn);
        tmp[tn] = '\0';
        char *endp = NULL;
        long v = strtol(tmp, &endp, 10);
        io->retry_after_s = endp != tmp && v >= 0 ? v : -1;
    }
    return len;
}

static bool retryable(long status)
{
    return status == 429 || status >= 500 || status == 0;
}

/* GETs url once into io; *status is the HTTP status (0: no response). */
static sluice_status get_once(http_ctx *h, const char *url, page_io *io, long *status)
{
    if (h->interval_ms > 0) {
        /* Reserve the next slot under the lock, wait for it outside: concurrent loads of one
         * source queue behind each other instead of each spending the whole budget. */
        pthread_mutex_lock(&h->rate->mu);
        int64_t now = sluice_clock_monotonic_ms(NULL);
        int64_t slot = h->rate->next_slot_ms > now ? h->rate->next_slot_ms : now;
        h->rate->next_slot_ms = slot + h->interval_ms;
        pthread_mutex_unlock(&h->rate->mu);
        if (slot > now && !wait_ms(h, slot - now))
            return SLUICE_E_CANCELLED;
    }
    io->body.len = 0;
    io->over = false;
    io->next_link[0] = '\0';
    io->retry_after_s = -1;
    h->guard.refused = false;
    curl_easy_setopt(h->curl, CURLOPT_URL, url);
    curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, io);
    curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, io);
    CURLcode rc = curl_easy_perform(h->curl);
    *status = 0;
    if (io->cancelled != NULL && atomic_load(io->cancelled))
        return SLUICE_E_CANCELLED;
    if (io->over)
        return SLUICE_E_LIMIT;
    if (rc != CURLE_OK && h->guard.refused)
        return SLUICE_E_DENIED; /* a refusal, not a failure: retrying cannot change the address */
    if (rc != CURLE_OK)
        return SLUICE_E_IO;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
    return SLUICE_OK;
}

/* GETs url with retries; on SLUICE_OK, *status is 2xx or a 404 the source allows. */
static sluice_status get_page(http_ctx *h, const char *url, page_io *io, long *status)
{
    const sluice_config_source *src = h->f->source;
    int64_t backoff = src->retry_base_ms;
    for (int64_t attempt = 0;; attempt++) {
        sluice_status st = get_once(h, url, io, status);
        if (st == SLUICE_E_CANCELLED || st == SLUICE_E_LIMIT)
            return st;
        if (st == SLUICE_E_DENIED)
            return sluice_error_set(h->err, h->arena, SLUICE_E_DENIED,
                                    "source '%s': the SSRF guard refused the connection on the "
                                    "first attempt (the address is loopback, link-local or "
                                    "private, which only a base_url naming such an address "
                                    "allows); not retried",
                                    src->name);
        if (st == SLUICE_OK &&
            ((*status >= 200 && *status < 300) || (*status == 404 && src->allow_404_empty)))
            return SLUICE_OK;
        if (st == SLUICE_OK && !retryable(*status))
            return sluice_error_set(h->err, h->arena, SLUICE_E_IO,
                                    "source '%s' answered HTTP %ld; the load stopped", src->name,
                                    *status);
        if (attempt >= src->max_retries) {
            if (st != SLUICE_OK)
                return sluice_error_set(h->err, h->arena, SLUICE_E_IO,
                                        "source '%s' could not be reached after %lld attempts "
                                        "(connection failed or timed out after "
                                        "timeout_seconds = %lld)",
                                        src->name, (long long)attempt + 1,
                                        (long long)src->timeout_seconds);
            return sluice_error_set(h->err, h->arena, SLUICE_E_IO,
                                    "source '%s' kept failing (HTTP %ld) after %lld attempts",
                                    src->name, *status, (long long)attempt + 1);
        }
        int64_t wait = backoff;
        if (io->retry_after_s >= 0) {
            if (io->retry_after_s > src->retry_after_max_seconds)
                return sluice_error_set(h->err, h->arena, SLUICE_E_IO,
                                        "source '%s' asked to wait %lds (Retry-After), more than "
                                        "retry_after_max_seconds = %lld",
                                        src->name, io->retry_after_s,
                                        (long long)src->retry_after_max_seconds);
            wait = io->retry_after_s * 1000;
        }
        if (!wait_ms(h, wait))
            return SLUICE_E_CANCELLED;
        backoff *= 2;
    }
}

/* ---- URLs ----------------------------------------------------------------------------------- */

static void add_param(http_ctx *h, sluice_buf *b, bool *first, const char *name, const char *value)
{
    char *n = curl_easy_escape(h->curl, name, 0);
    char *v = curl_easy_escape(h->curl, value, 0);
    sluice_buf_printf(b, "%c%s=%s", *first ? '?' : '&', n != NULL ? n : "", v != NULL ? v : "");
    *first = false;
    curl_free(n);
    curl_free(v);
}

/* The first page's URL (or a page/offset/cursor page: pos is the page number or offset, cursor
 * the cursor to send or NULL). */
static const char *page_url(http_ctx *h, int64_t pos, const char *cursor)
{
    const sluice_config_source *src = h->f->source;
    const sluice_config_source_pagination *pg = &src->pagination;
    sluice_buf b;
    sluice_buf_init(&b, h->arena, QM_URL_MAX * 4);
    sluice_buf_printf(&b, "%s%s", src->base_url, src->path);
    bool first = true;
    for (size_t i = 0; i < h->f->param_count; i++)
        add_param(h, &b, &first, h->f->params[i].name, h->f->params[i].value);
    char num[32];
    if (strcmp(pg->style, "none") != 0) {
        snprintf(num, sizeof(num), "%lld", (long long)pg->page_size);
        add_param(h, &b, &first, pg->size_param, num);
    }
    if (strcmp(pg->style, "page") == 0 || strcmp(pg->style, "offset") == 0) {
        snprintf(num, sizeof(num), "%lld", (long long)pos);
        add_param(h, &b, &first, strcmp(pg->style, "page") == 0 ? pg->page_param : pg->offset_param,
                  num);
    }
    if (cursor != NULL)
        add_param(h, &b, &first, pg->cursor_param, cursor);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* A next link is followed only on base_url's own origin (scheme, host and port). */
static bool same_origin(const http_ctx *h, const char *url)
{
    size_t n = strlen(h->origin);
    return strncmp(url, h->origin, n) == 0 && (url[n] == '/' || url[n] == '?' || url[n] == '\0');
}

/* ---- rows ----------------------------------------------------------------------------------- */

static const char *json_type_to_sql(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        return "BIGINT";
    case JSON_REAL:
        return "DOUBLE";
    case JSON_TRUE:
    case JSON_FALSE:
        return "BOOLEAN";
    default:
        return "VARCHAR";
    }
}

static bool plain_ident(const char *s)
{
    if (s[0] == '\0' || strlen(s) > 63 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (const char *p = s; *p != '\0'; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

/* Columns from the first row object: its keys that are plain identifiers, typed by value. */
static sluice_status infer_columns(http_ctx *h, const json_t *row)
{
    sluice_qm_fetch *f = h->f;
    size_t n = json_object_size(row);
    f->column_names = sluice_arena_calloc(h->arena, n + 1, sizeof(char *));
    f->column_types = sluice_arena_calloc(h->arena, n + 1, sizeof(char *));
    f->column_paths = sluice_arena_calloc(h->arena, n + 1, sizeof(char *));
    if (f->column_names == NULL || f->column_types == NULL || f->column_paths == NULL)
        return SLUICE_E_NOMEM;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)row, key, v)
    {
        if (!plain_ident(key))
            continue;
        f->column_names[f->column_count] = sluice_arena_strdup(h->arena, key);
        f->column_types[f->column_count] = json_type_to_sql(v);
        f->column_paths[f->column_count] = f->column_names[f->column_count];
        if (f->column_names[f->column_count] == NULL)
            return SLUICE_E_NOMEM;
        f->column_count++;
    }
    if (f->column_count == 0)
        return sluice_error_set(h->err, h->arena, SLUICE_E_INVALID,
                                "source '%s': the first row has no field usable as a column; "
                                "declare [[sources.columns]]",
                                f->source->name);
    return SLUICE_OK;
}

static sluice_status deliver(http_ctx *h, const json_t *items)
{
    sluice_qm_fetch *f = h->f;
    if (json_array_size(items) == 0)
        return SLUICE_OK;
    if (f->column_count == 0) {
        const json_t *first = json_array_get(items, 0);
        if (!json_is_object(first))
            return sluice_error_set(h->err, h->arena, SLUICE_E_INVALID,
                                    "source '%s': rows must be JSON objects", f->source->name);
        sluice_status st = infer_columns(h, first);
        if (st != SLUICE_OK)
            return st;
    }
    json_t *rows = json_array();
    size_t i;
    const json_t *item;
    json_array_foreach(items, i, item)
    {
        json_t *row = json_array();
        for (size_t c = 0; row != NULL && c < f->column_count; c++) {
            const json_t *v =
                json_is_object(item) ? sluice_qm_json_path(item, f->column_paths[c]) : NULL;
            json_array_append_new(row, v != NULL ? json_incref((json_t *)v) : json_null());
        }
        if (row == NULL || json_array_append_new(rows, row) != 0) {
            json_decref(rows);
            return SLUICE_E_NOMEM;
        }
    }
    sluice_status st = rows != NULL ? f->on_rows(f->ctx, rows, h->err) : SLUICE_E_NOMEM;
    f->rows += (int64_t)json_array_size(items);
    json_decref(rows);
    return st;
}

sluice_status
sluice_qm_deliver(sluice_qm_fetch *f, const json_t *items, sluice_arena *arena, sluice_error *err)
{
    http_ctx h = { .f = f, .arena = arena, .err = err };
    return deliver(&h, items);
}

/* ---- the page loop -------------------------------------------------------------------------- */

static sluice_status stop_truncated(sluice_qm_fetch *f, const char *by)
{
    f->truncated = true;
    f->truncated_by = by;
    return SLUICE_OK;
}

static bool cursor_seen(http_ctx *h, const char *cursor)
{
    for (size_t i = 0; i < h->seen_count; i++)
        if (strcmp(h->seen_cursors[i], cursor) == 0)
            return true;
    return false;
}

/* The next page's URL from this page, or NULL when this was the last. */
static sluice_status next_url(
    http_ctx *h, const json_t *body, const page_io *io, size_t got, int64_t page, const char **out)
{
    const sluice_config_source_pagination *pg = &h->f->source->pagination;
    *out = NULL;
    if (got == 0 || strcmp(pg->style, "none") == 0)
        return SLUICE_OK;
    if (strcmp(pg->style, "page") == 0 || strcmp(pg->style, "offset") == 0) {
        if ((int64_t)got < pg->page_size)
            return SLUICE_OK;
        int64_t pos = strcmp(pg->style, "page") == 0 ? pg->first_page + page : page * pg->page_size;
        *out = page_url(h, pos, NULL);
        return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    if (strcmp(pg->style, "cursor") == 0) {
        const char *cur = json_string_value(sluice_qm_json_path(body, pg->cursor_path));
        if (cur == NULL || cur[0] == '\0')
            return SLUICE_OK;
        if (cursor_seen(h, cur))
            return sluice_error_set(h->err, h->arena, SLUICE_E_INVALID,
                                    "source '%s' returned cursor '%.64s' a second time; the load "
                                    "stopped instead of looping",
                                    h->f->source->name, cur);
        const char **grown =
            sluice_arena_calloc(h->arena, h->seen_count + 1, sizeof(*h->seen_cursors));
        if (grown == NULL)
            return SLUICE_E_NOMEM;
        if (h->seen_count > 0)
            memcpy(grown, h->seen_cursors, h->seen_count * sizeof(*grown));
        grown[h->seen_count++] = sluice_arena_strdup(h->arena, cur);
        h->seen_cursors = grown;
        *out = page_url(h, 0, cur);
        return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
    }
    const char *link = strcmp(pg->style, "link") == 0
                           ? (io->next_link[0] != '\0' ? io->next_link : NULL)
                           : json_string_value(sluice_qm_json_path(body, pg->next_path));
    if (link == NULL || link[0] == '\0')
        return SLUICE_OK;
    if (!same_origin(h, link))
        return sluice_error_set(h->err, h->arena, SLUICE_E_DENIED,
                                "source '%s' pointed the next page at another origin (%.128s); "
                                "next links must stay on %s",
                                h->f->source->name, link, h->origin);
    *out = sluice_arena_strdup(h->arena, link);
    return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* What a fetched page (get_page's result st, status and body in io) means: rows delivered, the
 * next URL. */
static sluice_status process_page(
    http_ctx *h, page_io *io, sluice_status st, long status, int64_t page, const char **next)
{
    sluice_qm_fetch *f = h->f;
    *next = NULL;
    if (st == SLUICE_E_LIMIT)
        return stop_truncated(f, "max_load_bytes");
    if (st == SLUICE_E_CANCELLED)
        return sluice_error_set(h->err, h->arena, st, "the load was cancelled");
    if (st != SLUICE_OK)
        return st;
    f->bytes += io->body.len;
    f->pages++;
    if (status == 404)
        return SLUICE_OK;
    json_error_t je;
    json_t *body = json_loadb(io->body.data != NULL ? io->body.data : "", io->body.len, 0, &je);
    if (body == NULL)
        return sluice_error_set(h->err, h->arena, SLUICE_E_INVALID,
                                "source '%s' page %lld is not JSON (line %d, column %d: %s)",
                                f->source->name, (long long)page, je.line, je.column, je.text);
    const json_t *items = sluice_qm_json_path(body, f->source->response.path);
    if (!json_is_array(items))
        st = sluice_error_set(h->err, h->arena, SLUICE_E_INVALID,
                              "source '%s' page %lld has no rows array at response.path '%s'",
                              f->source->name, (long long)page, f->source->response.path);
    if (st == SLUICE_OK)
        st = deliver(h, items);
    if (st == SLUICE_E_LIMIT) {
        st = stop_truncated(f, "max_load_rows");
    } else if (st == SLUICE_OK) {
        st = next_url(h, body, io, json_array_size(items), page, next);
    }
    json_decref(body);
    if (f->on_page != NULL)
        f->on_page(f->ctx, page, f->rows);
    return st;
}

static sluice_status
one_page(http_ctx *h, page_io *io, const char *url, int64_t page, const char **next)
{
    long status = 0;
    io->limit = h->f->max_bytes - h->f->bytes;
    sluice_status st = get_page(h, url, io, &status);
    return process_page(h, io, st, status, page, next);
}

/* ---- concurrent pages (page and offset styles: every URL is known in advance) ------------- */

typedef struct worker {
    http_ctx h; /* a copy with its own handle, arena and error; rate and cancel flag shared */
    page_io io;
    sluice_error err;
    const char *url;
    long status;
    sluice_status st;
    pthread_t tid;
    bool started;
} worker;

static void *worker_run(void *arg)
{
    worker *w = arg;
    w->st = get_page(&w->h, w->url, &w->io, &w->status);
    return NULL;
}

static bool worker_start(worker *w, const http_ctx *h, const char *url)
{
    memset(w, 0, sizeof(*w));
    w->h = *h;
    w->h.arena = sluice_arena_new();
    w->h.err = &w->err;
    w->h.curl = w->h.arena != NULL ? curl_easy_duphandle(h->curl) : NULL;
    w->url = url != NULL && w->h.arena != NULL ? sluice_arena_strdup(w->h.arena, url) : NULL;
    if (w->h.curl == NULL || w->url == NULL)
        return false;
    sluice_netguard_conn_install(w->h.curl, &w->h.guard);
    w->io = (page_io){ .cancelled = h->f->cancelled, .limit = h->f->max_bytes - h->f->bytes };
    sluice_buf_init(&w->io.body, w->h.arena, 0);
    w->started = pthread_create(&w->tid, NULL, worker_run, w) == 0;
    return w->started;
}

static void worker_end(worker *w)
{
    if (w->started)
        pthread_join(w->tid, NULL);
    if (w->h.curl != NULL)
        curl_easy_cleanup(w->h.curl);
    w->h.curl = NULL;
    w->started = false;
}

/* The URL of the k-th page (0-based) of a page or offset source. */
static const char *nth_url(http_ctx *h, int64_t k)
{
    const sluice_config_source_pagination *pg = &h->f->source->pagination;
    return page_url(h, strcmp(pg->style, "page") == 0 ? pg->first_page + k : k * pg->page_size,
                    NULL);
}

/* Up to n pages at once, then delivered in page order; the first short (last) page, error or
 * cap ends the load and the pages fetched past it are dropped. */
static sluice_status fetch_windows(http_ctx *h, int n)
{
    sluice_qm_fetch *f = h->f;
    worker ws[SLUICE_QM_MAX_CONCURRENCY];
    sluice_status st = SLUICE_OK;
    bool done = false;
    for (int64_t k = 0; st == SLUICE_OK && !done && !f->truncated;) {
        int64_t room = f->max_pages - f->pages;
        if (room <= 0) {
            stop_truncated(f, "max_pages");
            break;
        }
        int m = room < n ? (int)room : n;
        int started = 0;
        for (int i = 0; i < m; i++, started++)
            if (!worker_start(&ws[i], h, nth_url(h, k + i))) {
                started++;
                st = SLUICE_E_NOMEM;
                break;
            }
        for (int i = 0; i < started; i++)
            worker_end(&ws[i]);
        for (int i = 0; st == SLUICE_OK && i < m && !done && !f->truncated; i++) {
            sluice_status got = ws[i].st;
            if (got != SLUICE_OK && got != SLUICE_E_LIMIT && got != SLUICE_E_CANCELLED)
                got = sluice_error_set(h->err, h->arena, got, "%s",
                                       ws[i].err.message != NULL ? ws[i].err.message
                                                                 : sluice_status_name(got));
            const char *next = NULL;
            st = process_page(h, &ws[i].io, got, ws[i].status, k + i + 1, &next);
            done = next == NULL;
        }
        for (int i = 0; i < started; i++)
            sluice_arena_free(ws[i].h.arena);
        k += m;
    }
    return st;
}

static sluice_status set_auth(http_ctx *h)
{
    const sluice_config_source *src = h->f->source;
    char token[4096] = "";
    if (src->token_env != NULL) {
        const char *v = getenv(src->token_env);
        if (v == NULL || v[0] == '\0')
            return sluice_error_set(h->err, h->arena, SLUICE_E_CONFIG,
                                    "source '%s' needs its credential in $%s, which is not set",
                                    src->name, src->token_env);
        snprintf(token, sizeof(token), "%s", v);
    } else if (src->token_file != NULL) {
        FILE *fp = fopen(src->token_file, "r");
        size_t n = fp != NULL ? fread(token, 1, sizeof(token) - 1, fp) : 0;
        if (fp != NULL)
            fclose(fp);
        token[n] = '\0';
        while (n > 0 && (token[n - 1] == '\n' || token[n - 1] == '\r'))
            token[--n] = '\0';
        if (n == 0)
            return sluice_error_set(h->err, h->arena, SLUICE_E_CONFIG,
                                    "source '%s': credential file %s is missing or empty",
                                    src->name, src->token_file);
    } else {
        return SLUICE_OK;
    }
    char *line = sluice_arena_printf(h->arena, "%s: %s%s%s", src->auth_header, src->auth_scheme,
                                     src->auth_scheme[0] != '\0' ? " " : "", token);
    explicit_bzero(token, sizeof(token));
    if (line == NULL)
        return SLUICE_E_NOMEM;
    struct curl_slist *l = curl_slist_append(h->headers, line);
    explicit_bzero(line, strlen(line));
    if (l == NULL)
        return SLUICE_E_NOMEM;
    h->headers = l;
    return SLUICE_OK;
}

static sluice_status setup(http_ctx *h)
{
    const sluice_config_source *src = h->f->source;
    snprintf(h->origin, sizeof(h->origin), "%s", src->base_url);
    size_t on = strlen(h->origin);
    if (on > 0 && h->origin[on - 1] == '/')
        h->origin[on - 1] = '\0';
    h->guard = sluice_netguard_conn_for(h->origin);
    h->interval_ms = src->requests_per_minute > 0
                         ? (60000 + src->requests_per_minute - 1) / src->requests_per_minute
                         : 0;
    h->curl = curl_easy_init();
    if (h->curl == NULL)
        return SLUICE_E_NOMEM;
    for (size_t i = 0; i < src->headers.count; i++) {
        struct curl_slist *l = curl_slist_append(h->headers, src->headers.items[i]);
        if (l == NULL)
            return SLUICE_E_NOMEM;
        h->headers = l;
    }
    struct curl_slist *l = curl_slist_append(h->headers, "Accept: application/json");
    if (l == NULL)
        return SLUICE_E_NOMEM;
    h->headers = l;
    sluice_status st = set_auth(h);
    if (st != SLUICE_OK)
        return st;
    CURL *c = h->curl;
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)src->timeout_seconds);
    sluice_netguard_conn_install(c, &h->guard);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "sluice-query-mode");
    return SLUICE_OK;
}

sluice_status sluice_qm_http_fetch(sluice_qm_fetch *f, sluice_arena *arena, sluice_error *err)
{
    http_ctx h = { .f = f, .arena = arena, .err = err, .own_rate = SLUICE_QM_RATE_INIT };
    h.rate = f->rate != NULL ? f->rate : &h.own_rate;
    page_io io = { .cancelled = f->cancelled };
    sluice_buf_init(&io.body, arena, 0);
    sluice_status st = setup(&h);
    const char *url = st == SLUICE_OK ? page_url(&h, f->source->pagination.first_page, NULL) : NULL;
    if (st == SLUICE_OK && url == NULL)
        st = SLUICE_E_NOMEM;
    if (strcmp(f->source->pagination.style, "offset") == 0 && st == SLUICE_OK)
        url = page_url(&h, 0, NULL);
    const char *style = f->source->pagination.style;
    int conc = f->source->max_concurrency > SLUICE_QM_MAX_CONCURRENCY
                   ? (int)SLUICE_QM_MAX_CONCURRENCY
                   : (int)f->source->max_concurrency;
    if (st == SLUICE_OK && conc > 1 &&
        (strcmp(style, "page") == 0 || strcmp(style, "offset") == 0)) {
        st = fetch_windows(&h, conc);
        url = NULL;
    }
    for (int64_t page = 1; st == SLUICE_OK && url != NULL && !f->truncated; page++) {
        if (f->pages >= f->max_pages) { /* across every request of one load */
            stop_truncated(f, "max_pages");
            break;
        }
        if (f->cancelled != NULL && atomic_load(f->cancelled)) {
            st = sluice_error_set(err, arena, SLUICE_E_CANCELLED, "the load was cancelled");
            break;
        }
        const char *next = NULL;
        st = one_page(&h, &io, url, page, &next);
        url = next;
    }
    curl_slist_free_all(h.headers);
    if (h.curl != NULL)
        curl_easy_cleanup(h.curl);
    return st;
}
