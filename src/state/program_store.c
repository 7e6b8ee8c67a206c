/*
 * program_store.c — the saved-program store: the handle, the line contract, and the file store
 * (see program_store.h).
 *
 * The file store re-reads the whole file on every read: a program store holds a few hundred
 * promotions at most, and a fresh read is what lets `sluice program demote` in another process
 * take effect on the next call without any signal. Lines are appended in one write under an
 * exclusive flock, after a re-read under that lock, so readers need no lock: a reader that sees
 * a partial last line (no newline yet) ignores it until it is complete.
 */
#include "state/program_store.h"

#include "core/fdio.h"
#include "core/hash.h"
#include "core/limits.h"
#include "state/handle.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct sluice_program_store {
    sluice_state_handle h;
};

static const sluice_program_store_ops *ops_of(const sluice_program_store *s)
{
    return s->h.ops;
}

sluice_status sluice_program_store_wrap(const sluice_program_store_ops *ops,
                                        void *impl,
                                        sluice_program_store **out)
{
    sluice_program_store *s = sluice_state_handle_new(sizeof *s, ops, impl, ops->close);
    if (s == NULL)
        return SLUICE_E_NOMEM;
    *out = s;
    return SLUICE_OK;
}

void sluice_program_store_close(sluice_program_store *store)
{
    sluice_state_handle_free(store != NULL ? &store->h : NULL);
}

const char *sluice_program_store_kind(const sluice_program_store *store)
{
    return ops_of(store)->name;
}

sluice_status sluice_program_store_read(sluice_program_store *store,
                                        sluice_arena *arena,
                                        sluice_program_line **out,
                                        size_t *out_count,
                                        sluice_error *err)
{
    return ops_of(store)->read(store->h.impl, arena, out, out_count, err);
}

sluice_status sluice_program_store_append(sluice_program_store *store,
                                          sluice_arena *arena,
                                          const char *name,
                                          int64_t version,
                                          sluice_program_line_fn build,
                                          void *ctx,
                                          sluice_error *err)
{
    if (name == NULL || name[0] == '\0' || version < 1)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "a saved program needs a name and a version of at least 1");
    sluice_program_append req = { .name = name, .version = version, .build = build, .ctx = ctx };
    return ops_of(store)->append(store->h.impl, arena, &req, err);
}

/* ---- the line contract --------------------------------------------------------------------- */

void sluice_program_store_line_hash(const char *text, char out[SLUICE_HASH_HEX_CHARS + 1])
{
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(text, strlen(text), h);
    sluice_hash_hex(h, sizeof h, out);
}

sluice_status sluice_program_store_check_lines(sluice_program_line *lines,
                                               size_t count,
                                               const char *where,
                                               sluice_arena *arena,
                                               sluice_error *err)
{
    char prev[SLUICE_HASH_HEX_CHARS + 1] = SLUICE_PROGRAM_STORE_FIRST_PREV;
    for (size_t i = 0; i < count; i++) {
        sluice_program_line *l = &lines[i];
        json_t *o = json_loads(l->text, 0, NULL);
        const char *why = NULL;
        if (o == NULL)
            why = "it is not JSON (or memory ran out reading it)";
        else if (!json_is_object(o))
            why = "it is not a JSON object";
        else if (!json_is_string(json_object_get(o, "name")) ||
                 !json_is_integer(json_object_get(o, "version")) ||
                 json_integer_value(json_object_get(o, "version")) < 1)
            why = "it has no name or version";
        else if (!json_is_string(json_object_get(o, "prev")) ||
                 strcmp(json_string_value(json_object_get(o, "prev")), prev) != 0)
            why = "its prev link does not match the line before it (a line was removed, "
                  "reordered or edited)";
        if (why == NULL) {
            l->name = sluice_arena_strdup(arena, json_string_value(json_object_get(o, "name")));
            l->version = (int64_t)json_integer_value(json_object_get(o, "version"));
            if (l->name == NULL)
                why = "out of memory";
        }
        json_decref(o);
        if (why != NULL)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "the saved-program store %s is damaged at line %zu: %s; no "
                                    "saved program runs until it is repaired (restore it from a "
                                    "backup, or move it away and promote the programs again)",
                                    where, l->line_no, why);
        sluice_program_store_line_hash(l->text, prev);
    }
    return SLUICE_OK;
}

/* The last version of name among lines (0: none). */
static int64_t last_version(const sluice_program_line *lines, size_t count, const char *name)
{
    for (size_t i = count; i > 0; i--)
        if (strcmp(lines[i - 1].name, name) == 0)
            return lines[i - 1].version;
    return 0;
}

const char *sluice_program_store_next_line(const sluice_program_append *req,
                                           const sluice_program_line *lines,
                                           size_t count,
                                           const char *where,
                                           sluice_arena *arena,
                                           sluice_error *err)
{
    int64_t last = last_version(lines, count, req->name);
    if (last != req->version - 1) {
        sluice_error_set(err, arena, SLUICE_E_DENIED,
                         "saved program '%s' is at version %lld in %s, not %lld: someone "
                         "changed it meanwhile; look at it again (sluice program list) and retry",
                         req->name, (long long)last, where, (long long)(req->version - 1));
        return NULL;
    }
    char prev[SLUICE_HASH_HEX_CHARS + 1] = SLUICE_PROGRAM_STORE_FIRST_PREV;
    if (count > 0)
        sluice_program_store_line_hash(lines[count - 1].text, prev);
    const char *text = req->build(req->ctx, prev, arena);
    if (text == NULL) {
        sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        return NULL;
    }
    if (strlen(text) > SLUICE_LIMIT_PROGRAM_LINE_BYTES) {
        sluice_error_set(err, arena, SLUICE_E_LIMIT,
                         "saved program '%s' is %zu bytes as a record (limit is %u)", req->name,
                         strlen(text), SLUICE_LIMIT_PROGRAM_LINE_BYTES);
        return NULL;
    }
    return text;
}

/* ---- the file store ------------------------------------------------------------------------ */

typedef struct program_file {
    pthread_mutex_t lock; /* one writer per process; flock orders processes */
    int fd;
    char *path;
    char *head_path;     /* path + ".head": how many lines the store holds (see read_head) */
    _Atomic size_t seen; /* the highest head count this process read: a head never goes back */
} program_file;

/* The head file is what the line chain cannot prove: that nothing was cut from the store's end
 * (a truncated tail is a valid, shorter chain, and may drop a demotion). Every append writes
 * "lines N" to it after the line is durable, by rename, under the store's flock; a read reads
 * it first, so an append racing the read can only make the store longer than its head says.
 * The head is not sealed: whoever can rewrite both files together can still cut the tail while
 * no server runs (a running server also refuses a head that goes back). */
#define HEAD_FORMAT "sluice-program-store-head v1 lines %zu\n"

/* The head's line count; -1 when there is no head file; -2 (err set) when it cannot be read
 * or is not a head. */
static long long read_head(const program_file *f, sluice_arena *arena, sluice_error *err)
{
    int fd = open(f->head_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return -1;
    char buf[128];
    ssize_t n = -1;
    if (fd >= 0) {
        while ((n = read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR)
            ;
        close(fd);
    }
    size_t lines = 0;
    int used = 0;
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "sluice-program-store-head v1 lines %zu\n%n", &lines, &used) != 1 ||
            used != (int)n || lines > SLUICE_LIMIT_PROGRAM_STORE_BYTES)
            used = -1;
    }
    if (n <= 0 || used != (int)n) {
        sluice_error_set(err, arena, SLUICE_E_INVALID,
                         "the saved-program store's head file %s cannot be read or is not a head "
                         "(%s); no saved program runs until it is restored from the backup of its "
                         "store",
                         f->head_path, n < 0 ? strerror(errno) : "unexpected text");
        return -2;
    }
    return (long long)lines;
}

/* Writes the head: lines, by a rename over the old head (caller holds the flock). */
static bool write_head(const program_file *f, size_t lines)
{
    char tmp[PATH_MAX], text[96];
    int len = snprintf(text, sizeof text, HEAD_FORMAT, lines);
    if (snprintf(tmp, sizeof tmp, "%s.tmp", f->head_path) >= (int)sizeof tmp)
        return false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = sluice_write_all(fd, text, (size_t)len) && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, f->head_path) == 0)
        return true;
    unlink(tmp);
    return false;
}

/* Checks the n complete lines just read against the head read before them (see HEAD_FORMAT). */
static sluice_status
check_head(program_file *f, long long head, size_t n, sluice_arena *arena, sluice_error *err)
{
    if (head == -1 && n > 0) {
        head = read_head(f, arena, err); /* a first append may have written it meanwhile */
        if (head == -1)
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "the saved-program store %s has %zu lines but no head file %s "
                                    "(it was deleted, or the store was copied without it), so "
                                    "lines cut from its end could not be noticed; no saved "
                                    "program runs until both are restored from a backup (or, if "
                                    "you know the store is whole, write the line "
                                    "\"sluice-program-store-head v1 lines %zu\" to %s)",
                                    f->path, n, f->head_path, n, f->head_path);
        if (head >= 0)
            head = 0; /* written after our read of the store: it holds nothing to this read */
    }
    if (head == -2)
        return SLUICE_E_INVALID;
    size_t lines = head < 0 ? 0 : (size_t)head;
    size_t seen = atomic_load(&f->seen);
    if (lines < seen)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "the saved-program store %s was cut back: its head file %s says "
                                "%zu lines where this server already read %zu; lines were removed "
                                "from its end (a demotion may be among them), so no saved program "
                                "runs until the store and its head are restored from a backup",
                                f->path, f->head_path, lines, seen);
    if (n < lines)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "the saved-program store %s is truncated: it has %zu complete "
                                "lines and its head file %s says %zu; the last %zu were cut from "
                                "its end (a demotion may be among them), so no saved program runs "
                                "until it is restored from a backup",
                                f->path, n, f->head_path, lines, lines - n);
    while (seen < lines && !atomic_compare_exchange_weak(&f->seen, &seen, lines))
        ;
    return SLUICE_OK;
}

/* Every complete line of the file, checked (caller holds the mutex, or nothing: reads need no
 * lock). */
static sluice_status file_read(void *impl,
                               sluice_arena *arena,
                               sluice_program_line **out,
                               size_t *out_count,
                               sluice_error *err)
{
    program_file *f = impl;
    long long head = read_head(f, arena, err); /* before the lines: see HEAD_FORMAT */
    if (head == -2)
        return SLUICE_E_INVALID;
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return sluice_error_set(err, arena, SLUICE_E_IO,
                                "cannot read the saved-program store %s: %s", f->path,
                                strerror(errno));
    if ((uint64_t)st.st_size > SLUICE_LIMIT_PROGRAM_STORE_BYTES)
        return sluice_error_set(err, arena, SLUICE_E_LIMIT,
                                "the saved-program store %s is %lld bytes (limit is %u); no saved "
                                "program runs until it is trimmed",
                                f->path, (long long)st.st_size, SLUICE_LIMIT_PROGRAM_STORE_BYTES);
    size_t size = (size_t)st.st_size;
    char *buf = sluice_arena_alloc(arena, size + 1);
    if (buf == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(f->fd, buf + got, size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    size_t lines = 0;
    for (size_t i = 0; i < got; i++)
        lines += buf[i] == '\n';
    sluice_program_line *v = sluice_arena_calloc(arena, lines + 1, sizeof *v);
    if (v == NULL)
        return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    size_t n = 0;
    char *p = buf;
    char *nl;
    while ((nl = memchr(p, '\n', (size_t)(buf + got - p))) != NULL) {
        *nl = '\0';
        if ((size_t)(nl - p) > SLUICE_LIMIT_PROGRAM_LINE_BYTES || memchr(p, '\0', (size_t)(nl - p)))
            return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                    "the saved-program store %s is damaged at line %zu: the line "
                                    "is longer than %u bytes or holds a NUL byte",
                                    f->path, n + 1, SLUICE_LIMIT_PROGRAM_LINE_BYTES);
        v[n].text = p;
        v[n].line_no = n + 1;
        n++;
        p = nl + 1;
    }
    sluice_status s = check_head(f, head, n, arena, err);
    if (s == SLUICE_OK)
        s = sluice_program_store_check_lines(v, n, f->path, arena, err);
    if (s != SLUICE_OK)
        return s;
    *out = v;
    *out_count = n;
    return SLUICE_OK;
}

static sluice_status
file_append(void *impl, sluice_arena *arena, const sluice_program_append *req, sluice_error *err)
{
    program_file *f = impl;
    pthread_mutex_lock(&f->lock);
    int rc;
    while ((rc = flock(f->fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    sluice_status st = SLUICE_OK;
    if (rc != 0)
        st = sluice_error_set(err, arena, SLUICE_E_IO, "cannot lock the saved-program store %s: %s",
                              f->path, strerror(errno));
    sluice_program_line *lines = NULL;
    size_t count = 0;
    if (st == SLUICE_OK)
        st = file_read(f, arena, &lines, &count, err);
    const char *text = st == SLUICE_OK
                           ? sluice_program_store_next_line(req, lines, count, f->path, arena, err)
                           : NULL;
    if (st == SLUICE_OK && text == NULL)
        st = err->status;
    if (st == SLUICE_OK) {
        size_t len = strlen(text);
        char *line = sluice_arena_alloc(arena, len + 1);
        if (line == NULL) {
            st = sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        } else {
            memcpy(line, text, len);
            line[len] = '\n';
            off_t end = lseek(f->fd, 0, SEEK_END);
            if (end < 0 || !sluice_write_all(f->fd, line, len + 1) || fdatasync(f->fd) != 0 ||
                !write_head(f, count + 1)) {
                int e = errno;
                /* a torn tail, or a line its head does not count, would damage the store for
                 * everyone: cut it back */
                if (end >= 0 && ftruncate(f->fd, end) != 0)
                    e = errno;
                st = sluice_error_set(err, arena, SLUICE_E_IO,
                                      "cannot write the saved-program store %s: %s", f->path,
                                      strerror(e));
            }
        }
    }
    if (rc == 0)
        flock(f->fd, LOCK_UN);
    pthread_mutex_unlock(&f->lock);
    return st;
}

static void file_close(void *impl)
{
    program_file *f = impl;
    if (f == NULL)
        return;
    if (f->fd >= 0)
        close(f->fd);
    pthread_mutex_destroy(&f->lock);
    free(f->path);
    free(f->head_path);
    free(f);
}

static const sluice_program_store_ops file_ops = {
    .name = "file",
    .read = file_read,
    .append = file_append,
    .close = file_close,
};

sluice_status sluice_program_store_open_file(const char *path,
                                             sluice_program_store **out,
                                             sluice_arena *err_arena,
                                             sluice_error *err)
{
    program_file *f = calloc(1, sizeof *f);
    if (f == NULL || (f->path = strdup(path)) == NULL ||
        (f->head_path = malloc(strlen(path) + sizeof ".head")) == NULL) {
        if (f != NULL)
            free(f->path);
        free(f);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    memcpy(f->head_path, path, strlen(path));
    memcpy(f->head_path + strlen(path), ".head", sizeof ".head");
    atomic_init(&f->seen, 0);
    pthread_mutex_init(&f->lock, NULL);
    f->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (f->fd < 0) {
        int e = errno;
        file_close(f);
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "cannot open the saved-program store %s: %s", path, strerror(e));
    }
    return sluice_program_store_wrap(&file_ops, f, out) == SLUICE_OK
               ? SLUICE_OK
               : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
}
