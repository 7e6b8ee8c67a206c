/*
 * replay.c — the consume-once store interface: one handle over any store's ops (see replay.h).
 *
 * Does not own any storage: replay_file.c is the file store.
 */
#include "state/replay.h"

#include <stdio.h>
#include <stdlib.h>

struct sluice_replay {
    const sluice_replay_store_ops *ops;
    void *impl;
    sluice_replay_describe_fn describe; /* NULL: the store's name says enough */
};

sluice_status
sluice_replay_wrap(const sluice_replay_store_ops *ops, void *impl, sluice_replay **out)
{
    sluice_replay *r = malloc(sizeof *r);
    if (r == NULL) {
        ops->close(impl);
        return SLUICE_E_NOMEM;
    }
    r->ops = ops;
    r->impl = impl;
    r->describe = NULL;
    *out = r;
    return SLUICE_OK;
}

sluice_status sluice_replay_consume(sluice_replay *store,
                                    const uint8_t token_id[SLUICE_REPLAY_ID_BYTES],
                                    int64_t expires_at,
                                    int64_t now)
{
    return store->ops->consume(store->impl, token_id, expires_at, now);
}

size_t sluice_replay_count(sluice_replay *store)
{
    return store->ops->count(store->impl);
}

void sluice_replay_set_describe(sluice_replay *store, sluice_replay_describe_fn describe)
{
    store->describe = describe;
}

void sluice_replay_describe(sluice_replay *store, char *buf, size_t cap)
{
    if (store->describe != NULL)
        store->describe(store->impl, buf, cap);
    else
        snprintf(buf, cap, "the %s store", store->ops->name);
}

void sluice_replay_close(sluice_replay *store)
{
    if (store == NULL)
        return;
    store->ops->close(store->impl);
    free(store);
}
