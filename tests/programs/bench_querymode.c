/*
 * bench_querymode.c — query mode's loader against a bare libcurl loop over the same pages, same
 * REST server, same run (test-only program behind bench/querymode/run.sh).
 *
 * Owns: two measured sides, interleaved in every iteration so machine noise hits both:
 *   load   sluice_querymode_load of the config's `invoices` source with seed 004's filter
 *          (Date >= '2026-01-01'): every cursor page fetched, parsed, mapped onto the declared
 *          columns and appended to a session table;
 *   curl   one reused libcurl handle GETting the same URLs (date_from, page_size, cursor),
 *          parsing each body with jansson only to find the rows and the next cursor — the least
 *          any client must do to walk the pages.
 * --extra a,b adds loader sides for more sources of the config (the same filter; e.g. page-style
 * pagination with max_concurrency), reported as load_<name> with their ratio to curl.
 * Prints one JSON object (medians, p90, ratio, pages, rows) to stdout or --out; exits non-zero
 * when the sides disagree on the row count. Does not own: starting the server (run.sh) or judging
 * any number.
 *
 *   bench_querymode --config FILE --base URL [--iterations N] [--warmup W] [--out FILE]
 *                   [--extra SOURCE,SOURCE]
 */
#include "querymode/querymode.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct body {
    char *data;
    size_t len, cap;
} body;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    body *b = ud;
    size_t len = size * n;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->len + len + 1) * 2;
        char *grown = realloc(b->data, cap);
        if (grown == NULL)
            return 0;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, len);
    b->len += len;
    return len;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The bare side: every page of 2026, rows counted. -1 on any failure. */
static int64_t curl_side(CURL *c, const char *base, int64_t *pages)
{
    body b = { 0 };
    char url[4096];
    char cursor[512] = "";
    int64_t rows = 0;
    *pages = 0;
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    for (;;) {
        snprintf(url, sizeof(url), "%s/invoices?date_from=2026-01-01&page_size=100%s%s", base,
                 cursor[0] != '\0' ? "&cursor=" : "", cursor);
        b.len = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        long status = 0;
        if (curl_easy_perform(c) != CURLE_OK ||
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status != 200)
            break;
        json_t *doc = json_loadb(b.data, b.len, 0, NULL);
        const json_t *items = json_object_get(doc, "Invoices");
        const char *next =
            json_string_value(json_object_get(json_object_get(doc, "pagination"), "next_cursor"));
        rows += (int64_t)json_array_size(items);
        (*pages)++;
        snprintf(cursor, sizeof(cursor), "%s", next != NULL ? next : "");
        json_decref(doc);
        if (cursor[0] == '\0') {
            free(b.data);
            return rows;
        }
    }
    free(b.data);
    return -1;
}

/* The loader side. -1 on failure (message on stderr). */
static int64_t
load_side(sluice_querymode *qm, const sluice_qm_caller *caller, const char *source, int64_t *pages)
{
    sluice_arena *arena = sluice_arena_new();
    json_t *args = json_pack("{s:s, s:s, s:s}", "source", source, "where", "Date >= '2026-01-01'",
                             "table", "bench");
    json_t *out = NULL;
    const char *text = NULL;
    sluice_error err = { 0 };
    int64_t rows = -1;
    const sluice_querymode_request req = { arena, caller, NULL, &err };
    if (arena != NULL && args != NULL &&
        sluice_querymode_load(qm, &req, args, &out, &text) == SLUICE_OK) {
        rows = json_integer_value(json_object_get(out, "rowCount"));
        *pages = json_integer_value(json_object_get(out, "pages"));
    } else {
        fprintf(stderr, "load: %s\n", err.message != NULL ? err.message : "failed");
    }
    json_decref(out);
    json_decref(args);
    sluice_arena_free(arena);
    return rows;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

int main(int argc, char **argv)
{
    const char *config_path = NULL, *base = NULL, *out_path = NULL;
    char extra_list[256] = "";
    const char *extra[4];
    int extra_count = 0;
    int iterations = 10, warmup = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--config") == 0)
            config_path = argv[i + 1];
        else if (strcmp(argv[i], "--base") == 0)
            base = argv[i + 1];
        else if (strcmp(argv[i], "--iterations") == 0)
            iterations = (int)strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--warmup") == 0)
            warmup = (int)strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--out") == 0)
            out_path = argv[i + 1];
        else if (strcmp(argv[i], "--extra") == 0)
            snprintf(extra_list, sizeof(extra_list), "%s", argv[i + 1]);
    }
    for (char *save = NULL, *t = strtok_r(extra_list, ",", &save); t != NULL && extra_count < 4;
         t = strtok_r(NULL, ",", &save))
        extra[extra_count++] = t;
    if (config_path == NULL || base == NULL || iterations < 1 || iterations > 10000) {
        fprintf(stderr, "usage: bench_querymode --config FILE --base URL [--iterations N] "
                        "[--warmup W] [--out FILE]\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    sluice_arena *err_arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_config *config = NULL;
    sluice_querymode *qm = NULL;
    if (sluice_config_load(config_path, &config, err_arena, &err) != SLUICE_OK ||
        sluice_querymode_open(config, NULL, &qm, err_arena, &err) != SLUICE_OK) {
        fprintf(stderr, "bench_querymode: %s\n", err.message != NULL ? err.message : "open failed");
        return 1;
    }
    static const sluice_identity who = { "bench", NULL, 0, "none" };
    sluice_qm_caller caller = { .identity = &who, .session_id = "bench" };
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    double *load_us = calloc((size_t)iterations, sizeof(double));
    double *curl_us = calloc((size_t)iterations, sizeof(double));
    double *extra_us[4] = { 0 };
    for (int e = 0; e < extra_count; e++)
        extra_us[e] = calloc((size_t)iterations, sizeof(double));
    int64_t rows_load = 0, rows_curl = 0, pages_load = 0, pages_curl = 0;
    int status = 0;
    for (int i = -warmup; i < iterations && status == 0; i++) {
        bool curl_first = (i & 1) != 0; /* alternate who goes first */
        for (int k = 0; k < 2; k++) {
            double t0 = now_us();
            if ((k == 0) == curl_first)
                rows_curl = curl_side(c, base, &pages_curl);
            else
                rows_load = load_side(qm, &caller, "invoices", &pages_load);
            double dt = now_us() - t0;
            if (i >= 0)
                ((k == 0) == curl_first ? curl_us : load_us)[i] = dt;
        }
        for (int e = 0; e < extra_count && status == 0; e++) {
            int64_t pages = 0;
            double t0 = now_us();
            int64_t rows = load_side(qm, &caller, extra[e], &pages);
            if (i >= 0)
                extra_us[e][i] = now_us() - t0;
            if (rows != rows_curl) {
                fprintf(stderr, "%s loaded %lld rows, curl saw %lld\n", extra[e], (long long)rows,
                        (long long)rows_curl);
                status = 1;
            }
        }
        if (rows_load <= 0 || rows_load != rows_curl || pages_load != pages_curl) {
            fprintf(stderr, "sides disagree: load %lld rows / %lld pages, curl %lld / %lld\n",
                    (long long)rows_load, (long long)pages_load, (long long)rows_curl,
                    (long long)pages_curl);
            status = 1;
        }
    }
    if (status == 0) {
        double lm = pct(load_us, iterations, 0.5), cm = pct(curl_us, iterations, 0.5);
        json_t *report = json_pack(
            "{s:{s:{s:i, s:f, s:f}, s:{s:i, s:f, s:f}}, s:f, s:I, s:I, s:f, s:b}", "sides", "load",
            "n", iterations, "median_ms", lm / 1e3, "p90_ms", pct(load_us, iterations, 0.9) / 1e3,
            "curl", "n", iterations, "median_ms", cm / 1e3, "p90_ms",
            pct(curl_us, iterations, 0.9) / 1e3, "ratio", lm / cm, "rows", (json_int_t)rows_load,
            "pages", (json_int_t)pages_load, "target_ratio", 1.2, "met", lm / cm <= 1.2);
        for (int e = 0; e < extra_count && report != NULL; e++) {
            char name[96];
            snprintf(name, sizeof(name), "load_%s", extra[e]);
            double em = pct(extra_us[e], iterations, 0.5);
            json_object_set_new(
                json_object_get(report, "sides"), name,
                json_pack("{s:i, s:f, s:f, s:f}", "n", iterations, "median_ms", em / 1e3, "p90_ms",
                          pct(extra_us[e], iterations, 0.9) / 1e3, "ratio_to_curl", em / cm));
        }
        if (out_path != NULL)
            json_dump_file(report, out_path, JSON_INDENT(2));
        else
            json_dumpf(report, stdout, JSON_INDENT(2));
        json_decref(report);
    }
    free(load_us);
    free(curl_us);
    for (int e = 0; e < extra_count; e++)
        free(extra_us[e]);
    curl_easy_cleanup(c);
    sluice_querymode_close(qm);
    sluice_config_free(config);
    sluice_arena_free(err_arena);
    curl_global_cleanup();
    return status;
}
