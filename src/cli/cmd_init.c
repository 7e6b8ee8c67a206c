/*
 * cmd_init.c — `sluice init DB [-o FILE] [--force]`: write a commented starter config for one
 * database: its tables and columns listed, a blocked_fields placeholder naming the columns that
 * look personal, read-only code mode, and a signing key (a new key file beside FILE, or an
 * environment variable when the config goes to stdout).
 *
 * Owns: the starter text. Does not own: opening the database (exec/executor.h, with the same
 * hardening serve uses) nor the key format (token/secret.h). The output passes
 * `sluice config check` (tests/cli/ctest_quickstart.sh).
 */
#include "cli/cli.h"
#include "cli/quickstart.h"
#include "config/config.h"
#include "core/buf.h"
#include "core/limits.h"
#include "exec/engines.h"
#include "exec/executor.h"
#include "token/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int sluice_cmd_init(int argc, char **argv);

/* The starter text is comments plus one line per column; this bounds a very wide database. */
#define INIT_TEXT_MAX (4u * 1024u * 1024u)
/* The environment variable a config written to stdout reads its key from. */
#define INIT_KEY_ENV "SLUICE_TOKEN_KEY"

typedef struct init_options {
    const char *db;
    const char *out; /* NULL: stdout */
    bool force;
} init_options;

static void init_usage(FILE *out)
{
    fprintf(out, "usage: sluice init DB [-o FILE] [--force]\n\n"
                 "Writes a commented starter config for the database DB (.duckdb/.ddb or\n"
                 ".sqlite/.sqlite3/.db): its tables listed, a blocked_fields placeholder,\n"
                 "read-only SQL code mode. Check it with 'sluice config check FILE'.\n\n"
                 "  -o FILE   write to FILE (never over an existing one) and make the signing\n"
                 "            key FILE's-directory/sluice.key (mode 0600) if it is missing;\n"
                 "            without -o the config goes to stdout and reads its key from\n"
                 "            $" INIT_KEY_ENV " (export " INIT_KEY_ENV "=\"$(sluice keygen)\")\n"
                 "  --force   replace FILE\n");
}

static int parse(int argc, char **argv, init_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            init_usage(stdout);
            return SLUICE_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            o->out = argv[++i];
        } else if (strcmp(a, "--force") == 0) {
            o->force = true;
        } else if (a[0] != '-' && o->db == NULL) {
            o->db = a;
        } else {
            fprintf(stderr, "sluice init: unknown or incomplete option '%s'\n", a);
            init_usage(stderr);
            return SLUICE_EXIT_USAGE;
        }
    }
    if (o->db == NULL) {
        fprintf(stderr, "sluice init: name the database file\n");
        init_usage(stderr);
        return SLUICE_EXIT_USAGE;
    }
    if (sluice_quickstart_engine(o->db) == NULL) {
        fprintf(stderr,
                "sluice init: cannot tell the engine of '%s' from its name (.duckdb, "
                ".ddb, .sqlite, .sqlite3 or .db)\n",
                o->db);
        return SLUICE_EXIT_USAGE;
    }
    return -1;
}

/* True for column names that usually hold personal data: a hint, never a decision. */
static bool looks_personal(const char *column)
{
    static const char *const words[] = { "ssn",    "email", "phone", "password", "birth",
                                         "salary", "iban",  "card",  "address",  "tax_id" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(column, words[i]) != NULL)
            return true;
    return false;
}

static void list_tables(sluice_buf *b, const sluice_schema *schema, sluice_buf *personal)
{
    sluice_buf_printf(b, "# Tables (%zu):\n", schema->table_count);
    for (size_t t = 0; t < schema->table_count; t++) {
        const sluice_schema_table *tab = &schema->tables[t];
        sluice_buf_printf(b, "#   %s%s", tab->name, tab->is_view ? " (view)" : "");
        if (tab->approx_rows >= 0)
            sluice_buf_printf(b, ", ~%lld rows", (long long)tab->approx_rows);
        sluice_buf_printf(b, ":");
        for (size_t c = 0; c < tab->column_count; c++) {
            const sluice_schema_column *col = &tab->columns[c];
            sluice_buf_printf(b, "%s %s %s", c > 0 ? "," : "", col->name, col->type);
            if (looks_personal(col->name))
                sluice_buf_printf(personal, "%s\"%s.%s\"", personal->len > 0 ? ", " : "", tab->name,
                                  col->name);
        }
        sluice_buf_printf(b, "\n");
    }
}

/* The whole starter config; NULL when out of memory. */
static const char *starter_text(sluice_arena *arena,
                                const char *engine,
                                const char *db_quoted,
                                const sluice_schema *schema,
                                bool key_file)
{
    sluice_buf b, personal;
    sluice_buf_init(&b, arena, INIT_TEXT_MAX);
    sluice_buf_init(&personal, arena, INIT_TEXT_MAX);
    const char *user = getenv("USER");
    sluice_buf_printf(
        &b,
        "# sluice starter config, written by 'sluice init'. Reference: docs/config.md\n"
        "#   check it:  sluice config check THIS_FILE\n"
        "#   serve it:  sluice serve -c THIS_FILE --stdio   (or --http ADDR)\n\n"
        "[server]\nname = \"sluice\"\n"
        "# listen = \"127.0.0.1:8808\"   # for --http; loopback only by default\n\n"
        "[identity]   # who a stdio client is (HTTP clients authenticate: "
        "[[api_keys]], [auth])\n"
        "user = %s\ngroups = [\"StandardUsers\"]\n\n"
        "[database]\nengine = \"%s\"\npath = %s   # opened read-only, hardened\n",
        sluice_quickstart_quote(arena, user != NULL && *user ? user : "local"), engine, db_quoted);
    list_tables(&b, schema, &personal);
    sluice_buf_printf(&b,
                      "\n[code_mode]\nenabled = true\nserver_id = \"sluice\"\n%s\n"
                      "token_ttl_seconds = 300\n"
                      "auto_approve_levels = [\"low\", \"medium\"]   # above: a human approves\n"
                      "execution_timeout_seconds = 30\nsql_max_rows = 1000\n"
                      "# Columns the model may join and filter on but never read back.%s%s\n"
                      "blocked_fields = []\n"
                      "# A hash-chained audit log (also where 'sluice approve' keeps its "
                      "store):\n# audit_log = \"sluice.audit.jsonl\"\n",
                      key_file ? "token_secret_file = \"sluice.key\"   # made by 'sluice init'; "
                                 "'sluice keygen' makes another"
                               : "token_secret_env = \"" INIT_KEY_ENV "\"   # export " INIT_KEY_ENV
                                 "=\"$(sluice keygen)\"",
                      personal.len > 0 ? "\n# These look personal: " : "",
                      personal.len > 0 ? sluice_buf_cstr(&personal) : "");
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

/* Opens db the way serve --db would and reads its schema into arena. */
static int
read_schema(const char *db_abs, const char *engine, sluice_schema *schema, sluice_arena *arena)
{
    const char *text = sluice_quickstart_config(arena, engine, db_abs, NULL);
    sluice_config *config = NULL;
    sluice_error err = { 0 };
    sluice_executor *ex = NULL;
    sluice_status st = text != NULL ? sluice_config_load_text(text, strlen(text), "(init)", ".",
                                                              &config, arena, &err)
                                    : SLUICE_E_NOMEM;
    if (st == SLUICE_OK)
        st = sluice_executor_open(&config->database, &config->code_mode, &ex, arena, &err);
    if (st == SLUICE_OK)
        st = sluice_executor_schema(ex, arena, schema, &err);
    sluice_executor_close(ex);
    sluice_config_free(config);
    if (st != SLUICE_OK) {
        fprintf(stderr, "sluice init: %s\n", err.message != NULL ? err.message : "out of memory");
        return st == SLUICE_E_NOMEM ? SLUICE_EXIT_RUNTIME : SLUICE_EXIT_FAIL;
    }
    return -1;
}

/* The key file beside the config, made once: an existing key is kept (tokens stay valid). */
static int ensure_key(const char *config_path, sluice_arena *arena)
{
    char *copy = sluice_arena_strdup(arena, config_path);
    const char *path =
        copy != NULL ? sluice_arena_printf(arena, "%s/sluice.key", dirname(copy)) : NULL;
    if (path == NULL)
        return SLUICE_EXIT_RUNTIME;
    if (access(path, F_OK) == 0)
        return SLUICE_EXIT_OK;
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    if (sluice_secret_generate(NULL, line, sizeof line) != SLUICE_OK) {
        fprintf(stderr, "sluice init: cannot generate a key (libsodium unavailable)\n");
        return SLUICE_EXIT_RUNTIME;
    }
    int rc = sluice_cli_write_key_file(path, line, false);
    sodium_memzero(line, sizeof line);
    if (rc == SLUICE_EXIT_OK)
        fprintf(stderr, "sluice init: wrote a signing key to %s (mode 0600)\n", path);
    return rc;
}

static int write_out(const init_options *o, const char *text)
{
    if (o->out == NULL) {
        fputs(text, stdout);
        return SLUICE_EXIT_OK;
    }
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (o->force ? O_TRUNC : O_EXCL);
    int fd = open(o->out, flags, 0644);
    if (fd < 0) {
        fprintf(stderr, "sluice init: %s: %s%s\n", o->out, strerror(errno),
                errno == EEXIST ? " (use --force to replace it)" : "");
        return errno == EEXIST ? SLUICE_EXIT_FAIL : SLUICE_EXIT_RUNTIME;
    }
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "sluice init: %s: cannot write: %s\n", o->out, strerror(errno));
        return SLUICE_EXIT_RUNTIME;
    }
    fprintf(stderr, "sluice init: wrote %s; check it with 'sluice config check %s'\n", o->out,
            o->out);
    return SLUICE_EXIT_OK;
}

int sluice_cmd_init(int argc, char **argv)
{
    init_options o = { 0 };
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    char *db = realpath(o.db, NULL);
    if (db == NULL) {
        fprintf(stderr, "sluice init: %s: %s\n", o.db, strerror(errno));
        return SLUICE_EXIT_FAIL;
    }
    sluice_arena *arena = sluice_arena_new();
    const char *engine = sluice_quickstart_engine(o.db);
    sluice_schema schema = { 0 };
    rc = arena != NULL ? read_schema(db, engine, &schema, arena) : SLUICE_EXIT_RUNTIME;
    if (rc < 0) {
        const char *q = sluice_quickstart_quote(arena, db);
        const char *text =
            q != NULL ? starter_text(arena, engine, q, &schema, o.out != NULL) : NULL;
        rc = text == NULL ? SLUICE_EXIT_RUNTIME : write_out(&o, text);
        if (rc == SLUICE_EXIT_OK && o.out != NULL)
            rc = ensure_key(o.out, arena);
    }
    free(db);
    sluice_arena_free(arena);
    return rc;
}
