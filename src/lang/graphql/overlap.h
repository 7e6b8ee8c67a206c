/*
 * overlap.h — OverlappingFieldsCanBeMerged, the spec's field-merging rule (see overlap.c).
 */
#ifndef SLUICE_LANG_GRAPHQL_OVERLAP_H
#define SLUICE_LANG_GRAPHQL_OVERLAP_H

#include "lang/graphql/vcommon.h"

/* Adds one violation to v->f for the first pair of same-named fields of v->doc that cannot be
 * merged (rule OverlappingFieldsCanBeMerged), or when the check needs more than
 * SLUICE_LIMIT_GRAPHQL_OVERLAP_BUDGET steps (rule graphql_overlap_budget: refused, never
 * accepted unchecked). A lost allocation sets v->nomem (the caller then fails closed). */
void sluice_graphql_check_overlaps(sluice_gql_vctx *v);

#endif
