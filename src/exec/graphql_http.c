/*
 * graphql_http.c — the GraphQL backend (see graphql_http.h): one POST per execution.
 *
 * Owns: the request ({"query", "variables", "operationName"} as JSON; the variables object's
 * reserved "$operationName" key becomes operationName and is never sent as a variable), the
 * server-side credential header (read once at open from an environment variable or a file;
 * the caller's own token is never passed through), libcurl's hardening (http/https only, no
 * redirects, no proxy, the SSRF guard at connect time (core/netguard.h), TLS peer and host
 * verification on, timeout from the limits, the response body capped while it is read), upstream
 * `errors` as an engine error (messages filtered by graphql_errors.c), the call to the shaper. Does
 * not own: what may run (the pipeline), GraphQL syntax (syntax/graphql/).
 */
#include "exec/graphql_http.h"

#include "core/clock.h"
#include "core/hash.h"
#include "core/limits.h"
#include "core/netguard.h"
#include "exec/caller_assertion.h"
#include "exec/graphql_errors.h"
#include "exec/graphql_introspect.h"
#include "exec/graphql_shape.h"
#include "exec/http_body.h"
#include "exec/http_credential.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct gql_state {
    sluice_arena *arena;
    const char *endpoint;
    sluice_netguard_conn guard; /* copied per exchange: may the endpoint reach internal addresses */
    const char *credential_header; /* "Authorization: Bearer ..." or NULL */
    /* The key that signs the caller assertion of every execution, or NULL (none configured) */
    const sluice_caller_assertion *assertion;
    const char *ca_file;
    const char *sdl_path; /* the SDL file, or NULL: the schema comes by introspection */
    sluice_exec_limits introspect_limits;
    /* The schema read at open; the first schema call serves it, later ones (a catalog reload on
     * SIGHUP) read the source again. */
    const char *sdl;
    size_t sdl_len;
    atomic_bool sdl_fresh;
    size_t max_response;
    sluice_strlist blocked[2];
    bool refuse;
} gql_state;

/* ---- open -------------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf != NULL ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (buf == NULL || n > max) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void free_cb(void *p)
{
    free(p);
}

/* The credential's header line into s->credential_header (NULL when none is configured). */
static sluice_status credential(const sluice_config_database *db,
                                gql_state *s,
                                sluice_arena *err_arena,
                                sluice_error *err)
{
    char *value = NULL;
    sluice_status st = sluice_http_credential_read("[database] auth_token", db->auth_token_env,
                                                   db->auth_token_file, &value, err_arena, err);
    if (st != SLUICE_OK || value == NULL)
        return st;
    s->credential_header = sluice_http_credential_header(s->arena, db, value);
    explicit_bzero(value, strlen(value));
    free(value);
    return s->credential_header != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

static void gql_close(void *state)
{
    gql_state *s = state;
    if (s != NULL)
        sluice_arena_free(s->arena);
}

static sluice_status read_source(const gql_state *s,
                                 sluice_arena *arena,
                                 sluice_arena *err_arena,
                                 const char **sdl,
                                 size_t *len,
                                 sluice_error *err);

/* A schema that does not build, named with its source and position (the catalog's log line
 * quotes only the message). */
static sluice_status
described_error(const gql_state *s, sluice_arena *arena, sluice_status st, sluice_error *err)
{
    if (err == NULL)
        return st;
    const char *where = s->sdl_path != NULL ? s->sdl_path : "(by introspection)";
    if (err->line > 0)
        return sluice_error_set(err, arena, st,
                                "the GraphQL schema %s does not build: line %zu, "
                                "column %zu: %s",
                                where, err->line, err->column,
                                err->message != NULL ? err->message : "?");
    return sluice_error_set(err, arena, st, "the GraphQL schema %s does not build: %s", where,
                            err->message != NULL ? err->message : "?");
}

/* The schema document and its description. The first call serves what open read; every later
 * one (a catalog reload, exec/catalog.c) reads the SDL file or introspects again into arena, so
 * a failed re-read leaves the snapshot in use untouched. */
static sluice_status
gql_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    gql_state *s = (gql_state *)sluice_executor_state(ex);
    memset(out, 0, sizeof *out);
    const char *sdl = s->sdl;
    size_t len = s->sdl_len;
    sluice_status st = SLUICE_OK;
    if (!atomic_exchange(&s->sdl_fresh, false))
        st = read_source(s, arena, arena, &sdl, &len, err);
    const sluice_strlist *const blocked[2] = { &s->blocked[0], &s->blocked[1] };
    if (st == SLUICE_OK &&
        (st = sluice_graphql_describe(arena, sdl, len, blocked, out, err)) != SLUICE_OK)
        return described_error(s, arena, st, err);
    if (st != SLUICE_OK)
        return st;
    uint8_t hash[SLUICE_HASH_BYTES];
    sluice_hash_sha256(sdl, len, hash);
    sluice_hash_hex(hash, sizeof hash, out->version_hash);
    out->document = sdl;
    out->document_len = len;
    return SLUICE_OK;
}

static sluice_status gql_execute(sluice_executor *ex,
                                 sluice_arena *arena,
                                 const sluice_exec_request *req,
                                 sluice_exec_result *out,
                                 sluice_error *err);

static const sluice_executor_ops gql_ops = {
    .name = "graphql",
    .schema = gql_schema,
    .execute = gql_execute,
    .close = gql_close,
};

typedef struct body body;
static sluice_status exchange(const gql_state *s,
                              const sluice_exec_request *req,
                              const char *text,
                              body *b,
                              long *status,
                              sluice_error *err,
                              sluice_arena *arena);
static sluice_status introspect(const gql_state *s,
                                sluice_arena *arena,
                                sluice_arena *err_arena,
                                const char **sdl,
                                size_t *len,
                                sluice_error *err);

/* The schema document into arena: the SDL file [database] path names, or, without one, the
 * upstream's answer to introspection. SLUICE_E_IO (the file is unreadable or too large), the
 * introspection errors; err's strings in err_arena. */
static sluice_status read_source(const gql_state *s,
                                 sluice_arena *arena,
                                 sluice_arena *err_arena,
                                 const char **sdl,
                                 size_t *len,
                                 sluice_error *err)
{
    if (s->sdl_path == NULL)
        return introspect(s, arena, err_arena, sdl, len, err);
    char *text = read_file(s->sdl_path, SLUICE_LIMIT_GRAPHQL_SDL_BYTES, len);
    if (text == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "cannot read the GraphQL schema %s (an SDL file, at most %u "
                                "bytes)",
                                s->sdl_path, SLUICE_LIMIT_GRAPHQL_SDL_BYTES);
    if (sluice_arena_cleanup_add(arena, free_cb, text) != SLUICE_OK)
        return SLUICE_E_NOMEM; /* the cleanup ran at once: text is freed */
    *sdl = text;
    return SLUICE_OK;
}

sluice_status sluice_exec_graphql_open(const sluice_config_database *db,
                                       const sluice_config_code_mode *code_mode,
                                       sluice_executor **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err)
{
    static const sluice_strlist none = { 0 };
    *out = NULL;
    if (db->endpoint == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                                "[database] engine = \"graphql\" needs endpoint = \"https://...\"");
    curl_global_init(CURL_GLOBAL_DEFAULT);
    gql_state *s = NULL;
    sluice_arena *a = sluice_arena_new();
    if (a == NULL || (s = sluice_arena_calloc(a, 1, sizeof *s)) == NULL) {
        sluice_arena_free(a);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    s->arena = a;
    s->max_response = db->max_response_bytes > 0 ? (size_t)db->max_response_bytes
                                                 : SLUICE_LIMIT_GRAPHQL_RESPONSE_BYTES;
    s->endpoint = sluice_arena_strdup(a, db->endpoint);
    s->guard = sluice_netguard_conn_for(db->endpoint);
    s->ca_file = db->ca_file != NULL ? sluice_arena_strdup(a, db->ca_file) : NULL;
    s->refuse = code_mode != NULL && code_mode->graphql_blocked_output == SLUICE_GRAPHQL_REFUSE;
    s->sdl_path = db->path != NULL ? sluice_arena_strdup(a, db->path) : NULL;
    s->introspect_limits = sluice_exec_limits_from_config(code_mode);
    sluice_caller_assertion *assertion = NULL;
    sluice_status st = credential(db, s, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_caller_assertion_open(db, code_mode != NULL ? code_mode->server_id : NULL,
                                          db->endpoint, a, &assertion, err_arena, err);
    s->assertion = assertion;
    if (st == SLUICE_OK)
        st = read_source(s, a, err_arena, &s->sdl, &s->sdl_len, err);
    atomic_store(&s->sdl_fresh, true);
    if (st == SLUICE_OK &&
        (sluice_strlist_copy(a, &s->blocked[0],
                             code_mode ? &code_mode->graphql_blocked_fields : &none,
                             NULL) != SLUICE_OK ||
         sluice_strlist_copy(a, &s->blocked[1], code_mode ? &code_mode->blocked_fields : &none,
                             NULL) != SLUICE_OK ||
         s->endpoint == NULL))
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (st != SLUICE_OK) {
        gql_close(s);
        return st;
    }
    return sluice_executor_wrap(&gql_ops, s, SLUICE_ENGINE_GRAPHQL, code_mode, out);
}

/* ---- one exchange ------------------------------------------------------------------------ */

struct body {
    sluice_http_body in; /* first: the write callback is given &b->in */
    /* "<caller_assertion_header>: <jws>" for an execution's caller; NULL for sluice's own
     * requests (introspection at start-up or reload, on nobody's behalf) */
    const char *caller_header;
    volatile int cancelled;
    sluice_arena *arena;
};

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    return ((body *)user)->cancelled ? 1 : 0;
}

static void cancel_cb(void *data)
{
    ((body *)data)->cancelled = 1;
}

static char *request_text(const sluice_exec_request *req, const char **operation_name)
{
    json_t *vars = json_object();
    const char *key;
    json_t *val;
    *operation_name = NULL;
    if (json_is_object(req->variables))
        json_object_foreach((json_t *)req->variables, key, val)
        {
            if (strcmp(key, "$operationName") == 0)
                *operation_name = json_string_value(val);
            else
                json_object_set(vars, key, val);
        }
    json_t *doc = json_pack("{s:s%, s:o}", "query", req->code, req->code_len, "variables", vars);
    if (doc != NULL && *operation_name != NULL)
        json_object_set_new(doc, "operationName", json_string(*operation_name));
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

/* The upstream's errors as the engine error: messages filtered word by word
 * (graphql_errors.h), so no value the upstream quotes reaches the caller or the audit. */
static sluice_status upstream_errors(sluice_arena *arena,
                                     const json_t *errors,
                                     const sluice_schema *schema,
                                     sluice_error *err)
{
    const char *text = sluice_graphql_error_text(
        arena, errors, schema != NULL ? schema->document_model : NULL, 1000);
    if (text == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                            "the upstream GraphQL server said: %s (words that may be values "
                            "are shown as \xe2\x80\xa6)",
                            text);
}

static void decref_cb(void *p)
{
    json_decref(p);
}

/* The HTTP exchange; fills b. */
static sluice_status exchange(const gql_state *s,
                              const sluice_exec_request *req,
                              const char *text,
                              body *b,
                              long *status,
                              sluice_error *err,
                              sluice_arena *arena)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/graphql-response+json, application/json");
    if (s->credential_header != NULL)
        h = curl_slist_append(h, s->credential_header);
    if (b->caller_header != NULL && h != NULL) {
        struct curl_slist *with = curl_slist_append(h, b->caller_header);
        if (with == NULL)
            curl_slist_free_all(h); /* never the call without the assertion configured */
        h = with;
    }
    if (c == NULL || h == NULL) {
        curl_slist_free_all(h);
        curl_easy_cleanup(c);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    curl_easy_setopt(c, CURLOPT_URL, s->endpoint);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    if (s->ca_file != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, s->ca_file);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sluice_http_body_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b->in);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, b);
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)b->in.max);
    sluice_netguard_conn guard = s->guard;
    sluice_netguard_conn_install(c, &guard);
    if (req->limits.timeout_ms > 0)
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)req->limits.timeout_ms);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (rc == CURLE_OK)
        return SLUICE_OK;
    if (b->cancelled)
        return sluice_error_set(err, arena, SLUICE_E_CANCELLED, "cancelled by the client");
    if (b->in.too_large || rc == CURLE_FILESIZE_EXCEEDED)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the upstream response is larger than %zu bytes "
                                "([database] max_response_bytes); nothing was returned",
                                b->in.max);
    if (guard.refused)
        return sluice_error_set(err, arena, SLUICE_E_DENIED,
                                "the GraphQL endpoint resolved to an internal address, and "
                                "[database] endpoint does not name one: refused (SSRF guard)");
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return sluice_error_set(err, arena, SLUICE_E_TIMEOUT,
                                "the upstream GraphQL server did not answer within %lld ms (%s)",
                                (long long)req->limits.timeout_ms,
                                req->limits.timeout_setting != NULL ? req->limits.timeout_setting
                                                                    : "timeout");
    return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                            "the upstream GraphQL server could not be reached: %s",
                            curl_easy_strerror(rc));
}

static sluice_status introspect(const gql_state *s,
                                sluice_arena *arena,
                                sluice_arena *err_arena,
                                const char **sdl,
                                size_t *len,
                                sluice_error *err)
{
    sluice_exec_request req = {
        .code = sluice_graphql_introspection_query,
        .code_len = strlen(sluice_graphql_introspection_query),
        .limits = s->introspect_limits,
    };
    const char *ignored = NULL;
    char *text = request_text(&req, &ignored);
    body b = { .in = { .max = s->max_response } };
    long status = 0;
    sluice_status st =
        text != NULL ? exchange(s, &req, text, &b, &status, err, err_arena) : SLUICE_E_NOMEM;
    free(text);
    json_t *resp =
        st == SLUICE_OK && b.in.data != NULL ? json_loadb(b.in.data, b.in.len, 0, NULL) : NULL;
    free(b.in.data);
    if (st == SLUICE_OK && !json_is_object(json_object_get(resp, "data")))
        st = sluice_error_set(err, err_arena, SLUICE_E_ENGINE,
                              "the upstream answered introspection with HTTP %ld and no data; "
                              "set [database] path to its schema (SDL) instead",
                              status);
    if (st == SLUICE_OK)
        st = sluice_graphql_introspection_sdl(arena, json_object_get(resp, "data"), sdl, len, err);
    json_decref(resp);
    if (st != SLUICE_OK && err != NULL)
        err->message = sluice_arena_printf(err_arena, "schema by introspection from %s: %s",
                                           s->endpoint, err->message);
    return st;
}

/* The snapshot the operation was validated against, so a reload in between cannot change the
 * schema the response is read with. */
static sluice_status schema_of(sluice_executor *ex,
                               sluice_arena *arena,
                               const sluice_exec_request *req,
                               const sluice_schema **schema,
                               sluice_error *err)
{
    *schema = req->schema;
    if (*schema != NULL && (*schema)->document != NULL)
        return SLUICE_OK;
    return sluice_executor_catalog(ex, arena, schema, err);
}

static sluice_status shape(const gql_state *s,
                           sluice_arena *arena,
                           const sluice_exec_request *req,
                           const sluice_schema *schema,
                           const char *operation_name,
                           json_t *data,
                           sluice_exec_result *out,
                           sluice_error *err)
{
    sluice_exec_walk sh = {
        .code = req->code,
        .code_len = req->code_len,
        .operation_name = operation_name,
        .document = schema->document,
        .document_len = schema->document_len,
        .document_model = schema->document_model,
        .blocked = { &s->blocked[0], &s->blocked[1] },
        .refuse = s->refuse,
        .max_list_items = req->limits.max_rows,
    };
    sluice_status st = sluice_graphql_shape(arena, data, &sh, err);
    if (st != SLUICE_OK)
        return st;
    out->truncated = sh.truncated;
    out->truncated_by = sh.truncated ? "max_rows" : NULL;
    return SLUICE_OK;
}

static sluice_status gql_execute(sluice_executor *ex,
                                 sluice_arena *arena,
                                 const sluice_exec_request *req,
                                 sluice_exec_result *out,
                                 sluice_error *err)
{
    const gql_state *s = sluice_executor_state(ex);
    int64_t start = sluice_clock_monotonic_ms(NULL);
    const char *operation_name = NULL;
    char *text = request_text(req, &operation_name);
    body *b = sluice_arena_calloc(arena, 1, sizeof *b);
    if (text == NULL || b == NULL) {
        free(text);
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    }
    b->in.max = s->max_response;
    sluice_status st = SLUICE_OK;
    if (s->assertion != NULL)
        st = sluice_caller_assertion_header(
            s->assertion, arena, req->identity, sluice_clock_now_s(NULL),
            sluice_caller_assertion_ttl(req->limits.timeout_ms), &b->caller_header, err);
    if (st != SLUICE_OK) {
        free(text);
        return st;
    }
    if (req->register_cancel != NULL)
        req->register_cancel(req->cancel_ctx, cancel_cb, b);
    long status = 0;
    st = exchange(s, req, text, b, &status, err, arena);
    free(text);
    json_t *resp =
        st == SLUICE_OK && b->in.data != NULL ? json_loadb(b->in.data, b->in.len, 0, NULL) : NULL;
    free(b->in.data);
    b->in.data = NULL;
    if (st != SLUICE_OK)
        return st;
    if (!json_is_object(resp)) {
        json_decref(resp);
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "the upstream GraphQL server answered HTTP %ld without a GraphQL "
                                "response",
                                status);
    }
    if (sluice_arena_cleanup_add(arena, decref_cb, resp) != SLUICE_OK) /* resp is gone */
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    const sluice_schema *schema = NULL;
    st = schema_of(ex, arena, req, &schema, err);
    if (st != SLUICE_OK)
        return st;
    const json_t *errors = json_object_get(resp, "errors");
    if (json_is_array(errors) && json_array_size(errors) > 0)
        return upstream_errors(arena, errors, schema, err);
    json_t *data = json_object_get(resp, "data");
    if (status < 200 || status > 299 || !json_is_object(data))
        return sluice_error_set(err, arena, SLUICE_E_ENGINE,
                                "the upstream GraphQL server answered HTTP %ld without data",
                                status);
    memset(out, 0, sizeof *out);
    st = shape(s, arena, req, schema, operation_name, data, out, err);
    if (st != SLUICE_OK)
        return st;
    char *compact = json_dumps(data, JSON_COMPACT);
    out->bytes = compact != NULL ? strlen(compact) : 0;
    free(compact);
    if (req->limits.max_bytes > 0 && out->bytes > req->limits.max_bytes)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the result is %zu bytes; max_result_bytes is %zu: ask for fewer "
                                "fields or smaller lists",
                                out->bytes, req->limits.max_bytes);
    out->shape = SLUICE_EXEC_VALUE;
    out->value = data;
    out->statement_type = "GRAPHQL";
    out->elapsed_ms = sluice_clock_monotonic_ms(NULL) - start;
    return SLUICE_OK;
}
