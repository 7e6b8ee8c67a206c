/*
 * test_mcp_client.c — the plans' MCP client against a real downstream server (the official SDK,
 * tests/jsmcp/mcp_downstream.mjs over stdio): tools listed at start-up with their actions from
 * annotations or config, calls answered, and each way a downstream fails (an error, a hang, an
 * exit mid-call, an answer over the byte cap, a server that cannot start or is no MCP server)
 * giving a clear error that names the server, the tool and the setting; after a hang or an exit
 * the next call starts the server again.
 */
#include "exec/mcp_client.h"
#include "unit.h"

#include <string.h>

static const char *downstream[] = { "node", SLUICE_SOURCE_DIR "/tests/jsmcp/mcp_downstream.mjs" };
static const char *star[] = { "*" };
static const char *list_budgets[] = { "list_budgets" };

static sluice_config_mcp_server server_cfg(void)
{
    sluice_config_mcp_server s = {
        .name = "budgets",
        .command = { downstream, 2 },
        .allowed_tools = { star, 1 },
        .timeout_seconds = 1,
        .startup_timeout_seconds = 20,
        .max_response_bytes = 1024 * 1024,
    };
    return s;
}

static void test_tools_listed_with_actions(void **state)
{
    (void)state;
    sluice_config_mcp_server cfg = server_cfg();
    const char *allowed[] = { "get_owner" };
    cfg.allowed_tools = (sluice_strlist){ allowed, 1 };
    cfg.write_tools = (sluice_strlist){ list_budgets, 1 }; /* config overrides readOnlyHint */
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_mcp_client *c = NULL;
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_OK);
    assert_true(sluice_mcp_client_tool_count(c) >= 10);
    const sluice_mcp_tool *t = sluice_mcp_client_find(c, "get_owner");
    assert_non_null(t);
    assert_int_equal(t->action, SLUICE_MCP_TOOL_READ);
    assert_string_equal(t->action_from, "readOnlyHint");
    assert_true(t->allowed);
    t = sluice_mcp_client_find(c, "set_note");
    assert_int_equal(t->action, SLUICE_MCP_TOOL_WRITE);
    assert_string_equal(t->action_from, "no read-only annotation");
    assert_false(t->allowed);
    t = sluice_mcp_client_find(c, "delete_budget");
    assert_int_equal(t->action, SLUICE_MCP_TOOL_DELETE);
    assert_string_equal(t->action_from, "destructiveHint");
    t = sluice_mcp_client_find(c, "list_budgets");
    assert_int_equal(t->action, SLUICE_MCP_TOOL_WRITE);
    assert_string_equal(t->action_from, "write_tools");
    assert_null(sluice_mcp_client_find(c, "no_such_tool"));
    const json_t *props =
        json_object_get(sluice_mcp_client_find(c, "get_owner")->input_schema, "properties");
    assert_string_equal(json_string_value(json_object_get(json_object_get(props, "id"), "type")),
                        "string");
    sluice_mcp_client_close(c);
    sluice_arena_free(a);
}

static void test_calls_and_failures(void **state)
{
    (void)state;
    sluice_config_mcp_server cfg = server_cfg();
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_mcp_client *c = NULL;
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_OK);
    assert_int_equal(sluice_mcp_client_starts(c), 1);

    json_t *args = json_pack("{s:s}", "id", "u2");
    json_t *meta = json_pack("{s:s}", "idempotencyKey", "k-1");
    json_t *res = NULL;
    assert_int_equal(sluice_mcp_client_call(c, "get_owner", args, NULL, NULL, a, &res, &err),
                     SLUICE_OK);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(res, "structuredContent"), "name")),
        "Bo");
    json_decref(res);
    json_t *note = json_pack("{s:s, s:s}", "id", "b1", "note", "n");
    assert_int_equal(sluice_mcp_client_call(c, "set_note", note, meta, NULL, a, &res, &err),
                     SLUICE_OK);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(res, "structuredContent"), "key")),
        "k-1");
    json_decref(res);

    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_call(c, "boom", NULL, NULL, NULL, a, &res, &err),
                     SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, "mcp server 'budgets': tool 'boom' failed: the vendor "
                                        "API is down"));
    assert_null(res);
    /* with fields blocked, an error text quoting a record keeps only what cannot be data: the
     * vocabulary, the server's, tools' and arguments' names; a value glued to a hidden word
     * loses its short numbers too ("kqvwx-41" is one value), and so does a short number beside
     * one ("12" after it may be the next piece of the same value) */
    sluice_mcp_client_filter_failures(c, true);
    json_t *who = json_pack("{s:s}", "id", "kqvwx-41 12");
    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_call(c, "get_owner", who, NULL, NULL, a, &res, &err),
                     SLUICE_E_ENGINE);
    assert_string_equal(err.message, "mcp server 'budgets': tool 'get_owner' failed: no "
                                     "\xe2\x80\xa6 \xe2\x80\xa6-\xe2\x80\xa6 \xe2\x80\xa6");
    json_decref(who);
    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_call(c, "boom", NULL, NULL, NULL, a, &res, &err),
                     SLUICE_E_ENGINE);
    assert_non_null(strstr(err.message, "failed: the \xe2\x80\xa6 API is down"));
    sluice_mcp_client_filter_failures(c, false);

    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_call(c, "hang", NULL, NULL, NULL, a, &res, &err),
                     SLUICE_E_TIMEOUT);
    assert_non_null(strstr(err.message, "tools/call 'hang'"));
    assert_non_null(strstr(err.message, "timeout_seconds"));
    /* started again for the next call */
    assert_int_equal(sluice_mcp_client_call(c, "get_owner", args, NULL, NULL, a, &res, &err),
                     SLUICE_OK);
    json_decref(res);
    assert_int_equal(sluice_mcp_client_starts(c), 2);

    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_call(c, "die", NULL, NULL, NULL, a, &res, &err),
                     SLUICE_E_IO);
    assert_non_null(strstr(err.message, "mcp server 'budgets' exited"));
    assert_int_equal(sluice_mcp_client_call(c, "get_owner", args, NULL, NULL, a, &res, &err),
                     SLUICE_OK);
    json_decref(res);
    assert_int_equal(sluice_mcp_client_starts(c), 3);

    json_decref(args);
    json_decref(note);
    json_decref(meta);
    sluice_mcp_client_close(c);
    sluice_arena_free(a);
}

/* The byte cap, with a generous call deadline: the 1 s of server_cfg() is for the hang case, and
 * a loaded machine can take longer than that to produce an answer over the cap. */
static void test_answer_over_the_byte_cap(void **state)
{
    (void)state;
    sluice_config_mcp_server cfg = server_cfg();
    cfg.timeout_seconds = 30;
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_mcp_client *c = NULL;
    json_t *res = NULL;
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_OK);
    assert_int_equal(sluice_mcp_client_call(c, "huge", NULL, NULL, NULL, a, &res, &err),
                     SLUICE_E_LIMIT);
    assert_null(res);
    assert_non_null(strstr(err.message, "max_response_bytes"));
    sluice_mcp_client_close(c);
    sluice_arena_free(a);
}

static void test_servers_that_do_not_start(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_mcp_client *c = NULL;
    sluice_config_mcp_server cfg = server_cfg();
    const char *missing[] = { "/nonexistent/mcp-server" };
    cfg.command = (sluice_strlist){ missing, 1 };
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "mcp server 'budgets'"));
    assert_null(c);

    /* exits at once: no answer to initialize */
    const char *quits[] = { "sh", "-c", "exit 0" };
    cfg.command = (sluice_strlist){ quits, 3 };
    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "during initialize"));

    /* answers with something that is no JSON-RPC response: the start-up deadline ends it */
    const char *noise[] = { "sh", "-c", "while read l; do echo '{\"not\":\"mcp\"}'; done" };
    cfg.command = (sluice_strlist){ noise, 3 };
    cfg.startup_timeout_seconds = 1;
    sluice_error_clear(&err);
    assert_int_equal(sluice_mcp_client_open(&cfg, &c, a, &err), SLUICE_E_IO);
    assert_non_null(strstr(err.message, "startup_timeout_seconds = 1"));
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tools_listed_with_actions),
        cmocka_unit_test(test_calls_and_failures),
        cmocka_unit_test(test_answer_over_the_byte_cap),
        cmocka_unit_test(test_servers_that_do_not_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
