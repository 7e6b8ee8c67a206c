/*
 * http_guard.c — Host and Origin checks (see http_guard.h).
 */
#include "transport/http_guard.h"

#include <string.h>
#include <strings.h>

static bool loopback_host(const char *host, size_t len)
{
    return (len == 9 && strncasecmp(host, "localhost", 9) == 0) ||
           (len == 9 && strncmp(host, "127.0.0.1", 9) == 0) ||
           (len == 5 && strncmp(host, "[::1]", 5) == 0);
}

/* Length of the host part of "host[:port]" (IPv6 in brackets); 0 when malformed. */
static size_t host_part(const char *value)
{
    if (value[0] == '[') {
        const char *close = strchr(value, ']');
        if (close == NULL)
            return 0;
        size_t n = (size_t)(close - value) + 1;
        return value[n] == '\0' || value[n] == ':' ? n : 0;
    }
    size_t n = strcspn(value, ":");
    return n;
}

static bool port_ok(const char *p)
{
    if (*p == '\0')
        return true;
    if (*p++ != ':' || *p == '\0')
        return false;
    for (; *p != '\0'; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

bool sluice_http_host_allowed(const sluice_http_guard *guard, const char *host)
{
    if (host == NULL)
        return false;
    size_t n = host_part(host);
    if (n == 0 || !port_ok(host + n))
        return false;
    if (guard->allowed_host_count == 0)
        return loopback_host(host, n);
    for (size_t i = 0; i < guard->allowed_host_count; i++) {
        const char *a = guard->allowed_hosts[i];
        if (strcasecmp(a, host) == 0 || (strlen(a) == n && strncasecmp(a, host, n) == 0))
            return true;
    }
    return false;
}

/* An allowlist entry without a port matches that scheme and host on any port, as for Host
 * entries and as docs/config.md promises (the config's loopback defaults carry no port). */
static bool origin_matches(const char *allowed, const char *origin)
{
    size_t n = strlen(allowed);
    if (strncasecmp(allowed, origin, n) != 0)
        return false;
    if (origin[n] == '\0')
        return true;
    const char *authority = strstr(allowed, "://");
    if (origin[n] != ':' || authority == NULL)
        return false;
    authority += 3;
    size_t host = host_part(authority);
    return host > 0 && authority[host] == '\0' && port_ok(origin + n);
}

bool sluice_http_origin_allowed(const sluice_http_guard *guard, const char *origin)
{
    if (origin == NULL)
        return true; /* not a browser request */
    if (guard->allowed_origin_count > 0) {
        for (size_t i = 0; i < guard->allowed_origin_count; i++)
            if (origin_matches(guard->allowed_origins[i], origin))
                return true;
        return false;
    }
    const char *rest = NULL;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (rest == NULL)
        return false;
    size_t n = host_part(rest);
    return n > 0 && port_ok(rest + n) && loopback_host(rest, n);
}
