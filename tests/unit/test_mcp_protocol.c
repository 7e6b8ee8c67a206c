/*
 * test_mcp_protocol.c — the one protocol revision table: lookup, the counter-offer, and the
 * rendered list used in HTTP error messages naming exactly the table's entries.
 */
#include "mcp/protocol.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static void test_lookup_returns_the_table_string(void **state)
{
    (void)state;
    assert_true(sluice_mcp_protocol_count >= 3);
    assert_string_equal(sluice_mcp_protocols[0], SLUICE_MCP_LATEST_PROTOCOL);
    for (size_t i = 0; i < sluice_mcp_protocol_count; i++) {
        char copy[32];
        snprintf(copy, sizeof copy, "%s", sluice_mcp_protocols[i]);
        assert_ptr_equal(sluice_mcp_protocol_find(copy), sluice_mcp_protocols[i]);
    }
    assert_null(sluice_mcp_protocol_find("2024-11-05"));
    assert_null(sluice_mcp_protocol_find("2025-11-25 "));
    assert_null(sluice_mcp_protocol_find(""));
    assert_null(sluice_mcp_protocol_find(NULL));
}

static void test_list_names_exactly_the_table(void **state)
{
    (void)state;
    char want[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < sluice_mcp_protocol_count; i++)
        at += (size_t)snprintf(want + at, sizeof want - at, "%s%s", i > 0 ? ", " : "",
                               sluice_mcp_protocols[i]);
    assert_string_equal(sluice_mcp_protocol_list(), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_returns_the_table_string),
        cmocka_unit_test(test_list_names_exactly_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
