/*
 * replay_file.c — the file consume-once store (see replay.h).
 *
 * An open-addressing table keyed by the token id (random bytes, so its first eight bytes are a
 * good hash). Nothing is deleted in place: when the table is half full it is rebuilt without
 * the expired ids, and doubled only if that did not free enough. The id goes into the table
 * before its line is durable, so a second consume of it is refused at once, even while the first
 * still waits for its group commit (and if that commit fails, both were refused: fail closed).
 */
#include "core/fdio.h"
#include "core/group_commit.h"
#include "core/hash.h"
#include "core/limits.h"
#include "state/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define INITIAL_SLOTS  1024u
#define LINE_MAX_BYTES 64u /* 32 hex + space + 20 digits + newline fits */

typedef struct slot {
    uint8_t id[SLUICE_REPLAY_ID_BYTES];
    int64_t expires_at;
    bool used;
} slot;

typedef struct replay_file {
    pthread_mutex_t lock;
    sluice_group_commit gc;
    slot *slots;
    size_t cap; /* power of two */
    size_t count;
    int fd; /* -1: memory only */
} replay_file;

static size_t home_of(const uint8_t *id, size_t cap)
{
    uint64_t h = 0;
    memcpy(&h, id, sizeof h);
    return (size_t)h & (cap - 1);
}

/* Finds id's slot, or the empty slot where it would go. The table is never full. */
static slot *find(slot *slots, size_t cap, const uint8_t *id)
{
    size_t i = home_of(id, cap);
    while (slots[i].used && memcmp(slots[i].id, id, SLUICE_REPLAY_ID_BYTES) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Rebuilds into new_cap slots, keeping only ids still live at now. */
static bool rebuild(replay_file *s, size_t new_cap, int64_t now)
{
    slot *fresh = calloc(new_cap, sizeof(*fresh));
    if (fresh == NULL)
        return false;
    size_t count = 0;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->slots[i].used && s->slots[i].expires_at > now) {
            *find(fresh, new_cap, s->slots[i].id) = s->slots[i];
            count++;
        }
    }
    free(s->slots);
    s->slots = fresh;
    s->cap = new_cap;
    s->count = count;
    return true;
}

/* Makes room for one more id: SLUICE_E_LIMIT when the live ids reach the ceiling. */
static sluice_status make_room(replay_file *s, int64_t now)
{
    if ((s->count + 1) * 2 <= s->cap)
        return SLUICE_OK;
    if (!rebuild(s, s->cap, now))
        return SLUICE_E_NOMEM;
    if ((s->count + 1) * 2 <= s->cap)
        return SLUICE_OK;
    if (s->count >= SLUICE_LIMIT_REPLAY_ENTRIES)
        return SLUICE_E_LIMIT;
    return rebuild(s, s->cap * 2, now) ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* Inserts id; false when it was already there. */
static bool insert(replay_file *s, const uint8_t *id, int64_t expires_at)
{
    slot *at = find(s->slots, s->cap, id);
    if (at->used)
        return false;
    memcpy(at->id, id, SLUICE_REPLAY_ID_BYTES);
    at->expires_at = expires_at;
    at->used = true;
    s->count++;
    return true;
}

static size_t format_line(char *out, const uint8_t *id, int64_t expires_at)
{
    char hex[2 * SLUICE_REPLAY_ID_BYTES + 1];
    sluice_hash_hex(id, SLUICE_REPLAY_ID_BYTES, hex);
    int n = snprintf(out, LINE_MAX_BYTES, "%s %" PRId64 "\n", hex, expires_at);
    return n > 0 ? (size_t)n : 0;
}

/* Parses "<32 hex> <int64>"; false for anything else (a torn last line after a crash). */
static bool parse_line(const char *line, size_t len, uint8_t *id, int64_t *expires_at)
{
    const size_t hex_len = 2 * SLUICE_REPLAY_ID_BYTES;
    if (len < hex_len + 2 || len > LINE_MAX_BYTES || line[hex_len] != ' ')
        return false;
    if (sluice_hash_unhex(line, hex_len, id, SLUICE_REPLAY_ID_BYTES) != SLUICE_OK)
        return false;
    char digits[LINE_MAX_BYTES];
    memcpy(digits, line + hex_len + 1, len - hex_len - 1);
    digits[len - hex_len - 1] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(digits, &end, 10);
    if (errno != 0 || end == digits || *end != '\0')
        return false;
    *expires_at = (int64_t)v;
    return true;
}

static sluice_status load(replay_file *s, FILE *f, int64_t now)
{
    char line[LINE_MAX_BYTES + 2];
    while (fgets(line, sizeof line, f) != NULL) {
        size_t len = strlen(line);
        bool whole = len > 0 && line[len - 1] == '\n';
        if (!whole) { /* over-long or torn: skip the rest of it */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        uint8_t id[SLUICE_REPLAY_ID_BYTES];
        int64_t expires_at;
        if (!parse_line(line, len - 1, id, &expires_at) || expires_at <= now)
            continue;
        sluice_status st = make_room(s, now);
        if (st != SLUICE_OK)
            return st;
        insert(s, id, expires_at);
    }
    return ferror(f) ? SLUICE_E_IO : SLUICE_OK;
}

/* Writes the live ids to path.tmp, flushes it and renames it over path (then flushes the
 * directory), so a crash leaves either the old file or the compacted one. */
static sluice_status compact(replay_file *s, const char *path)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return SLUICE_E_LIMIT;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return SLUICE_E_IO;
    bool ok = true;
    for (size_t i = 0; ok && i < s->cap; i++) {
        if (!s->slots[i].used)
            continue;
        char line[LINE_MAX_BYTES];
        size_t n = format_line(line, s->slots[i].id, s->slots[i].expires_at);
        ok = sluice_write_all(fd, line, n);
    }
    ok = ok && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        unlink(tmp);
        return SLUICE_E_IO;
    }
    char dir_buf[4096];
    snprintf(dir_buf, sizeof dir_buf, "%s", path);
    int dfd = open(dirname(dir_buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return SLUICE_OK;
}

/* Opens path for appending and takes the one-process lock. */
static int open_locked(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static sluice_status
open_file(replay_file *s, const char *path, int64_t now, sluice_arena *err_arena, sluice_error *err)
{
    int fd = open_locked(path);
    if (fd < 0)
        return sluice_error_set(
            err, err_arena, SLUICE_E_IO, "%s: cannot open the replay store: %s%s", path,
            strerror(errno), errno == EWOULDBLOCK ? " (another sluice process is using it)" : "");
    FILE *f = fdopen(dup(fd), "r");
    sluice_status st = f != NULL ? load(s, f, now) : SLUICE_E_IO;
    if (f != NULL)
        fclose(f);
    if (st == SLUICE_OK)
        st = compact(s, path);
    close(fd); /* the lock goes with the old file; the compacted one is locked next */
    if (st == SLUICE_OK && (s->fd = open_locked(path)) < 0)
        st = SLUICE_E_IO;
    if (st != SLUICE_OK)
        return sluice_error_set(err, err_arena, st,
                                "%s: cannot load or compact the replay store: %s", path,
                                st == SLUICE_E_IO ? strerror(errno) : sluice_status_name(st));
    return SLUICE_OK;
}

static void file_close(void *impl)
{
    replay_file *s = impl;
    if (s->fd >= 0)
        close(s->fd);
    sluice_group_commit_destroy(&s->gc);
    pthread_mutex_destroy(&s->lock);
    free(s->slots);
    free(s);
}

/* An empty in-memory store, or NULL when out of memory. */
static replay_file *file_new(const sluice_replay_file_options *options)
{
    replay_file *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->fd = -1;
    s->cap = INITIAL_SLOTS;
    s->slots = calloc(s->cap, sizeof(*s->slots));
    if (s->slots == NULL || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s->slots);
        free(s);
        return NULL;
    }
    if (!sluice_group_commit_init(&s->gc, 0)) {
        pthread_mutex_destroy(&s->lock);
        free(s->slots);
        free(s);
        return NULL;
    }
    s->gc.per_record = options != NULL && options->per_record_sync;
    return s;
}

static const sluice_replay_store_ops file_ops;

sluice_status sluice_replay_open_file(const char *path,
                                      int64_t now,
                                      const sluice_replay_file_options *options,
                                      sluice_replay **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    replay_file *s = file_new(options);
    if (s == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    if (path != NULL) {
        sluice_status st = open_file(s, path, now, err_arena, err);
        if (st != SLUICE_OK) {
            file_close(s);
            return st;
        }
    }
    if (sluice_replay_wrap(&file_ops, s, out) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    return SLUICE_OK;
}

sluice_status sluice_replay_open(
    const char *path, int64_t now, sluice_replay **out, sluice_arena *err_arena, sluice_error *err)
{
    return sluice_replay_open_file(path, now, NULL, out, err_arena, err);
}

/* Group commit: nothing to note at the start; the sync is the file's. */
static void group_begin(void *ctx)
{
    (void)ctx;
}

static bool group_sync(void *ctx)
{
    replay_file *s = ctx;
    return fdatasync(s->fd) == 0;
}

static const sluice_group_commit_ops group_ops = { group_begin, group_sync };

/* Appends id's line and waits until it is durable (caller holds the mutex). */
static sluice_status persist(replay_file *s, const uint8_t *token_id, int64_t expires_at)
{
    if (!sluice_group_commit_reserve(&s->gc, &s->lock))
        return SLUICE_E_IO;
    char line[LINE_MAX_BYTES];
    size_t n = format_line(line, token_id, expires_at);
    if (!sluice_write_all(s->fd, line, n)) {
        sluice_group_commit_fail(&s->gc); /* a torn line may sit in the file */
        return SLUICE_E_IO;
    }
    uint64_t ticket = sluice_group_commit_ticket(&s->gc);
    return sluice_group_commit_wait(&s->gc, &s->lock, ticket, &group_ops, s) ? SLUICE_OK
                                                                             : SLUICE_E_IO;
}

static sluice_status file_consume(void *impl,
                                  const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                                  int64_t expires_at,
                                  int64_t now)
{
    replay_file *s = impl;
    pthread_mutex_lock(&s->lock);
    sluice_status st = make_room(s, now);
    if (st == SLUICE_OK && !insert(s, token_id, expires_at))
        st = SLUICE_E_DENIED;
    if (st == SLUICE_OK && s->fd >= 0)
        st = persist(s, token_id, expires_at);
    pthread_mutex_unlock(&s->lock);
    return st;
}

static size_t file_count(void *impl)
{
    replay_file *s = impl;
    pthread_mutex_lock(&s->lock);
    size_t n = s->count;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static const sluice_replay_store_ops file_ops = { "file", file_consume, file_count, file_close };
