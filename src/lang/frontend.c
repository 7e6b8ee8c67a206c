/*
 * frontend.c (lang) — what every front end shares beyond the vtable (frontend.h): the canonical
 * hash taken from a full analysis, and the list rendering the guide hooks share.
 */
#include "lang/frontend.h"

#include <string.h>

void sluice_frontend_guide_list(sluice_buf *b,
                                const sluice_strlist *first,
                                const sluice_strlist *second)
{
    const sluice_strlist *lists[2] = { first, second };
    size_t n = 0;
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->count; i++)
            sluice_buf_printf(b, "%s`%s`", n++ > 0 ? ", " : "", lists[l]->items[i]);
    if (n == 0)
        sluice_buf_puts(b, "none");
}

sluice_status sluice_frontend_hash_of(sluice_arena *arena,
                                      const sluice_codefacts *facts,
                                      char out_hex[65],
                                      sluice_error *err)
{
    for (size_t i = 0; i < facts->violation_count; i++) {
        const sluice_codefacts_violation *v = &facts->violations[i];
        if (v->rule != NULL &&
            (strcmp(v->rule, "syntax_error") == 0 || strcmp(v->rule, "empty_statement") == 0 ||
             strcmp(v->rule, "nul_byte") == 0 || strcmp(v->rule, "multiple_statements") == 0))
            return sluice_error_at(err, arena, SLUICE_E_INVALID, "<code>", v->line, v->column, "%s",
                                   v->message);
    }
    memcpy(out_hex, facts->code_hash, 65);
    return SLUICE_OK;
}
