/*
 * test_program.c — saved programs' records (codemode/program.h) and their file store
 * (state/program_store.h): parameters typed and bounded, the input schema, sealing and opening,
 * versions, demotion, staleness, and a store edited by hand or cut short failing closed. Ends
 * with allocation sweeps over a promotion and over loading the catalog: a fault never yields a
 * program that runs with other code, and never enables a record that does not verify.
 */
#include "codemode/program.h"
#include "core/limits.h"
#include "oom_sweep.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/sluice-program-XXXXXX";
static int seq;
static sluice_secret_ring *ring, *other_ring;

static sluice_secret_ring *make_ring(const char *id)
{
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    sluice_secret *key = NULL;
    sluice_secret_ring *r = NULL;
    if (sluice_secret_generate(id, line, sizeof line) != SLUICE_OK ||
        sluice_secret_parse(line, strlen(line), "test", &key, NULL, NULL) != SLUICE_OK ||
        sluice_secret_ring_new(key, &r) != SLUICE_OK)
        return NULL;
    return r;
}

static int setup(void **state)
{
    (void)state;
    ring = make_ring("k1");
    other_ring = make_ring("k2");
    return mkdtemp(dir) != NULL && ring != NULL && other_ring != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sluice_secret_ring_free(ring);
    sluice_secret_ring_free(other_ring);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fresh store file path. */
static const char *store_path(void)
{
    static char path[160];
    snprintf(path, sizeof path, "%s/programs-%d.jsonl", dir, ++seq);
    return path;
}

static sluice_program example(sluice_arena *arena, const char *name, int64_t version)
{
    json_t *vars = json_pack("{s:s, s:i}", "region", "EU", "top", 5);
    sluice_program p = {
        .name = name,
        .version = version,
        .language = "sql",
        .code = "SELECT name FROM customers WHERE region = $region LIMIT $top",
        .code_hash = "ab12",
        .description = "top customers of a region",
        .action = "read",
        .risk = "low",
        .basis = { "default", "schema-1", "policy-1", "rules-1" },
        .by = "root",
        .at = 1700000000,
        .reason = "",
    };
    sluice_error err = { 0 };
    assert_int_equal(sluice_program_params_from(arena, NULL, vars, &p.params, &p.param_count, &err),
                     SLUICE_OK);
    json_decref(vars);
    return p;
}

static void test_program_params_from_variables_are_typed_and_bounded(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_program p = example(arena, "top", 1);
    assert_int_equal(p.param_count, 2);
    json_t *schema = sluice_program_input_schema(&p);
    char *text = json_dumps(schema, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(
        text, "{\"additionalProperties\":false,\"properties\":{\"region\":{\"maxLength\":1024,"
              "\"type\":\"string\"},\"top\":{\"maximum\":9007199254740991,\"minimum\":"
              "-9007199254740991,\"type\":\"integer\"}},\"required\":[\"region\",\"top\"],"
              "\"type\":\"object\"}");
    free(text);
    json_decref(schema);
    sluice_error err = { 0 };
    json_t *ok = json_pack("{s:s, s:i}", "region", "US", "top", 3);
    assert_int_equal(sluice_program_check_arguments(&p, ok, arena, &err), SLUICE_OK);
    json_t *extra = json_pack("{s:s, s:i, s:s}", "region", "US", "top", 3, "sql", "DROP");
    assert_int_equal(sluice_program_check_arguments(&p, extra, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "sql"));
    json_t *missing = json_pack("{s:s}", "region", "US");
    assert_int_equal(sluice_program_check_arguments(&p, missing, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "top"));
    json_t *wrong = json_pack("{s:i, s:i}", "region", 1, "top", 3);
    assert_int_equal(sluice_program_check_arguments(&p, wrong, arena, &err), SLUICE_E_INVALID);
    char big[SLUICE_LIMIT_PROGRAM_STRING_CHARS + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    json_t *long_text = json_pack("{s:s, s:i}", "region", big, "top", 3);
    assert_int_equal(sluice_program_check_arguments(&p, long_text, arena, &err), SLUICE_E_INVALID);
    assert_int_equal(sluice_program_check_arguments(&p, NULL, arena, &err), SLUICE_E_INVALID);
    json_decref(ok);
    json_decref(extra);
    json_decref(missing);
    json_decref(wrong);
    json_decref(long_text);
    sluice_arena_free(arena);
}

static void test_program_params_spec_errors_say_what_to_fix(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *vars, *message;
    } cases[] = {
        { "{\"a\": {\"type\": \"date\"}}", "{\"a\": \"x\"}",
          "parameter 'a': type must be \"string\", \"integer\", \"number\" or \"boolean\"" },
        { "{\"a\": {\"type\": \"integer\", \"minimum\": 5, \"maximum\": 1}}", "{\"a\": 3}",
          "parameter 'a': minimum 5 is above maximum 1" },
        { "{\"a\": {\"type\": \"integer\", \"maxLength\": 5}}", "{\"a\": 3}",
          "parameter 'a': maxLength applies to string parameters only" },
        { "{\"a\": {\"type\": \"integer\", \"pattern\": \".*\"}}", "{\"a\": 3}",
          "parameter 'a': unknown key 'pattern' (use type, description, minimum, maximum, "
          "maxLength)" },
        { "{\"a\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 10}}", "{\"a\": 30}",
          "the validated variables do not fit the parameters: variables.a: must be <= 10, got 30; "
          "pass one value per parameter, of its type and within its bounds" },
        { NULL, "{\"a\": null}",
          "variable 'a' is null: a saved program's parameters are strings, numbers or booleans; "
          "give its type in the parameter spec" },
        { NULL, "{\"1a\": 1}",
          "parameter '1a' is not a valid name: use 1-64 of A-Z a-z 0-9 _, not starting with a "
          "digit" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sluice_arena *arena = sluice_arena_new();
        json_t *spec = cases[i].spec != NULL ? json_loads(cases[i].spec, 0, NULL) : NULL;
        json_t *vars = json_loads(cases[i].vars, 0, NULL);
        sluice_program_param *params = NULL;
        size_t n = 0;
        sluice_error err = { 0 };
        sluice_status st = sluice_program_params_from(arena, spec, vars, &params, &n, &err);
        if (st == SLUICE_OK || strcmp(err.message, cases[i].message) != 0)
            fail_msg("case %zu: %s", i, err.message != NULL ? err.message : "accepted");
        json_decref(spec);
        json_decref(vars);
        sluice_arena_free(arena);
    }
}

static sluice_program_store *open_store(const char *path)
{
    sluice_program_store *s = NULL;
    sluice_error err = { 0 };
    assert_int_equal(sluice_program_store_open_file(path, &s, NULL, &err), SLUICE_OK);
    return s;
}

static void test_program_save_load_versions_and_demotion(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_program_store *s = open_store(store_path());
    sluice_error err = { 0 };
    sluice_program p = example(arena, "top", 1);
    assert_int_equal(sluice_program_save(s, ring, &p, arena, &err), SLUICE_OK);
    /* a second version 1 is refused: someone else promoted it meanwhile */
    assert_int_equal(sluice_program_save(s, ring, &p, arena, &err), SLUICE_E_DENIED);
    assert_non_null(strstr(err.message, "saved program 'top' is at version 1 in "));
    assert_non_null(strstr(err.message, ", not 0: someone changed it meanwhile; look at it again "
                                        "(sluice program list) and retry"));
    sluice_program q = example(arena, "other", 1);
    assert_int_equal(sluice_program_save(s, ring, &q, arena, &err), SLUICE_OK);
    p.version = 2;
    p.code = "SELECT name FROM customers WHERE region = $region ORDER BY name LIMIT $top";
    assert_int_equal(sluice_program_save(s, ring, &p, arena, &err), SLUICE_OK);
    sluice_program_catalog c;
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_OK);
    assert_int_equal(c.count, 2);
    const sluice_program *got = sluice_program_find(&c, "top");
    assert_non_null(got);
    assert_null(got->disabled);
    assert_int_equal(got->version, 2);
    assert_string_equal(got->code, p.code);
    assert_int_equal(got->param_count, 2);
    assert_string_equal(got->params[1].name, "top");
    p.version = 3;
    p.demoted = true;
    p.by = "ops";
    p.reason = "wrong region";
    assert_int_equal(sluice_program_save(s, ring, &p, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_OK);
    got = sluice_program_find(&c, "top");
    assert_string_equal(got->disabled,
                        "saved program 'top' was demoted by ops (version 3): wrong region; it no "
                        "longer runs. Ask an administrator to promote it again, or validate the "
                        "code with validate_code");
    assert_null(sluice_program_find(&c, "other")->disabled);
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

/* Rewrites line (1-based) of path with `from` replaced by `to` (same file otherwise). */
static void edit_line(const char *path, int line, const char *from, const char *to)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 16], out[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = buf;
    for (int i = 1; i < line; i++)
        p = strchr(p, '\n') + 1;
    char *hit = strstr(p, from);
    assert_non_null(hit);
    size_t head = (size_t)(hit - buf);
    memcpy(out, buf, head);
    memcpy(out + head, to, strlen(to));
    snprintf(out + head + strlen(to), sizeof out - head - strlen(to), "%s", hit + strlen(from));
    f = fopen(path, "w");
    fputs(out, f);
    fclose(f);
}

static void test_program_tampered_store_fails_closed(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *path = store_path();
    sluice_program_store *s = open_store(path);
    sluice_error err = { 0 };
    sluice_program a = example(arena, "a", 1), b = example(arena, "b", 1);
    assert_int_equal(sluice_program_save(s, ring, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_save(s, ring, &b, arena, &err), SLUICE_OK);
    /* the last line's code edited: b no longer verifies, a still does */
    edit_line(path, 2, "LIMIT $top", "LIMIT 1000000");
    sluice_program_catalog c;
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_OK);
    assert_null(sluice_program_find(&c, "a")->disabled);
    const char *why = sluice_program_find(&c, "b")->disabled;
    assert_non_null(why);
    assert_non_null(strstr(why, "does not verify: it was changed outside sluice"));
    /* the first line edited: the link from line 2 breaks, and nothing runs */
    edit_line(path, 1, "LIMIT $top", "LIMIT 1000000");
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "is damaged at line 2: its prev link does not match"));
    /* nothing is appended to a damaged store */
    sluice_program d = example(arena, "d", 1);
    assert_int_equal(sluice_program_save(s, ring, &d, arena, &err), SLUICE_E_INVALID);
    sluice_program_store_close(s);

    /* a record signed by a key the server does not hold */
    s = open_store(store_path());
    assert_int_equal(sluice_program_save(s, other_ring, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_OK);
    assert_non_null(strstr(sluice_program_find(&c, "a")->disabled, "(k2)"));
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

/* Cuts path back to its first `keep` lines. */
static void keep_lines(const char *path, int keep)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = buf;
    for (int i = 0; i < keep; i++)
        p = strchr(p, '\n') + 1;
    assert_int_equal(truncate(path, (off_t)(p - buf)), 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The chain proves order and content, not that nothing was cut from the end: a truncated tail
 * (here: the demotion of b) is caught by the head file, the head going back by the server that
 * read more, and a missing head refuses a non-empty store. */
static void test_program_truncated_tail_disables_every_program(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *path = store_path();
    char head[200];
    snprintf(head, sizeof head, "%s.head", path);
    sluice_program_store *s = open_store(path);
    sluice_error err = { 0 };
    sluice_program a = example(arena, "a", 1), b = example(arena, "b", 1);
    assert_int_equal(sluice_program_save(s, ring, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_save(s, ring, &b, arena, &err), SLUICE_OK);
    b.version = 2;
    b.demoted = true;
    b.reason = "leaks rows";
    assert_int_equal(sluice_program_save(s, ring, &b, arena, &err), SLUICE_OK);
    sluice_program_catalog c;
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_OK);
    assert_true(sluice_program_find(&c, "b")->demoted);

    /* the demotion cut off: a fresh reader (another process) and this one both refuse */
    keep_lines(path, 2);
    sluice_program_store *fresh = open_store(path);
    assert_int_equal(sluice_program_catalog_load(fresh, ring, arena, &c, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "is truncated: it has 2 complete lines and its head file"));
    assert_non_null(strstr(err.message, "says 3; the last 1 were cut from its end (a demotion "
                                        "may be among them), so no saved program runs"));
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_E_INVALID);
    /* nothing is appended to a truncated store */
    sluice_program d = example(arena, "d", 1);
    assert_int_equal(sluice_program_save(s, ring, &d, arena, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "is truncated"));

    /* the head rewritten to match: a server that read more still refuses */
    write_text(head, "sluice-program-store-head v1 lines 2\n");
    assert_int_equal(sluice_program_catalog_load(s, ring, arena, &c, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "was cut back: its head file"));
    assert_non_null(strstr(err.message, "says 2 lines where this server already read 3"));

    /* the head deleted, or not a head */
    unlink(head);
    assert_int_equal(sluice_program_catalog_load(fresh, ring, arena, &c, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "has 2 lines but no head file"));
    assert_non_null(strstr(err.message, "write the line \"sluice-program-store-head v1 lines 2\""));
    write_text(head, "lines 2\n");
    assert_int_equal(sluice_program_catalog_load(fresh, ring, arena, &c, &err), SLUICE_E_INVALID);
    assert_non_null(strstr(err.message, "cannot be read or is not a head (unexpected text)"));
    /* the repair the message names: the head as the store is; appends then move it on */
    write_text(head, "sluice-program-store-head v1 lines 2\n");
    assert_int_equal(sluice_program_catalog_load(fresh, ring, arena, &c, &err), SLUICE_OK);
    assert_false(sluice_program_find(&c, "b")->demoted);
    assert_int_equal(sluice_program_save(fresh, ring, &d, arena, &err), SLUICE_OK);
    FILE *f = fopen(head, "r");
    char text[80] = { 0 };
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "sluice-program-store-head v1 lines 3\n");
    sluice_program_store_close(fresh);
    sluice_program_store_close(s);
    sluice_arena_free(arena);
}

static void test_program_stale_names_what_changed(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_program p = example(arena, "top", 4);
    sluice_program_basis live = p.basis;
    assert_null(sluice_program_stale(&p, &live, arena));
    live.schema_version = "schema-2";
    assert_string_equal(sluice_program_stale(&p, &live, arena),
                        "saved program 'top' (version 4) is disabled: the schema of database "
                        "'default' changed since it was promoted, so the approval its promotion "
                        "gave no longer holds. An administrator must validate it again and "
                        "re-promote it (sluice program promote); until then use validate_code and "
                        "execute_code");
    live = p.basis;
    live.policy_version = "policy-2";
    assert_non_null(strstr(sluice_program_stale(&p, &live, arena), "the policy set changed"));
    live = p.basis;
    live.rules = "rules-2";
    assert_non_null(strstr(sluice_program_stale(&p, &live, arena), "[code_mode] rules changed"));
    live = p.basis;
    live.backend = "pg";
    assert_non_null(strstr(sluice_program_stale(&p, &live, arena), "your route runs on 'pg'"));
    sluice_arena_free(arena);
}

/* ---- allocation sweeps ---------------------------------------------------------------------- */

typedef struct sweep_ctx {
    const char *path;
    const char *good_code;
} sweep_ctx;

/* A promotion under a fault: either it failed (and the store has no version 2), or it wrote
 * exactly the program asked for. */
static oom_outcome run_promote(void *ctx)
{
    sweep_ctx *x = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_program_store *s = NULL;
    sluice_error err = { 0 };
    char path[200];
    snprintf(path, sizeof path, "%s.%d", x->path, ++seq);
    sluice_status st = sluice_program_store_open_file(path, &s, arena, &err);
    json_t *vars = st == SLUICE_OK ? json_pack("{s:s, s:i}", "region", "EU", "top", 5) : NULL;
    sluice_program p = { .name = "top",
                         .version = 1,
                         .language = "sql",
                         .code = x->good_code,
                         .code_hash = "ab",
                         .description = "",
                         .action = "read",
                         .risk = "low",
                         .basis = { "default", "s", "p", "r" },
                         .by = "root",
                         .at = 1,
                         .reason = "" };
    if (st == SLUICE_OK)
        st = vars == NULL
                 ? SLUICE_E_NOMEM
                 : sluice_program_params_from(arena, NULL, vars, &p.params, &p.param_count, &err);
    json_decref(vars);
    if (st == SLUICE_OK)
        st = sluice_program_save(s, ring, &p, arena, &err);
    long left = sluice_arena_fail_remaining(); /* judge what was written without faults */
    sluice_arena_fail_at(0);
    oom_outcome out = OOM_FAILED;
    sluice_program_catalog c;
    sluice_arena *check = sluice_arena_new();
    if (s != NULL && sluice_program_catalog_load(s, ring, check, &c, &err) == SLUICE_OK) {
        const sluice_program *got = sluice_program_find(&c, "top");
        if (st != SLUICE_OK)
            out = got == NULL ? OOM_FAILED : OOM_WRONG;
        else
            out = got != NULL && got->disabled == NULL && strcmp(got->code, x->good_code) == 0 &&
                          got->param_count == 2
                      ? OOM_ALLOWED
                      : OOM_WRONG;
    } else if (st == SLUICE_OK) {
        out = OOM_WRONG;
    }
    sluice_arena_free(check);
    sluice_program_store_close(s);
    unlink(path);
    sluice_arena_free(arena);
    sluice_arena_fail_at(left); /* still armed: the fault was not reached */
    return out;
}

/* Loading a store of one good and one tampered record under a fault: an error, or the good one
 * enabled with its own code and the tampered one disabled; never the tampered one enabled. */
static oom_outcome run_load(void *ctx)
{
    sweep_ctx *x = ctx;
    sluice_arena *arena = sluice_arena_new();
    if (arena == NULL)
        return OOM_FAILED;
    sluice_program_store *s = NULL;
    sluice_error err = { 0 };
    sluice_program_catalog c;
    sluice_status st = sluice_program_store_open_file(x->path, &s, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_program_catalog_load(s, ring, arena, &c, &err);
    oom_outcome out = OOM_FAILED;
    if (st == SLUICE_OK) {
        const sluice_program *a = sluice_program_find(&c, "a"), *b = sluice_program_find(&c, "b");
        out = a != NULL && a->disabled == NULL && strcmp(a->code, x->good_code) == 0 && b != NULL &&
                      b->disabled != NULL
                  ? OOM_ALLOWED
                  : OOM_WRONG;
    }
    sluice_program_store_close(s);
    sluice_arena_free(arena);
    return out;
}

static void test_program_allocation_sweeps_never_enable_the_wrong_program(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    const char *path = store_path();
    sluice_program_store *s = open_store(path);
    sluice_error err = { 0 };
    sluice_program a = example(arena, "a", 1), b = example(arena, "b", 1);
    assert_int_equal(sluice_program_save(s, ring, &a, arena, &err), SLUICE_OK);
    assert_int_equal(sluice_program_save(s, ring, &b, arena, &err), SLUICE_OK);
    sluice_program_store_close(s);
    edit_line(path, 2, "LIMIT $top", "LIMIT 99");
    sweep_ctx x = { path, a.code };
    oom_count_jansson();
    long n = oom_sweep("program catalog load", run_load, &x, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    assert_true(n > 10);
    n = oom_sweep("program promote", run_promote, &x, OOM_ALLOWED, OOM_ACCEPT(OOM_FAILED));
    assert_true(n > 10);
    json_set_alloc_funcs(malloc, free);
    sluice_arena_free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_params_from_variables_are_typed_and_bounded),
        cmocka_unit_test(test_program_params_spec_errors_say_what_to_fix),
        cmocka_unit_test(test_program_save_load_versions_and_demotion),
        cmocka_unit_test(test_program_tampered_store_fails_closed),
        cmocka_unit_test(test_program_truncated_tail_disables_every_program),
        cmocka_unit_test(test_program_stale_names_what_changed),
        cmocka_unit_test(test_program_allocation_sweeps_never_enable_the_wrong_program),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
