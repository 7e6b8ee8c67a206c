/*
 * json_splice.c — placeholders for JSON text written ahead of time (see json_splice.h).
 */
#include "core/json_splice.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first byte of every placeholder: never the first byte of UTF-8 text. */
#define SPLICE_MARK '\xFF'

/* A placeholder of n bytes of text, filled by fill(out, ctx) into out[0..n). */
static json_t *splice_of(size_t n,
                         void (*fill)(char *out, const void *src, size_t len),
                         const void *src,
                         size_t len)
{
    if (n > SIZE_MAX - 2)
        return NULL;
    char *bytes = malloc(n + 1);
    if (bytes == NULL)
        return NULL;
    bytes[0] = SPLICE_MARK;
    fill(bytes + 1, src, len);
    json_t *v = json_stringn_nocheck(bytes, n + 1);
    free(bytes);
    return v;
}

static void copy_text(char *out, const void *src, size_t len)
{
    memcpy(out, src, len);
}

json_t *sluice_json_splice_new(const char *text, size_t len)
{
    return splice_of(len, copy_text, text, len);
}

/* "[" + the lines with each newline but the last turned into ',' + "]". */
static void join_lines(char *out, const void *src, size_t len)
{
    const char *lines = src;
    out[0] = '[';
    size_t body = len > 0 && lines[len - 1] == '\n' ? len - 1 : len;
    memcpy(out + 1, lines, body);
    for (char *p = memchr(out + 1, '\n', body); p != NULL;
         p = memchr(p + 1, '\n', body - (size_t)(p - (out + 1)) - 1))
        *p = ',';
    out[1 + body] = ']';
}

json_t *sluice_json_splice_lines(const char *lines, size_t len)
{
    size_t body = len > 0 && lines[len - 1] == '\n' ? len - 1 : len;
    return splice_of(body + 2, join_lines, lines, len);
}

bool sluice_json_splice_text(const json_t *value, const char **text, size_t *len)
{
    if (!json_is_string(value) || json_string_length(value) < 2 ||
        json_string_value(value)[0] != SPLICE_MARK)
        return false;
    *text = json_string_value(value) + 1;
    *len = json_string_length(value) - 1;
    return true;
}
