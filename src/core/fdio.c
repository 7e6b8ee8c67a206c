/*
 * fdio.c — whole-buffer writes (see fdio.h).
 */
#include "core/fdio.h"

#include <errno.h>
#include <unistd.h>

bool sluice_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}
