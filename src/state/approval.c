/*
 * approval.c — the approval store interface: one handle over any store's ops (see approval.h).
 *
 * Owns what every store shares: the id check (a malformed id never reaches a store) and the
 * state names. Does not own any storage: approval_file.c is the file store.
 */
#include "state/approval.h"

#include <stdlib.h>
#include <string.h>

struct sluice_approval_store {
    const sluice_approval_store_ops *ops;
    void *impl;
};

static const char *const state_names[] = { "none", "pending", "approved", "rejected", "expired" };

const char *sluice_approval_state_name(sluice_approval_state state)
{
    return (unsigned)state <= SLUICE_APPROVAL_EXPIRED ? state_names[state] : "none";
}

bool sluice_approval_id_valid(const char *id)
{
    return id != NULL && strlen(id) == SLUICE_APPROVAL_ID_LEN &&
           strspn(id, "0123456789abcdef") == SLUICE_APPROVAL_ID_LEN;
}

sluice_status
sluice_approval_wrap(const sluice_approval_store_ops *ops, void *impl, sluice_approval_store **out)
{
    sluice_approval_store *s = malloc(sizeof *s);
    if (s == NULL) {
        ops->close(impl);
        return SLUICE_E_NOMEM;
    }
    s->ops = ops;
    s->impl = impl;
    *out = s;
    return SLUICE_OK;
}

void sluice_approval_close(sluice_approval_store *store)
{
    if (store == NULL)
        return;
    store->ops->close(store->impl);
    free(store);
}

sluice_approval sluice_approval_get(sluice_approval_store *store, const char *id, int64_t now)
{
    if (!sluice_approval_id_valid(id))
        return (sluice_approval){ .state = SLUICE_APPROVAL_NONE };
    return store->ops->get(store->impl, id, now);
}

sluice_status sluice_approval_request(sluice_approval_store *store,
                                      const sluice_approval_ask *ask,
                                      int64_t now,
                                      sluice_approval *out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    if (!sluice_approval_id_valid(ask->id))
        return sluice_error_set(err, err_arena, SLUICE_E_INVALID, "malformed approval id");
    return store->ops->request(store->impl, ask, now, out, err_arena, err);
}

sluice_status sluice_approval_decide(sluice_approval_store *store,
                                     const sluice_approval_decision *decision,
                                     int64_t now,
                                     sluice_approval *out,
                                     sluice_arena *err_arena,
                                     sluice_error *err)
{
    if (!sluice_approval_id_valid(decision->id))
        return sluice_error_set(err, err_arena, SLUICE_E_NOT_FOUND,
                                "'%.40s' is not an approval id (32 hex digits)", decision->id);
    return store->ops->decide(store->impl, decision, now, out, err_arena, err);
}

size_t
sluice_approval_take_unaudited(sluice_approval_store *store, sluice_approval *out, size_t max)
{
    return store->ops->take_unaudited(store->impl, out, max);
}

size_t
sluice_approval_pending(sluice_approval_store *store, int64_t now, sluice_approval *out, size_t max)
{
    return store->ops->pending(store->impl, now, out, max);
}
