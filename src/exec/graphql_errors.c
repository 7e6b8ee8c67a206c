/*
 * graphql_errors.c — the upstream's error messages filtered word by word (see graphql_errors.h).
 *
 * Why a list of known words and not a search for values: sluice never holds the blocked values,
 * and an upstream can spell one any way (quoted or not, inside another word, hex, base64). What
 * is kept is what cannot be a record's value: a name of the schema, a word of the vocabulary
 * below, a number of one or two digits, punctuation. The residual (docs/graphql.md): a blocked
 * value spelled exactly like a schema name or one of these words, and which error occurred.
 */
#include "exec/graphql_errors.h"

#include "core/buf.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The words error messages are made of: graphql-js 16's execution and coercion messages
 * ("Cannot return null for non-nullable field", "Int cannot represent non-integer value",
 * "Expected Iterable, but did not find one for field", "Abstract type ... must resolve to an
 * Object type at runtime") and the usual server ones (not found, forbidden, rate limit, ...).
 * No word here is a plausible value of a blocked field. One line per initial letter. */
// clang-format off
static const char *const vocabulary[] = {
    "a", "abstract", "access", "after", "again", "allowed", "an", "and", "any", "are",
    "argument", "arguments", "as", "at", "authenticated", "authentication", "authorization",
    "authorized",
    "bad", "be", "been", "before", "bit", "boolean", "but", "by",
    "can", "cannot", "code", "complexity", "conflict", "cost", "could",
    "denied", "depth", "did", "does",
    "either", "enum", "error", "errors", "exceeded", "exceeds", "exist", "exists", "expected",
    "failed", "field", "fields", "find", "float", "for", "forbidden", "found", "from",
    "function",
    "got",
    "has", "have",
    "id", "in", "input", "integer", "internal", "invalid", "is", "isTypeOf", "it", "iterable",
    "later", "limit", "list", "locked",
    "many", "maximum", "minimum", "missing", "must",
    "no", "non", "not", "null", "nullable",
    "object", "of", "on", "one", "only", "operation", "or",
    "permission", "please", "possible", "provide",
    "query",
    "rate", "record", "represent", "request", "requests", "required", "resolve", "resolved",
    "resolver", "resolveType", "response", "return", "returned", "runtime",
    "scalar", "server", "should", "signed", "string",
    "than", "that", "the", "this", "timeout", "to", "too", "try", "type",
    "unauthorized", "unavailable", "unexpected", "unknown", "unreachable",
    "valid", "value", "values", "variable",
    "was", "were", "with",
};
// clang-format on

static bool in_vocabulary(const char *w, size_t len)
{
    for (size_t i = 0; i < sizeof vocabulary / sizeof *vocabulary; i++)
        if (strlen(vocabulary[i]) == len && strncasecmp(vocabulary[i], w, len) == 0)
            return true;
    return false;
}

static bool same(sluice_gql_str a, const char *w, size_t len)
{
    return a.len == len && memcmp(a.ptr, w, len) == 0;
}

/* A type, field, argument or input field of the schema (case as written: GraphQL names are
 * case-sensitive). Enum values are not names here: they are what a field holds. */
static bool schema_name(const sluice_gql_schema *s, const char *w, size_t len)
{
    if (s == NULL)
        return false;
    if (sluice_graphql_schema_type(s, w, len) != NULL)
        return true;
    for (size_t i = 0; i < s->type_count; i++) {
        const sluice_gql_schema_type *t = s->types[i];
        for (size_t f = 0; f < t->field_count; f++) {
            if (same(t->fields[f].name, w, len))
                return true;
            for (size_t a = 0; a < t->fields[f].arg_count; a++)
                if (same(t->fields[f].args[a].name, w, len))
                    return true;
        }
        for (size_t f = 0; f < t->input_field_count; f++)
            if (same(t->input_fields[f].name, w, len))
                return true;
    }
    return false;
}

/* A word: letters, digits, '_' and every byte of a multi-byte character (so a word in another
 * script is one unknown word, never split into known pieces). */
static bool word_byte(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

static bool kept(const sluice_gql_schema *s, const char *w, size_t len)
{
    bool digits = true;
    for (size_t i = 0; i < len; i++)
        digits = digits && isdigit((unsigned char)w[i]);
    if (digits)
        return len <= 2;
    return in_vocabulary(w, len) || schema_name(s, w, len);
}

static void filter_message(sluice_buf *b, const char *m, const sluice_gql_schema *s, size_t max)
{
    static const char hidden[] = "\xe2\x80\xa6"; /* … */
    for (size_t i = 0; m[i] != '\0' && b->len <= max;) {
        unsigned char c = (unsigned char)m[i];
        if (!word_byte(c)) {
            /* control characters become a space: the text goes into one line of a tool error */
            sluice_buf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
            i++;
            continue;
        }
        size_t j = i;
        while (m[j] != '\0' && word_byte((unsigned char)m[j]))
            j++;
        if (kept(s, m + i, j - i))
            sluice_buf_append(b, m + i, j - i);
        else
            sluice_buf_puts(b, hidden);
        i = j;
    }
}

const char *sluice_graphql_error_text(sluice_arena *arena,
                                      const json_t *errors,
                                      const sluice_gql_schema *schema,
                                      size_t max_bytes)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    size_t i;
    const json_t *e;
    json_array_foreach(errors, i, e)
    {
        if (b.len > max_bytes)
            break;
        const char *m = json_string_value(json_object_get(e, "message"));
        if (i > 0)
            sluice_buf_puts(&b, "; ");
        if (m != NULL)
            filter_message(&b, m, schema, max_bytes);
        else
            sluice_buf_puts(&b, "(no message)"); /* ours: not filtered */
    }
    if (sluice_buf_status(&b) != SLUICE_OK)
        return NULL;
    if (b.len <= max_bytes)
        return sluice_buf_cstr(&b);
    /* cut at a character boundary, then say it was cut */
    size_t cut = max_bytes;
    while (cut > 0 && ((unsigned char)b.data[cut] & 0xC0) == 0x80)
        cut--;
    b.len = cut;
    b.data[cut] = '\0';
    sluice_buf_puts(&b, "\xe2\x80\xa6");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}
