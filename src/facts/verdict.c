/*
 * verdict.c — a decider's verdict (see verdict.h).
 */
#include "facts/verdict.h"

#include "core/vec.h"

#include <stdarg.h>
#include <string.h>

void sluice_verdict_init(sluice_verdict *v, sluice_arena *arena)
{
    memset(v, 0, sizeof *v);
    v->arena = arena;
}

sluice_status sluice_verdict_refuse(
    sluice_verdict *v, const char *rule, const char *suggestion, const char *fmt, ...)
{
    v->refused = true;
    sluice_codefacts_violation *n = sluice_vec_grow(v->arena, v->violations, v->violation_count,
                                                    &v->violation_cap, sizeof *n, 4);
    if (n == NULL)
        return SLUICE_E_NOMEM;
    v->violations = n;
    va_list ap;
    va_start(ap, fmt);
    char *msg = sluice_arena_vprintf(v->arena, fmt, ap);
    va_end(ap);
    const char *r = sluice_arena_strdup(v->arena, rule);
    const char *s = suggestion != NULL ? sluice_arena_strdup(v->arena, suggestion) : NULL;
    if (msg == NULL || r == NULL || (suggestion != NULL && s == NULL))
        return SLUICE_E_NOMEM;
    v->violations[v->violation_count++] = (sluice_codefacts_violation){ r, msg, s, 0, 0 };
    return SLUICE_OK;
}
