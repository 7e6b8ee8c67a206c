/*
 * stdio.h — the MCP stdio transport: newline-delimited JSON-RPC on stdin/stdout.
 *
 * Owns: reading lines (bounded: an oversized line is answered with a JSON-RPC error and skipped,
 * never buffered whole), feeding them to one session, writing every outgoing message as one
 * compact line under one writer lock, and a clean exit on EOF once in-flight calls have answered.
 * Handlers run on the server's worker pool, so a notifications/cancelled read while a call runs
 * really cancels it. Nothing but MCP messages is written to the output; logs go to stderr.
 * Does not own: the protocol (mcp/), who the caller is (the identity comes from configuration).
 */
#ifndef SLUICE_TRANSPORT_STDIO_H
#define SLUICE_TRANSPORT_STDIO_H

#include "auth/identity.h"
#include "core/error.h"
#include "mcp/server.h"

#include <stddef.h>

typedef struct sluice_stdio_options {
    int in_fd;                /* default 0 (use -1 for the default) */
    int out_fd;               /* default 1 (use -1 for the default) */
    size_t max_message_bytes; /* longest accepted line; 0 = SLUICE_LIMIT_MESSAGE_BYTES */
} sluice_stdio_options;

/* Serves one session on stdin/stdout until EOF. Ignores SIGPIPE for the process (a client that
 * goes away must not kill the server). Returns SLUICE_OK on EOF, SLUICE_E_IO when reading
 * failed, SLUICE_E_NOMEM; err->message is a fixed text. */
sluice_status
sluice_stdio_serve(sluice_mcp_server *server, const sluice_identity *identity, sluice_error *err);

/* The same on the given descriptors (tests use pipes). options may be NULL. */
sluice_status sluice_stdio_serve_fds(sluice_mcp_server *server,
                                     const sluice_identity *identity,
                                     const sluice_stdio_options *options,
                                     sluice_error *err);

#endif
