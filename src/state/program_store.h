/*
 * program_store.h — where saved programs (issue 24 item 4) are kept: an append-only, hash-linked
 * list of promotion and demotion lines, behind a small ops table.
 *
 * Owns: the store interface (sluice_program_store_ops + an opaque handle), the line contract
 * every store keeps (each line is one JSON object carrying "prev", "name" and "version"; prev is
 * the SHA-256 hex of the previous line's exact text, 64 zeros for the first, so a line removed,
 * reordered or edited in the middle breaks the link), the version rule (a name's next line has
 * version = its last version + 1, checked under the store's lock, so two administrators cannot
 * both write version 3), and the file store: one file of JSON lines (mode 0600) shared by the
 * server and `sluice program` in another process; a write takes an exclusive flock, re-reads,
 * checks and appends one line.
 * Does not own: what a line says or its signature (codemode/program.h seals and opens records
 * with the token keyring; this layer sits beside token/ and cannot), who may write (the CLI
 * trusts whoever can read the token key; the console checks the [admin] key).
 * Fails closed: a line that is not a JSON object with those fields, a broken link, or a file
 * past its limit makes a read fail with the line number, and then no saved program runs.
 */
#ifndef SLUICE_STATE_PROGRAM_STORE_H
#define SLUICE_STATE_PROGRAM_STORE_H

#include "core/arena.h"
#include "core/error.h"
#include "core/hash.h"

#include <stddef.h>
#include <stdint.h>

/* prev of the first line: 64 zeros. */
#define SLUICE_PROGRAM_STORE_FIRST_PREV \
    "0000000000000000000000000000000000000000000000000000000000000000"

/* One line as read back: its text (without the newline), and the fields the store itself
 * checks. All in the arena of the read. */
typedef struct sluice_program_line {
    const char *text;
    const char *name;
    int64_t version;
    size_t line_no; /* 1-based, for messages */
} sluice_program_line;

/* Builds the line to append: a JSON object text (no newline) whose "prev" is prev_hex and whose
 * "name" and "version" are the ones passed to append. In arena; NULL when out of memory. */
typedef const char *(*sluice_program_line_fn)(void *ctx, const char *prev_hex, sluice_arena *arena);

/* One append as its caller asked for it (sluice_program_store_append): the program's name, the
 * version its new line takes, and how to build that line. */
typedef struct sluice_program_append {
    const char *name;
    int64_t version;
    sluice_program_line_fn build;
    void *ctx;
} sluice_program_append;

/* The store contract; every op gets the implementation pointer and is thread-safe and safe
 * across processes sharing the store.
 * read: every line in order (a fresh read, so another process's append is seen). SLUICE_E_IO
 *   (unreadable), SLUICE_E_INVALID (damaged: err names the line and what is wrong),
 *   SLUICE_E_LIMIT, SLUICE_E_NOMEM; *out untouched then.
 * append: under the store's lock, reads the lines, asks sluice_program_store_next_line for the
 *   line that follows them (the version rule, the prev link, the size limit: the same for every
 *   store) and appends its text, durable before SLUICE_OK. A damaged store is never appended to
 *   (the read's error). */
typedef struct sluice_program_store_ops {
    const char *name;
    sluice_status (*read)(void *impl,
                          sluice_arena *arena,
                          sluice_program_line **out,
                          size_t *out_count,
                          sluice_error *err);
    sluice_status (*append)(void *impl,
                            sluice_arena *arena,
                            const sluice_program_append *req,
                            sluice_error *err);
    void (*close)(void *impl);
} sluice_program_store_ops;

typedef struct sluice_program_store sluice_program_store;

/* Wraps an implementation; on SLUICE_E_NOMEM impl is closed through ops. */
sluice_status sluice_program_store_wrap(const sluice_program_store_ops *ops,
                                        void *impl,
                                        sluice_program_store **out);

/* Opens (creating, mode 0600) the file store at path. SLUICE_E_IO naming the path. */
sluice_status sluice_program_store_open_file(const char *path,
                                             sluice_program_store **out,
                                             sluice_arena *err_arena,
                                             sluice_error *err);

sluice_status sluice_program_store_read(sluice_program_store *store,
                                        sluice_arena *arena,
                                        sluice_program_line **out,
                                        size_t *out_count,
                                        sluice_error *err);

sluice_status sluice_program_store_append(sluice_program_store *store,
                                          sluice_arena *arena,
                                          const char *name,
                                          int64_t version,
                                          sluice_program_line_fn build,
                                          void *ctx,
                                          sluice_error *err);

/* Checks a read's lines against the line contract (fields, prev links): SLUICE_OK or
 * SLUICE_E_INVALID with the line named. Every store's read calls it (the file store here, the
 * PostgreSQL one in program_store_pg.c). lines[i].name/version are filled from the text. */
sluice_status sluice_program_store_check_lines(sluice_program_line *lines,
                                               size_t count,
                                               const char *where,
                                               sluice_arena *arena,
                                               sluice_error *err);

/* The line an append writes after lines (the count lines its store holds, read under its lock):
 * SLUICE_E_DENIED unless req's name is at version req->version - 1 there (err says which version
 * is in where, the store's name for messages), then req's build with the last line's hash as
 * prev, SLUICE_E_LIMIT past SLUICE_LIMIT_PROGRAM_LINE_BYTES. NULL with err set on failure. Every
 * store's append calls it, so the version rule and the chain are written once. */
const char *sluice_program_store_next_line(const sluice_program_append *req,
                                           const sluice_program_line *lines,
                                           size_t count,
                                           const char *where,
                                           sluice_arena *arena,
                                           sluice_error *err);

/* The SHA-256 hex of a line's text: the next line's prev, and what a head vouches for. */
void sluice_program_store_line_hash(const char *text, char out[SLUICE_HASH_HEX_CHARS + 1]);

/* "file" or "postgres" (the store's kind, for messages). */
const char *sluice_program_store_kind(const sluice_program_store *store);

void sluice_program_store_close(sluice_program_store *store);

#endif
