/*
 * audit_file.c — the file audit sink: a hash-chained append-only log with group commit (see
 * audit.h).
 *
 * Why a chain and a head: a record's prev binds it to everything before it, so editing,
 * removing or moving a record breaks the link at that spot; the head file binds the end, so
 * cutting the tail off (which leaves a valid shorter chain) is caught as well.
 * Why the head is written after the log's fdatasync, in the same group: the head never names a
 * record that is not on disk, and every acknowledged record is covered by a durable head; a crash
 * between the two leaves the head behind by at most one group, which the next open adopts.
 */
#include "core/clock.h"
#include "core/fdio.h"
#include "core/group_commit.h"
#include "core/hash.h"
#include "core/json_write.h"
#include "core/limits.h"
#include "core/log.h"
#include "core/metrics.h"
#include "state/audit.h"
#include "state/audit_chain.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD_TAG    "sluice-audit-head-v1"
#define HEAD_SUFFIX ".head"
#define NEXT_SUFFIX ".next" /* the new file a rotation prepares before it moves the old one */
/* "<tag> <20-digit seq> <64 hex>\n": fixed width, so an update is one pwrite at offset 0. */
#define HEAD_BYTES     (sizeof(HEAD_TAG) - 1 + 1 + 20 + 1 + SLUICE_HASH_HEX_CHARS + 1)
#define PATH_MAX_BYTES 4096u
/* First window read back from the end of the log at open; doubled until the lines it needs fit. */
#define TAIL_WINDOW_BYTES (64u * 1024u)

static const uint8_t genesis[SLUICE_HASH_BYTES]; /* all zero */

typedef struct audit_file {
    pthread_mutex_t lock;
    sluice_group_commit gc;
    int fd;                               /* the log, O_APPEND, flock'ed */
    int head_fd;                          /* the head file */
    size_t end;                           /* at open: bytes up to the last complete record */
    uint64_t seq;                         /* last seq written; 0 = empty */
    uint8_t last_hash[SLUICE_HASH_BYTES]; /* hash of the last line, or genesis */
    uint64_t sync_seq;                    /* what the running group commit covers (its leader's) */
    uint8_t sync_hash[SLUICE_HASH_BYTES];
    bool broken; /* a write failed: refuse further appends */
    bool
        held_elsewhere; /* at open: another process holds the lock (nothing wrong with the chain) */
    const sluice_clock *clock;
    size_t rotate_bytes;     /* 0: never by size */
    int64_t rotate_ms;       /* 0: never by age */
    size_t file_bytes;       /* size of the current file */
    int64_t file_started_ms; /* when the current file was created or opened */
    unsigned next_rotation;  /* N of the next "<path>.N" */
    char path[PATH_MAX_BYTES];
} audit_file;

/* ---- shared by open and verify ----------------------------------------------------------- */

/* One record's chain fields, parsed from its line. */
typedef struct record {
    uint64_t seq;
    uint8_t prev[SLUICE_HASH_BYTES];
    uint8_t hash[SLUICE_HASH_BYTES];
} record;

/* Parses a line (without its newline) into rec; on failure writes why into what. */
static bool parse_record(const char *line, size_t len, record *rec, char *what, size_t what_cap)
{
    json_error_t jerr;
    json_t *obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    bool ok = false;
    if (obj == NULL) {
        snprintf(what, what_cap, "malformed record: %s (column %d)", jerr.text, jerr.column);
    } else if (!json_is_object(obj)) {
        snprintf(what, what_cap, "malformed record: not a JSON object");
    } else {
        json_t *seq = json_object_get(obj, "seq");
        json_t *prev = json_object_get(obj, "prev");
        const char *prev_hex = json_string_value(prev);
        if (!json_is_integer(seq) || json_integer_value(seq) < 1)
            snprintf(what, what_cap,
                     "malformed record: 'seq' is missing or not a positive integer");
        else if (!json_is_string(json_object_get(obj, "ts")))
            snprintf(what, what_cap, "malformed record: 'ts' is missing or not a string");
        else if (prev_hex == NULL || sluice_hash_unhex(prev_hex, json_string_length(prev),
                                                       rec->prev, SLUICE_HASH_BYTES) != SLUICE_OK)
            snprintf(what, what_cap, "malformed record: 'prev' is not 64 hex digits");
        else
            ok = true;
        if (ok)
            rec->seq = (uint64_t)json_integer_value(seq);
    }
    json_decref(obj);
    if (ok)
        sluice_hash_sha256(line, len, rec->hash);
    return ok;
}

static bool head_path(const char *path, char *out)
{
    return (size_t)snprintf(out, PATH_MAX_BYTES, "%s" HEAD_SUFFIX, path) < PATH_MAX_BYTES;
}

typedef enum head_state { HEAD_MISSING, HEAD_OK, HEAD_BAD, HEAD_UNREADABLE } head_state;

static head_state read_head(const char *hpath, uint64_t *seq, uint8_t *hash)
{
    int fd = open(hpath, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? HEAD_MISSING : HEAD_UNREADABLE;
    char text[HEAD_BYTES + 1];
    ssize_t n = pread(fd, text, sizeof text, 0);
    close(fd);
    if (n < 0)
        return HEAD_UNREADABLE;
    if (n == 0) /* created but never written: an open that failed half-way */
        return HEAD_MISSING;
    const size_t tag = sizeof(HEAD_TAG) - 1;
    if ((size_t)n != HEAD_BYTES || memcmp(text, HEAD_TAG " ", tag + 1) != 0 ||
        text[tag + 21] != ' ' || text[HEAD_BYTES - 1] != '\n')
        return HEAD_BAD;
    uint64_t v = 0;
    for (size_t i = tag + 1; i < tag + 21; i++) {
        if (text[i] < '0' || text[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return HEAD_BAD;
        v = v * 10 + (uint64_t)(text[i] - '0');
    }
    if (sluice_hash_unhex(text + tag + 22, SLUICE_HASH_HEX_CHARS, hash, SLUICE_HASH_BYTES) !=
        SLUICE_OK)
        return HEAD_BAD;
    *seq = v;
    return HEAD_OK;
}

static bool write_head(int fd, uint64_t seq, const uint8_t *hash)
{
    char hex[SLUICE_HASH_HEX_CHARS + 1];
    char text[HEAD_BYTES + 1];
    sluice_hash_hex(hash, SLUICE_HASH_BYTES, hex);
    snprintf(text, sizeof text, HEAD_TAG " %020" PRIu64 " %s\n", seq, hex);
    return pwrite(fd, text, HEAD_BYTES, 0) == (ssize_t)HEAD_BYTES && fdatasync(fd) == 0;
}

/* ---- open -------------------------------------------------------------------------------- */

/* The log's size into *size_out and its length up to and including its last newline into *end. A
 * SIGKILL can land inside the write() of a record (Linux checks for fatal signals between pages),
 * leaving a partial last line: that record was never acknowledged (its group's fdatasync had not
 * begun), so open drops it once the head shows it covers no more than the complete records. On
 * failure writes why into what: SLUICE_E_INVALID when the partial line is longer than a record may
 * be, SLUICE_E_IO, SLUICE_E_NOMEM. */
static sluice_status complete_end(int fd, size_t *size_out, size_t *end, char *what, size_t cap)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(what, cap, "cannot stat: %s", strerror(errno));
        return SLUICE_E_IO;
    }
    size_t size = (size_t)sb.st_size;
    *size_out = size;
    size_t want =
        size < SLUICE_LIMIT_AUDIT_LINE_BYTES + 1u ? size : SLUICE_LIMIT_AUDIT_LINE_BYTES + 1u;
    *end = size;
    if (want == 0)
        return SLUICE_OK;
    char *buf = malloc(want);
    if (buf == NULL) {
        snprintf(what, cap, "out of memory reading the end of the log");
        return SLUICE_E_NOMEM;
    }
    sluice_status st = SLUICE_OK;
    if (pread(fd, buf, want, (off_t)(size - want)) != (ssize_t)want) {
        snprintf(what, cap, "cannot read the end of the log");
        st = SLUICE_E_IO;
    } else if (buf[want - 1] != '\n') {
        const char *nl = memrchr(buf, '\n', want);
        if (nl == NULL && want < size) {
            snprintf(what, cap, "the last record is longer than %u bytes",
                     SLUICE_LIMIT_AUDIT_LINE_BYTES);
            st = SLUICE_E_INVALID;
        }
        *end = nl == NULL ? 0 : size - want + (size_t)(nl - buf) + 1;
    }
    free(buf);
    return st;
}

/* The last n lines of the log's first size bytes (which end in a newline), each with its
 * newline, as one malloc'd block (*block NULL for an empty log). Reads back from the end in
 * growing windows. On failure writes why into what: SLUICE_E_INVALID for a log that holds fewer
 * than n lines, or whose lines are longer than SLUICE_LIMIT_AUDIT_LINE_BYTES; SLUICE_E_IO,
 * SLUICE_E_NOMEM. */
static sluice_status
read_tail_lines(int fd, size_t size, uint64_t n, char **block, size_t *len, char *what, size_t cap)
{
    *block = NULL;
    *len = 0;
    uint64_t ceiling = n * (SLUICE_LIMIT_AUDIT_LINE_BYTES + 1u);
    for (uint64_t window = TAIL_WINDOW_BYTES; size > 0; window *= 2) {
        uint64_t w = window < ceiling ? window : ceiling;
        size_t want = w < size ? (size_t)w : size;
        char *buf = malloc(want);
        if (buf == NULL) {
            snprintf(what, cap, "out of memory reading the end of the log");
            return SLUICE_E_NOMEM;
        }
        if (pread(fd, buf, want, (off_t)(size - want)) != (ssize_t)want) {
            free(buf);
            snprintf(what, cap, "cannot read the end of the log");
            return SLUICE_E_IO;
        }
        size_t start = want - 1;
        uint64_t found = 0;
        while (found < n) {
            while (start > 0 && buf[start - 1] != '\n')
                start--;
            if (start == 0 && want < size)
                break; /* this line may start before the window */
            if (++found < n && start-- == 0)
                break; /* the whole file holds fewer lines */
        }
        if (found == n) {
            memmove(buf, buf + start, want - start);
            *block = buf;
            *len = want - start;
            return SLUICE_OK;
        }
        free(buf);
        if (want == size) {
            snprintf(what, cap, "the log holds fewer records than its seq numbers say");
            return SLUICE_E_INVALID;
        }
        if (w == ceiling) {
            snprintf(what, cap, "the last record is longer than %u bytes",
                     SLUICE_LIMIT_AUDIT_LINE_BYTES);
            return SLUICE_E_INVALID;
        }
    }
    return SLUICE_OK;
}

/* The head is behind the log by last_seq - head_seq records (written, never acknowledged: a
 * crash during a group commit). They are adopted when they follow on from the head's record,
 * one link at a time: SLUICE_E_INVALID when they do not (the caller says so), or the status of
 * reading them. */
static sluice_status adopt_unsynced(audit_file *a,
                                    uint64_t head_seq,
                                    const uint8_t *head_hash,
                                    uint64_t last_seq,
                                    char *what,
                                    size_t cap)
{
    char *block = NULL;
    size_t len = 0;
    sluice_status st = read_tail_lines(a->fd, a->end, last_seq - head_seq, &block, &len, what, cap);
    if (st != SLUICE_OK)
        return st;
    uint8_t prev[SLUICE_HASH_BYTES];
    memcpy(prev, head_hash, sizeof prev);
    uint64_t seq = head_seq;
    for (char *p = block, *nl; st == SLUICE_OK && p < block + len; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(block + len - p));
        record rec;
        if (!parse_record(p, (size_t)(nl - p), &rec, what, cap) || rec.seq != seq + 1 ||
            !sluice_hash_equal(rec.prev, prev, SLUICE_HASH_BYTES)) {
            st = SLUICE_E_INVALID;
            break;
        }
        seq = rec.seq;
        memcpy(prev, rec.hash, sizeof prev);
    }
    free(block);
    return st;
}

/* Decides where the chain continues from, given the log's last line and the head file as it
 * was before open created it (hs, head_seq, head_hash). */
static sluice_status resume_chain(audit_file *a,
                                  const char *hpath,
                                  head_state hs,
                                  uint64_t head_seq,
                                  const uint8_t *head_hash,
                                  char *what,
                                  size_t cap)
{
    char *line = NULL;
    size_t len = 0;
    sluice_status st = read_tail_lines(a->fd, a->end, 1, &line, &len, what, cap);
    if (st != SLUICE_OK)
        return st;
    record last = { 0 };
    if (line != NULL && !parse_record(line, len - 1, &last, what, cap)) {
        free(line);
        return SLUICE_E_INVALID;
    }
    free(line);
    if (hs == HEAD_UNREADABLE || hs == HEAD_BAD) {
        snprintf(what, cap, "the head file %s is %s", hpath,
                 hs == HEAD_BAD ? "malformed" : "unreadable");
        return hs == HEAD_BAD ? SLUICE_E_INVALID : SLUICE_E_IO;
    }
    if (last.seq == 0) { /* empty log */
        if (hs == HEAD_OK && head_seq != 0) {
            snprintf(what, cap,
                     "the log is empty but its head records %" PRIu64 " records: "
                     "it was truncated or replaced",
                     head_seq);
            return SLUICE_E_INVALID;
        }
        a->seq = 0;
        memcpy(a->last_hash, genesis, sizeof genesis);
        return SLUICE_OK;
    }
    if (hs == HEAD_MISSING) {
        snprintf(what, cap,
                 "the head file %s is missing beside a non-empty log, so truncation "
                 "cannot be ruled out",
                 hpath);
        return SLUICE_E_INVALID;
    }
    bool at_end =
        head_seq == last.seq && sluice_hash_equal(head_hash, last.hash, SLUICE_HASH_BYTES);
    bool behind = head_seq < last.seq && last.seq - head_seq <= SLUICE_LIMIT_AUDIT_UNSYNCED;
    if (!at_end && behind) {
        st = adopt_unsynced(a, head_seq, head_hash, last.seq, what, cap);
        if (st != SLUICE_OK && st != SLUICE_E_INVALID)
            return st;
        behind = st == SLUICE_OK;
    }
    if (!at_end && !behind) {
        snprintf(what, cap,
                 "the log ends at seq %" PRIu64 " but its head records seq %" PRIu64
                 " with another hash: records were removed or changed",
                 last.seq, head_seq);
        return SLUICE_E_INVALID;
    }
    if (behind) {
        sluice_log(SLUICE_LOG_WARN,
                   "%s: head was %" PRIu64 " record(s) behind (crash during a group commit?); "
                   "they link to it, so it was repaired",
                   a->path, last.seq - head_seq);
        if (!write_head(a->head_fd, last.seq, last.hash)) {
            snprintf(what, cap, "cannot repair the head file %s: %s", hpath, strerror(errno));
            return SLUICE_E_IO;
        }
    }
    a->seq = last.seq;
    memcpy(a->last_hash, last.hash, sizeof last.hash);
    return SLUICE_OK;
}

/* The chain resumed from the complete records, so the partial line after them is not covered
 * by the head: cut it off (durably) before the next append lands behind it. SLUICE_E_IO when
 * the file cannot be cut. */
static sluice_status drop_torn_tail(audit_file *a, size_t torn, char *what, size_t cap)
{
    sluice_log(SLUICE_LOG_WARN,
               "%s: dropped an incomplete record of %zu byte(s) after seq %" PRIu64
               " (a crash cut its write short before it was acknowledged)",
               a->path, torn, a->seq);
    if (ftruncate(a->fd, (off_t)a->end) != 0 || fdatasync(a->fd) != 0) {
        snprintf(what, cap, "cannot cut the incomplete record off the log: %s", strerror(errno));
        return SLUICE_E_IO;
    }
    return SLUICE_OK;
}

static sluice_status open_files(audit_file *a, const char *hpath, char *what, size_t cap)
{
    a->fd = open(a->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (a->fd < 0) {
        snprintf(what, cap, "cannot open: %s", strerror(errno));
        return SLUICE_E_IO;
    }
    if (flock(a->fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(what, cap, "another running sluice process is writing this audit log");
        a->held_elsewhere = errno == EWOULDBLOCK;
        return SLUICE_E_IO;
    }
    uint64_t head_seq = 0;
    uint8_t head_hash[SLUICE_HASH_BYTES];
    head_state hs = read_head(hpath, &head_seq, head_hash);
    a->head_fd = open(hpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (a->head_fd < 0) {
        snprintf(what, cap, "cannot open the head file %s: %s", hpath, strerror(errno));
        return SLUICE_E_IO;
    }
    size_t size = 0;
    sluice_status st = complete_end(a->fd, &size, &a->end, what, cap);
    if (st == SLUICE_OK)
        st = resume_chain(a, hpath, hs, head_seq, head_hash, what, cap);
    if (st == SLUICE_OK && a->end < size)
        st = drop_torn_tail(a, size - a->end, what, cap);
    if (st == SLUICE_OK && hs == HEAD_MISSING && !write_head(a->head_fd, a->seq, a->last_hash)) {
        snprintf(what, cap, "cannot write the head file %s: %s", hpath, strerror(errno));
        st = SLUICE_E_IO;
    }
    return st;
}

static void file_close(void *impl)
{
    audit_file *a = impl;
    if (a->fd >= 0)
        close(a->fd);
    if (a->head_fd >= 0)
        close(a->head_fd);
    sluice_group_commit_destroy(&a->gc);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* A half-built sink: the mutex and group commit exist, no file is open yet. NULL on failure. */
static audit_file *file_new(const char *path, const sluice_audit_file_options *options)
{
    audit_file *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    a->fd = a->head_fd = -1;
    a->clock = options != NULL ? options->clock : NULL;
    a->rotate_bytes = options != NULL ? options->rotate_bytes : 0;
    a->rotate_ms = options != NULL ? options->rotate_seconds * 1000 : 0;
    snprintf(a->path, sizeof a->path, "%s", path);
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        free(a);
        return NULL;
    }
    if (!sluice_group_commit_init(&a->gc, SLUICE_LIMIT_AUDIT_UNSYNCED)) {
        pthread_mutex_destroy(&a->lock);
        free(a);
        return NULL;
    }
    a->gc.per_record = options != NULL && options->per_record_sync;
    return a;
}

/* "<path><suffix>" into out (PATH_MAX_BYTES); false when it does not fit. */
static bool path_with(const char *path, const char *suffix, unsigned n, char *out)
{
    int len = n > 0 ? snprintf(out, PATH_MAX_BYTES, "%s.%u%s", path, n, suffix)
                    : snprintf(out, PATH_MAX_BYTES, "%s%s", path, suffix);
    return len > 0 && (size_t)len < PATH_MAX_BYTES;
}

/* The first N with no "<path>.N": where the next rotation goes, and where verify stops. */
static unsigned first_free_rotation(const char *path)
{
    char p[PATH_MAX_BYTES];
    unsigned n = 1;
    while (n < UINT32_MAX && path_with(path, "", n, p) && access(p, F_OK) == 0)
        n++;
    return n;
}

/* A crash between a rotation's renames leaves "<path>.next" (the new file, complete and
 * durable) and no "<path>": finish the move so the chain continues from it. */
static sluice_status finish_rotation(const char *path, char *what, size_t cap)
{
    char next[PATH_MAX_BYTES], next_head[PATH_MAX_BYTES], head[PATH_MAX_BYTES];
    if (!path_with(path, NEXT_SUFFIX, 0, next) ||
        !path_with(path, NEXT_SUFFIX HEAD_SUFFIX, 0, next_head) ||
        !path_with(path, HEAD_SUFFIX, 0, head) || access(path, F_OK) == 0 ||
        access(next, F_OK) != 0)
        return SLUICE_OK;
    if (rename(next_head, head) != 0 || rename(next, path) != 0) {
        snprintf(what, cap, "cannot finish an interrupted rotation (%s): %s", next,
                 strerror(errno));
        return SLUICE_E_IO;
    }
    sluice_log(SLUICE_LOG_WARN, "%s: finished a rotation a crash interrupted", path);
    return SLUICE_OK;
}

static void note_file(audit_file *a)
{
    struct stat sb;
    a->file_bytes = fstat(a->fd, &sb) == 0 ? (size_t)sb.st_size : 0;
    a->file_started_ms = sluice_clock_now_ms(a->clock);
    a->next_rotation = first_free_rotation(a->path);
}

static const sluice_audit_sink_ops file_ops;

bool sluice_audit_writer_path(const char *path, unsigned slot, char *out, size_t cap)
{
    int n = slot <= 1 ? snprintf(out, cap, "%s", path) : snprintf(out, cap, "%s.w%u", path, slot);
    return n > 0 && (size_t)n < cap;
}

/* Opens the chain at path: a sink, or NULL with the status and what went wrong; *held when
 * another process holds it (the only failure that is not about the chain). */
static audit_file *open_one(const char *path,
                            const sluice_audit_file_options *options,
                            sluice_status *st,
                            bool *held,
                            char *what,
                            size_t cap)
{
    char hpath[PATH_MAX_BYTES];
    *held = false;
    if (strlen(path) >= PATH_MAX_BYTES - 16 || !head_path(path, hpath)) {
        *st = SLUICE_E_LIMIT;
        snprintf(what, cap, "the path is too long");
        return NULL;
    }
    audit_file *a = file_new(path, options);
    if (a == NULL) {
        *st = SLUICE_E_NOMEM;
        snprintf(what, cap, "out of memory");
        return NULL;
    }
    *st = sluice_hash_init();
    if (*st == SLUICE_OK)
        *st = finish_rotation(path, what, cap);
    if (*st == SLUICE_OK)
        *st = open_files(a, hpath, what, cap);
    if (*st == SLUICE_OK) {
        note_file(a);
        return a;
    }
    *held = a->held_elsewhere;
    file_close(a);
    return NULL;
}

sluice_status sluice_audit_open_writer(const char *path,
                                       const sluice_audit_file_options *options,
                                       unsigned *slot,
                                       sluice_audit **out,
                                       sluice_arena *err_arena,
                                       sluice_error *err)
{
    unsigned last = slot != NULL ? SLUICE_LIMIT_AUDIT_WRITERS : 1;
    for (unsigned k = 1; k <= last; k++) {
        char file[PATH_MAX_BYTES], what[512] = "";
        if (!sluice_audit_writer_path(path, k, file, sizeof file))
            return sluice_error_set(err, err_arena, SLUICE_E_LIMIT, "audit log path is too long");
        sluice_status st;
        bool held;
        audit_file *a = open_one(file, options, &st, &held, what, sizeof what);
        if (a == NULL && held)
            continue; /* another process writes this chain: take the next writer slot */
        if (a == NULL && (st == SLUICE_E_NOMEM || st == SLUICE_E_LIMIT))
            return sluice_error_set(err, err_arena, st, "audit log %s: %s", file, what);
        if (a == NULL)
            return sluice_error_set(err, err_arena, st,
                                    "audit log %s: %s; refusing to append to a broken chain (run "
                                    "`sluice audit verify %s`; to start a new chain, move the log "
                                    "and its .head file aside)",
                                    file, what, path);
        if (k > 1)
            sluice_log(SLUICE_LOG_WARN,
                       "audit log %s is held by another running sluice process; this one writes "
                       "its own chain %s (`sluice audit verify %s` checks both)",
                       path, file, path);
        if (slot != NULL)
            *slot = k;
        if (sluice_audit_wrap(&file_ops, a, out) != SLUICE_OK)
            return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        return SLUICE_OK;
    }
    if (last == 1)
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "audit log %s is held by another running sluice process (its "
                                "chain is not affected); stop that process or use another log",
                                path);
    return sluice_error_set(err, err_arena, SLUICE_E_IO,
                            "audit log %s: all %u writer chains (%s, %s.w2 .. %s.w%u) are held by "
                            "other running sluice processes (no chain is affected); stop one of "
                            "them or give this process its own [code_mode] audit_log",
                            path, SLUICE_LIMIT_AUDIT_WRITERS, path, path, path,
                            SLUICE_LIMIT_AUDIT_WRITERS);
}

sluice_status sluice_audit_open_file(const char *path,
                                     const sluice_audit_file_options *options,
                                     sluice_audit **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    return sluice_audit_open_writer(path, options, NULL, out, err_arena, err);
}

sluice_status
sluice_audit_open(const char *path, sluice_audit **out, sluice_arena *err_arena, sluice_error *err)
{
    return sluice_audit_open_file(path, NULL, out, err_arena, err);
}

/* ---- append ------------------------------------------------------------------------------ */

/* Group commit, leader side: note the chain's end under the mutex... */
static void group_begin(void *ctx)
{
    audit_file *a = ctx;
    a->sync_seq = a->seq;
    memcpy(a->sync_hash, a->last_hash, sizeof a->sync_hash);
}

/* ...then, without it, make the log durable up to there and only then move the head. */
static bool group_sync(void *ctx)
{
    audit_file *a = ctx;
    int64_t start = sluice_metric_now_ns();
    bool ok = fdatasync(a->fd) == 0 && write_head(a->head_fd, a->sync_seq, a->sync_hash);
    sluice_metric_observe_ns(SLUICE_METRIC_AUDIT_FSYNC_SECONDS, sluice_metric_now_ns() - start,
                             NULL, NULL);
    return ok;
}

static const sluice_group_commit_ops group_ops = { group_begin, group_sync };

static sluice_status broken_error(const audit_file *a, sluice_arena *err_arena, sluice_error *err)
{
    return sluice_error_set(err, err_arena, SLUICE_E_IO,
                            "audit log %s: an earlier write failed, so the chain may be torn; "
                            "refusing to append (run `sluice audit verify %s`)",
                            a->path, a->path);
}

/* Record seq's text: the chain's members, then the event's members as they were written, byte
 * for byte what json_dumps(JSON_COMPACT) wrote for one object made of both, without making that
 * object (a copy of every member and a second walk were most of an audit record's cost). */
char *sluice_audit_render_record(uint64_t seq,
                                 const uint8_t *last_hash,
                                 const sluice_clock *clock,
                                 const char *members,
                                 size_t members_len,
                                 size_t *len,
                                 uint8_t *hash)
{
    *len = 0;
    char ts[SLUICE_CLOCK_UTC_TEXT], prev[SLUICE_HASH_HEX_CHARS + 1];
    sluice_clock_utc_text_ms(sluice_clock_now_ms(clock), ts);
    sluice_hash_hex(last_hash, SLUICE_HASH_BYTES, prev);
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    sluice_buf_reserve(&buf, SLUICE_AUDIT_TEXT_RESERVE);
    /* the chain's members as the writer writes values (snprintf was a tenth of the record);
     * seq as the signed integer json_integer held it: the bytes of the records before */
    sluice_json_out out = { .buf = &buf };
    sluice_json_out_open(&out, '{');
    sluice_json_out_key(&out, "seq");
    sluice_json_out_integer(&out, (json_int_t)seq);
    sluice_json_out_key(&out, "ts");
    sluice_json_out_string(&out, ts);
    sluice_json_out_key(&out, "prev");
    sluice_json_out_string(&out, prev);
    if (members_len > 0) {
        sluice_buf_putc(&buf, ',');
        sluice_buf_append(&buf, members, members_len);
    }
    sluice_buf_putc(&buf, '}');
    if (sluice_json_out_status(&out) != SLUICE_OK) {
        sluice_buf_dispose(&buf);
        return NULL;
    }
    size_t total = buf.len;
    if (total > SLUICE_LIMIT_AUDIT_LINE_BYTES) {
        sluice_buf_dispose(&buf);
        *len = total;
        return NULL;
    }
    sluice_hash_sha256(buf.data, total, hash);
    buf.data[total] = '\n'; /* the buffer keeps room for its NUL: the newline takes its place */
    *len = total + 1;
    return buf.data;
}

/* The next record as one line (newline included, malloc'd), its length and hash. NULL with
 * *len 0: out of memory; NULL with *len set: longer than the limit. */
static char *
render_record(audit_file *a, const char *members, size_t members_len, size_t *len, uint8_t *hash)
{
    return sluice_audit_render_record(a->seq + 1, a->last_hash, a->clock, members, members_len, len,
                                      hash);
}

/* Rotation is due, and possible now: every record written is durable and no sync runs (so the
 * old file's head names its last record and no leader still uses its descriptors). */
static bool rotation_due(const audit_file *a)
{
    bool big = a->rotate_bytes > 0 && a->file_bytes >= a->rotate_bytes;
    bool old =
        a->rotate_ms > 0 && sluice_clock_now_ms(a->clock) - a->file_started_ms >= a->rotate_ms;
    return (big || old) && a->seq > 0 && !a->gc.syncing && a->gc.durable == a->gc.written;
}

/* Writes the new file's first record (the link to the old file) and its head, durably. */
static bool
prepare_next(audit_file *a, int fd, int head_fd, const char *rotated, size_t *len, uint8_t *hash)
{
    const char *base = strrchr(rotated, '/');
    sluice_buf members;
    sluice_buf_init(&members, NULL, 0);
    sluice_json_out out = { .buf = &members };
    sluice_json_out_key(&out, "event");
    sluice_json_out_string(&out, "audit_rotated");
    sluice_json_out_key(&out, "previous_file");
    sluice_json_out_string(&out, base != NULL ? base + 1 : rotated);
    sluice_json_out_key(&out, "previous_seq");
    sluice_json_out_integer(&out, (json_int_t)a->seq);
    char *text = sluice_json_out_status(&out) == SLUICE_OK
                     ? render_record(a, members.data, members.len, len, hash)
                     : NULL;
    sluice_buf_dispose(&members);
    bool ok = text != NULL && sluice_write_all(fd, text, *len) && fdatasync(fd) == 0 &&
              write_head(head_fd, a->seq + 1, hash);
    free(text);
    return ok;
}

static void fsync_dir_of(const char *path)
{
    char dir[PATH_MAX_BYTES];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Moves the log to "<path>.N" and continues the chain in a fresh file (caller holds the mutex,
 * rotation_due said yes). A failure before the old file moves leaves it in use (logged);
 * a failure while moving breaks the sink (SLUICE_E_IO), as a failed write would. */
static sluice_status rotate(audit_file *a, sluice_arena *err_arena, sluice_error *err)
{
    char next[PATH_MAX_BYTES], next_head[PATH_MAX_BYTES], head[PATH_MAX_BYTES];
    char rotated[PATH_MAX_BYTES], rotated_head[PATH_MAX_BYTES];
    if (!path_with(a->path, NEXT_SUFFIX, 0, next) ||
        !path_with(a->path, NEXT_SUFFIX HEAD_SUFFIX, 0, next_head) ||
        !path_with(a->path, HEAD_SUFFIX, 0, head) ||
        !path_with(a->path, "", a->next_rotation, rotated) ||
        !path_with(a->path, HEAD_SUFFIX, a->next_rotation, rotated_head))
        return SLUICE_OK; /* the names do not fit: keep the one file */
    int fd = open(next, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    int head_fd = open(next_head, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t len = 0;
    uint8_t hash[SLUICE_HASH_BYTES];
    if (fd < 0 || head_fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
        !prepare_next(a, fd, head_fd, rotated, &len, hash)) {
        sluice_log(SLUICE_LOG_WARN, "%s: cannot rotate (%s); the current file stays in use",
                   a->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (head_fd >= 0)
            close(head_fd);
        unlink(next);
        unlink(next_head);
        a->file_started_ms = sluice_clock_now_ms(a->clock); /* try again later, not each time */
        return SLUICE_OK;
    }
    if (rename(a->path, rotated) != 0 || rename(head, rotated_head) != 0 ||
        rename(next_head, head) != 0 || rename(next, a->path) != 0) {
        a->broken = true;
        sluice_group_commit_fail(&a->gc);
        close(fd);
        close(head_fd);
        return sluice_error_set(err, err_arena, SLUICE_E_IO,
                                "audit log %s: rotation to %s failed half-way: %s", a->path,
                                rotated, strerror(errno));
    }
    fsync_dir_of(a->path);
    close(a->fd);
    close(a->head_fd);
    a->fd = fd;
    a->head_fd = head_fd;
    a->seq++;
    memcpy(a->last_hash, hash, sizeof hash);
    a->file_bytes = len;
    a->file_started_ms = sluice_clock_now_ms(a->clock);
    a->next_rotation++;
    sluice_metric_inc(SLUICE_METRIC_AUDIT_ROTATIONS, NULL, NULL, NULL);
    sluice_metric_inc(SLUICE_METRIC_AUDIT_RECORDS, NULL, NULL, NULL);
    sluice_log(SLUICE_LOG_INFO, "%s: rotated to %s at seq %llu", a->path, rotated,
               (unsigned long long)(a->seq - 1));
    return SLUICE_OK;
}

/* Writes the record (caller holds the mutex); *ticket is its group-commit ticket. */
static sluice_status write_record(audit_file *a,
                                  const char *members,
                                  size_t members_len,
                                  uint64_t *ticket,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    if (a->broken || !sluice_group_commit_reserve(&a->gc, &a->lock))
        return broken_error(a, err_arena, err);
    if (rotation_due(a)) {
        sluice_status st = rotate(a, err_arena, err);
        if (st != SLUICE_OK)
            return st;
    }
    size_t len = 0;
    uint8_t hash[SLUICE_HASH_BYTES];
    char *text = render_record(a, members, members_len, &len, hash);
    if (text == NULL && len == 0)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory building an audit record");
    if (text == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_LIMIT,
                                "audit record is %zu bytes (limit is %u)", len,
                                SLUICE_LIMIT_AUDIT_LINE_BYTES);
    bool ok = sluice_write_all(a->fd, text, len);
    free(text);
    if (!ok) {
        int cause = errno;
        /* A full disk (or file size limit) takes part of the line: cut it off again, so the log
         * on disk stays a clean chain; a failed cut leaves the tail that the next open drops. */
        if (ftruncate(a->fd, (off_t)a->file_bytes) != 0)
            sluice_log(SLUICE_LOG_ERROR, "audit log %s: cannot cut a failed write off: %s", a->path,
                       strerror(errno));
        a->broken = true;
        sluice_group_commit_fail(&a->gc);
        return sluice_error_set(err, err_arena, SLUICE_E_IO, "audit log %s: cannot write: %s",
                                a->path, strerror(cause));
    }
    a->file_bytes += len;
    a->seq++;
    memcpy(a->last_hash, hash, sizeof hash);
    sluice_metric_inc(SLUICE_METRIC_AUDIT_RECORDS, NULL, NULL, NULL);
    *ticket = sluice_group_commit_ticket(&a->gc);
    return SLUICE_OK;
}

static sluice_status
file_append(void *impl, const char *members, size_t len, sluice_arena *err_arena, sluice_error *err)
{
    audit_file *a = impl;
    pthread_mutex_lock(&a->lock);
    uint64_t ticket = 0;
    sluice_status st = write_record(a, members, len, &ticket, err_arena, err);
    if (st == SLUICE_OK && !sluice_group_commit_wait(&a->gc, &a->lock, ticket, &group_ops, a)) {
        a->broken = true;
        st = sluice_error_set(err, err_arena, SLUICE_E_IO,
                              "audit log %s: cannot make the record durable (fdatasync of the "
                              "log or its head failed); refusing further appends",
                              a->path);
    }
    if (st == SLUICE_OK && rotation_due(a)) /* a second chance: the group just became durable */
        st = rotate(a, err_arena, err);
    pthread_mutex_unlock(&a->lock);
    return st;
}

static uint64_t file_count(void *impl)
{
    audit_file *a = impl;
    pthread_mutex_lock(&a->lock);
    uint64_t n = a->seq;
    pthread_mutex_unlock(&a->lock);
    return n;
}

static const sluice_audit_sink_ops file_ops = { "file", file_append, file_count, file_close };

/* ---- verify ------------------------------------------------------------------------------ */

typedef enum read_result { READ_OK, READ_EOF, READ_BAD } read_result;

/* A line reader over the log that knows its line numbers. A reader with a visitor hands it each
 * record once the record is proven: by the next record's prev, or for the last one by the head
 * (so the visitor sees nothing an edit could have changed unseen); until then the record waits
 * in pending. */
typedef struct line_reader {
    FILE *f;
    char *buf;
    size_t cap;
    size_t len;                  /* length of the line last read, without its newline */
    size_t line;                 /* number of the line last read */
    bool torn;                   /* the file ends in a partial line (line + 1) */
    sluice_audit_visit_fn visit; /* NULL: only verify */
    void *ctx;
    const char *file; /* for visit */
    char *pending;    /* the last linked record, not yet proven */
    size_t pending_len, pending_cap;
    bool has_pending, nomem;
} line_reader;

/* Hands the pending record (now proven) to the visitor. */
static void release_pending(line_reader *lr)
{
    if (lr->has_pending)
        lr->visit(lr->ctx, lr->file, lr->pending, lr->pending_len);
    lr->has_pending = false;
}

/* The record just linked: releases the one before it (its hash is this one's prev) and waits
 * for its own proof. False when memory ran out. */
static bool hold_record(line_reader *lr)
{
    if (lr->visit == NULL)
        return true;
    release_pending(lr);
    if (lr->len + 1 > lr->pending_cap) {
        char *p = sluice_arena_fault_point() ? NULL : realloc(lr->pending, lr->len + 1);
        if (p == NULL) {
            lr->nomem = true;
            return false;
        }
        lr->pending = p;
        lr->pending_cap = lr->len + 1;
    }
    memcpy(lr->pending, lr->buf, lr->len);
    lr->pending[lr->len] = '\0';
    lr->pending_len = lr->len;
    lr->has_pending = true;
    return true;
}

static void report_at(sluice_audit_report *r, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report_at(sluice_audit_report *r, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    r->line = line;
}

/* Reads and parses the next record; READ_BAD fills the report. */
static read_result next_record(line_reader *lr, record *rec, sluice_audit_report *r)
{
    ssize_t n = getline(&lr->buf, &lr->cap, lr->f);
    if (n < 0)
        return ferror(lr->f) ? (report_at(r, lr->line + 1, "read error"), READ_BAD) : READ_EOF;
    lr->line++;
    size_t len = (size_t)n;
    if (lr->buf[len - 1] != '\n') { /* getline only returns a line without one at the end */
        lr->line--;
        lr->torn = true;
        return READ_EOF;
    }
    len--;
    lr->len = len;
    if (len > SLUICE_LIMIT_AUDIT_LINE_BYTES) {
        report_at(r, lr->line, "record is longer than %u bytes", SLUICE_LIMIT_AUDIT_LINE_BYTES);
        return READ_BAD;
    }
    char what[sizeof r->what];
    if (!parse_record(lr->buf, len, rec, what, sizeof what)) {
        report_at(r, lr->line, "%s", what);
        return READ_BAD;
    }
    return READ_OK;
}

/* A record's prev does not match the line before it. If that earlier line was edited, only
 * this link breaks; if this line's prev was edited, this line's own hash changed too, so the next
 * link (or the head) breaks as well. Looking one record ahead tells which line to blame. */
static void blame_link(line_reader *lr,
                       const record *rec,
                       bool has_head,
                       uint64_t head_seq,
                       const uint8_t *head_hash,
                       sluice_audit_report *r)
{
    size_t at = lr->line;
    record next;
    sluice_audit_report scratch = { 0 };
    read_result rr = next_record(lr, &next, &scratch);
    bool next_link_broken;
    if (rr == READ_OK)
        next_link_broken = !sluice_hash_equal(next.prev, rec->hash, SLUICE_HASH_BYTES);
    else if (rr == READ_EOF)
        next_link_broken = has_head && head_seq == rec->seq &&
                           !sluice_hash_equal(head_hash, rec->hash, SLUICE_HASH_BYTES);
    else
        next_link_broken = false;
    if (next_link_broken)
        report_at(r, at,
                  "record %" PRIu64 " was modified (it matches neither the record before "
                  "nor the one after it)",
                  rec->seq);
    else
        report_at(r, at - 1,
                  "record %" PRIu64 " was modified (its hash no longer matches the "
                  "prev of line %zu)",
                  rec->seq - 1, at);
}

/* Walks the chain; returns false at the first problem (report filled). */
static bool walk_chain(line_reader *lr,
                       bool has_head,
                       uint64_t head_seq,
                       const uint8_t *head_hash,
                       sluice_audit_report *r,
                       uint8_t *last_hash)
{
    record rec; /* last_hash comes in as the end of the files before this one (or genesis) */
    read_result rr;
    while ((rr = next_record(lr, &rec, r)) == READ_OK) {
        uint64_t want = r->records + 1;
        if (rec.seq > want) {
            report_at(r, lr->line,
                      "seq is %" PRIu64 " where %" PRIu64 " was expected: records "
                      "%" PRIu64 "..%" PRIu64 " are missing here (deleted or moved)",
                      rec.seq, want, want, rec.seq - 1);
            return false;
        }
        if (rec.seq < want) {
            report_at(r, lr->line,
                      "seq is %" PRIu64 " where %" PRIu64 " was expected: records "
                      "are out of order or repeated",
                      rec.seq, want);
            return false;
        }
        if (!sluice_hash_equal(rec.prev, last_hash, SLUICE_HASH_BYTES)) {
            if (rec.seq > 1 && lr->line == 1)
                report_at(r, lr->line,
                          "the first record's prev does not match the last record of the "
                          "rotated file before it: a file is missing, replaced or reordered");
            else if (rec.seq == 1)
                report_at(r, lr->line,
                          "the first record's prev is not the genesis value: the "
                          "log does not start at its beginning");
            else
                blame_link(lr, &rec, has_head, head_seq, head_hash, r);
            return false;
        }
        memcpy(last_hash, rec.hash, SLUICE_HASH_BYTES);
        r->records++;
        if (!hold_record(lr)) {
            report_at(r, lr->line, "out of memory");
            return false;
        }
    }
    return rr == READ_EOF;
}

/* The chain is intact up to its last record; does it end where the head says? */
static bool check_head(const sluice_audit_report *in,
                       uint64_t head_seq,
                       const uint8_t *head_hash,
                       const uint8_t *last_hash,
                       sluice_audit_report *r)
{
    uint64_t n = in->records;
    if (head_seq > n) {
        report_at(r, (size_t)n + 1,
                  "the log ends after record %" PRIu64 " but its head file "
                  "records %" PRIu64 ": the tail was truncated",
                  n, head_seq);
        return false;
    }
    if (head_seq < n) {
        report_at(r, (size_t)head_seq + 1,
                  "records after %" PRIu64 " are not covered by the "
                  "head file (a crash cut a group commit short: opening "
                  "the log adopts them; or the head was rolled back)",
                  head_seq);
        return false;
    }
    if (n > 0 && !sluice_hash_equal(head_hash, last_hash, SLUICE_HASH_BYTES)) {
        report_at(r, (size_t)n,
                  "record %" PRIu64 " was modified (its hash does not match the "
                  "head file)",
                  n);
        return false;
    }
    return true;
}

/* Checks one file of the chain; report->records and last_hash carry the chain's end from the
 * files before it (0 and genesis for the first). live: the file appends go to (the only one a
 * crash can leave with a partial last line). */
static sluice_status verify_file(const char *path,
                                 bool live,
                                 sluice_audit_report *report,
                                 uint8_t last_hash[SLUICE_HASH_BYTES],
                                 sluice_audit_visit_fn visit,
                                 void *ctx)
{
    char hpath[PATH_MAX_BYTES];
    if (!head_path(path, hpath)) {
        report_at(report, 0, "path too long");
        return SLUICE_E_IO;
    }
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        report_at(report, 0, "cannot open: %s", strerror(errno));
        return SLUICE_E_IO;
    }
    uint64_t head_seq = 0;
    uint8_t head_hash[SLUICE_HASH_BYTES];
    head_state hs = read_head(hpath, &head_seq, head_hash);
    line_reader lr = { .f = f, .visit = visit, .ctx = ctx, .file = path };
    uint64_t before = report->records;
    bool ok = walk_chain(&lr, hs == HEAD_OK, head_seq, head_hash, report, last_hash);
    bool io_error = ferror(f) != 0;
    free(lr.buf);
    fclose(f);
    if (io_error || lr.nomem) {
        free(lr.pending);
        return io_error ? SLUICE_E_IO : SLUICE_E_NOMEM;
    }
    if (ok && hs != HEAD_OK && (hs != HEAD_MISSING || report->records > before)) {
        report_at(report, 0, "the head file %s is %s, so a truncated tail cannot be ruled out",
                  hpath,
                  hs == HEAD_MISSING ? "missing"
                  : hs == HEAD_BAD   ? "malformed"
                                     : "unreadable");
        ok = false;
    }
    if (ok && hs == HEAD_OK)
        ok = check_head(report, head_seq, head_hash, last_hash, report);
    if (ok && lr.torn) {
        report_at(report, lr.line + 1,
                  live ? "an incomplete record (no newline at the end) not covered by the head "
                         "file: a crash cut its write short before it was acknowledged; opening "
                         "the log drops it"
                       : "incomplete record (no newline at the end): this rotated file was cut "
                         "short");
        ok = false;
    }
    if (ok) /* the head proved the last record */
        release_pending(&lr);
    free(lr.pending);
    return ok ? SLUICE_OK : SLUICE_E_INVALID;
}

sluice_status sluice_audit_verify(const char *path, sluice_audit_report *report)
{
    return sluice_audit_verify_each(path, NULL, NULL, report);
}

sluice_status sluice_audit_verify_each(const char *path,
                                       sluice_audit_visit_fn visit,
                                       void *ctx,
                                       sluice_audit_report *report)
{
    memset(report, 0, sizeof(*report));
    if (strlen(path) >= PATH_MAX_BYTES - 16 || sluice_hash_init() != SLUICE_OK) {
        report_at(report, 0, "path too long or libsodium unavailable");
        return SLUICE_E_IO;
    }
    uint8_t last_hash[SLUICE_HASH_BYTES];
    memcpy(last_hash, genesis, sizeof last_hash);
    unsigned rotated = first_free_rotation(path) - 1; /* "<path>.1" .. "<path>.<rotated>" */
    for (unsigned n = 1; n <= rotated + 1; n++) {
        char file[PATH_MAX_BYTES];
        if (n <= rotated)
            path_with(path, "", n, file);
        else
            snprintf(file, sizeof file, "%s", path);
        report->files++;
        sluice_status st = verify_file(file, n > rotated, report, last_hash, visit, ctx);
        if (st != SLUICE_OK) {
            if (n <= rotated)
                snprintf(report->file, sizeof report->file, "%s", file);
            return st;
        }
    }
    return SLUICE_OK;
}

sluice_status sluice_audit_verify_lines(FILE *f,
                                        bool has_head,
                                        uint64_t head_seq,
                                        const uint8_t *head_hash,
                                        sluice_audit_visit_fn visit,
                                        void *ctx,
                                        const char *name,
                                        sluice_audit_report *report)
{
    memset(report, 0, sizeof(*report));
    report->files = 1;
    uint8_t last_hash[SLUICE_HASH_BYTES];
    memcpy(last_hash, genesis, sizeof last_hash);
    line_reader lr = { .f = f, .visit = visit, .ctx = ctx, .file = name };
    bool ok = walk_chain(&lr, has_head, head_seq, head_hash, report, last_hash);
    free(lr.buf);
    if (ferror(f) != 0 || lr.nomem) {
        free(lr.pending);
        return lr.nomem ? SLUICE_E_NOMEM : SLUICE_E_IO;
    }
    if (ok && !has_head && report->records > 0) {
        report_at(report, 0, "the head is missing, so a truncated tail cannot be ruled out");
        ok = false;
    }
    if (ok && has_head)
        ok = check_head(report, head_seq, head_hash, last_hash, report);
    if (ok && lr.torn) {
        report_at(report, lr.line + 1, "incomplete record (no newline at the end)");
        ok = false;
    }
    if (ok)
        release_pending(&lr);
    free(lr.pending);
    return ok ? SLUICE_OK : SLUICE_E_INVALID;
}
