/*
 * arena.h — region allocator: one arena per request (or per long-lived object), freed at once.
 *
 * Owns: bump allocation in blocks, cleanup callbacks run before the memory goes, and the
 * failure-injection hook that lets tests fail the Nth allocation.
 * Does not own: thread safety. An arena belongs to one thread at a time.
 */
#ifndef SLUICE_CORE_ARENA_H
#define SLUICE_CORE_ARENA_H

#include "sluice/sluice.h"

#include <stdarg.h>
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

/* Test hook: the nth allocation from now (1-based) in this process fails; 0 turns it off.
 * Every arena allocation counts, across threads. */
void sluice_arena_fail_at(long nth);

#endif
