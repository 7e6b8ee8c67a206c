/*
 * sluice_conformance.c — the MCP conformance fixture server (test-only; never part of `sluice`).
 *
 * Owns: registering the fixed fixture the official conformance suite (0.1.16) expects —
 * research/mcp-spec.md §4.2 — on the real MCP core, plus what our own end-to-end tests and the
 * round-trip benchmark need: `echo`, `test_slow` (cancellable, reports progress),
 * `test_cancel_stats` (outputSchema + structuredContent) and `--extra-tools N` fillers so tool
 * listings span several pages. Server settings (name, timeouts, the stdio identity) come from a
 * config file (tests/conformance/conformance.toml) when --config is given.
 * For 2026-07-28 (conformance 0.2.x) also the multi round-trip tools (test_input_required_result_*,
 * test_streaming_elicitation, test_missing_capability, test_logging_tool) and the prompt
 * test_input_required_result_prompt, which answer with input_required results.
 * Not registered: test_reconnection (pending scenario server-sse-polling): it must close its own
 * request's SSE stream mid-call, and a handler has no way to reach the transport.
 * Does not own: any protocol behaviour (mcp/server.c) or wire handling (transport/).
 *
 *   sluice_conformance --stdio [--config FILE] [--extra-tools N]
 *   sluice_conformance --http HOST:PORT [--config FILE] [--extra-tools N] [--max-body BYTES]
 * Over HTTP it runs until SIGTERM or SIGINT; --http and --max-body override the config.
 */
#include "config/config.h"
#include "core/arena.h"
#include "core/error.h"
#include "mcp/server.h"
#include "sluice/sluice.h"
#include "transport/http.h"
#include "transport/stdio.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A 2x2 PNG and a 16-byte-sample WAV, generated for this fixture. */
#define FIXTURE_PNG_BASE64                                                              \
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEElEQVR42mNgaGj4D8YwBgBB9Af9OKqF/" \
    "QAAAABJRU5ErkJggg=="
#define FIXTURE_WAV_BASE64 \
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"

/* Filler tools beyond this are refused: the point is a few pages, not a memory test. */
#define FIXTURE_MAX_EXTRA_TOOLS 10000

/* test_slow outcomes, read back by test_cancel_stats (handlers run on worker threads). */
static atomic_long slow_cancelled;
static atomic_long slow_completed;

static void sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static json_t *text_block(const char *text)
{
    return json_pack("{s:s, s:s}", "type", "text", "text", text);
}

/* {content:[blocks...]}; steals the blocks. */
static json_t *result_of(json_t *content)
{
    return json_pack("{s:o}", "content", content);
}

static sluice_status text_result(const char *text, json_t **out)
{
    *out = result_of(json_pack("[o]", text_block(text)));
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* ---- tools of the conformance fixture -------------------------------------------------------- */

static sluice_status
tool_simple_text(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    return text_result("This is a simple text response for testing.", out);
}

static sluice_status
tool_image(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    *out = result_of(json_pack("[{s:s, s:s, s:s}]", "type", "image", "data", FIXTURE_PNG_BASE64,
                               "mimeType", "image/png"));
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
tool_audio(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    *out = result_of(json_pack("[{s:s, s:s, s:s}]", "type", "audio", "data", FIXTURE_WAV_BASE64,
                               "mimeType", "audio/wav"));
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static json_t *embedded_resource(const char *uri, const char *mime, const char *text)
{
    return json_pack("{s:s, s:{s:s, s:s, s:s}}", "type", "resource", "resource", "uri", uri,
                     "mimeType", mime, "text", text);
}

static sluice_status tool_embedded_resource(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    *out = result_of(json_pack("[o]", embedded_resource("test://embedded-resource", "text/plain",
                                                        "This is an embedded resource content.")));
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status tool_multiple_content(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    *out =
        result_of(json_pack("[o, {s:s, s:s, s:s}, o]", text_block("Multiple content types test:"),
                            "type", "image", "data", FIXTURE_PNG_BASE64, "mimeType", "image/png",
                            embedded_resource("test://mixed-content-resource", "application/json",
                                              "{\"test\":\"data\",\"value\":123}")));
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
tool_with_logging(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    static const char *const steps[] = { "Tool execution started", "Tool processing data",
                                         "Tool execution completed" };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (i > 0) {
            sleep_ms(50);
        }
        sluice_mcp_call_log(call, "info", "conformance", json_string(steps[i]));
    }
    return text_result("Tool with logging executed successfully", out);
}

static sluice_status
tool_with_progress(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    for (int step = 0; step <= 100; step += 50) {
        if (step > 0) {
            sleep_ms(50);
        }
        char msg[64];
        snprintf(msg, sizeof msg, "Completed step %d of 100", step);
        sluice_mcp_call_progress(call, step, 100, msg);
    }
    return text_result("Tool with progress executed successfully", out);
}

static sluice_status
tool_error_handling(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    *out =
        json_pack("{s:[o], s:b}", "content",
                  text_block("This tool intentionally returns an error for testing"), "isError", 1);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

/* "<prefix>action=<a>, content=<json>" from an ElicitResult. */
static sluice_status
elicit_result_text(sluice_mcp_call *call, const char *prefix, json_t *res, json_t **out)
{
    char *content = json_dumps(json_object_get(res, "content") ? json_object_get(res, "content")
                                                               : json_object(),
                               JSON_COMPACT);
    const char *action = json_string_value(json_object_get(res, "action"));
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call), "%saction=%s, content=%s", prefix,
                                     action ? action : "?", content ? content : "{}");
    free(content);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

/* Sends elicitation/create with schema_json and turns the answer into a text result. */
static sluice_status elicit(sluice_mcp_call *call,
                            const char *message,
                            const char *schema_json,
                            const char *prefix,
                            json_t **out,
                            sluice_error *err)
{
    json_t *params = json_pack("{s:s, s:s, s:o}", "mode", "form", "message", message,
                               "requestedSchema", json_loads(schema_json, 0, NULL));
    if (!params) {
        return SLUICE_E_NOMEM;
    }
    json_t *res = NULL;
    sluice_status st = sluice_mcp_call_request(call, "elicitation/create", params, 0, &res, err);
    if (st == SLUICE_OK) {
        st = elicit_result_text(call, prefix, res, out);
    }
    json_decref(res);
    return st;
}

static sluice_status
tool_elicitation(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    const char *message = json_string_value(json_object_get(args, "message"));
    return elicit(call, message ? message : "Please provide your information",
                  "{\"type\":\"object\",\"properties\":{"
                  "\"username\":{\"type\":\"string\",\"description\":\"Your username\"},"
                  "\"email\":{\"type\":\"string\",\"description\":\"Your email address\","
                  "\"format\":\"email\"}},\"required\":[\"username\",\"email\"]}",
                  "User response: ", out, err);
}

static sluice_status tool_elicitation_defaults(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)ud;
    return elicit(call, "Please review and update the form fields with defaults",
                  "{\"type\":\"object\",\"properties\":{"
                  "\"name\":{\"type\":\"string\",\"description\":\"User name\","
                  "\"default\":\"John Doe\"},"
                  "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
                  "\"score\":{\"type\":\"number\",\"description\":\"User score\","
                  "\"default\":95.5},"
                  "\"status\":{\"type\":\"string\",\"description\":\"User status\","
                  "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
                  "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\","
                  "\"default\":true}},\"required\":[]}",
                  "Elicitation completed: ", out, err);
}

static sluice_status tool_elicitation_enums(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)ud;
    return elicit(
        call, "Please select options from the enum fields",
        "{\"type\":\"object\",\"properties\":{"
        "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Select one option\","
        "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
        "\"titledSingle\":{\"type\":\"string\",\"description\":\"Select one option with titles\","
        "\"oneOf\":[{\"const\":\"value1\",\"title\":\"First Option\"},"
        "{\"const\":\"value2\",\"title\":\"Second Option\"},"
        "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
        "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Select one option (legacy)\","
        "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
        "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
        "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options\","
        "\"minItems\":1,\"maxItems\":3,"
        "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
        "\"titledMulti\":{\"type\":\"array\",\"description\":\"Select multiple options with "
        "titles\",\"minItems\":1,\"maxItems\":3,\"items\":{\"anyOf\":["
        "{\"const\":\"value1\",\"title\":\"First Choice\"},"
        "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
        "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},\"required\":[]}",
        "Elicitation completed: ", out, err);
}

static sluice_status
tool_sampling(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    const char *prompt = json_string_value(json_object_get(args, "prompt"));
    json_t *params =
        json_pack("{s:[{s:s, s:{s:s, s:s}}], s:i}", "messages", "role", "user", "content", "type",
                  "text", "text", prompt ? prompt : "", "maxTokens", 100);
    if (!params) {
        return SLUICE_E_NOMEM;
    }
    json_t *res = NULL;
    sluice_status st =
        sluice_mcp_call_request(call, "sampling/createMessage", params, 0, &res, err);
    if (st != SLUICE_OK) {
        return st;
    }
    const char *answer =
        json_string_value(json_object_get(json_object_get(res, "content"), "text"));
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call), "LLM response: %s",
                                     answer ? answer : "(no text content)");
    json_decref(res);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

static sluice_status tool_json_schema_2020_12(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)err, (void)ud;
    char *dump = json_dumps(args ? args : json_object(), JSON_COMPACT | JSON_SORT_KEYS);
    char *text =
        sluice_arena_printf(sluice_mcp_call_arena(call), "JSON Schema 2020-12 tool called with: %s",
                            dump ? dump : "{}");
    free(dump);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

/* ---- tools for our own tests and the benchmark ---------------------------------------------- */

static sluice_status
tool_echo(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)err, (void)ud;
    const char *message = json_string_value(json_object_get(args, "message"));
    return text_result(message ? message : "", out);
}

/* Works in small steps so cancellation is observed within one step; reports progress. */
static sluice_status
tool_slow(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    json_int_t steps = json_integer_value(json_object_get(args, "steps"));
    json_int_t step_ms = json_integer_value(json_object_get(args, "step_ms"));
    steps = steps > 0 ? steps : 50;
    step_ms = step_ms > 0 ? step_ms : 20;
    for (json_int_t i = 0; i < steps; i++) {
        if (sluice_mcp_call_cancelled(call)) {
            atomic_fetch_add(&slow_cancelled, 1);
            fprintf(stderr, "sluice_conformance: test_slow cancelled at step %lld of %lld\n",
                    (long long)i, (long long)steps);
            return sluice_error_set(err, sluice_mcp_call_arena(call), SLUICE_E_CANCELLED,
                                    "test_slow was cancelled at step %lld", (long long)i);
        }
        sluice_mcp_call_progress(call, (double)i, (double)steps, NULL);
        sleep_ms((long)step_ms);
    }
    atomic_fetch_add(&slow_completed, 1);
    return text_result("test_slow finished", out);
}

static sluice_status
tool_cancel_stats(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    long cancelled = atomic_load(&slow_cancelled);
    long completed = atomic_load(&slow_completed);
    json_t *structured = json_pack("{s:I, s:I}", "cancelled", (json_int_t)cancelled, "completed",
                                   (json_int_t)completed);
    char *text = json_dumps(structured, JSON_COMPACT);
    *out = json_pack("{s:[o], s:o}", "content", text_block(text ? text : "{}"), "structuredContent",
                     structured);
    free(text);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
tool_filler(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    return text_result("filler", out);
}

/* ---- 2026-07-28 multi round-trip tools (conformance-next, SEP-2322) ----------------------------
 * Each returns an input_required result until the client's retry carries what it asked for. The
 * requestState is "<base64url payload>.<base64url HMAC-SHA256>" under a key drawn at start-up,
 * so a tampered state fails verification (-32602) and a state is only meaningful to this process.
 */

static unsigned char state_key[crypto_auth_hmacsha256_KEYBYTES];

/* Seals payload into a requestState (in the call arena); NULL when out of memory. */
static const char *seal_state(sluice_mcp_call *call, const char *payload)
{
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    size_t len = strlen(payload);
    crypto_auth_hmacsha256(mac, (const unsigned char *)payload, len, state_key);
    size_t plen = sodium_base64_ENCODED_LEN(len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t mlen = sodium_base64_ENCODED_LEN(sizeof mac, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    char *out = sluice_arena_alloc(sluice_mcp_call_arena(call), plen + mlen + 1);
    if (!out) {
        return NULL;
    }
    sodium_bin2base64(out, plen, (const unsigned char *)payload, len,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    size_t at = strlen(out);
    out[at++] = '.';
    sodium_bin2base64(out + at, mlen, mac, sizeof mac, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return out;
}

/* The payload of a requestState that verifies (in the call arena), or NULL. */
static const char *open_state(sluice_mcp_call *call, const char *state)
{
    const char *dot = state ? strchr(state, '.') : NULL;
    if (!dot) {
        return NULL;
    }
    size_t cap = strlen(state) + 1, plen = 0, mlen = 0;
    unsigned char *payload = sluice_arena_alloc(sluice_mcp_call_arena(call), cap);
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    const char *end = NULL;
    if (!payload ||
        sodium_base642bin(payload, cap - 1, state, (size_t)(dot - state), NULL, &plen, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        sodium_base642bin(mac, sizeof mac, dot + 1, strlen(dot + 1), NULL, &mlen, &end,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        mlen != sizeof mac || *end != '\0' ||
        crypto_auth_hmacsha256_verify(mac, payload, plen, state_key) != 0) {
        return NULL;
    }
    payload[plen] = '\0';
    return (const char *)payload;
}

/* Refuses the call with -32602: the state failed verification or belongs to another step. */
static sluice_status bad_state(sluice_mcp_call *call, json_t **out)
{
    sluice_mcp_call_fail(call, -32602,
                         "requestState failed integrity verification or does not belong to this "
                         "request; start over without requestState",
                         NULL);
    return text_result("refused", out);
}

static json_t *elicit_request(const char *message, const char *property, const char *type)
{
    return json_pack("{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s}}, s:[s]}}}", "method",
                     "elicitation/create", "params", "mode", "form", "message", message,
                     "requestedSchema", "type", "object", "properties", property, "type", type,
                     "required", property);
}

static json_t *sampling_request(const char *text, int max_tokens)
{
    return json_pack("{s:s, s:{s:[{s:s, s:{s:s, s:s}}], s:i}}", "method", "sampling/createMessage",
                     "params", "messages", "role", "user", "content", "type", "text", "text", text,
                     "maxTokens", max_tokens);
}

static json_t *roots_request(void)
{
    return json_pack("{s:s, s:{}}", "method", "roots/list", "params");
}

/* The client's answer to the input request key when it is an object, else NULL (a missing or
 * malformed answer is asked for again). */
static const json_t *answer_of(sluice_mcp_call *call, const char *key)
{
    const json_t *a = json_object_get(sluice_mcp_call_input_responses(call), key);
    return json_is_object(a) ? a : NULL;
}

/* An accepted elicitation's content field, or NULL. */
static const char *accepted_field(const json_t *answer, const char *field)
{
    const char *action = json_string_value(json_object_get(answer, "action"));
    if (!action || strcmp(action, "accept") != 0) {
        return NULL;
    }
    return json_string_value(json_object_get(json_object_get(answer, "content"), field));
}

/* Refuses with -32021 when the client did not declare capability need. */
static bool require_capability(sluice_mcp_call *call, const char *need)
{
    if (json_object_get(sluice_mcp_call_client_capabilities(call), need)) {
        return true;
    }
    json_t *data = json_pack("{s:{s:{}}}", "requiredCapabilities", need);
    char message[128];
    snprintf(message, sizeof message, "this tool needs the client capability '%s'", need);
    sluice_mcp_call_fail(call, -32021, message, data);
    return false;
}

static sluice_status ask(json_t *requests, const char *state, json_t **out)
{
    *out = sluice_mcp_input_required(requests, state);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status tool_mrtr_elicitation(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    if (!require_capability(call, "elicitation")) {
        return text_result("refused", out);
    }
    const char *name = accepted_field(answer_of(call, "user_name"), "name");
    if (!name) {
        return ask(
            json_pack("{s:o}", "user_name", elicit_request("What is your name?", "name", "string")),
            NULL, out);
    }
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call), "Hello, %s!", name);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

static sluice_status
tool_mrtr_sampling(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    if (!require_capability(call, "sampling")) {
        return text_result("refused", out);
    }
    const json_t *a = answer_of(call, "capital_question");
    const char *text = json_string_value(json_object_get(json_object_get(a, "content"), "text"));
    if (!text) {
        return ask(json_pack("{s:o}", "capital_question",
                             sampling_request("What is the capital of France?", 100)),
                   NULL, out);
    }
    char *reply = sluice_arena_printf(sluice_mcp_call_arena(call), "LLM response: %s", text);
    return reply ? text_result(reply, out) : SLUICE_E_NOMEM;
}

/* The roots of a ListRootsResult as "uri, uri", or NULL when it is not one. */
static const char *roots_text(sluice_mcp_call *call, const json_t *answer)
{
    const json_t *roots = json_object_get(answer, "roots");
    if (!json_is_array(roots)) {
        return NULL;
    }
    const char *text = "";
    size_t i;
    const json_t *r;
    json_array_foreach(roots, i, r)
    {
        const char *uri = json_string_value(json_object_get(r, "uri"));
        text = sluice_arena_printf(sluice_mcp_call_arena(call), "%s%s%s", text, i ? ", " : "",
                                   uri ? uri : "?");
        if (!text) {
            return NULL;
        }
    }
    return text;
}

static sluice_status
tool_mrtr_roots(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    if (!require_capability(call, "roots")) {
        return text_result("refused", out);
    }
    const char *roots = roots_text(call, answer_of(call, "client_roots"));
    if (!roots) {
        return ask(json_pack("{s:o}", "client_roots", roots_request()), NULL, out);
    }
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call), "Client roots: %s", roots);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

/* Shared by the request-state and tampered-state tools: round 1 seals "tool:round1", round 2
 * needs that exact state back with an answer to "confirm". */
static sluice_status stateful_confirm(sluice_mcp_call *call, const char *tool, json_t **out)
{
    const char *given = sluice_mcp_call_request_state(call);
    char *expected = sluice_arena_printf(sluice_mcp_call_arena(call), "%s:round1", tool);
    if (!expected) {
        return SLUICE_E_NOMEM;
    }
    if (given) {
        const char *payload = open_state(call, given);
        if (!payload || strcmp(payload, expected) != 0) {
            return bad_state(call, out);
        }
    }
    if (!given || !answer_of(call, "confirm")) {
        const char *state = seal_state(call, expected);
        return state ? ask(json_pack("{s:o}", "confirm",
                                     elicit_request("Please confirm", "ok", "boolean")),
                           state, out)
                     : SLUICE_E_NOMEM;
    }
    return text_result("Confirmed: state-ok", out);
}

static sluice_status
tool_mrtr_state(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    return stateful_confirm(call, "request_state", out);
}

static sluice_status
tool_mrtr_tampered(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    return stateful_confirm(call, "tampered_state", out);
}

static sluice_status
tool_mrtr_multiple(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    const char *given = sluice_mcp_call_request_state(call);
    const char *payload = given ? open_state(call, given) : NULL;
    if (given && (!payload || strcmp(payload, "multiple") != 0)) {
        return bad_state(call, out);
    }
    const char *name = accepted_field(answer_of(call, "user_name"), "name");
    const char *roots = roots_text(call, answer_of(call, "client_roots"));
    if (!given || !name || !roots || !answer_of(call, "greeting")) {
        const char *state = seal_state(call, "multiple");
        json_t *requests =
            json_pack("{s:o, s:o, s:o}", "user_name",
                      elicit_request("What is your name?", "name", "string"), "greeting",
                      sampling_request("Generate a greeting", 50), "client_roots", roots_request());
        return state ? ask(requests, state, out) : (json_decref(requests), SLUICE_E_NOMEM);
    }
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call),
                                     "All inputs received: name=%s, roots=%s", name, roots);
    return text ? text_result(text, out) : SLUICE_E_NOMEM;
}

/* Round 1 asks step1 (state "round1"); round 2 asks step2 (state "round2:<name>"); round 3
 * completes. */
static sluice_status tool_mrtr_multi_round(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    const char *given = sluice_mcp_call_request_state(call);
    const char *payload = given ? open_state(call, given) : NULL;
    if (given && !payload) {
        return bad_state(call, out);
    }
    if (payload && strncmp(payload, "round2:", 7) == 0) {
        const char *color = accepted_field(answer_of(call, "step2"), "color");
        if (color) {
            char *text = sluice_arena_printf(arena, "Hello %s, your favorite color is %s",
                                             payload + 7, color);
            return text ? text_result(text, out) : SLUICE_E_NOMEM;
        }
        return ask(
            json_pack("{s:o}", "step2",
                      elicit_request("Step 2: What is your favorite color?", "color", "string")),
            given, out);
    }
    const char *name = payload && strcmp(payload, "round1") == 0
                           ? accepted_field(answer_of(call, "step1"), "name")
                           : NULL;
    if (name) {
        char *next = sluice_arena_printf(arena, "round2:%s", name);
        const char *state = next ? seal_state(call, next) : NULL;
        return state ? ask(json_pack("{s:o}", "step2",
                                     elicit_request("Step 2: What is your favorite color?", "color",
                                                    "string")),
                           state, out)
                     : SLUICE_E_NOMEM;
    }
    const char *state = seal_state(call, "round1");
    return state ? ask(json_pack("{s:o}", "step1",
                                 elicit_request("Step 1: What is your name?", "name", "string")),
                       state, out)
                 : SLUICE_E_NOMEM;
}

/* Asks only for what the client declared it can answer. */
static sluice_status tool_mrtr_capabilities(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    const json_t *caps = sluice_mcp_call_client_capabilities(call);
    json_t *requests = json_object();
    if (json_object_get(caps, "elicitation")) {
        json_object_set_new(requests, "user_name",
                            elicit_request("What is your name?", "name", "string"));
    }
    if (json_object_get(caps, "sampling")) {
        json_object_set_new(requests, "greeting", sampling_request("Generate a greeting", 50));
    }
    if (json_object_get(caps, "roots")) {
        json_object_set_new(requests, "client_roots", roots_request());
    }
    if (json_object_size(requests) == 0 || sluice_mcp_call_input_responses(call)) {
        json_decref(requests);
        return text_result("Capabilities respected", out);
    }
    return ask(requests, NULL, out);
}

/* Under 2026-07-28 this cannot be a server->client request on the stream: it is an input
 * request in the result. */
static sluice_status tool_streaming_elicitation(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    if (answer_of(call, "confirm")) {
        return text_result("Streaming elicitation answered", out);
    }
    return ask(json_pack("{s:o}", "confirm", elicit_request("Please confirm", "ok", "boolean")),
               NULL, out);
}

/* Needs sampling, which the stateless scenario never declares: -32021. */
static sluice_status tool_missing_capability(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    if (!require_capability(call, "sampling")) {
        return text_result("refused", out);
    }
    return ask(json_pack("{s:o}", "llm", sampling_request("Say something", 20)), NULL, out);
}

typedef struct fixture_tool {
    const char *name;
    const char *description;
    const char *input_schema;
    const char *output_schema; /* NULL: none */
    sluice_mcp_tool_fn fn;
} fixture_tool;

#define NO_ARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"

static const fixture_tool fixture_tools[] = {
    { "test_simple_text", "Tests simple text content response", NO_ARGS, NULL, tool_simple_text },
    { "test_image_content", "Tests image content response", NO_ARGS, NULL, tool_image },
    { "test_audio_content", "Tests audio content response", NO_ARGS, NULL, tool_audio },
    { "test_embedded_resource", "Tests embedded resource content response", NO_ARGS, NULL,
      tool_embedded_resource },
    { "test_multiple_content_types",
      "Tests response with multiple content types (text, image, resource)", NO_ARGS, NULL,
      tool_multiple_content },
    { "test_tool_with_logging", "Tests tool that emits log messages during execution", NO_ARGS,
      NULL, tool_with_logging },
    { "test_tool_with_progress", "Tests tool that reports progress notifications", NO_ARGS, NULL,
      tool_with_progress },
    { "test_error_handling", "Tests error response handling", NO_ARGS, NULL, tool_error_handling },
    { "test_sampling", "Tests server-initiated sampling (LLM completion request)",
      "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
      "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
      NULL, tool_sampling },
    { "test_elicitation", "Tests server-initiated elicitation (user input request)",
      "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
      "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
      NULL, tool_elicitation },
    { "test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034",
      NO_ARGS, NULL, tool_elicitation_defaults },
    { "test_elicitation_sep1330_enums",
      "Tests elicitation with enum schema improvements per SEP-1330", NO_ARGS, NULL,
      tool_elicitation_enums },
    { "json_schema_2020_12_tool",
      "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
      "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
      "\"$defs\":{\"address\":{\"type\":\"object\",\"properties\":{"
      "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
      "\"properties\":{\"name\":{\"type\":\"string\"},"
      "\"address\":{\"$ref\":\"#/$defs/address\"}},\"additionalProperties\":false}",
      NULL, tool_json_schema_2020_12 },
    { "echo", "Echoes its message back (benchmark and end-to-end tests)",
      "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},"
      "\"required\":[\"message\"],\"additionalProperties\":false}",
      NULL, tool_echo },
    { "test_slow", "Works for steps*step_ms milliseconds, reporting progress; cancellable",
      "{\"type\":\"object\",\"properties\":{"
      "\"steps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000},"
      "\"step_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},"
      "\"additionalProperties\":false}",
      NULL, tool_slow },
    { "test_input_required_result_elicitation", "MRTR: asks the user's name by elicitation",
      NO_ARGS, NULL, tool_mrtr_elicitation },
    { "test_input_required_result_sampling", "MRTR: asks the client's LLM a question", NO_ARGS,
      NULL, tool_mrtr_sampling },
    { "test_input_required_result_list_roots", "MRTR: asks the client's roots", NO_ARGS, NULL,
      tool_mrtr_roots },
    { "test_input_required_result_request_state", "MRTR: round-trips an HMAC'd requestState",
      NO_ARGS, NULL, tool_mrtr_state },
    { "test_input_required_result_tampered_state", "MRTR: refuses a tampered requestState", NO_ARGS,
      NULL, tool_mrtr_tampered },
    { "test_input_required_result_multiple_inputs",
      "MRTR: elicitation, sampling and roots in one round", NO_ARGS, NULL, tool_mrtr_multiple },
    { "test_input_required_result_multi_round", "MRTR: two rounds with an evolving requestState",
      NO_ARGS, NULL, tool_mrtr_multi_round },
    { "test_input_required_result_capabilities",
      "MRTR: asks only for what the client declared it supports", NO_ARGS, NULL,
      tool_mrtr_capabilities },
    { "test_streaming_elicitation", "MRTR: an elicitation as an input request, never on a stream",
      NO_ARGS, NULL, tool_streaming_elicitation },
    { "test_missing_capability", "Needs the sampling client capability (-32021 without it)",
      NO_ARGS, NULL, tool_missing_capability },
    { "test_logging_tool", "Logs three messages when the request's _meta sets a log level", NO_ARGS,
      NULL, tool_with_logging },
    { "test_cancel_stats", "How many test_slow calls were cancelled and how many completed",
      NO_ARGS,
      "{\"type\":\"object\",\"properties\":{\"cancelled\":{\"type\":\"integer\"},"
      "\"completed\":{\"type\":\"integer\"}},\"required\":[\"cancelled\",\"completed\"]}",
      tool_cancel_stats },
};

static sluice_status add_tool(sluice_mcp_server *server, const fixture_tool *t, sluice_error *err)
{
    sluice_mcp_tool tool = {
        .name = t->name,
        .description = t->description,
        .input_schema = json_loads(t->input_schema, 0, NULL),
        .output_schema = t->output_schema ? json_loads(t->output_schema, 0, NULL) : NULL,
        .fn = t->fn,
        .inline_ok = t->fn == tool_echo, /* trivial and never waits: may skip the worker pool */
    };
    if (!tool.input_schema || (t->output_schema && !tool.output_schema)) {
        fprintf(stderr, "sluice_conformance: bad built-in schema for %s\n", t->name);
        json_decref(tool.input_schema);
        json_decref(tool.output_schema);
        return SLUICE_E_INTERNAL;
    }
    return sluice_mcp_server_add_tool(server, &tool, err);
}

static sluice_status add_fillers(sluice_mcp_server *server, long count, sluice_error *err)
{
    for (long i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "filler_%05ld", i);
        fixture_tool t = { name, "A filler tool so listings span several pages", NO_ARGS, NULL,
                           tool_filler };
        sluice_status st = add_tool(server, &t, err);
        if (st != SLUICE_OK) {
            return st;
        }
    }
    return SLUICE_OK;
}

/* ---- resources ------------------------------------------------------------------------------ */

static sluice_status
text_contents(const char *uri, const char *mime, const char *text, json_t **out)
{
    *out = json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", mime, "text", text);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
res_static_text(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)err, (void)ud;
    return text_contents(uri, "text/plain", "This is the content of the static text resource.",
                         out);
}

static sluice_status
res_static_binary(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)err, (void)ud;
    *out = json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", "image/png", "blob",
                     FIXTURE_PNG_BASE64);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
res_watched(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)err, (void)ud;
    return text_contents(uri, "text/plain", "Watched resource content", out);
}

/* test://template/{id}/data: id is one non-empty path segment. */
static sluice_status
res_template(sluice_mcp_call *call, const char *uri, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    static const char prefix[] = "test://template/";
    static const char suffix[] = "/data";
    size_t len = strlen(uri), plen = sizeof prefix - 1, slen = sizeof suffix - 1;
    sluice_arena *arena = sluice_mcp_call_arena(call);
    if (len <= plen + slen || strncmp(uri, prefix, plen) != 0 ||
        strcmp(uri + len - slen, suffix) != 0 ||
        memchr(uri + plen, '/', len - plen - slen) != NULL) {
        return sluice_error_set(err, arena, SLUICE_E_NOT_FOUND,
                                "no resource matches '%s' (expected test://template/{id}/data)",
                                uri);
    }
    char *id = sluice_arena_strndup(arena, uri + plen, len - plen - slen);
    char *data = id ? sluice_arena_printf(arena, "Data for ID: %s", id) : NULL;
    json_t *doc =
        data ? json_pack("{s:s, s:b, s:s}", "id", id, "templateTest", 1, "data", data) : NULL;
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    sluice_status st = text ? text_contents(uri, "application/json", text, out) : SLUICE_E_NOMEM;
    free(text);
    return st;
}

static const sluice_mcp_resource fixture_resources[] = {
    { .uri = "test://static-text",
      .name = "static-text",
      .title = "Static Text Resource",
      .description = "A static text resource for testing",
      .mime_type = "text/plain",
      .fn = res_static_text },
    { .uri = "test://static-binary",
      .name = "static-binary",
      .title = "Static Binary Resource",
      .description = "A static binary resource (image) for testing",
      .mime_type = "image/png",
      .fn = res_static_binary },
    { .uri = "test://template/{id}/data",
      .name = "template",
      .title = "Resource Template",
      .description = "A resource template with parameter substitution",
      .mime_type = "application/json",
      .is_template = true,
      .fn = res_template },
    { .uri = "test://watched-resource",
      .name = "watched-resource",
      .title = "Watched Resource",
      .description = "A resource clients may subscribe to",
      .mime_type = "text/plain",
      .subscribable = true,
      .fn = res_watched },
};

/* ---- prompts -------------------------------------------------------------------------------- */

static sluice_status messages_result(json_t *messages, json_t **out)
{
    *out = json_pack("{s:o}", "messages", messages);
    return *out ? SLUICE_OK : SLUICE_E_NOMEM;
}

static sluice_status
prompt_simple(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    return messages_result(json_pack("[{s:s, s:o}]", "role", "user", "content",
                                     text_block("This is a simple prompt for testing.")),
                           out);
}

/* The string argument name, or an INVALID error naming it. */
static const char *
required_arg(sluice_mcp_call *call, json_t *args, const char *name, sluice_error *err)
{
    const char *v = json_string_value(json_object_get(args, name));
    if (!v) {
        sluice_error_set(err, sluice_mcp_call_arena(call), SLUICE_E_INVALID,
                         "missing required argument '%s'", name);
    }
    return v;
}

static sluice_status prompt_with_arguments(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    const char *a1 = required_arg(call, args, "arg1", err);
    const char *a2 = a1 ? required_arg(call, args, "arg2", err) : NULL;
    if (!a2) {
        return SLUICE_E_INVALID;
    }
    char *text = sluice_arena_printf(sluice_mcp_call_arena(call),
                                     "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2);
    if (!text) {
        return SLUICE_E_NOMEM;
    }
    return messages_result(json_pack("[{s:s, s:o}]", "role", "user", "content", text_block(text)),
                           out);
}

static sluice_status prompt_with_embedded_resource(
    sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)ud;
    const char *uri = required_arg(call, args, "resourceUri", err);
    if (!uri) {
        return SLUICE_E_INVALID;
    }
    return messages_result(
        json_pack("[{s:s, s:o}, {s:s, s:o}]", "role", "user", "content",
                  embedded_resource(uri, "text/plain", "Embedded resource content for testing."),
                  "role", "user", "content",
                  text_block("Please process the embedded resource above.")),
        out);
}

static sluice_status
prompt_with_image(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)call, (void)args, (void)err, (void)ud;
    return messages_result(json_pack("[{s:s, s:{s:s, s:s, s:s}}, {s:s, s:o}]", "role", "user",
                                     "content", "type", "image", "data", FIXTURE_PNG_BASE64,
                                     "mimeType", "image/png", "role", "user", "content",
                                     text_block("Please analyze the image above.")),
                           out);
}

static sluice_status
prompt_mrtr(sluice_mcp_call *call, json_t *args, json_t **out, sluice_error *err, void *ud)
{
    (void)args, (void)err, (void)ud;
    const char *context = accepted_field(answer_of(call, "user_context"), "context");
    if (!context) {
        return ask(
            json_pack("{s:o}", "user_context",
                      elicit_request("What context should the prompt use?", "context", "string")),
            NULL, out);
    }
    char *text =
        sluice_arena_printf(sluice_mcp_call_arena(call), "Prompt with context: %s", context);
    return text ? messages_result(
                      json_pack("[{s:s, s:o}]", "role", "user", "content", text_block(text)), out)
                : SLUICE_E_NOMEM;
}

typedef struct fixture_prompt {
    const char *name;
    const char *title;
    const char *description;
    const char *arguments; /* JSON array or NULL */
    sluice_mcp_prompt_fn fn;
} fixture_prompt;

static const fixture_prompt fixture_prompts[] = {
    { "test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments", NULL,
      prompt_simple },
    { "test_prompt_with_arguments", "Prompt With Arguments", "A prompt with required arguments",
      "[{\"name\":\"arg1\",\"description\":\"First test argument\",\"required\":true},"
      "{\"name\":\"arg2\",\"description\":\"Second test argument\",\"required\":true}]",
      prompt_with_arguments },
    { "test_prompt_with_embedded_resource", "Prompt With Embedded Resource",
      "A prompt that includes an embedded resource",
      "[{\"name\":\"resourceUri\",\"description\":\"URI of the resource to embed\","
      "\"required\":true}]",
      prompt_with_embedded_resource },
    { "test_prompt_with_image", "Prompt With Image", "A prompt that includes image content", NULL,
      prompt_with_image },
    { "test_input_required_result_prompt", "Prompt Needing Input",
      "MRTR: asks for context by elicitation before it answers", NULL, prompt_mrtr },
};

/* ---- assembly and serving ------------------------------------------------------------------- */

static sluice_status build_fixture(sluice_mcp_server *server, long extra_tools, sluice_error *err)
{
    sluice_status st = SLUICE_OK;
    for (size_t i = 0; st == SLUICE_OK && i < sizeof fixture_tools / sizeof fixture_tools[0]; i++) {
        st = add_tool(server, &fixture_tools[i], err);
    }
    for (size_t i = 0;
         st == SLUICE_OK && i < sizeof fixture_resources / sizeof fixture_resources[0]; i++) {
        st = sluice_mcp_server_add_resource(server, &fixture_resources[i], err);
    }
    for (size_t i = 0; st == SLUICE_OK && i < sizeof fixture_prompts / sizeof fixture_prompts[0];
         i++) {
        const fixture_prompt *p = &fixture_prompts[i];
        sluice_mcp_prompt prompt = {
            .name = p->name,
            .title = p->title,
            .description = p->description,
            .arguments = p->arguments ? json_loads(p->arguments, 0, NULL) : NULL,
            .fn = p->fn,
        };
        st = sluice_mcp_server_add_prompt(server, &prompt, err);
    }
    return st == SLUICE_OK ? add_fillers(server, extra_tools, err) : st;
}

typedef struct fixture_options {
    bool stdio;
    const char *http_listen; /* "host:port"; NULL: [server] listen */
    const char *config_path; /* NULL: built-in defaults */
    long extra_tools;
    long max_body; /* 0: [server] max_body_bytes */
} fixture_options;

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || *end || v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

static bool parse_args(int argc, char **argv, fixture_options *o)
{
    *o = (fixture_options){ 0 };
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--stdio") == 0) {
            o->stdio = true;
            i++;
            continue;
        }
        bool ok = strcmp(a, "--config") == 0 ? (o->config_path = v) != NULL
                  : strcmp(a, "--http") == 0 ? (o->http_listen = v) != NULL
                  : strcmp(a, "--extra-tools") == 0
                      ? parse_long(v, 0, FIXTURE_MAX_EXTRA_TOOLS, &o->extra_tools)
                  : strcmp(a, "--max-body") == 0 ? parse_long(v, 1024, 64L << 20, &o->max_body)
                                                 : false;
        if (!ok) {
            return false;
        }
        i += 2;
    }
    return o->stdio != (o->http_listen != NULL);
}

/* The stdio caller is who [identity] says (the config default is "local"). */
static sluice_status
serve_stdio(sluice_mcp_server *server, const sluice_config *cfg, sluice_error *err)
{
    sluice_identity who = {
        .user_id = cfg->identity.user,
        .groups = cfg->identity.groups.items,
        .group_count = cfg->identity.groups.count,
        .method = "stdio-config",
    };
    return sluice_stdio_serve(server, &who, err);
}

/* Set by SIGTERM/SIGINT: the only way the HTTP fixture ends. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Splits "host:port" ("[::1]:port" for IPv6) into host (in arena) and port. */
static bool split_listen(sluice_arena *arena, const char *listen, const char **host, uint16_t *port)
{
    const char *colon = strrchr(listen, ':');
    long p = 0;
    if (!colon || !parse_long(colon + 1, 0, 65535, &p)) {
        return false;
    }
    const char *h = listen;
    size_t len = (size_t)(colon - listen);
    if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
        h++;
        len -= 2;
    }
    *host = sluice_arena_strndup(arena, h, len);
    *port = (uint16_t)p;
    return *host != NULL && len > 0;
}

/* Serves the [server] settings, with --http and --max-body on top, until a stop signal. */
static sluice_status serve_http(sluice_mcp_server *server,
                                const sluice_config *cfg,
                                const fixture_options *o,
                                sluice_arena *arena,
                                sluice_error *err)
{
    const sluice_config_server *s = &cfg->server;
    sluice_http_options http = {
        .bind_address = s->listen_host,
        .port = s->listen_port,
        .allowed_origins = s->allowed_origins.items,
        .allowed_origin_count = s->allowed_origins.count,
        .allowed_hosts = s->allowed_hosts.items,
        .allowed_host_count = s->allowed_hosts.count,
        .max_body_bytes = o->max_body > 0 ? (size_t)o->max_body : s->max_body_bytes,
        .max_sessions = s->max_sessions,
        .session_idle_seconds = s->session_idle_seconds,
    };
    if (o->http_listen && !split_listen(arena, o->http_listen, &http.bind_address, &http.port)) {
        return sluice_error_set(err, arena, SLUICE_E_INVALID,
                                "--http wants HOST:PORT (e.g. 127.0.0.1:8808), got '%s'",
                                o->http_listen);
    }
    sluice_http_server *running = NULL;
    sluice_status st = sluice_http_start(server, &http, NULL, &running, err);
    if (st != SLUICE_OK) {
        return st;
    }
    fprintf(stderr, "sluice_conformance: listening on port %u\n",
            (unsigned)sluice_http_port(running));
    struct sigaction sa = { .sa_handler = on_stop_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    while (!stop_requested) {
        sleep_ms(50);
    }
    sluice_http_stop(running);
    return SLUICE_OK;
}

static sluice_status load_config(const fixture_options *o,
                                 sluice_config **cfg,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    return o->config_path ? sluice_config_load(o->config_path, cfg, err_arena, err)
                          : sluice_config_defaults(cfg);
}

int main(int argc, char **argv)
{
    fixture_options o;
    if (!parse_args(argc, argv, &o)) {
        fprintf(stderr, "usage: sluice_conformance (--stdio | --http HOST:PORT) [--config FILE] "
                        "[--extra-tools N] [--max-body BYTES]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (sodium_init() < 0) {
        fprintf(stderr, "sluice_conformance: libsodium failed to initialize\n");
        return 1;
    }
    crypto_auth_hmacsha256_keygen(state_key);
    sluice_error err;
    sluice_error_clear(&err);
    sluice_arena *err_arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_mcp_server *server = NULL;
    sluice_status st = err_arena ? load_config(&o, &cfg, err_arena, &err) : SLUICE_E_NOMEM;
    if (st == SLUICE_OK) {
        sluice_mcp_server_options opts = {
            .name = cfg->server.name,
            .version = SLUICE_VERSION,
            .instructions = cfg->server.instructions,
            .request_timeout_ms = (int)(cfg->server.request_timeout_seconds * 1000),
        };
        st = sluice_mcp_server_new(&opts, &server, &err);
    }
    if (st == SLUICE_OK) {
        st = build_fixture(server, o.extra_tools, &err);
    }
    if (st == SLUICE_OK) {
        st =
            o.stdio ? serve_stdio(server, cfg, &err) : serve_http(server, cfg, &o, err_arena, &err);
    }
    if (st != SLUICE_OK) {
        char *text = err_arena ? sluice_error_render(err_arena, &err, NULL, 0) : NULL;
        fprintf(stderr, "sluice_conformance: %s: %s\n", sluice_status_name(st),
                text ? text : "(no message)");
    }
    sluice_mcp_server_free(server);
    sluice_config_free(cfg);
    sluice_arena_free(err_arena);
    return st == SLUICE_OK ? 0 : 1;
}
