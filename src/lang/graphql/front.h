/*
 * front.h — the GraphQL front end as the rest of sluice sees it: the sluice_frontend the
 * language registry adds, its explanation and its facts extension.
 *
 * Owns: these entry points (frontend.c, explain.c, guide.c).
 * Does not own: the rules (validate.h), parsing (graphql.h), the HTTP executor.
 */
#ifndef SLUICE_LANG_GRAPHQL_FRONT_H
#define SLUICE_LANG_GRAPHQL_FRONT_H

#include "exec/executor.h"
#include "lang/frontend.h"
#include "lang/graphql/validate.h"

/* The front end (language "graphql"). */
const sluice_frontend *sluice_graphql_frontend(void);

/* The GraphQL extension of f, or an empty one when f is not GraphQL's. */
const sluice_graphql_facts *sluice_graphql_facts_of(const sluice_codefacts *f);

/* "Reads customers (limit 3) with id, name; their orders ..." in arena; NULL on NOMEM. */
const char *sluice_graphql_explain(sluice_arena *arena, const sluice_codefacts *f);

/* The GraphQL part of code-mode://instructions (sluice_frontend.guide). */
sluice_status sluice_graphql_guide(sluice_arena *arena,
                                   const sluice_config_code_mode *rules,
                                   const char *engine_name,
                                   sluice_frontend_guide *out);

#endif
