/*
 * checks.c — checks of particular keys and sections (see checks.h).
 *
 * Each check says what is wrong in the sender's terms and, where it helps, how to fix it. The
 * generic type and range checks are not here (keys.c); these are the rules a type cannot say:
 * formats, exclusive pairs, names that must match, placeholders that must be declared.
 */
#include "config/checks.h"

#include "config/suggest.h"
#include "core/limits.h"
#include "core/utf8.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------
 * Names, bytes and files
 * ------------------------------------------------------------------------------------------ */

static bool is_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* ^[A-Za-z0-9_.-]{1,64}$ — what MCP clients accept as tool and prompt names. */
static bool is_mcp_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!is_ident_char(s[i]) && s[i] != '.' && s[i] != '-')
            return false;
    }
    return true;
}

/* ^[A-Za-z_][A-Za-z0-9_]{0,63}$ — SQL parameter names and environment variable names. */
static bool is_identifier(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64 || !is_ident_start(s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (!is_ident_char(s[i]))
            return false;
    }
    return true;
}

bool sluice_checks_identifier(const char *s)
{
    return is_identifier(s);
}

static bool is_valid_utf8(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t n = sluice_utf8_decode((const char *)s + i, len - i, NULL);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

/* Reads a whole file of at most max bytes into arena (NUL-terminated). Returns 0, or an errno
 * value, or EFBIG when the file is larger than max, or EINVAL when it is not a regular file and
 * regular_only is set (a FIFO would block the loader forever). */
int sluice_checks_read_file(sluice_arena *arena,
                            const char *path,
                            size_t max,
                            bool regular_only,
                            char **out,
                            size_t *out_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0));
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    if (regular_only && !S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    }
    /* A regular file needs only its size (plus one byte to notice growth); anything else may
     * be as large as the limit allows. */
    size_t want = S_ISREG(st.st_mode) && st.st_size >= 0 && (uintmax_t)st.st_size < max
                      ? (size_t)st.st_size
                      : max;
    char *data = sluice_arena_alloc(arena, want + 2);
    if (data == NULL) {
        close(fd);
        return ENOMEM;
    }
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, data + len, want + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > want) {
            close(fd);
            return want == max ? EFBIG : EAGAIN; /* EAGAIN: it grew while we read it */
        }
    }
    close(fd);
    data[len] = '\0';
    *out = data;
    *out_len = len;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Key checks (the rows' `check` hooks)
 * ------------------------------------------------------------------------------------------ */

/* "host:port" with an IPv4 literal or a bracketed IPv6 literal; port 0 asks for any free port. */
sluice_status
sluice_checks_listen(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    const char *s = sluice_toml_string(v, NULL);
    const char *colon;
    char host[INET6_ADDRSTRLEN + 1];
    unsigned char addr[sizeof(struct in6_addr)];
    int family;
    size_t host_len;
    const char *host_start = s;
    if (s[0] == '[') {
        const char *close_bracket = strchr(s, ']');
        colon = close_bracket != NULL ? close_bracket + 1 : NULL;
        host_start = s + 1;
        host_len = close_bracket != NULL ? (size_t)(close_bracket - host_start) : 0;
        family = AF_INET6;
        if (colon != NULL && *colon != ':')
            colon = NULL;
    } else {
        colon = strrchr(s, ':');
        host_len = colon != NULL ? (size_t)(colon - s) : 0;
        family = AF_INET;
    }
    bool ok = colon != NULL && host_len > 0 && host_len < sizeof host;
    if (ok) {
        memcpy(host, host_start, host_len);
        host[host_len] = '\0';
        ok = inet_pton(family, host, addr) == 1;
    }
    long port = -1;
    if (ok) {
        const char *p = colon + 1;
        size_t digits = strspn(p, "0123456789");
        ok = digits > 0 && digits <= 5 && p[digits] == '\0';
        port = ok ? strtol(p, NULL, 10) : -1;
        ok = ok && port <= 65535;
    }
    if (!ok) {
        sluice_keys_fail_value(
            ld, v, key,
            "'%s' must be host:port with an IPv4 address or a bracketed IPv6 address, "
            "got \"%s\"",
            key, sluice_keys_show(ld, s));
        sluice_keys_hint(
            ld, "for example \"127.0.0.1:8808\" or \"[::1]:8808\"; port 0 picks a free port");
        return SLUICE_E_CONFIG;
    }
    if (obj != NULL) {
        sluice_config_server *server = obj;
        server->listen_host = sluice_arena_strdup(ld->arena, host);
        server->listen_port = (uint16_t)port;
        if (server->listen_host == NULL)
            return sluice_keys_nomem(ld);
    }
    return SLUICE_OK;
}

static bool is_port(const char *p, size_t n)
{
    if (n == 0 || n > 5 || strspn(p, "0123456789") < n)
        return false;
    long port = strtol(p, NULL, 10);
    return port >= 1 && port <= 65535;
}

/* host or [v6] with an optional :port, nothing else (no path, credentials, spaces). */
static bool is_host_port(const char *s)
{
    size_t n = strcspn(s, "/?#@ \t\\");
    if (n == 0 || s[n] != '\0')
        return false;
    const char *port = NULL;
    if (s[0] == '[') {
        const char *end = strchr(s, ']');
        if (end == NULL || end == s + 1)
            return false;
        if (end[1] == ':')
            port = end + 2;
        else if (end[1] != '\0')
            return false;
    } else {
        const char *colon = strchr(s, ':');
        if (colon == s)
            return false;
        port = colon != NULL ? colon + 1 : NULL;
    }
    return port == NULL || is_port(port, strlen(port));
}

/* Each item "http://host[:port]" or "https://host[:port]": browsers send exactly that. */
sluice_status sluice_checks_origins(sluice_keys_loader *ld,
                                    const sluice_toml_value *v,
                                    const char *key,
                                    void *obj)
{
    (void)obj;
    for (size_t i = 0; i < sluice_toml_array_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        const char *s = sluice_toml_string(item, NULL);
        if (strcmp(s, "*") == 0 || strcmp(s, "null") == 0) {
            sluice_keys_fail_value(ld, item, key, "'%s' does not accept \"%s\": list each origin",
                                   key, s);
            sluice_keys_hint(ld, "a wildcard origin would let any web page drive this server");
            return SLUICE_E_CONFIG;
        }
        const char *rest = strncmp(s, "http://", 7) == 0    ? s + 7
                           : strncmp(s, "https://", 8) == 0 ? s + 8
                                                            : NULL;
        if (rest == NULL || !is_host_port(rest)) {
            sluice_keys_fail_value(ld, item, key,
                                   "'%s' items must be origins like \"http://localhost:3000\" "
                                   "(scheme://host[:port], no path), got \"%s\"",
                                   key, sluice_keys_show(ld, s));
            return SLUICE_E_CONFIG;
        }
    }
    return SLUICE_OK;
}

sluice_status sluice_checks_each_entry(sluice_keys_loader *ld,
                                       const sluice_toml_value *v,
                                       const char *key,
                                       bool (*ok)(const char *s),
                                       const char *rule,
                                       const char *hint)
{
    for (size_t i = 0; i < sluice_toml_array_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        const char *s = sluice_toml_string(item, NULL);
        if (ok(s))
            continue;
        sluice_status st = sluice_keys_fail_value(ld, item, key, "'%s' %s, got \"%s\"", key, rule,
                                                  sluice_keys_show(ld, s));
        if (hint != NULL)
            sluice_keys_hint(ld, "%s", hint);
        return st;
    }
    return SLUICE_OK;
}

sluice_status
sluice_checks_hosts(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    return sluice_checks_each_entry(ld, v, key, is_host_port,
                                    "items must be host or host:port as sent in the Host header",
                                    NULL);
}

/* An environment variable name, never its value: the value may be the secret itself. */
sluice_status sluice_checks_env_name(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj)
{
    (void)obj;
    if (is_identifier(sluice_toml_string(v, NULL)))
        return SLUICE_OK;
    sluice_keys_fail_value(
        ld, v, key,
        "'%s' must name an environment variable (letters, digits and '_', not starting "
        "with a digit)",
        key);
    sluice_keys_hint(ld, "put the secret itself in the environment and its name here");
    return SLUICE_E_CONFIG;
}

sluice_status
sluice_checks_sha256(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    const char *s = sluice_toml_string(v, NULL);
    if (strlen(s) == 64 && strspn(s, "0123456789abcdefABCDEF") == 64)
        return SLUICE_OK;
    sluice_keys_fail_value(ld, v, key, "'%s' must be 64 hexadecimal digits (a SHA-256 digest)",
                           key);
    sluice_keys_hint(ld, "compute it with: printf %%s \"$KEY\" | sha256sum");
    return SLUICE_E_CONFIG;
}

/* DuckDB's memory_limit syntax: a number and a unit. Checked strictly because the value is
 * handed to the engine as a setting. */
sluice_status sluice_checks_memory_limit(sluice_keys_loader *ld,
                                         const sluice_toml_value *v,
                                         const char *key,
                                         void *obj)
{
    static const char *const units[] = { "B",   "KB",  "MB",  "GB",  "TB",
                                         "KiB", "MiB", "GiB", "TiB", NULL };
    (void)obj;
    const char *s = sluice_toml_string(v, NULL);
    size_t n = strspn(s, "0123456789");
    if (n > 0 && s[n] == '.') {
        size_t frac = strspn(s + n + 1, "0123456789");
        n = frac > 0 ? n + 1 + frac : 0;
    }
    const char *unit = s + n;
    if (*unit == ' ')
        unit++;
    for (size_t i = 0; n > 0 && n <= 12 && units[i] != NULL; i++) {
        if (strcasecmp(unit, units[i]) == 0)
            return SLUICE_OK;
    }
    return sluice_keys_fail_value(ld, v, key,
                                  "'%s' must be a size such as \"512MB\" or \"2GiB\", got \"%s\"",
                                  key, sluice_keys_show(ld, s));
}

/* ------------------------------------------------------------------------------------------
 * Section cross-checks
 * ------------------------------------------------------------------------------------------ */

sluice_status
sluice_checks_api_key(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_api_key *key = obj;
    key->line = sluice_toml_line(table);
    if ((key->sha256_hex == NULL) == (key->env == NULL)) {
        size_t line, col;
        sluice_keys_value_pos(table, key->env != NULL ? "key_env" : "", &line, &col);
        sluice_keys_fail_at(ld, line, col, key->env != NULL ? "key_env" : "key_sha256",
                            key->env != NULL
                                ? "set only one of key_sha256 and key_env in [[api_keys]]"
                                : "[[api_keys]] needs key_sha256 or key_env");
        sluice_keys_hint(
            ld, "key_sha256 = the key's SHA-256 in hex; key_env = the name of an environment "
                "variable holding the key");
        return SLUICE_E_CONFIG;
    }
    if (key->sha256_hex != NULL) {
        char *lower = (char *)key->sha256_hex; /* our own arena copy */
        for (size_t i = 0; lower[i] != '\0'; i++)
            lower[i] = (char)(lower[i] >= 'A' && lower[i] <= 'F' ? lower[i] - 'A' + 'a' : lower[i]);
    }
    return SLUICE_OK;
}

/* The first key of names present in table, or NULL. */
static const char *first_present(const sluice_toml_value *table, const char *const *names)
{
    for (size_t i = 0; names[i] != NULL; i++)
        if (sluice_toml_table_get(table, names[i]) != NULL)
            return names[i];
    return NULL;
}

/* True when a libpq conninfo string or URI carries a password (keyword password=, or
 * user:password@ in a URI). */
bool sluice_checks_conninfo_has_password(const char *conninfo)
{
    if (strstr(conninfo, "password") != NULL)
        return true;
    const char *scheme = strstr(conninfo, "://");
    if (scheme == NULL)
        return false;
    const char *at = strchr(scheme + 3, '@');
    const char *colon = strchr(scheme + 3, ':');
    const char *slash = strchr(scheme + 3, '/');
    return at != NULL && colon != NULL && colon < at && (slash == NULL || at < slash);
}

static sluice_status
check_database_postgres(sluice_keys_loader *ld, const sluice_toml_value *table, const void *obj)
{
    const sluice_config_database *db = obj;
    size_t line, col;
    if (db->conninfo == NULL) {
        sluice_keys_value_pos(table, "engine", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "conninfo",
                                   "engine \"postgres\" needs conninfo, e.g. conninfo = "
                                   "\"host=/run/postgresql dbname=app user=sluice_read\"");
    }
    if (sluice_checks_conninfo_has_password(db->conninfo)) {
        sluice_keys_value_pos(table, "conninfo", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "conninfo",
                                   "inline secrets are refused: conninfo carries a password; use "
                                   "password_file or password_env");
    }
    if (db->password_file != NULL && db->password_env != NULL) {
        sluice_keys_value_pos(table, "password_env", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "password_env",
                                   "set only one of password_file and password_env");
    }
    if (db->write_conninfo != NULL && sluice_checks_conninfo_has_password(db->write_conninfo)) {
        sluice_keys_value_pos(table, "write_conninfo", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "write_conninfo",
                                   "inline secrets are refused: write_conninfo carries a "
                                   "password; use write_password_file or write_password_env");
    }
    if (db->write_password_file != NULL && db->write_password_env != NULL) {
        sluice_keys_value_pos(table, "write_password_env", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "write_password_env",
                                   "set only one of write_password_file and write_password_env");
    }
    return SLUICE_OK;
}

/* The caller assertion needs its header and exactly one key source, and must not take the
 * server credential's header (one of the two would be lost). */
static sluice_status check_caller_assertion(sluice_keys_loader *ld,
                                            const sluice_toml_value *table,
                                            const sluice_config_database *db)
{
    bool keyed =
        db->caller_assertion_secret_env != NULL || db->caller_assertion_secret_file != NULL;
    size_t line, col;
    if (db->caller_assertion_header == NULL) {
        const char *key =
            keyed ? (db->caller_assertion_secret_env != NULL ? "caller_assertion_secret_env"
                                                             : "caller_assertion_secret_file")
            : db->caller_assertion_audience != NULL ? "caller_assertion_audience"
                                                    : NULL;
        if (key == NULL)
            return SLUICE_OK;
        sluice_keys_value_pos(table, key, &line, &col);
        return sluice_keys_fail_at(ld, line, col, key,
                                   "'%s' without caller_assertion_header: name the header the "
                                   "upstream reads the assertion from, e.g. "
                                   "caller_assertion_header = \"X-Sluice-Caller\"",
                                   key);
    }
    sluice_keys_value_pos(table, "caller_assertion_header", &line, &col);
    if (!keyed ||
        (db->caller_assertion_secret_env != NULL && db->caller_assertion_secret_file != NULL))
        return sluice_keys_fail_at(ld, line, col, "caller_assertion_header",
                                   "caller_assertion_header needs exactly one of "
                                   "caller_assertion_secret_env and caller_assertion_secret_file "
                                   "(the HS256 key, at least 32 bytes; 'sluice keygen' makes one)");
    bool credential = db->auth_token_env != NULL || db->auth_token_file != NULL;
    if (credential && db->auth_query_param == NULL &&
        strcasecmp(db->caller_assertion_header,
                   db->auth_header != NULL ? db->auth_header : "Authorization") == 0)
        return sluice_keys_fail_at(ld, line, col, "caller_assertion_header",
                                   "caller_assertion_header is '%s', the header of the server "
                                   "credential (auth_header): pick another, e.g. "
                                   "\"X-Sluice-Caller\"",
                                   sluice_keys_show(ld, db->caller_assertion_header));
    return SLUICE_OK;
}

sluice_status
sluice_checks_database(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    static const char *const duckdb_only[] = { "memory_limit", "threads", NULL };
    static const char *const postgres_only[] = {
        "conninfo",       "password_file",       "password_env",       "search_path", "pool_size",
        "write_conninfo", "write_password_file", "write_password_env", NULL
    };
    static const char *const graphql_only[] = { "endpoint",
                                                "auth_token_env",
                                                "auth_token_file",
                                                "ca_file",
                                                "max_response_bytes",
                                                "auth_query_param",
                                                "caller_assertion_header",
                                                "caller_assertion_secret_env",
                                                "caller_assertion_secret_file",
                                                "caller_assertion_audience",
                                                NULL };
    static const char *const not_postgres[] = { "path", NULL };
    const sluice_config_database *db = obj;
    ld->cfg->has_database = true;
    const char *key = NULL;
    const char *engine = NULL;
    if (db->engine != SLUICE_ENGINE_DUCKDB && (key = first_present(table, duckdb_only)) != NULL)
        engine = "duckdb";
    else if (db->engine != SLUICE_ENGINE_POSTGRES &&
             (key = first_present(table, postgres_only)) != NULL)
        engine = "postgres";
    else if (db->engine != SLUICE_ENGINE_GRAPHQL && db->engine != SLUICE_ENGINE_OPENAPI &&
             (key = first_present(table, graphql_only)) != NULL)
        engine = "graphql\" or \"openapi";
    else if (db->engine == SLUICE_ENGINE_POSTGRES &&
             (key = first_present(table, not_postgres)) != NULL)
        engine = "duckdb\" or \"sqlite";
    if (key != NULL) {
        size_t line, col;
        sluice_keys_value_pos(table, key, &line, &col);
        return sluice_keys_fail_at(ld, line, col, key,
                                   "'%s' applies to engine \"%s\" only; remove it or set "
                                   "engine = \"%s\"",
                                   key, engine, engine);
    }
    if (db->engine == SLUICE_ENGINE_GRAPHQL && db->endpoint == NULL)
        return sluice_keys_fail_at(ld, sluice_toml_line(table), 0, "endpoint",
                                   "engine \"graphql\" needs endpoint (the upstream URL); path "
                                   "(its schema as an SDL file) is optional, else the schema is "
                                   "fetched by introspection at start-up");
    if (db->engine == SLUICE_ENGINE_OPENAPI && db->path == NULL)
        return sluice_keys_fail_at(ld, sluice_toml_line(table), 0, "path",
                                   "engine \"openapi\" needs path (the OpenAPI 3.0/3.1 spec, "
                                   "JSON or YAML); endpoint (the base URL) defaults to the "
                                   "spec's first server");
    sluice_status st = check_caller_assertion(ld, table, db);
    if (st != SLUICE_OK)
        return st;
    return db->engine == SLUICE_ENGINE_POSTGRES ? check_database_postgres(ld, table, obj)
                                                : SLUICE_OK;
}

sluice_status
sluice_checks_named_database(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_database *db = obj;
    size_t line, col;
    if (sluice_toml_table_get(table, "name") == NULL || strcmp(db->name, "default") == 0) {
        sluice_keys_value_pos(table, "name", &line, &col);
        return sluice_keys_fail_at(ld, line ? line : sluice_toml_line(table), col, "name",
                                   "each [[databases]] entry needs a name other than "
                                   "\"default\" (that one is [database]); routes pick it with "
                                   "[[policy.servers]] database = \"<name>\"");
    }
    return sluice_checks_database(ld, table, obj);
}

/* One of file/env for the signing secret (required when code mode is on), at most one for the
 * previous secret. */
static sluice_status check_secret_pair(sluice_keys_loader *ld,
                                       const sluice_toml_value *table,
                                       const char *file,
                                       const char *env,
                                       const char *file_key,
                                       const char *env_key,
                                       bool required)
{
    size_t line, col;
    if (file != NULL && env != NULL) {
        sluice_keys_value_pos(table, env_key, &line, &col);
        return sluice_keys_fail_at(ld, line, col, env_key, "set only one of %s and %s", file_key,
                                   env_key);
    }
    if (required && file == NULL && env == NULL) {
        sluice_keys_value_pos(table, "enabled", &line, &col);
        sluice_keys_fail_at(ld, line, col, file_key,
                            "code mode is enabled but has no token secret: set %s or %s", file_key,
                            env_key);
        sluice_keys_hint(ld, "run 'sluice keygen' to make a secret of 32 random bytes");
        return SLUICE_E_CONFIG;
    }
    return SLUICE_OK;
}

/* passable_fields name output-blocked fields: an internal one never reaches a plan, and any
 * other field needs no permission to be sent. */
static sluice_status check_passable(sluice_keys_loader *ld,
                                    const sluice_toml_value *table,
                                    const sluice_config_code_mode *cm)
{
    for (size_t i = 0; i < cm->operation_count; i++) {
        const sluice_config_operation *op = &cm->operations[i];
        for (size_t k = 0; k < op->passable_fields.count; k++) {
            const char *f = op->passable_fields.items[k];
            if (sluice_strlist_contains_folded(&cm->openapi_output_blocked_fields, f) ||
                sluice_strlist_contains_folded(&cm->blocked_fields, f))
                continue;
            bool internal = sluice_strlist_contains_folded(&cm->openapi_internal_blocked_fields, f);
            size_t line, col;
            sluice_keys_value_pos(table, "operations", &line, &col);
            return sluice_keys_fail_at(
                ld, line, col, "passable_fields",
                "operation '%s' lists '%s' in passable_fields, but %s; list only fields of "
                "openapi_output_blocked_fields or blocked_fields",
                sluice_keys_show(ld, op->id), sluice_keys_show(ld, f),
                internal ? "it is an internal blocked field, which never reaches a plan"
                         : "it is not a blocked field, so plans may send it anyway");
        }
    }
    return SLUICE_OK;
}

sluice_status
sluice_checks_code_mode(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_code_mode *cm = obj;
    sluice_status st = check_secret_pair(ld, table, cm->token_secret_file, cm->token_secret_env,
                                         "token_secret_file", "token_secret_env", cm->enabled);
    if (st == SLUICE_OK)
        st = check_secret_pair(ld, table, cm->token_previous_secret_file,
                               cm->token_previous_secret_env, "token_previous_secret_file",
                               "token_previous_secret_env", false);
    if (st != SLUICE_OK)
        return st;
    if ((st = check_passable(ld, table, cm)) != SLUICE_OK)
        return st;
    for (size_t i = 0; i < cm->operation_count; i++) {
        const sluice_config_operation *op = &cm->operations[i];
        if (op->category == NULL || strcmp(op->category, "delete") != 0)
            continue;
        const char **items =
            sluice_arena_calloc(ld->arena, cm->delete_operations.count + 1, sizeof *items);
        if (items == NULL)
            return sluice_keys_nomem(ld);
        for (size_t k = 0; k < cm->delete_operations.count; k++)
            items[k] = cm->delete_operations.items[k];
        items[cm->delete_operations.count] = op->id;
        cm->delete_operations.items = items;
        cm->delete_operations.count++;
    }
    st = sluice_checks_class_modes(ld, table, cm);
    if (st != SLUICE_OK)
        return st;
    if (cm->graphql_persisted_only && cm->graphql_persisted_manifest == NULL) {
        size_t line, col;
        sluice_keys_value_pos(table, "graphql_persisted_only", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "graphql_persisted_only",
                                   "graphql_persisted_only needs graphql_persisted_manifest (an "
                                   "Apollo persisted-query manifest file)");
    }
    if (cm->audit_log != NULL && cm->replay_store == NULL) {
        cm->replay_store = sluice_arena_printf(ld->arena, "%s.replay", cm->audit_log);
        if (cm->replay_store == NULL)
            return sluice_keys_nomem(ld);
    }
    return SLUICE_OK;
}

/* Each backend takes its own keys; another backend's key is a mistake worth naming. */
sluice_status
sluice_checks_policy(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    static const char *const cedar_keys[] = { "policies", "entities", "schema", NULL };
    static const char *const command_keys[] = { "command", "timeout_ms", NULL };
    static const char *const names[] = { "none", "cedar", "command" };
    sluice_config_policy *p = obj;
    ld->cfg->has_policy = true;
    const char *const *foreign[2] = { p->backend == SLUICE_POLICY_BACKEND_CEDAR ? NULL : cedar_keys,
                                      p->backend == SLUICE_POLICY_BACKEND_COMMAND ? NULL
                                                                                  : command_keys };
    size_t line, col;
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; foreign[l] != NULL && foreign[l][i] != NULL; i++) {
            if (sluice_toml_table_get(table, foreign[l][i]) == NULL)
                continue;
            sluice_keys_value_pos(table, foreign[l][i], &line, &col);
            return sluice_keys_fail_at(ld, line, col, foreign[l][i],
                                       "'%s' does not apply to backend \"%s\"; remove it or set "
                                       "backend = \"%s\"",
                                       foreign[l][i], names[p->backend],
                                       l == 0 ? "cedar" : "command");
        }
    }
    if (p->backend == SLUICE_POLICY_BACKEND_CEDAR && p->policies == NULL) {
        sluice_keys_value_pos(table, "backend", &line, &col);
        sluice_keys_fail_at(ld, line, col, "policies",
                            "backend \"cedar\" needs policies = \"file.cedar\"");
        sluice_keys_hint(ld, "examples/policies/seed000.cedar is a starting point");
        return SLUICE_E_CONFIG;
    }
    if (p->backend == SLUICE_POLICY_BACKEND_COMMAND && p->command.count == 0) {
        sluice_keys_value_pos(table, "backend", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "command",
                                   "backend \"command\" needs command = [\"program\", "
                                   "\"arg\", ...]");
    }
    return SLUICE_OK;
}

sluice_status
sluice_checks_operation(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    (void)ld;
    sluice_config_operation *op = obj;
    op->has_idempotent = sluice_toml_table_get(table, "idempotent") != NULL;
    return SLUICE_OK;
}

sluice_status
sluice_checks_mcp_server(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_mcp_server *m = obj;
    bool cmd = sluice_toml_table_get(table, "command") != NULL;
    const char *name = sluice_keys_show(ld, m->name);
    const char *key = NULL, *why = NULL;
    if (cmd && m->url != NULL) {
        key = "url";
        why = "has both command and url: keep command for a stdio server or url for a "
              "Streamable HTTP one";
    } else if (!cmd && m->url == NULL) {
        key = "name";
        why = "has neither command nor url: set command = [\"argv\", ...] for a stdio server "
              "or url = \"https://...\" for a Streamable HTTP one";
    } else if (cmd && (m->token_env != NULL || m->token_file != NULL)) {
        key = m->token_env != NULL ? "token_env" : "token_file";
        why = "sets a token but is a stdio server: token_env / token_file go with url only";
    } else if (m->token_env != NULL && m->token_file != NULL) {
        key = "token_file";
        why = "has both token_env and token_file: keep one";
    }
    if (key == NULL)
        return SLUICE_OK;
    size_t line, col;
    sluice_keys_value_pos(table, key, &line, &col);
    return sluice_keys_fail_at(ld, line, col, key, "mcp server '%s' %s", name, why);
}

/* Which overrides were written: an absent one inherits [code_mode]. */
sluice_status
sluice_checks_policy_server(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_policy_server *s = obj;
    s->line = sluice_toml_line(table);
    s->has_allow_writes = sluice_toml_table_get(table, "allow_writes") != NULL;
    s->has_allow_deletes = sluice_toml_table_get(table, "allow_deletes") != NULL;
    s->has_allow_admin = sluice_toml_table_get(table, "allow_admin") != NULL;
    s->has_execute_on_validate = sluice_toml_table_get(table, "execute_on_validate") != NULL;
    s->has_caller_roles = sluice_toml_table_get(table, "caller_roles") != NULL;
    s->has_caller_default_role = sluice_toml_table_get(table, "caller_default_role") != NULL;
    s->has_caller_claims = sluice_toml_table_get(table, "caller_claims") != NULL;
    if (s->groups.count > 0)
        return SLUICE_OK;
    size_t line, col;
    sluice_keys_value_pos(table, "groups", &line, &col);
    return sluice_keys_fail_at(ld, line, col, "groups",
                               "policy server '%s' has no groups, so no caller is routed to it",
                               sluice_keys_show(ld, s->id));
}

static bool has_param(const sluice_config_tool *tool, const char *name, size_t len)
{
    for (size_t i = 0; i < tool->param_count; i++) {
        if (strlen(tool->params[i].name) == len && strncmp(tool->params[i].name, name, len) == 0)
            return true;
    }
    return false;
}

/* Skips a quoted run starting at s[i] (the quote) to just past its closing quote; a doubled
 * quote is an escaped one. Unclosed runs end at the end of the text. */
static size_t skip_quoted(const char *s, size_t i, char quote)
{
    for (i++; s[i] != '\0'; i++) {
        if (s[i] == quote && s[i + 1] == quote)
            i++;
        else if (s[i] == quote)
            return i + 1;
    }
    return i;
}

/* Index just past the next occurrence of tag (length n) from i, or the end. */
static size_t skip_to(const char *s, size_t i, const char *tag, size_t n)
{
    const char *end = strstr(s + i, tag);
    return end != NULL ? (size_t)(end - s) + n : strlen(s);
}

/* Finds the $name placeholders of a statement the way DuckDB and SQLite do: not inside string
 * literals, quoted identifiers, comments or dollar-quoted strings. Marks used[i] for each
 * declared parameter seen; fails on the first undeclared or positional one. */
static sluice_status scan_placeholders(sluice_keys_loader *ld,
                                       const sluice_toml_value *stmt_value,
                                       sluice_config_tool *tool,
                                       bool *used)
{
    const char *s = tool->statement;
    size_t i = 0;
    while (s[i] != '\0') {
        char c = s[i];
        if (c == '\'' || c == '"') {
            i = skip_quoted(s, i, c);
        } else if (c == '-' && s[i + 1] == '-') {
            i = skip_to(s, i, "\n", 1);
        } else if (c == '/' && s[i + 1] == '*') {
            i = skip_to(s, i + 2, "*/", 2);
        } else if (c == '$' && s[i + 1] == '$') {
            i = skip_to(s, i + 2, "$$", 2);
        } else if (c == '$' && s[i + 1] >= '0' && s[i + 1] <= '9') {
            sluice_keys_fail_value(
                ld, stmt_value, "statement",
                "tool '%s' uses a positional parameter ($%c...); name it instead", tool->name,
                s[i + 1]);
            sluice_keys_hint(ld, "write $region and declare it in [[tools.parameters]]");
            return SLUICE_E_CONFIG;
        } else if (c == '$' && is_ident_start(s[i + 1])) {
            size_t start = i + 1, end = start;
            while (is_ident_char(s[end]))
                end++;
            if (s[end] == '$') { /* $tag$ ... $tag$: a dollar-quoted string */
                char tag[SLUICE_LIMIT_SUGGEST_WORD_BYTES + 3];
                size_t n = end - i + 1;
                if (n >= sizeof tag) {
                    i = strlen(s);
                    continue;
                }
                memcpy(tag, s + i, n);
                tag[n] = '\0';
                i = skip_to(s, end + 1, tag, n);
                continue;
            }
            size_t p;
            for (p = 0; p < tool->param_count; p++) {
                if (strlen(tool->params[p].name) == end - start &&
                    strncmp(tool->params[p].name, s + start, end - start) == 0)
                    used[p] = true;
            }
            if (!has_param(tool, s + start, end - start)) {
                char *name = sluice_arena_strndup(ld->err_arena, s + start, end - start);
                sluice_keys_fail_value(
                    ld, stmt_value, "statement",
                    "the statement of tool '%s' uses $%s, which is not a declared "
                    "parameter",
                    tool->name, sluice_keys_show(ld, name));
                sluice_suggest sug;
                sluice_suggest_init(&sug, name);
                for (p = 0; p < tool->param_count; p++)
                    sluice_suggest_consider(&sug, tool->params[p].name);
                if (sluice_suggest_best(&sug) != NULL)
                    sluice_keys_hint(ld, "did you mean '$%s'?", sluice_suggest_best(&sug));
                else
                    sluice_keys_hint(ld,
                                     "declare it in [[tools.parameters]] with a name and a type");
                return SLUICE_E_CONFIG;
            }
            i = end;
        } else {
            i++;
        }
    }
    return SLUICE_OK;
}

static const char *const reserved_tools[] = { "validate_code", "execute_code", NULL };

sluice_status sluice_checks_tool(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_tool *tool = obj;
    size_t line, col;
    tool->line = sluice_toml_line(table);
    sluice_keys_value_pos(table, "name", &line, &col);
    if (!is_mcp_name(tool->name))
        return sluice_keys_fail_at(
            ld, line, col, "name",
            "tool name \"%s\" must be 1 to 64 letters, digits, '_', '.' or '-'",
            sluice_keys_show(ld, tool->name));
    for (size_t i = 0; reserved_tools[i] != NULL; i++) {
        if (strcmp(tool->name, reserved_tools[i]) == 0)
            return sluice_keys_fail_at(ld, line, col, "name",
                                       "tool name '%s' is reserved for code mode", tool->name);
    }
    const sluice_toml_value *params = sluice_toml_table_get(table, "parameters");
    for (size_t i = 0; i < tool->param_count; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(tool->params[i].name, tool->params[j].name) == 0) {
                sluice_keys_value_pos(sluice_toml_array_get(params, i), "name", &line, &col);
                return sluice_keys_fail_at(ld, line, col, "name",
                                           "tool '%s' declares parameter '%s' twice", tool->name,
                                           tool->params[i].name);
            }
        }
    }
    bool *used = tool->param_count > 0
                     ? sluice_arena_calloc(ld->err_arena, tool->param_count, sizeof(bool))
                     : NULL;
    if (tool->param_count > 0 && used == NULL)
        return sluice_keys_nomem(ld);
    const sluice_toml_value *stmt = sluice_toml_table_get(table, "statement");
    sluice_status st = scan_placeholders(ld, stmt, tool, used);
    if (st != SLUICE_OK)
        return st;
    for (size_t i = 0; i < tool->param_count; i++) {
        if (!used[i]) {
            sluice_keys_value_pos(sluice_toml_array_get(params, i), "name", &line, &col);
            sluice_keys_fail_at(ld, line, col, "name",
                                "parameter '%s' of tool '%s' is never used in its statement",
                                tool->params[i].name, tool->name);
            sluice_keys_hint(ld, "refer to it as $%s in the statement, or remove it",
                             tool->params[i].name);
            return SLUICE_E_CONFIG;
        }
    }
    return SLUICE_OK;
}

sluice_status sluice_checks_param(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_param *param = obj;
    size_t line, col;
    bool ranged = param->minimum != SLUICE_PARAM_NO_MIN || param->maximum != SLUICE_PARAM_NO_MAX;
    if (ranged && param->type != SLUICE_PARAM_INTEGER && param->type != SLUICE_PARAM_NUMBER) {
        sluice_keys_value_pos(table, param->minimum != SLUICE_PARAM_NO_MIN ? "minimum" : "maximum",
                              &line, &col);
        return sluice_keys_fail_at(ld, line, col, "minimum",
                                   "minimum and maximum apply to integer and number parameters; "
                                   "remove them or set type = \"integer\"");
    }
    if (ranged && param->minimum != SLUICE_PARAM_NO_MIN && param->maximum != SLUICE_PARAM_NO_MAX &&
        param->minimum > param->maximum) {
        sluice_keys_value_pos(table, "maximum", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "maximum",
                                   "maximum (%lld) is below minimum (%lld)",
                                   (long long)param->maximum, (long long)param->minimum);
    }
    if (is_identifier(param->name))
        return SLUICE_OK;
    sluice_keys_value_pos(table, "name", &line, &col);
    return sluice_keys_fail_at(
        ld, line, col, "name",
        "parameter name \"%s\" must be a letter or '_' followed by letters, digits "
        "or '_' (it is written $name in the statement)",
        sluice_keys_show(ld, param->name));
}

static const sluice_config_prompt_arg *
find_arg(const sluice_config_prompt *prompt, const char *name, size_t len)
{
    for (size_t i = 0; i < prompt->arg_count; i++) {
        if (strlen(prompt->args[i].name) == len && strncmp(prompt->args[i].name, name, len) == 0)
            return &prompt->args[i];
    }
    return NULL;
}

/* Each {{ name }} in a message must be a declared argument; "{{" not followed by a name and
 * "}}" is literal text. */
static sluice_status check_placeholders(sluice_keys_loader *ld,
                                        const sluice_toml_value *text_value,
                                        const sluice_config_prompt *prompt,
                                        const char *text)
{
    for (const char *p = strstr(text, "{{"); p != NULL; p = strstr(p + 2, "{{")) {
        const char *q = p + 2;
        while (*q == ' ')
            q++;
        const char *name = q;
        while (is_ident_char(*q) || *q == '-' || *q == '.')
            q++;
        size_t len = (size_t)(q - name);
        while (*q == ' ')
            q++;
        if (len == 0 || q[0] != '}' || q[1] != '}' || find_arg(prompt, name, len) != NULL)
            continue;
        char *missing = sluice_arena_strndup(ld->err_arena, name, len);
        sluice_keys_fail_value(ld, text_value, "text",
                               "prompt '%s' uses {{%s}}, which is not a declared argument",
                               prompt->name, sluice_keys_show(ld, missing));
        sluice_keys_hint(ld,
                         "declare it in [[prompts.arguments]] (arguments = [{ name = \"%s\" }])",
                         sluice_keys_show(ld, missing));
        return SLUICE_E_CONFIG;
    }
    return SLUICE_OK;
}

sluice_status
sluice_checks_prompt(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_prompt *prompt = obj;
    size_t line, col;
    sluice_keys_value_pos(table, "name", &line, &col);
    if (!is_mcp_name(prompt->name))
        return sluice_keys_fail_at(
            ld, line, col, "name",
            "prompt name \"%s\" must be 1 to 64 letters, digits, '_', '.' or '-'",
            sluice_keys_show(ld, prompt->name));
    const sluice_toml_value *args = sluice_toml_table_get(table, "arguments");
    for (size_t i = 0; i < prompt->arg_count; i++) {
        sluice_keys_value_pos(sluice_toml_array_get(args, i), "name", &line, &col);
        if (!is_mcp_name(prompt->args[i].name))
            return sluice_keys_fail_at(
                ld, line, col, "name",
                "argument name \"%s\" must be 1 to 64 letters, digits, '_', '.' or "
                "'-'",
                sluice_keys_show(ld, prompt->args[i].name));
        if (find_arg(prompt, prompt->args[i].name, strlen(prompt->args[i].name)) !=
            &prompt->args[i])
            return sluice_keys_fail_at(ld, line, col, "name",
                                       "prompt '%s' declares argument '%s' twice", prompt->name,
                                       prompt->args[i].name);
    }
    const sluice_toml_value *messages = sluice_toml_table_get(table, "messages");
    if (prompt->message_count == 0) {
        sluice_keys_value_pos(table, "messages", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "messages", "prompt '%s' has no messages",
                                   prompt->name);
    }
    for (size_t i = 0; i < prompt->message_count; i++) {
        const sluice_toml_value *text =
            sluice_toml_table_get(sluice_toml_array_get(messages, i), "text");
        sluice_status st = check_placeholders(ld, text, prompt, prompt->messages[i].text);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* Textual mime types are served as text (and must be UTF-8); anything else as a base64 blob. */
static bool is_text_mime(const char *mime)
{
    static const char *const text_types[] = { "application/json",       "application/xml",
                                              "application/javascript", "application/toml",
                                              "application/yaml",       "application/sql",
                                              "application/x-ndjson",   NULL };
    if (strncmp(mime, "text/", 5) == 0)
        return true;
    size_t base = strcspn(mime, ";");
    for (size_t i = 0; text_types[i] != NULL; i++) {
        if (strlen(text_types[i]) == base && strncmp(mime, text_types[i], base) == 0)
            return true;
    }
    const char *plus = memchr(mime, '+', base);
    return plus != NULL && (strncmp(plus, "+json", 5) == 0 || strncmp(plus, "+xml", 4) == 0);
}

sluice_status
sluice_checks_mime(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    const char *s = sluice_toml_string(v, NULL);
    static const char token[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "!#$&^_.+-";
    size_t type = strspn(s, token);
    size_t sub = type > 0 && s[type] == '/' ? strspn(s + type + 1, token) : 0;
    const char *rest = s + type + 1 + sub;
    if (sub > 0 && (*rest == '\0' || *rest == ';'))
        return SLUICE_OK;
    return sluice_keys_fail_value(ld, v, key,
                                  "'%s' must be a media type such as \"text/markdown\", got "
                                  "\"%s\"",
                                  key, sluice_keys_show(ld, s));
}

sluice_status
sluice_checks_uri(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    const char *s = sluice_toml_string(v, NULL);
    size_t scheme = is_ident_start(s[0]) && s[0] != '_'
                        ? strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789+.-")
                        : 0;
    if (scheme > 0 && s[scheme] == ':' && s[scheme + 1] != '\0' &&
        strcspn(s, " \t\r\n") == strlen(s))
        return SLUICE_OK;
    return sluice_keys_fail_value(
        ld, v, key,
        "'%s' must be an absolute URI with a scheme, such as \"docs://guide\", "
        "got \"%s\"",
        key, sluice_keys_show(ld, s));
}

sluice_status
sluice_checks_resource(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_resource *res = obj;
    size_t line, col;
    if ((res->text == NULL) == (res->file == NULL)) {
        sluice_keys_value_pos(table, "file", &line, &col);
        return sluice_keys_fail_at(
            ld, line, col, res->file != NULL ? "file" : "text",
            res->file != NULL
                ? "resource '%s' sets both text and file; keep one"
                : "resource '%s' needs its content: text = \"...\" or file = \"path\"",
            sluice_keys_show(ld, res->uri));
    }
    res->is_blob = !is_text_mime(res->mime_type);
    if (res->text != NULL) {
        res->text_len = strlen(res->text);
        if (!res->is_blob)
            return SLUICE_OK;
        sluice_keys_value_pos(table, "mime_type", &line, &col);
        return sluice_keys_fail_at(
            ld, line, col, "mime_type",
            "resource '%s' has inline text but a binary mime type \"%s\"; serve "
            "binary content with file = \"path\"",
            sluice_keys_show(ld, res->uri), sluice_keys_show(ld, res->mime_type));
    }
    char *data = NULL;
    size_t len = 0;
    int e = sluice_checks_read_file(ld->arena, res->file, SLUICE_LIMIT_RESOURCE_FILE_BYTES, true,
                                    &data, &len);
    const sluice_toml_value *file = sluice_toml_table_get(table, "file");
    const char *written = sluice_keys_show(ld, sluice_toml_string(file, NULL));
    sluice_keys_value_pos(table, "file", &line, &col);
    if (e == ENOMEM)
        return sluice_keys_nomem(ld);
    if (e == EFBIG)
        return sluice_keys_fail_at(ld, line, col, "file",
                                   "resource file '%s' is too large (limit is %u bytes)", written,
                                   SLUICE_LIMIT_RESOURCE_FILE_BYTES);
    if (e != 0) {
        sluice_keys_fail_at(ld, line, col, "file", "cannot read resource file '%s': %s", written,
                            e == EINVAL ? "not a regular file" : strerror(e));
        if (ld->dir != NULL && res->file != sluice_toml_string(file, NULL))
            sluice_keys_hint(
                ld, "relative paths are resolved against the config file's directory, %s", ld->dir);
        return SLUICE_E_CONFIG;
    }
    if (!res->is_blob && !is_valid_utf8((const unsigned char *)data, len)) {
        sluice_keys_fail_at(ld, line, col, "file", "resource file '%s' is not UTF-8 text", written);
        sluice_keys_hint(
            ld, "set mime_type to its binary type (e.g. \"application/pdf\") to serve it as a "
                "blob");
        return SLUICE_E_CONFIG;
    }
    res->text = data;
    res->text_len = len;
    return SLUICE_OK;
}

/* ---- [auth], [admin] ----------------------------------------------------------------------- */

static bool is_http_url(const char *s)
{
    const char *rest = strncmp(s, "https://", 8) == 0  ? s + 8
                       : strncmp(s, "http://", 7) == 0 ? s + 7
                                                       : NULL;
    return rest != NULL && rest[0] != '\0' && rest[0] != '/' &&
           strcspn(s, " \t\r\n#\"\\") == strlen(s);
}

static sluice_status url_item(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key)
{
    const char *s = sluice_toml_string(v, NULL);
    if (is_http_url(s))
        return SLUICE_OK;
    return sluice_keys_fail_value(ld, v, key,
                                  "'%s' must be an http(s) URL such as "
                                  "\"https://mcp.example.com/mcp\" (no spaces, quotes or "
                                  "#fragment), got \"%s\"",
                                  key, sluice_keys_show(ld, s));
}

sluice_status
sluice_checks_url(sluice_keys_loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    return url_item(ld, v, key);
}

sluice_status sluice_checks_url_list(sluice_keys_loader *ld,
                                     const sluice_toml_value *v,
                                     const char *key,
                                     void *obj)
{
    (void)obj;
    for (size_t i = 0; i < sluice_toml_array_count(v); i++) {
        sluice_status st = url_item(ld, sluice_toml_array_get(v, i), key);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

sluice_status sluice_checks_auth(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_auth *auth = obj;
    bool jwt = auth->jwks_file != NULL || auth->hs256_secret_file != NULL;
    const char *missing = !jwt                                     ? NULL
                          : auth->issuer == NULL                   ? "issuer"
                          : auth->authorization_servers.count == 0 ? "authorization_servers"
                                                                   : NULL;
    if (missing == NULL)
        return SLUICE_OK;
    size_t line, col;
    sluice_keys_value_pos(table, auth->jwks_file != NULL ? "jwks_file" : "hs256_secret_file", &line,
                          &col);
    sluice_keys_fail_at(ld, line, col, missing, "[auth] validates JWTs, so it needs '%s'", missing);
    sluice_keys_hint(ld, "issuer = the \"iss\" your authorization server puts in tokens; "
                         "authorization_servers = [its URL], published to clients");
    return SLUICE_E_CONFIG;
}

/* [admin] listen: the same form as [server] listen; nothing is stored beside it (the server
 * parses it when it starts the admin listener). */
sluice_status sluice_checks_admin_listen(sluice_keys_loader *ld,
                                         const sluice_toml_value *v,
                                         const char *key,
                                         void *obj)
{
    (void)obj;
    return sluice_checks_listen(ld, v, key, NULL);
}

sluice_status sluice_checks_admin(sluice_keys_loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_admin *admin = obj;
    if (admin->key_sha256 != NULL && admin->key_env != NULL) {
        size_t line, col;
        sluice_keys_value_pos(table, "key_env", &line, &col);
        return sluice_keys_fail_at(ld, line, col, "key_env",
                                   "set only one of key_sha256 and key_env in [admin]");
    }
    if (admin->key_sha256 != NULL) {
        char *lower = (char *)admin->key_sha256; /* our own arena copy */
        for (size_t i = 0; lower[i] != '\0'; i++)
            lower[i] = (char)(lower[i] >= 'A' && lower[i] <= 'F' ? lower[i] - 'A' + 'a' : lower[i]);
    }
    return SLUICE_OK;
}
