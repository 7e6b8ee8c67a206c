/*
 * suggest.c — closest-word suggestions for misspelled keys and values (see suggest.h).
 *
 * The distance is optimal string alignment (Damerau-Levenshtein without repeated edits of one
 * substring): a swapped pair such as "enalbed" counts as one typo, as a person would count it.
 */
#include "config/suggest.h"

#include "core/limits.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static int fold(char c)
{
    return tolower((unsigned char)c);
}

size_t sluice_suggest_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SLUICE_LIMIT_SUGGEST_WORD_BYTES || m > SLUICE_LIMIT_SUGGEST_WORD_BYTES)
        return SIZE_MAX;
    /* Three rolling rows: the swap rule looks two rows back. */
    size_t rows[3][SLUICE_LIMIT_SUGGEST_WORD_BYTES + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        size_t *spare = prev2;
        prev2 = prev;
        prev = cur;
        cur = spare;
    }
    return prev[m];
}

void sluice_suggest_init(sluice_suggest *s, const char *word)
{
    s->word = word;
    s->best = NULL;
    s->best_distance = SIZE_MAX;
}

/* How many edits still read as a typo of a word this long rather than a different word. */
static size_t threshold(size_t len)
{
    if (len <= 4)
        return 1;
    return len <= 8 ? 2 : 3;
}

void sluice_suggest_consider(sluice_suggest *s, const char *candidate)
{
    if (s->word == NULL || candidate == NULL || strcmp(s->word, candidate) == 0)
        return;
    size_t d = sluice_suggest_distance(s->word, candidate);
    if (d == SIZE_MAX || d > threshold(strlen(candidate)))
        return;
    if (d < s->best_distance) {
        s->best = candidate;
        s->best_distance = d;
    }
}

const char *sluice_suggest_best(const sluice_suggest *s)
{
    return s->best;
}
