/*
 * clock_file.c — the wall clock read from a file (see clock_file.h).
 */
#include "core/clock_file.h"

#include "core/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_MS 1000000LL
/* 9999-12-31T23:59:59.999Z: later times would overflow nanoseconds soon after 2262 anyway, but
 * a wall clock past year 9999 cannot be printed in the ISO 8601 form every record uses. */
#define MAX_MS 253402300799999LL

struct sluice_file_clock {
    sluice_clock clock; /* first: the callbacks get &fc->clock and cast back */
    char *path;
    _Atomic int64_t last_ns; /* the last time read: kept when a later read fails */
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool sluice_file_clock_parse(const char *text, size_t len, int64_t *out_ms)
{
    size_t i = 0;
    while (i < len && is_space(text[i]))
        i++;
    int64_t ms = 0;
    size_t digits = 0;
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++, digits++) {
        if (digits == 16)
            return false;
        ms = ms * 10 + (text[i] - '0');
    }
    while (i < len && is_space(text[i]))
        i++;
    if (digits == 0 || i != len || ms > MAX_MS)
        return false;
    *out_ms = ms;
    return true;
}

/* Checks the file as the header says and reads its time. On failure returns the reason (a fixed
 * text, with errno for the system's) and leaves *out_ms untouched. */
static const char *read_time(const char *path, int64_t *out_ms, int *out_errno)
{
    *out_errno = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        *out_errno = errno;
        return "cannot open it";
    }
    struct stat sb;
    const char *why = NULL;
    char text[SLUICE_LIMIT_CLOCK_FILE_BYTES + 1];
    ssize_t n = 0;
    if (fstat(fd, &sb) != 0) {
        *out_errno = errno;
        why = "cannot stat it";
    } else if (!S_ISREG(sb.st_mode)) {
        why = "it is not a regular file";
    } else if (sb.st_uid != geteuid()) {
        why = "it belongs to another user; it must belong to the user running sluice";
    } else if ((sb.st_mode & 022) != 0) {
        why = "group or others may write it (whoever writes it sets the server's time); run "
              "chmod go-w on it";
    } else if ((n = read(fd, text, sizeof text)) < 0) {
        *out_errno = errno;
        why = "cannot read it";
    } else if ((size_t)n > SLUICE_LIMIT_CLOCK_FILE_BYTES) {
        why = "it is longer than 64 bytes";
    } else if (!sluice_file_clock_parse(text, (size_t)n, out_ms)) {
        why = "it does not hold a time: write milliseconds since the Unix epoch (UTC), e.g. "
              "1796601600000";
    }
    close(fd);
    return why;
}

static int64_t file_realtime(const sluice_clock *self)
{
    sluice_file_clock *fc = (sluice_file_clock *)(uintptr_t)self;
    int64_t ms;
    int e;
    if (read_time(fc->path, &ms, &e) == NULL)
        atomic_store(&fc->last_ns, ms * NS_PER_MS);
    return atomic_load(&fc->last_ns);
}

static int64_t system_monotonic(const sluice_clock *self)
{
    (void)self;
    return sluice_clock_monotonic_ns(sluice_clock_system());
}

sluice_status sluice_file_clock_open(const char *path,
                                     sluice_file_clock **out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    int64_t ms;
    int e;
    const char *why = read_time(path, &ms, &e);
    if (why != NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_CONFIG, "test clock %s: %s%s%s", path, why,
                                e != 0 ? ": " : "", e != 0 ? strerror(e) : "");
    sluice_file_clock *fc = calloc(1, sizeof *fc);
    if (fc == NULL || (fc->path = strdup(path)) == NULL) {
        free(fc);
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM, "out of memory");
    }
    fc->clock.realtime_ns = file_realtime;
    fc->clock.monotonic_ns = system_monotonic;
    atomic_init(&fc->last_ns, ms * NS_PER_MS);
    *out = fc;
    return SLUICE_OK;
}

const sluice_clock *sluice_file_clock_get(const sluice_file_clock *fc)
{
    return &fc->clock;
}

void sluice_file_clock_free(sluice_file_clock *fc)
{
    if (fc == NULL)
        return;
    free(fc->path);
    free(fc);
}
