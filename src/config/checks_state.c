/*
 * checks_state.c — the rules of [state] a key type cannot say (see checks.h): at most one
 * password source for Redis and for the audit database, no password inside the audit conninfo,
 * a Redis key prefix within SLUICE_LIMIT_STATE_PREFIX_BYTES, and an audit table name that is a
 * plain SQL identifier (it is put into sluice's own statements).
 */
#include "config/checks.h"
#include "config/config.h"
#include "core/limits.h"

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

sluice_status sluice_checks_state(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_state *s = obj;
    if (s->redis_password_file != NULL && s->redis_password_env != NULL)
        return fail_key(ld, table, "redis_password_env",
                        "set only one of redis_password_file and redis_password_env");
    if (s->audit_postgres_password_file != NULL && s->audit_postgres_password_env != NULL)
        return fail_key(ld, table, "audit_postgres_password_env",
                        "set only one of audit_postgres_password_file and "
                        "audit_postgres_password_env");
    if (s->audit_postgres != NULL && sluice_checks_conninfo_has_password(s->audit_postgres))
        return fail_key(ld, table, "audit_postgres",
                        "inline secrets are refused: audit_postgres carries a password; use "
                        "audit_postgres_password_file or audit_postgres_password_env");
    if (s->redis_prefix != NULL && strlen(s->redis_prefix) > SLUICE_LIMIT_STATE_PREFIX_BYTES)
        return fail_key(ld, table, "redis_prefix", "redis_prefix is longer than 64 bytes");
    if (s->audit_postgres_table != NULL && !plain_identifier(s->audit_postgres_table))
        return fail_key(ld, table, "audit_postgres_table",
                        "audit_postgres_table must be a lower-case SQL identifier (letters, "
                        "digits, _; at most 63), e.g. \"sluice_audit\"");
    return SLUICE_OK;
}
