/*
 * quickstart.c — the zero-config start (see quickstart.h).
 *
 * Owns: the engine-by-extension table and the built-in config text. The text goes through the
 * same loader and checks as a file: nothing here sets a config field directly, so a zero-config
 * server is never less checked than a configured one.
 */
#include "cli/quickstart.h"

#include "core/buf.h"
#include "core/limits.h"
#include "token/secret.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The config text for one database is a few hundred bytes; paths bound it. */
#define QUICKSTART_CONFIG_MAX 65536u

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

const char *sluice_quickstart_engine(const char *path)
{
    static const struct {
        const char *suffix, *engine;
    } table[] = { { ".duckdb", "duckdb" },
                  { ".ddb", "duckdb" },
                  { ".sqlite", "sqlite" },
                  { ".sqlite3", "sqlite" },
                  { ".db", "sqlite" } };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (ends_with(path, table[i].suffix))
            return table[i].engine;
    return NULL;
}

const char *sluice_quickstart_quote(sluice_arena *arena, const char *text)
{
    sluice_buf b;
    sluice_buf_init(&b, arena, QUICKSTART_CONFIG_MAX);
    sluice_buf_append(&b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            sluice_buf_printf(&b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            sluice_buf_printf(&b, "\\u%04x", *p);
        else
            sluice_buf_append(&b, (const char *)p, 1);
    }
    sluice_buf_append(&b, "\"", 1);
    return sluice_buf_status(&b) == SLUICE_OK ? sluice_buf_cstr(&b) : NULL;
}

const char *sluice_quickstart_config(sluice_arena *arena,
                                     const char *engine,
                                     const char *db_path,
                                     const char *audit_path)
{
    const char *db = sluice_quickstart_quote(arena, db_path);
    const char *audit = audit_path != NULL ? sluice_quickstart_quote(arena, audit_path) : NULL;
    if (db == NULL || (audit_path != NULL && audit == NULL))
        return NULL;
    /* Read-only is the default of every sql_allow_* key; reads up to medium risk run without a
     * human because there is no approval store to record one in (no audit log, no store). */
    return sluice_arena_printf(arena,
                               "[server]\nname = \"sluice\"\n"
                               "[database]\nengine = \"%s\"\npath = %s\n"
                               "[code_mode]\nenabled = true\nserver_id = \"sluice\"\n"
                               "token_secret_env = \"%s\"\n"
                               "auto_approve_levels = [\"low\", \"medium\"]\n"
                               "sql_max_rows = 1000\n"
                               "%s%s%s",
                               engine, db, SLUICE_QUICKSTART_KEY_ENV,
                               audit != NULL ? "audit_log = " : "", audit != NULL ? audit : "",
                               audit != NULL ? "\n" : "");
}

bool sluice_quickstart_ephemeral_key(void)
{
    char line[SLUICE_LIMIT_SECRET_LINE_BYTES];
    if (sluice_secret_generate("ephemeral", line, sizeof line) != SLUICE_OK)
        return false;
    bool ok = setenv(SLUICE_QUICKSTART_KEY_ENV, line, 1) == 0;
    sodium_memzero(line, sizeof line);
    return ok;
}
