/*
 * codefacts_copy.c — a deep copy of a CodeFacts record into another arena.
 *
 * Owns: copying every part of the neutral record, and calling the extension's copy hook.
 * Why: facts live in the request arena; the analysis cache (codemode/analysis_cache.c) keeps
 * them past the request, and hands each later request its own copy, so no request ever reads
 * memory another one (or an eviction) may free.
 * Does not own: what the extension holds (its language's copy hook).
 */
#include "facts/codefacts.h"

#include <string.h>

/* NULL stays NULL; *ok turns false when a copy fails. */
static const char *dup(sluice_arena *arena, const char *s, bool *ok)
{
    if (s == NULL)
        return NULL;
    char *c = sluice_arena_strdup(arena, s);
    *ok = *ok && c != NULL;
    return c;
}

sluice_status sluice_codefacts_list_copy(sluice_arena *arena,
                                         const sluice_codefacts_list *list,
                                         sluice_codefacts_list *out)
{
    memset(out, 0, sizeof *out);
    if (list->count == 0)
        return SLUICE_OK;
    const char **items = sluice_arena_calloc(arena, list->count, sizeof *items);
    if (items == NULL)
        return SLUICE_E_NOMEM;
    bool ok = true;
    for (size_t i = 0; i < list->count; i++)
        items[i] = dup(arena, list->items[i], &ok);
    if (!ok)
        return SLUICE_E_NOMEM;
    *out = (sluice_codefacts_list){ items, list->count, list->count };
    return SLUICE_OK;
}

static bool copy_outputs(const sluice_codefacts *f, sluice_codefacts *c, sluice_arena *arena)
{
    c->outputs = NULL;
    c->output_cap = f->output_count;
    if (f->output_count == 0)
        return true;
    c->outputs = sluice_arena_calloc(arena, f->output_count, sizeof *c->outputs);
    if (c->outputs == NULL)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < f->output_count; i++) {
        c->outputs[i].name = dup(arena, f->outputs[i].name, &ok);
        c->outputs[i].type = dup(arena, f->outputs[i].type, &ok);
        ok = ok && sluice_codefacts_list_copy(arena, &f->outputs[i].lineage,
                                              &c->outputs[i].lineage) == SLUICE_OK;
    }
    return ok;
}

static bool copy_violations(const sluice_codefacts *f, sluice_codefacts *c, sluice_arena *arena)
{
    c->violations = NULL;
    c->violation_cap = f->violation_count;
    if (f->violation_count == 0)
        return true;
    c->violations = sluice_arena_calloc(arena, f->violation_count, sizeof *c->violations);
    if (c->violations == NULL)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < f->violation_count; i++) {
        const sluice_codefacts_violation *v = &f->violations[i];
        c->violations[i] = (sluice_codefacts_violation){
            dup(arena, v->rule, &ok),
            dup(arena, v->message, &ok),
            dup(arena, v->suggestion, &ok),
            v->line,
            v->column,
        };
    }
    return ok;
}

static bool copy_lists(const sluice_codefacts *f, sluice_codefacts *c, sluice_arena *arena)
{
    const sluice_codefacts_list *from[] = { &f->resources_read, &f->resources_written,
                                            &f->fields_read,    &f->functions,
                                            &f->operations,     &f->blocked_used,
                                            &f->warnings };
    sluice_codefacts_list *to[] = { &c->resources_read, &c->resources_written, &c->fields_read,
                                    &c->functions,      &c->operations,        &c->blocked_used,
                                    &c->warnings };
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++)
        if (sluice_codefacts_list_copy(arena, from[i], to[i]) != SLUICE_OK)
            return false;
    return true;
}

sluice_codefacts *sluice_codefacts_copy(const sluice_codefacts *facts, sluice_arena *arena)
{
    if (facts->ext != NULL && (facts->ext_ops == NULL || facts->ext_ops->copy == NULL))
        return NULL;
    sluice_codefacts *c = sluice_arena_alloc(arena, sizeof *c);
    if (c == NULL)
        return NULL;
    *c = *facts; /* scalars, hash and flags; every pointer is replaced below */
    c->arena = arena;
    bool ok = true;
    c->language = dup(arena, facts->language, &ok);
    c->statement_kind = dup(arena, facts->statement_kind, &ok);
    c->canonical = dup(arena, facts->canonical, &ok);
    ok = ok && copy_lists(facts, c, arena) && copy_outputs(facts, c, arena) &&
         copy_violations(facts, c, arena);
    c->ext = ok && facts->ext != NULL ? facts->ext_ops->copy(facts, arena) : NULL;
    if (!ok || (facts->ext != NULL && c->ext == NULL))
        return NULL;
    return c;
}
