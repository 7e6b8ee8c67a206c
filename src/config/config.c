/*
 * config.c — the typed configuration loader (see config.h).
 *
 * Owns: turning the TOML tree into sluice_config, one declarative key table per section (name,
 * type, field, range, default, built or not), and every cross-check between keys. Adding a key
 * is one row in its section's table; the generic decoder gives it type checks, range checks,
 * "did you mean" and its default.
 * Does not own: TOML syntax (toml.c), what a setting does (each module reads its part), secrets
 * (the token module reads token_secret_file / token_secret_env; no secret is ever in here).
 *
 * The TOML tree lives in a scratch arena freed before returning; everything the config keeps is
 * copied into the config's own arena. Error strings live in the caller's err_arena.
 */
#include "config/config.h"

#include "config/suggest.h"
#include "config/toml.h"
#include "core/buf.h"
#include "core/limits.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NO_FIELD SIZE_MAX

/* Values longer than this are shortened when quoted back in a message. */
#define SHOW_MAX 48u

typedef enum key_kind {
    KEY_BOOL,
    KEY_INT,     /* int64_t, [min, max] when min < max */
    KEY_SIZE,    /* size_t, [min, max] */
    KEY_STRING,  /* const char *, at least min bytes */
    KEY_PATH,    /* const char *, resolved against the config file's directory */
    KEY_ENUM,    /* an enum (int-sized), index into choices */
    KEY_CHOICE,  /* const char *, one of choices (the static string is stored) */
    KEY_STRLIST, /* sluice_strlist of non-empty strings */
    KEY_RISKS,   /* bool[4] indexed by sluice_risk, from an array of risk names */
    KEY_SECTION, /* a table decoded with sub into the struct at offset */
    KEY_TABLES,  /* an array of tables decoded with sub into an array (offset, count_offset) */
    KEY_ACTIONS, /* a table of name = "read"|"write"|"delete"|"admin" */
} key_kind;

typedef enum key_status {
    KEY_BUILT,
    KEY_NOT_BUILT,     /* recognised and type-checked, then refused: the feature is not built */
    KEY_INLINE_SECRET, /* refused whatever its value: secrets never live in the file */
} key_status;

typedef struct loader loader;
typedef struct section_spec section_spec;

/* Extra validation of a well-typed value; obj is NULL when only checking (not-built keys). */
typedef sluice_status (*key_check_fn)(loader *ld,
                                      const sluice_toml_value *v,
                                      const char *key,
                                      void *obj);

typedef struct key_spec {
    const char *name;
    key_kind kind;
    size_t offset;       /* into the section's struct; NO_FIELD when nothing is stored */
    size_t count_offset; /* KEY_TABLES: where the element count goes */
    int64_t min, max;    /* KEY_INT / KEY_SIZE range; KEY_STRING minimum length */
    int64_t def;         /* default of KEY_BOOL / KEY_INT / KEY_SIZE / KEY_ENUM */
    const char *def_str; /* default of KEY_STRING / KEY_CHOICE */
    const char *const *choices;
    const section_spec *sub;
    key_check_fn check;
    key_status status;
    const char *why; /* KEY_NOT_BUILT: the feature; KEY_INLINE_SECRET: what to use instead */
    bool required;
} key_spec;

/* A name people bring from elsewhere (pmcp-code-mode's README, its toolkit) and ours for it. */
typedef struct key_alias {
    const char *from;
    const char *to;
} key_alias;

struct section_spec {
    const char *path; /* "code_mode", "tools.parameters"; NULL for the top level */
    bool array;       /* shown as [[path]] rather than [path] */
    size_t size;      /* sizeof one element, for arrays of tables */
    const key_spec *keys;
    size_t key_count;
    const key_alias *aliases; /* NULL-terminated, or NULL */
    /* Defaults that are not constants (environment, other allocations). */
    sluice_status (*init)(loader *ld, void *obj);
    /* Cross-checks once every key of the table is in; obj is never NULL here. */
    sluice_status (*finish)(loader *ld, const sluice_toml_value *table, void *obj);
};

struct loader {
    sluice_config *cfg;
    sluice_arena *arena; /* cfg->arena */
    sluice_arena *err_arena;
    sluice_error *err;
    const char *source;
    const char *dir; /* NULL: relative paths stay relative */
};

/* ------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------ */

static sluice_status nomem(loader *ld)
{
    return sluice_error_set(ld->err, ld->err_arena, SLUICE_E_NOMEM,
                            "out of memory while loading the configuration");
}

/* Sets a SLUICE_E_CONFIG error at line:column naming key (may be NULL). */
static sluice_status
fail_at(loader *ld, size_t line, size_t column, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static sluice_status
fail_at(loader *ld, size_t line, size_t column, const char *key, const char *fmt, ...)
{
    if (ld->err == NULL)
        return SLUICE_E_CONFIG;
    va_list ap;
    va_start(ap, fmt);
    char *msg = ld->err_arena != NULL ? sluice_arena_vprintf(ld->err_arena, fmt, ap) : NULL;
    va_end(ap);
    if (msg == NULL)
        return nomem(ld);
    sluice_error_clear(ld->err);
    ld->err->status = SLUICE_E_CONFIG;
    ld->err->message = msg;
    ld->err->source = sluice_arena_strdup(ld->err_arena, ld->source);
    ld->err->key = sluice_arena_strdup(ld->err_arena, key);
    ld->err->line = line;
    ld->err->column = column;
    return SLUICE_E_CONFIG;
}

#define fail_value(ld, v, key, ...) \
    fail_at((ld), sluice_toml_line(v), sluice_toml_column(v), (key), __VA_ARGS__)

static void hint(loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hint(loader *ld, const char *fmt, ...)
{
    if (ld->err == NULL || ld->err_arena == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    ld->err->hint = sluice_arena_vprintf(ld->err_arena, fmt, ap);
    va_end(ap);
}

/* User text quoted back in a message: bounded, control bytes shown as '?'. Keys and values can
 * be anything a quoted TOML string holds, and messages end up in terminals and logs. */
static const char *show(loader *ld, const char *s)
{
    if (s == NULL)
        return "";
    size_t len = strlen(s), n = len > SHOW_MAX ? SHOW_MAX : len;
    char *out = ld->err_arena != NULL ? sluice_arena_alloc(ld->err_arena, n + 4) : NULL;
    if (out == NULL)
        return "...";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    memcpy(out + n, len > n ? "..." : "", len > n ? 4 : 1);
    return out;
}

/* "in [code_mode]", "in [[tools.parameters]]", or "at the top level". */
static const char *where(loader *ld, const section_spec *spec)
{
    if (spec->path == NULL)
        return "at the top level";
    const char *s =
        sluice_arena_printf(ld->err_arena, spec->array ? "in [[%s]]" : "in [%s]", spec->path);
    return s != NULL ? s : spec->path;
}

/* How a key names itself in a refusal: 'name' for values, [table] / [[table]] for tables. */
static const char *display_name(loader *ld, const section_spec *spec, const key_spec *k)
{
    if (k->kind != KEY_SECTION && k->kind != KEY_TABLES)
        return sluice_arena_printf(ld->err_arena, "'%s'", k->name);
    const char *s =
        sluice_arena_printf(ld->err_arena, k->kind == KEY_TABLES ? "[[%s%s%s]]" : "[%s%s%s]",
                            spec->path ? spec->path : "", spec->path ? "." : "", k->name);
    return s != NULL ? s : k->name;
}

/* ------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------ */

static void *field(void *obj, size_t offset)
{
    return (char *)obj + offset;
}

static const key_spec *find_key(const section_spec *spec, const char *name)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        if (strcmp(spec->keys[i].name, name) == 0)
            return &spec->keys[i];
    }
    return NULL;
}

/* Position of key's value in table, or of the table itself when the key is absent. */
static void value_pos(const sluice_toml_value *table, const char *key, size_t *line, size_t *col)
{
    const sluice_toml_value *v = table != NULL ? sluice_toml_table_get(table, key) : NULL;
    const sluice_toml_value *at = v != NULL ? v : table;
    *line = at != NULL ? sluice_toml_line(at) : 0;
    *col = at != NULL ? sluice_toml_column(at) : 0;
}

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

static bool is_valid_utf8(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (len - i <= n)
            return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

/* Reads a whole file of at most max bytes into arena (NUL-terminated). Returns 0, or an errno
 * value, or EFBIG when the file is larger than max, or EINVAL when it is not a regular file and
 * regular_only is set (a FIFO would block the loader forever). */
static int read_file(sluice_arena *arena,
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
static sluice_status
check_listen(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
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
        fail_value(ld, v, key,
                   "'%s' must be host:port with an IPv4 address or a bracketed IPv6 address, "
                   "got \"%s\"",
                   key, show(ld, s));
        hint(ld, "for example \"127.0.0.1:8808\" or \"[::1]:8808\"; port 0 picks a free port");
        return SLUICE_E_CONFIG;
    }
    if (obj != NULL) {
        sluice_config_server *server = obj;
        server->listen_host = sluice_arena_strdup(ld->arena, host);
        server->listen_port = (uint16_t)port;
        if (server->listen_host == NULL)
            return nomem(ld);
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
static sluice_status
check_origins(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    for (size_t i = 0; i < sluice_toml_array_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        const char *s = sluice_toml_string(item, NULL);
        if (strcmp(s, "*") == 0 || strcmp(s, "null") == 0) {
            fail_value(ld, item, key, "'%s' does not accept \"%s\": list each origin", key, s);
            hint(ld, "a wildcard origin would let any web page drive this server");
            return SLUICE_E_CONFIG;
        }
        const char *rest = strncmp(s, "http://", 7) == 0    ? s + 7
                           : strncmp(s, "https://", 8) == 0 ? s + 8
                                                            : NULL;
        if (rest == NULL || !is_host_port(rest)) {
            fail_value(ld, item, key,
                       "'%s' items must be origins like \"http://localhost:3000\" "
                       "(scheme://host[:port], no path), got \"%s\"",
                       key, show(ld, s));
            return SLUICE_E_CONFIG;
        }
    }
    return SLUICE_OK;
}

static sluice_status check_hosts(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    for (size_t i = 0; i < sluice_toml_array_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        const char *s = sluice_toml_string(item, NULL);
        if (!is_host_port(s)) {
            return fail_value(ld, item, key,
                              "'%s' items must be host or host:port as sent in the Host "
                              "header, got \"%s\"",
                              key, show(ld, s));
        }
    }
    return SLUICE_OK;
}

/* An environment variable name, never its value: the value may be the secret itself. */
static sluice_status
check_env_name(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    if (is_identifier(sluice_toml_string(v, NULL)))
        return SLUICE_OK;
    fail_value(ld, v, key,
               "'%s' must name an environment variable (letters, digits and '_', not starting "
               "with a digit)",
               key);
    hint(ld, "put the secret itself in the environment and its name here");
    return SLUICE_E_CONFIG;
}

static sluice_status
check_sha256(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
{
    (void)obj;
    const char *s = sluice_toml_string(v, NULL);
    if (strlen(s) == 64 && strspn(s, "0123456789abcdefABCDEF") == 64)
        return SLUICE_OK;
    fail_value(ld, v, key, "'%s' must be 64 hexadecimal digits (a SHA-256 digest)", key);
    hint(ld, "compute it with: printf %%s \"$KEY\" | sha256sum");
    return SLUICE_E_CONFIG;
}

/* DuckDB's memory_limit syntax: a number and a unit. Checked strictly because the value is
 * handed to the engine as a setting. */
static sluice_status
check_memory_limit(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
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
    return fail_value(ld, v, key, "'%s' must be a size such as \"512MB\" or \"2GiB\", got \"%s\"",
                      key, show(ld, s));
}

/* ------------------------------------------------------------------------------------------
 * The generic decoder
 * ------------------------------------------------------------------------------------------ */

static sluice_status
decode_table(loader *ld, const section_spec *spec, const sluice_toml_value *table, void *obj);

static const char *kind_wants(key_kind kind)
{
    switch (kind) {
    case KEY_BOOL:
        return "a boolean";
    case KEY_INT:
    case KEY_SIZE:
        return "an integer";
    case KEY_STRING:
    case KEY_PATH:
    case KEY_ENUM:
    case KEY_CHOICE:
        return "a string";
    case KEY_STRLIST:
    case KEY_RISKS:
        return "an array of strings";
    case KEY_TABLES:
        return "an array of tables";
    case KEY_SECTION:
    case KEY_ACTIONS:
        return "a table";
    }
    return "a value";
}

static sluice_toml_type kind_type(key_kind kind)
{
    switch (kind) {
    case KEY_BOOL:
        return SLUICE_TOML_BOOL;
    case KEY_INT:
    case KEY_SIZE:
        return SLUICE_TOML_INTEGER;
    case KEY_STRING:
    case KEY_PATH:
    case KEY_ENUM:
    case KEY_CHOICE:
        return SLUICE_TOML_STRING;
    case KEY_STRLIST:
    case KEY_RISKS:
    case KEY_TABLES:
        return SLUICE_TOML_ARRAY;
    case KEY_SECTION:
    case KEY_ACTIONS:
        return SLUICE_TOML_TABLE;
    }
    return SLUICE_TOML_TABLE;
}

/* True when a quoted string would be the wanted scalar without its quotes ("300", "true"). */
static bool looks_like(key_kind kind, const char *s)
{
    if (kind == KEY_BOOL)
        return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
    if (kind != KEY_INT && kind != KEY_SIZE)
        return false;
    size_t sign = s[0] == '-' || s[0] == '+' ? 1 : 0;
    size_t digits = strspn(s + sign, "0123456789_");
    return digits > 0 && s[sign + digits] == '\0';
}

static sluice_status
wrong_type(loader *ld, const key_spec *k, const sluice_toml_value *v, const section_spec *spec)
{
    sluice_toml_type got = sluice_toml_type_of(v);
    fail_value(ld, v, k->name, "'%s' must be %s, got %s", k->name, kind_wants(k->kind),
               sluice_toml_type_name(got));
    if (k->kind == KEY_TABLES && got == SLUICE_TOML_TABLE)
        hint(ld, "write [[%s%s%s]] (double brackets) once per entry", spec->path ? spec->path : "",
             spec->path ? "." : "", k->name);
    else if (k->kind == KEY_SECTION && got == SLUICE_TOML_ARRAY)
        hint(ld, "write [%s%s%s] (single brackets): there is only one",
             spec->path ? spec->path : "", spec->path ? "." : "", k->name);
    else if (got == SLUICE_TOML_STRING && looks_like(k->kind, sluice_toml_string(v, NULL)))
        hint(ld, "remove the quotes");
    return SLUICE_E_CONFIG;
}

/* Copies a TOML string into the config arena, refusing embedded NUL (it would silently cut a
 * path or a name short) and strings below min bytes. */
static sluice_status
take_string(loader *ld, const sluice_toml_value *v, const char *key, int64_t min, const char **out)
{
    size_t len = 0;
    const char *s = sluice_toml_string(v, &len);
    if (memchr(s, '\0', len) != NULL)
        return fail_value(ld, v, key, "'%s' must not contain a NUL character", key);
    if (min > 0 && len < (size_t)min)
        return fail_value(ld, v, key, "'%s' must not be empty", key);
    char *copy = sluice_arena_strndup(ld->arena, s, len);
    if (copy == NULL)
        return nomem(ld);
    *out = copy;
    return SLUICE_OK;
}

/* dir + "/" + path unless path is absolute or there is no dir. */
static sluice_status resolve_path(loader *ld, const char *path, const char **out)
{
    if (path[0] == '/' || ld->dir == NULL) {
        *out = path;
        return SLUICE_OK;
    }
    const char *joined = sluice_arena_printf(ld->arena, "%s/%s", ld->dir, path);
    if (joined == NULL)
        return nomem(ld);
    *out = joined;
    return SLUICE_OK;
}

/* Index of s in the NULL-terminated choices, or an error listing them. */
static sluice_status take_choice(loader *ld,
                                 const sluice_toml_value *v,
                                 const char *key,
                                 const char *const *choices,
                                 size_t *out)
{
    const char *s = sluice_toml_string(v, NULL);
    for (size_t i = 0; choices[i] != NULL; i++) {
        if (strcmp(s, choices[i]) == 0) {
            *out = i;
            return SLUICE_OK;
        }
    }
    sluice_buf b;
    sluice_buf_init(&b, ld->err_arena, 512);
    sluice_suggest sug;
    sluice_suggest_init(&sug, s);
    for (size_t i = 0; choices[i] != NULL; i++) {
        sluice_buf_printf(&b, "%s\"%s\"", i > 0 ? ", " : "", choices[i]);
        sluice_suggest_consider(&sug, choices[i]);
    }
    fail_value(ld, v, key, "'%s' must be one of %s, got \"%s\"", key,
               sluice_buf_status(&b) == SLUICE_OK ? b.data : "the documented values", show(ld, s));
    if (sluice_suggest_best(&sug) != NULL)
        hint(ld, "did you mean '%s'?", sluice_suggest_best(&sug));
    return SLUICE_E_CONFIG;
}

static const char *const risk_names[] = { "low", "medium", "high", "critical", NULL };
static const char *const action_names[] = { "read", "write", "delete", "admin", NULL };

/* Arrays of strings: every item a string, non-empty, without NUL. */
static sluice_status
take_strlist(loader *ld, const sluice_toml_value *v, const key_spec *k, sluice_strlist *out)
{
    size_t n = sluice_toml_array_count(v);
    const char **items = n > 0 ? sluice_arena_calloc(ld->arena, n, sizeof(*items)) : NULL;
    if (n > 0 && items == NULL)
        return nomem(ld);
    for (size_t i = 0; i < n; i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_STRING)
            return fail_value(ld, item, k->name,
                              "'%s' must be an array of strings, got %s at "
                              "index %zu",
                              k->name, sluice_toml_type_name(sluice_toml_type_of(item)), i);
        sluice_status st = take_string(ld, item, k->name, 1, &items[i]);
        if (st != SLUICE_OK)
            return st;
        if (k->kind == KEY_RISKS) {
            size_t level;
            st = take_choice(ld, item, k->name, risk_names, &level);
            if (st != SLUICE_OK)
                return st;
        }
    }
    if (out != NULL) {
        out->items = items;
        out->count = n;
    }
    return SLUICE_OK;
}

static sluice_status
take_tables(loader *ld, const sluice_toml_value *v, const key_spec *k, void *obj)
{
    size_t n = sluice_toml_array_count(v);
    for (size_t i = 0; i < n; i++) {
        const sluice_toml_value *item = sluice_toml_array_get(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_TABLE)
            return fail_value(ld, item, k->name,
                              "'%s' must be an array of tables, got %s at "
                              "index %zu",
                              k->name, sluice_toml_type_name(sluice_toml_type_of(item)), i);
    }
    char *elems = NULL;
    bool store = obj != NULL && k->offset != NO_FIELD;
    if (store && n > 0) {
        elems = sluice_arena_calloc(ld->arena, n, k->sub->size);
        if (elems == NULL)
            return nomem(ld);
    }
    for (size_t i = 0; i < n; i++) {
        void *elem = elems != NULL ? elems + i * k->sub->size : NULL;
        sluice_status st = decode_table(ld, k->sub, sluice_toml_array_get(v, i), elem);
        if (st != SLUICE_OK)
            return st;
    }
    if (store) {
        memcpy(field(obj, k->offset), &elems, sizeof(elems));
        memcpy(field(obj, k->count_offset), &n, sizeof(n));
    }
    return SLUICE_OK;
}

static sluice_status take_actions(loader *ld, const sluice_toml_value *v, const key_spec *k)
{
    for (size_t i = 0; i < sluice_toml_table_count(v); i++) {
        const sluice_toml_value *item = sluice_toml_table_value(v, i);
        const char *name = sluice_toml_table_key(v, i);
        if (sluice_toml_type_of(item) != SLUICE_TOML_STRING)
            return fail_value(ld, item, k->name, "'%s' values must be strings, got %s for '%s'",
                              k->name, sluice_toml_type_name(sluice_toml_type_of(item)),
                              show(ld, name));
        size_t action;
        sluice_status st = take_choice(ld, item, k->name, action_names, &action);
        if (st != SLUICE_OK)
            return st;
    }
    return SLUICE_OK;
}

/* Type-checks v against k and, when obj is not NULL, stores it. */
static sluice_status take_value(
    loader *ld, const section_spec *spec, const key_spec *k, const sluice_toml_value *v, void *obj)
{
    if (sluice_toml_type_of(v) != kind_type(k->kind))
        return wrong_type(ld, k, v, spec);
    void *at = obj != NULL && k->offset != NO_FIELD ? field(obj, k->offset) : NULL;
    sluice_status st = SLUICE_OK;
    switch (k->kind) {
    case KEY_BOOL: {
        bool b = sluice_toml_bool(v);
        if (at != NULL)
            memcpy(at, &b, sizeof(b));
        break;
    }
    case KEY_INT:
    case KEY_SIZE: {
        int64_t n = sluice_toml_integer(v);
        if (k->min < k->max && (n < k->min || n > k->max))
            return fail_value(ld, v, k->name, "'%s' must be between %lld and %lld, got %lld",
                              k->name, (long long)k->min, (long long)k->max, (long long)n);
        if (at != NULL && k->kind == KEY_INT)
            memcpy(at, &n, sizeof(n));
        if (at != NULL && k->kind == KEY_SIZE) {
            size_t z = (size_t)n;
            memcpy(at, &z, sizeof(z));
        }
        break;
    }
    case KEY_STRING:
    case KEY_PATH: {
        const char *s = NULL;
        st = take_string(ld, v, k->name, k->kind == KEY_PATH ? 1 : k->min, &s);
        if (st == SLUICE_OK && k->kind == KEY_PATH)
            st = resolve_path(ld, s, &s);
        if (st == SLUICE_OK && at != NULL)
            memcpy(at, &s, sizeof(s));
        break;
    }
    case KEY_ENUM:
    case KEY_CHOICE: {
        size_t index;
        st = take_choice(ld, v, k->name, k->choices, &index);
        if (st == SLUICE_OK && at != NULL && k->kind == KEY_ENUM) {
            int e = (int)index;
            memcpy(at, &e, sizeof(e));
        } else if (st == SLUICE_OK && at != NULL) {
            memcpy(at, &k->choices[index], sizeof(k->choices[index]));
        }
        break;
    }
    case KEY_STRLIST:
        st = take_strlist(ld, v, k, at);
        break;
    case KEY_RISKS: {
        sluice_strlist levels = { 0 };
        st = take_strlist(ld, v, k, &levels);
        for (size_t i = 0; st == SLUICE_OK && at != NULL && i < 4; i++) {
            bool on = false;
            for (size_t j = 0; j < levels.count; j++)
                on = on || strcmp(levels.items[j], risk_names[i]) == 0;
            memcpy((bool *)at + i, &on, sizeof(on));
        }
        break;
    }
    case KEY_SECTION:
        st = k->sub != NULL ? decode_table(ld, k->sub, v, at) : SLUICE_OK;
        break;
    case KEY_TABLES:
        st = take_tables(ld, v, k, obj);
        break;
    case KEY_ACTIONS:
        st = take_actions(ld, v, k);
        break;
    }
    if (st == SLUICE_OK && k->check != NULL)
        st = k->check(ld, v, k->name, obj);
    return st;
}

static sluice_status
refuse(loader *ld, const section_spec *spec, const key_spec *k, size_t line, size_t column)
{
    if (k->status == KEY_INLINE_SECRET) {
        fail_at(ld, line, column, k->name, "inline secrets are refused: use %s", k->why);
        hint(ld, "a secret in a config file ends up in backups, diffs and support tickets");
        return SLUICE_E_CONFIG;
    }
    return fail_at(ld, line, column, k->name,
                   "%s configures %s, which is not built in this version; remove it",
                   display_name(ld, spec, k), k->why);
}

/* The first table that has key, for a key written above every table header. */
static const section_spec *home_of(const section_spec *root, const char *key)
{
    for (size_t i = 0; i < root->key_count; i++) {
        const section_spec *sub = root->keys[i].sub;
        if (sub != NULL && find_key(sub, key) != NULL)
            return sub;
    }
    return NULL;
}

static sluice_status unknown_key(loader *ld,
                                 const section_spec *spec,
                                 const char *key,
                                 const sluice_toml_value *v,
                                 size_t line,
                                 size_t column)
{
    bool top_table = spec->path == NULL && sluice_toml_type_of(v) == SLUICE_TOML_TABLE;
    if (top_table)
        fail_at(ld, line, column, key, "unknown table '%s'", show(ld, key));
    else
        fail_at(ld, line, column, key, "unknown key '%s' %s", show(ld, key), where(ld, spec));
    if (spec->path == NULL && !top_table && home_of(spec, key) != NULL) {
        hint(ld, "'%s' belongs %s, below its header", key, where(ld, home_of(spec, key)));
        return SLUICE_E_CONFIG;
    }
    const char *best = NULL;
    for (const key_alias *a = spec->aliases; a != NULL && a->from != NULL; a++) {
        if (strcmp(a->from, key) == 0)
            best = a->to;
    }
    /* pmcp-code-mode also accepts the SQL keys without their sql_ prefix; we do not. */
    const char *prefixed = sluice_arena_printf(ld->err_arena, "sql_%s", key);
    if (best == NULL && prefixed != NULL && find_key(spec, prefixed) != NULL)
        best = find_key(spec, prefixed)->name;
    if (best == NULL) {
        sluice_suggest sug;
        sluice_suggest_init(&sug, key);
        for (size_t i = 0; i < spec->key_count; i++)
            sluice_suggest_consider(&sug, spec->keys[i].name);
        best = sluice_suggest_best(&sug);
    }
    if (best != NULL)
        hint(ld, "did you mean '%s'?", best);
    return SLUICE_E_CONFIG;
}

/* Writes every row's constant default, recursing into sections (absent sections get their
 * defaults too), then the section's computed defaults. */
static sluice_status apply_defaults(loader *ld, const section_spec *spec, void *obj)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        const key_spec *k = &spec->keys[i];
        if (k->offset == NO_FIELD)
            continue;
        void *at = field(obj, k->offset);
        bool b = k->def != 0;
        int e = (int)k->def;
        size_t z = (size_t)k->def;
        switch (k->kind) {
        case KEY_BOOL:
            memcpy(at, &b, sizeof(b));
            break;
        case KEY_INT:
            memcpy(at, &k->def, sizeof(k->def));
            break;
        case KEY_SIZE:
            memcpy(at, &z, sizeof(z));
            break;
        case KEY_ENUM:
            memcpy(at, &e, sizeof(e));
            break;
        case KEY_STRING:
        case KEY_CHOICE:
            memcpy(at, &k->def_str, sizeof(k->def_str));
            break;
        case KEY_SECTION:
            if (k->sub != NULL) {
                sluice_status st = apply_defaults(ld, k->sub, at);
                if (st != SLUICE_OK)
                    return st;
            }
            break;
        case KEY_PATH:
        case KEY_STRLIST:
        case KEY_RISKS:
        case KEY_TABLES:
        case KEY_ACTIONS:
            break; /* zero (NULL, empty) from calloc; non-constant ones come from init */
        }
    }
    return spec->init != NULL ? spec->init(ld, obj) : SLUICE_OK;
}

/* Decodes table against spec into obj (NULL: check only). Keys are visited in file order so
 * the first error reported is the first one in the file. */
static sluice_status
decode_table(loader *ld, const section_spec *spec, const sluice_toml_value *table, void *obj)
{
    sluice_status st;
    if (obj != NULL && spec->array) {
        st = apply_defaults(ld, spec, obj);
        if (st != SLUICE_OK)
            return st;
    }
    for (size_t i = 0; i < sluice_toml_table_count(table); i++) {
        const char *key = sluice_toml_table_key(table, i);
        const sluice_toml_value *v = sluice_toml_table_value(table, i);
        size_t line = 0, column = 0;
        sluice_toml_table_key_position(table, i, &line, &column);
        /* "sql_allow_writes\u0000x" must not pass for sql_allow_writes. */
        if (sluice_toml_table_key_length(table, i) != strlen(key))
            return fail_at(ld, line, column, key, "key '%s' %s contains a NUL character",
                           show(ld, key), where(ld, spec));
        const key_spec *k = find_key(spec, key);
        if (k == NULL)
            return unknown_key(ld, spec, key, v, line, column);
        if (k->status == KEY_INLINE_SECRET)
            return refuse(ld, spec, k, line, column);
        st = take_value(ld, spec, k, v, k->status == KEY_BUILT ? obj : NULL);
        if (st != SLUICE_OK)
            return st;
        if (k->status == KEY_NOT_BUILT)
            return refuse(ld, spec, k, line, column);
    }
    for (size_t i = 0; i < spec->key_count; i++) {
        const key_spec *k = &spec->keys[i];
        if (k->required && sluice_toml_table_get(table, k->name) == NULL)
            return fail_at(ld, sluice_toml_line(table), sluice_toml_column(table), k->name,
                           "missing required key '%s' %s", k->name, where(ld, spec));
    }
    if (obj != NULL && spec->finish != NULL)
        return spec->finish(ld, table, obj);
    return SLUICE_OK;
}

/* ------------------------------------------------------------------------------------------
 * Section cross-checks
 * ------------------------------------------------------------------------------------------ */

static sluice_status finish_api_key(loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_api_key *key = obj;
    key->line = sluice_toml_line(table);
    if ((key->sha256_hex == NULL) == (key->env == NULL)) {
        size_t line, col;
        value_pos(table, key->env != NULL ? "key_env" : "", &line, &col);
        fail_at(ld, line, col, key->env != NULL ? "key_env" : "key_sha256",
                key->env != NULL ? "set only one of key_sha256 and key_env in [[api_keys]]"
                                 : "[[api_keys]] needs key_sha256 or key_env");
        hint(ld, "key_sha256 = the key's SHA-256 in hex; key_env = the name of an environment "
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

static sluice_status finish_database(loader *ld, const sluice_toml_value *table, void *obj)
{
    static const char *const duckdb_only[] = { "memory_limit", "threads", NULL };
    const sluice_config_database *db = obj;
    ld->cfg->has_database = true;
    for (size_t i = 0; db->engine != SLUICE_ENGINE_DUCKDB && duckdb_only[i] != NULL; i++) {
        if (sluice_toml_table_get(table, duckdb_only[i]) == NULL)
            continue;
        size_t line, col;
        value_pos(table, duckdb_only[i], &line, &col);
        return fail_at(ld, line, col, duckdb_only[i],
                       "'%s' applies to engine \"duckdb\" only; remove it or set engine = "
                       "\"duckdb\"",
                       duckdb_only[i]);
    }
    return SLUICE_OK;
}

/* One of file/env for the signing secret (required when code mode is on), at most one for the
 * previous secret. */
static sluice_status check_secret_pair(loader *ld,
                                       const sluice_toml_value *table,
                                       const char *file,
                                       const char *env,
                                       const char *file_key,
                                       const char *env_key,
                                       bool required)
{
    size_t line, col;
    if (file != NULL && env != NULL) {
        value_pos(table, env_key, &line, &col);
        return fail_at(ld, line, col, env_key, "set only one of %s and %s", file_key, env_key);
    }
    if (required && file == NULL && env == NULL) {
        value_pos(table, "enabled", &line, &col);
        fail_at(ld, line, col, file_key,
                "code mode is enabled but has no token secret: set %s or %s", file_key, env_key);
        hint(ld, "run 'sluice keygen' to make a secret of 32 random bytes");
        return SLUICE_E_CONFIG;
    }
    return SLUICE_OK;
}

static sluice_status finish_code_mode(loader *ld, const sluice_toml_value *table, void *obj)
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
    if (cm->audit_log != NULL && cm->replay_store == NULL) {
        cm->replay_store = sluice_arena_printf(ld->arena, "%s.replay", cm->audit_log);
        if (cm->replay_store == NULL)
            return nomem(ld);
    }
    return SLUICE_OK;
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
static sluice_status scan_placeholders(loader *ld,
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
            fail_value(ld, stmt_value, "statement",
                       "tool '%s' uses a positional parameter ($%c...); name it instead",
                       tool->name, s[i + 1]);
            hint(ld, "write $region and declare it in [[tools.parameters]]");
            return SLUICE_E_CONFIG;
        } else if (c == '$' && is_ident_start(s[i + 1])) {
            size_t start = i + 1, end = start;
            while (is_ident_char(s[end]))
                end++;
            if (s[end] == '$') { /* $tag$ ... $tag$: a dollar-quoted string */
                char tag[SLUICE_SUGGEST_MAX_LEN + 3];
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
                fail_value(ld, stmt_value, "statement",
                           "the statement of tool '%s' uses $%s, which is not a declared "
                           "parameter",
                           tool->name, show(ld, name));
                sluice_suggest sug;
                sluice_suggest_init(&sug, name);
                for (p = 0; p < tool->param_count; p++)
                    sluice_suggest_consider(&sug, tool->params[p].name);
                if (sluice_suggest_best(&sug) != NULL)
                    hint(ld, "did you mean '$%s'?", sluice_suggest_best(&sug));
                else
                    hint(ld, "declare it in [[tools.parameters]] with a name and a type");
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

static sluice_status finish_tool(loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_tool *tool = obj;
    size_t line, col;
    tool->line = sluice_toml_line(table);
    value_pos(table, "name", &line, &col);
    if (!is_mcp_name(tool->name))
        return fail_at(ld, line, col, "name",
                       "tool name \"%s\" must be 1 to 64 letters, digits, '_', '.' or '-'",
                       show(ld, tool->name));
    for (size_t i = 0; reserved_tools[i] != NULL; i++) {
        if (strcmp(tool->name, reserved_tools[i]) == 0)
            return fail_at(ld, line, col, "name", "tool name '%s' is reserved for code mode",
                           tool->name);
    }
    const sluice_toml_value *params = sluice_toml_table_get(table, "parameters");
    for (size_t i = 0; i < tool->param_count; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(tool->params[i].name, tool->params[j].name) == 0) {
                value_pos(sluice_toml_array_get(params, i), "name", &line, &col);
                return fail_at(ld, line, col, "name", "tool '%s' declares parameter '%s' twice",
                               tool->name, tool->params[i].name);
            }
        }
    }
    bool *used = tool->param_count > 0
                     ? sluice_arena_calloc(ld->err_arena, tool->param_count, sizeof(bool))
                     : NULL;
    if (tool->param_count > 0 && used == NULL)
        return nomem(ld);
    const sluice_toml_value *stmt = sluice_toml_table_get(table, "statement");
    sluice_status st = scan_placeholders(ld, stmt, tool, used);
    if (st != SLUICE_OK)
        return st;
    for (size_t i = 0; i < tool->param_count; i++) {
        if (!used[i]) {
            value_pos(sluice_toml_array_get(params, i), "name", &line, &col);
            fail_at(ld, line, col, "name",
                    "parameter '%s' of tool '%s' is never used in its statement",
                    tool->params[i].name, tool->name);
            hint(ld, "refer to it as $%s in the statement, or remove it", tool->params[i].name);
            return SLUICE_E_CONFIG;
        }
    }
    return SLUICE_OK;
}

static sluice_status finish_param(loader *ld, const sluice_toml_value *table, void *obj)
{
    const sluice_config_param *param = obj;
    if (is_identifier(param->name))
        return SLUICE_OK;
    size_t line, col;
    value_pos(table, "name", &line, &col);
    return fail_at(ld, line, col, "name",
                   "parameter name \"%s\" must be a letter or '_' followed by letters, digits "
                   "or '_' (it is written $name in the statement)",
                   show(ld, param->name));
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
static sluice_status check_placeholders(loader *ld,
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
        fail_value(ld, text_value, "text",
                   "prompt '%s' uses {{%s}}, which is not a declared argument", prompt->name,
                   show(ld, missing));
        hint(ld, "declare it in [[prompts.arguments]] (arguments = [{ name = \"%s\" }])",
             show(ld, missing));
        return SLUICE_E_CONFIG;
    }
    return SLUICE_OK;
}

static sluice_status finish_prompt(loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_prompt *prompt = obj;
    size_t line, col;
    value_pos(table, "name", &line, &col);
    if (!is_mcp_name(prompt->name))
        return fail_at(ld, line, col, "name",
                       "prompt name \"%s\" must be 1 to 64 letters, digits, '_', '.' or '-'",
                       show(ld, prompt->name));
    const sluice_toml_value *args = sluice_toml_table_get(table, "arguments");
    for (size_t i = 0; i < prompt->arg_count; i++) {
        value_pos(sluice_toml_array_get(args, i), "name", &line, &col);
        if (!is_mcp_name(prompt->args[i].name))
            return fail_at(ld, line, col, "name",
                           "argument name \"%s\" must be 1 to 64 letters, digits, '_', '.' or "
                           "'-'",
                           show(ld, prompt->args[i].name));
        if (find_arg(prompt, prompt->args[i].name, strlen(prompt->args[i].name)) !=
            &prompt->args[i])
            return fail_at(ld, line, col, "name", "prompt '%s' declares argument '%s' twice",
                           prompt->name, prompt->args[i].name);
    }
    const sluice_toml_value *messages = sluice_toml_table_get(table, "messages");
    if (prompt->message_count == 0) {
        value_pos(table, "messages", &line, &col);
        return fail_at(ld, line, col, "messages", "prompt '%s' has no messages", prompt->name);
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

static sluice_status check_mime(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
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
    return fail_value(ld, v, key,
                      "'%s' must be a media type such as \"text/markdown\", got "
                      "\"%s\"",
                      key, show(ld, s));
}

static sluice_status check_uri(loader *ld, const sluice_toml_value *v, const char *key, void *obj)
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
    return fail_value(ld, v, key,
                      "'%s' must be an absolute URI with a scheme, such as \"docs://guide\", "
                      "got \"%s\"",
                      key, show(ld, s));
}

static sluice_status finish_resource(loader *ld, const sluice_toml_value *table, void *obj)
{
    sluice_config_resource *res = obj;
    size_t line, col;
    if ((res->text == NULL) == (res->file == NULL)) {
        value_pos(table, "file", &line, &col);
        return fail_at(ld, line, col, res->file != NULL ? "file" : "text",
                       res->file != NULL
                           ? "resource '%s' sets both text and file; keep one"
                           : "resource '%s' needs its content: text = \"...\" or file = \"path\"",
                       show(ld, res->uri));
    }
    res->is_blob = !is_text_mime(res->mime_type);
    if (res->text != NULL) {
        res->text_len = strlen(res->text);
        if (!res->is_blob)
            return SLUICE_OK;
        value_pos(table, "mime_type", &line, &col);
        return fail_at(ld, line, col, "mime_type",
                       "resource '%s' has inline text but a binary mime type \"%s\"; serve "
                       "binary content with file = \"path\"",
                       show(ld, res->uri), show(ld, res->mime_type));
    }
    char *data = NULL;
    size_t len = 0;
    int e = read_file(ld->arena, res->file, SLUICE_LIMIT_RESOURCE_FILE_BYTES, true, &data, &len);
    const sluice_toml_value *file = sluice_toml_table_get(table, "file");
    const char *written = show(ld, sluice_toml_string(file, NULL));
    value_pos(table, "file", &line, &col);
    if (e == ENOMEM)
        return nomem(ld);
    if (e == EFBIG)
        return fail_at(ld, line, col, "file", "resource file '%s' is too large (limit is %u bytes)",
                       written, SLUICE_LIMIT_RESOURCE_FILE_BYTES);
    if (e != 0) {
        fail_at(ld, line, col, "file", "cannot read resource file '%s': %s", written,
                e == EINVAL ? "not a regular file" : strerror(e));
        if (ld->dir != NULL && res->file != sluice_toml_string(file, NULL))
            hint(ld, "relative paths are resolved against the config file's directory, %s",
                 ld->dir);
        return SLUICE_E_CONFIG;
    }
    if (!res->is_blob && !is_valid_utf8((const unsigned char *)data, len)) {
        fail_at(ld, line, col, "file", "resource file '%s' is not UTF-8 text", written);
        hint(ld, "set mime_type to its binary type (e.g. \"application/pdf\") to serve it as a "
                 "blob");
        return SLUICE_E_CONFIG;
    }
    res->text = data;
    res->text_len = len;
    return SLUICE_OK;
}

/* ------------------------------------------------------------------------------------------
 * Computed defaults
 * ------------------------------------------------------------------------------------------ */

static sluice_status strlist_of(loader *ld, sluice_strlist *out, const char *const *items)
{
    size_t n = 0;
    while (items[n] != NULL)
        n++;
    const char **copy = sluice_arena_calloc(ld->arena, n, sizeof(*copy));
    if (copy == NULL)
        return nomem(ld);
    memcpy(copy, items, n * sizeof(*copy));
    out->items = copy;
    out->count = n;
    return SLUICE_OK;
}

static sluice_status init_server(loader *ld, void *obj)
{
    /* Entries without a port match any port (see docs/config.md). */
    static const char *const origins[] = { "http://localhost", "http://127.0.0.1", "http://[::1]",
                                           NULL };
    static const char *const hosts[] = { "localhost", "127.0.0.1", "[::1]", NULL };
    sluice_config_server *server = obj;
    server->listen_host = "127.0.0.1";
    server->listen_port = 8808;
    sluice_status st = strlist_of(ld, &server->allowed_origins, origins);
    return st == SLUICE_OK ? strlist_of(ld, &server->allowed_hosts, hosts) : st;
}

static sluice_status init_identity(loader *ld, void *obj)
{
    sluice_config_identity *identity = obj;
    const char *user = getenv("SLUICE_USER");
    identity->user =
        user != NULL && user[0] != '\0' ? sluice_arena_strdup(ld->arena, user) : "local";
    return identity->user != NULL ? SLUICE_OK : nomem(ld);
}

static sluice_status init_code_mode(loader *ld, void *obj)
{
    (void)ld;
    sluice_config_code_mode *cm = obj;
    cm->auto_approve[SLUICE_RISK_LOW] = true;
    return SLUICE_OK;
}

/* ------------------------------------------------------------------------------------------
 * The key tables. One row per key; docs/config.md documents each one.
 * ------------------------------------------------------------------------------------------ */

/* Row shorthands: T is the section's struct, f a field whose name is the key's name. */
#define BOOL_KEY(T, f, d) .name = #f, .kind = KEY_BOOL, .offset = offsetof(T, f), .def = (d)
#define INT_KEY(T, f, lo, hi, d) \
    .name = #f, .kind = KEY_INT, .offset = offsetof(T, f), .min = (lo), .max = (hi), .def = (d)
#define SIZE_KEY(T, f, lo, hi, d) \
    .name = #f, .kind = KEY_SIZE, .offset = offsetof(T, f), .min = (lo), .max = (hi), .def = (d)
#define STR_KEY(T, f)  .name = #f, .kind = KEY_STRING, .offset = offsetof(T, f)
#define PATH_KEY(T, f) .name = #f, .kind = KEY_PATH, .offset = offsetof(T, f)
#define LIST_KEY(T, f) .name = #f, .kind = KEY_STRLIST, .offset = offsetof(T, f)
#define ENUM_KEY(T, f, ch, d) \
    .name = #f, .kind = KEY_ENUM, .offset = offsetof(T, f), .choices = (ch), .def = (d)
#define CHOICE_KEY(T, f, ch, d) \
    .name = #f, .kind = KEY_CHOICE, .offset = offsetof(T, f), .choices = (ch), .def_str = (d)
#define TABLES_KEY(n, T, f, count, s)                                                              \
    .name = (n), .kind = KEY_TABLES, .offset = offsetof(T, f), .count_offset = offsetof(T, count), \
    .sub = (s)
/* Recognised, type-checked, refused: the feature behind it is not built yet. */
#define NOT_BUILT(n, k, feature) \
    .name = (n), .kind = (k), .offset = NO_FIELD, .status = KEY_NOT_BUILT, .why = (feature)
#define INLINE_SECRET(n, instead)                                                     \
    .name = (n), .kind = KEY_STRING, .offset = NO_FIELD, .status = KEY_INLINE_SECRET, \
    .why = (instead)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define JS_INTERPRETER "the JavaScript/OpenAPI interpreter"
#define GRAPHQL        "GraphQL code mode"
#define CEDAR          "the Cedar policy engine"

_Static_assert(sizeof(sluice_engine_kind) == sizeof(int), "KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_exposure) == sizeof(int), "KEY_ENUM stores an int");
_Static_assert(sizeof(sluice_param_type) == sizeof(int), "KEY_ENUM stores an int");

static const char *const log_levels[] = { "debug", "info", "warn", "error", NULL };
static const char *const engines[] = { "duckdb", "sqlite", NULL };
static const char *const exposures[] = { "full", "read_only", "allowlist", NULL };
static const char *const param_types[] = { "string", "integer", "number", "boolean", NULL };
static const char *const roles[] = { "user", "assistant", NULL };

#define T sluice_config_server
static const key_spec server_keys[] = {
    { STR_KEY(T, name), .min = 1, .def_str = "sluice" },
    { STR_KEY(T, instructions) },
    { STR_KEY(T, listen), .def_str = "127.0.0.1:8808", .check = check_listen },
    { LIST_KEY(T, allowed_origins), .check = check_origins },
    { LIST_KEY(T, allowed_hosts), .check = check_hosts },
    { SIZE_KEY(T, max_body_bytes, 1024, 64 * 1024 * 1024, 1024 * 1024) },
    { SIZE_KEY(T, max_sessions, 1, 65536, 256) },
    { INT_KEY(T, session_idle_seconds, 10, 604800, 1800) },
    { INT_KEY(T, request_timeout_seconds, 1, 3600, 60) },
    { CHOICE_KEY(T, log_level, log_levels, "info") },
};
#undef T

#define T sluice_config_identity
static const key_spec identity_keys[] = {
    { STR_KEY(T, user), .min = 1 },
    { LIST_KEY(T, groups) },
};
#undef T

#define T sluice_config_api_key
static const key_spec api_key_keys[] = {
    { STR_KEY(T, user), .min = 1, .required = true },
    { LIST_KEY(T, groups) },
    { .name = "key_sha256",
      .kind = KEY_STRING,
      .offset = offsetof(T, sha256_hex),
      .check = check_sha256 },
    { .name = "key_env", .kind = KEY_STRING, .offset = offsetof(T, env), .check = check_env_name },
    { INLINE_SECRET("key", "key_sha256 or key_env") },
};
#undef T

#define T sluice_config_database
static const key_spec database_keys[] = {
    { ENUM_KEY(T, engine, engines, SLUICE_ENGINE_DUCKDB) },
    { PATH_KEY(T, path) },
    { STR_KEY(T, memory_limit), .def_str = "512MB", .check = check_memory_limit },
    { INT_KEY(T, threads, 1, 64, 2) },
};
#undef T

static const key_spec operation_keys[] = {
    { .name = "id", .kind = KEY_STRING, .offset = NO_FIELD, .min = 1, .required = true },
    { .name = "category",
      .kind = KEY_CHOICE,
      .offset = NO_FIELD,
      .choices = action_names,
      .required = true },
    { .name = "description", .kind = KEY_STRING, .offset = NO_FIELD },
    { .name = "path", .kind = KEY_STRING, .offset = NO_FIELD },
};

static const section_spec operation_section = {
    .path = "code_mode.operations",
    .array = true,
    .keys = operation_keys,
    .key_count = COUNT(operation_keys),
};

#define T sluice_config_code_mode
static const key_spec code_mode_keys[] = {
    { BOOL_KEY(T, enabled, false) },
    { STR_KEY(T, server_id), .min = 1 },
    { INT_KEY(T, token_ttl_seconds, 10, 86400, 300) },
    { PATH_KEY(T, token_secret_file) },
    { STR_KEY(T, token_secret_env), .check = check_env_name },
    { PATH_KEY(T, token_previous_secret_file) },
    { STR_KEY(T, token_previous_secret_env), .check = check_env_name },
    { INLINE_SECRET("token_secret",
                    "token_secret_file or token_secret_env (run 'sluice keygen')") },
    { INLINE_SECRET("token_previous_secret",
                    "token_previous_secret_file or token_previous_secret_env") },
    { .name = "auto_approve_levels", .kind = KEY_RISKS, .offset = offsetof(T, auto_approve) },
    { INT_KEY(T, execution_timeout_seconds, 1, 3600, 30) },
    { INT_KEY(T, max_result_bytes, 1024, 64 * 1024 * 1024, 1024 * 1024) },
    { ENUM_KEY(T, schema_exposure, exposures, SLUICE_EXPOSURE_FULL) },
    { PATH_KEY(T, audit_log) },
    { PATH_KEY(T, replay_store) },
    { BOOL_KEY(T, sql_reads_enabled, true) },
    { BOOL_KEY(T, sql_allow_writes, false) },
    { BOOL_KEY(T, sql_allow_deletes, false) },
    { BOOL_KEY(T, sql_allow_ddl, false) },
    { BOOL_KEY(T, sql_require_where_on_writes, true) },
    { BOOL_KEY(T, sql_require_limit, false) },
    { INT_KEY(T, sql_max_rows, 1, 10000000, 10000) },
    { INT_KEY(T, sql_max_joins, 0, 64, 5) },
    { LIST_KEY(T, sql_allowed_tables) },
    { LIST_KEY(T, sql_blocked_tables) },
    { LIST_KEY(T, sql_blocked_columns) },
    { LIST_KEY(T, blocked_fields) },
    /* The JavaScript/OpenAPI interpreter (seed 000's cost-coach block). */
    { NOT_BUILT("openapi_reads_enabled", KEY_BOOL, JS_INTERPRETER) },
    { NOT_BUILT("openapi_allow_writes", KEY_BOOL, JS_INTERPRETER) },
    { NOT_BUILT("openapi_allow_deletes", KEY_BOOL, JS_INTERPRETER) },
    { NOT_BUILT("openapi_allowed_writes", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_blocked_writes", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_allowed_deletes", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_blocked_paths", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_internal_blocked_fields", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_output_blocked_fields", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("openapi_require_output_declaration", KEY_BOOL, JS_INTERPRETER) },
    { .name = "max_api_calls",
      .kind = KEY_INT,
      .offset = offsetof(T, max_api_calls),
      .def = 50,
      .status = KEY_NOT_BUILT,
      .why = JS_INTERPRETER },
    { .name = "max_loop_iterations",
      .kind = KEY_INT,
      .offset = offsetof(T, max_loop_iterations),
      .def = 100,
      .status = KEY_NOT_BUILT,
      .why = JS_INTERPRETER },
    { NOT_BUILT("sdk_operations", KEY_STRLIST, JS_INTERPRETER) },
    { NOT_BUILT("operations", KEY_TABLES, JS_INTERPRETER), .sub = &operation_section },
    /* GraphQL code mode. */
    { NOT_BUILT("allow_mutations", KEY_BOOL, GRAPHQL) },
    { NOT_BUILT("allowed_mutations", KEY_STRLIST, GRAPHQL) },
    { NOT_BUILT("blocked_mutations", KEY_STRLIST, GRAPHQL) },
    { NOT_BUILT("allow_introspection", KEY_BOOL, GRAPHQL) },
    { NOT_BUILT("allowed_queries", KEY_STRLIST, GRAPHQL) },
    { NOT_BUILT("blocked_queries", KEY_STRLIST, GRAPHQL) },
    { NOT_BUILT("max_depth", KEY_INT, GRAPHQL) },
    { NOT_BUILT("max_field_count", KEY_INT, GRAPHQL) },
    { NOT_BUILT("max_cost", KEY_INT, GRAPHQL) },
    { NOT_BUILT("action_tags", KEY_ACTIONS, "the per-operation action override") },
};
#undef T

/* Names from pmcp-code-mode's README and toolkit that are not real keys anywhere. */
static const key_alias code_mode_aliases[] = {
    { "max_query_depth", "max_depth" },
    { "max_query_fields", "max_field_count" },
    { "auto_approve_threshold", "auto_approve_levels" },
    { "query_timeout_seconds", "execution_timeout_seconds" },
    { "max_result_rows", "sql_max_rows" },
    { NULL, NULL },
};

#define T sluice_config_param
static const key_spec param_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { ENUM_KEY(T, type, param_types, SLUICE_PARAM_STRING), .required = true },
    { STR_KEY(T, description) },
    { BOOL_KEY(T, required, true) },
};
#undef T

static const section_spec param_section = {
    .path = "tools.parameters",
    .array = true,
    .size = sizeof(sluice_config_param),
    .keys = param_keys,
    .key_count = COUNT(param_keys),
    .finish = finish_param,
};

#define T sluice_config_tool
static const key_spec tool_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { STR_KEY(T, statement), .min = 1, .required = true },
    { TABLES_KEY("parameters", T, params, param_count, &param_section) },
};
#undef T

#define T sluice_config_prompt_arg
static const key_spec prompt_arg_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, description) },
    { BOOL_KEY(T, required, false) },
};
#undef T

#define T sluice_config_prompt_message
static const key_spec prompt_message_keys[] = {
    { CHOICE_KEY(T, role, roles, "user"), .required = true },
    { STR_KEY(T, text), .required = true },
};
#undef T

static const section_spec prompt_arg_section = {
    .path = "prompts.arguments",
    .array = true,
    .size = sizeof(sluice_config_prompt_arg),
    .keys = prompt_arg_keys,
    .key_count = COUNT(prompt_arg_keys),
};

static const section_spec prompt_message_section = {
    .path = "prompts.messages",
    .array = true,
    .size = sizeof(sluice_config_prompt_message),
    .keys = prompt_message_keys,
    .key_count = COUNT(prompt_message_keys),
};

#define T sluice_config_prompt
static const key_spec prompt_keys[] = {
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { TABLES_KEY("arguments", T, args, arg_count, &prompt_arg_section) },
    { TABLES_KEY("messages", T, messages, message_count, &prompt_message_section) },
};
#undef T

#define T sluice_config_resource
static const key_spec resource_keys[] = {
    { STR_KEY(T, uri), .required = true, .check = check_uri },
    { STR_KEY(T, name), .min = 1, .required = true },
    { STR_KEY(T, title) },
    { STR_KEY(T, description) },
    { STR_KEY(T, mime_type), .def_str = "text/plain", .check = check_mime },
    { STR_KEY(T, text) },
    { PATH_KEY(T, file) },
};
#undef T

static const section_spec server_section = {
    .path = "server",
    .keys = server_keys,
    .key_count = COUNT(server_keys),
    .init = init_server,
};

static const section_spec identity_section = {
    .path = "identity",
    .keys = identity_keys,
    .key_count = COUNT(identity_keys),
    .init = init_identity,
};

static const section_spec api_key_section = {
    .path = "api_keys",
    .array = true,
    .size = sizeof(sluice_config_api_key),
    .keys = api_key_keys,
    .key_count = COUNT(api_key_keys),
    .finish = finish_api_key,
};

static const section_spec database_section = {
    .path = "database",
    .keys = database_keys,
    .key_count = COUNT(database_keys),
    .finish = finish_database,
};

static const section_spec code_mode_section = {
    .path = "code_mode",
    .keys = code_mode_keys,
    .key_count = COUNT(code_mode_keys),
    .aliases = code_mode_aliases,
    .init = init_code_mode,
    .finish = finish_code_mode,
};

static const section_spec tool_section = {
    .path = "tools",
    .array = true,
    .size = sizeof(sluice_config_tool),
    .keys = tool_keys,
    .key_count = COUNT(tool_keys),
    .finish = finish_tool,
};

static const section_spec prompt_section = {
    .path = "prompts",
    .array = true,
    .size = sizeof(sluice_config_prompt),
    .keys = prompt_keys,
    .key_count = COUNT(prompt_keys),
    .finish = finish_prompt,
};

static const section_spec resource_section = {
    .path = "resources",
    .array = true,
    .size = sizeof(sluice_config_resource),
    .keys = resource_keys,
    .key_count = COUNT(resource_keys),
    .finish = finish_resource,
};

#define T sluice_config
static const key_spec root_keys[] = {
    { .name = "server",
      .kind = KEY_SECTION,
      .offset = offsetof(T, server),
      .sub = &server_section },
    { .name = "identity",
      .kind = KEY_SECTION,
      .offset = offsetof(T, identity),
      .sub = &identity_section },
    { TABLES_KEY("api_keys", T, api_keys, api_key_count, &api_key_section) },
    { .name = "database",
      .kind = KEY_SECTION,
      .offset = offsetof(T, database),
      .sub = &database_section },
    { .name = "code_mode",
      .kind = KEY_SECTION,
      .offset = offsetof(T, code_mode),
      .sub = &code_mode_section },
    { TABLES_KEY("tools", T, tools, tool_count, &tool_section) },
    { TABLES_KEY("prompts", T, prompts, prompt_count, &prompt_section) },
    { TABLES_KEY("resources", T, resources, resource_count, &resource_section) },
    { NOT_BUILT("policy", KEY_SECTION, CEDAR) },
};
#undef T

static const section_spec root_section = {
    .path = NULL,
    .keys = root_keys,
    .key_count = COUNT(root_keys),
};

/* ------------------------------------------------------------------------------------------
 * Checks across sections
 * ------------------------------------------------------------------------------------------ */

/* Fails when the string at field `offset` of element i equals that of an earlier element. */
static sluice_status check_unique(loader *ld,
                                  const sluice_toml_value *root,
                                  const char *array_key,
                                  const char *key,
                                  const char *what,
                                  const void *elems,
                                  size_t count,
                                  size_t size,
                                  size_t offset)
{
    const sluice_toml_value *array = sluice_toml_table_get(root, array_key);
    for (size_t i = 0; i < count; i++) {
        const char *a;
        memcpy(&a, (const char *)elems + i * size + offset, sizeof(a));
        for (size_t j = 0; a != NULL && j < i; j++) {
            const char *b;
            memcpy(&b, (const char *)elems + j * size + offset, sizeof(b));
            if (b == NULL || strcmp(a, b) != 0)
                continue;
            size_t line, col, first_line, first_col;
            value_pos(sluice_toml_array_get(array, j), key, &first_line, &first_col);
            value_pos(sluice_toml_array_get(array, i), key, &line, &col);
            return fail_at(ld, line, col, key, "%s '%s' is declared twice (first at line %zu)",
                           what, show(ld, a), first_line);
        }
    }
    return SLUICE_OK;
}

/* blocked_fields and sql_blocked_columns name the same thing for SQL; every consumer reading
 * sql_blocked_columns sees both, so no reader can forget one of them. */
static sluice_status merge_blocked(loader *ld, sluice_config_code_mode *cm)
{
    size_t n = cm->sql_blocked_columns.count + cm->blocked_fields.count;
    if (cm->blocked_fields.count == 0)
        return SLUICE_OK;
    const char **items = sluice_arena_calloc(ld->arena, n, sizeof(*items));
    if (items == NULL)
        return nomem(ld);
    size_t k = 0;
    const sluice_strlist *lists[] = { &cm->sql_blocked_columns, &cm->blocked_fields };
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->count; i++) {
            bool seen = false;
            for (size_t j = 0; j < k; j++)
                seen = seen || strcmp(items[j], lists[l]->items[i]) == 0;
            if (!seen)
                items[k++] = lists[l]->items[i];
        }
    }
    cm->sql_blocked_columns.items = items;
    cm->sql_blocked_columns.count = k;
    return SLUICE_OK;
}

static sluice_status finish_config(loader *ld, const sluice_toml_value *root)
{
    sluice_config *cfg = ld->cfg;
    if (cfg->code_mode.server_id == NULL)
        cfg->code_mode.server_id = cfg->server.name;
    sluice_status st = merge_blocked(ld, &cfg->code_mode);
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "tools", "name", "tool", cfg->tools, cfg->tool_count,
                          sizeof(*cfg->tools), offsetof(sluice_config_tool, name));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "prompts", "name", "prompt", cfg->prompts, cfg->prompt_count,
                          sizeof(*cfg->prompts), offsetof(sluice_config_prompt, name));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "resources", "uri", "resource", cfg->resources,
                          cfg->resource_count, sizeof(*cfg->resources),
                          offsetof(sluice_config_resource, uri));
    if (st == SLUICE_OK)
        st = check_unique(ld, root, "api_keys", "key_sha256", "api key", cfg->api_keys,
                          cfg->api_key_count, sizeof(*cfg->api_keys),
                          offsetof(sluice_config_api_key, sha256_hex));
    return st;
}

/* ------------------------------------------------------------------------------------------
 * Entry points
 * ------------------------------------------------------------------------------------------ */

/* A fresh config with every default, in its own arena. */
static sluice_status new_config(loader *ld, const char *path, const char *dir)
{
    sluice_arena *arena = sluice_arena_new();
    sluice_config *cfg = arena != NULL ? sluice_arena_calloc(arena, 1, sizeof(*cfg)) : NULL;
    if (cfg == NULL) {
        sluice_arena_free(arena);
        return nomem(ld);
    }
    cfg->arena = arena;
    ld->cfg = cfg;
    ld->arena = arena;
    cfg->path = sluice_arena_strdup(arena, path);
    cfg->dir = sluice_arena_strdup(arena, dir);
    ld->dir = cfg->dir;
    sluice_status st = (path != NULL && cfg->path == NULL) || (dir != NULL && cfg->dir == NULL)
                           ? nomem(ld)
                           : apply_defaults(ld, &root_section, cfg);
    if (st != SLUICE_OK) {
        sluice_arena_free(arena);
        ld->cfg = NULL;
    }
    return st;
}

/* "read_only-true" is one bare key to TOML ('-' is a key character), so the parser can only say
 * "expected '=' after key 'read_only-true'". Show the line the writer most likely meant. */
static void hint_missing_equals(loader *ld, const char *message)
{
    static const char prefix[] = "expected '=' after key '";
    if (message == NULL || strncmp(message, prefix, sizeof prefix - 1) != 0)
        return;
    const char *key = message + sizeof prefix - 1;
    const char *end = strrchr(key, '\'');
    const char *dash = end != NULL ? memchr(key, '-', (size_t)(end - key)) : NULL;
    if (dash == NULL || dash == key || dash + 1 == end) {
        hint(ld, "a key and its value are written key = value");
        return;
    }
    const char *last = dash;
    for (const char *p = dash; p < end; p++)
        last = *p == '-' ? p : last;
    hint(ld, "did you mean '%.*s = %.*s'? ('-' is part of a key name; '=' sets its value)",
         (int)(last - key), key, (int)(end - last - 1), last + 1);
}

/* Copies a TOML error out of the scratch arena, as a configuration error. */
static sluice_status toml_failed(loader *ld, sluice_status st, const sluice_error *terr)
{
    if (st == SLUICE_E_NOMEM)
        return nomem(ld);
    if (ld->err == NULL)
        return SLUICE_E_CONFIG;
    sluice_error_clear(ld->err);
    ld->err->status = SLUICE_E_CONFIG;
    ld->err->message = sluice_arena_strdup(ld->err_arena, terr->message);
    if (ld->err->message == NULL)
        return nomem(ld);
    ld->err->source = sluice_arena_strdup(ld->err_arena, ld->source);
    ld->err->key = sluice_arena_strdup(ld->err_arena, terr->key);
    ld->err->hint = sluice_arena_strdup(ld->err_arena, terr->hint);
    ld->err->line = terr->line;
    ld->err->column = terr->column;
    ld->err->offset = terr->offset;
    ld->err->length = terr->length;
    if (ld->err->hint == NULL)
        hint_missing_equals(ld, terr->message);
    return SLUICE_E_CONFIG;
}

static sluice_status load_in(sluice_arena *scratch,
                             const char *text,
                             size_t len,
                             const char *source,
                             const char *dir,
                             sluice_config **out,
                             sluice_arena *err_arena,
                             sluice_error *err)
{
    loader ld = { .err_arena = err_arena, .err = err, .source = source, .dir = dir };
    sluice_toml_value *root = NULL;
    sluice_error terr;
    sluice_error_clear(&terr);
    sluice_status st = sluice_toml_parse(scratch, text, len, source, &root, &terr);
    if (st != SLUICE_OK)
        return toml_failed(&ld, st, &terr);
    st = new_config(&ld, source, dir);
    if (st != SLUICE_OK)
        return st;
    st = decode_table(&ld, &root_section, root, ld.cfg);
    if (st == SLUICE_OK)
        st = finish_config(&ld, root);
    if (st != SLUICE_OK) {
        sluice_arena_free(ld.cfg->arena);
        return st;
    }
    *out = ld.cfg;
    return SLUICE_OK;
}

sluice_status sluice_config_load_text(const char *text,
                                      size_t len,
                                      const char *source,
                                      const char *dir,
                                      sluice_config **out,
                                      sluice_arena *err_arena,
                                      sluice_error *err)
{
    sluice_error_clear(err);
    sluice_arena *scratch = sluice_arena_new();
    if (scratch == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory while loading the configuration");
    sluice_status st =
        load_in(scratch, text, len, source != NULL ? source : "<config>", dir, out, err_arena, err);
    sluice_arena_free(scratch);
    return st;
}

/* The directory relative paths are resolved against: the config file's, made absolute so a
 * later chdir cannot change what a path means. */
static char *config_dir(sluice_arena *arena, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL   ? sluice_arena_strdup(arena, ".")
                : slash == path ? sluice_arena_strdup(arena, "/")
                                : sluice_arena_strndup(arena, path, (size_t)(slash - path));
    if (dir == NULL)
        return NULL;
    char *real = realpath(dir, NULL);
    if (real == NULL)
        return dir;
    char *copy = sluice_arena_strdup(arena, real);
    free(real);
    return copy;
}

sluice_status sluice_config_load(const char *path,
                                 sluice_config **out,
                                 sluice_arena *err_arena,
                                 sluice_error *err)
{
    sluice_error_clear(err);
    sluice_arena *scratch = sluice_arena_new();
    if (scratch == NULL)
        return sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                "out of memory while loading the configuration");
    char *text = NULL;
    size_t len = 0;
    int e = read_file(scratch, path, SLUICE_LIMIT_CONFIG_BYTES, false, &text, &len);
    sluice_status st;
    if (e == ENOMEM)
        st = sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                              "out of memory while loading the configuration");
    else if (e == EFBIG)
        st = sluice_error_set(err, err_arena, SLUICE_E_CONFIG,
                              "%s: configuration file is too large (limit is %u bytes)", path,
                              SLUICE_LIMIT_CONFIG_BYTES);
    else if (e != 0)
        st = sluice_error_set(err, err_arena, SLUICE_E_IO, "cannot read %s: %s", path, strerror(e));
    else {
        char *dir = config_dir(scratch, path);
        st = dir == NULL ? sluice_error_set(err, err_arena, SLUICE_E_NOMEM,
                                            "out of memory while loading the configuration")
                         : load_in(scratch, text, len, path, dir, out, err_arena, err);
    }
    sluice_arena_free(scratch);
    return st;
}

sluice_status sluice_config_defaults(sluice_config **out)
{
    loader ld = { 0 };
    sluice_status st = new_config(&ld, NULL, NULL);
    if (st != SLUICE_OK)
        return st;
    ld.cfg->code_mode.server_id = ld.cfg->server.name;
    *out = ld.cfg;
    return SLUICE_OK;
}

void sluice_config_free(sluice_config *config)
{
    if (config != NULL)
        sluice_arena_free(config->arena);
}

const char *sluice_risk_name(sluice_risk risk)
{
    return (unsigned)risk < 4 ? risk_names[risk] : "unknown";
}

static void each_key(const section_spec *spec,
                     void (*fn)(const char *table, const char *key, bool built, void *ctx),
                     void *ctx)
{
    for (size_t i = 0; i < spec->key_count; i++) {
        const key_spec *k = &spec->keys[i];
        fn(spec->path != NULL ? spec->path : "", k->name, k->status == KEY_BUILT, ctx);
        if (k->sub != NULL)
            each_key(k->sub, fn, ctx);
    }
}

void sluice_config_each_key(void (*fn)(const char *table, const char *key, bool built, void *ctx),
                            void *ctx)
{
    each_key(&root_section, fn, ctx);
}

bool sluice_config_error_quotes_secret(const sluice_error *err)
{
    return err != NULL && err->message != NULL &&
           strncmp(err->message, "inline secrets are refused", 26) == 0;
}
