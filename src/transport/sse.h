/*
 * sse.h — Server-Sent Events framing for the HTTP transport.
 *
 * Owns: the bytes of one event carrying one JSON-RPC message ("event: message", one "data:"
 * line, a blank line) and of the keep-alive comment. A message is compact JSON, so it never
 * contains a newline and always fits one data line. Does not own: queues or streams
 * (http_session.c), HTTP responses (http.c).
 */
#ifndef SLUICE_TRANSPORT_SSE_H
#define SLUICE_TRANSPORT_SSE_H

#include <stddef.h>

/* A comment line clients ignore; written on an idle stream to find clients that went away. */
#define SLUICE_SSE_KEEPALIVE ": keepalive\n\n"

/* The event for the message text json[0..len) as a malloc'd NUL-terminated string (free() it),
 * its length in *out_len; NULL when out of memory. */
char *sluice_sse_event(const char *json, size_t len, size_t *out_len);

#endif
