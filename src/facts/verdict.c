/*
 * verdict.c — a decider's verdict (see verdict.h).
 */
#include "facts/verdict.h"

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
    if (v->violation_count == v->violation_cap) {
        size_t ncap = v->violation_cap == 0 ? 4 : v->violation_cap * 2;
        sluice_codefacts_violation *n = sluice_arena_calloc(v->arena, ncap, sizeof *n);
        if (n == NULL)
            return SLUICE_E_NOMEM;
        if (v->violation_count > 0)
            memcpy(n, v->violations, v->violation_count * sizeof *n);
        v->violations = n;
        v->violation_cap = ncap;
    }
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
