/*
 * error.h — error values written for the person who sent the input.
 *
 * Owns: sluice_error (status, message, where, hint), helpers that fill it in an arena, and
 * the caret rendering "<source>:<line>:<col>: <what>" + source line + '^'.
 * Does not own: logging (log.h) or JSON shapes (each surface renders errors its own way).
 */
#ifndef SLUICE_CORE_ERROR_H
#define SLUICE_CORE_ERROR_H

#include "core/arena.h"

#include <stddef.h>

typedef struct sluice_error {
    sluice_status status;
    const char *message; /* what is wrong, for the sender; never NULL once set */
    const char *source;  /* file name, "<code>", "<request>", or NULL */
    const char *key;     /* config key or JSON path involved, or NULL */
    size_t line;         /* 1-based; 0 = unknown */
    size_t column;       /* 1-based, in characters; 0 = unknown */
    size_t offset;       /* byte offset of the span start */
    size_t length;       /* byte length of the span */
    const char *hint;    /* how to fix it, or NULL */
} sluice_error;

/* Clears err (NULL is allowed everywhere below and means "caller does not want details"). */
void sluice_error_clear(sluice_error *err);

/* Sets status and a formatted message (allocated in arena; on allocation failure the message
 * is a fixed text). Returns status so callers can `return sluice_error_set(...)`. */
sluice_status
sluice_error_set(sluice_error *err, sluice_arena *arena, sluice_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Sets status and a static message without allocating (for paths with no arena, or that must
 * not fail: out of memory itself). message must outlive err. Returns status. */
sluice_status sluice_error_fixed(sluice_error *err, sluice_status status, const char *message);

/* As sluice_error_set, plus the place: source name, 1-based line and column. */
sluice_status sluice_error_at(sluice_error *err,
                              sluice_arena *arena,
                              sluice_status status,
                              const char *source,
                              size_t line,
                              size_t column,
                              const char *fmt,
                              ...) __attribute__((format(printf, 7, 8)));

/* Adds a hint ("did you mean ...?") to an already set error. */
void sluice_error_hint(sluice_error *err, sluice_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Computes the 1-based line and column (in UTF-8 characters) of byte offset in text. */
void sluice_error_locate(
    const char *text, size_t text_len, size_t offset, size_t *out_line, size_t *out_column);

/* Renders "<source>:<line>:<col>: <message>", then, when text is given, the offending line and a
 * caret under the column, then "hint: ..." when present. Allocated in arena. */
char *sluice_error_render(sluice_arena *arena,
                          const sluice_error *err,
                          const char *text,
                          size_t text_len);

#endif
