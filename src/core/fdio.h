/*
 * fdio.h — writing a whole buffer to a file descriptor.
 *
 * Owns: the short-write and EINTR loop every writer needs (the stdio transport's lines, the
 * audit log's and the replay store's records). Does not own: syncing (callers fdatasync where a
 * record must be durable), buffering, or what a failure means to the caller.
 */
#ifndef SLUICE_CORE_FDIO_H
#define SLUICE_CORE_FDIO_H

#include <stdbool.h>
#include <stddef.h>

/* Writes all len bytes of data to fd, retrying short writes and EINTR. false (errno set by
 * write, or EIO for a write that wrote nothing) when the descriptor fails; part of the data may
 * then have been written. */
bool sluice_write_all(int fd, const void *data, size_t len);

#endif
