/*
 * bounded.h — run one piece of engine work in a forked child with a wall-clock deadline and an
 * address-space cap, and bring back the bytes it reports.
 *
 * Owns: fork, the child's rlimits, the report pipe, the deadline (SIGKILL), cancellation (kill
 * from any thread) and the outcome classification.
 * Does not own: what the child does (the caller's function) or what its report means.
 *
 * Why a process: DuckDB folds constant expressions while preparing and builds huge lists and
 * strings in single vectors; neither memory_limit nor duckdb_interrupt stops that (measured on
 * 1.5.6: `SELECT len(range(100000000))` grew RSS by 9 GB and noticed an interrupt after 34 s).
 * A forked child shares the parent's catalog copy-on-write, and RLIMIT_AS turns the runaway
 * allocation into DuckDB's own "Out of Memory Error" (or the child's death) without the server's
 * resident memory growing at all. RLIMIT_AS has one blind spot: DuckDB's binder catches the
 * failed allocation of a constant fold and silently leaves the expression to run time, so a
 * probe that must learn whether folding fits polls the child's resident size instead. The child is
 * a fork of a threaded process: it only runs the caller's function on the calling thread's state
 * and leaves with _exit. A DuckDB lock held by another thread at fork time would stall the child
 * (fork copies only the calling thread), so the fork waits at the process-wide fork gate
 * (exec/fork_gate.h) until no thread is inside DuckDB, and keeps new DuckDB work out for the
 * instant of the fork. Chosen over a zygote process or spawning sluice as a worker: the child
 * needs the caller's exact in-memory state (the analysis connection and extracted statement,
 * in-memory session databases, the SQLite mirror), which only a fork of the caller has.
 * Residual risk: a lock outside DuckDB that another thread holds at the fork and the child then
 * takes (glibc's malloc and stdio locks and DuckDB's jemalloc have fork handlers; the child uses
 * nothing else but its own arena), and a DuckDB worker thread still in the tail of a finished
 * task's destructor; the deadline ends such a child (fail closed). Cost: a fork waits for the
 * in-process DuckDB work in flight to finish (at most lim->timeout_ms, then BUSY), and DuckDB work
 * that arrives meanwhile waits for the fork.
 */
#ifndef SLUICE_EXEC_BOUNDED_H
#define SLUICE_EXEC_BOUNDED_H

#include "core/arena.h"
#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sluice_bounded_limits {
    int64_t timeout_ms;    /* wall clock from fork to report; must be > 0 */
    uint64_t memory_bytes; /* address space the child may add to what it inherits; 0 = none */
    uint64_t rss_bytes;    /* resident memory it may add, polled every SLUICE_LIMIT_BOUNDED_POLL_MS
                            * (the child is killed past it: DIED); 0 = none */
    size_t max_report;     /* bytes the child may report; more is treated as a crash */
} sluice_bounded_limits;

typedef enum sluice_bounded_outcome {
    SLUICE_BOUNDED_DONE = 0,      /* the child reported and exited 0; report holds its bytes */
    SLUICE_BOUNDED_TIMEOUT = 1,   /* killed at the deadline */
    SLUICE_BOUNDED_DIED = 2,      /* died, or exited without a full report (memory cap hit) */
    SLUICE_BOUNDED_CANCELLED = 3, /* killed by sluice_bounded_cancel */
    SLUICE_BOUNDED_BUSY = 4,      /* not started: other threads stayed inside DuckDB for
                                   * timeout_ms (the fork gate did not close) */
} sluice_bounded_outcome;

/* Runs in the child: appends its report to out (an arena buffer of the child's copy). */
typedef void (*sluice_bounded_fn)(void *arg, sluice_buf *out);

/* One run's shared state, for cancellation from another thread. Allocate with
 * sluice_bounded_new before the run; it lives in the arena. */
typedef struct sluice_bounded sluice_bounded;

/* NULL on allocation failure. */
sluice_bounded *sluice_bounded_new(sluice_arena *arena);

/* Kills the child if one is running (any thread, any time until the arena is freed); a run
 * that has not started yet ends CANCELLED as soon as it starts. */
void sluice_bounded_cancel(void *bounded);

/* Waits at the fork gate (at most lim->timeout_ms; BUSY past it), forks, runs fn(arg) in the
 * child under lim, waits for its report or the deadline (lim->timeout_ms from the fork). May be
 * called inside a fork-gate region with no DuckDB query of this thread in flight.
 * SLUICE_OK with *outcome set (and *report / *report_len, NUL-terminated in arena, when DONE);
 * SLUICE_E_NOMEM, or SLUICE_E_INTERNAL when no child could be started (fork or pipe failed):
 * callers must then refuse, never run the work unbounded. */
sluice_status sluice_bounded_run(sluice_bounded *b,
                                 const sluice_bounded_limits *lim,
                                 sluice_bounded_fn fn,
                                 void *arg,
                                 sluice_arena *arena,
                                 sluice_bounded_outcome *outcome,
                                 const char **report,
                                 size_t *report_len);

/* "256MB"-style sizes as DuckDB's memory_limit takes them (B, KB, MB, GB, TB, KiB ... TiB; a
 * bare number is bytes); 0 when text is NULL or not such a size. */
uint64_t sluice_bounded_parse_size(const char *text);

#endif
