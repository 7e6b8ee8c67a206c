/*
 * bounded.c — fork a child for one piece of engine work, cap it, wait for its report.
 *
 * Owns: the child's lifetime from fork to reaping. The zombie is kept (waitid WNOWAIT) until
 * the pid is withdrawn from cancellation, so a late cancel can never signal a recycled pid.
 * Does not own: the work or the meaning of its report (see bounded.h).
 */
#include "exec/bounded.h"

#include "core/clock.h"
#include "core/fdio.h"
#include "core/limits.h"
#include "core/metrics.h"
#include "exec/deadline.h"
#include "exec/fork_gate.h"
#include "exec/values.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sluice_bounded {
    pthread_mutex_t mu;
    pid_t pid; /* the live (or zombie) child; 0 = none */
    bool cancelled;
    atomic_bool abandon; /* cancelled, for a run still waiting at the fork gate */
};

static void bounded_release(void *p)
{
    pthread_mutex_destroy(&((sluice_bounded *)p)->mu);
}

sluice_bounded *sluice_bounded_new(sluice_arena *arena)
{
    sluice_bounded *b = sluice_arena_calloc(arena, 1, sizeof(*b));
    if (b == NULL)
        return NULL;
    pthread_mutex_init(&b->mu, NULL);
    atomic_init(&b->abandon, false);
    if (sluice_arena_cleanup_add(arena, bounded_release, b) != SLUICE_OK) {
        pthread_mutex_destroy(&b->mu);
        return NULL;
    }
    return b;
}

void sluice_bounded_cancel(void *bounded)
{
    sluice_bounded *b = bounded;
    pthread_mutex_lock(&b->mu);
    b->cancelled = true;
    if (b->pid > 0)
        kill(b->pid, SIGKILL);
    pthread_mutex_unlock(&b->mu);
    atomic_store(&b->abandon, true);
    sluice_fork_gate_wake();
}

/* Field 0 (size) or 1 (resident) of /proc/<pid>/statm in bytes; 0 when unreadable. */
static uint64_t statm_bytes(pid_t pid, int field)
{
    char path[64];
    unsigned long long v[2] = { 0, 0 };
    if (pid > 0)
        snprintf(path, sizeof(path), "/proc/%ld/statm", (long)pid);
    else
        snprintf(path, sizeof(path), "/proc/self/statm");
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%llu %llu", &v[0], &v[1]) != 2)
        v[0] = v[1] = 0;
    fclose(f);
    return (uint64_t)v[field] * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t mapped_bytes(void)
{
    return statm_bytes(0, 0);
}

/* The child: cap, work, report, _exit (no atexit handlers, no stdio flush of the parent's
 * buffers, no DuckDB destructors). Exit 0 only after the whole report was written. */
static void child_main(
    int wfd, const sluice_bounded_limits *lim, sluice_bounded_fn fn, void *arg, sluice_arena *arena)
{
    /* A fault a test armed belongs to the parent's allocations: the child's own are bounded by
     * its limits, and a fault fired here would be invisible to the sweep that armed it. */
    sluice_arena_fail_at(0);
    struct rlimit core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &core);
    if (lim->memory_bytes > 0) {
        uint64_t base = mapped_bytes();
        if (base == 0)
            _exit(3); /* cannot place the cap: refuse rather than run uncapped */
        struct rlimit as = { (rlim_t)(base + lim->memory_bytes),
                             (rlim_t)(base + lim->memory_bytes) };
        if (setrlimit(RLIMIT_AS, &as) != 0)
            _exit(3);
    }
    sluice_buf out;
    sluice_buf_init(&out, arena, lim->max_report);
    fn(arg, &out);
    if (sluice_buf_status(&out) != SLUICE_OK)
        _exit(2);
    _exit(sluice_write_all(wfd, out.data != NULL ? out.data : "", out.len) ? 0 : 2);
}

/* What the parent watches while the child works. */
typedef struct watch {
    pid_t pid;
    int64_t deadline;
    uint64_t rss_base; /* the server's resident size at fork: the child starts there */
    uint64_t rss_cap;  /* 0 = not watched */
    bool over;         /* the child grew past rss_cap and was killed */
} watch;

static bool rss_exceeded(watch *w)
{
    if (w->rss_cap == 0)
        return false;
    uint64_t rss = statm_bytes(w->pid, 1);
    return rss > w->rss_base + w->rss_cap;
}

/* Reads the report until EOF or the deadline; false when the deadline passed first. */
static bool read_report(int fd, watch *w, sluice_buf *rep, bool *overflow)
{
    char chunk[65536];
    int64_t step = w->rss_cap > 0 ? SLUICE_LIMIT_BOUNDED_POLL_MS : 1000;
    for (;;) {
        int64_t left = w->deadline - sluice_clock_monotonic_ms(NULL);
        if (left <= 0)
            return false;
        if (rss_exceeded(w)) {
            w->over = true;
            kill(w->pid, SIGKILL);
            return true;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, (int)(left > step ? step : left));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue; /* re-check the deadline */
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return true;
        sluice_buf_append(rep, chunk, (size_t)n);
        if (sluice_buf_status(rep) != SLUICE_OK) {
            *overflow = true;
            return true;
        }
    }
}

/* Waits (without reaping) until the child exits or the deadline passes; kills it then. */
static void await_exit(pid_t pid, int64_t deadline, bool *timed_out)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        int r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if (r == 0 && si.si_pid == pid)
            return;
        if (r < 0 && errno != EINTR)
            return;
        if (sluice_clock_monotonic_ms(NULL) >= deadline) {
            *timed_out = true;
            kill(pid, SIGKILL);
            deadline = INT64_MAX; /* SIGKILL cannot be ignored: now wait for it */
        }
        struct timespec ms = { 0, 1000000L };
        nanosleep(&ms, NULL);
    }
}

/* Forks the child that runs fn and writes its report to wfd (the child never returns from
 * here); -1 when the run was cancelled first or fork failed. The child is registered in b->pid
 * under b->mu, so a cancel either stops the fork or finds the child to kill. */
static pid_t fork_child(sluice_bounded *b,
                        int wfd,
                        const sluice_bounded_limits *lim,
                        sluice_bounded_fn fn,
                        void *arg,
                        sluice_arena *arena)
{
    pthread_mutex_lock(&b->mu);
    pid_t pid = b->cancelled ? -1 : fork();
    if (pid == 0) {
        sluice_fork_gate_in_child();
        sluice_deadline_in_child();
        child_main(wfd, lim, fn, arg, arena);
    }
    if (pid > 0)
        b->pid = pid;
    pthread_mutex_unlock(&b->mu);
    return pid;
}

/* The parent's side after the fork: reads the report from fd until EOF, the deadline or a
 * limit, kills the child when it must, reaps it, and says how the run ended. Closes fd. */
static sluice_bounded_outcome
collect_child(sluice_bounded *b, pid_t pid, int fd, watch *w, sluice_buf *rep)
{
    bool overflow = false, timed_out = false;
    w->pid = pid;
    if (!read_report(fd, w, rep, &overflow)) {
        timed_out = true;
        kill(pid, SIGKILL);
    }
    if (overflow)
        kill(pid, SIGKILL);
    close(fd);
    await_exit(pid, timed_out ? INT64_MAX : w->deadline, &timed_out);
    pthread_mutex_lock(&b->mu);
    b->pid = 0;
    bool cancelled = b->cancelled;
    pthread_mutex_unlock(&b->mu);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (cancelled)
        return SLUICE_BOUNDED_CANCELLED;
    if (timed_out)
        return SLUICE_BOUNDED_TIMEOUT;
    if (!overflow && !w->over && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SLUICE_BOUNDED_DONE;
    return SLUICE_BOUNDED_DIED;
}

static sluice_status run_child(sluice_bounded *b,
                               const sluice_bounded_limits *lim,
                               sluice_bounded_fn fn,
                               void *arg,
                               sluice_arena *arena,
                               sluice_bounded_outcome *outcome,
                               const char **report,
                               size_t *report_len)
{
    *outcome = SLUICE_BOUNDED_DIED;
    *report = NULL;
    *report_len = 0;
    sluice_buf rep;
    sluice_buf_init(&rep, arena, lim->max_report);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return SLUICE_E_INTERNAL;
    watch w = { .rss_cap = lim->rss_bytes };
    if (w.rss_cap > 0 && (w.rss_base = statm_bytes(0, 1)) == 0) {
        close(fds[0]);
        close(fds[1]);
        return SLUICE_E_INTERNAL; /* cannot watch: refuse rather than run unwatched */
    }
    /* No thread may be inside DuckDB at the fork (fork_gate.h); waiting for them has its own
     * budget, so the child's deadline is all the child's. */
    if (!sluice_fork_gate_close(sluice_clock_monotonic_ms(NULL) + lim->timeout_ms, &b->abandon)) {
        close(fds[0]);
        close(fds[1]);
        *outcome = atomic_load(&b->abandon) ? SLUICE_BOUNDED_CANCELLED : SLUICE_BOUNDED_BUSY;
        return SLUICE_OK;
    }
    w.deadline = sluice_clock_monotonic_ms(NULL) + lim->timeout_ms;
    pid_t pid = fork_child(b, fds[1], lim, fn, arg, arena);
    sluice_fork_gate_open();
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        if (b->cancelled) {
            *outcome = SLUICE_BOUNDED_CANCELLED;
            return SLUICE_OK;
        }
        return SLUICE_E_INTERNAL;
    }
    *outcome = collect_child(b, pid, fds[0], &w, &rep);
    if (*outcome == SLUICE_BOUNDED_DONE) {
        *report = sluice_buf_cstr(&rep);
        *report_len = rep.len;
        if (sluice_buf_status(&rep) != SLUICE_OK)
            return SLUICE_E_NOMEM;
    }
    return SLUICE_OK;
}

/* The caller's own fork-gate regions are set aside for the whole run: it does not call DuckDB
 * while it forks and waits, and a region held across the child's run would make every other
 * fork wait for this child. */
sluice_status sluice_bounded_run(sluice_bounded *b,
                                 const sluice_bounded_limits *lim,
                                 sluice_bounded_fn fn,
                                 void *arg,
                                 sluice_arena *arena,
                                 sluice_bounded_outcome *outcome,
                                 const char **report,
                                 size_t *report_len)
{
    sluice_metric_inc(SLUICE_METRIC_BOUNDED_RUNS, NULL, NULL, NULL);
    unsigned held = sluice_fork_gate_suspend();
    sluice_status st = run_child(b, lim, fn, arg, arena, outcome, report, report_len);
    sluice_fork_gate_resume(held);
    return st;
}

uint64_t sluice_bounded_parse_size(const char *text)
{
    static const struct {
        const char *unit;
        uint64_t mult;
    } units[] = {
        { "", 1 },
        { "B", 1 },
        { "KB", 1000ull },
        { "MB", 1000ull * 1000 },
        { "GB", 1000ull * 1000 * 1000 },
        { "TB", 1000ull * 1000 * 1000 * 1000 },
        { "KIB", 1024ull },
        { "MIB", 1024ull * 1024 },
        { "GIB", 1024ull * 1024 * 1024 },
        { "TIB", 1024ull * 1024 * 1024 * 1024 },
    };
    if (text == NULL)
        return 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !(v > 0) || v > 1e15)
        return 0;
    while (*end == ' ')
        end++;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcasecmp(end, units[i].unit) == 0)
            return (uint64_t)(v * (double)units[i].mult);
    return 0;
}
