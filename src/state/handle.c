/*
 * handle.c — the one handle every state store hands out (see handle.h).
 */
#include "state/handle.h"

#include <stdlib.h>

void *sluice_state_handle_new(size_t size, const void *ops, void *impl, void (*close)(void *impl))
{
    sluice_state_handle *h = calloc(1, size);
    if (h == NULL) {
        close(impl);
        return NULL;
    }
    h->ops = ops;
    h->impl = impl;
    h->close = close;
    return h;
}

void sluice_state_handle_free(sluice_state_handle *h)
{
    if (h == NULL)
        return;
    h->close(h->impl);
    free(h);
}
