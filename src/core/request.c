/*
 * request.c — the current request and its log line (see request.h).
 */
#include "core/request.h"

#include "core/buf.h"
#include "core/log.h"
#include "core/metrics.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static _Thread_local sluice_request *current;
static atomic_uint_fast64_t counter;
static atomic_uint_fast32_t prefix; /* 0 until the first request draws it */

static uint32_t process_prefix(void)
{
    uint32_t p = (uint32_t)atomic_load(&prefix);
    if (p != 0)
        return p;
    uint32_t drawn = 0;
    if (getrandom(&drawn, sizeof drawn, GRND_NONBLOCK) != (ssize_t)sizeof drawn)
        drawn =
            (uint32_t)time(NULL); /* no entropy yet: the start time still tells restarts apart */
    drawn |= 1u;                  /* never 0, which means "not drawn" */
    uint_fast32_t expected = 0;
    if (!atomic_compare_exchange_strong(&prefix, &expected, drawn))
        return (uint32_t)expected; /* another thread drew first: use theirs */
    return drawn;
}

void sluice_request_begin(sluice_request *rq,
                          const char *method,
                          const char *tool,
                          const char *session,
                          const char *principal)
{
    memset(rq, 0, sizeof *rq);
    uint64_t n = (uint64_t)atomic_fetch_add(&counter, 1u) + 1u;
    snprintf(rq->id, sizeof rq->id, "%08x-%012llx", process_prefix(), (unsigned long long)n);
    rq->method = method != NULL ? method : "";
    rq->session = session;
    rq->principal = principal;
    snprintf(rq->tool, sizeof rq->tool, "%s", tool != NULL ? tool : "");
    rq->rows = -1;
    rq->start_ns = sluice_metric_now_ns();
    rq->outer = current;
    current = rq;
}

const char *sluice_request_current_id(void)
{
    return current != NULL ? current->id : NULL;
}

void sluice_request_note(const char *decision, int64_t rows)
{
    if (current == NULL)
        return;
    if (decision != NULL)
        snprintf(current->decision, sizeof current->decision, "%s", decision);
    if (rows >= 0)
        current->rows = rows;
}

static void put_field(sluice_buf *b, const char *name, const char *value)
{
    sluice_buf_printf(b, ",\"%s\":", name);
    if (value == NULL) {
        sluice_buf_puts(b, "null");
        return;
    }
    sluice_buf_json_string(b, value, strlen(value));
}

static void log_json(const sluice_request *rq, const char *status, double ms)
{
    char stamp[SLUICE_CLOCK_UTC_TEXT];
    sluice_log_timestamp(stamp);
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_buf_printf(&b, "{\"time\":\"%s\",\"level\":\"info\",\"msg\":\"request\"", stamp);
    put_field(&b, "request_id", rq->id);
    put_field(&b, "session", rq->session);
    put_field(&b, "principal", rq->principal);
    put_field(&b, "method", rq->method);
    put_field(&b, "tool", rq->tool[0] != '\0' ? rq->tool : NULL);
    put_field(&b, "status", status);
    put_field(&b, "decision", rq->decision[0] != '\0' ? rq->decision : NULL);
    sluice_buf_printf(&b, ",\"duration_ms\":%.3f", ms);
    if (rq->rows >= 0)
        sluice_buf_printf(&b, ",\"rows\":%lld}", (long long)rq->rows);
    else
        sluice_buf_puts(&b, ",\"rows\":null}");
    if (sluice_buf_status(&b) == SLUICE_OK)
        sluice_log_line(b.data, b.len);
    sluice_buf_dispose(&b);
}

void sluice_request_end(sluice_request *rq, const char *status)
{
    int64_t ns = sluice_metric_now_ns() - rq->start_ns;
    sluice_metric_inc(SLUICE_METRIC_REQUESTS, rq->method, rq->tool, status);
    sluice_metric_observe_ns(SLUICE_METRIC_REQUEST_SECONDS, ns, rq->method, NULL);
    double ms = (double)ns / 1e6;
    if (sluice_log_get_format() == SLUICE_LOG_JSON) {
        if (sluice_log_enabled(SLUICE_LOG_INFO))
            log_json(rq, status, ms);
    } else if (sluice_log_enabled(SLUICE_LOG_DEBUG)) {
        sluice_log(SLUICE_LOG_DEBUG,
                   "request %s %s%s%s %s decision=%s rows=%lld session=%s principal=%s %.3f ms",
                   rq->id, rq->method, rq->tool[0] != '\0' ? " " : "", rq->tool, status,
                   rq->decision[0] != '\0' ? rq->decision : "-", (long long)rq->rows,
                   rq->session != NULL ? rq->session : "-",
                   rq->principal != NULL ? rq->principal : "-", ms);
    }
    current = rq->outer;
}
