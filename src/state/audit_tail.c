/*
 * audit_tail.c — the most recent audit records, for the admin console's trail (see audit.h).
 *
 * Why only the tail: the console shows what happened lately; the whole chain's integrity is
 * `sluice audit verify`'s job. At most SLUICE_LIMIT_ADMIN_AUDIT_TAIL_BYTES are read from the end
 * of the current file, so a large log costs one bounded read.
 */
#include "state/audit.h"

#include <fcntl.h>
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

json_t *sluice_audit_tail(const char *path, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
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
        if (json_is_object(rec))
            json_array_append_new(out, rec);
        else
            json_decref(rec);
        end = begin;
    }
    free(text);
    return out;
}
