/*
 * test_config.c — the typed configuration loader (src/config/config.c) and did-you-mean
 * (src/config/suggest.c).
 *
 * Table cases live in tests/unit/data/config/: NAME.toml beside NAME.expected, which holds
 * "ok" or the exact error line ("NAME.toml:L:C: message") and, when there is one, the
 * "hint: ..." line. ${DIR} in an expected file stands for that folder's absolute path. A new
 * case needs no C.
 */
#include "config/config.h"
#include "config/suggest.h"
#include "core/buf.h"
#include "core/limits.h"
#include "unit.h"

#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_DIR SLUICE_SOURCE_DIR "/tests/unit/data/config"

static char data_dir[PATH_MAX];

static int enter_data_dir(void **state)
{
    (void)state;
    if (realpath(DATA_DIR, data_dir) == NULL || chdir(data_dir) != 0)
        return -1;
    return 0;
}

/* The whole file: docs/config.md outgrew a fixed 64 KiB buffer once, and the keys past the cut
 * were reported as undocumented. */
static char *slurp(sluice_arena *arena, const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *text = sluice_arena_alloc(arena, (size_t)size + 1);
    assert_non_null(text);
    size_t n = fread(text, 1, (size_t)size, f);
    fclose(f);
    assert_int_equal(n, (size_t)size);
    text[n] = '\0';
    return text;
}

/* Trailing newlines and spaces off, in place. */
static char *trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    return s;
}

/* expected with every ${DIR} replaced by the data folder's absolute path. */
static const char *expand_dir(sluice_arena *arena, const char *expected)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, 0);
    const char *p = expected, *at;
    while ((at = strstr(p, "${DIR}")) != NULL) {
        sluice_buf_append(&b, p, (size_t)(at - p));
        sluice_buf_puts(&b, data_dir);
        p = at + 6;
    }
    sluice_buf_puts(&b, p);
    assert_int_equal(sluice_buf_status(&b), SLUICE_OK);
    return b.data;
}

/* "ok", or the rendered error without the source line: "<file>:L:C: message[\nhint: ...]". */
static char *outcome(sluice_arena *arena, const char *file)
{
    sluice_config *cfg = NULL;
    sluice_error err;
    sluice_status st = sluice_config_load(file, &cfg, arena, &err);
    if (st == SLUICE_OK) {
        sluice_config_free(cfg);
        return sluice_arena_strdup(arena, "ok");
    }
    assert_int_equal(st, SLUICE_E_CONFIG);
    return trim(sluice_error_render(arena, &err, NULL, 0));
}

static void test_config_table_cases(void **state)
{
    (void)state;
    DIR *dir = opendir(".");
    assert_non_null(dir);
    size_t cases = 0, failed = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".toml") != 0)
            continue;
        sluice_arena *arena = sluice_arena_new();
        assert_non_null(arena);
        char *expected_path = sluice_arena_printf(arena, "%.*s.expected", (int)(n - 5), e->d_name);
        const char *expected = expand_dir(arena, trim(slurp(arena, expected_path)));
        const char *actual = outcome(arena, e->d_name);
        if (strcmp(expected, actual) != 0) {
            print_error("%s:\n  expected: %s\n  actual:   %s\n", e->d_name, expected, actual);
            failed++;
        }
        cases++;
        sluice_arena_free(arena);
    }
    closedir(dir);
    print_message("%zu config cases\n", cases);
    assert_true(cases >= 30);
    assert_int_equal(failed, 0);
}

static sluice_config *load_ok(const char *text)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    sluice_status st =
        sluice_config_load_text(text, strlen(text), "<test>", "/etc/sluice", &cfg, arena, &err);
    if (st != SLUICE_OK)
        print_error("%s\n", sluice_error_render(arena, &err, text, strlen(text)));
    assert_int_equal(st, SLUICE_OK);
    sluice_arena_free(arena);
    return cfg;
}

static void assert_defaults(const sluice_config *cfg)
{
    assert_string_equal(cfg->server.name, "sluice");
    assert_null(cfg->server.instructions);
    assert_string_equal(cfg->server.listen, "127.0.0.1:8808");
    assert_string_equal(cfg->server.listen_host, "127.0.0.1");
    assert_int_equal(cfg->server.listen_port, 8808);
    assert_int_equal(cfg->server.allowed_origins.count, 3);
    assert_string_equal(cfg->server.allowed_origins.items[0], "http://localhost");
    assert_int_equal(cfg->server.allowed_hosts.count, 3);
    assert_int_equal(cfg->server.max_body_bytes, 1024 * 1024);
    assert_int_equal(cfg->server.max_sessions, 256);
    assert_int_equal(cfg->server.session_idle_seconds, 1800);
    assert_int_equal(cfg->server.request_timeout_seconds, 60);
    assert_string_equal(cfg->server.log_level, "info");
    assert_string_equal(cfg->identity.user, "local");
    assert_int_equal(cfg->identity.groups.count, 0);
    assert_int_equal(cfg->api_key_count, 0);
    assert_false(cfg->has_database);
    assert_int_equal(cfg->database.engine, SLUICE_ENGINE_DUCKDB);
    assert_null(cfg->database.path);
    assert_string_equal(cfg->database.memory_limit, "512MB");
    assert_int_equal(cfg->database.threads, 2);
    const sluice_config_code_mode *cm = &cfg->code_mode;
    assert_false(cm->enabled);
    assert_string_equal(cm->server_id, "sluice");
    assert_int_equal(cm->token_ttl_seconds, 300);
    assert_null(cm->token_secret_file);
    assert_null(cm->token_secret_env);
    assert_true(cm->auto_approve[SLUICE_RISK_LOW]);
    assert_false(cm->auto_approve[SLUICE_RISK_MEDIUM]);
    assert_false(cm->auto_approve[SLUICE_RISK_HIGH]);
    assert_false(cm->auto_approve[SLUICE_RISK_CRITICAL]);
    assert_int_equal(cm->execution_timeout_seconds, 30);
    assert_int_equal(cm->max_result_bytes,
                     50000); /* SLUICE_LIMIT_DEFAULT_RESULT_BYTES, documented */
    assert_int_equal(cm->schema_exposure, SLUICE_EXPOSURE_FULL);
    assert_null(cm->audit_log);
    assert_null(cm->replay_store);
    assert_true(cm->sql_reads_enabled);
    assert_false(cm->sql_allow_writes);
    assert_false(cm->sql_allow_deletes);
    assert_false(cm->sql_allow_ddl);
    assert_true(cm->sql_require_where_on_writes);
    assert_false(cm->sql_require_limit);
    assert_int_equal(cm->sql_max_rows, 10000);
    assert_int_equal(cm->sql_max_joins, 5);
    assert_int_equal(cm->sql_allowed_tables.count, 0);
    assert_int_equal(cm->sql_blocked_columns.count, 0);
    assert_int_equal(cfg->tool_count + cfg->prompt_count + cfg->resource_count, 0);
}

static void test_config_empty_file_gives_documented_defaults(void **state)
{
    (void)state;
    unsetenv("SLUICE_USER");
    sluice_config *cfg = load_ok("");
    assert_defaults(cfg);
    sluice_config_free(cfg);
    assert_int_equal(sluice_config_defaults(&cfg), SLUICE_OK);
    assert_defaults(cfg);
    sluice_config_free(cfg);
}

static void test_config_user_defaults_to_environment(void **state)
{
    (void)state;
    setenv("SLUICE_USER", "bob", 1);
    sluice_config *cfg = load_ok("[server]\nname = \"x\"\n");
    assert_string_equal(cfg->identity.user, "bob");
    assert_string_equal(cfg->code_mode.server_id, "x");
    sluice_config_free(cfg);
    cfg = load_ok("[identity]\nuser = \"carol\"\n");
    assert_string_equal(cfg->identity.user, "carol");
    sluice_config_free(cfg);
    unsetenv("SLUICE_USER");
}

static void test_config_full_file_lands_in_the_struct(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load("ok_full.toml", &cfg, arena, &err), SLUICE_OK);
    char *want = sluice_arena_printf(arena, "%s/shop.duckdb", data_dir);
    assert_string_equal(cfg->database.path, want);
    assert_true(cfg->has_database);
    assert_int_equal(cfg->database.threads, 4);
    assert_string_equal(cfg->server.listen_host, "::1");
    assert_int_equal(cfg->server.listen_port, 0);
    assert_int_equal(cfg->server.allowed_origins.count, 2);
    assert_string_equal(cfg->server.log_level, "debug");
    assert_int_equal(cfg->api_key_count, 2);
    assert_string_equal(cfg->api_keys[0].sha256_hex,
                        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    assert_int_equal(cfg->api_keys[0].line, 12);
    assert_string_equal(cfg->api_keys[1].env, "SLUICE_CI_KEY");
    const sluice_config_code_mode *cm = &cfg->code_mode;
    assert_true(cm->enabled);
    assert_string_equal(cm->token_secret_file,
                        sluice_arena_printf(arena, "%s/secret.key", data_dir));
    assert_true(cm->auto_approve[SLUICE_RISK_MEDIUM]);
    assert_false(cm->auto_approve[SLUICE_RISK_HIGH]);
    assert_string_equal(cm->replay_store,
                        sluice_arena_printf(arena, "%s/audit.log.replay", data_dir));
    assert_int_equal(cm->sql_max_rows, 500);
    /* blocked_fields merged into sql_blocked_columns, without duplicates. */
    assert_int_equal(cm->sql_blocked_columns.count, 2);
    assert_string_equal(cm->sql_blocked_columns.items[0], "customers.email");
    assert_string_equal(cm->sql_blocked_columns.items[1], "ssn");
    assert_int_equal(cfg->tool_count, 1);
    assert_int_equal(cfg->tools[0].param_count, 2);
    assert_int_equal(cfg->tools[0].params[1].type, SLUICE_PARAM_INTEGER);
    assert_false(cfg->tools[0].params[1].required);
    assert_true(cfg->tools[0].params[0].required);
    assert_int_equal(cfg->prompt_count, 1);
    assert_true(cfg->prompts[0].args[0].required);
    assert_string_equal(cfg->prompts[0].messages[0].role, "user");
    assert_int_equal(cfg->resource_count, 3);
    assert_string_equal(cfg->resources[0].text, "# Guide\n\nRead-only access to the shop.\n");
    assert_false(cfg->resources[0].is_blob);
    assert_true(cfg->resources[1].is_blob);
    assert_int_equal(cfg->resources[1].text_len, 12);
    assert_memory_equal(cfg->resources[1].text, "\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", 12);
    assert_string_equal(cfg->resources[2].mime_type, "text/plain");
    assert_int_equal(cfg->resources[2].text_len, 6);
    sluice_config_free(cfg);
    sluice_arena_free(arena);
}

/* Seed 000's cost-coach block: every key is recognised, so each refusal is about the missing
 * feature, one at a time, never "unknown key". The JavaScript plan keys (openapi_allow_writes,
 * max_api_calls, max_loop_iterations) are built; [[code_mode.operations]] is not yet. */
static void test_config_cost_coach_refused_feature_by_feature(void **state)
{
    (void)state;
    /* Seed 000's cost-coach block verbatim: every key is built now (the plan language, its
     * limits and [[code_mode.operations]]); the only complaint left is the missing secret. */
    sluice_arena *arena = sluice_arena_new();
    char *text = slurp(arena, "cost_coach.toml");
    sluice_config *cfg = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load_text(text, strlen(text), "cc", ".", &cfg, arena, &err),
                     SLUICE_E_CONFIG);
    assert_null(strstr(err.message, "which is not built in this version"));
    assert_string_equal(err.message, "code mode is enabled but has no token secret: set "
                                     "token_secret_file or token_secret_env");
    sluice_arena_free(arena);
}

static void test_config_inline_secret_is_never_quoted(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load("inline_token_secret.toml", &cfg, arena, &err),
                     SLUICE_E_CONFIG);
    assert_true(sluice_config_error_quotes_secret(&err));
    assert_null(strstr(err.message, "staple"));
    assert_null(strstr(sluice_error_render(arena, &err, NULL, 0), "staple"));
    /* Any type is refused, not only strings: the value is never looked at. */
    const char *text = "[code_mode]\ntoken_secret = 1234567890\n";
    assert_int_equal(sluice_config_load_text(text, strlen(text), "t", NULL, &cfg, arena, &err),
                     SLUICE_E_CONFIG);
    assert_true(sluice_config_error_quotes_secret(&err));
    assert_int_equal(sluice_config_load("typo_code_mode.toml", &cfg, arena, &err), SLUICE_E_CONFIG);
    assert_false(sluice_config_error_quotes_secret(&err));
    sluice_arena_free(arena);
}

/* Every allocation of a good load fails in turn. Each run must end in a clean SLUICE_E_NOMEM
 * or, where the failed allocation was optional (the TOML parser drafts error texts it may not
 * need), in a config identical to an undisturbed load: never a crash, a leak (ASan, valgrind)
 * or a half-filled config. Stops after 32 successes in a row: past the last allocation. */
static void assert_same_config(const sluice_config *a, const sluice_config *b)
{
    assert_int_equal(a->tool_count, b->tool_count);
    assert_int_equal(a->tools[0].param_count, b->tools[0].param_count);
    assert_string_equal(a->tools[0].statement, b->tools[0].statement);
    assert_int_equal(a->resource_count, b->resource_count);
    assert_int_equal(a->resources[1].text_len, b->resources[1].text_len);
    assert_int_equal(a->api_key_count, b->api_key_count);
    assert_int_equal(a->code_mode.sql_blocked_columns.count,
                     b->code_mode.sql_blocked_columns.count);
    assert_int_equal(a->database.threads, b->database.threads);
    assert_string_equal(a->server.listen_host, b->server.listen_host);
}

static void test_config_survives_every_allocation_failure(void **state)
{
    (void)state;
    sluice_arena *err_arena = sluice_arena_new();
    sluice_config *reference = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load("ok_full.toml", &reference, err_arena, &err), SLUICE_OK);
    long n, failures = 0, streak = 0;
    for (n = 1; n < 100000 && streak < 32; n++) {
        sluice_config *cfg = NULL;
        sluice_arena_fail_at(n);
        sluice_status st = sluice_config_load("ok_full.toml", &cfg, err_arena, &err);
        sluice_arena_fail_at(0);
        if (st == SLUICE_OK) {
            assert_same_config(cfg, reference);
            sluice_config_free(cfg);
            streak++;
            continue;
        }
        assert_int_equal(st, SLUICE_E_NOMEM);
        assert_non_null(err.message);
        assert_null(cfg);
        failures++;
        streak = 0;
    }
    print_message("%ld of %ld injected allocation failures ended in SLUICE_E_NOMEM\n", failures,
                  n - 33);
    assert_true(failures > 50);
    sluice_config_free(reference);
    sluice_arena_free(err_arena);
}

static void test_config_missing_file_is_io_error(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    assert_int_equal(sluice_config_load("no-such.toml", &cfg, arena, &err), SLUICE_E_IO);
    assert_string_equal(err.message, "cannot read no-such.toml: No such file or directory");
    assert_null(cfg);
    sluice_arena_free(arena);
}

static sluice_status load_text_err(sluice_arena *arena, const char *text, sluice_error *err)
{
    sluice_config *cfg = NULL;
    sluice_status st =
        sluice_config_load_text(text, strlen(text), "t.toml", "/tmp", &cfg, arena, err);
    sluice_config_free(cfg);
    return st;
}

/* A FIFO would block the loader forever; a huge file would pin memory in the config. */
static void test_config_resource_file_must_be_small_and_regular(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    char dir[] = "/tmp/sluice-config-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *fifo = sluice_arena_printf(arena, "%s/fifo", dir);
    char *big = sluice_arena_printf(arena, "%s/big.txt", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(big, "wb");
    assert_non_null(f);
    assert_int_equal(fseek(f, SLUICE_LIMIT_RESOURCE_FILE_BYTES, SEEK_SET), 0);
    fputc('x', f);
    fclose(f);
    sluice_error err;
    char *text = sluice_arena_printf(arena,
                                     "[[resources]]\nuri = \"a:b\"\nname = \"n\"\n"
                                     "file = \"%s\"\n",
                                     fifo);
    assert_int_equal(load_text_err(arena, text, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "not a regular file"));
    text = sluice_arena_printf(arena,
                               "[[resources]]\nuri = \"a:b\"\nname = \"n\"\n"
                               "file = \"%s\"\n",
                               big);
    assert_int_equal(load_text_err(arena, text, &err), SLUICE_E_CONFIG);
    assert_non_null(strstr(err.message, "is too large (limit is 4194304 bytes)"));
    unlink(fifo);
    unlink(big);
    rmdir(dir);
    sluice_arena_free(arena);
}

static void test_config_listen_accepts_ipv4_and_bracketed_ipv6(void **state)
{
    (void)state;
    sluice_config *cfg = load_ok("[server]\nlisten = \"0.0.0.0:9000\"\n");
    assert_string_equal(cfg->server.listen_host, "0.0.0.0");
    assert_int_equal(cfg->server.listen_port, 9000);
    sluice_config_free(cfg);
    cfg = load_ok("[server]\nlisten = \"[fe80::1]:65535\"\n");
    assert_string_equal(cfg->server.listen_host, "fe80::1");
    assert_int_equal(cfg->server.listen_port, 65535);
    sluice_config_free(cfg);
    sluice_arena *arena = sluice_arena_new();
    sluice_error err;
    static const char *const bad[] = {
        "[server]\nlisten = \"::1:80\"\n",     "[server]\nlisten = \"127.0.0.1\"\n",
        "[server]\nlisten = \"127.0.0.1:\"\n", "[server]\nlisten = \"[::1]80\"\n",
        "[server]\nlisten = \"1.2.3.4:-1\"\n", "[server]\nlisten = \"256.0.0.1:80\"\n"
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(load_text_err(arena, bad[i], &err), SLUICE_E_CONFIG);
        assert_string_equal(err.key, "listen");
    }
    sluice_arena_free(arena);
}

static void test_config_relative_paths_without_dir_stay_relative(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = NULL;
    sluice_error err;
    const char *text = "[database]\npath = \"a.db\"\n[code_mode]\naudit_log = \"/var/log/a\"\n";
    assert_int_equal(sluice_config_load_text(text, strlen(text), "t", NULL, &cfg, arena, &err),
                     SLUICE_OK);
    assert_string_equal(cfg->database.path, "a.db");
    assert_string_equal(cfg->code_mode.audit_log, "/var/log/a");
    sluice_config_free(cfg);
    sluice_arena_free(arena);
}

typedef struct docs_check {
    const char *docs;
    size_t keys, missing;
} docs_check;

/* The section of docs/config.md for a table starts at its "## [name]" / "## [[name]]" heading. */
static const char *docs_section(const char *docs, const char *table)
{
    char top[64];
    size_t n = strcspn(table, ".");
    snprintf(top, sizeof top, "## [%.*s]", (int)n, table);
    const char *at = strstr(docs, top);
    if (at == NULL) {
        snprintf(top, sizeof top, "## [[%.*s]]", (int)n, table);
        at = strstr(docs, top);
    }
    return at;
}

static void check_documented(const char *table, const char *key, bool built, void *ctx)
{
    docs_check *c = ctx;
    char row[96], nested[128];
    snprintf(row, sizeof row, "| `%s` |", key);
    snprintf(nested, sizeof nested, "[[%s.%s]]`", table, key);
    const char *section = docs_section(c->docs, table[0] != '\0' ? table : key);
    bool ok = section != NULL &&
              (table[0] == '\0' || strstr(section, row) != NULL || strstr(section, nested) != NULL);
    /* Keys refused whatever their value (inline secrets) must say so in the docs. */
    if (ok && !built && table[0] != '\0') {
        const char *r =
            strstr(section, row) != NULL ? strstr(section, row) : strstr(section, nested);
        const char *eol = strchr(r, '\n');
        const char *refused = strstr(r, "refused");
        ok = refused != NULL && refused < eol;
    }
    if (!ok) {
        print_error("docs/config.md does not document %s%s%s%s\n", table, table[0] ? "." : "", key,
                    built ? "" : " as refused");
        c->missing++;
    }
    c->keys++;
}

static void test_config_docs_list_every_key(void **state)
{
    (void)state;
    sluice_arena *arena = sluice_arena_new();
    docs_check c = { .docs = slurp(arena, SLUICE_SOURCE_DIR "/docs/config.md") };
    sluice_config_each_key(check_documented, &c);
    print_message("%zu keys documented\n", c.keys);
    assert_true(c.keys > 90);
    assert_int_equal(c.missing, 0);
    sluice_arena_free(arena);
}

static void test_suggest_distance_counts_typos(void **state)
{
    (void)state;
    assert_int_equal(sluice_suggest_distance("sql_allow_write", "sql_allow_writes"), 1);
    assert_int_equal(sluice_suggest_distance("enalbed", "enabled"), 1); /* a swap is one typo */
    assert_int_equal(sluice_suggest_distance("Enabled", "enabled"), 0);
    assert_int_equal(sluice_suggest_distance("abc", "xyz"), 3);
    assert_int_equal(sluice_suggest_distance("", "abc"), 3);
    char longword[SLUICE_LIMIT_SUGGEST_WORD_BYTES + 2];
    memset(longword, 'a', sizeof longword - 1);
    longword[sizeof longword - 1] = '\0';
    assert_int_equal(sluice_suggest_distance(longword, "a"), SIZE_MAX);
}

static void test_suggest_picks_closest_within_threshold(void **state)
{
    (void)state;
    sluice_suggest s;
    sluice_suggest_init(&s, "treads");
    sluice_suggest_consider(&s, "path");
    sluice_suggest_consider(&s, "threads");
    sluice_suggest_consider(&s, "engine");
    assert_string_equal(sluice_suggest_best(&s), "threads");
    sluice_suggest_init(&s, "mysql");
    sluice_suggest_consider(&s, "duckdb");
    sluice_suggest_consider(&s, "sqlite");
    assert_null(sluice_suggest_best(&s));
    sluice_suggest_init(&s, "name"); /* an exact match is not a typo */
    sluice_suggest_consider(&s, "name");
    assert_null(sluice_suggest_best(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_table_cases),
        cmocka_unit_test(test_config_empty_file_gives_documented_defaults),
        cmocka_unit_test(test_config_user_defaults_to_environment),
        cmocka_unit_test(test_config_full_file_lands_in_the_struct),
        cmocka_unit_test(test_config_cost_coach_refused_feature_by_feature),
        cmocka_unit_test(test_config_inline_secret_is_never_quoted),
        cmocka_unit_test(test_config_survives_every_allocation_failure),
        cmocka_unit_test(test_config_missing_file_is_io_error),
        cmocka_unit_test(test_config_resource_file_must_be_small_and_regular),
        cmocka_unit_test(test_config_listen_accepts_ipv4_and_bracketed_ipv6),
        cmocka_unit_test(test_config_relative_paths_without_dir_stay_relative),
        cmocka_unit_test(test_config_docs_list_every_key),
        cmocka_unit_test(test_suggest_distance_counts_typos),
        cmocka_unit_test(test_suggest_picks_closest_within_threshold),
    };
    return cmocka_run_group_tests_name("config", tests, enter_data_dir, NULL);
}
