/*
 * json_write.c — compact JSON text of a jansson value (see json_write.h).
 *
 * Mirrors jansson 2.14's dump.c for JSON_COMPACT: objects in insertion order with "," and ":"
 * and no spaces; strings escape '"', '\\' and every byte below 0x20 (\b \f \n \r \t by name,
 * the rest as \u00XX in upper-case hex) and keep other UTF-8 as is; reals are jansson's "%.17g"
 * with its clean-up (write_double; the test compares it with json_dumps over generated values). A
 * splice
 * placeholder (core/json_splice.h) is replaced by its text, which json_dumps cannot do: it
 * refuses the placeholder as invalid UTF-8 (and so does sluice_json_write_member, whose text must
 * be json_dumps' own).
 * tests/unit/test_json_write.c compares the two byte for byte.
 */
#include "core/json_write.h"

#include "core/json_splice.h"
#include "core/limits.h"
#include "core/utf8.h"

#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lanes of the 8 bytes at s that are not written as they are (ASCII from 0x20 up, neither '"'
 * nor '\\'), as their high bits; 0 when all are, as most text is, so it is tested a word at a
 * time. The bit tricks find a byte below a bound, or a zero byte after an XOR, in every lane at
 * once; a borrow can mark a lane above a marked one, but the lowest marked lane is always exact
 * (a borrow only travels up from a marked lane), which is all this asks. */
static uint64_t special8(const char *s)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t x, q, b;
    memcpy(&x, s, sizeof x);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x); /* s[0] in the lowest lane, where a borrow cannot reach it */
#endif
    q = x ^ (ones * '"');
    b = x ^ (ones * '\\');
    uint64_t below_space = (x - ones * 0x20) & ~x & highs;
    uint64_t quote = (q - ones) & ~q & highs, backslash = (b - ones) & ~b & highs;
    return (x & highs) | below_space | quote | backslash;
}

/* Appends n bytes at p: straight into buf's room when it has some (nearly every append here is a
 * few bytes, and a call into core/buf for each was most of the writer's cost), else through
 * sluice_buf_append, which grows it or fails. Keeps buf's contract: NUL after the text, never
 * past its maximum. */
static inline void put(sluice_buf *buf, const void *p, size_t n)
{
    if (buf->status == SLUICE_OK && n < buf->cap - buf->len && n <= buf->max - buf->len) {
        memcpy(buf->data + buf->len, p, n);
        buf->len += n;
        buf->data[buf->len] = '\0';
        return;
    }
    sluice_buf_append(buf, p, n);
}

static inline void put1(sluice_buf *buf, char c)
{
    put(buf, &c, 1);
}

/* Whether s[0..len) goes between the quotes as it is: ASCII, nothing to escape (names, labels,
 * hashes: nearly every string). The last bytes are tested as a word padded with spaces. */
static bool plain(const char *s, size_t len)
{
    uint64_t special = 0;
    size_t i = 0;
    for (; len - i >= 8; i += 8)
        special |= special8(s + i);
    if (i < len) {
        char tail[8];
        memset(tail, ' ', sizeof tail);
        memcpy(tail, s + i, len - i);
        special |= special8(tail);
    }
    return special == 0;
}

/* Appends s[0..len) as a JSON string literal; false when it is not valid UTF-8. */
static bool write_string(sluice_buf *buf, const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    if (plain(s, len) && buf->status == SLUICE_OK && len + 2 < buf->cap - buf->len &&
        len + 2 <= buf->max - buf->len) { /* one copy between the quotes, in the room buf has */
        char *at = buf->data + buf->len;
        at[0] = '"';
        memcpy(at + 1, s, len);
        at[len + 1] = '"';
        at[len + 2] = '\0';
        buf->len += len + 2;
        return true;
    }
    put1(buf, '"');
    size_t run = 0, i = 0;
    while (i < len) {
        if (len - i >= 8) {
            uint64_t special = special8(s + i);
            if (special == 0) {
                i += 8;
                continue;
            }
            /* straight to the first byte that needs care: s[i] is the lowest lane */
            i += (size_t)__builtin_ctzll(special) / 8;
        }
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t n = sluice_utf8_decode(s + i, len - i, NULL);
            if (n == 0)
                return false;
            i += n;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\') {
            i++;
            continue;
        }
        put(buf, s + run, i - run);
        char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
        size_t esc_len = 2;
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            esc_len = sizeof esc;
        }
        put(buf, esc, esc_len);
        i++;
        run = i;
    }
    put(buf, s + run, len - run);
    put1(buf, '"');
    return true;
}

void sluice_json_put_integer(sluice_buf *buf, json_int_t v)
{
    char digits[24];
    size_t at = sizeof digits;
    /* Negate in unsigned arithmetic so the most negative value does not overflow. */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[--at] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        digits[--at] = '-';
    put(buf, digits + at, sizeof digits - at);
}

/* Appends v as jansson 2.14 writes a real: "%.17g" with the locale's decimal point read as '.',
 * ".0" after a number with neither '.' nor 'e' (so it reads back as a real), and the exponent
 * without '+' or leading zeros. False when v is not finite (json_real makes no such value). */
static bool write_double(sluice_buf *buf, double v)
{
    if (!isfinite(v))
        return false;
    /* A whole number below 1e17 (an estimate's cost, mostly): "%.17g" writes its digits, all of
     * them exact, with no exponent (that starts at 1e17), and jansson adds ".0". -0.0 is left to
     * the general path, which keeps its sign. */
    if (fabs(v) < 1e17 && v == (double)(long long)v && (v != 0 || !signbit(v))) {
        sluice_json_put_integer(buf, (json_int_t)v);
        put(buf, ".0", 2);
        return true;
    }
    char text[40];
    int n = snprintf(text, sizeof text, "%.17g", v);
    if (n < 0 || (size_t)n >= sizeof text - 2)
        return false;
    char point = localeconv()->decimal_point[0];
    char *p = point != '.' ? strchr(text, point) : NULL;
    if (p != NULL)
        *p = '.';
    char *e = strchr(text, 'e');
    if (e == NULL && strchr(text, '.') == NULL) {
        memcpy(text + n, ".0", 2);
        n += 2;
    }
    if (e == NULL) {
        put(buf, text, (size_t)n);
        return true;
    }
    /* e, its sign unless '+', then the digits after any leading zeros (at least one kept) */
    char *digits = e + 1 + (e[1] == '-' || e[1] == '+');
    char *end = text + n;
    while (digits + 1 < end && *digits == '0')
        digits++;
    put(buf, text, (size_t)(e - text) + 1 + (e[1] == '-'));
    put(buf, digits, (size_t)(end - digits));
    return true;
}

/* Where the text goes, and whether a splice placeholder is written as its text (the wire) or
 * refused as json_dumps refuses it (text that must be json_dumps' own, the audit record). */
typedef struct writer {
    sluice_buf *buf;
    bool splices;
} writer;

static bool write_value(const writer *w, const json_t *value, unsigned depth);

static bool write_object(const writer *w, const json_t *object, unsigned depth)
{
    sluice_buf *buf = w->buf;
    json_t *o = (json_t *)object; /* jansson's iterator API is not const-correct */
    put1(buf, '{');
    bool first = true;
    for (void *it = json_object_iter(o); it != NULL; it = json_object_iter_next(o, it)) {
        if (!first)
            put1(buf, ',');
        first = false;
        if (!write_string(buf, json_object_iter_key(it), json_object_iter_key_len(it)))
            return false;
        put1(buf, ':');
        if (!write_value(w, json_object_iter_value(it), depth + 1))
            return false;
    }
    put1(buf, '}');
    return true;
}

static bool write_array(const writer *w, const json_t *array, unsigned depth)
{
    sluice_buf *buf = w->buf;
    put1(buf, '[');
    size_t n = json_array_size(array);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            put1(buf, ',');
        if (!write_value(w, json_array_get(array, i), depth + 1))
            return false;
    }
    put1(buf, ']');
    return true;
}

static bool write_value(const writer *w, const json_t *value, unsigned depth)
{
    sluice_buf *buf = w->buf;
    if (value == NULL || depth > SLUICE_LIMIT_JSON_WRITE_DEPTH)
        return false;
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return write_object(w, value, depth);
    case JSON_ARRAY:
        return write_array(w, value, depth);
    case JSON_STRING: {
        const char *text;
        size_t len;
        if (sluice_json_splice_text(value, &text, &len)) { /* written ahead of time, as is */
            put(buf, text, len);
            return w->splices;
        }
        return write_string(buf, json_string_value(value), json_string_length(value));
    }
    case JSON_INTEGER:
        sluice_json_put_integer(buf, json_integer_value(value));
        return true;
    case JSON_REAL:
        return write_double(buf, json_real_value(value));
    case JSON_TRUE:
        put(buf, "true", 4);
        return true;
    case JSON_FALSE:
        put(buf, "false", 5);
        return true;
    case JSON_NULL:
        put(buf, "null", 4);
        return true;
    }
    return false;
}

sluice_status sluice_json_write(sluice_buf *buf, const json_t *value)
{
    writer w = { buf, true };
    if (!write_value(&w, value, 0))
        return SLUICE_E_INVALID;
    return sluice_buf_status(buf);
}

sluice_status
sluice_json_write_member(sluice_buf *buf, const char *key, size_t key_len, const json_t *value)
{
    writer w = { buf, false };
    if (!write_string(buf, key, key_len))
        return SLUICE_E_INVALID;
    put1(buf, ':');
    if (!write_value(&w, value, 1))
        return SLUICE_E_INVALID;
    return sluice_buf_status(buf);
}

/* ---- text written value by value (sluice_json_out) ----------------------------------------- */

/* The ',' before what comes next in a container that already holds a value. */
static void separate(sluice_json_out *out)
{
    if (out->comma)
        put1(out->buf, ',');
}

void sluice_json_out_keyn(sluice_json_out *out, const char *text, size_t len)
{
    if (out->comma)
        put(out->buf, text, len);
    else
        put(out->buf, text + 1, len - 1);
    out->comma = false;
}

void sluice_json_out_open(sluice_json_out *out, char bracket)
{
    separate(out);
    put1(out->buf, bracket);
    out->comma = false;
}

void sluice_json_out_close(sluice_json_out *out, char bracket)
{
    put1(out->buf, bracket);
    out->comma = true;
}

void sluice_json_out_string(sluice_json_out *out, const char *s)
{
    separate(out);
    if (s == NULL || !write_string(out->buf, s, strlen(s)))
        out->bad = true;
    out->comma = true;
}

void sluice_json_out_integer(sluice_json_out *out, json_int_t v)
{
    separate(out);
    sluice_json_put_integer(out->buf, v);
    out->comma = true;
}

void sluice_json_out_real(sluice_json_out *out, double v)
{
    separate(out);
    if (!write_double(out->buf, v))
        out->bad = true;
    out->comma = true;
}

void sluice_json_out_bool(sluice_json_out *out, bool v)
{
    separate(out);
    put(out->buf, v ? "true" : "false", v ? 4 : 5);
    out->comma = true;
}

void sluice_json_out_null(sluice_json_out *out)
{
    separate(out);
    put(out->buf, "null", 4);
    out->comma = true;
}

void sluice_json_out_value(sluice_json_out *out, const json_t *value)
{
    separate(out);
    writer w = { out->buf, false };
    if (!write_value(&w, value, 1))
        out->bad = true;
    out->comma = true;
}

sluice_status sluice_json_out_status(const sluice_json_out *out)
{
    return out->bad ? SLUICE_E_INVALID : sluice_buf_status(out->buf);
}

/* Whether s[0..len) is all ASCII, read a word at a time (one test of the high bits at the end:
 * the OR of every byte has one set exactly when some byte has). */
static bool all_ascii(const char *s, size_t len)
{
    uint64_t any = 0;
    size_t i = 0;
    for (; len - i >= 8; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, sizeof x);
        any |= x;
    }
    for (; i < len; i++)
        any |= (unsigned char)s[i];
    return (any & 0x8080808080808080ull) == 0;
}

json_t *sluice_json_string(const char *s)
{
    if (s == NULL)
        return NULL;
    size_t len = strlen(s);
    return all_ascii(s, len) ? json_stringn_nocheck(s, len) : json_stringn(s, len);
}

char *sluice_json_write_text(const json_t *value, size_t *out_len)
{
    sluice_buf buf;
    sluice_buf_init(&buf, NULL, 0);
    if (sluice_json_write(&buf, value) != SLUICE_OK) {
        sluice_buf_dispose(&buf);
        return NULL;
    }
    if (buf.data == NULL) /* cannot happen (every value writes something); keep the contract */
        return NULL;
    if (out_len != NULL)
        *out_len = buf.len;
    return buf.data;
}
