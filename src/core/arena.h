/*
 * arena.h — region allocator: one arena per request (or per long-lived object), freed at once.
 *
 * Owns: bump allocation in blocks, cleanup callbacks run before the memory goes, the sticky
 * "an allocation failed here" flag that lets analyses fail closed, and the failure-injection
 * hook that lets tests fail the Nth allocation point (arena, sluice_buf, or any allocator a
 * test routes through sluice_arena_fault_point).
 * Does not own: thread safety. An arena belongs to one thread at a time.
 */
#ifndef SLUICE_CORE_ARENA_H
#define SLUICE_CORE_ARENA_H

#include "sluice/sluice.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_arena sluice_arena;

/* A new, empty arena. NULL when memory is exhausted. */
sluice_arena *sluice_arena_new(void);

/* Runs the cleanups (last registered first), then frees every block. NULL does nothing. */
void sluice_arena_free(sluice_arena *arena);

/* Runs the cleanups (as sluice_arena_free does) and forgets every allocation, keeping one block
 * so the next user of a recycled arena (the MCP core keeps one per session for calls run on the
 * reader) skips malloc. Everything allocated before is invalid afterwards. NULL does nothing. */
void sluice_arena_reset(sluice_arena *arena);

/* max_align_t-aligned memory owned by the arena, or NULL on failure (or injected failure). */
void *sluice_arena_alloc(sluice_arena *arena, size_t size);

/* Zeroed memory for count * size bytes; NULL on overflow or failure. */
void *sluice_arena_calloc(sluice_arena *arena, size_t count, size_t size);

/* A NUL-terminated copy of the first len bytes of s (which need not be terminated). */
char *sluice_arena_strndup(sluice_arena *arena, const char *s, size_t len);

/* A NUL-terminated copy of s; NULL s gives NULL. */
char *sluice_arena_strdup(sluice_arena *arena, const char *s);

/* printf into arena memory; NULL on failure. */
char *sluice_arena_printf(sluice_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *sluice_arena_vprintf(sluice_arena *arena, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Registers fn(data) to run when the arena is freed (DuckDB results, curl handles, ...).
 * On SLUICE_E_NOMEM the cleanup is run at once, so the resource never leaks. */
sluice_status sluice_arena_cleanup_add(sluice_arena *arena, void (*fn)(void *), void *data);

/* Bytes handed out so far (for limits and tests). */
size_t sluice_arena_used(const sluice_arena *arena);

/* True once any allocation from this arena has failed (sticky, never cleared). A result built
 * in an arena that lost an allocation is incomplete even when every caller handled the NULL:
 * deciding code checks this last and fails closed. NULL counts as failed. */
bool sluice_arena_failed(const sluice_arena *arena);

/* Test hook: the nth allocation point from now (1-based) in this process fails; 0 turns it
 * off. Every arena allocation counts, across threads, and so does every sluice_buf growth. */
void sluice_arena_fail_at(long nth);

/* True while an injected failure is armed and has not fired yet: an allocation sweep stops at
 * the first N whose run never reached its Nth allocation point. */
bool sluice_arena_fail_pending(void);

/* Allocation points left before the armed failure (0 when off or fired): a test saves it, does
 * uncounted work with sluice_arena_fail_at(0), then re-arms with it. */
long sluice_arena_fail_remaining(void);

/* Counts one allocation point for sluice_arena_fail_at; true when this one must fail. For
 * allocators outside the arena (sluice_buf's malloc, a test's jansson allocator). */
bool sluice_arena_fault_point(void);

#endif
