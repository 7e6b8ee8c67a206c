/*
 * globals.c — the only mutable globals in sluice. Each says who writes it and why it must be
 * global; everything else travels in a context pointer.
 */
#include <stdatomic.h>

/* Written by sluice_arena_fail_at() (tests only). Global because allocation failure injection
 * must reach arenas created deep inside the code under test. */
atomic_long sluice_arena_fail_countdown;

/* Written by sluice_log_set_level() at start-up and by SIGUSR-free CLI flags. Global because
 * every module logs to the same stderr sink. */
atomic_int sluice_log_threshold = 1; /* SLUICE_LOG_INFO */

/* Written by sluice_log_set_format() at start-up ([server] log_format). Global with the
 * threshold: the same stderr sink. (The metrics registry, core/metrics.c, is the other
 * process-wide state: static there because its type is private.) */
atomic_int sluice_log_format_global = 0; /* SLUICE_LOG_TEXT */

/* Not here: the arena's block cache (core/arena.c) is per thread (_Thread_local, freed at the
 * thread's exit), so it needs no lock and is no process-wide state. */
