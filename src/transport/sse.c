/*
 * sse.c — one SSE event per JSON-RPC message (see sse.h).
 */
#include "transport/sse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *sluice_sse_event(const char *json, size_t len, size_t *out_len)
{
    static const char prefix[] = "event: message\ndata: ";
    static const char suffix[] = "\n\n";
    size_t fixed = sizeof prefix - 1 + sizeof suffix - 1;
    if (len > SIZE_MAX - fixed - 1)
        return NULL;
    char *event = malloc(fixed + len + 1);
    if (event == NULL)
        return NULL;
    memcpy(event, prefix, sizeof prefix - 1);
    memcpy(event + sizeof prefix - 1, json, len);
    memcpy(event + sizeof prefix - 1 + len, suffix, sizeof suffix); /* with the NUL */
    if (out_len != NULL)
        *out_len = fixed + len;
    return event;
}
