/*
 * netguard.h — the one SSRF address guard: is this address inside the network we run in?
 *
 * Owns: the list of address ranges an upstream that names a public host must never reach —
 * loopback, unspecified, RFC 1918 private, link-local (the cloud metadata address among them),
 * CGNAT, multicast and reserved IPv4; ::, ::1, IPv4-compatible, unique-local, link-local and
 * multicast IPv6; and IPv6 forms that carry an IPv4 address (mapped ::ffff:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16), judged by the address they carry. Every HTTP client of an
 * upstream (OpenAPI, query-mode sources) checks the address libcurl is about to connect to here,
 * so a DNS answer cannot smuggle an internal target past a check of the name.
 * Does not own: name resolution, the connect callback (each client keeps its own few lines,
 * since they record the refusal in their own state), or the choice to allow internal targets
 * (a base URL that itself names one).
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

#endif
