/*
 * runtime.c — one audit record through the runtime's sink (see runtime.h).
 */
#include "codemode/runtime.h"

#include "codemode/observe.h"
#include "core/json_write.h"
#include "core/log.h"

/* A JSON array of the caller's groups; NULL when out of memory. */
static json_t *groups_json(const sluice_identity *who)
{
    json_t *groups = json_array();
    for (size_t i = 0; groups != NULL && who != NULL && i < who->group_count; i++)
        if (json_array_append_new(groups, sluice_json_string(who->groups[i])) != 0) {
            json_decref(groups);
            return NULL;
        }
    return groups;
}

sluice_status sluice_runtime_audit(sluice_runtime *rt,
                                   sluice_arena *arena,
                                   const sluice_codemode_caller *caller,
                                   const char *event,
                                   json_t *fields,
                                   sluice_error *err)
{
    if (rt == NULL) {
        json_decref(fields);
        return SLUICE_OK;
    }
    sluice_status st = SLUICE_OK;
    sluice_codemode_observe_record(event, fields);
    if (rt->audit != NULL) {
        const sluice_identity *who = caller->identity;
        json_t *groups = groups_json(who);
        /* the keys are literals: the setter that skips their UTF-8 check serves */
        bool ok =
            fields != NULL && groups != NULL &&
            json_object_set_new_nocheck(fields, "event", sluice_json_string(event)) == 0 &&
            json_object_set_new_nocheck(fields, "user",
                                        sluice_json_string(who != NULL ? who->user_id : "")) == 0 &&
            json_object_set_new_nocheck(fields, "auth",
                                        sluice_json_string(who != NULL ? who->method : "")) == 0 &&
            json_object_set_new_nocheck(fields, "session",
                                        sluice_json_string(caller->session_id)) == 0 &&
            json_object_set_new_nocheck(fields, "server", sluice_json_string(rt->server_id)) == 0;
        if (!ok || json_object_set_new_nocheck(fields, "groups", groups) != 0) {
            /* a record missing a field is not written: the decision fails with it */
            if (!ok)
                json_decref(groups);
            json_decref(fields);
            return sluice_error_set(err, arena, SLUICE_E_NOMEM,
                                    "out of memory writing the audit record");
        }
        st = sluice_audit_append(rt->audit, fields, arena, err);
        if (st != SLUICE_OK) {
            atomic_store(&rt->audit_broken, true);
            sluice_log(SLUICE_LOG_ERROR, "audit log write failed: %s", err ? err->message : "");
        }
    }
    json_decref(fields);
    return st;
}

sluice_status sluice_runtime_audit_outcome(sluice_runtime *rt,
                                           sluice_arena *arena,
                                           sluice_runtime_event ev,
                                           sluice_status st,
                                           sluice_error *err)
{
    sluice_error audit_err = { 0 };
    sluice_status audited =
        sluice_runtime_audit(rt, arena, ev.caller, ev.event, ev.fields, &audit_err);
    if (audited == SLUICE_OK || st != SLUICE_OK)
        return st;
    if (err != NULL)
        *err = audit_err;
    return SLUICE_E_IO;
}

bool sluice_runtime_audit_broken(const sluice_runtime *rt)
{
    return rt != NULL && atomic_load(&rt->audit_broken);
}

int64_t sluice_runtime_now_s(const sluice_runtime *rt)
{
    return sluice_clock_now_s(rt != NULL ? rt->clock : NULL);
}
