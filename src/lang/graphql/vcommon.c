/*
 * vcommon.c — the violation reporter GraphQL validation shares (see vcommon.h).
 */
#include "lang/graphql/vcommon.h"

#include "syntax/graphql/graphql.h"

#include <stdarg.h>

void sluice_gql_bad(
    sluice_gql_vctx *v, uint32_t offset, const char *rule, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = sluice_arena_vprintf(v->arena, fmt, ap);
    va_end(ap);
    size_t line = 0, column = 0;
    sluice_graphql_locate(v->doc->text, v->doc->text_len, offset, &line, &column);
    if (msg == NULL ||
        sluice_codefacts_violate(v->f, rule, line, column, hint, "%s", msg) != SLUICE_OK)
        v->nomem = true;
}
