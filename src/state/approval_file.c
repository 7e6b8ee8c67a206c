/*
 * approval_file.c — the file approval store: append-only JSON lines (see approval.h).
 *
 * Lines are {"id","state","expires_at","user","summary"} for a request and
 * {"id","state","by","at","audited"} for a decision. Reading applies each line through the same
 * transition rules a write obeys, so the file can only ever say what a legal history says. Only
 * complete lines are read (a writer appends a line in one write), so readers need no lock.
 */
#include "core/limits.h"
#include "core/vec.h"
#include "state/approval.h"

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

typedef struct approval_file {
    pthread_mutex_t lock;
    int fd;
    off_t offset; /* bytes of the file already applied */
    sluice_approval *items;
    size_t count, cap;
} approval_file;

static sluice_approval *find(approval_file *s, const char *id)
{
    for (size_t i = s->count; i > 0; i--)
        if (strcmp(s->items[i - 1].id, id) == 0)
            return &s->items[i - 1];
    return NULL;
}

/* Room for one more request: grows, or drops requests that expired before now. */
static sluice_approval *add(approval_file *s, int64_t now)
{
    if (s->count == s->cap && s->cap < SLUICE_LIMIT_PENDING_APPROVALS) {
        sluice_approval *grown =
            sluice_vec_grow_heap(s->items, s->count + 1, &s->cap, sizeof *grown, 64);
        if (grown == NULL)
            return NULL;
        s->items = grown;
    }
    if (s->count == s->cap) {
        size_t kept = 0;
        for (size_t i = 0; i < s->count; i++)
            if (s->items[i].expires_at >= now)
                s->items[kept++] = s->items[i];
        s->count = kept;
    }
    if (s->count == s->cap)
        return NULL;
    sluice_approval *a = &s->items[s->count++];
    memset(a, 0, sizeof *a);
    return a;
}

static void copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src != NULL ? src : "");
}

/* Applies one line if it is a legal next step; anything else is ignored. */
static void apply(approval_file *s, const json_t *line)
{
    const char *id = json_string_value(json_object_get(line, "id"));
    const char *state = json_string_value(json_object_get(line, "state"));
    if (!sluice_approval_id_valid(id) || state == NULL)
        return;
    sluice_approval *a = find(s, id);
    if (strcmp(state, "pending") == 0) {
        json_int_t expires = json_integer_value(json_object_get(line, "expires_at"));
        if (a != NULL || expires <= 0 || (a = add(s, 0)) == NULL)
            return;
        copy_text(a->id, sizeof a->id, id);
        a->state = SLUICE_APPROVAL_PENDING;
        a->expires_at = expires;
        copy_text(a->user, sizeof a->user, json_string_value(json_object_get(line, "user")));
        copy_text(a->summary, sizeof a->summary,
                  json_string_value(json_object_get(line, "summary")));
        return;
    }
    bool approve = strcmp(state, "approved") == 0;
    json_int_t at = json_integer_value(json_object_get(line, "at"));
    if (a == NULL || a->state != SLUICE_APPROVAL_PENDING || at <= 0 || at > a->expires_at ||
        (!approve && strcmp(state, "rejected") != 0))
        return;
    a->state = approve ? SLUICE_APPROVAL_APPROVED : SLUICE_APPROVAL_REJECTED;
    a->decided_at = at;
    a->audited = json_is_true(json_object_get(line, "audited"));
    copy_text(a->decided_by, sizeof a->decided_by, json_string_value(json_object_get(line, "by")));
}

/* Applies the complete lines others appended since the last read (caller holds the mutex). */
static void catch_up(approval_file *s)
{
    struct stat st;
    if (fstat(s->fd, &st) != 0 || st.st_size <= s->offset)
        return;
    size_t want = (size_t)(st.st_size - s->offset);
    char *buf = malloc(want + 1);
    ssize_t got = buf != NULL ? pread(s->fd, buf, want, s->offset) : -1;
    if (got <= 0) {
        free(buf);
        return;
    }
    buf[got] = '\0';
    char *p = buf;
    char *nl;
    while ((nl = memchr(p, '\n', (size_t)(buf + got - p))) != NULL) {
        if ((size_t)(nl - p) <= SLUICE_LIMIT_APPROVAL_LINE_BYTES) {
            json_t *line = json_loadb(p, (size_t)(nl - p), 0, NULL);
            if (json_is_object(line))
                apply(s, line);
            json_decref(line);
        }
        p = nl + 1;
    }
    s->offset += (off_t)(p - buf);
    free(buf);
}

static sluice_approval snapshot(const sluice_approval *a, int64_t now)
{
    sluice_approval out = { .state = SLUICE_APPROVAL_NONE };
    if (a == NULL)
        return out;
    out = *a;
    bool live = a->state == SLUICE_APPROVAL_PENDING || a->state == SLUICE_APPROVAL_APPROVED;
    if (live && now > a->expires_at)
        out.state = SLUICE_APPROVAL_EXPIRED;
    return out;
}

/* Appends one line durably, then applies it (caller holds the mutex and the flock). */
static sluice_status
append(approval_file *s, json_t *line, sluice_arena *err_arena, sluice_error *err)
{
    char *text = json_dumps(line, JSON_COMPACT);
    size_t len = text != NULL ? strlen(text) : 0;
    char *with_nl = text != NULL ? malloc(len + 1) : NULL;
    if (with_nl == NULL) {
        free(text);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    memcpy(with_nl, text, len);
    with_nl[len] = '\n';
    free(text);
    ssize_t w = write(s->fd, with_nl, len + 1);
    free(with_nl);
    if (w != (ssize_t)(len + 1) || fdatasync(s->fd) != 0)
        return sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot write the approval store: %s",
                                strerror(errno));
    catch_up(s);
    return SLUICE_OK;
}

static const sluice_approval_store_ops file_ops;

sluice_status sluice_approval_open(const char *path,
                                   sluice_approval_store **out,
                                   sluice_arena *err_arena,
                                   sluice_error *err)
{
    approval_file *s = calloc(1, sizeof *s);
    if (s == NULL || pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    s->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (s->fd < 0) {
        int e = errno;
        pthread_mutex_destroy(&s->lock);
        free(s);
        return sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot open approval store '%s': %s",
                                path, strerror(e));
    }
    catch_up(s);
    /* Decisions already in the file were reported by the process that read them before. */
    for (size_t i = 0; i < s->count; i++)
        s->items[i].audited = true;
    if (sluice_approval_wrap(&file_ops, s, out) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    return SLUICE_OK;
}

static void file_close(void *impl)
{
    approval_file *s = impl;
    close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s->items);
    free(s);
}

static sluice_approval file_get(void *impl, const char *id, int64_t now)
{
    approval_file *s = impl;
    pthread_mutex_lock(&s->lock);
    catch_up(s);
    sluice_approval out = snapshot(find(s, id), now);
    pthread_mutex_unlock(&s->lock);
    return out;
}

/* Takes the mutex and the file lock and catches up: the state every write decides on. */
static void begin_write(approval_file *s)
{
    pthread_mutex_lock(&s->lock);
    while (flock(s->fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    catch_up(s);
}

static void end_write(approval_file *s)
{
    flock(s->fd, LOCK_UN);
    pthread_mutex_unlock(&s->lock);
}

static sluice_status file_request(void *impl,
                                  const sluice_approval_ask *ask,
                                  int64_t now,
                                  sluice_approval *out,
                                  sluice_arena *err_arena,
                                  sluice_error *err)
{
    approval_file *s = impl;
    const char *id = ask->id, *user = ask->user, *summary = ask->summary;
    begin_write(s);
    sluice_status st = SLUICE_OK;
    if (find(s, id) == NULL) {
        json_t *line =
            json_pack("{s:s, s:s, s:I, s:s, s:s}", "id", id, "state", "pending", "expires_at",
                      (json_int_t)ask->expires_at, "user", user != NULL ? user : "", "summary",
                      summary != NULL ? summary : "");
        st = line != NULL ? append(s, line, err_arena, err)
                          : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        json_decref(line);
    }
    *out = snapshot(find(s, id), now);
    end_write(s);
    return st;
}

static sluice_status file_decide(void *impl,
                                 const sluice_approval_decision *decision,
                                 int64_t now,
                                 sluice_approval *out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    approval_file *s = impl;
    const char *id = decision->id, *admin = decision->admin;
    begin_write(s);
    sluice_approval cur = snapshot(find(s, id), now);
    sluice_status st = SLUICE_OK;
    if (cur.state == SLUICE_APPROVAL_NONE)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOT_FOUND,
                              "no approval request %s (it is recorded when execute_code is "
                              "refused for want of approval)",
                              id);
    else if (cur.state != SLUICE_APPROVAL_PENDING)
        st = sluice_error_set(err, err_arena, SLUICE_E_DENIED,
                              "approval request %s is %s and can no longer be decided", id,
                              sluice_approval_state_name(cur.state));
    if (st == SLUICE_OK) {
        json_t *line = json_pack("{s:s, s:s, s:s, s:I, s:b}", "id", id, "state",
                                 decision->approve ? "approved" : "rejected", "by",
                                 admin != NULL ? admin : "admin", "at", (json_int_t)now, "audited",
                                 decision->audited);
        st = line != NULL ? append(s, line, err_arena, err)
                          : sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
        json_decref(line);
        cur = snapshot(find(s, id), now);
    }
    if (out != NULL)
        *out = cur;
    end_write(s);
    return st;
}

static size_t file_take_unaudited(void *impl, sluice_approval *out, size_t max)
{
    approval_file *s = impl;
    size_t n = 0;
    pthread_mutex_lock(&s->lock);
    catch_up(s);
    for (size_t i = 0; i < s->count && n < max; i++) {
        sluice_approval *a = &s->items[i];
        bool decided = a->state == SLUICE_APPROVAL_APPROVED || a->state == SLUICE_APPROVAL_REJECTED;
        if (decided && !a->audited) {
            a->audited = true;
            out[n++] = *a;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

static size_t file_pending(void *impl, int64_t now, sluice_approval *out, size_t max)
{
    approval_file *s = impl;
    size_t n = 0;
    pthread_mutex_lock(&s->lock);
    catch_up(s);
    for (size_t i = 0; i < s->count; i++) {
        sluice_approval a = snapshot(&s->items[i], now);
        if (a.state != SLUICE_APPROVAL_PENDING)
            continue;
        if (n < max)
            out[n] = a;
        n++;
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

static const sluice_approval_store_ops file_ops = {
    "file", file_get, file_request, file_decide, file_take_unaudited, file_pending, file_close,
};
