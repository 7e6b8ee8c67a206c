/*
 * test_netguard.c — the one SSRF address guard (core/netguard.h): every internal range refused in
 * text and socket form, the IPv6 forms that carry an IPv4 address judged by it, and a base URL
 * allowed to be internal only when it literally names such a host.
 */
#include "core/netguard.h"
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static const char *const internal[] = { "127.0.0.1",
                                        "10.1.2.3",
                                        "172.16.0.1",
                                        "172.31.255.255",
                                        "192.168.1.1",
                                        "169.254.169.254",
                                        "0.0.0.0",
                                        "100.64.0.1",
                                        "224.0.0.1",
                                        "255.255.255.255",
                                        "::1",
                                        "::",
                                        "::2",
                                        "::127.0.0.1",
                                        "fe80::1",
                                        "fd00::1",
                                        "fc00::1",
                                        "ff02::1",
                                        "::ffff:127.0.0.1",
                                        "::ffff:169.254.169.254",
                                        "64:ff9b::a9fe:a9fe" /* NAT64 of 169.254.169.254 */,
                                        "64:ff9b::7f00:1",
                                        "2002:a9fe:a9fe::1" /* 6to4 of 169.254.169.254 */,
                                        "2002:c0a8:0101::",
                                        "not-an-address",
                                        "",
                                        "localhost" };
static const char *const external[] = { "93.184.216.34",   "172.32.0.1",     "8.8.8.8",
                                        "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808",
                                        "2002:808:808::1", "100.128.0.1" };

static void test_netguard_address_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
        if (!sluice_netguard_address_internal(internal[i]))
            fail_msg("%s passed as external", internal[i]);
    for (size_t i = 0; i < sizeof external / sizeof external[0]; i++)
        if (sluice_netguard_address_internal(external[i]))
            fail_msg("%s taken for internal", external[i]);
}

/* The connect-time form agrees with the text form for every address that is one. */
static void test_netguard_sockaddr_agrees_with_text(void **state)
{
    (void)state;
    const char *const *lists[] = { internal, external };
    size_t counts[] = { sizeof internal / sizeof internal[0],
                        sizeof external / sizeof external[0] };
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            struct sockaddr_in v4 = { .sin_family = AF_INET };
            struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
            const struct sockaddr *sa = NULL;
            if (inet_pton(AF_INET, lists[l][i], &v4.sin_addr) == 1)
                sa = (const struct sockaddr *)&v4;
            else if (inet_pton(AF_INET6, lists[l][i], &v6.sin6_addr) == 1)
                sa = (const struct sockaddr *)&v6;
            if (sa != NULL && sluice_netguard_sockaddr_internal(sa) != (l == 0))
                fail_msg("%s: the socket and text forms disagree", lists[l][i]);
        }
    struct sockaddr unix_family = { .sa_family = AF_UNIX };
    assert_true(sluice_netguard_sockaddr_internal(&unix_family)); /* fail closed */
}

static void test_netguard_url_names_internal(void **state)
{
    (void)state;
    static const char *const yes[] = { "http://127.0.0.1:8080/api", "https://localhost/",
                                       "http://LOCALHOST:1",        "http://[::1]:9/x",
                                       "http://user@10.0.0.1/",     "http://[::ffff:10.0.0.1]/" };
    static const char *const no[] = {
        "https://api.example.com/v1", "http://8.8.8.8/", "http://[2606:4700::1111]/",
        "http://127.0.0.1.nip.io/",   "not a url",       ""
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!sluice_netguard_url_names_internal(yes[i]))
            fail_msg("%s: not taken for an internal base URL", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (sluice_netguard_url_names_internal(no[i]))
            fail_msg("%s: taken for an internal base URL", no[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_netguard_address_text),
        cmocka_unit_test(test_netguard_sockaddr_agrees_with_text),
        cmocka_unit_test(test_netguard_url_names_internal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
