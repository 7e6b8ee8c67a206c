/*
 * suggest.h — graphql-js 16's "Did you mean": which names read as a typo of an unknown one, and
 * the sentence that offers them, so a refusal of sluice's reads as graphql-js's would.
 *
 * Owns: suggestionList (lexical distance: insert, delete, substitute or swap two neighbours, a
 * change of case alone one edit; options within floor(0.4 x length) + 1 edits; nearest first,
 * ties in natural order) and didYouMean (at most 5, "A, B, or C"). Names longer than
 * SLUICE_LIMIT_SUGGEST_WORD_BYTES are never suggested (the distance is not computed past it).
 * Does not own: which names are candidates (the rule that reports asks), the message around it.
 */
#ifndef SLUICE_SYNTAX_GRAPHQL_SUGGEST_H
#define SLUICE_SYNTAX_GRAPHQL_SUGGEST_H

#include "syntax/graphql/graphql.h"

/* graphql-js's naturalCompare: digit runs compare as numbers. <0, 0, >0. */
int sluice_gql_natural_compare(sluice_gql_str a, sluice_gql_str b);

/* The options close enough to input, sorted as suggestionList sorts them, into *out (arena);
 * returns how many (0 with *out NULL when none or on NOMEM: a lost suggestion only shortens a
 * message). */
size_t sluice_gql_suggestion_list(sluice_arena *arena,
                                  sluice_gql_str input,
                                  const sluice_gql_str *options,
                                  size_t count,
                                  sluice_gql_str **out);

/* " Did you mean \"a\", \"b\", or \"c\"?" over the first five names, with "sub " after "mean"
 * when sub is not NULL; "" when count is 0 or on NOMEM. */
const char *sluice_gql_did_you_mean(sluice_arena *arena,
                                    const char *sub,
                                    const sluice_gql_str *names,
                                    size_t count);

#endif
