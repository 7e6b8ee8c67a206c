/*
 * fuzz_jsonrpc.c — libFuzzer target for JSON-RPC framing and the MCP core's intake: parse and
 * classify the input as one frame, then feed it to a freshly initialized session (null sink) of
 * a server with a validated tool, a prompt, a resource and a template, and wait for the call it
 * may have started. Seeds: tests/fuzz/corpus/fuzz_jsonrpc/.
 */
#include "mcp/jsonrpc.h"
#include "mcp/server.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void null_send(void *ctx, json_t *msg, const json_t *related)
{
    (void)ctx;
    (void)related;
    json_decref(msg);
}

static sluice_status
echo(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)err;
    (void)ud;
    *out = json_pack("{s:[{s:s, s:O}]}", "content", "type", "text", "text",
                     json_object_get(args, "code"));
    return *out != NULL ? SLUICE_OK : SLUICE_E_INVALID;
}

static sluice_status
prompt(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)args;
    (void)err;
    (void)ud;
    *out = json_pack("{s:[]}", "messages");
    return SLUICE_OK;
}

static sluice_status
resource(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)call;
    (void)err;
    (void)ud;
    *out = json_pack("[{s:s, s:s}]", "uri", uri, "text", "x");
    return SLUICE_OK;
}

static sluice_mcp_server *fixture(void)
{
    static sluice_mcp_server *server;
    if (server != NULL)
        return server;
    sluice_mcp_server_options o = {
        .name = "fuzz", .worker_threads = 2, .page_size = 1, .request_timeout_ms = 10
    };
    if (sluice_mcp_server_new(&o, &server, NULL) != SLUICE_OK)
        return NULL;
    sluice_mcp_tool t = {
        .name = "echo",
        .description = "d",
        .input_schema = json_loads("{\"type\":\"object\",\"properties\":{\"code\":{\"type\":"
                                   "\"string\",\"maxLength\":64},\"n\":{\"anyOf\":[{\"type\":"
                                   "\"integer\"},{\"$ref\":\"#/$defs/s\"}]}},\"required\":["
                                   "\"code\"],\"additionalProperties\":false,\"$defs\":{\"s\":{"
                                   "\"enum\":[\"a\",\"b\"]}}}",
                                   0, NULL),
        .fn = echo,
    };
    sluice_mcp_tool t2 = { .name = "other", .description = "d", .fn = echo };
    sluice_mcp_prompt p = { .name = "p",
                            .arguments =
                                json_loads("[{\"name\":\"a\",\"required\":true}]", 0, NULL),
                            .fn = prompt };
    sluice_mcp_resource r = { .uri = "test://r", .name = "r", .fn = resource };
    sluice_mcp_resource rt = {
        .uri = "test://t/{id}/x", .name = "t", .is_template = true, .fn = resource
    };
    sluice_mcp_server_add_tool(server, &t, NULL);
    sluice_mcp_server_add_tool(server, &t2, NULL);
    sluice_mcp_server_add_prompt(server, &p, NULL);
    sluice_mcp_server_add_resource(server, &r, NULL);
    sluice_mcp_server_add_resource(server, &rt, NULL);
    return server;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char message[256];
    json_t *value = NULL;
    if (sluice_jsonrpc_parse((const char *)data, size, 0, &value, message, sizeof message) ==
        SLUICE_OK) {
        sluice_jsonrpc_frame frame;
        sluice_jsonrpc_classify(value, &frame);
        json_decref(value);
    }
    sluice_mcp_server *server = fixture();
    sluice_mcp_session *session = NULL;
    sluice_mcp_sink sink = { null_send, NULL };
    if (server == NULL || sluice_mcp_session_new(server, NULL, "fuzz", sink, &session) != SLUICE_OK)
        return 0;
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                               "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{"
                               "\"elicitation\":{}}}}";
    sluice_mcp_session_feed(session, init, strlen(init), NULL, NULL);
    sluice_mcp_session_feed(session, (const char *)data, size, NULL, NULL);
    sluice_mcp_session_drain(session);
    sluice_mcp_session_free(session);
    return 0;
}
