/*
 * http_body.h — a response body read under a size cap: libcurl's write callback shared by the
 * HTTP backends (graphql_http.c, openapi_http.c).
 *
 * Owns: growing the buffer, the cap, the NUL at the end. Does not own: what the body means.
 */
#ifndef SLUICE_EXEC_HTTP_BODY_H
#define SLUICE_EXEC_HTTP_BODY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_http_body {
    char *data; /* malloc'd, NUL-terminated once anything arrived; the caller frees it */
    size_t len;
    size_t max;     /* the cap */
    bool too_large; /* the cap stopped the transfer */
} sluice_http_body;

/* CURLOPT_WRITEFUNCTION with CURLOPT_WRITEDATA a sluice_http_body *. Returns size * n, or 0
 * (which aborts the transfer) past the cap (too_large set) or when memory runs out. */
size_t sluice_http_body_write(char *ptr, size_t size, size_t n, void *user);

#endif
