/*
 * checks_state.c — the rules of [state] a key type cannot say (see checks.h): at most one
 * password source for Redis and for each PostgreSQL store (the audit trail, the saved programs),
 * no password inside their conninfo, a Redis key prefix within SLUICE_LIMIT_STATE_PREFIX_BYTES,
 * and table names that are plain SQL identifiers (they are put into sluice's own statements).
 */
#include "config/checks.h"
#include "config/types.h"
#include "core/limits.h"

#include <stdio.h>
#include <string.h>

static sluice_status
fail_key(sluice_keys_loader *ld, const sluice_toml_value *table, const char *key, const char *msg)
{
    size_t line, col;
    sluice_keys_value_pos(table, key, &line, &col);
    return sluice_keys_fail_at(ld, line, col, key, "[state] %s", msg);
}

static bool plain_identifier(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= 63 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n &&
           !(s[0] >= '0' && s[0] <= '9');
}

/* The keys of one PostgreSQL store of [state] (audit_postgres, programs_postgres): one password
 * source, none inside the conninfo, a plain table name (it is put into sluice's own statements).
 * prefix is the conninfo key's name; example is its default table. */
static sluice_status check_pg(sluice_keys_loader *ld,
                              const sluice_toml_value *table,
                              const char *prefix,
                              const char *const values[4],
                              const char *example)
{
    const char *conninfo = values[0], *file = values[1], *env = values[2], *name = values[3];
    char key[64], msg[320];
    if (file != NULL && env != NULL) {
        snprintf(key, sizeof key, "%s_password_env", prefix);
        snprintf(msg, sizeof msg, "set only one of %s_password_file and %s_password_env", prefix,
                 prefix);
        return fail_key(ld, table, key, msg);
    }
    if (conninfo != NULL && sluice_checks_conninfo_has_password(conninfo)) {
        snprintf(msg, sizeof msg,
                 "inline secrets are refused: %s carries a password; use %s_password_file or "
                 "%s_password_env",
                 prefix, prefix, prefix);
        return fail_key(ld, table, prefix, msg);
    }
    if (name != NULL && !plain_identifier(name)) {
        snprintf(key, sizeof key, "%s_table", prefix);
        snprintf(msg, sizeof msg,
                 "%s must be a lower-case SQL identifier (letters, digits, _; at most 63), "
                 "e.g. \"%s\"",
                 key, example);
        return fail_key(ld, table, key, msg);
    }
    return SLUICE_OK;
}

sluice_status sluice_checks_state(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_state *s = obj;
    if (s->redis_password_file != NULL && s->redis_password_env != NULL)
        return fail_key(ld, table, "redis_password_env",
                        "set only one of redis_password_file and redis_password_env");
    if (s->redis_prefix != NULL && strlen(s->redis_prefix) > SLUICE_LIMIT_STATE_PREFIX_BYTES)
        return fail_key(ld, table, "redis_prefix", "redis_prefix is longer than 64 bytes");
    const char *const audit[4] = { s->audit_postgres, s->audit_postgres_password_file,
                                   s->audit_postgres_password_env, s->audit_postgres_table };
    const char *const programs[4] = { s->programs_postgres, s->programs_postgres_password_file,
                                      s->programs_postgres_password_env,
                                      s->programs_postgres_table };
    sluice_status st = check_pg(ld, table, "audit_postgres", audit, "sluice_audit");
    return st == SLUICE_OK ? check_pg(ld, table, "programs_postgres", programs, "sluice_programs")
                           : st;
}
