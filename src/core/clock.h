/*
 * clock.h — the injectable clock: wall time and monotonic time behind one small struct.
 *
 * Owns: the system clock (CLOCK_REALTIME / CLOCK_MONOTONIC) and a manual clock that tests set
 * and advance, so nothing that has a TTL (approval tokens, consume-once ids, approvals, audit
 * timestamps) needs a test to sleep. A NULL clock means the system clock everywhere, so code that
 * was never handed one keeps working. Does not own: what any deadline means (the callers decide);
 * how a server is told to use another clock (only tests construct one; `sluice serve --test-clock`
 * reads the wall time from a file, core/clock_file.h; no config reaches it).
 */
#ifndef SLUICE_CORE_CLOCK_H
#define SLUICE_CORE_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct sluice_clock sluice_clock;

/* A clock is two functions over itself; implementations embed it as their first member. Both
 * must be thread-safe and never fail (a clock that cannot read time is a broken host). */
struct sluice_clock {
    int64_t (*realtime_ns)(const sluice_clock *self);  /* nanoseconds since the Unix epoch */
    int64_t (*monotonic_ns)(const sluice_clock *self); /* never goes back; arbitrary origin */
};

/* The process's real clock (a static object: never freed). */
const sluice_clock *sluice_clock_system(void);

/* Wall time in seconds / milliseconds since the epoch, and monotonic nanoseconds, from clock
 * (NULL: the system clock). */
int64_t sluice_clock_now_s(const sluice_clock *clock);
int64_t sluice_clock_now_ms(const sluice_clock *clock);
int64_t sluice_clock_monotonic_ns(const sluice_clock *clock);
int64_t sluice_clock_monotonic_ms(const sluice_clock *clock);

/* The absolute CLOCK_REALTIME time ms milliseconds from now, in the form pthread_cond_timedwait
 * wants. Always the system clock: a condition variable waits on the host's clock, so an injected
 * clock could only make a wait end at the wrong time. */
struct timespec sluice_clock_deadline_after(int64_t ms);

/* The proleptic Gregorian date (month 1-12, day 1-31) of days since 1970-01-01, before it too:
 * what the text below and Cedar's datetime (policy/cedar/datetime.c) are written from. */
void sluice_clock_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* The one writer of UTC times as text (RFC 3339), for every layer: a token's expiry, quota and
 * approval times (seconds), the log's and the audit record's time, query mode's expiries
 * (milliseconds). Written from the date's arithmetic for the years 1970-9999 (per validate, the
 * expiry and the audit record's ts, where gmtime_r and strftime were a thousand instructions
 * each), by gmtime_r and strftime otherwise: the same text either way. */
#define SLUICE_CLOCK_UTC_TEXT 32 /* the longest, 31: ms near INT64_MIN ("-292275055-...-808Z") */

/* secs (since the epoch) as "YYYY-MM-DDTHH:MM:SSZ", as gmtime_r and strftime's
 * "%Y-%m-%dT%H:%M:%SZ" write it. false, and out "", for a time gmtime_r cannot represent (a
 * year struct tm cannot hold): a caller that can meet one writes its own stand-in. */
bool sluice_clock_utc_text(int64_t secs, char out[SLUICE_CLOCK_UTC_TEXT]);

/* ms (since the epoch) as "YYYY-MM-DDTHH:MM:SS.mmmZ": the seconds of ms / 1000 as
 * sluice_clock_utc_text writes them, then "." and ms % 1000 as "%03d" writes it (so a time
 * before the epoch keeps C's truncated division, as the log and the audit record always wrote
 * it). out "" where sluice_clock_utc_text answers false. */
void sluice_clock_utc_text_ms(int64_t ms, char out[SLUICE_CLOCK_UTC_TEXT]);

/* A clock that moves only when told to. Thread-safe: readers and the test that moves it may
 * run on different threads. */
typedef struct sluice_manual_clock {
    sluice_clock clock; /* first: pass &m->clock wherever a clock is wanted */
    _Atomic int64_t realtime_ns;
    _Atomic int64_t monotonic_ns;
} sluice_manual_clock;

/* Starts the clock at now_s seconds since the epoch (monotonic time starts at 0). */
void sluice_manual_clock_init(sluice_manual_clock *m, int64_t now_s);

/* Moves both wall and monotonic time forward by ms (a negative ms moves only the wall clock
 * back, as an NTP step would; monotonic time never goes back). */
void sluice_manual_clock_advance_ms(sluice_manual_clock *m, int64_t ms);

#endif
