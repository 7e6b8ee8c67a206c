/*
 * clock.c — the system clock and the manual test clock (see clock.h).
 */
#include "core/clock.h"

#include <time.h>

#define NS_PER_S  1000000000LL
#define NS_PER_MS 1000000LL

static int64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + (int64_t)ts.tv_nsec;
}

static int64_t system_realtime(const sluice_clock *self)
{
    (void)self;
    return read_clock(CLOCK_REALTIME);
}

static int64_t system_monotonic(const sluice_clock *self)
{
    (void)self;
    return read_clock(CLOCK_MONOTONIC);
}

static const sluice_clock system_clock = { system_realtime, system_monotonic };

const sluice_clock *sluice_clock_system(void)
{
    return &system_clock;
}

static const sluice_clock *or_system(const sluice_clock *clock)
{
    return clock != NULL ? clock : &system_clock;
}

int64_t sluice_clock_now_s(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->realtime_ns(c) / NS_PER_S;
}

int64_t sluice_clock_now_ms(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->realtime_ns(c) / NS_PER_MS;
}

int64_t sluice_clock_monotonic_ns(const sluice_clock *clock)
{
    const sluice_clock *c = or_system(clock);
    return c->monotonic_ns(c);
}

int64_t sluice_clock_monotonic_ms(const sluice_clock *clock)
{
    return sluice_clock_monotonic_ns(clock) / 1000000;
}

struct timespec sluice_clock_deadline_after(int64_t ms)
{
    int64_t at = read_clock(CLOCK_REALTIME) + ms * NS_PER_MS;
    return (struct timespec){ .tv_sec = (time_t)(at / NS_PER_S), .tv_nsec = (long)(at % NS_PER_S) };
}

/* The manual clock is the first member of sluice_manual_clock, so the cast is the container. */
static int64_t manual_realtime(const sluice_clock *self)
{
    return atomic_load(&((sluice_manual_clock *)(uintptr_t)self)->realtime_ns);
}

static int64_t manual_monotonic(const sluice_clock *self)
{
    return atomic_load(&((sluice_manual_clock *)(uintptr_t)self)->monotonic_ns);
}

void sluice_manual_clock_init(sluice_manual_clock *m, int64_t now_s)
{
    m->clock.realtime_ns = manual_realtime;
    m->clock.monotonic_ns = manual_monotonic;
    atomic_store(&m->realtime_ns, now_s * NS_PER_S);
    atomic_store(&m->monotonic_ns, 0);
}

void sluice_manual_clock_advance_ms(sluice_manual_clock *m, int64_t ms)
{
    atomic_fetch_add(&m->realtime_ns, ms * NS_PER_MS);
    if (ms > 0)
        atomic_fetch_add(&m->monotonic_ns, ms * NS_PER_MS);
}
