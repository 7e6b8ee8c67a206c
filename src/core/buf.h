/*
 * buf.h — bounded string builder with a sticky error (after SQLite's sqlite3_str).
 *
 * Owns: appending bytes and formatted text up to a maximum; once an append fails (limit or
 * memory) every later append is a no-op and sluice_buf_status() reports why. Check once.
 * Does not own: the memory policy beyond "arena if given, else malloc".
 */
#ifndef SLUICE_CORE_BUF_H
#define SLUICE_CORE_BUF_H

#include "core/arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_buf {
    char *data; /* always NUL-terminated once anything was appended */
    size_t len;
    size_t cap;
    size_t max;           /* ceiling on len; 0 means SIZE_MAX/2 */
    sluice_arena *arena;  /* NULL: malloc-backed, release with sluice_buf_dispose */
    sluice_status status; /* sticky: first failure */
} sluice_buf;

/* Starts an empty buffer. With arena NULL the buffer mallocs and must be disposed. */
void sluice_buf_init(sluice_buf *buf, sluice_arena *arena, size_t max);

/* Makes room for n more bytes now (no more than the maximum allows), so that appends up to n
 * grow no further: one allocation for a builder that knows about how much it writes, not a
 * chain of doublings from 64 bytes. A failure is sticky, as an append's. */
void sluice_buf_reserve(sluice_buf *buf, size_t n);

void sluice_buf_append(sluice_buf *buf, const void *data, size_t len);
void sluice_buf_puts(sluice_buf *buf, const char *s);
void sluice_buf_putc(sluice_buf *buf, char c);
void sluice_buf_printf(sluice_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sluice_buf_vprintf(sluice_buf *buf, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Appends s as a JSON string literal (quotes included, control bytes escaped), byte for byte
 * what jansson's compact dump writes for the same string. */
void sluice_buf_json_string(sluice_buf *buf, const char *s, size_t len);

/* The text so far ("" when empty); valid until the next append. */
const char *sluice_buf_cstr(const sluice_buf *buf);

/* SLUICE_OK, SLUICE_E_LIMIT (max reached) or SLUICE_E_NOMEM. */
sluice_status sluice_buf_status(const sluice_buf *buf);

/* Frees a malloc-backed buffer; arena-backed buffers need nothing. */
void sluice_buf_dispose(sluice_buf *buf);

#endif
