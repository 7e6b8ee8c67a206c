/*
 * js_run.c — runs JavaScript plans through the plan interpreter for the differential test
 * against Node (tests/node/js_diff.mjs).
 *
 * Input (stdin): plans separated by a line holding only "\x1e" (ASCII RS). Output (stdout): one
 * line per plan: {"ok":<JSON text or "undefined">} | {"error":"<name>"} | {"refused":"<rule>"}
 * | {"limit":"<setting>"}. A deterministic fake `api` answers every call with
 * {"method","path","body","n"} so both sides see the same data.
 *
 * Options (bench/jsinterp/run.sh): --time adds "ns" (arena, parse, run and result text of that
 * plan, CLOCK_MONOTONIC) to each line; --fixtures FILE answers a call whose "METHOD path" is a
 * key of FILE's JSON object with that value instead; --args JSON sets the `args` global.
 */
#include "core/arena.h"
#include "core/buf.h"
#include "exec/js/interp.h"
#include "lang/js/js.h"
#include "syntax/js/parse.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static json_t *fixtures;  /* --fixtures: "METHOD path" -> response, or NULL */
static json_t *plan_args; /* --args, or NULL */
static int time_mode;
/* --blocked a,b: output-blocked fields (taint); --refuse: refuse instead of strip. In this mode
 * each line also carries the run's logs and whether it read or was steered by one. */
static sluice_strlist blocked;
static const char *blocked_items[16];
static int refuse_mode;

/* The --fixtures answer for this call, a new reference, or NULL (none: the default answer). */
static json_t *fixture_for(const sluice_js_call *call, const json_t *path)
{
    if (fixtures == NULL || !json_is_string(path))
        return NULL;
    char key[512];
    int n = snprintf(key, sizeof key, "%s %s", call->method, json_string_value(path));
    json_t *v = n > 0 && (size_t)n < sizeof key ? json_object_get(fixtures, key) : NULL;
    return v != NULL ? json_deep_copy(v) : NULL;
}

static sluice_status fake_api(
    void *ctx, sluice_arena *arena, const sluice_js_call *call, json_t **result, sluice_error *err)
{
    (void)ctx;
    const json_t *path = json_array_get(call->args, 0);
    if ((*result = fixture_for(call, path)) != NULL)
        return SLUICE_OK;
    if (json_is_string(path) && strstr(json_string_value(path), "fail") != NULL)
        return sluice_error_set(err, arena, SLUICE_E_ENGINE, "HTTP 500 from %s",
                                json_string_value(path));
    *result = json_pack("{s:s,s:O?,s:O?,s:I}", "method", call->method, "path", path, "body",
                        json_array_get(call->args, 1), "n", (json_int_t)call->index);
    return *result != NULL ? SLUICE_OK : SLUICE_E_NOMEM;
}

static int facts_mode;

/* --facts: the front end's CodeFacts record instead of a run (max_api_calls = 10). */
static void facts_one(const char *code, size_t len)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_config_code_mode cm = { .max_api_calls = 10, .openapi_reads_enabled = true };
    sluice_frontend_context ctx = { .code_mode = &cm };
    sluice_codefacts *f = NULL;
    sluice_error err = { 0 };
    if (sluice_js_frontend()->analyze(arena, code, len, NULL, &ctx, &f, &err) == SLUICE_OK) {
        json_t *j = sluice_codefacts_to_json(f);
        char *text = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
        puts(text != NULL ? text : "{}");
        free(text);
        json_decref(j);
    } else {
        printf("{\"analyzer_error\":\"%s\"}\n", err.message);
    }
    sluice_arena_free(arena);
}

static void run_one(const char *code, size_t len)
{
    if (facts_mode) {
        facts_one(code, len);
        return;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err = { 0 };
    sluice_js_program prog;
    json_t *line = NULL;
    sluice_status st = sluice_js_parse(arena, code, len, &prog, &err);
    if (st != SLUICE_OK) {
        line = json_pack("{s:s,s:s}", "refused", err.key != NULL ? err.key : "syntax_error",
                         "message", err.message != NULL ? err.message : "");
    } else {
        sluice_js_run_options o = { 0 };
        o.limits.max_steps = 2000000;
        o.limits.max_memory_bytes = 64u * 1024u * 1024u;
        o.limits.max_api_calls = 1000;
        o.host.call = fake_api;
        o.host.has_api = true;
        o.args = plan_args;
        o.taint_fields[0] = blocked.count > 0 ? &blocked : NULL;
        o.taint_refuse = refuse_mode;
        sluice_js_run_result r;
        st = sluice_js_run(arena, &prog, &o, &r, &err);
        if (st != SLUICE_OK)
            line = json_pack("{s:s,s:s}", "limit", err.key != NULL ? err.key : "?", "message",
                             err.message != NULL ? err.message : "");
        else if (r.threw)
            line = json_pack("{s:s,s:s}", "error", r.error_name, "message",
                             r.error_message != NULL ? r.error_message : "");
        else
            line = json_pack("{s:s}", "ok", r.json != NULL ? r.json : "undefined");
        if (line != NULL && blocked.count > 0 && st == SLUICE_OK) {
            json_object_set(line, "logs", r.logs);
            json_object_set_new(line, "tainted", json_boolean(r.tainted));
            json_object_set_new(line, "steered", json_boolean(r.steered));
        }
    }
    sluice_arena_free(arena);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (time_mode && line != NULL)
        json_object_set_new(line, "ns",
                            json_integer((json_int_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
                                         (t1.tv_nsec - t0.tv_nsec)));
    char *text = line != NULL ? json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    puts(text != NULL ? text : "{\"crash\":\"nomem\"}");
    free(text);
    json_decref(line);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--facts") == 0)
            facts_mode = 1;
        else if (strcmp(argv[i], "--time") == 0)
            time_mode = 1;
        else if (strcmp(argv[i], "--fixtures") == 0 && i + 1 < argc)
            fixtures = json_load_file(argv[++i], 0, NULL);
        else if (strcmp(argv[i], "--refuse") == 0)
            refuse_mode = 1;
        else if (strcmp(argv[i], "--blocked") == 0 && i + 1 < argc) {
            for (char *f = argv[++i], *c; f != NULL && blocked.count < 16; f = c) {
                if ((c = strchr(f, ',')) != NULL)
                    *c++ = '\0';
                blocked_items[blocked.count++] = f;
            }
            blocked.items = blocked_items;
        } else if (strcmp(argv[i], "--args") == 0 && i + 1 < argc)
            plan_args = json_loads(argv[++i], 0, NULL);
        else {
            fprintf(stderr, "js_run: unknown or incomplete option %s\n", argv[i]);
            return 2;
        }
        if ((strcmp(argv[i - 1], "--fixtures") == 0 && fixtures == NULL) ||
            (strcmp(argv[i - 1], "--args") == 0 && plan_args == NULL)) {
            fprintf(stderr, "js_run: %s %s: not a JSON file/text\n", argv[i - 1], argv[i]);
            return 2;
        }
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return 1;
    for (;;) {
        if (len + 65536 > cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL)
                return 1;
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, 65536, stdin);
        if (n == 0)
            break;
        len += n;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || (buf[i] == '\x1e' && (i + 1 == len || buf[i + 1] == '\n'))) {
            if (i > start || i < len)
                run_one(buf + start, i - start);
            start = i + 2;
            i++;
        }
    }
    fflush(stdout);
    free(buf);
    return 0;
}
