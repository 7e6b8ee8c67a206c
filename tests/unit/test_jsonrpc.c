/*
 * test_jsonrpc.c — JSON-RPC frame parsing limits, strict classification and builders.
 */
#include "core/limits.h"
#include "mcp/jsonrpc.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses text and classifies it; the caller decrefs *out_value. */
static sluice_jsonrpc_frame classify(const char *text, json_t **out_value)
{
    char message[256];
    json_t *value = NULL;
    assert_int_equal(sluice_jsonrpc_parse(text, strlen(text), 0, &value, message, sizeof message),
                     SLUICE_OK);
    sluice_jsonrpc_frame frame;
    sluice_jsonrpc_classify(value, &frame);
    *out_value = value;
    return frame;
}

static void expect_invalid(const char *text, int code, const char *message)
{
    json_t *v;
    sluice_jsonrpc_frame f = classify(text, &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_INVALID);
    assert_int_equal(f.error_code, code);
    assert_string_equal(f.message, message);
    json_decref(v);
}

static void test_jsonrpc_classifies_request_notification_response(void **state)
{
    (void)state;
    json_t *v;
    sluice_jsonrpc_frame f = classify("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_REQUEST);
    assert_string_equal(f.method, "ping");
    assert_int_equal(json_integer_value(f.id), 7);
    assert_null(f.params);
    json_decref(v);
    f = classify("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":{}}",
                 &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_NOTIFICATION);
    assert_null(f.id);
    assert_non_null(f.params);
    json_decref(v);
    f = classify("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}", &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_RESPONSE);
    assert_string_equal(json_string_value(f.id), "s1");
    json_decref(v);
    f = classify("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"error\":{\"code\":-1,\"message\":\"no\"}}",
                 &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_RESPONSE);
    assert_non_null(f.error);
    json_decref(v);
}

static void test_jsonrpc_rejects_null_id(void **state)
{
    (void)state;
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                   SLUICE_JSONRPC_INVALID_REQUEST, "'id' must be a string or an integer, got null");
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
                   SLUICE_JSONRPC_INVALID_REQUEST,
                   "'id' must be a string or an integer, got number");
}

static void test_jsonrpc_rejects_bad_envelopes(void **state)
{
    (void)state;
    expect_invalid("{\"id\":1,\"method\":\"ping\"}", SLUICE_JSONRPC_INVALID_REQUEST,
                   "'jsonrpc' must be the string \"2.0\"");
    expect_invalid("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
                   SLUICE_JSONRPC_INVALID_REQUEST, "'jsonrpc' must be the string \"2.0\"");
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", SLUICE_JSONRPC_INVALID_REQUEST,
                   "'method' must be a non-empty string, got number");
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}",
                   SLUICE_JSONRPC_INVALID_PARAMS, "'params' must be an object, got array");
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,"
                   "\"message\":\"m\"}}",
                   SLUICE_JSONRPC_INVALID_REQUEST,
                   "a response must carry exactly one of 'result' and 'error', not both");
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1}", SLUICE_JSONRPC_INVALID_REQUEST,
                   "a message needs 'method' (request or notification) or 'result'/'error' "
                   "(response)");
    expect_invalid("\"hello\"", SLUICE_JSONRPC_INVALID_REQUEST,
                   "a JSON-RPC message must be an object, got string");
}

static void test_jsonrpc_keeps_id_of_invalid_request(void **state)
{
    (void)state;
    json_t *v;
    sluice_jsonrpc_frame f = classify("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\"}", &v);
    assert_int_equal(f.kind, SLUICE_JSONRPC_INVALID);
    assert_int_equal(json_integer_value(f.id), 9);
    json_decref(v);
}

static void test_jsonrpc_refuses_batches(void **state)
{
    (void)state;
    expect_invalid("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                   SLUICE_JSONRPC_INVALID_REQUEST,
                   "batch arrays are not supported (JSON-RPC batching was removed in MCP "
                   "2025-06-18): send one message per frame");
}

/* Issue 8 section 4: a \u0000 inside a string is valid JSON; it must parse (so the reply keeps
 * the request's id) and keep every byte after the NUL. */
static void test_jsonrpc_parse_keeps_nul_in_strings(void **state)
{
    (void)state;
    char message[256];
    json_t *v = NULL;
    const char *text = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                       "{\"arguments\":{\"code\":\"SELECT 1\\u0000; DROP TABLE t\"}}}";
    assert_int_equal(sluice_jsonrpc_parse(text, strlen(text), 0, &v, message, sizeof message),
                     SLUICE_OK);
    sluice_jsonrpc_frame f;
    sluice_jsonrpc_classify(v, &f);
    assert_int_equal(f.kind, SLUICE_JSONRPC_REQUEST);
    assert_int_equal(json_integer_value(f.id), 7);
    const json_t *code =
        json_object_get(json_object_get(json_object_get(v, "params"), "arguments"), "code");
    assert_int_equal(json_string_length(code), 23);
    assert_memory_equal(json_string_value(code), "SELECT 1\0; DROP TABLE t", 23);
    json_decref(v);
}

static void test_jsonrpc_parse_reports_syntax_error_place(void **state)
{
    (void)state;
    char message[256];
    json_t *v = NULL;
    const char *text = "{\"jsonrpc\":\"2.0\",\n \"id\": }";
    assert_int_equal(sluice_jsonrpc_parse(text, strlen(text), 0, &v, message, sizeof message),
                     SLUICE_E_INVALID);
    assert_null(v);
    assert_non_null(strstr(message, "invalid JSON at line 2, column"));
}

static void test_jsonrpc_parse_rejects_duplicate_keys(void **state)
{
    (void)state;
    char message[256];
    json_t *v = NULL;
    const char *text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}";
    assert_int_equal(sluice_jsonrpc_parse(text, strlen(text), 0, &v, message, sizeof message),
                     SLUICE_E_INVALID);
    assert_non_null(strstr(message, "duplicate object key"));
}

static void test_jsonrpc_parse_enforces_size_before_parsing(void **state)
{
    (void)state;
    char message[256];
    json_t *v = NULL;
    const char *text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    assert_int_equal(sluice_jsonrpc_parse(text, strlen(text), 10, &v, message, sizeof message),
                     SLUICE_E_LIMIT);
    assert_string_equal(message, "message too large: 40 bytes (limit is 10)");
}

static void test_jsonrpc_parse_enforces_depth(void **state)
{
    (void)state;
    size_t n = SLUICE_LIMIT_NESTING_DEPTH + 1;
    char *text = malloc(2 * n + 1);
    memset(text, '[', n);
    memset(text + n, ']', n);
    text[2 * n] = '\0';
    char message[256];
    json_t *v = NULL;
    assert_int_equal(sluice_jsonrpc_parse(text, 2 * n, 0, &v, message, sizeof message),
                     SLUICE_E_LIMIT);
    assert_non_null(strstr(message, "nested too deeply"));
    /* Brackets inside strings do not count. */
    const char *quoted =
        "{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
        "[[[[[[[[[\\\"\"}";
    assert_int_equal(sluice_jsonrpc_parse(quoted, strlen(quoted), 0, &v, message, sizeof message),
                     SLUICE_OK);
    json_decref(v);
    free(text);
}

static void test_jsonrpc_builders_and_compact_dump(void **state)
{
    (void)state;
    json_t *id = json_integer(3);
    json_t *msg = sluice_jsonrpc_result(id, json_pack("{s:s}", "text", "a\nb"));
    size_t len = 0;
    char *text = sluice_jsonrpc_dump(msg, &len);
    assert_string_equal(text, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"a\\nb\"}}");
    assert_int_equal(len, strlen(text));
    assert_null(strchr(text, '\n'));
    free(text);
    json_decref(msg);
    msg = sluice_jsonrpc_error(NULL, SLUICE_JSONRPC_PARSE_ERROR, "bad", NULL);
    text = sluice_jsonrpc_dump(msg, NULL);
    assert_string_equal(text,
                        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":"
                        "\"bad\"}}");
    free(text);
    json_decref(msg);
    json_decref(id);
}

/* Recovers from len bytes (text may hold NULs); returns the id rendered as JSON, or "none". */
static const char *recovered(const char *text, size_t len)
{
    static char out[256];
    json_t *id = sluice_jsonrpc_recover_id(text, len);
    if (id == NULL)
        return "none";
    char *dump = json_dumps(id, JSON_ENCODE_ANY);
    snprintf(out, sizeof out, "%s", dump);
    free(dump);
    json_decref(id);
    return out;
}

#define RECOVER(lit) recovered(lit, sizeof(lit) - 1)

/* Broken frames whose id can be read: the reply carries it, and the text really is broken. */
static void test_jsonrpc_recover_id_from_broken_frames(void **state)
{
    (void)state;
    static const char nul_after[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\"\0}";
    char message[128];
    json_t *v = NULL;
    assert_int_equal(
        sluice_jsonrpc_parse(nul_after, sizeof nul_after - 1, 0, &v, message, sizeof message),
        SLUICE_E_INVALID);
    assert_string_equal(RECOVER(nul_after), "7");
    assert_string_equal(RECOVER("{\"id\": \"req-1\", \"method\": \"tools/call\", \"params\": {"),
                        "\"req-1\"");
    assert_string_equal(RECOVER(" {\n\"jsonrpc\":\"2.0\",\"id\":-42,\"method\":tools}"), "-42");
    assert_string_equal(RECOVER("{\"id\":0}garbage"), "0");
    assert_string_equal(RECOVER("{\"id\":123456789012345678,\"method\":"), "123456789012345678");
    /* ids inside strings, nested objects and arrays are not the id; the real one is found */
    assert_string_equal(
        RECOVER("{\"params\":{\"id\":1,\"a\":[{\"id\":2}]},\"note\":\"\\\"id\\\":3\",\"id\":4,"),
        "4");
    /* a string ending in an escaped backslash: its next quote really ends it */
    assert_string_equal(RECOVER("{\"path\":\"c:\\\\\",\"id\":5,\"m\":\0}"), "5");
}

/* Hostile or ambiguous: no id is better than a wrong one. */
static void test_jsonrpc_recover_id_refuses_to_guess(void **state)
{
    (void)state;
    assert_string_equal(RECOVER("{\"id\":1,\"id\":2,\0"), "none");        /* repeated */
    assert_string_equal(RECOVER("{\"\\u0069d\":1,\0"), "none");           /* escaped key */
    assert_string_equal(RECOVER("{\"id\":12"), "none");                   /* cut off */
    assert_string_equal(RECOVER("{\"id\":\"abc"), "none");                /* cut off */
    assert_string_equal(RECOVER("{\"id\":12 34}"), "none");               /* junk after */
    assert_string_equal(RECOVER("{\"id\":1234567890123456789}"), "none"); /* 19 digits */
    assert_string_equal(RECOVER("{\"id\":99999999999999999999999999999}"), "none");
    assert_string_equal(RECOVER("{\"id\":1.5}"), "none");
    assert_string_equal(RECOVER("{\"id\":1e3}"), "none");
    assert_string_equal(RECOVER("{\"id\":007}"), "none");
    assert_string_equal(RECOVER("{\"id\":null}"), "none");
    assert_string_equal(RECOVER("{\"id\":true}"), "none");
    assert_string_equal(RECOVER("{\"id\":{\"id\":1}}"), "none");
    assert_string_equal(RECOVER("{\"id\":[1]}"), "none");
    assert_string_equal(RECOVER("{\"id\":\"a\\\"b\"}"), "none");               /* escapes */
    assert_string_equal(RECOVER("{\"id\":\"a\0b\"}"), "none");                 /* control byte */
    assert_string_equal(RECOVER("{\"id\":\"\xff\xfe\"}"), "none");             /* not UTF-8 */
    assert_string_equal(RECOVER("{\"a\":1,\0\"id\":3}"), "none");              /* after the break */
    assert_string_equal(RECOVER("{\"a\":\"unterminated, \"id\": 3}"), "none"); /* in a string */
    assert_string_equal(RECOVER("[{\"id\":1}]"), "none");
    assert_string_equal(RECOVER("\"id\":1"), "none");
    assert_string_equal(RECOVER(""), "none");
    assert_string_equal(RECOVER("{"), "none");
    assert_string_equal(RECOVER("{\"id\""), "none");
    assert_string_equal(RECOVER("{\"id\\"), "none");
    assert_null(sluice_jsonrpc_recover_id(NULL, 0));
    char long_id[SLUICE_LIMIT_RECOVERED_ID_BYTES + 16];
    memset(long_id, 'a', sizeof long_id);
    memcpy(long_id, "{\"id\":\"", 7);
    memcpy(long_id + sizeof long_id - 2, "\"}", 2);
    assert_string_equal(recovered(long_id, sizeof long_id), "none");
    /* deep nesting before the id: bounded, never a stack overflow, and the id after it is lost */
    size_t n = 100000;
    char *deep = malloc(n + 16);
    assert_non_null(deep);
    memcpy(deep, "{\"a\":", 5);
    memset(deep + 5, '[', n);
    memcpy(deep + 5 + n, ",\"id\":1}", 8);
    assert_string_equal(recovered(deep, n + 13), "none");
    free(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jsonrpc_classifies_request_notification_response),
        cmocka_unit_test(test_jsonrpc_rejects_null_id),
        cmocka_unit_test(test_jsonrpc_rejects_bad_envelopes),
        cmocka_unit_test(test_jsonrpc_keeps_id_of_invalid_request),
        cmocka_unit_test(test_jsonrpc_refuses_batches),
        cmocka_unit_test(test_jsonrpc_parse_keeps_nul_in_strings),
        cmocka_unit_test(test_jsonrpc_parse_reports_syntax_error_place),
        cmocka_unit_test(test_jsonrpc_parse_rejects_duplicate_keys),
        cmocka_unit_test(test_jsonrpc_parse_enforces_size_before_parsing),
        cmocka_unit_test(test_jsonrpc_parse_enforces_depth),
        cmocka_unit_test(test_jsonrpc_builders_and_compact_dump),
        cmocka_unit_test(test_jsonrpc_recover_id_from_broken_frames),
        cmocka_unit_test(test_jsonrpc_recover_id_refuses_to_guess),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
