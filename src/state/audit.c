/*
 * audit.c — the audit sink interface: one handle over any sink's ops (see audit.h).
 *
 * Owns the checks every sink would otherwise repeat (an event is an object, the chain's keys are
 * reserved) and the event's members as text, so a sink only renders and stores. Does not own any
 * storage: audit_file.c is the file sink.
 */
#include "state/audit.h"

#include "core/json_write.h"
#include "state/handle.h"

struct sluice_audit {
    sluice_state_handle h;
};

static const sluice_audit_sink_ops *ops_of(const sluice_audit *a)
{
    return a->h.ops;
}

sluice_status sluice_audit_wrap(const sluice_audit_sink_ops *ops, void *impl, sluice_audit **out)
{
    sluice_audit *a = sluice_state_handle_new(sizeof *a, ops, impl, ops->close);
    if (a == NULL)
        return SLUICE_E_NOMEM;
    *out = a;
    return SLUICE_OK;
}

sluice_status sluice_audit_event_members(sluice_buf *buf,
                                         json_t *event,
                                         sluice_arena *err_arena,
                                         sluice_error *err)
{
    if (!json_is_object(event))
        return sluice_error_set(err, err_arena, SLUICE_E_INVALID,
                                "an audit event is a JSON object");
    static const char *const reserved[] = { "seq", "ts", "prev" };
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        if (json_object_get(event, reserved[i]) != NULL)
            return sluice_error_set(err, err_arena, SLUICE_E_INVALID,
                                    "audit event field '%s' is reserved for the chain",
                                    reserved[i]);
    }
    sluice_status st = SLUICE_OK;
    bool first = true;
    for (void *it = json_object_iter(event); it != NULL && st == SLUICE_OK;
         it = json_object_iter_next(event, it)) {
        if (!first)
            sluice_buf_putc(buf, ',');
        first = false;
        st = sluice_json_write_member(buf, json_object_iter_key(it), json_object_iter_key_len(it),
                                      json_object_iter_value(it));
    }
    if (st != SLUICE_OK || sluice_buf_status(buf) != SLUICE_OK)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory building an audit record");
    return SLUICE_OK;
}

sluice_status sluice_audit_append_members(
    sluice_audit *log, const char *members, size_t len, sluice_arena *err_arena, sluice_error *err)
{
    return ops_of(log)->append(log->h.impl, members, len, err_arena, err);
}

sluice_status
sluice_audit_append(sluice_audit *log, json_t *event, sluice_arena *err_arena, sluice_error *err)
{
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    sluice_buf_reserve(&buf, SLUICE_AUDIT_TEXT_RESERVE);
    sluice_status st = sluice_audit_event_members(&buf, event, err_arena, err);
    if (st == SLUICE_OK)
        st = sluice_audit_append_members(log, sluice_buf_cstr(&buf), buf.len, err_arena, err);
    sluice_buf_dispose(&buf);
    return st;
}

uint64_t sluice_audit_count(sluice_audit *log)
{
    return ops_of(log)->count(log->h.impl);
}

void sluice_audit_close(sluice_audit *log)
{
    sluice_state_handle_free(log != NULL ? &log->h : NULL);
}
