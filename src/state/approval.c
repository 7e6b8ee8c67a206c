/*
 * approval.c — the approval store interface: one handle over any store's ops (see approval.h).
 *
 * Owns what every store shares: the id check (a malformed id never reaches a store) and the
 * state names. Does not own any storage: approval_file.c is the file store.
 */
#include "state/approval.h"

#include "state/handle.h"

#include <string.h>

struct sluice_approval_store {
    sluice_state_handle h;
};

static const sluice_approval_store_ops *ops_of(const sluice_approval_store *s)
{
    return s->h.ops;
}

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
    sluice_approval_store *s = sluice_state_handle_new(sizeof *s, ops, impl, ops->close);
    if (s == NULL)
        return SLUICE_E_NOMEM;
    *out = s;
    return SLUICE_OK;
}

void sluice_approval_close(sluice_approval_store *store)
{
    sluice_state_handle_free(store != NULL ? &store->h : NULL);
}

sluice_approval sluice_approval_get(sluice_approval_store *store, const char *id, int64_t now)
{
    if (!sluice_approval_id_valid(id))
        return (sluice_approval){ .state = SLUICE_APPROVAL_NONE };
    return ops_of(store)->get(store->h.impl, id, now);
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
    return ops_of(store)->request(store->h.impl, ask, now, out, err_arena, err);
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
    return ops_of(store)->decide(store->h.impl, decision, now, out, err_arena, err);
}

size_t
sluice_approval_take_unaudited(sluice_approval_store *store, sluice_approval *out, size_t max)
{
    return ops_of(store)->take_unaudited(store->h.impl, out, max);
}

size_t
sluice_approval_pending(sluice_approval_store *store, int64_t now, sluice_approval *out, size_t max)
{
    return ops_of(store)->pending(store->h.impl, now, out, max);
}
