/*
 * replay.c — the used-token store (see replay.h).
 *
 * An open-addressing table keyed by the token id (random bytes, so its first eight bytes are a
 * good hash). Nothing is deleted in place: when the table is half full it is rebuilt without
 * the expired ids, and doubled only if that did not free enough.
 */
#include "codemode/replay.h"

#include "core/fdio.h"
#include "core/hash.h"

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
    uint8_t id[SLUICE_TOKEN_ID_BYTES];
    int64_t expires_at;
    bool used;
} slot;

struct sluice_replay {
    pthread_mutex_t lock;
    slot *slots;
    size_t cap; /* power of two */
    size_t count;
    int fd; /* -1: memory only */
};

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
    while (slots[i].used && memcmp(slots[i].id, id, SLUICE_TOKEN_ID_BYTES) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Rebuilds into new_cap slots, keeping only ids still live at now. */
static bool rebuild(sluice_replay *s, size_t new_cap, int64_t now)
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
static sluice_status make_room(sluice_replay *s, int64_t now)
{
    if ((s->count + 1) * 2 <= s->cap)
        return SLUICE_OK;
    if (!rebuild(s, s->cap, now))
        return SLUICE_E_NOMEM;
    if ((s->count + 1) * 2 <= s->cap)
        return SLUICE_OK;
    if (s->count >= SLUICE_REPLAY_MAX_ENTRIES)
        return SLUICE_E_LIMIT;
    return rebuild(s, s->cap * 2, now) ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* Inserts id; false when it was already there. */
static bool insert(sluice_replay *s, const uint8_t *id, int64_t expires_at)
{
    slot *at = find(s->slots, s->cap, id);
    if (at->used)
        return false;
    memcpy(at->id, id, SLUICE_TOKEN_ID_BYTES);
    at->expires_at = expires_at;
    at->used = true;
    s->count++;
    return true;
}

static size_t format_line(char *out, const uint8_t *id, int64_t expires_at)
{
    char hex[2 * SLUICE_TOKEN_ID_BYTES + 1];
    sluice_hash_hex(id, SLUICE_TOKEN_ID_BYTES, hex);
    int n = snprintf(out, LINE_MAX_BYTES, "%s %" PRId64 "\n", hex, expires_at);
    return n > 0 ? (size_t)n : 0;
}

/* Parses "<32 hex> <int64>"; false for anything else (a torn last line after a crash). */
static bool parse_line(const char *line, size_t len, uint8_t *id, int64_t *expires_at)
{
    const size_t hex_len = 2 * SLUICE_TOKEN_ID_BYTES;
    if (len < hex_len + 2 || len > LINE_MAX_BYTES || line[hex_len] != ' ')
        return false;
    if (sluice_hash_unhex(line, hex_len, id, SLUICE_TOKEN_ID_BYTES) != SLUICE_OK)
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

static sluice_status load(sluice_replay *s, FILE *f, int64_t now)
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
        uint8_t id[SLUICE_TOKEN_ID_BYTES];
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
static sluice_status compact(sluice_replay *s, const char *path)
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

static sluice_status open_file(
    sluice_replay *s, const char *path, int64_t now, sluice_arena *err_arena, sluice_error *err)
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

sluice_status sluice_replay_open(
    const char *path, int64_t now, sluice_replay **out, sluice_arena *err_arena, sluice_error *err)
{
    sluice_replay *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    s->fd = -1;
    s->cap = INITIAL_SLOTS;
    s->slots = calloc(s->cap, sizeof(*s->slots));
    if (s->slots == NULL || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s->slots);
        free(s);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    if (path != NULL) {
        sluice_status st = open_file(s, path, now, err_arena, err);
        if (st != SLUICE_OK) {
            sluice_replay_close(s);
            return st;
        }
    }
    *out = s;
    return SLUICE_OK;
}

sluice_status sluice_replay_consume(sluice_replay *store,
                                    const uint8_t token_id[SLUICE_TOKEN_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now)
{
    pthread_mutex_lock(&store->lock);
    sluice_status st = make_room(store, now);
    if (st == SLUICE_OK && !insert(store, token_id, expires_at))
        st = SLUICE_E_DENIED;
    if (st == SLUICE_OK && store->fd >= 0) {
        char line[LINE_MAX_BYTES];
        size_t n = format_line(line, token_id, expires_at);
        if (!sluice_write_all(store->fd, line, n) || fdatasync(store->fd) != 0)
            st = SLUICE_E_IO;
    }
    pthread_mutex_unlock(&store->lock);
    return st;
}

size_t sluice_replay_count(sluice_replay *store)
{
    pthread_mutex_lock(&store->lock);
    size_t n = store->count;
    pthread_mutex_unlock(&store->lock);
    return n;
}

void sluice_replay_close(sluice_replay *store)
{
    if (store == NULL)
        return;
    if (store->fd >= 0)
        close(store->fd);
    pthread_mutex_destroy(&store->lock);
    free(store->slots);
    free(store);
}
