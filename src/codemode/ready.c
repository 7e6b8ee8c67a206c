/*
 * ready.c — code mode's readiness checks (see ready.h).
 */
#include "codemode/ready.h"

#include "config/config.h"
#include "exec/executor.h"
#include "token/key_store.h"
#include "token/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static bool put(json_t *checks, const char *name, bool ok, const char *detail)
{
    return json_object_set_new(checks, name, json_pack("{s:b, s:s}", "ok", ok, "detail", detail)) ==
               0 &&
           ok;
}

static bool backend_ok(sluice_codemode *cm, json_t *checks)
{
    sluice_executor *ex = sluice_codemode_executor(cm);
    if (ex == NULL)
        return put(checks, "backend", true, "no database configured");
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return put(checks, "backend", false, "out of memory");
    sluice_schema schema;
    sluice_error err = { 0 };
    sluice_status st = sluice_executor_schema(ex, arena, &schema, &err);
    bool ok = put(checks, "backend", st == SLUICE_OK,
                  st == SLUICE_OK ? "the catalog answers"
                  : err.message   ? err.message
                                  : sluice_status_name(st));
    sluice_arena_free(arena);
    return ok;
}

static bool keys_ok(const sluice_runtime *rt, json_t *checks)
{
    sluice_key_store *ks = rt != NULL ? rt->keys : NULL;
    if (ks == NULL)
        return put(checks, "keys", false, "no token key store");
    const sluice_secret_ring *ring = sluice_key_store_acquire(ks);
    bool loaded = ring != NULL && sluice_secret_ring_current(ring) != NULL;
    sluice_key_store_release(ks, ring);
    return put(checks, "keys", loaded, loaded ? "a signing key is loaded" : "no signing key");
}

static bool audit_ok(sluice_codemode *cm, const sluice_runtime *rt, json_t *checks)
{
    const char *path = sluice_codemode_config(cm)->code_mode.audit_log;
    if (path == NULL)
        return put(checks, "audit", true, "no audit log configured");
    if (sluice_runtime_audit_broken(rt))
        return put(checks, "audit", false,
                   "an audit write failed: nothing runs until it is repaired (sluice audit "
                   "verify)");
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return put(checks, "audit", false, strerror(errno));
    close(fd);
    return put(checks, "audit", true, "writable");
}

bool sluice_codemode_ready(sluice_codemode *cm, const sluice_runtime *rt, json_t *checks)
{
    if (cm == NULL)
        return true;
    bool ok = backend_ok(cm, checks);
    ok = keys_ok(rt, checks) && ok;
    ok = audit_ok(cm, rt, checks) && ok;
    return ok;
}
