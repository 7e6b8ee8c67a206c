/*
 * fork_gate.h — the process-wide gate that keeps fork() away from threads inside DuckDB.
 *
 * Owns: one writer-preferring shared/exclusive gate. Every region of the server that calls into
 * DuckDB (an in-process execution from connect to disconnect, an analysis from its connection
 * to its last bind, a session load, an open or close) holds it shared; sluice_bounded_run holds
 * it exclusive around fork() alone. fork() copies only the calling thread, so a DuckDB lock that
 * another thread held at that instant would stay locked in the child forever; with the gate
 * closed no server thread is inside DuckDB, and DuckDB's own worker threads are idle, because
 * they only run tasks of queries inside gated regions (a region ends after the result is
 * destroyed and the connection closed, which wait for the query's tasks).
 * Does not own: the fork (exec/bounded.c) or the regions (their callers).
 *
 * Rules: regions nest per thread (only the outermost takes the gate), so a region may call
 * another gated function. A region must not wait for another thread's region (writer
 * preference would deadlock it behind a waiting fork). sluice_bounded_run may be called inside a
 * region: the calling thread's own hold is set aside for the whole run (it is not inside DuckDB
 * while it forks and waits for the child), so it must have no query running in the background
 * (no open streaming result).
 * In the forked child the gate does nothing: the child is single-threaded.
 */
#ifndef SLUICE_EXEC_FORK_GATE_H
#define SLUICE_EXEC_FORK_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Enters a DuckDB region (shared); waits while a fork is pending. Never fails. */
void sluice_fork_gate_enter(void);

/* Leaves the region entered last by this thread. */
void sluice_fork_gate_leave(void);

/* Sets aside this thread's regions (it must not be inside a DuckDB call, nor have a query of
 * its own in flight) and returns what sluice_fork_gate_resume needs; 0 when it held none. */
unsigned sluice_fork_gate_suspend(void);

/* Takes back the regions sluice_fork_gate_suspend set aside (waits while a fork is pending). */
void sluice_fork_gate_resume(unsigned held);

/* Closes the gate for one fork: waits until no thread is in a region and keeps new regions out
 * until sluice_fork_gate_open. false when that did not happen by deadline_ms
 * (sluice_clock_monotonic_ms), when *abandon (may be NULL) became true (see
 * sluice_fork_gate_wake), or when this thread is itself in a region (suspend first); the gate is
 * then as before. */
bool sluice_fork_gate_close(int64_t deadline_ms, const atomic_bool *abandon);

/* Reopens the gate after a successful close. */
void sluice_fork_gate_open(void);

/* Wakes the forks waiting in sluice_fork_gate_close so they see their abandon flag. */
void sluice_fork_gate_wake(void);

/* Forks waiting in sluice_fork_gate_close now (diagnostics and tests). */
unsigned sluice_fork_gate_waiting(void);

/* Called first thing in the forked child: every gate call there becomes a no-op. */
void sluice_fork_gate_in_child(void);

#endif
