/*
 * test_plugin_language.c — a language and a backend plug in without touching src/codemode/: a
 * toy front end ("calc": `sum 1 2 3`) registered in the language registry and a toy executor
 * wrapped with sluice_executor_wrap run validate_code → execute_code through the MCP server,
 * with the token, the language check and the audit path of the real pipeline.
 */
#include "cli/runtime.h"
#include "codemode/codemode.h"
#include "config/config.h"
#include "core/hash.h"
#include "core/json_write.h"
#include "exec/executor.h"
#include "lang/registry.h"
#include "mcp/server.h"
#include "surface/tools.h"
#include "unit.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the toy language: "sum" followed by integers ------------------------------------------- */

/* The canonical form: words separated by one space. NULL on NOMEM. */
static char *calc_canonical(sluice_arena *arena, const char *code, size_t len)
{
    char *out = sluice_arena_calloc(arena, len + 1, 1);
    size_t n = 0;
    for (size_t i = 0; out != NULL && i < len; i++) {
        if (isspace((unsigned char)code[i])) {
            if (n > 0 && out[n - 1] != ' ')
                out[n++] = ' ';
        } else {
            out[n++] = code[i];
        }
    }
    if (out != NULL && n > 0 && out[n - 1] == ' ')
        out[--n] = '\0';
    return out;
}

static int calc_analyses;

static sluice_status calc_analyze(sluice_arena *arena,
                                  const char *code,
                                  size_t len,
                                  const char *vars,
                                  const sluice_frontend_context *ctx,
                                  sluice_codefacts **out,
                                  sluice_error *err)
{
    (void)vars;
    (void)ctx;
    (void)err;
    calc_analyses++;
    sluice_codefacts *f = sluice_codefacts_new(arena, "calc");
    char *canon = f != NULL ? calc_canonical(arena, code, len) : NULL;
    if (canon == NULL)
        return SLUICE_E_NOMEM;
    f->statement_kind = "SUM";
    f->canonical = canon;
    if (strncmp(canon, "sum", 3) != 0 || strspn(canon + 3, " 0123456789") != strlen(canon + 3)) {
        *out = f;
        return sluice_codefacts_violate(f, "syntax_error", 1, 1, "write: sum 1 2 3",
                                        "calc knows only 'sum' followed by integers");
    }
    uint8_t h[SLUICE_HASH_BYTES];
    sluice_hash_sha256(canon, strlen(canon), h);
    sluice_hash_hex(h, sizeof h, f->code_hash);
    sluice_codefacts_list_add(f, &f->resources_read, "numbers");
    sluice_codefacts_output *o;
    sluice_codefacts_add_output(f, "sum", "BIGINT", &o);
    *out = f;
    return SLUICE_OK;
}

static sluice_status calc_hash(sluice_arena *arena,
                               const char *code,
                               size_t len,
                               const sluice_frontend_context *ctx,
                               char out_hex[65],
                               sluice_error *err)
{
    sluice_codefacts *f = NULL;
    sluice_status st = calc_analyze(arena, code, len, NULL, ctx, &f, err);
    if (st == SLUICE_OK)
        memcpy(out_hex, f->code_hash, 65);
    return st;
}

static const char *calc_explain(sluice_arena *arena, const sluice_codefacts *f)
{
    return sluice_arena_printf(arena, "Adds the numbers of '%s'.", f->canonical);
}

static const sluice_frontend calc_frontend = {
    .language = "calc",
    .analyze = calc_analyze,
    .canonical_hash = calc_hash,
    .explain = calc_explain,
};

/* ---- the toy backend: adds the numbers ---------------------------------------------------- */

static int toy_executions;

static sluice_status
toy_schema(sluice_executor *ex, sluice_arena *arena, sluice_schema *out, sluice_error *err)
{
    (void)ex;
    (void)arena;
    (void)err;
    memset(out, 0, sizeof *out);
    snprintf(out->version_hash, sizeof out->version_hash, "%064d", 7);
    return SLUICE_OK;
}

static void decref_cleanup(void *p)
{
    json_decref(p);
}

static sluice_status toy_execute(sluice_executor *ex,
                                 sluice_arena *arena,
                                 const sluice_exec_request *req,
                                 sluice_exec_result *out,
                                 sluice_error *err)
{
    (void)ex;
    (void)err;
    toy_executions++;
    long long sum = 0;
    for (const char *p = req->code + 3; *p != '\0';) {
        char *end;
        long long v = strtoll(p, &end, 10);
        sum += v;
        p = end == p ? p + 1 : end;
    }
    out->columns = sluice_arena_calloc(arena, 1, sizeof *out->columns);
    out->columns[0] = (sluice_exec_column){ "sum", "BIGINT" };
    out->column_count = 1;
    out->rows = json_pack("[[I]]", (json_int_t)sum);
    sluice_arena_cleanup_add(arena, decref_cleanup, out->rows);
    out->row_count = 1;
    out->rows_text = sluice_arena_printf(arena, "[%lld]\n", sum);
    out->statement_type = "SUM";
    return SLUICE_OK;
}

static void toy_close(void *state)
{
    (void)state;
}

static const sluice_executor_ops toy_ops = {
    .name = "toy",
    .schema = toy_schema,
    .execute = toy_execute,
    .close = toy_close,
};

/* ---- an MCP session whose answers are collected by id --------------------------------------- */

typedef struct answers {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *by_id[16];
} answers;

/* Keeps each answer as the client reads it: written as a transport writes it (splices
 * included, core/json_write.h), then parsed. */
static void answers_send(void *ctx, json_t *sent, const json_t *related)
{
    (void)related;
    answers *a = ctx;
    char *text = sluice_json_write_text(sent, NULL);
    json_decref(sent);
    json_t *msg = text != NULL ? json_loads(text, 0, NULL) : NULL; /* NULL: the wait fails */
    free(text);
    if (msg == NULL)
        return;
    json_int_t id = json_integer_value(json_object_get(msg, "id"));
    pthread_mutex_lock(&a->lock);
    if (json_object_get(msg, "method") == NULL && id > 0 && id < 16 && a->by_id[id] == NULL) {
        a->by_id[id] = msg;
        msg = NULL;
    }
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    json_decref(msg);
}

typedef struct fixture {
    sluice_config *config;
    sluice_runtime *rt;
    sluice_codemode *cm;
    sluice_mcp_server *server;
    sluice_mcp_session *session;
    answers ans;
    sluice_arena *arena;
} fixture;

/* Sends request id and waits (up to 5 s) for its answer's result (borrowed from the fixture). */
static json_t *call(fixture *f, int id, const char *method, const char *params)
{
    char *frame = sluice_arena_printf(f->arena,
                                      "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\","
                                      "\"params\":%s}",
                                      id, method, params);
    char kind = 0;
    assert_int_equal(sluice_mcp_session_feed(f->session, frame, strlen(frame), NULL, &kind),
                     SLUICE_OK);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&f->ans.lock);
    while (f->ans.by_id[id] == NULL &&
           pthread_cond_timedwait(&f->ans.cond, &f->ans.lock, &deadline) == 0)
        ;
    json_t *r = f->ans.by_id[id];
    pthread_mutex_unlock(&f->ans.lock);

    assert_non_null(r);
    assert_non_null(json_object_get(r, "result"));
    return json_object_get(r, "result");
}

static json_t *structured(json_t *result)
{
    return json_object_get(result, "structuredContent");
}

/* A code-mode server on the toy executor with these languages (a TOML array), one session. */
static int open_fixture(void **state, const char *languages)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.ans.lock, NULL);
    pthread_cond_init(&f.ans.cond, NULL);
    f.arena = sluice_arena_new();
    *state = &f;
    setenv("SLUICE_TOY_SECRET", "sluice-key-v1 toy1 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
           1);
    sluice_error err = { 0 };
    const char *toml = sluice_arena_printf(
        f.arena,
        "[server]\nname = \"toy\"\n"
        "[code_mode]\nenabled = true\ntoken_secret_env = \"SLUICE_TOY_SECRET\"\n"
        "languages = %s\n",
        languages);
    if (sluice_config_load_text(toml, strlen(toml), "toy.toml", ".", &f.config, f.arena, &err) !=
        SLUICE_OK) {
        print_error("config: %s\n", err.message);
        return 1;
    }
    sluice_executor *ex = NULL;
    assert_int_equal(
        sluice_executor_wrap(&toy_ops, NULL, SLUICE_ENGINE_DUCKDB, &f.config->code_mode, &ex),
        SLUICE_OK);
    if (sluice_runtime_open(f.config, NULL, &f.rt, f.arena, &err) != SLUICE_OK ||
        sluice_codemode_open_on(f.config, f.rt, ex, &f.cm, f.arena, &err) != SLUICE_OK) {
        print_error("open: %s\n", err.message);
        return 1;
    }
    sluice_mcp_server_options o = { .name = "toy", .version = "1", .worker_threads = 2 };
    assert_int_equal(sluice_mcp_server_new(&o, &f.server, &err), SLUICE_OK);
    assert_int_equal(sluice_codemode_register(f.cm, f.server, &err), SLUICE_OK);
    static const sluice_identity who = { "alice", NULL, 0, "api-key" };
    sluice_mcp_sink sink = { answers_send, &f.ans };
    assert_int_equal(sluice_mcp_session_new(f.server, &who, "s1", sink, &f.session), SLUICE_OK);
    call(&f, 1, "initialize",
         "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
         "{\"name\":\"t\",\"version\":\"1\"}}");
    *state = &f;
    return 0;
}

static int setup(void **state)
{
    assert_int_equal(sluice_lang_register(&calc_frontend), SLUICE_OK);
    assert_int_equal(sluice_lang_register(&calc_frontend), SLUICE_E_INVALID); /* once per name */
    return open_fixture(state, "[\"calc\"]");
}

static int setup_two_languages(void **state)
{
    return open_fixture(state, "[\"calc\", \"sql\"]");
}

static int teardown(void **state)
{
    fixture *f = *state;
    sluice_mcp_session_free(f->session);
    sluice_mcp_server_free(f->server);
    sluice_codemode_close(f->cm);
    sluice_runtime_close(f->rt);
    sluice_config_free(f->config);
    for (int i = 0; i < 16; i++)
        json_decref(f->ans.by_id[i]);
    sluice_arena_free(f->arena);
    return 0;
}

static void test_plugin_language_runs_through_mcp(void **state)
{
    fixture *f = *state;
    /* tools/list names the configured language in the description; with no other to choose
     * there is no `language` argument to set (issue 26). */
    json_t *tools = json_object_get(call(f, 2, "tools/list", "{}"), "tools");
    json_t *validate = json_array_get(tools, 0);
    assert_non_null(strstr(json_string_value(json_object_get(validate, "description")), "calc"));
    assert_null(json_object_get(
        json_object_get(json_object_get(validate, "inputSchema"), "properties"), "language"));
    json_t *v =
        structured(call(f, 3, "tools/call",
                        "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"sum  1 2   3\"}}"));
    assert_true(json_is_true(json_object_get(v, "valid")));
    assert_string_equal(json_string_value(json_object_get(v, "language")), "calc");
    assert_string_equal(json_string_value(json_object_get(v, "explanation")),
                        "Adds the numbers of 'sum 1 2 3'.");
    assert_string_equal(json_string_value(json_object_get(v, "risk_level")), "low");
    const char *token = json_string_value(json_object_get(v, "approval_token"));
    assert_non_null(token);
    /* The same code in canonical spacing runs once with the token. */
    char *args = sluice_arena_printf(f->arena,
                                     "{\"name\":\"execute_code\",\"arguments\":{\"code\":"
                                     "\"sum 1 2 3\",\"approval_token\":\"%s\"}}",
                                     token);
    int before = toy_executions;
    json_t *e = structured(call(f, 4, "tools/call", args));
    assert_int_equal(toy_executions, before + 1);
    assert_int_equal(
        json_integer_value(json_array_get(json_array_get(json_object_get(e, "rows"), 0), 0)), 6);
    /* Replay and other code are refused without reaching the backend. */
    json_t *again = call(f, 5, "tools/call", args);
    assert_true(json_is_true(json_object_get(again, "isError")));
    char *other = sluice_arena_printf(f->arena,
                                      "{\"name\":\"execute_code\",\"arguments\":{\"code\":"
                                      "\"sum 1 2 4\",\"approval_token\":\"%s\"}}",
                                      token);
    json_t *refused = call(f, 6, "tools/call", other); /* json_is_true evaluates twice */
    assert_true(json_is_true(json_object_get(refused, "isError")));
    assert_int_equal(toy_executions, before + 1);
    /* A forged or garbage token is refused before the front end spends an analysis on it. */
    int analyses = calc_analyses;
    json_t *forged = call(f, 9, "tools/call",
                          "{\"name\":\"execute_code\",\"arguments\":{\"code\":\"sum 1 2 3\","
                          "\"approval_token\":\"sl1.AAAA.BBBB\"}}");
    assert_true(json_is_true(json_object_get(forged, "isError")));
    assert_int_equal(calc_analyses, analyses);
}

static void test_plugin_language_unconfigured_is_refused(void **state)
{
    fixture *f = *state;
    /* "sql" is built in but not configured here: the input schema's enum refuses it... */
    json_t *r = call(f, 7, "tools/call",
                     "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"SELECT "
                     "1\",\"language\":\"sql\"}}");
    assert_true(json_is_true(json_object_get(r, "isError")));
    /* ...and so does the pipeline behind it, with the list of configured languages. */
    static const sluice_identity who = { "alice", NULL, 0, "api-key" };
    sluice_codemode_caller caller = { .identity = &who, .session_id = "s1", .language = "sql" };
    json_t *v = NULL;
    sluice_error err = { 0 };
    const sluice_codemode_request req = {
        .arena = f->arena, .caller = &caller, .code = "SELECT 1", .code_len = 8, .err = &err
    };
    assert_int_equal(sluice_codemode_validate(f->cm, &req, &v), SLUICE_OK);
    assert_false(json_is_true(json_object_get(v, "valid")));
    json_t *viol = json_array_get(json_object_get(v, "violations"), 0);
    assert_string_equal(json_string_value(json_object_get(viol, "rule")), "unknown_language");
    assert_non_null(strstr(json_string_value(json_object_get(viol, "suggestion")), "calc"));
    assert_true(json_is_null(json_object_get(v, "approval_token")));
    json_decref(v);
    /* Bad code in the toy language is a violation with its place, not an error. */
    v = structured(call(f, 8, "tools/call",
                        "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"mul 2 3\"}}"));
    assert_false(json_is_true(json_object_get(v, "valid")));
    viol = json_array_get(json_object_get(v, "violations"), 0);
    assert_string_equal(json_string_value(json_object_get(viol, "rule")), "syntax_error");
    assert_int_equal(json_integer_value(json_object_get(viol, "line")), 1);
}

/* The `language` property of a tool's input schema. */
static json_t *language_property(json_t *tools, size_t i)
{
    json_t *tool = json_array_get(tools, i);
    return json_object_get(json_object_get(json_object_get(tool, "inputSchema"), "properties"),
                           "language");
}

static void test_two_languages_offer_a_language_enum(void **state)
{
    fixture *f = *state;
    /* With a choice to make, validate_code and execute_code take `language`: an enum of the
     * configured languages, the default named (issue 26: the one-language case has none). */
    json_t *tools = json_object_get(call(f, 2, "tools/list", "{}"), "tools");
    for (size_t i = 0; i < 2; i++) {
        json_t *lang = language_property(tools, i);
        assert_non_null(lang);
        assert_string_equal(json_string_value(json_object_get(lang, "type")), "string");
        json_t *names = json_object_get(lang, "enum");
        assert_int_equal(json_array_size(names), 2);
        assert_string_equal(json_string_value(json_array_get(names, 0)), "calc");
        assert_string_equal(json_string_value(json_array_get(names, 1)), "sql");
        assert_string_equal(json_string_value(json_object_get(lang, "description")),
                            "default calc");
    }
    /* The instructions say the same and give each language its section. */
    json_t *read = call(f, 3, "resources/read", "{\"uri\":\"code-mode://instructions\"}");
    const char *text = json_string_value(
        json_object_get(json_array_get(json_object_get(read, "contents"), 0), "text"));
    assert_non_null(text);
    assert_non_null(strstr(text, "{code, language, variables} (`language`: a section below; "
                                 "default `calc`)"));
    assert_non_null(strstr(text, "## `calc`: "));
    assert_non_null(strstr(text, "## `sql`: "));
    /* Without `language` the default judges the code; with it, the named one. */
    json_t *v = structured(call(
        f, 4, "tools/call", "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"sum 1 2\"}}"));
    assert_string_equal(json_string_value(json_object_get(v, "language")), "calc");
    assert_true(json_is_true(json_object_get(v, "valid")));
    v = structured(call(f, 5, "tools/call",
                        "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"sum 1 2\","
                        "\"language\":\"sql\"}}"));
    assert_string_equal(json_string_value(json_object_get(v, "language")), "sql");
    assert_false(json_is_true(json_object_get(v, "valid"))); /* not SQL */
    /* A language outside the enum is refused. */
    json_t *r = call(f, 6, "tools/call",
                     "{\"name\":\"validate_code\",\"arguments\":{\"code\":\"sum 1 2\","
                     "\"language\":\"graphql\"}}");
    assert_true(json_is_true(json_object_get(r, "isError")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plugin_language_runs_through_mcp),
        cmocka_unit_test(test_plugin_language_unconfigured_is_refused),
    };
    const struct CMUnitTest two[] = {
        cmocka_unit_test(test_two_languages_offer_a_language_enum),
    };
    int failed = cmocka_run_group_tests_name("one language", tests, setup, teardown);
    return failed +
           cmocka_run_group_tests_name("two languages", two, setup_two_languages, teardown);
}
