/*
 * test_netguard_conn.c — the SSRF guard at connect time (core/netguard.c, sluice_netguard_conn) in
 * the GraphQL backend and the MCP client over HTTP, as in OpenAPI and query mode: an upstream
 * configured by a name that resolves to an internal address (rebound.localhost: libcurl answers
 * *.localhost with loopback, without DNS) is refused before any byte is sent, with an error that
 * says so; the same upstream configured by an internal address itself (127.0.0.1, localhost) is
 * allowed, so the failure is the ordinary "could not be reached" (nothing listens on port 9). No
 * network.
 */
#include "core/netguard.h"
#include "exec/engines.h"
#include "exec/executor.h"
#include "exec/mcp_client.h"
#include "unit.h"

#include <curl/curl.h>
#include <string.h>

/* Opens a GraphQL backend without a schema file: the open introspects, so it connects. */
static sluice_status open_graphql(const char *endpoint, sluice_arena *a, sluice_error *err)
{
    sluice_config_database db = { .engine = SLUICE_ENGINE_GRAPHQL, .endpoint = endpoint };
    sluice_config_code_mode cm = { 0 };
    sluice_executor *ex = NULL;
    sluice_status st = sluice_executor_open(&db, &cm, &ex, a, err);
    sluice_executor_close(ex);
    return st;
}

static void test_graphql_endpoint_resolving_inside_is_refused(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    assert_int_equal(open_graphql("http://rebound.localhost:9/graphql", a, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "resolved to an internal address"));
    assert_non_null(strstr(err.message, "[database] endpoint"));
    assert_non_null(strstr(err.message, "SSRF guard"));

    /* configured as internal: allowed, so the failure is that nothing listens */
    const char *allowed[] = { "http://127.0.0.1:9/graphql", "http://localhost:9/graphql" };
    for (size_t i = 0; i < 2; i++) {
        sluice_error_clear(&err);
        assert_int_equal(open_graphql(allowed[i], a, &err), SLUICE_E_ENGINE);
        assert_non_null(strstr(err.message, "could not be reached"));
        assert_null(strstr(err.message, "SSRF"));
    }
    sluice_arena_free(a);
}

static sluice_status open_mcp(const char *url, sluice_arena *a, sluice_error *err)
{
    static const char *star[] = { "*" };
    sluice_config_mcp_server cfg = {
        .name = "down",
        .url = url,
        .allowed_tools = { star, 1 },
        .timeout_seconds = 2,
        .startup_timeout_seconds = 2,
        .max_response_bytes = 1024 * 1024,
    };
    sluice_mcp_client *c = NULL;
    sluice_status st = sluice_mcp_client_open(&cfg, &c, a, err);
    sluice_mcp_client_close(c);
    return st;
}

static void test_mcp_url_resolving_inside_is_refused(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    assert_int_equal(open_mcp("http://rebound.localhost:9/mcp", a, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "mcp server 'down'"));
    assert_non_null(strstr(err.message, "resolved to an internal address"));
    assert_non_null(strstr(err.message, "SSRF guard"));

    sluice_error_clear(&err);
    assert_int_equal(open_mcp("http://127.0.0.1:9/mcp", a, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "could not be reached"));
    assert_null(strstr(err.message, "SSRF"));
    sluice_arena_free(a);
}

/* The guard itself, on a bare handle: refused records the refusal; a URL naming an internal
 * address (or localhost) sets allow_internal, a public name does not. */
static void test_guard_on_a_handle(void **state)
{
    (void)state;
    assert_false(sluice_netguard_conn_for("https://api.example.com/v1").allow_internal);
    assert_false(sluice_netguard_conn_for("http://rebound.localhost:9/").allow_internal);
    assert_true(sluice_netguard_conn_for("http://127.0.0.1:9/").allow_internal);
    assert_true(sluice_netguard_conn_for("http://[::1]:9/").allow_internal);
    assert_true(sluice_netguard_conn_for("http://localhost:9/").allow_internal);

    CURL *c = curl_easy_init();
    assert_non_null(c);
    sluice_netguard_conn g = sluice_netguard_conn_for("http://rebound.localhost:9/");
    curl_easy_setopt(c, CURLOPT_URL, "http://rebound.localhost:9/");
    sluice_netguard_conn_install(c, &g);
    assert_int_not_equal(curl_easy_perform(c), CURLE_OK);
    assert_true(g.refused);

    g = sluice_netguard_conn_for("http://127.0.0.1:9/");
    curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:9/");
    sluice_netguard_conn_install(c, &g);
    assert_int_not_equal(curl_easy_perform(c), CURLE_OK); /* nothing listens */
    assert_false(g.refused);
    curl_easy_cleanup(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graphql_endpoint_resolving_inside_is_refused),
        cmocka_unit_test(test_mcp_url_resolving_inside_is_refused),
        cmocka_unit_test(test_guard_on_a_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
