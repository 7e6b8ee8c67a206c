/*
 * fuzz_upstream_text.c — libFuzzer target for the upstream error-text filter
 * (exec/upstream_text.c), the only thing between an upstream's free text (a GraphQL error, an MCP
 * tool error) and the caller. Any bytes must come out filtered: no crash, no read past the input,
 * and the output holds nothing the filter does not keep. Checked on every input, not only for
 * crashes:
 *   * every word (letters, digits, '_', bytes >= 0x80) of the output is a known name, a word of
 *     the vocabulary, a number of at most two digits or the "…" mark: so no value of three or
 *     more digits, no unknown word and no byte of another script passes;
 *   * the only bytes >= 0x80 are those of "…" (the output is ASCII plus the mark: valid UTF-8
 *     whatever the input);
 *   * no control character (the text goes into one line of a tool error);
 *   * the cut text is a prefix of the filtered text cut at a character boundary (a kept word may be
 *     cut in two: harmless, it is a piece of a word already shown), at most max_bytes plus "…".
 * Input: first byte = max_bytes (times 4), the rest = the text (NUL-terminated here; an embedded
 * NUL ends it, as it would the C string the callers pass).
 */
#include "exec/upstream_text.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HIDDEN     "\xe2\x80\xa6"
#define HIDDEN_LEN 3u

/* Names the caller knows (a schema's type and field names, a tool's argument names). */
static bool known_name(const void *ctx, const char *w, size_t len)
{
    static const char *const names[] = { "Person", "ssnHolder", "getUser", "user_id", "Query" };
    (void)ctx;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && strncmp(names[i], w, len) == 0)
            return true;
    return false;
}

static bool word_byte(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

/* Whether the word out[i..j) may be shown. A probe text of that one word: the filter keeps a
 * word alone exactly when it keeps it anywhere (glued numbers are hidden, never shown). */
static bool word_allowed(const char *w, size_t len)
{
    if (len == HIDDEN_LEN && memcmp(w, HIDDEN, HIDDEN_LEN) == 0)
        return true;
    bool digits = true;
    for (size_t i = 0; i < len; i++)
        digits = digits && isdigit((unsigned char)w[i]);
    if (digits)
        return len <= 2;
    if (known_name(NULL, w, len))
        return true;
    sluice_buf probe;
    sluice_buf_init(&probe, NULL, 0);
    char *word = strndup(w, len);
    bool same = false;
    if (word != NULL) {
        sluice_upstream_text_filter(&probe, word, NULL, NULL, len + 16);
        same = sluice_buf_status(&probe) == SLUICE_OK && probe.len == len &&
               memcmp(probe.data, w, len) == 0;
    }
    free(word);
    sluice_buf_dispose(&probe);
    return same;
}

static void check(const char *out, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)out[i];
        if (c < 0x20 || c == 0x7f)
            abort(); /* a control character reached the one-line error */
        if (!word_byte(c)) {
            i++;
            continue;
        }
        size_t j = i;
        /* "…" is its own word: split at it so "…" glued to a kept word is judged piecewise */
        if (len - i >= HIDDEN_LEN && memcmp(out + i, HIDDEN, HIDDEN_LEN) == 0)
            j = i + HIDDEN_LEN;
        else
            while (j < len && word_byte((unsigned char)out[j]) &&
                   !(len - j >= HIDDEN_LEN && memcmp(out + j, HIDDEN, HIDDEN_LEN) == 0))
                j++;
        for (size_t k = i; k < j; k++)
            if ((unsigned char)out[k] >= 0x80 &&
                !(j - i == HIDDEN_LEN && memcmp(out + i, HIDDEN, HIDDEN_LEN) == 0))
                abort(); /* a byte of another script passed */
        if (!word_allowed(out + i, j - i))
            abort(); /* a word the filter does not keep passed */
        i = j;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t max_bytes = (size_t)data[0] * 4;
    char *text = malloc(size);
    if (text == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    sluice_buf b;
    sluice_buf_init(&b, NULL, 0);
    sluice_upstream_text_filter(&b, text, known_name, NULL, max_bytes);
    char *filtered = NULL;
    if (sluice_buf_status(&b) == SLUICE_OK && b.len > 0) {
        check(b.data, b.len);
        filtered = strndup(b.data, b.len);
    }
    const char *cut = sluice_upstream_text_cut(&b, max_bytes);
    if (cut != NULL && filtered != NULL) {
        size_t n = strlen(cut), full = strlen(filtered);
        if (n > max_bytes + HIDDEN_LEN)
            abort(); /* longer than the limit plus the mark */
        size_t body = n;
        if (strcmp(cut, filtered) != 0) { /* cut: a prefix, then the mark */
            if (n < HIDDEN_LEN || memcmp(cut + n - HIDDEN_LEN, HIDDEN, HIDDEN_LEN) != 0)
                abort();
            body = n - HIDDEN_LEN;
        }
        if (body > full || memcmp(cut, filtered, body) != 0)
            abort(); /* the cut text is not a prefix of the filtered one */
        if (body < full && ((unsigned char)filtered[body] & 0xC0) == 0x80)
            abort(); /* cut inside a character */
    }
    free(filtered);
    sluice_buf_dispose(&b);
    free(text);
    return 0;
}
