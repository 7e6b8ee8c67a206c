/*
 * upstream_text.c — an upstream's free text filtered word by word (see upstream_text.h).
 *
 * Why a list of known words and not a search for values: sluice never holds the blocked values
 * (or holds them only as data it must not look for in every spelling), and an upstream can spell
 * one any way (quoted or not, inside another word, hex, base64). What is kept is what cannot be a
 * record's value: a name the caller already knows (the schema's, the tools'), a word of the
 * vocabulary below, a number of one or two digits standing alone (not beside another number or
 * a hidden word: a value spelled in pieces), punctuation. The residual (docs/graphql.md,
 * docs/mcp-composition.md): a blocked value spelled exactly like a known name or one of these
 * words, and which error occurred.
 */
#include "exec/upstream_text.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The words error messages are made of: graphql-js 16's execution and coercion messages
 * ("Cannot return null for non-nullable field", "Int cannot represent non-integer value",
 * "Expected Iterable, but did not find one for field", "Abstract type ... must resolve to an
 * Object type at runtime"), the MCP SDKs' ("MCP error", "tool ... not found", "invalid params")
 * and the usual server ones (not found, forbidden, rate limit, ...).
 * No word here is a plausible value of a blocked field. One line per initial letter. */
// clang-format off
static const char *const vocabulary[] = {
    "a", "abstract", "access", "after", "again", "allowed", "an", "and", "any", "api", "are",
    "argument", "arguments", "as", "at", "authenticated", "authentication", "authorization",
    "authorized",
    "bad", "be", "been", "before", "bit", "boolean", "but", "by",
    "call", "can", "cannot", "code", "complexity", "conflict", "cost", "could",
    "denied", "depth", "did", "does", "down",
    "either", "enum", "error", "errors", "exceeded", "exceeds", "exist", "exists", "expected",
    "failed", "field", "fields", "find", "float", "for", "forbidden", "found", "from",
    "function",
    "got",
    "has", "have",
    "id", "in", "input", "integer", "internal", "invalid", "is", "isTypeOf", "it", "iterable",
    "later", "limit", "list", "locked",
    "many", "maximum", "mcp", "method", "minimum", "missing", "must",
    "no", "non", "not", "null", "nullable",
    "object", "of", "on", "one", "only", "operation", "or",
    "parameters", "params", "permission", "please", "possible", "provide",
    "query",
    "rate", "record", "represent", "request", "requests", "required", "resolve", "resolved",
    "resolver", "resolveType", "response", "return", "returned", "runtime",
    "scalar", "server", "should", "signed", "string",
    "than", "that", "the", "this", "timeout", "to", "too", "tool", "tools", "try", "type",
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

/* A word: letters, digits, '_' and every byte of a multi-byte character (so a word in another
 * script is one unknown word, never split into known pieces). */
static bool word_byte(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

static bool all_digits(const char *w, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)w[i]))
            return false;
    return true;
}

static bool kept(const char *w, size_t len, sluice_upstream_known_fn known, const void *ctx)
{
    if (all_digits(w, len))
        return len <= 2;
    return in_vocabulary(w, len) || (known != NULL && known(ctx, w, len));
}

static bool space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether the token text[i..end) (no white space in it) holds a word the filter hides. */
static bool
token_hides(const char *text, size_t i, size_t end, sluice_upstream_known_fn known, const void *ctx)
{
    while (i < end) {
        if (!word_byte((unsigned char)text[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < end && word_byte((unsigned char)text[j]))
            j++;
        if (!kept(text + i, j - i, known, ctx))
            return true;
        i = j;
    }
    return false;
}

/* Whether the word text[i..j) would not be shown as a word on its own: a number (any length) or
 * a word the filter hides. */
static bool numeric_or_hidden(
    const char *text, size_t i, size_t j, sluice_upstream_known_fn known, const void *ctx)
{
    return all_digits(text + i, j - i) || !kept(text + i, j - i, known, ctx);
}

/* Whether a short number at text[i..j) stands beside another number or a hidden word (only
 * punctuation and white space between): then it is a piece of a value spelled in pieces ("45 56
 * 51" char codes, "25 83 64" digit pairs, "… 45 …") and is hidden too. */
static bool
beside_value(const char *text, size_t i, size_t j, sluice_upstream_known_fn known, const void *ctx)
{
    size_t p = i;
    while (p > 0 && !word_byte((unsigned char)text[p - 1]))
        p--;
    if (p > 0) {
        size_t start = p;
        while (start > 0 && word_byte((unsigned char)text[start - 1]))
            start--;
        if (numeric_or_hidden(text, start, p, known, ctx))
            return true;
    }
    size_t n = j;
    while (text[n] != '\0' && !word_byte((unsigned char)text[n]))
        n++;
    if (text[n] == '\0')
        return false;
    size_t end = n;
    while (text[end] != '\0' && word_byte((unsigned char)text[end]))
        end++;
    return numeric_or_hidden(text, n, end, known, ctx);
}

void sluice_upstream_text_filter(sluice_buf *b,
                                 const char *text,
                                 sluice_upstream_known_fn known,
                                 const void *ctx,
                                 size_t max_bytes)
{
    static const char hidden[] = "\xe2\x80\xa6"; /* … */
    size_t token_end = 0;
    bool token_hidden = false; /* a word of this token is hidden: its numbers are too */
    for (size_t i = 0; text[i] != '\0' && b->len <= max_bytes;) {
        unsigned char c = (unsigned char)text[i];
        if (i >= token_end && !space(c)) {
            /* a number glued to a hidden word ("…-41-…") is a piece of the same value */
            token_end = i;
            while (text[token_end] != '\0' && !space((unsigned char)text[token_end]))
                token_end++;
            token_hidden = token_hides(text, i, token_end, known, ctx);
        }
        if (!word_byte(c)) {
            /* control characters become a space: the text goes into one line of a tool error */
            sluice_buf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
            i++;
            continue;
        }
        size_t j = i;
        while (text[j] != '\0' && word_byte((unsigned char)text[j]))
            j++;
        bool number = all_digits(text + i, j - i);
        if (kept(text + i, j - i, known, ctx) &&
            !(number && (token_hidden || beside_value(text, i, j, known, ctx))))
            sluice_buf_append(b, text + i, j - i);
        else
            sluice_buf_puts(b, hidden);
        i = j;
    }
}

const char *sluice_upstream_text_cut(sluice_buf *b, size_t max_bytes)
{
    if (sluice_buf_status(b) != SLUICE_OK)
        return NULL;
    if (b->len <= max_bytes)
        return sluice_buf_cstr(b);
    /* cut at a character boundary, then say it was cut */
    size_t cut = max_bytes;
    while (cut > 0 && ((unsigned char)b->data[cut] & 0xC0) == 0x80)
        cut--;
    b->len = cut;
    b->data[cut] = '\0';
    sluice_buf_puts(b, "\xe2\x80\xa6");
    return sluice_buf_status(b) == SLUICE_OK ? sluice_buf_cstr(b) : NULL;
}
