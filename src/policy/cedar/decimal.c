/*
 * decimal.c — Cedar's `decimal` extension type: a 64-bit integer scaled by 10^4.
 *
 * Owns: parsing decimal("-?digits.digits{1,4}") with overflow detection, and printing.
 * Does not own: comparisons (eval.c dispatches lessThan & co. on the scaled integers).
 */
#include "policy/cedar/ast.h"

const char *sluice_cedar_decimal_parse(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && s[i] == '-') {
        neg = true;
        i++;
    }
    /* Accumulate the magnitude as unsigned so the minimum (-922337203685477.5808) fits. */
    uint64_t mag = 0;
    const uint64_t limit = (uint64_t)INT64_MAX + (neg ? 1u : 0u);
    size_t int_start = i;
    bool overflow = false;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        unsigned d = (unsigned)(s[i++] - '0');
        if (mag > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            mag = mag * 10 + d;
    }
    if (i == int_start || i >= len || s[i] != '.')
        return "invalid decimal: expected digits, a '.', then 1 to 4 digits";
    i++;
    size_t frac_start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        unsigned d = (unsigned)(s[i++] - '0');
        if (i - frac_start > 4)
            return "too many digits after the decimal point";
        if (mag > (UINT64_MAX - d) / 10)
            overflow = true;
        else
            mag = mag * 10 + d;
    }
    size_t frac = i - frac_start;
    if (frac == 0 || i != len)
        return "invalid decimal: expected digits, a '.', then 1 to 4 digits";
    for (size_t k = frac; k < 4; k++) {
        if (mag > UINT64_MAX / 10)
            overflow = true;
        else
            mag *= 10;
    }
    if (overflow || mag > limit)
        return "decimal overflow";
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return NULL;
}

void sluice_cedar_decimal_print(sluice_buf *buf, int64_t d)
{
    uint64_t mag = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    sluice_buf_printf(buf, "%s%llu.%04llu", d < 0 ? "-" : "", (unsigned long long)(mag / 10000),
                      (unsigned long long)(mag % 10000));
}
