/*
 * audit.c — the audit sink interface: one handle over any sink's ops (see audit.h).
 *
 * Owns the checks every sink would otherwise repeat (an event is an object, the chain's keys are
 * reserved), so a sink only stores. Does not own any storage: audit_file.c is the file sink.
 */
#include "state/audit.h"

#include <stdlib.h>

struct sluice_audit {
    const sluice_audit_sink_ops *ops;
    void *impl;
};

sluice_status sluice_audit_wrap(const sluice_audit_sink_ops *ops, void *impl, sluice_audit **out)
{
    sluice_audit *a = malloc(sizeof *a);
    if (a == NULL) {
        ops->close(impl);
        return SLUICE_E_NOMEM;
    }
    a->ops = ops;
    a->impl = impl;
    *out = a;
    return SLUICE_OK;
}

sluice_status
sluice_audit_append(sluice_audit *log, json_t *event, sluice_arena *err_arena, sluice_error *err)
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
    return log->ops->append(log->impl, event, err_arena, err);
}

uint64_t sluice_audit_count(sluice_audit *log)
{
    return log->ops->count(log->impl);
}

void sluice_audit_close(sluice_audit *log)
{
    if (log == NULL)
        return;
    log->ops->close(log->impl);
    free(log);
}
