/*
 * http_source.h — fetching a kind = "http" source's pages: parameters, pagination (page, offset,
 * cursor, Link rel=next, a next URL in the body), rate limit, retries with backoff on 429/5xx
 * honouring Retry-After, allow_404_empty, the SSRF guard, and rows pulled out of each body at
 * response.path and mapped onto the source's columns.
 *
 * Owns: the libcurl requests and what a page means; with max_concurrency > 1, page and offset
 * pages are fetched that many at a time (one handle and thread each, the rate budget shared) and
 * delivered in page order. Does not own: where rows go (a callback),
 * which parameters a load sends (querymode.c decides from args and where).
 * SSRF guard: every connection's address is checked after DNS, at connect time (so a rebinding
 * name cannot slip through): loopback, link-local, private, unique-local, unspecified and
 * multicast addresses are refused unless base_url's own host is such an address (or
 * "localhost") (core/netguard.h; no proxy); redirects are never followed; next links must keep
 * base_url's origin.
 */
#ifndef SLUICE_QUERYMODE_HTTP_SOURCE_H
#define SLUICE_QUERYMODE_HTTP_SOURCE_H

#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most pages one load fetches at once (a source's max_concurrency is capped here). */
#define SLUICE_QM_MAX_CONCURRENCY 16u

/* One request parameter (name=value), URL-encoded when sent. */
typedef struct sluice_qm_param {
    const char *name;
    const char *value;
} sluice_qm_param;

/* Rows of one page arrive here as an array of arrays (one value per column); return non-OK to
 * stop (SLUICE_E_LIMIT: a cap was reached, the fetch ends with truncated set). */
typedef sluice_status (*sluice_qm_rows_fn)(void *ctx, const json_t *rows, sluice_error *err);

/* A source's request spacing (requests_per_minute), shared by every load of that source so
 * concurrent callers together stay under it. Initialise with SLUICE_QM_RATE_INIT. */
typedef struct sluice_qm_rate {
    pthread_mutex_t mu;
    int64_t next_slot_ms; /* monotonic: the earliest the next request may start */
} sluice_qm_rate;
#define SLUICE_QM_RATE_INIT          \
    {                                \
        PTHREAD_MUTEX_INITIALIZER, 0 \
    }

typedef struct sluice_qm_fetch {
    const sluice_config_source *source;
    sluice_qm_rate *rate; /* NULL: spacing within this fetch only */
    const sluice_qm_param *params;
    size_t param_count;
    int64_t max_pages;
    size_t max_bytes;
    /* Columns: the source's, or (none declared) filled from the first row: name/type in arena. */
    const char **column_names;
    const char **column_types;
    const char **column_paths;
    size_t column_count;
    sluice_qm_rows_fn on_rows;
    void (*on_page)(void *ctx, int64_t page, int64_t rows_so_far); /* may be NULL */
    void *ctx;
    atomic_bool *cancelled; /* may be NULL */
    /* results */
    int64_t pages;
    size_t bytes;
    int64_t rows;
    bool truncated;
    const char *truncated_by; /* "max_pages" | "max_load_bytes" | "max_load_rows" */
} sluice_qm_fetch;

/* Fetches every page (until the last, a cap, or cancellation). On SLUICE_OK the fields under
 * "results" are set. Errors: SLUICE_E_CANCELLED, SLUICE_E_DENIED (SSRF guard, foreign next
 * link), SLUICE_E_IO (the source kept failing: status and attempts in the message),
 * SLUICE_E_INVALID (a body that is not JSON or has no rows array at response.path, a repeated
 * cursor), SLUICE_E_CONFIG (credential missing). Strings in arena. */
sluice_status sluice_qm_http_fetch(sluice_qm_fetch *f, sluice_arena *arena, sluice_error *err);

/* Maps one response's rows (an array of objects) onto f's columns (inferred from the first row
 * when f has none) and hands them to f->on_rows; f->rows counts them. For other transports
 * (mcp_source.c). Errors as on_rows', SLUICE_E_INVALID for rows that are not objects. */
sluice_status
sluice_qm_deliver(sluice_qm_fetch *f, const json_t *items, sluice_arena *arena, sluice_error *err);

/* The value at a dotted path ("a.b.c"; "" or "$" is v itself; "$." prefix allowed), or NULL. */
const json_t *sluice_qm_json_path(const json_t *v, const char *path);

#endif
