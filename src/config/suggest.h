/*
 * suggest.h — "did you mean 'x'?": the closest of a set of known words to a misspelled one.
 *
 * Owns: a bounded edit distance (optimal string alignment: insert, delete, substitute, swap two
 * neighbours) and the choice of the closest candidate within a distance that still reads as a
 * typo. Does not own: where the candidates come from (config.c walks its key tables) nor the
 * wording of the message.
 */
#ifndef SLUICE_CONFIG_SUGGEST_H
#define SLUICE_CONFIG_SUGGEST_H

#include <stddef.h>

/* Collects the best candidate for one misspelled word. Feed candidates with
 * sluice_suggest_consider(); ties keep the first one seen. */
typedef struct sluice_suggest {
    const char *word;
    const char *best; /* NULL until a close enough candidate is seen */
    size_t best_distance;
} sluice_suggest;

void sluice_suggest_init(sluice_suggest *s, const char *word);
void sluice_suggest_consider(sluice_suggest *s, const char *candidate);

/* The closest candidate within the typo threshold (1 edit for words of up to 4 characters, 2 up
 * to 8, 3 beyond), or NULL. Never returns the word itself: an exact match is not a typo. */
const char *sluice_suggest_best(const sluice_suggest *s);

/* Case-insensitive optimal-string-alignment distance between a and b; SIZE_MAX when either is
 * longer than SLUICE_LIMIT_SUGGEST_WORD_BYTES. */
size_t sluice_suggest_distance(const char *a, const char *b);

#endif
