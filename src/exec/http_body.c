/*
 * http_body.c — the capped response body (see http_body.h).
 */
#include "exec/http_body.h"

#include <stdlib.h>
#include <string.h>

size_t sluice_http_body_write(char *ptr, size_t size, size_t n, void *user)
{
    sluice_http_body *b = user;
    size_t add = size * n;
    if (b->len + add > b->max) {
        b->too_large = true;
        return 0;
    }
    char *grown = realloc(b->data, b->len + add + 1);
    if (grown == NULL)
        return 0;
    b->data = grown;
    memcpy(b->data + b->len, ptr, add);
    b->len += add;
    b->data[b->len] = '\0';
    return add;
}
