/*
 * test_openapi_validate_truth.c — what validate says about an OpenAPI plan is what the run does:
 * the javascript front end reads the operations document the OpenAPI backend writes from a spec
 * shaped like GitHub's (the same template rule, core/path_template.c, decides both sides), and
 * every call is tried on both. A literal query parameter the operation does not have is refused
 * at validate with the nearest name; a path parameter that may span segments (x-multi-segment,
 * GitHub's contents/{path}) takes "docs/README.md" while "..", "%2e" and escapes from the
 * template stay refused on both sides; among overlapping templates the most literal wins.
 */
#include "exec/openapi_match.h"
#include "exec/openapi_spec.h"
#include "exec/schema.h"
#include "facts_test_util.h"
#include "lang/js/js.h"
#include "unit.h"

#include <string.h>

static const char spec_text[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"gh\"},\"paths\":{"
    "\"/repos/{owner}/{repo}/issues\":{\"get\":{\"operationId\":\"issues/list-for-repo\","
    "\"parameters\":[{\"$ref\":\"#/components/parameters/owner\"},"
    "{\"$ref\":\"#/components/parameters/repo\"},"
    "{\"name\":\"state\",\"in\":\"query\",\"schema\":{\"enum\":[\"open\",\"closed\",\"all\"]}},"
    "{\"name\":\"labels\",\"in\":\"query\",\"schema\":{\"type\":\"string\"}}],"
    "\"responses\":{\"200\":{\"description\":\"x\"}}}},"
    "\"/repos/{owner}/{repo}/contents/{path}\":{\"get\":{\"operationId\":\"repos/get-content\","
    "\"parameters\":[{\"$ref\":\"#/components/parameters/owner\"},"
    "{\"$ref\":\"#/components/parameters/repo\"},{\"name\":\"path\",\"in\":\"path\","
    "\"required\":true,\"schema\":{\"type\":\"string\"},\"x-multi-segment\":true}],"
    "\"responses\":{\"200\":{\"description\":\"x\"}}}},"
    "\"/repos/{owner}/{repo}/branches/{branch}\":{\"get\":{\"operationId\":\"repos/get-branch\","
    "\"parameters\":[{\"$ref\":\"#/components/parameters/owner\"},"
    "{\"$ref\":\"#/components/parameters/repo\"},{\"name\":\"branch\",\"in\":\"path\","
    "\"required\":true,\"schema\":{\"type\":\"string\"},\"x-multi-segment\":true}],"
    "\"responses\":{\"200\":{\"description\":\"x\"}}}},"
    "\"/repos/{owner}/{repo}/branches/{branch}/protection\":{\"get\":{\"operationId\":"
    "\"repos/get-branch-protection\",\"parameters\":[{\"$ref\":\"#/components/parameters/owner\"},"
    "{\"$ref\":\"#/components/parameters/repo\"},{\"name\":\"branch\",\"in\":\"path\","
    "\"required\":true,\"schema\":{\"type\":\"string\"},\"x-multi-segment\":true}],"
    "\"responses\":{\"200\":{\"description\":\"x\"}}}}},"
    "\"components\":{\"parameters\":{"
    "\"owner\":{\"name\":\"owner\",\"in\":\"path\",\"required\":true,\"schema\":{\"type\":"
    "\"string\"}},"
    "\"repo\":{\"name\":\"repo\",\"in\":\"path\",\"required\":true,\"schema\":{\"type\":"
    "\"string\"}}}}}";

typedef struct fixture {
    sluice_arena *arena;
    sluice_openapi_spec spec;
    sluice_schema schema;
    sluice_config_code_mode cm;
} fixture;

static int setup(void **state)
{
    static fixture fx;
    fx.arena = sluice_arena_new();
    fx.cm = (sluice_config_code_mode){ .openapi_reads_enabled = true, .max_api_calls = 10 };
    sluice_error err = { 0 };
    if (sluice_openapi_spec_parse(fx.arena, "gh", spec_text, strlen(spec_text), &fx.cm, &fx.spec,
                                  &err) != SLUICE_OK)
        fail_msg("spec: %s", err.message);
    fx.schema.document = sluice_openapi_spec_document(fx.arena, &fx.spec);
    fx.schema.document_len = strlen(fx.schema.document);
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    sluice_arena_free(((fixture *)*state)->arena);
    return 0;
}

/* The plan's facts at validate (arena: the fixture's). */
static sluice_codefacts *validate(fixture *fx, const char *code)
{
    sluice_frontend_context ctx = { .code_mode = &fx->cm,
                                    .schema = &fx->schema,
                                    .engine = SLUICE_ENGINE_OPENAPI };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    if (sluice_js_frontend()->analyze(fx->arena, code, strlen(code), NULL, &ctx, &f, &err) !=
        SLUICE_OK)
        fail_msg("analyze: %s", err.message);
    return f;
}

static void test_unknown_literal_query_parameter_refused_with_nearest_name(void **state)
{
    fixture *fx = *state;
    sluice_codefacts *f = validate(
        fx, "return await api.get(`/repos/${args.o}/${args.r}/issues`, {status: \"open\"})");
    const sluice_codefacts_violation *v = facts_violation(f, "openapi_query_parameter");
    assert_non_null(v);
    assert_string_equal(v->message, "'status' at line 1 is not a query parameter of "
                                    "issues/list-for-repo; did you mean 'state'?");
    /* nothing near: the parameters are listed */
    f = validate(fx, "return await api.get(\"/repos/o/r/issues\", {zzzzzzzz: 1})");
    v = facts_violation(f, "openapi_query_parameter");
    assert_non_null(v);
    assert_non_null(strstr(v->message, "its query parameters are 'state' and 'labels'"));
    /* an operation without query parameters says so */
    f = validate(fx, "return await api.get(\"/repos/o/r/contents/a\", {ref: \"main\"})");
    assert_non_null(strstr(facts_violation(f, "openapi_query_parameter")->message,
                           "repos/get-content takes no query parameters"));
    /* the right names pass; a computed key is the run's to check, which refuses it the same */
    assert_false(sluice_codefacts_refused(validate(
        fx, "return await api.get(\"/repos/o/r/issues\", {state: \"open\", labels: \"x\"})")));
    assert_false(sluice_codefacts_refused(
        validate(fx, "const k = 'status'; return await api.get(\"/repos/o/r/issues\", {[k]: 1})")));
}

/* The operation validate resolves for a call site, and the run's for a composed path. */
static const char *run_op(fixture *fx, const char *path, const char **url, sluice_error *err)
{
    const sluice_openapi_op *op = NULL;
    *url = NULL;
    const char *parts[] = { path };
    return sluice_openapi_match_call(fx->arena, &fx->spec, "GET", path, parts, 1, &op, url, err) ==
                   SLUICE_OK
               ? op->id
               : NULL;
}

/* The run's operation for a call site `before${value}after`. */
static const char *
run_site(fixture *fx, const char *before, const char *value, const char *after, const char **url)
{
    const sluice_openapi_op *op = NULL;
    sluice_error err = { 0 };
    const char *parts[] = { before, value, after };
    const char *path = sluice_arena_printf(fx->arena, "%s%s%s", before, value, after);
    *url = NULL;
    return sluice_openapi_match_call(fx->arena, &fx->spec, "GET", path, parts, 3, &op, url, &err) ==
                   SLUICE_OK
               ? op->id
               : NULL;
}

static const char *validated_op(fixture *fx, const char *code)
{
    sluice_codefacts *f = validate(fx, code);
    return !sluice_codefacts_refused(f) && f->operations.count == 1 ? f->operations.items[0] : NULL;
}

static void test_spanning_path_parameter_agrees_on_both_sides(void **state)
{
    fixture *fx = *state;
    const char *url;
    sluice_error err = { 0 };
    /* a literal path and a template with a hole: the same operation on both sides */
    assert_string_equal(
        validated_op(fx, "return await api.get(\"/repos/o/r/contents/docs/README.md\")"),
        "repos/get-content");
    assert_string_equal(validated_op(fx, "return await api.get(`/repos/o/r/contents/${args.p}`)"),
                        "repos/get-content");
    assert_string_equal(
        validated_op(fx, "return await api.get(`/repos/o/r/contents/docs/${args.p}`)"),
        "repos/get-content");
    assert_string_equal(run_op(fx, "/repos/o/r/contents/docs/README.md", &url, &err),
                        "repos/get-content");
    assert_string_equal(url, "/repos/o/r/contents/docs/README.md");
    assert_string_equal(run_op(fx, "/repos/o/r/contents/docs/a b.md", &url, &err),
                        "repos/get-content");
    assert_string_equal(url, "/repos/o/r/contents/docs/a%20b.md");
    /* the most literal template wins, on both sides */
    assert_string_equal(
        validated_op(fx, "return await api.get(\"/repos/o/r/branches/main/protection\")"),
        "repos/get-branch-protection");
    assert_string_equal(run_op(fx, "/repos/o/r/branches/main/protection", &url, &err),
                        "repos/get-branch-protection");
    assert_string_equal(run_op(fx, "/repos/o/r/branches/feature/x", &url, &err),
                        "repos/get-branch");
    assert_string_equal(url, "/repos/o/r/branches/feature/x");
    /* a hole's value stays in the operation validate approved at its call site: a branch
     * named "main/protection" would be get-branch-protection upstream, a repo "r/issues" the
     * issue list; a file under contents/ may hold '/' */
    assert_string_equal(validated_op(fx, "return await api.get(`/repos/o/r/branches/${args.b}`)"),
                        "repos/get-branch");
    assert_string_equal(run_site(fx, "/repos/o/r/branches/", "feature/x", "", &url),
                        "repos/get-branch");
    assert_null(run_site(fx, "/repos/o/r/branches/", "main/protection", "", &url));
    assert_string_equal(run_site(fx, "/repos/o/r/branches/", "main", "/protection", &url),
                        "repos/get-branch-protection");
    assert_string_equal(validated_op(fx, "return await api.get(`/repos/o/${args.r}/issues`)"),
                        "issues/list-for-repo");
    assert_string_equal(run_site(fx, "/repos/o/", "r", "/issues", &url), "issues/list-for-repo");
    assert_null(run_site(fx, "/repos/o/", "r/contents/x", "/issues", &url));
    assert_null(run_site(fx, "/repos/o/", "r%2Fcontents", "/issues", &url));
    assert_string_equal(run_site(fx, "/repos/o/r/contents/", "docs/README.md", "", &url),
                        "repos/get-content");
    /* a parameter that does not span takes no '/' */
    assert_null(run_op(fx, "/repos/o/r/x/issues", &url, &err));
    assert_null(validated_op(fx, "return await api.get(\"/repos/o/r/x/issues\")"));
}

static void test_spanning_path_parameter_escapes_refused_on_both_sides(void **state)
{
    fixture *fx = *state;
    static const char *const bad[] = {
        "/repos/o/r/contents/..",         "/repos/o/r/contents/../../admin",
        "/repos/o/r/contents/docs/../..", "/repos/o/r/contents/%2e%2e/x",
        "/repos/o/r/contents/docs/%2fx",  "/repos/o/r/contents/docs//x",
        "/repos/o/r/contents/docs/",      "/repos/o/r/contents/./x",
        "/repos/o/r/contents/a\\b",       "/repos/o/r/contents/a?b",
        "/repos/o/r/contents/%252e",      "/repos/o/r/contents/docs/.%2e/x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *url;
        sluice_error err = { 0 };
        if (run_op(fx, bad[i], &url, &err) != NULL)
            fail_msg("run: '%s' was accepted as %s", bad[i], url);
        char code[256];
        snprintf(code, sizeof code, "return await api.get(\"%s\")", bad[i]);
        const char *op = validated_op(fx, code);
        if (op != NULL)
            fail_msg("validate: '%s' was accepted as %s", bad[i], op);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_literal_query_parameter_refused_with_nearest_name),
        cmocka_unit_test(test_spanning_path_parameter_agrees_on_both_sides),
        cmocka_unit_test(test_spanning_path_parameter_escapes_refused_on_both_sides),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
