/*
 * replay.c — the consume-once store interface: one handle over any store's ops (see replay.h).
 *
 * Does not own any storage: replay_file.c is the file store.
 */
#include "state/replay.h"

#include "state/handle.h"

#include <stdio.h>

struct sluice_replay {
    sluice_state_handle h;
    sluice_replay_describe_fn describe; /* NULL: the store's name says enough */
};

static const sluice_replay_store_ops *ops_of(const sluice_replay *r)
{
    return r->h.ops;
}

sluice_status
sluice_replay_wrap(const sluice_replay_store_ops *ops, void *impl, sluice_replay **out)
{
    sluice_replay *r = sluice_state_handle_new(sizeof *r, ops, impl, ops->close);
    if (r == NULL)
        return SLUICE_E_NOMEM;
    *out = r;
    return SLUICE_OK;
}

sluice_status sluice_replay_consume(sluice_replay *store,
                                    const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now)
{
    return ops_of(store)->consume(store->h.impl, token_id, expires_at, now);
}

size_t sluice_replay_count(sluice_replay *store)
{
    return ops_of(store)->count(store->h.impl);
}

void sluice_replay_set_describe(sluice_replay *store, sluice_replay_describe_fn describe)
{
    store->describe = describe;
}

void sluice_replay_describe(sluice_replay *store, char *buf, size_t cap)
{
    if (store->describe != NULL)
        store->describe(store->h.impl, buf, cap);
    else
        snprintf(buf, cap, "the %s store", ops_of(store)->name);
}

void sluice_replay_close(sluice_replay *store)
{
    sluice_state_handle_free(store != NULL ? &store->h : NULL);
}
