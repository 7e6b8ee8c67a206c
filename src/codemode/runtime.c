/*
 * runtime.c — one audit record through the runtime's sink (see runtime.h).
 */
#include "codemode/runtime.h"

#include "codemode/observe.h"
#include "core/json_write.h"
#include "core/log.h"
#include "core/request.h"

/* The members every record ends with, after the event's own: the request it belongs to (when
 * one is current), the event, who (user, auth method, groups), in which session, on which
 * server. */
static void write_who(sluice_json_out *out,
                      const sluice_runtime *rt,
                      const sluice_codemode_caller *caller,
                      const char *event)
{
    const sluice_identity *who = caller->identity;
    const char *request_id = sluice_request_current_id();
    if (request_id != NULL) {
        sluice_json_out_key(out, "request_id");
        sluice_json_out_string(out, request_id);
    }
    sluice_json_out_key(out, "event");
    sluice_json_out_string(out, event);
    sluice_json_out_key(out, "user");
    sluice_json_out_string(out, who != NULL ? who->user_id : "");
    sluice_json_out_key(out, "auth");
    sluice_json_out_string(out, who != NULL ? who->method : "");
    sluice_json_out_key(out, "session");
    sluice_json_out_string(out, caller->session_id);
    sluice_json_out_key(out, "server");
    sluice_json_out_string(out, rt->server_id);
    sluice_json_out_key(out, "groups");
    sluice_json_out_open(out, '[');
    for (size_t i = 0; who != NULL && i < who->group_count; i++)
        sluice_json_out_string(out, who->groups[i]);
    sluice_json_out_close(out, ']');
}

/* A record that lost a member is not written: the decision fails with it. */
static sluice_status record_lost(sluice_arena *arena, sluice_error *err)
{
    return sluice_error_set(err, arena, SLUICE_E_NOMEM, "out of memory writing the audit record");
}

/* An append failed (st): from now on nothing runs without an audit trail. */
static sluice_status broken(sluice_runtime *rt, sluice_status st, const sluice_error *err)
{
    atomic_store(&rt->audit_broken, true);
    sluice_log(SLUICE_LOG_ERROR, "audit log write failed: %s", err ? err->message : "");
    return st;
}

/* Ends the record whose event members out holds with the runtime's and appends it. */
static sluice_status append_record(sluice_runtime *rt,
                                   sluice_arena *arena,
                                   const sluice_codemode_caller *caller,
                                   const char *event,
                                   sluice_json_out *out,
                                   sluice_error *err)
{
    write_who(out, rt, caller, event);
    if (sluice_json_out_status(out) != SLUICE_OK)
        return record_lost(arena, err);
    sluice_status st = sluice_audit_append_members(rt->audit, sluice_buf_cstr(out->buf),
                                                   out->buf->len, arena, err);
    return st == SLUICE_OK ? SLUICE_OK : broken(rt, st, err);
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
    if (fields != NULL) {
        const sluice_codemode_seen seen = sluice_codemode_seen_of(event, fields);
        sluice_codemode_observe_record(&seen);
    }
    sluice_status st = SLUICE_OK;
    if (rt->audit != NULL && fields == NULL)
        st = record_lost(arena, err);
    else if (rt->audit != NULL) {
        sluice_buf buf;
        sluice_buf_init(&buf, arena, 0);
        sluice_buf_reserve(&buf, SLUICE_AUDIT_TEXT_RESERVE);
        st = sluice_audit_event_members(&buf, fields, arena, err);
        sluice_json_out out = { .buf = &buf, .comma = buf.len > 0 };
        if (st == SLUICE_OK)
            st = append_record(rt, arena, caller, event, &out, err);
        else /* refused by the sink's own checks: as a failed append */
            broken(rt, st, err);
        sluice_buf_dispose(&buf);
    }
    json_decref(fields);
    return st;
}

sluice_status sluice_runtime_audit_members(sluice_runtime *rt,
                                           sluice_arena *arena,
                                           const sluice_codemode_caller *caller,
                                           const sluice_codemode_seen *seen,
                                           sluice_json_out *members,
                                           sluice_error *err)
{
    if (rt == NULL)
        return SLUICE_OK;
    if (sluice_json_out_status(members) != SLUICE_OK) /* as a record tree that is NULL */
        return rt->audit != NULL ? record_lost(arena, err) : SLUICE_OK;
    sluice_codemode_observe_record(seen);
    return rt->audit != NULL ? append_record(rt, arena, caller, seen->event, members, err)
                             : SLUICE_OK;
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
