/*
 * strlist.h — a list of strings: the shape configuration gives every list of names (allowed
 * origins, blocked fields, groups, operations), and the few things done to one everywhere.
 *
 * Owns: the sluice_strlist type, copying one into an arena, and membership (exact or ASCII
 * case-folded). Does not own: what a list means, or patterns inside its items ("*", "schema.")
 * — each caller decides that.
 */
#ifndef SLUICE_CORE_STRLIST_H
#define SLUICE_CORE_STRLIST_H

#include "core/arena.h"
#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sluice_strlist {
    const char **items;
    size_t count;
} sluice_strlist;

/* to = the strings of a then b (b may be NULL), copied into arena with a NULL after the last,
 * for a holder that outlives the configuration. SLUICE_OK or SLUICE_E_NOMEM (to is then
 * unusable). */
sluice_status sluice_strlist_copy(sluice_arena *arena,
                                  sluice_strlist *to,
                                  const sluice_strlist *a,
                                  const sluice_strlist *b);

/* True when s equals an item of list (byte for byte); a NULL list holds nothing. */
bool sluice_strlist_contains(const sluice_strlist *list, const char *s);

/* The same, ASCII letters compared without case (SQL and HTTP names). */
bool sluice_strlist_contains_folded(const sluice_strlist *list, const char *s);

#endif
