/*
 * handle.c — query-mode session handles naming their replica (see handle.h).
 */
#include "querymode/handle.h"

#include "core/hash.h"
#include "querymode/internal.h"
#include "querymode/session.h"

#include <sodium.h>
#include <string.h>

#define NONCE_BYTES 16u

const char *sluice_querymode_replica(const sluice_querymode *qm)
{
    return qm->config->state.replica_id;
}

static const char *server_of(const sluice_querymode *qm)
{
    return qm->config->code_mode.server_id != NULL ? qm->config->code_mode.server_id
                                                   : qm->config->server.name;
}

/* "<replica>.<32 hex>": the replica part, or NULL (malformed). */
static const char *replica_of(const char *handle, sluice_arena *arena)
{
    const char *dot = strrchr(handle, '.');
    if (dot == NULL || dot == handle || strlen(dot + 1) != 2 * NONCE_BYTES ||
        strspn(dot + 1, "0123456789abcdef") != 2 * NONCE_BYTES)
        return NULL;
    return sluice_arena_strndup(arena, handle, (size_t)(dot - handle));
}

static sluice_status mint(const char *replica, const char **out, sluice_arena *arena)
{
    uint8_t nonce[NONCE_BYTES];
    char hex[2 * NONCE_BYTES + 1];
    randombytes_buf(nonce, sizeof nonce);
    sluice_hash_hex(nonce, sizeof nonce, hex);
    *out = sluice_arena_printf(arena, "%s.%s", replica, hex);
    return *out != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* The handle is ours: the session must be live here, for this principal. */
static sluice_status check_live(sluice_querymode *qm,
                                const char *handle,
                                const sluice_qm_caller *caller,
                                sluice_arena *arena,
                                sluice_error *err)
{
    sluice_qm_session *s = NULL;
    if (sluice_qm_find(qm->sessions, sluice_qm_user_of(caller), server_of(qm), handle, &s) ==
        SLUICE_OK) {
        sluice_qm_release(qm->sessions, s);
        return SLUICE_OK;
    }
    return sluice_error_set(err, arena, SLUICE_E_NOT_FOUND,
                            "query-mode session %s is not live on replica '%s' (it expired after "
                            "being idle, its tables were dropped, the replica restarted, or it "
                            "is not yours); call load again without `session` to start a new one",
                            handle, sluice_querymode_replica(qm));
}

sluice_status sluice_querymode_resolve_handle(sluice_querymode *qm,
                                              const char *presented,
                                              bool creating,
                                              sluice_qm_caller *caller,
                                              const char **handle,
                                              sluice_arena *arena,
                                              sluice_error *err)
{
    *handle = NULL;
    const char *mine = sluice_querymode_replica(qm);
    if (mine == NULL)
        return SLUICE_OK;
    if (presented == NULL) {
        if (!creating || caller->session_id[0] != '\0')
            return SLUICE_OK; /* a 2025-11-25 MCP session keys it, as without replicas */
        sluice_status st = mint(mine, handle, arena);
        if (st == SLUICE_OK)
            caller->session_id = *handle;
        return st;
    }
    const char *owner = replica_of(presented, arena);
    if (owner == NULL)
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "`session` is not a query-mode session handle (\"<replica>.<32 "
                                "hex digits>\", as load returned it)");
    if (strcmp(owner, mine) != 0)
        return sluice_error_set(err, arena, SLUICE_E_NOT_FOUND,
                                "query-mode session %s is held by replica '%s' and this is replica "
                                "'%s': a session's tables live in the memory of the replica that "
                                "loaded them. Send the call to replica '%s' (docs/deploy.md), or "
                                "call load again here without `session`",
                                presented, owner, mine, owner);
    sluice_status st = check_live(qm, presented, caller, arena, err);
    if (st == SLUICE_OK) {
        caller->session_id = presented;
        *handle = presented;
    }
    return st;
}
