/*
 * replay.h — single use of approval tokens: the store of token ids already consumed.
 *
 * Owns: a thread-safe set of used token ids, each kept until its token expires (after that the
 * token is refused as expired anyway), and its persistence: an append-only file of
 * "<32 hex token id> <expires_at>\n" lines, reloaded on open (expired lines dropped, the file
 * compacted by an atomic rename), so a replay is refused across a restart within the TTL.
 * Each consume is written and fdatasync'ed before it returns: a token execution is worth a disk
 * flush, and an acknowledged consume that a crash forgets would reopen the replay window.
 * The file is flock'ed: one sluice process per store.
 * Does not own: token verification (token.h); call consume only after verify succeeds, so a
 * mismatched attempt does not burn a good token.
 */
#ifndef SLUICE_CODEMODE_REPLAY_H
#define SLUICE_CODEMODE_REPLAY_H

#include "codemode/token.h"
#include "core/arena.h"
#include "core/error.h"

#include <stddef.h>
#include <stdint.h>

/* Live (unexpired) token ids a store holds; past it consume fails closed with SLUICE_E_LIMIT. */
#define SLUICE_REPLAY_MAX_ENTRIES (256u * 1024u)

typedef struct sluice_replay sluice_replay;

/* Opens (creating, mode 0600) the store at path, loading the ids that have not expired at now.
 * path NULL keeps the store in memory only. SLUICE_E_IO when the file cannot be read, written
 * or locked (another process holds it), with a message naming the file. */
sluice_status sluice_replay_open(
    const char *path, int64_t now, sluice_replay **out, sluice_arena *err_arena, sluice_error *err);

/* Marks token_id used until expires_at. SLUICE_OK the first time; SLUICE_E_DENIED when it was
 * already used; SLUICE_E_LIMIT when the store is full of live ids; SLUICE_E_IO when the record
 * could not be made durable (the id still counts as used: fail closed). */
sluice_status sluice_replay_consume(sluice_replay *store,
                                    const uint8_t token_id[SLUICE_TOKEN_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now);

/* Live ids held (expired ones not yet pruned may be counted). */
size_t sluice_replay_count(sluice_replay *store);

/* Closes the file and frees the store. NULL does nothing. */
void sluice_replay_close(sluice_replay *store);

#endif
