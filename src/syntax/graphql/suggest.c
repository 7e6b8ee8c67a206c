/*
 * suggest.c — graphql-js's suggestionList, naturalCompare and didYouMean (see suggest.h), on the
 * shared edit distance of config/suggest.c (case-insensitive optimal string alignment, which is
 * graphql-js's LexicalDistance once an exact match is 0 and a change of case alone is 1).
 */
#include "syntax/graphql/suggest.h"

#include "config/suggest.h"
#include "core/buf.h"
#include "core/limits.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool digit(const char *p, size_t i, size_t len)
{
    return i < len && p[i] >= '0' && p[i] <= '9';
}

int sluice_gql_natural_compare(sluice_gql_str a, sluice_gql_str b)
{
    size_t i = 0, j = 0;
    while (i < a.len && j < b.len) {
        if (digit(a.ptr, i, a.len) && digit(b.ptr, j, b.len)) {
            /* as graphql-js: a run is read while its value is still 0 or digits follow */
            unsigned long long x = 0, y = 0;
            do
                x = x * 10 + (unsigned)(a.ptr[i++] - '0');
            while (digit(a.ptr, i, a.len) && x > 0 && x < UINT64_MAX / 10);
            do
                y = y * 10 + (unsigned)(b.ptr[j++] - '0');
            while (digit(b.ptr, j, b.len) && y > 0 && y < UINT64_MAX / 10);
            if (x != y)
                return x < y ? -1 : 1;
            continue;
        }
        if (a.ptr[i] != b.ptr[j])
            return (unsigned char)a.ptr[i] < (unsigned char)b.ptr[j] ? -1 : 1;
        i++;
        j++;
    }
    return (a.len > b.len) - (a.len < b.len); /* graphql-js: the whole lengths */
}

/* graphql-js's LexicalDistance.measure, or SIZE_MAX past threshold (or past the word limit). */
static size_t lexical_distance(sluice_gql_str input, sluice_gql_str option, size_t threshold)
{
    if (input.len == option.len && memcmp(input.ptr, option.ptr, input.len) == 0)
        return 0;
    if (input.len > SLUICE_LIMIT_SUGGEST_WORD_BYTES || option.len > SLUICE_LIMIT_SUGGEST_WORD_BYTES)
        return SIZE_MAX;
    size_t diff = input.len > option.len ? input.len - option.len : option.len - input.len;
    if (diff > threshold)
        return SIZE_MAX;
    char a[SLUICE_LIMIT_SUGGEST_WORD_BYTES + 1], b[SLUICE_LIMIT_SUGGEST_WORD_BYTES + 1];
    memcpy(a, input.ptr, input.len);
    a[input.len] = '\0';
    memcpy(b, option.ptr, option.len);
    b[option.len] = '\0';
    size_t d = sluice_suggest_distance(a, b);
    if (d == 0)
        d = 1; /* the same letters in another case: one edit */
    return d <= threshold ? d : SIZE_MAX;
}

typedef struct ranked {
    sluice_gql_str name;
    size_t distance;
} ranked;

static int by_distance(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return sluice_gql_natural_compare(a->name, b->name);
}

size_t sluice_gql_suggestion_list(sluice_arena *arena,
                                  sluice_gql_str input,
                                  const sluice_gql_str *options,
                                  size_t count,
                                  sluice_gql_str **out)
{
    *out = NULL;
    size_t threshold = input.len * 2 / 5 + 1; /* Math.floor(length * 0.4) + 1 */
    ranked *r = count > 0 ? sluice_arena_calloc(arena, count, sizeof *r) : NULL;
    if (r == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        bool seen = false; /* graphql-js keys by name: a name listed twice counts once */
        for (size_t k = 0; !seen && k < n; k++)
            seen = r[k].name.len == options[i].len &&
                   memcmp(r[k].name.ptr, options[i].ptr, options[i].len) == 0;
        size_t d = seen ? SIZE_MAX : lexical_distance(input, options[i], threshold);
        if (d != SIZE_MAX)
            r[n++] = (ranked){ options[i], d };
    }
    if (n == 0)
        return 0;
    qsort(r, n, sizeof *r, by_distance);
    sluice_gql_str *names = sluice_arena_calloc(arena, n, sizeof *names);
    if (names == NULL)
        return 0;
    for (size_t i = 0; i < n; i++)
        names[i] = r[i].name;
    *out = names;
    return n;
}

const char *sluice_gql_did_you_mean(sluice_arena *arena,
                                    const char *sub,
                                    const sluice_gql_str *names,
                                    size_t count)
{
    enum { MAX_SUGGESTIONS = 5 };
    if (count == 0)
        return "";
    size_t shown = count < MAX_SUGGESTIONS ? count : MAX_SUGGESTIONS;
    sluice_buf b;
    /* five names of at most SLUICE_LIMIT_SUGGEST_WORD_BYTES, quoted and separated, and sub */
    sluice_buf_init(&b, arena, 1024);
    sluice_buf_puts(&b, " Did you mean ");
    if (sub != NULL)
        sluice_buf_printf(&b, "%s ", sub);
    for (size_t i = 0; i < shown; i++) {
        const char *sep = i == 0 ? "" : shown == 2 ? " or " : i + 1 == shown ? ", or " : ", ";
        sluice_buf_printf(&b, "%s\"%.*s\"", sep, (int)names[i].len, names[i].ptr);
    }
    sluice_buf_puts(&b, "?");
    const char *s = sluice_buf_cstr(&b);
    return s != NULL ? s : "";
}
