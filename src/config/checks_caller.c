/*
 * checks_caller.c — the rules of caller_roles, caller_default_role and caller_claims (see
 * checks.h) a key type cannot say: role names PostgreSQL keeps whole, and the keys only on a
 * route whose database is PostgreSQL. DuckDB and SQLite have no roles and no row security, and
 * an HTTP upstream never sees a database role: accepting the keys there would promise a per-user
 * view the engine cannot give. And the header name of the caller assertion HTTP upstreams get
 * (caller_assertion_header).
 */
#include "config/checks.h"
#include "config/types.h"

#include <string.h>

/* PostgreSQL keeps NAMEDATALEN - 1 bytes of a name and silently cuts the rest: a longer role in
 * the file would name another role on the server. */
#define PG_NAME_MAX 63

static sluice_status
role_name(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, const char *role)
{
    if (strlen(role) <= PG_NAME_MAX)
        return SLUICE_OK;
    return sluice_keys_fail_value(ld, v, key,
                                  "'%s': the role name '%s' is %zu bytes; PostgreSQL names are "
                                  "at most %d bytes (it would cut it and name another role)",
                                  key, sluice_keys_show(ld, role), strlen(role), PG_NAME_MAX);
}

sluice_status sluice_checks_pg_roles(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj)
{
    (void)obj;
    if (sluice_toml_type_of(v) == SLUICE_TOML_STRING)
        return role_name(ld, v, key, sluice_toml_string(v, NULL));
    for (size_t i = 0; i < sluice_toml_table_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_table_value(v, i);
        sluice_status st = role_name(ld, item, key, sluice_toml_string(item, NULL));
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

static const char *engine_name(sluice_engine_kind kind)
{
    static const char *const names[] = { "duckdb", "sqlite", "postgres", "graphql", "openapi" };
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* The engine of the database a route names (NULL or "default": [database]); false when the
 * name is unknown (the open reports that). */
static bool route_engine(const sluice_config *cfg, const char *name, sluice_engine_kind *out)
{
    if (name == NULL || strcmp(name, "default") == 0) {
        *out = cfg->database.engine;
        return true;
    }
    for (size_t i = 0; i < cfg->database_count; i++)
        if (strcmp(cfg->databases[i].name, name) == 0) {
            *out = cfg->databases[i].engine;
            return true;
        }
    return false;
}

/* The first caller key of table (a [code_mode] or [[policy.servers]] table) that is written. */
static const char *written_key(const sluice_toml_value *table)
{
    static const char *const keys[] = { "caller_roles", "caller_default_role", "caller_claims" };
    for (size_t i = 0; table != NULL && i < sizeof keys / sizeof keys[0]; i++)
        if (sluice_toml_table_get(table, keys[i]) != NULL)
            return keys[i];
    return NULL;
}

static sluice_status refuse(sluice_keys_loader *ld,
                            const sluice_toml_value *table,
                            const char *key,
                            const char *where,
                            const char *database,
                            sluice_engine_kind engine)
{
    size_t line, col;
    sluice_keys_value_pos(table, key, &line, &col);
    sluice_keys_fail_at(ld, line, col, key,
                        "%s %s: the route's database '%s' is engine \"%s\", which has no "
                        "database roles or row-level security, so code cannot run as the "
                        "caller there; the caller_* keys work with engine \"postgres\" only",
                        where, key, database != NULL ? database : "default", engine_name(engine));
    sluice_keys_hint(ld,
                     "remove %s here, or route these callers to a PostgreSQL database "
                     "([[policy.servers]] database = \"<name>\")",
                     key);
    return SLUICE_E_CONFIG;
}

sluice_status sluice_checks_caller_engines(sluice_keys_loader *ld, const sluice_toml_value *root)
{
    const sluice_config *cfg = ld->cfg;
    const sluice_toml_value *cm_table = sluice_toml_table_get(root, "code_mode");
    const char *cm_key = written_key(cm_table);
    sluice_engine_kind engine;
    if (cm_key != NULL && route_engine(cfg, NULL, &engine) && engine != SLUICE_ENGINE_POSTGRES)
        return refuse(ld, cm_table, cm_key, "[code_mode]", NULL, engine);
    const sluice_toml_value *policy = sluice_toml_table_get(root, "policy");
    const sluice_toml_value *servers =
        policy != NULL ? sluice_toml_table_get(policy, "servers") : NULL;
    for (size_t i = 0; cfg->has_policy && i < cfg->policy.server_count; i++) {
        const sluice_config_policy_server *s = &cfg->policy.servers[i];
        const sluice_toml_value *table = sluice_toml_array_get(servers, i);
        const char *key = written_key(table);
        /* a route inherits [code_mode]'s keys unless it writes its own */
        bool roles =
            s->has_caller_roles ? s->caller_roles.count > 0 : cfg->code_mode.caller_roles.count > 0;
        bool fallback = s->has_caller_default_role ? s->caller_default_role != NULL
                                                   : cfg->code_mode.caller_default_role != NULL;
        bool claims = s->has_caller_claims ? s->caller_claims : cfg->code_mode.caller_claims;
        if (!(roles || fallback || claims) || !route_engine(cfg, s->database, &engine) ||
            engine == SLUICE_ENGINE_POSTGRES)
            continue;
        if (key != NULL)
            return refuse(ld, table, key, "[[policy.servers]]", s->database, engine);
        return refuse(ld, cm_table, cm_key,
                      "[code_mode] (inherited by a [[policy.servers]] "
                      "route)",
                      s->database, engine);
    }
    return SLUICE_OK;
}

sluice_status sluice_checks_header_name(sluice_keys_loader *ld,
                                        const sluice_toml_value *v,
                                        const char *key,
                                        void *obj)
{
    (void)obj;
    /* RFC 9110 token characters: anything else would split or smuggle a header line */
    static const char tchar[] = "!#$%&'*+-.^_`|~0123456789"
                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t len = 0;
    const char *s = sluice_toml_string(v, &len);
    if (len > 0 && len <= 128 && strspn(s, tchar) == len)
        return SLUICE_OK;
    return sluice_keys_fail_value(ld, v, key,
                                  "'%s' must be an HTTP header name (1 to 128 letters, digits or "
                                  "!#$%%&'*+-.^_`|~), got '%s'",
                                  key, sluice_keys_show(ld, s));
}
