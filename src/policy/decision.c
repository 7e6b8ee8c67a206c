/*
 * decision.c — adding an error to a policy decision (see decision.h).
 */
#include "policy/decision.h"

#include <stdarg.h>
#include <string.h>

sluice_status
sluice_policy_decision_error(sluice_policy_decision *d, sluice_arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = sluice_arena_vprintf(arena, fmt, ap);
    va_end(ap);
    const char **errors = sluice_arena_calloc(arena, d->error_count + 1, sizeof *errors);
    if (msg == NULL || errors == NULL)
        return SLUICE_E_NOMEM;
    if (d->error_count > 0)
        memcpy(errors, d->errors, d->error_count * sizeof *errors);
    errors[d->error_count++] = msg;
    d->errors = errors;
    d->allow = false;
    return SLUICE_OK;
}
