/*
 * netguard.h — the one SSRF address guard: is this address inside the network we run in?
 *
 * Owns: the list of address ranges an upstream that names a public host must never reach —
 * loopback, unspecified, RFC 1918 private, link-local (the cloud metadata address among them),
 * CGNAT, multicast and reserved IPv4; ::, ::1, IPv4-compatible, unique-local, link-local and
 * multicast IPv6; and IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16), judged by the address they carry. Every HTTP client of an
 * upstream (GraphQL, OpenAPI, MCP over HTTP, query-mode sources) checks the address libcurl is
 * about to connect to here, so a DNS answer cannot smuggle an internal target past a check of
 * the name.
 * It also owns the one libcurl connect callback all of them install (sluice_netguard_conn) and
 * the rule that a configured URL which itself names an internal host may reach internal
 * addresses. Does not own: name resolution, or the error text (each client names its setting).
 */
#ifndef SLUICE_CORE_NETGUARD_H
#define SLUICE_CORE_NETGUARD_H

#include <stdbool.h>
#include <sys/socket.h>

/* True when a connection to sa would reach an internal address (the ranges above). Any family
 * other than AF_INET and AF_INET6 is internal: fail closed. */
bool sluice_netguard_sockaddr_internal(const struct sockaddr *sa);

/* The same for an address in text (dotted IPv4 or IPv6, without brackets). Text that is not an
 * address at all is internal: fail closed. */
bool sluice_netguard_address_internal(const char *addr);

/* True when the host part of url ("scheme://[userinfo@]host[:port]/...") is "localhost" or a
 * literal internal address, bracketed IPv6 included: such a configured upstream is allowed to be
 * internal. A name, or a URL that cannot be parsed, is not (its addresses are checked at connect
 * time instead). */
bool sluice_netguard_url_names_internal(const char *url);

/* The guard at connect time of one libcurl client of a configured upstream. */
typedef struct sluice_netguard_conn {
    bool allow_internal; /* the configured URL names an internal host itself */
    bool refused;        /* set when the guard refused a connection of this transfer */
} sluice_netguard_conn;

/* The guard for transfers to configured_url (allow_internal from the URL's host). */
sluice_netguard_conn sluice_netguard_conn_for(const char *configured_url);

/* Installs g on a libcurl easy handle (a CURL *): libcurl then asks g about every address it is
 * about to connect to, after DNS. g must outlive the transfer. Also turns off the environment's
 * proxy: through a proxy the address checked would be the proxy's, not the upstream's. */
void sluice_netguard_conn_install(void *curl_easy, sluice_netguard_conn *g);

#endif
