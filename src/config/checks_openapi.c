/*
 * checks_openapi.c — the rules of the OpenAPI class-policy keys a type cannot express (see
 * checks.h): the entry forms of the operation lists, blocked-path globs, and modes whose list
 * is missing.
 *
 * Owns: refusing at load what would otherwise match nothing, or everything, without a word.
 * Does not own: what the keys decide (exec/class_policy.c).
 */
#include "config/checks.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

static bool is_method(const char *s, size_t n)
{
    static const char *const methods[] = { "GET", "HEAD",  "OPTIONS", "POST",
                                           "PUT", "PATCH", "DELETE" };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strlen(methods[i]) == n && strncasecmp(s, methods[i], n) == 0)
            return true;
    return false;
}

/* A path (template) of an entry: starts with '/', no whitespace, '?' or '#'. */
static bool is_path(const char *p)
{
    return p[0] == '/' && strpbrk(p, " \t\r\n?#") == NULL;
}

/* An operation id: what OpenAPI operationIds and [[code_mode.operations]] ids look like. */
static bool is_id(const char *s)
{
    for (const char *p = s; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return false;
    return s[0] != '\0';
}

bool sluice_checks_operation_entry(const char *s)
{
    size_t m = strcspn(s, " :");
    if (s[m] == '\0')
        return is_id(s); /* a method name is an id too: "POST" blocks the method */
    if (!is_method(s, m))
        return false;
    const char *path = s + m + 1;
    return is_path(path);
}

sluice_status sluice_checks_operation_entries(sluice_keys_loader *ld,
                                              const sluice_toml_value *v,
                                              const char *key,
                                              void *obj)
{
    (void)obj;
    return sluice_checks_each_entry(
        ld, v, key, sluice_checks_operation_entry,
        "entries are an operation id, an HTTP method or \"METHOD /path\"",
        "for example \"listUsers\", \"PATCH\", \"POST /users\" or \"DELETE /users/{id}\"");
}

bool sluice_checks_sdk_operation(const char *s)
{
    /* "api.get" stays the path form's name; "__proto__", "constructor" and "prototype" reach
     * prototypes, and the plan parser refuses them after a '.' (syntax/js/parse.c) */
    static const char *const path_form[] = { "get",    "post",        "put",      "patch",
                                             "delete", "constructor", "prototype" };
    if (s == NULL || s[0] == '\0' || (s[0] >= '0' && s[0] <= '9') || strncmp(s, "__", 2) == 0)
        return false;
    for (size_t i = 0; i < sizeof path_form / sizeof path_form[0]; i++)
        if (strcmp(s, path_form[i]) == 0)
            return false;
    for (const char *p = s; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '$'))
            return false;
    return true;
}

sluice_status sluice_checks_sdk_operations(sluice_keys_loader *ld,
                                           const sluice_toml_value *v,
                                           const char *key,
                                           void *obj)
{
    (void)obj;
    return sluice_checks_each_entry(
        ld, v, key, sluice_checks_sdk_operation,
        "entries are operationIds a plan calls as api.<operationId>(args): JavaScript "
        "identifiers (letters, digits, '_', '$'), not get/post/put/patch/delete, constructor or "
        "prototype, not starting with \"__\"",
        "an operation whose id is no identifier (\"repos/get\") is called in the path form "
        "instead: leave sdk_operations out");
}

sluice_status sluice_checks_sdk_engine(sluice_keys_loader *ld, const sluice_toml_value *root)
{
    const sluice_config *cfg = ld->cfg;
    if (cfg->code_mode.sdk_operations.count == 0)
        return SLUICE_OK;
    bool openapi = cfg->has_database && cfg->database.engine == SLUICE_ENGINE_OPENAPI;
    for (size_t i = 0; i < cfg->database_count && !openapi; i++)
        openapi = cfg->databases[i].engine == SLUICE_ENGINE_OPENAPI;
    if (openapi)
        return SLUICE_OK;
    size_t line, col;
    sluice_keys_value_pos(sluice_toml_table_get(root, "code_mode"), "sdk_operations", &line, &col);
    sluice_keys_fail_at(ld, line, col, "sdk_operations",
                        "sdk_operations names OpenAPI operations a JavaScript plan calls as "
                        "api.<operationId>(args), but no database of this config is engine "
                        "\"openapi\"");
    sluice_keys_hint(ld, "remove sdk_operations, or add the OpenAPI backend it is for");
    return SLUICE_E_CONFIG;
}

static bool path_glob(const char *s)
{
    return (s[0] == '/' || s[0] == '*') && strpbrk(s, " \t\r\n?#") == NULL;
}

sluice_status sluice_checks_path_globs(sluice_keys_loader *ld,
                                       const sluice_toml_value *v,
                                       const char *key,
                                       void *obj)
{
    (void)obj;
    return sluice_checks_each_entry(
        ld, v, key, path_glob,
        "entries are paths that start with '/' (or '*'), '*' matching any run of characters",
        "\"/admin\" blocks /admin and everything below it; \"/users/*/ssn\" blocks that field "
        "of every user");
}

/* A mode whose list is empty would decide by accident: allowlist allows nothing, blocklist
 * blocks nothing. Say so at load rather than at the first refused call. */
sluice_status sluice_checks_class_modes(sluice_keys_loader *ld,
                                        const sluice_toml_value *table,
                                        const sluice_config_code_mode *cm)
{
    const struct {
        const char *key;
        sluice_class_mode mode;
        const char *list;
        size_t count;
    } modes[] = {
        { "read_mode", cm->read_mode, "openapi_allowed_reads", cm->openapi_allowed_reads.count },
        { "write_mode", cm->write_mode, "openapi_allowed_writes",
          cm->openapi_allowed_writes.count },
        { "delete_mode", cm->delete_mode, "openapi_allowed_deletes",
          cm->openapi_allowed_deletes.count },
        { "admin_mode", cm->admin_mode, "openapi_allowed_admin", cm->openapi_allowed_admin.count },
    };
    size_t blocked = cm->openapi_blocked_writes.count + cm->openapi_blocked_paths.count;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        size_t line, col;
        if (modes[i].mode == SLUICE_CLASS_MODE_ALLOWLIST && modes[i].count == 0) {
            sluice_keys_value_pos(table, modes[i].key, &line, &col);
            sluice_keys_fail_at(ld, line, col, modes[i].key,
                                "%s = \"allowlist\" but %s is empty, so it allows nothing",
                                modes[i].key, modes[i].list);
            sluice_keys_hint(ld,
                             "list the operations (%s = [\"createUser\", \"POST /users/{id}\"]), "
                             "or say deny_all",
                             modes[i].list);
            return SLUICE_E_CONFIG;
        }
        if (modes[i].mode == SLUICE_CLASS_MODE_BLOCKLIST && blocked == 0) {
            sluice_keys_value_pos(table, modes[i].key, &line, &col);
            sluice_keys_fail_at(ld, line, col, modes[i].key,
                                "%s = \"blocklist\" but openapi_blocked_writes and "
                                "openapi_blocked_paths are empty, so it blocks nothing",
                                modes[i].key);
            sluice_keys_hint(ld, "list what to block, or say allow_all");
            return SLUICE_E_CONFIG;
        }
    }
    return SLUICE_OK;
}
