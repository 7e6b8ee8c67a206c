/*
 * netguard.c — the SSRF address guard (see netguard.h).
 */
#include "core/netguard.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static bool v4_internal(const unsigned char *a)
{
    return a[0] == 0 || a[0] == 10 || a[0] == 127 || (a[0] == 169 && a[1] == 254) ||
           (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
           (a[0] == 100 && (a[1] & 0xc0) == 64) || a[0] >= 224;
}

static bool v6_internal(const unsigned char *a)
{
    static const unsigned char zero[12] = { 0 };
    static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };
    /* ::/96 holds ::, ::1 and the deprecated IPv4-compatible form: none is a public peer */
    if (memcmp(a, zero, sizeof zero) == 0)
        return true;
    if (memcmp(a, mapped, sizeof mapped) == 0 || memcmp(a, nat64, sizeof nat64) == 0)
        return v4_internal(a + 12);
    if (a[0] == 0x20 && a[1] == 0x02) /* 6to4: the IPv4 address is bytes 2..5 */
        return v4_internal(a + 2);
    return (a[0] & 0xfe) == 0xfc /* fc00::/7 */ ||
           (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) /* fe80::/10 */ || a[0] == 0xff;
}

bool sluice_netguard_sockaddr_internal(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return v4_internal(
            (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr);
    if (sa->sa_family == AF_INET6)
        return v6_internal(((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr);
    return true;
}

bool sluice_netguard_address_internal(const char *addr)
{
    unsigned char a[16];
    if (inet_pton(AF_INET, addr, a) == 1)
        return v4_internal(a);
    if (inet_pton(AF_INET6, addr, a) == 1)
        return v6_internal(a);
    return true;
}

bool sluice_netguard_url_names_internal(const char *url)
{
    CURLU *u = curl_url();
    char *host = NULL;
    bool r = false;
    if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        size_t n = strlen(host);
        unsigned char tmp[16];
        if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
            host[n - 1] = '\0';
            r = sluice_netguard_address_internal(host + 1);
        } else {
            r = strcasecmp(host, "localhost") == 0 ||
                (inet_pton(AF_INET, host, tmp) == 1 && sluice_netguard_address_internal(host));
        }
    }
    curl_free(host);
    curl_url_cleanup(u);
    return r;
}

sluice_netguard_conn sluice_netguard_conn_for(const char *configured_url)
{
    sluice_netguard_conn g = { .allow_internal =
                                   sluice_netguard_url_names_internal(configured_url) };
    return g;
}

/* Called by libcurl with the address it is about to connect to. */
static curl_socket_t open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *addr)
{
    sluice_netguard_conn *g = user;
    (void)purpose;
    if (!g->allow_internal && sluice_netguard_sockaddr_internal(&addr->addr)) {
        g->refused = true;
        return CURL_SOCKET_BAD;
    }
    return socket(addr->family, addr->socktype, addr->protocol);
}

void sluice_netguard_conn_install(void *curl_easy, sluice_netguard_conn *g)
{
    curl_easy_setopt(curl_easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(curl_easy, CURLOPT_OPENSOCKETDATA, g);
    curl_easy_setopt(curl_easy, CURLOPT_NOPROXY, "*");
}
