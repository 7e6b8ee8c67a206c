/*
 * utf8.c — one UTF-8 sequence in, one out (see utf8.h).
 */
#include "core/utf8.h"

size_t sluice_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t sluice_utf8_decode(const char *s, size_t len, uint32_t *out_cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 0)
        return 0;
    size_t n;
    uint32_t cp, min;
    if (u[0] < 0x80) {
        n = 1, cp = u[0], min = 0;
    } else if ((u[0] & 0xE0) == 0xC0) {
        n = 2, cp = u[0] & 0x1Fu, min = 0x80;
    } else if ((u[0] & 0xF0) == 0xE0) {
        n = 3, cp = u[0] & 0x0Fu, min = 0x800;
    } else if ((u[0] & 0xF8) == 0xF0) {
        n = 4, cp = u[0] & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte or 0xF8..0xFF where a sequence must start */
    }
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (u[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    if (out_cp != NULL)
        *out_cp = cp;
    return n;
}
