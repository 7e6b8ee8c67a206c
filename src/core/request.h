/*
 * request.h — the request being answered on this thread: its id, who asked, what, and how it
 * ended, for the request log line, the metrics and the audit record.
 *
 * Owns: request ids (a per-process random prefix and a counter: unique in the process, and
 * unlikely to repeat across restarts), the thread's current request (a thread-local pointer,
 * set by whoever answers requests: mcp/session.c), the notes lower layers add while it runs
 * (the audit decision and rows), and at its end the sluice_requests_total and duration
 * metrics and the one log line (always with log_format = "json"; at debug level in text).
 * Does not own: the protocol (mcp/), what a decision means (codemode/).
 */
#ifndef SLUICE_CORE_REQUEST_H
#define SLUICE_CORE_REQUEST_H

#include "core/limits.h"

#include <stdint.h>

#define SLUICE_REQUEST_ID_CHARS 24u

typedef struct sluice_request {
    char id[SLUICE_REQUEST_ID_CHARS + 1];
    const char *method;    /* borrowed; outlives the request */
    const char *session;   /* borrowed; may be NULL */
    const char *principal; /* borrowed; may be NULL */
    char tool[SLUICE_LIMIT_METRIC_LABEL_BYTES + 1];
    char decision[32]; /* the last audit decision ("validated", "executed", "refused"...) */
    int64_t rows;      /* rows the request returned; -1 when none */
    int64_t start_ns;
    struct sluice_request *outer; /* the request this one runs inside, if any */
} sluice_request;

/* Starts rq as this thread's current request: a fresh id, the clock started. tool may be NULL
 * (not a tools/call). Never fails. */
void sluice_request_begin(sluice_request *rq,
                          const char *method,
                          const char *tool,
                          const char *session,
                          const char *principal);

/* The current request's id, or NULL outside one. */
const char *sluice_request_current_id(void);

/* Notes the current request's decision (may be NULL: unchanged) and rows (-1: unchanged).
 * Does nothing outside a request. */
void sluice_request_note(const char *decision, int64_t rows);

/* Ends rq (the current request) with status ("ok", "error", "tool_error"): counts it in
 * sluice_requests_total and its duration, writes the request log line, restores the outer
 * request. Never fails. */
void sluice_request_end(sluice_request *rq, const char *status);

#endif
