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

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct sluice_program_store {
    const sluice_program_store_ops *ops;
    void *impl;
};

sluice_status sluice_program_store_wrap(const sluice_program_store_ops *ops,
                                        void *impl,
                                        sluice_program_store **out)
{
    sluice_program_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        ops->close(impl);
        return SLUICE_E_NOMEM;
    }
    s->ops = ops;
    s->impl = impl;
    *out = s;
    return SLUICE_OK;
}

void sluice_program_store_close(sluice_program_store *store)
{
    if (store == NULL)
        return;
    store->ops->close(store->impl);
    free(store);
}

const char *sluice_program_store_kind(const sluice_program_store *store)
{
    return store->ops->name;
}

sluice_status sluice_program_store_read(sluice_program_store *store,
                                        sluice_arena *arena,
                                        sluice_program_line **out,
                                        size_t *out_count,
                                        sluice_error *err)
{
    return store->ops->read(store->impl, arena, out, out_count, err);
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
    return store->ops->append(store->impl, arena, name, version, build, ctx, err);
}

/* ---- the line contract --------------------------------------------------------------------- */

static void hash_hex_of(const char *text, char out[SLUICE_HASH_HEX_CHARS + 1])
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
        hash_hex_of(l->text, prev);
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

/* ---- the file store ------------------------------------------------------------------------ */

typedef struct program_file {
    pthread_mutex_t lock; /* one writer per process; flock orders processes */
    int fd;
    char *path;
} program_file;

/* Every complete line of the file, checked (caller holds the mutex, or nothing: reads need no
 * lock). */
static sluice_status file_read(void *impl,
                               sluice_arena *arena,
                               sluice_program_line **out,
                               size_t *out_count,
                               sluice_error *err)
{
    program_file *f = impl;
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
    sluice_status s = sluice_program_store_check_lines(v, n, f->path, arena, err);
    if (s != SLUICE_OK)
        return s;
    *out = v;
    *out_count = n;
    return SLUICE_OK;
}

static sluice_status file_append(void *impl,
                                 sluice_arena *arena,
                                 const char *name,
                                 int64_t version,
                                 sluice_program_line_fn build,
                                 void *ctx,
                                 sluice_error *err)
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
    int64_t last = st == SLUICE_OK ? last_version(lines, count, name) : 0;
    if (st == SLUICE_OK && last != version - 1)
        st = sluice_error_set(err, arena, SLUICE_E_DENIED,
                              "saved program '%s' is at version %lld in %s, not %lld: someone "
                              "changed it meanwhile; look at it again (sluice program list) "
                              "and retry",
                              name, (long long)last, f->path, (long long)(version - 1));
    char prev[SLUICE_HASH_HEX_CHARS + 1] = SLUICE_PROGRAM_STORE_FIRST_PREV;
    if (st == SLUICE_OK && count > 0)
        hash_hex_of(lines[count - 1].text, prev);
    const char *text = st == SLUICE_OK ? build(ctx, prev, arena) : NULL;
    if (st == SLUICE_OK && text == NULL)
        st = sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
    if (st == SLUICE_OK && strlen(text) > SLUICE_LIMIT_PROGRAM_LINE_BYTES)
        st = sluice_error_set(err, arena, SLUICE_E_LIMIT,
                              "saved program '%s' is %zu bytes as a record (limit is %u)", name,
                              strlen(text), SLUICE_LIMIT_PROGRAM_LINE_BYTES);
    if (st == SLUICE_OK) {
        size_t len = strlen(text);
        char *line = sluice_arena_alloc(arena, len + 1);
        if (line == NULL) {
            st = sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory");
        } else {
            memcpy(line, text, len);
            line[len] = '\n';
            off_t end = lseek(f->fd, 0, SEEK_END);
            if (end < 0 || !sluice_write_all(f->fd, line, len + 1) || fdatasync(f->fd) != 0) {
                int e = errno;
                /* a torn tail would damage the store for everyone: cut it back */
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
    if (f == NULL || (f->path = strdup(path)) == NULL) {
        free(f);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
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
