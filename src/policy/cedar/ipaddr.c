/*
 * ipaddr.c — Cedar's `ipaddr` extension type: ip("a.b.c.d[/n]") and ip("v6[/n]").
 *
 * Owns: parsing (as strict as Cedar: no leading zeros in IPv4 octets, no IPv4 embedded in an
 * IPv6 address, prefix within the family's width) and the range predicates.
 * Does not own: the method dispatch (eval.c).
 */
#include "core/hash.h"
#include "policy/cedar/ast.h"

#include <string.h>

static bool parse_v4(const char *s, size_t len, uint8_t out[4])
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= len || s[i] != '.')
                return false;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 4)
            v = v * 10 + (unsigned)(s[i++] - '0');
        size_t n = i - start;
        if (n == 0 || n > 3 || v > 255 || (n > 1 && s[start] == '0'))
            return false;
        out[part] = (uint8_t)v;
    }
    return i == len;
}

/* Groups of 1-4 hex digits, at most one "::". Dotted IPv4 tails are rejected (as Cedar does). */
static const char *parse_v6(const char *s, size_t len, uint8_t out[16])
{
    uint16_t head[8], tail[8];
    int nhead = 0, ntail = 0;
    bool gap = false;
    size_t i = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        gap = true;
        i = 2;
    }
    while (i < len) {
        size_t start = i;
        unsigned v = 0;
        while (i < len && sluice_hex_digit((unsigned char)s[i]) >= 0 && i - start < 5)
            v = v * 16 + (unsigned)sluice_hex_digit((unsigned char)s[i++]);
        if (i < len && s[i] == '.')
            return "We do not accept IPv4 embedded in IPv6";
        if (i == start || i - start > 4 || nhead + ntail >= 8)
            return "invalid IP address";
        if (gap)
            tail[ntail++] = (uint16_t)v;
        else
            head[nhead++] = (uint16_t)v;
        if (i == len)
            break;
        if (s[i] != ':')
            return "invalid IP address";
        i++;
        if (i < len && s[i] == ':') {
            if (gap)
                return "invalid IP address";
            gap = true;
            i++;
        } else if (i == len) {
            return "invalid IP address";
        }
    }
    if (gap ? nhead + ntail > 7 : nhead != 8)
        return "invalid IP address";
    memset(out, 0, 16);
    for (int k = 0; k < nhead; k++) {
        out[2 * k] = (uint8_t)(head[k] >> 8);
        out[2 * k + 1] = (uint8_t)head[k];
    }
    for (int k = 0; k < ntail; k++) {
        int at = 8 - ntail + k;
        out[2 * at] = (uint8_t)(tail[k] >> 8);
        out[2 * at + 1] = (uint8_t)tail[k];
    }
    return NULL;
}

const char *sluice_cedar_ip_parse(const char *s, size_t len, sluice_cedar_ip *out)
{
    memset(out, 0, sizeof(*out));
    const char *slash = memchr(s, '/', len);
    size_t addr_len = slash != NULL ? (size_t)(slash - s) : len;
    bool v6 = memchr(s, ':', addr_len) != NULL;
    if (v6) {
        const char *why = parse_v6(s, addr_len, out->bytes);
        if (why != NULL)
            return why;
    } else if (!parse_v4(s, addr_len, out->bytes)) {
        return "invalid IP address";
    }
    out->v6 = v6;
    unsigned width = v6 ? 128 : 32;
    out->prefix = (uint8_t)width;
    if (slash != NULL) {
        size_t i = addr_len + 1;
        unsigned p = 0;
        if (i == len || len - i > 3 || (len - i > 1 && s[i] == '0'))
            return "invalid IP address prefix";
        for (; i < len; i++) {
            if (s[i] < '0' || s[i] > '9')
                return "invalid IP address prefix";
            p = p * 10 + (unsigned)(s[i] - '0');
        }
        if (p > width)
            return "invalid IP address prefix";
        out->prefix = (uint8_t)p;
    }
    return NULL;
}

bool sluice_cedar_ip_equal(const sluice_cedar_ip *a, const sluice_cedar_ip *b)
{
    return a->v6 == b->v6 && a->prefix == b->prefix &&
           memcmp(a->bytes, b->bytes, a->v6 ? 16 : 4) == 0;
}

bool sluice_cedar_ip_is_loopback(const sluice_cedar_ip *ip)
{
    if (!ip->v6)
        return ip->bytes[0] == 127 && ip->prefix >= 8;
    static const uint8_t one[16] = { [15] = 1 };
    return memcmp(ip->bytes, one, 16) == 0 && ip->prefix >= 128;
}

bool sluice_cedar_ip_is_multicast(const sluice_cedar_ip *ip)
{
    if (!ip->v6)
        return (ip->bytes[0] & 0xf0) == 224 && ip->prefix >= 4;
    return ip->bytes[0] == 0xff && ip->prefix >= 8;
}

/* First (or last when ones) address of the network, in out. */
static void range_edge(const sluice_cedar_ip *ip, bool ones, uint8_t out[16])
{
    unsigned width = ip->v6 ? 16 : 4;
    for (unsigned i = 0; i < width; i++) {
        unsigned bits_before = i * 8;
        uint8_t mask;
        if (ip->prefix >= bits_before + 8)
            mask = 0xff;
        else if (ip->prefix <= bits_before)
            mask = 0;
        else
            mask = (uint8_t)(0xff << (8 - (ip->prefix - bits_before)));
        out[i] = ones ? (uint8_t)(ip->bytes[i] | ~mask) : (uint8_t)(ip->bytes[i] & mask);
    }
}

bool sluice_cedar_ip_in_range(const sluice_cedar_ip *ip, const sluice_cedar_ip *range)
{
    if (ip->v6 != range->v6)
        return false;
    size_t width = ip->v6 ? 16 : 4;
    uint8_t a0[16], a1[16], r0[16], r1[16];
    range_edge(ip, false, a0);
    range_edge(ip, true, a1);
    range_edge(range, false, r0);
    range_edge(range, true, r1);
    return memcmp(a0, r0, width) >= 0 && memcmp(a1, r1, width) <= 0;
}

void sluice_cedar_ip_print(sluice_buf *buf, const sluice_cedar_ip *ip)
{
    if (!ip->v6) {
        sluice_buf_printf(buf, "%u.%u.%u.%u", ip->bytes[0], ip->bytes[1], ip->bytes[2],
                          ip->bytes[3]);
    } else {
        for (int k = 0; k < 8; k++)
            sluice_buf_printf(buf, k ? ":%x" : "%x",
                              (ip->bytes[2 * k] << 8) | ip->bytes[2 * k + 1]);
    }
    sluice_buf_printf(buf, "/%u", ip->prefix);
}
