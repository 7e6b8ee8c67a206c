/*
 * audit_tail.c — the most recent audit records, for the admin console's trail and export (see
 * audit.h): of the main file and of every writer chain "<path>.wN" beside it, merged newest first,
 * each marked with its chain ("main", "w2", ...).
 *
 * Why only the tail: the console shows what happened lately; the whole chain's integrity is
 * `sluice audit verify`'s job. At most SLUICE_LIMIT_ADMIN_AUDIT_TAIL_BYTES are read from the end
 * of the current file, so a large log costs one bounded read.
 */
#include "state/audit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole lines in the last bytes of fd, as a malloc'd block (*len bytes); NULL on failure. */
static char *read_tail(int fd, size_t *len)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return NULL;
    size_t size = (size_t)sb.st_size;
    size_t want =
        size < SLUICE_LIMIT_ADMIN_AUDIT_TAIL_BYTES ? size : SLUICE_LIMIT_ADMIN_AUDIT_TAIL_BYTES;
    char *buf = malloc(want + 1);
    if (buf == NULL)
        return NULL;
    if (pread(fd, buf, want, (off_t)(size - want)) != (ssize_t)want) {
        free(buf);
        return NULL;
    }
    size_t start = 0;
    if (want < size) { /* the first line may be cut: skip to the next one */
        char *nl = memchr(buf, '\n', want);
        start = nl != NULL ? (size_t)(nl - buf) + 1 : want;
    }
    memmove(buf, buf + start, want - start);
    *len = want - start;
    buf[*len] = '\0';
    return buf;
}

/* The last records of one chain file, newest first, each marked with its chain; NULL when the
 * file cannot be read or memory runs out. */
static json_t *chain_tail(const char *file, const char *chain, size_t max)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t len = 0;
    char *text = read_tail(fd, &len);
    close(fd);
    json_t *out = text != NULL ? json_array() : NULL;
    /* newest first: walk the lines from the end */
    size_t end = len;
    while (out != NULL && end > 0 && json_array_size(out) < max) {
        size_t stop = end - 1; /* the newline ending this line */
        size_t begin = stop;
        while (begin > 0 && text[begin - 1] != '\n')
            begin--;
        json_t *rec = json_loadb(text + begin, stop - begin, JSON_REJECT_DUPLICATES, NULL);
        end = begin;
        if (!json_is_object(rec)) { /* not a record: verify reports it */
            json_decref(rec);
            continue;
        }
        /* json_array_append_new frees rec even when it fails */
        if (json_object_set_new(rec, "chain", json_string(chain)) != 0) {
            json_decref(rec);
            rec = NULL;
        }
        if (rec == NULL || json_array_append_new(out, rec) != 0) {
            json_decref(out); /* a record that cannot be kept: no partial trail */
            out = NULL;
        }
    }
    free(text);
    return out;
}

static const char *ts_of(const json_t *rec)
{
    const char *ts = json_string_value(json_object_get(rec, "ts"));
    return ts != NULL ? ts : "";
}

/* Newest first across chains; equal stamps keep chain order (the main file first). */
static int newer_first(const void *a, const void *b)
{
    const json_t *const *x = a, *const *y = b;
    int c = strcmp(ts_of(*y), ts_of(*x));
    if (c != 0)
        return c;
    return strcmp(json_string_value(json_object_get(*x, "chain")),
                  json_string_value(json_object_get(*y, "chain")));
}

static json_t *merge(json_t *records, size_t max);

json_t *sluice_audit_tail(const char *path, size_t max)
{
    json_t *all = chain_tail(path, "main", max);
    if (all == NULL)
        return NULL;
    /* the chains other processes wrote while one held path (audit.h: writer slots) */
    for (unsigned k = 2; k <= SLUICE_LIMIT_AUDIT_WRITERS; k++) {
        char file[4096], chain[16];
        if (!sluice_audit_writer_path(path, k, file, sizeof file) || access(file, F_OK) != 0)
            continue;
        snprintf(chain, sizeof chain, "w%u", k);
        json_t *more = chain_tail(file, chain, max);
        if (more == NULL || json_array_extend(all, more) != 0) {
            json_decref(more);
            json_decref(all);
            return NULL; /* a chain that exists but cannot be read: say so, not a partial trail */
        }
        json_decref(more);
    }
    return merge(all, max);
}

/* Sorts records (an array, consumed) newest first by "ts", ties in chain order, and keeps the
 * first max; NULL when memory runs out. */
static json_t *merge(json_t *records, size_t max)
{
    size_t n = json_array_size(records);
    json_t **items = n > 0 ? malloc(n * sizeof *items) : NULL;
    json_t *out = json_array();
    if ((n > 0 && items == NULL) || out == NULL) {
        free(items);
        json_decref(out);
        json_decref(records);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        items[i] = json_array_get(records, i);
    qsort(items, n, sizeof *items, newer_first);
    for (size_t i = 0; i < n && i < max; i++)
        if (json_array_append(out, items[i]) != 0) {
            json_decref(out);
            out = NULL;
            break;
        }
    free(items);
    json_decref(records);
    return out;
}
