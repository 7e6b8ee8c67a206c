/*
 * json_splice.c — placeholders for JSON text written ahead of time (see json_splice.h).
 */
#include "core/json_splice.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first byte of a placeholder that holds its text, and of one that borrows it: never the
 * first byte of UTF-8 text. */
#define SPLICE_MARK     '\xFF'
#define SPLICE_BORROWED '\xFE'

/* What a borrowing placeholder holds after its mark. */
typedef struct borrowed {
    const char *text;
    size_t len;
} borrowed;

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

json_t *sluice_json_splice_borrow(const char *text, size_t len)
{
    /* a 17-byte string instead of a copy of the text (a kilobyte and more: malloc's slow path) */
    char bytes[1 + sizeof(borrowed)];
    const borrowed b = { text, len };
    bytes[0] = SPLICE_BORROWED;
    memcpy(bytes + 1, &b, sizeof b);
    return text != NULL && len > 0 ? json_stringn_nocheck(bytes, sizeof bytes) : NULL;
}

bool sluice_json_splice_text(const json_t *value, const char **text, size_t *len)
{
    if (!json_is_string(value))
        return false;
    const char *bytes = json_string_value(value);
    size_t n = json_string_length(value);
    if (n >= 2 && bytes[0] == SPLICE_MARK) {
        *text = bytes + 1;
        *len = n - 1;
        return true;
    }
    if (n == 1 + sizeof(borrowed) && bytes[0] == SPLICE_BORROWED) {
        borrowed b;
        memcpy(&b, bytes + 1, sizeof b);
        *text = b.text;
        *len = b.len;
        return true;
    }
    return false;
}

json_t *sluice_json_splice_expand(const json_t *value)
{
    const char *text;
    size_t len;
    if (sluice_json_splice_text(value, &text, &len))
        return json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (json_is_object(value)) {
        json_t *o = (json_t *)value; /* jansson's iterator API is not const-correct */
        json_t *copy = json_object();
        for (void *it = json_object_iter(o); copy != NULL && it != NULL;
             it = json_object_iter_next(o, it))
            if (json_object_setn_new_nocheck(
                    copy, json_object_iter_key(it), json_object_iter_key_len(it),
                    sluice_json_splice_expand(json_object_iter_value(it))) != 0) {
                json_decref(copy);
                return NULL;
            }
        return copy;
    }
    if (json_is_array(value)) {
        json_t *copy = json_array();
        for (size_t i = 0; copy != NULL && i < json_array_size(value); i++)
            if (json_array_append_new(copy, sluice_json_splice_expand(json_array_get(value, i))) !=
                0) {
                json_decref(copy);
                return NULL;
            }
        return copy;
    }
    return json_incref((json_t *)value); /* a scalar: shared, as json_deep_copy could */
}
